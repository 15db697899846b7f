// Intra_16x16 luma and chroma prediction (clauses 8.3.3 and 8.3.4), the twins of
// src/h264/predict.rs `luma16` and `chroma8`, from a macroblock's reconstructed
// neighbours in workgroup memory (the intra stage loads them).

//!import h264/block

// Reconstructed neighbours of the macroblock: luma top row and left column, Cb and Cr
// (8 each) top rows and left columns, corners (Y, Cb, Cr).
var<workgroup> top_y: array<i32, 16>;
var<workgroup> left_y: array<i32, 16>;
var<workgroup> top_c: array<i32, 16>;
var<workgroup> left_c: array<i32, 16>;
var<workgroup> corner: array<i32, 3>;

// Plane prediction parameters (a, b, c) of the 16x16 luma and of an 8x8 chroma component
// (clause 8.3.3.4 / 8.3.4.4).
fn plane_luma() -> vec3<i32> {
    var h = 0;
    var v = 0;
    for (var k = 0; k < 8; k++) {
        let far = 8 + k;
        let near = 6 - k;
        let t_near = select(top_y[max(near, 0)], corner[0], near < 0);
        let l_near = select(left_y[max(near, 0)], corner[0], near < 0);
        h += (k + 1) * (top_y[far] - t_near);
        v += (k + 1) * (left_y[far] - l_near);
    }
    let a = 16 * (left_y[15] + top_y[15]);
    return vec3<i32>(a, (5 * h + 32) >> 6u, (5 * v + 32) >> 6u);
}

fn plane_chroma(comp: u32) -> vec3<i32> {
    let o = i32(comp * 8u);
    var h = 0;
    var v = 0;
    for (var k = 0; k < 4; k++) {
        let far = 4 + k;
        let near = 2 - k;
        let t_near = select(top_c[o + max(near, 0)], corner[1u + comp], near < 0);
        let l_near = select(left_c[o + max(near, 0)], corner[1u + comp], near < 0);
        h += (k + 1) * (top_c[o + far] - t_near);
        v += (k + 1) * (left_c[o + far] - l_near);
    }
    let a = 16 * (left_c[o + 7] + top_c[o + 7]);
    return vec3<i32>(a, (34 * h + 32) >> 6u, (34 * v + 32) >> 6u);
}

// The plane prediction of the 4x4 block at (x, y) of the block (`centre`: 7 luma, 3 chroma).
fn plane_block(p: vec3<i32>, x: u32, y: u32, centre: i32) -> Block {
    let xs = vec4<i32>(i32(x)) + vec4<i32>(0, 1, 2, 3) - vec4<i32>(centre);
    let base = vec4<i32>(p.x + 16) + p.y * xs;
    let y0 = i32(y) - centre;
    let lo = vec4<i32>(0);
    let hi = vec4<i32>(255);
    let s = vec4<u32>(5u);
    return Block(
        clamp((base + vec4<i32>(p.z * y0)) >> s, lo, hi),
        clamp((base + vec4<i32>(p.z * (y0 + 1))) >> s, lo, hi),
        clamp((base + vec4<i32>(p.z * (y0 + 2))) >> s, lo, hi),
        clamp((base + vec4<i32>(p.z * (y0 + 3))) >> s, lo, hi),
    );
}

// Intra_16x16 prediction of the lane's 4x4 block (bx, by) in `mode` (`predict::luma16`):
// vertical 0, horizontal 1, DC 2, plane 3.
fn luma_pred(mode: u32, bx: u32, by: u32, dc: i32, plane: vec3<i32>) -> Block {
    switch mode {
        case 0u: {
            let t = vec4<i32>(top_y[bx * 4u], top_y[bx * 4u + 1u], top_y[bx * 4u + 2u], top_y[bx * 4u + 3u]);
            return Block(t, t, t, t);
        }
        case 1u: {
            return Block(vec4<i32>(left_y[by * 4u]), vec4<i32>(left_y[by * 4u + 1u]), vec4<i32>(left_y[by * 4u + 2u]), vec4<i32>(left_y[by * 4u + 3u]));
        }
        case 2u: { return splat_block(dc); }
        default: { return plane_block(plane, bx * 4u, by * 4u, 7); }
    }
}

// The DC prediction of chroma 4x4 block (bx, by) of component `comp` (clause 8.3.4.1-3:
// the corner blocks use both edges, (1, 0) prefers the top, (0, 1) the left).
fn chroma_dc_pred(comp: u32, bx: u32, by: u32, has_top: bool, has_left: bool) -> i32 {
    var t = 0;
    var l = 0;
    for (var i = 0u; i < 4u; i++) {
        t += top_c[comp * 8u + bx * 4u + i];
        l += left_c[comp * 8u + by * 4u + i];
    }
    if bx == 1u && by == 0u && has_top {
        return (t + 2) >> 2u;
    }
    if bx == 0u && by == 1u && has_left {
        return (l + 2) >> 2u;
    }
    if has_top && has_left {
        return (t + l + 4) >> 3u;
    }
    if has_top {
        return (t + 2) >> 2u;
    }
    if has_left {
        return (l + 2) >> 2u;
    }
    return 128;
}

// Chroma prediction of block (bx, by) of component `comp` in `mode` (`predict::chroma8`):
// DC 0, horizontal 1, vertical 2, plane 3.
fn chroma_pred(mode: u32, comp: u32, bx: u32, by: u32, dc: i32, plane: vec3<i32>) -> Block {
    let o = comp * 8u;
    switch mode {
        case 0u: { return splat_block(dc); }
        case 1u: {
            return Block(vec4<i32>(left_c[o + by * 4u]), vec4<i32>(left_c[o + by * 4u + 1u]), vec4<i32>(left_c[o + by * 4u + 2u]), vec4<i32>(left_c[o + by * 4u + 3u]));
        }
        case 2u: {
            let t = vec4<i32>(top_c[o + bx * 4u], top_c[o + bx * 4u + 1u], top_c[o + bx * 4u + 2u], top_c[o + bx * 4u + 3u]);
            return Block(t, t, t, t);
        }
        default: { return plane_block(plane, bx * 4u, by * 4u, 3); }
    }
}

// Whether a mode's neighbours exist. Luma: vertical 0 (top), horizontal 1 (left), DC 2,
// plane 3 (both). Chroma: DC 0, horizontal 1 (left), vertical 2 (top), plane 3 (both).
fn luma_mode_available(mode: u32, has_top: bool, has_left: bool) -> bool {
    return mode == 2u || (mode == 0u && has_top) || (mode == 1u && has_left) || (mode == 3u && has_top && has_left);
}

fn chroma_mode_available(mode: u32, has_top: bool, has_left: bool) -> bool {
    return mode == 0u || (mode == 1u && has_left) || (mode == 2u && has_top) || (mode == 3u && has_top && has_left);
}
