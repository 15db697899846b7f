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

fn class_of(pos: u32) -> u32 {
    let odd = vec2<u32>(pos & 1u, (pos >> 2u) & 1u);
    if odd.x == 0u && odd.y == 0u {
        return 0u;
    }
    if odd.x == 1u && odd.y == 1u {
        return 1u;
    }
    return 2u;
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

// A source sample of a plane of `w` x `h` from byte `base`, edges repeated (the padding of
// src/h264/slices.rs `Plane::padded`).
fn source(base: u32, w: u32, h: u32, x: u32, y: u32) -> i32 {
    return src_byte(base + min(y, h - 1u) * w + min(x, w - 1u));
}

// Sum of absolute 4x4 Hadamard coefficients of a - b (src/h264/intra4x4.rs
// `hadamard_abs_sum`).
fn hadamard_abs_sum(d: array<i32, 16>) -> u32 {
    var t: array<i32, 16>;
    for (var r = 0u; r < 4u; r++) {
        let s01 = d[r * 4u] + d[r * 4u + 1u];
        let d01 = d[r * 4u] - d[r * 4u + 1u];
        let s23 = d[r * 4u + 2u] + d[r * 4u + 3u];
        let d23 = d[r * 4u + 2u] - d[r * 4u + 3u];
        t[r * 4u] = s01 + s23;
        t[r * 4u + 1u] = s01 - s23;
        t[r * 4u + 2u] = d01 - d23;
        t[r * 4u + 3u] = d01 + d23;
    }
    var sum = 0u;
    for (var c = 0u; c < 4u; c++) {
        let s01 = t[c] + t[4u + c];
        let d01 = t[c] - t[4u + c];
        let s23 = t[8u + c] + t[12u + c];
        let d23 = t[8u + c] - t[12u + c];
        sum += u32(abs(s01 + s23)) + u32(abs(s01 - s23)) + u32(abs(d01 - d23)) + u32(abs(d01 + d23));
    }
    return sum;
}

// The forward 4x4 core transform (src/h264/transform.rs `forward4x4`).
fn forward4x4(x: array<i32, 16>) -> array<i32, 16> {
    var t: array<i32, 16>;
    for (var r = 0u; r < 4u; r++) {
        let s03 = x[r * 4u] + x[r * 4u + 3u];
        let d03 = x[r * 4u] - x[r * 4u + 3u];
        let s12 = x[r * 4u + 1u] + x[r * 4u + 2u];
        let d12 = x[r * 4u + 1u] - x[r * 4u + 2u];
        t[r * 4u] = s03 + s12;
        t[r * 4u + 1u] = 2 * d03 + d12;
        t[r * 4u + 2u] = s03 - s12;
        t[r * 4u + 3u] = d03 - 2 * d12;
    }
    var w: array<i32, 16>;
    for (var c = 0u; c < 4u; c++) {
        let s03 = t[c] + t[12u + c];
        let d03 = t[c] - t[12u + c];
        let s12 = t[4u + c] + t[8u + c];
        let d12 = t[4u + c] - t[8u + c];
        w[c] = s03 + s12;
        w[4u + c] = 2 * d03 + d12;
        w[8u + c] = s03 - s12;
        w[12u + c] = d03 - 2 * d12;
    }
    return w;
}

// The inverse 4x4 transform of clause 8.5.12.2 (`inverse4x4`).
fn inverse4x4(d: array<i32, 16>) -> array<i32, 16> {
    var f: array<i32, 16>;
    for (var i = 0u; i < 4u; i++) {
        let e0 = d[i * 4u] + d[i * 4u + 2u];
        let e1 = d[i * 4u] - d[i * 4u + 2u];
        let e2 = (d[i * 4u + 1u] >> 1u) - d[i * 4u + 3u];
        let e3 = d[i * 4u + 1u] + (d[i * 4u + 3u] >> 1u);
        f[i * 4u] = e0 + e3;
        f[i * 4u + 1u] = e1 + e2;
        f[i * 4u + 2u] = e1 - e2;
        f[i * 4u + 3u] = e0 - e3;
    }
    var out: array<i32, 16>;
    for (var j = 0u; j < 4u; j++) {
        let g0 = f[j] + f[8u + j];
        let g1 = f[j] - f[8u + j];
        let g2 = (f[4u + j] >> 1u) - f[12u + j];
        let g3 = f[4u + j] + (f[12u + j] >> 1u);
        out[j] = (g0 + g3 + 32) >> 6u;
        out[4u + j] = (g1 + g2 + 32) >> 6u;
        out[8u + j] = (g1 - g2 + 32) >> 6u;
        out[12u + j] = (g0 - g3 + 32) >> 6u;
    }
    return out;
}

// Element `e` (raster) of the unscaled 4x4 Hadamard H c H of 16 values in workgroup
// memory (`hadamard4`); H's rows are ++++, ++--, +--+, +-+-.
// The columns where each row of H is negative: ++++, ++--, +--+, +-+-.
const HADAMARD_MINUS = array<u32, 4>(0u, 12u, 6u, 10u);

fn hadamard_sign(row: u32, col: u32) -> i32 {
    return 1 - 2 * i32((HADAMARD_MINUS[row] >> col) & 1u);
}

fn hadamard_luma_dc(values_in: array<i32, 16>, e: u32) -> i32 {
    var values = values_in;
    let i = e / 4u;
    let j = e % 4u;
    var sum = 0;
    for (var r = 0u; r < 4u; r++) {
        for (var c = 0u; c < 4u; c++) {
            sum += hadamard_sign(i, r) * hadamard_sign(j, c) * values[r * 4u + c];
        }
    }
    return sum;
}

// Element `e` of the 2x2 chroma DC transform of component `comp`'s four values
// (`forward_chroma_dc`: a+b+c+d, a-b+c-d, a+b-c-d, a-b-c+d).
fn chroma_dc_transform(values_in: array<i32, 8>, comp: u32, e: u32) -> i32 {
    var values = values_in;
    let a = values[comp * 4u];
    let b = values[comp * 4u + 1u];
    let c = values[comp * 4u + 2u];
    let d = values[comp * 4u + 3u];
    switch e {
        case 0u: { return a + b + c + d; }
        case 1u: { return a - b + c - d; }
        case 2u: { return a + b - c - d; }
        default: { return a - b - c + d; }
    }
}

// Dead-zone quantizer with rounding offset 2/5 (`quant`): every product here stays
// below 2^32 (|w| * MF at most 32640 * 13107).
fn quant(w: i32, mf: i32, qbits: u32) -> i32 {
    let f = (2u << qbits) / 5u;
    let q = i32((u32(abs(w)) * u32(mf) + f) >> qbits);
    return select(q, -q, w < 0);
}

// A 4x4 block's AC levels at `qp` (`Quant4x4::quant_ac`): position 0 left at 0.
fn quant_ac(w: array<i32, 16>, qp: u32) -> array<i32, 16> {
    var z: array<i32, 16>;
    let qbits = 15u + qp / 6u;
    for (var pos = 1u; pos < 16u; pos++) {
        z[pos] = quant(w[pos], MF[qp % 6u][class_of(pos)], qbits);
    }
    return z;
}

// Scaled coefficients of a block whose position 0 holds its already scaled DC
// (`Quant4x4::dequant_ac`).
fn dequant_ac(c: array<i32, 16>, qp: u32) -> array<i32, 16> {
    var d: array<i32, 16>;
    d[0] = c[0];
    let shift = qp / 6u;
    for (var pos = 1u; pos < 16u; pos++) {
        let scaled = c[pos] * 16 * NORM[qp % 6u][class_of(pos)];
        if qp >= 24u {
            d[pos] = scaled << (shift - 4u);
        } else {
            d[pos] = (scaled + (1 << (3u - shift))) >> (4u - shift);
        }
    }
    return d;
}

// Whether Baseline CAVLC codes these `n` levels (scan order): a level needs level_prefix
// above 15 only past a magnitude of 2063, and then it depends on suffixLength as the
// block's levels raise it (src/cavlc/cpu.rs `code_residual_block`).
fn codable(scan_in: array<i32, 16>, n: u32) -> bool {
    var scan = scan_in;
    var large = false;
    var total = 0u;
    for (var i = 0u; i < n; i++) {
        large = large || abs(scan[i]) > 2063;
        total += u32(scan[i] != 0);
    }
    if !large {
        return true;
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

fn beyond_escape(block: array<i32, 16>) -> bool {
    var b = block;
    var large = false;
    for (var i = 0u; i < 16u; i++) {
        large = large || abs(b[i]) > 2063;
    }
    return large;
}

fn zigzag(block: array<i32, 16>) -> array<i32, 16> {
    var b = block;
    var s: array<i32, 16>;
    for (var i = 0u; i < 16u; i++) {
        s[i] = b[ZIGZAG[i]];
    }
    return s;
}

// The AC part of a zigzagged block, as a 15-level scan.
fn ac_scan(block: array<i32, 16>) -> array<i32, 16> {
    let z = zigzag(block);
    var s: array<i32, 16>;
    for (var i = 0u; i < 15u; i++) {
        s[i] = z[i + 1u];
    }
    return s;
}

// Plane prediction parameters (a, b, c) of an N x N block (clause 8.3.3.4 / 8.3.4.4)
// from neighbours at `top`/`left` offsets `at` in top_y/left_y or top_c/left_c.
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

fn plane_sample(p: vec3<i32>, x: i32, y: i32, centre: i32) -> i32 {
    return clamp((p.x + p.y * (x - centre) + p.z * (y - centre) + 16) >> 5u, 0, 255);
}

// Intra_16x16 prediction of sample (x, y) in `mode` (`predict::luma16`).
fn luma_pred(mode: u32, x: u32, y: u32, dc: i32, plane: vec3<i32>) -> i32 {
    switch mode {
        case 0u: { return top_y[x]; }
        case 1u: { return left_y[y]; }
        case 2u: { return dc; }
        default: { return plane_sample(plane, i32(x), i32(y), 7); }
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

// Chroma prediction of sample (x, y) of component `comp` in `mode` (`predict::chroma8`):
// DC 0, horizontal 1, vertical 2, plane 3.
fn chroma_pred(mode: u32, comp: u32, x: u32, y: u32, dc: i32, plane: vec3<i32>) -> i32 {
    switch mode {
        case 0u: { return dc; }
        case 1u: { return left_c[comp * 8u + y]; }
        case 2u: { return top_c[comp * 8u + x]; }
        default: { return plane_sample(plane, i32(x), i32(y), 3); }
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

// Write a 4x4 block's 16 levels (raster) as 8 words of i16 pairs.
fn store_levels(first_word: u32, block: array<i32, 16>) {
    for (var k = 0u; k < 8u; k++) {
        levels[first_word + k] = (u32(block[2u * k]) & 0xffffu) | (u32(block[2u * k + 1u]) << 16u);
    }
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
        let bases = array<u32, 3>(rec_y + (y0 - 1u) * ys + x0 - 1u, rec_cb + (cy0 - 1u) * cs + cx0 - 1u, rec_cr + (cy0 - 1u) * cs + cx0 - 1u);
        corner[lane] = recon_byte(bases[lane]);
    }
    if lane < 12u {
        atomicStore(&satd_sums[lane], 0u);
    }
    workgroupBarrier();

    // This invocation's luma block and (invocations 0..7) chroma block.
    let bx = lane % 4u;
    let by = lane / 4u;
    var src_y: array<i32, 16>;
    for (var i = 0u; i < 16u; i++) {
        src_y[i] = source(src_base, p.width, p.height, x0 + bx * 4u + i % 4u, y0 + by * 4u + i / 4u);
    }
    let is_chroma = lane < 8u;
    let comp = lane / 4u; // chroma component (0 Cb, 1 Cr) of invocations 0..7
    let cbx = lane % 2u;
    let cby = (lane / 2u) % 2u;
    var src_c: array<i32, 16>;
    if is_chroma {
        let base = select(src_cb, src_cr, comp == 1u);
        for (var i = 0u; i < 16u; i++) {
            src_c[i] = source(base, p.chroma_width, p.chroma_height, cx0 + cbx * 4u + i % 4u, cy0 + cby * 4u + i / 4u);
        }
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
            var d: array<i32, 16>;
            for (var i = 0u; i < 16u; i++) {
                d[i] = src_y[i] - luma_pred(m, bx * 4u + i % 4u, by * 4u + i / 4u, dc16, plane16);
            }
            atomicAdd(&satd_sums[m], hadamard_abs_sum(d));
        }
        if is_chroma && chroma_mode_available(m, has_top, has_left) {
            var d: array<i32, 16>;
            for (var i = 0u; i < 16u; i++) {
                d[i] = src_c[i] - chroma_pred(m, comp, cbx * 4u + i % 4u, cby * 4u + i / 4u, dc_c, plane_c);
            }
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
    var pred_y: array<i32, 16>;
    var x: array<i32, 16>;
    for (var i = 0u; i < 16u; i++) {
        pred_y[i] = luma_pred(luma_mode, bx * 4u + i % 4u, by * 4u + i / 4u, dc16, plane16);
        x[i] = src_y[i] - pred_y[i];
    }
    let w_y = forward4x4(x);
    luma_dc_coeffs[lane] = w_y[0];
    var pred_c: array<i32, 16>;
    var w_c: array<i32, 16>;
    if is_chroma {
        for (var i = 0u; i < 16u; i++) {
            pred_c[i] = chroma_pred(chroma_mode, comp, cbx * 4u + i % 4u, cby * 4u + i / 4u, dc_c, plane_c);
            x[i] = src_c[i] - pred_c[i];
        }
        w_c = forward4x4(x);
        chroma_dc_coeffs[lane] = w_c[0];
    }
    workgroupBarrier();
    let luma_dc = (hadamard_luma_dc(luma_dc_coeffs, lane) + 1) >> 1u;
    var chroma_dc = 0;
    if is_chroma {
        chroma_dc = chroma_dc_transform(chroma_dc_coeffs, comp, lane % 4u);
    }

    // The configured QP, or the lowest coarser one at which every block is codable.
    var qp = p.qp;
    var ac_y: array<i32, 16>;
    var ac_c: array<i32, 16>;
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
        var bad = beyond_escape(ac_y) && !codable(ac_scan(ac_y), 15u);
        var any_ac = false;
        for (var i = 1u; i < 16u; i++) {
            any_ac = any_ac || ac_y[i] != 0;
        }
        var mine = select(0u, 2u, any_ac);
        if is_chroma {
            bad = bad || (beyond_escape(ac_c) && !codable(ac_scan(ac_c), 15u));
            var any_c = false;
            for (var i = 1u; i < 16u; i++) {
                any_c = any_c || ac_c[i] != 0;
            }
            mine |= select(0u, 4u, any_c) | select(0u, 8u, chroma_dc_levels[lane] != 0);
        }
        // Each DC block is checked by one invocation, and only where its own level (one
        // per invocation) is large somewhere in the block.
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
    var c = ac_y;
    if qp >= 36u {
        c[0] = (f * dc_scale) << (shift - 6u);
    } else {
        c[0] = (f * dc_scale + (1 << (5u - shift))) >> (6u - shift);
    }
    let res_y = inverse4x4(dequant_ac(c, qp));
    for (var row4 = 0u; row4 < 4u; row4++) {
        var word = 0u;
        for (var i = 0u; i < 4u; i++) {
            let v = clamp(pred_y[row4 * 4u + i] + res_y[row4 * 4u + i], 0, 255);
            word |= u32(v) << (8u * i);
        }
        recon[(rec_y + (y0 + by * 4u + row4) * ys + x0 + bx * 4u) / 4u] = word;
    }
    var block_y = ac_y;
    block_y[0] = luma_dc_levels[lane];
    let mb_word = (pic * p.n_mbs + mb) * 192u;
    store_levels(mb_word + lane * 8u, block_y);
    if is_chroma {
        let qpc = chroma_qp(qp);
        let fc = chroma_dc_transform(chroma_dc_levels, comp, lane % 4u);
        var cc = ac_c;
        cc[0] = ((fc * 16 * NORM[qpc % 6u].x) << (qpc / 6u)) >> 5u;
        let res_c = inverse4x4(dequant_ac(cc, qpc));
        let base = select(rec_cb, rec_cr, comp == 1u);
        for (var row4 = 0u; row4 < 4u; row4++) {
            var word = 0u;
            for (var i = 0u; i < 4u; i++) {
                let v = clamp(pred_c[row4 * 4u + i] + res_c[row4 * 4u + i], 0, 255);
                word |= u32(v) << (8u * i);
            }
            recon[(base + (cy0 + cby * 4u + row4) * cs + cx0 + cbx * 4u) / 4u] = word;
        }
        var block_c = ac_c;
        block_c[0] = chroma_dc_levels[lane];
        store_levels(mb_word + (16u + lane) * 8u, block_c);
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
