// The H.264 front end for I_16x16 macroblocks on the GPU: prediction and mode choice by
// SATD, forward transform, quantization (a coarser QP where Baseline CAVLC cannot code a
// level), reconstruction, and the levels and headers the CAVLC stages read.
// CPU twin: src/h264/macroblock.rs `encode_mb` with `LumaModes::Intra16x16` through
// src/h264/slices.rs `encode_picture_levels` (src/h264/intra16.rs holds the Rust side).
//
// Entry `wave`: one workgroup of 16 invocations per macroblock, invocation b working on
// luma 4x4 block b (raster) and invocations 0..7 also on chroma block b (Cb 0..3, Cr
// 4..7). A dispatch codes one wave of every slice of every picture of the batch: the
// macroblocks where x + 2 * row (row within the slice) equals `wave`, whose left, top-left
// and top neighbours were coded by earlier waves (earlier dispatches).
// Entry `write_headers`: one invocation per macroblock, after the last wave: mb_qp_delta
// against the previous macroblock's QP (every I_16x16 macroblock codes one).
//
// A 4x4 block is a `Block` of four row vectors, and every transform works on whole rows
// and columns of them: the blocks stay in registers (arrays indexed at run time would go
// to local memory, whose latency every step of a macroblock then waits on).

// keep in sync with src/h264/intra16.rs `Intra16Params`
struct Intra16Params {
    width: u32,
    height: u32,
    chroma_width: u32,
    chroma_height: u32,
    width_mbs: u32,
    height_mbs: u32,
    rows_per_slice: u32,
    qp: u32,
    lambda: u32,
    src_words: u32, // words of one source picture (Y, Cb, Cr planes back to back)
    recon_words: u32, // words of one reconstruction (planes padded to whole macroblocks)
    n_mbs: u32,
    wave: u32,
    first_row: u32, // the lowest row (within a slice) the wave holds
    pictures: u32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> params: Intra16Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> recon: array<u32>;
// 24 blocks of 16 levels per macroblock as i16 pairs (level 2k in the low half), the
// layout of src/cavlc/frame.rs `Frame::levels`.
@group(0) @binding(3) var<storage, read_write> levels: array<u32>;
// Per macroblock: luma mode | chroma mode << 2 | luma AC << 4 | cbp_chroma << 5 |
// qp << 8 | not codable even at QP 51 << 14.
@group(0) @binding(4) var<storage, read_write> choices: array<u32>;
// src/cavlc/frame.rs `MbHeader`, 8 words each.
@group(0) @binding(5) var<storage, read_write> mb_headers: array<u32>;
// Word 0: nonzero when some macroblock could not be coded.
@group(0) @binding(6) var<storage, read_write> status: array<atomic<u32>>;

// Quantization multipliers by qp % 6, position class (src/h264/transform.rs `MF`).
const MF = array<vec3<i32>, 6>(
    vec3<i32>(13107, 5243, 8066), vec3<i32>(11916, 4660, 7490), vec3<i32>(10082, 4194, 6554),
    vec3<i32>(9362, 3647, 5825), vec3<i32>(8192, 3355, 5243), vec3<i32>(7282, 2893, 4559),
);
// normAdjust4x4 v by qp % 6, position class (`V`).
const NORM = array<vec3<i32>, 6>(
    vec3<i32>(10, 16, 13), vec3<i32>(11, 18, 14), vec3<i32>(13, 20, 16),
    vec3<i32>(14, 23, 18), vec3<i32>(16, 25, 20), vec3<i32>(18, 29, 23),
);
// QP'c for QP 30..51 (Table 8-15; below 30 QP'c = QP).
const CHROMA_QP_HIGH = array<u32, 22>(
    29u, 30u, 31u, 32u, 32u, 33u, 34u, 34u, 35u, 35u, 36u, 36u, 37u, 37u, 37u, 38u, 38u, 38u,
    39u, 39u, 39u, 39u,
);
// Zigzag scan index -> raster index.
const ZIGZAG = array<u32, 16>(0u, 1u, 4u, 8u, 5u, 2u, 3u, 6u, 9u, 12u, 13u, 10u, 7u, 11u, 14u, 15u);

// Reconstructed neighbours of the macroblock: luma top row and left column, Cb and Cr
// (8 each) top rows and left columns, corners (Y, Cb, Cr).
var<workgroup> top_y: array<i32, 16>;
var<workgroup> left_y: array<i32, 16>;
var<workgroup> top_c: array<i32, 16>;
var<workgroup> left_c: array<i32, 16>;
var<workgroup> corner: array<i32, 3>;
// SATD sums: luma modes 0..3, Cb modes 4..7, Cr modes 8..11.
var<workgroup> satd_sums: array<atomic<u32>, 12>;
var<workgroup> luma_dc_coeffs: array<i32, 16>;
var<workgroup> chroma_dc_coeffs: array<i32, 8>;
var<workgroup> luma_dc_levels: array<i32, 16>;
var<workgroup> chroma_dc_levels: array<i32, 8>;
// Bit 0: a block not codable at this QP; 1: a luma AC level; 2: a chroma AC level;
// 3: a chroma DC level.
var<workgroup> flags: atomic<u32>;
var<workgroup> flags_seen: u32;

// A 4x4 block as four named rows (raster: row y is `ry`, x in .x .y .z .w).
struct Block {
    r0: vec4<i32>,
    r1: vec4<i32>,
    r2: vec4<i32>,
    r3: vec4<i32>,
}

fn block_sub(a: Block, b: Block) -> Block {
    return Block(a.r0 - b.r0, a.r1 - b.r1, a.r2 - b.r2, a.r3 - b.r3);
}

fn block_add_clamped(a: Block, b: Block) -> Block {
    let lo = vec4<i32>(0);
    let hi = vec4<i32>(255);
    return Block(clamp(a.r0 + b.r0, lo, hi), clamp(a.r1 + b.r1, lo, hi), clamp(a.r2 + b.r2, lo, hi), clamp(a.r3 + b.r3, lo, hi));
}

fn any_ac_nonzero(b: Block) -> bool {
    return any(vec4<i32>(0, b.r0.y, b.r0.z, b.r0.w) != vec4<i32>(0)) || any((b.r1 | b.r2 | b.r3) != vec4<i32>(0));
}

fn beyond_escape(b: Block) -> bool {
    let m = max(max(abs(b.r0), abs(b.r1)), max(abs(b.r2), abs(b.r3)));
    return any(m > vec4<i32>(2063));
}

fn with_dc(b: Block, dc: i32) -> Block {
    return Block(vec4<i32>(dc, b.r0.yzw), b.r1, b.r2, b.r3);
}

fn chroma_qp(qp: u32) -> u32 {
    if qp < 30u {
        return qp;
    }
    return CHROMA_QP_HIGH[min(qp, 51u) - 30u];
}

fn ue_bits(v: u32) -> u32 {
    return 2u * (32u - countLeadingZeros(v + 1u)) - 1u;
}

fn src_byte(at: u32) -> i32 {
    return i32((src[at >> 2u] >> ((at & 3u) * 8u)) & 0xffu);
}

fn recon_byte(at: u32) -> i32 {
    return i32((recon[at >> 2u] >> ((at & 3u) * 8u)) & 0xffu);
}

// Four source samples of a row of a plane of `w` x `h` from byte `base`, edges repeated
// (the padding of src/h264/slices.rs `Plane::padded`).
fn source_row(base: u32, w: u32, h: u32, x: u32, y: u32) -> vec4<i32> {
    let row = base + min(y, h - 1u) * w;
    return vec4<i32>(
        src_byte(row + min(x, w - 1u)),
        src_byte(row + min(x + 1u, w - 1u)),
        src_byte(row + min(x + 2u, w - 1u)),
        src_byte(row + min(x + 3u, w - 1u)),
    );
}

fn source_block(base: u32, w: u32, h: u32, x: u32, y: u32) -> Block {
    return Block(source_row(base, w, h, x, y), source_row(base, w, h, x, y + 1u), source_row(base, w, h, x, y + 2u), source_row(base, w, h, x, y + 3u));
}

// Row transforms of a block's rows, then the same across rows (columns): `forward4x4`.
fn forward_row(v: vec4<i32>) -> vec4<i32> {
    let s03 = v.x + v.w;
    let d03 = v.x - v.w;
    let s12 = v.y + v.z;
    let d12 = v.y - v.z;
    return vec4<i32>(s03 + s12, 2 * d03 + d12, s03 - s12, d03 - 2 * d12);
}

fn forward4x4(x: Block) -> Block {
    let t0 = forward_row(x.r0);
    let t1 = forward_row(x.r1);
    let t2 = forward_row(x.r2);
    let t3 = forward_row(x.r3);
    let s03 = t0 + t3;
    let d03 = t0 - t3;
    let s12 = t1 + t2;
    let d12 = t1 - t2;
    return Block(s03 + s12, 2 * d03 + d12, s03 - s12, d03 - 2 * d12);
}

// The inverse 4x4 transform of clause 8.5.12.2 (`inverse4x4`).
fn inverse_row(d: vec4<i32>) -> vec4<i32> {
    let e0 = d.x + d.z;
    let e1 = d.x - d.z;
    let e2 = (d.y >> 1u) - d.w;
    let e3 = d.y + (d.w >> 1u);
    return vec4<i32>(e0 + e3, e1 + e2, e1 - e2, e0 - e3);
}

fn inverse4x4(d: Block) -> Block {
    let f0 = inverse_row(d.r0);
    let f1 = inverse_row(d.r1);
    let f2 = inverse_row(d.r2);
    let f3 = inverse_row(d.r3);
    let g0 = f0 + f2;
    let g1 = f0 - f2;
    let g2 = (f1 >> vec4<u32>(1u)) - f3;
    let g3 = f1 + (f3 >> vec4<u32>(1u));
    let r = vec4<i32>(32);
    let s = vec4<u32>(6u);
    return Block((g0 + g3 + r) >> s, (g1 + g2 + r) >> s, (g1 - g2 + r) >> s, (g0 - g3 + r) >> s);
}

// Sum of absolute 4x4 Hadamard coefficients of a residual (src/h264/intra4x4.rs
// `hadamard_abs_sum`).
fn hadamard_row_abs(v: vec4<i32>) -> vec4<i32> {
    let s01 = v.x + v.y;
    let d01 = v.x - v.y;
    let s23 = v.z + v.w;
    let d23 = v.z - v.w;
    return vec4<i32>(s01 + s23, s01 - s23, d01 - d23, d01 + d23);
}

fn hadamard_abs_sum(d: Block) -> u32 {
    let t0 = hadamard_row_abs(d.r0);
    let t1 = hadamard_row_abs(d.r1);
    let t2 = hadamard_row_abs(d.r2);
    let t3 = hadamard_row_abs(d.r3);
    let s01 = t0 + t1;
    let d01 = t0 - t1;
    let s23 = t2 + t3;
    let d23 = t2 - t3;
    let sum = abs(s01 + s23) + abs(s01 - s23) + abs(d01 - d23) + abs(d01 + d23);
    return u32(sum.x + sum.y + sum.z + sum.w);
}

// Row `i` of the 4x4 Hadamard matrix H: ++++, ++--, +--+, +-+-.
fn hadamard_row(i: u32) -> vec4<i32> {
    switch i {
        case 0u: { return vec4<i32>(1, 1, 1, 1); }
        case 1u: { return vec4<i32>(1, 1, -1, -1); }
        case 2u: { return vec4<i32>(1, -1, -1, 1); }
        default: { return vec4<i32>(1, -1, 1, -1); }
    }
}

// Element `e` (raster) of the unscaled 4x4 Hadamard H c H of 16 values (`hadamard4`):
// row i of H times c times column j of H, as four dot products and one.
fn hadamard_luma_dc(v: array<i32, 16>, e: u32) -> i32 {
    let hj = hadamard_row(e % 4u);
    let t = vec4<i32>(
        dot(vec4<i32>(v[0], v[1], v[2], v[3]), hj),
        dot(vec4<i32>(v[4], v[5], v[6], v[7]), hj),
        dot(vec4<i32>(v[8], v[9], v[10], v[11]), hj),
        dot(vec4<i32>(v[12], v[13], v[14], v[15]), hj),
    );
    return dot(t, hadamard_row(e / 4u));
}

// Element `e` of the 2x2 chroma DC transform of component `comp`'s four values
// (`forward_chroma_dc`: a+b+c+d, a-b+c-d, a+b-c-d, a-b-c+d).
fn chroma_dc_transform(v: array<i32, 8>, comp: u32, e: u32) -> i32 {
    var signs = vec4<i32>(1, 1, -1, -1);
    switch e {
        case 0u: { signs = vec4<i32>(1, 1, 1, 1); }
        case 1u: { signs = vec4<i32>(1, -1, 1, -1); }
        case 2u: { signs = vec4<i32>(1, 1, -1, -1); }
        default: { signs = vec4<i32>(1, -1, -1, 1); }
    }
    let values = select(vec4<i32>(v[4], v[5], v[6], v[7]), vec4<i32>(v[0], v[1], v[2], v[3]), comp == 0u);
    return dot(values, signs);
}

// Dead-zone quantizer with rounding offset 2/5 (`quant`): every product here stays
// below 2^32 (|w| * MF at most 32640 * 13107).
fn quant(w: i32, mf: i32, qbits: u32) -> i32 {
    let f = (2u << qbits) / 5u;
    let q = i32((u32(abs(w)) * u32(mf) + f) >> qbits);
    return select(q, -q, w < 0);
}

fn quant_row(w: vec4<i32>, mf: vec4<i32>, qbits: u32) -> vec4<i32> {
    let f = vec4<u32>((2u << qbits) / 5u);
    let q = vec4<i32>((vec4<u32>(abs(w)) * vec4<u32>(mf) + f) >> vec4<u32>(qbits));
    return select(q, -q, w < vec4<i32>(0));
}

// A 4x4 block's AC levels at `qp` (`Quant4x4::quant_ac`): position 0 left at 0. Even rows
// hold position classes 0, 2, 0, 2; odd rows 2, 1, 2, 1.
fn quant_ac(w: Block, qp: u32) -> Block {
    let qbits = 15u + qp / 6u;
    let mf = MF[qp % 6u];
    let even = vec4<i32>(mf.x, mf.z, mf.x, mf.z);
    let odd = vec4<i32>(mf.z, mf.y, mf.z, mf.y);
    let z = Block(quant_row(w.r0, even, qbits), quant_row(w.r1, odd, qbits), quant_row(w.r2, even, qbits), quant_row(w.r3, odd, qbits));
    return with_dc(z, 0);
}

// Scaled coefficients of a block whose position 0 holds its already scaled DC
// (`Quant4x4::dequant_ac`).
fn dequant_row(c: vec4<i32>, scale: vec4<i32>, qp: u32) -> vec4<i32> {
    let shift = qp / 6u;
    let scaled = c * scale;
    if qp >= 24u {
        return scaled << vec4<u32>(shift - 4u);
    }
    return (scaled + vec4<i32>(1 << (3u - shift))) >> vec4<u32>(4u - shift);
}

fn dequant_ac(c: Block, qp: u32) -> Block {
    let norm = NORM[qp % 6u] * 16;
    let even = vec4<i32>(norm.x, norm.z, norm.x, norm.z);
    let odd = vec4<i32>(norm.z, norm.y, norm.z, norm.y);
    let d = Block(dequant_row(c.r0, even, qp), dequant_row(c.r1, odd, qp), dequant_row(c.r2, even, qp), dequant_row(c.r3, odd, qp));
    return with_dc(d, c.r0.x);
}

// Whether Baseline CAVLC codes these `n` levels (scan order): a level needs level_prefix
// above 15 only past a magnitude of 2063, and then it depends on suffixLength as the
// block's levels raise it (src/cavlc/cpu.rs `code_residual_block`). Only for blocks that
// hold such a level.
fn codable(scan_in: array<i32, 16>, n: u32) -> bool {
    var scan = scan_in;
    var total = 0u;
    for (var i = 0u; i < n; i++) {
        total += u32(scan[i] != 0);
    }
    var trailing = 0u;
    var k = 0u;
    var suffix_length = select(0u, 1u, total > 10u);
    var first = true;
    for (var i = i32(n) - 1; i >= 0; i--) {
        let level = scan[i];
        if level == 0 {
            continue;
        }
        let magnitude = u32(abs(level));
        if k == trailing && trailing < 3u && magnitude == 1u {
            trailing++;
            k++;
            continue;
        }
        if first {
            first = false;
            suffix_length = select(0u, 1u, total > 10u && trailing < 3u);
        }
        var level_code = 2u * magnitude - select(1u, 2u, level > 0);
        if k == trailing && trailing < 3u {
            level_code -= 2u;
        }
        if suffix_length == 0u {
            if level_code >= 30u && level_code - 30u >= 4096u {
                return false;
            }
        } else {
            let escape = 15u << suffix_length;
            if level_code >= escape && level_code - escape >= 4096u {
                return false;
            }
        }
        if suffix_length == 0u {
            suffix_length = 1u;
        }
        if magnitude > (3u << (suffix_length - 1u)) && suffix_length < 6u {
            suffix_length++;
        }
        k++;
    }
    return true;
}

fn block_array(b: Block) -> array<i32, 16> {
    return array<i32, 16>(b.r0.x, b.r0.y, b.r0.z, b.r0.w, b.r1.x, b.r1.y, b.r1.z, b.r1.w,
        b.r2.x, b.r2.y, b.r2.z, b.r2.w, b.r3.x, b.r3.y, b.r3.z, b.r3.w);
}

fn zigzag(block: array<i32, 16>) -> array<i32, 16> {
    var b = block;
    var s: array<i32, 16>;
    for (var i = 0u; i < 16u; i++) {
        s[i] = b[ZIGZAG[i]];
    }
    return s;
}

// Whether an I_16x16 AC or chroma AC block (15 levels from scan position 1) is codable.
fn ac_codable(b: Block) -> bool {
    if !beyond_escape(b) {
        return true;
    }
    let z = zigzag(block_array(b));
    var s: array<i32, 16>;
    for (var i = 0u; i < 15u; i++) {
        s[i] = z[i + 1u];
    }
    return codable(s, 15u);
}

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

fn splat_block(v: i32) -> Block {
    return Block(vec4<i32>(v), vec4<i32>(v), vec4<i32>(v), vec4<i32>(v));
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

fn pack_levels(a: i32, b: i32) -> u32 {
    return (u32(a) & 0xffffu) | (u32(b) << 16u);
}

// Write a 4x4 block's 16 levels (raster) as 8 words of i16 pairs.
fn store_levels(first_word: u32, b: Block) {
    levels[first_word] = pack_levels(b.r0.x, b.r0.y);
    levels[first_word + 1u] = pack_levels(b.r0.z, b.r0.w);
    levels[first_word + 2u] = pack_levels(b.r1.x, b.r1.y);
    levels[first_word + 3u] = pack_levels(b.r1.z, b.r1.w);
    levels[first_word + 4u] = pack_levels(b.r2.x, b.r2.y);
    levels[first_word + 5u] = pack_levels(b.r2.z, b.r2.w);
    levels[first_word + 6u] = pack_levels(b.r3.x, b.r3.y);
    levels[first_word + 7u] = pack_levels(b.r3.z, b.r3.w);
}

fn pack_samples(v: vec4<i32>) -> u32 {
    let u = vec4<u32>(v);
    return u.x | (u.y << 8u) | (u.z << 16u) | (u.w << 24u);
}

// Write a reconstructed 4x4 block at byte `at` of a plane `stride` bytes wide (4-aligned).
fn store_samples(at: u32, stride: u32, b: Block) {
    let w = at / 4u;
    let s = stride / 4u;
    recon[w] = pack_samples(b.r0);
    recon[w + s] = pack_samples(b.r1);
    recon[w + 2u * s] = pack_samples(b.r2);
    recon[w + 3u * s] = pack_samples(b.r3);
}

@compute @workgroup_size(16)
fn wave(@builtin(local_invocation_index) lane: u32, @builtin(workgroup_id) group: vec3<u32>) {
    let p = params;
    let r = p.first_row + group.x; // row within the slice
    if r * 2u > p.wave || p.wave - r * 2u >= p.width_mbs {
        return;
    }
    let mbx = p.wave - r * 2u;
    let row = group.y * p.rows_per_slice + r;
    if r >= p.rows_per_slice || row >= p.height_mbs {
        return;
    }
    let pic = group.z;
    let mb = row * p.width_mbs + mbx;
    let has_top = r > 0u;
    let has_left = mbx > 0u;

    // Planes: source Y, Cb, Cr back to back; reconstruction padded to whole macroblocks.
    let src_base = pic * p.src_words * 4u;
    let src_cb = src_base + p.width * p.height;
    let src_cr = src_cb + p.chroma_width * p.chroma_height;
    let ys = p.width_mbs * 16u;
    let cs = p.width_mbs * 8u;
    let rec_y = pic * p.recon_words * 4u;
    let rec_cb = rec_y + ys * p.height_mbs * 16u;
    let rec_cr = rec_cb + cs * p.height_mbs * 8u;
    let x0 = mbx * 16u;
    let y0 = row * 16u;
    let cx0 = mbx * 8u;
    let cy0 = row * 8u;

    // Neighbours (read only where they exist; the modes that need them are unavailable).
    if has_top {
        top_y[lane] = recon_byte(rec_y + (y0 - 1u) * ys + x0 + lane);
        let c_base = select(rec_cb, rec_cr, lane >= 8u);
        top_c[lane] = recon_byte(c_base + (cy0 - 1u) * cs + cx0 + lane % 8u);
    }
    if has_left {
        left_y[lane] = recon_byte(rec_y + (y0 + lane) * ys + x0 - 1u);
        let c_base = select(rec_cb, rec_cr, lane >= 8u);
        left_c[lane] = recon_byte(c_base + (cy0 + lane % 8u) * cs + cx0 - 1u);
    }
    if has_top && has_left && lane < 3u {
        var at = rec_y + (y0 - 1u) * ys + x0 - 1u;
        if lane > 0u {
            at = select(rec_cb, rec_cr, lane == 2u) + (cy0 - 1u) * cs + cx0 - 1u;
        }
        corner[lane] = recon_byte(at);
    }
    if lane < 12u {
        atomicStore(&satd_sums[lane], 0u);
    }
    workgroupBarrier();

    // This invocation's luma block and (invocations 0..7) chroma block.
    let bx = lane % 4u;
    let by = lane / 4u;
    let src_y = source_block(src_base, p.width, p.height, x0 + bx * 4u, y0 + by * 4u);
    let is_chroma = lane < 8u;
    let comp = lane / 4u; // chroma component (0 Cb, 1 Cr) of invocations 0..7
    let cbx = lane % 2u;
    let cby = (lane / 2u) % 2u;
    var src_c = splat_block(0);
    if is_chroma {
        let base = select(src_cb, src_cr, comp == 1u);
        src_c = source_block(base, p.chroma_width, p.chroma_height, cx0 + cbx * 4u, cy0 + cby * 4u);
    }

    // Mode decisions: SATD of each available prediction, summed over the blocks.
    var sum_t = 0;
    var sum_l = 0;
    for (var i = 0u; i < 16u; i++) {
        sum_t += select(0, top_y[i], has_top);
        sum_l += select(0, left_y[i], has_left);
    }
    var dc16 = 128;
    if has_top && has_left {
        dc16 = (sum_t + sum_l + 16) >> 5u;
    } else if has_left {
        dc16 = (sum_l + 8) >> 4u;
    } else if has_top {
        dc16 = (sum_t + 8) >> 4u;
    }
    var plane16 = vec3<i32>(0);
    var plane_c = vec3<i32>(0);
    var dc_c = 0;
    if has_top && has_left {
        plane16 = plane_luma();
        if is_chroma {
            plane_c = plane_chroma(comp);
        }
    }
    if is_chroma {
        dc_c = chroma_dc_pred(comp, cbx, cby, has_top, has_left);
    }
    for (var m = 0u; m < 4u; m++) {
        if luma_mode_available(m, has_top, has_left) {
            let d = block_sub(src_y, luma_pred(m, bx, by, dc16, plane16));
            atomicAdd(&satd_sums[m], hadamard_abs_sum(d));
        }
        if is_chroma && chroma_mode_available(m, has_top, has_left) {
            let d = block_sub(src_c, chroma_pred(m, comp, cbx, cby, dc_c, plane_c));
            atomicAdd(&satd_sums[4u + comp * 4u + m], hadamard_abs_sum(d));
        }
    }
    workgroupBarrier();
    // The first available mode of least cost (the twin's `best_mode`); the unnormalised
    // Hadamard gains 4 over the samples, halved as x264 does.
    var luma_mode = 4u;
    var best = 0u;
    var chroma_mode = 4u;
    var best_c = 0u;
    for (var m = 0u; m < 4u; m++) {
        if luma_mode_available(m, has_top, has_left) {
            let cost = atomicLoad(&satd_sums[m]) / 2u + p.lambda * ue_bits(m);
            if luma_mode == 4u || cost < best {
                luma_mode = m;
                best = cost;
            }
        }
        if chroma_mode_available(m, has_top, has_left) {
            let cost = atomicLoad(&satd_sums[4u + m]) / 2u + atomicLoad(&satd_sums[8u + m]) / 2u;
            if chroma_mode == 4u || cost < best_c {
                chroma_mode = m;
                best_c = cost;
            }
        }
    }

    // Forward transforms of the chosen predictions' residuals.
    let pred_y = luma_pred(luma_mode, bx, by, dc16, plane16);
    let w_y = forward4x4(block_sub(src_y, pred_y));
    luma_dc_coeffs[lane] = w_y.r0.x;
    var pred_c = splat_block(0);
    var w_c = splat_block(0);
    if is_chroma {
        pred_c = chroma_pred(chroma_mode, comp, cbx, cby, dc_c, plane_c);
        w_c = forward4x4(block_sub(src_c, pred_c));
        chroma_dc_coeffs[lane] = w_c.r0.x;
    }
    workgroupBarrier();
    let luma_dc = (hadamard_luma_dc(luma_dc_coeffs, lane) + 1) >> 1u;
    var chroma_dc = 0;
    if is_chroma {
        chroma_dc = chroma_dc_transform(chroma_dc_coeffs, comp, lane % 4u);
    }

    // The configured QP, or the lowest coarser one at which every block is codable.
    var qp = p.qp;
    var ac_y = splat_block(0);
    var ac_c = splat_block(0);
    var seen = 0u;
    loop {
        let qpc = chroma_qp(qp);
        if lane == 0u {
            atomicStore(&flags, 0u);
        }
        luma_dc_levels[lane] = quant(luma_dc, MF[qp % 6u].x, 16u + qp / 6u);
        ac_y = quant_ac(w_y, qp);
        if is_chroma {
            chroma_dc_levels[lane] = quant(chroma_dc, MF[qpc % 6u].x, 16u + qpc / 6u);
            ac_c = quant_ac(w_c, qpc);
        }
        workgroupBarrier();
        // Only a level beyond 2063 can be out of Baseline's reach: the scans are built
        // for the rare block that holds one.
        var bad = !ac_codable(ac_y);
        var mine = select(0u, 2u, any_ac_nonzero(ac_y));
        if is_chroma {
            bad = bad || !ac_codable(ac_c);
            mine |= select(0u, 4u, any_ac_nonzero(ac_c)) | select(0u, 8u, chroma_dc_levels[lane] != 0);
        }
        // Each DC block is checked by one invocation.
        if lane == 0u {
            var dc: array<i32, 16>;
            var large = false;
            for (var i = 0u; i < 16u; i++) {
                dc[i] = luma_dc_levels[i];
                large = large || abs(dc[i]) > 2063;
            }
            bad = bad || (large && !codable(zigzag(dc), 16u));
        }
        if lane == 1u || lane == 2u {
            var dc: array<i32, 16>;
            var large = false;
            for (var i = 0u; i < 4u; i++) {
                dc[i] = chroma_dc_levels[(lane - 1u) * 4u + i];
                large = large || abs(dc[i]) > 2063;
            }
            bad = bad || (large && !codable(dc, 4u));
        }
        atomicOr(&flags, mine | select(0u, 1u, bad));
        workgroupBarrier();
        if lane == 0u {
            flags_seen = atomicLoad(&flags);
        }
        seen = workgroupUniformLoad(&flags_seen);
        if (seen & 1u) == 0u || qp == 51u {
            break;
        }
        qp++;
    }

    // Reconstruction, as a decoder computes it.
    let shift = qp / 6u;
    let dc_scale = 16 * NORM[qp % 6u].x;
    let f = hadamard_luma_dc(luma_dc_levels, lane);
    var dcy = 0;
    if qp >= 36u {
        dcy = (f * dc_scale) << (shift - 6u);
    } else {
        dcy = (f * dc_scale + (1 << (5u - shift))) >> (6u - shift);
    }
    let res_y = inverse4x4(dequant_ac(with_dc(ac_y, dcy), qp));
    store_samples(rec_y + (y0 + by * 4u) * ys + x0 + bx * 4u, ys, block_add_clamped(pred_y, res_y));
    let mb_word = (pic * p.n_mbs + mb) * 192u;
    store_levels(mb_word + lane * 8u, with_dc(ac_y, luma_dc_levels[lane]));
    if is_chroma {
        let qpc = chroma_qp(qp);
        let fc = chroma_dc_transform(chroma_dc_levels, comp, lane % 4u);
        let dcc = ((fc * 16 * NORM[qpc % 6u].x) << (qpc / 6u)) >> 5u;
        let res_c = inverse4x4(dequant_ac(with_dc(ac_c, dcc), qpc));
        let base = select(rec_cb, rec_cr, comp == 1u);
        store_samples(base + (cy0 + cby * 4u) * cs + cx0 + cbx * 4u, cs, block_add_clamped(pred_c, res_c));
        store_levels(mb_word + (16u + lane) * 8u, with_dc(ac_c, chroma_dc_levels[lane]));
    }
    if lane == 0u {
        let cbp_chroma = select(select(0u, 1u, (seen & 8u) != 0u), 2u, (seen & 4u) != 0u);
        choices[pic * p.n_mbs + mb] = luma_mode | (chroma_mode << 2u) | (((seen >> 1u) & 1u) << 4u)
            | (cbp_chroma << 5u) | (qp << 8u) | ((seen & 1u) << 14u);
    }
}

@compute @workgroup_size(64)
fn write_headers(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = params;
    let i = id.x;
    if i >= p.pictures * p.n_mbs {
        return;
    }
    let mb = i % p.n_mbs;
    let row = mb / p.width_mbs;
    let choice = choices[i];
    let qp = (choice >> 8u) & 63u;
    // The slice's first macroblock predicts from the slice QP; the others from the one
    // before (an I_16x16 macroblock always codes mb_qp_delta).
    var qp_pred = p.qp;
    if !(mb % p.width_mbs == 0u && row % p.rows_per_slice == 0u) {
        qp_pred = (choices[i - 1u] >> 8u) & 63u;
    }
    let delta = (i32(qp) - i32(qp_pred) + 26 + 52) % 52 - 26;
    let cbp_chroma = (choice >> 5u) & 3u;
    let h = i * 8u;
    mb_headers[h] = 1u + (choice & 3u) + 4u * cbp_chroma + 12u * ((choice >> 4u) & 1u);
    mb_headers[h + 1u] = (choice >> 2u) & 3u;
    mb_headers[h + 2u] = u32(delta);
    mb_headers[h + 3u] = row / p.rows_per_slice;
    for (var k = 4u; k < 8u; k++) {
        mb_headers[h + k] = 0u;
    }
    if ((choice >> 14u) & 1u) != 0u {
        atomicOr(&status[0], 1u);
    }
}
