// The arithmetic of one 4x4 block of the H.264 encoder, shared by its front-end stages:
// the forward and inverse transforms, SATD, quantization and scaling, and whether Baseline
// CAVLC can code a block's levels. Every function is a twin of src/h264/transform.rs,
// src/h264/intra4x4.rs or src/h264/macroblock.rs (each names its own).
//
// A 4x4 block is a `Block` of four row vectors, and every transform works on whole rows
// and columns of them: the blocks stay in registers (arrays indexed at run time would go
// to local memory, whose latency every step of a macroblock then waits on).

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

fn splat_block(v: i32) -> Block {
    return Block(vec4<i32>(v), vec4<i32>(v), vec4<i32>(v), vec4<i32>(v));
}

// The DC prediction from the sums of the top and left edges of 2^`shift` samples each
// (clauses 8.3.1.2.3 and 8.3.3.3): their mean, the one edge's, or 128 without either.
fn dc_from_edges(sum_top: i32, sum_left: i32, has_top: bool, has_left: bool, shift: u32) -> i32 {
    if has_top && has_left {
        return (sum_top + sum_left + (1 << shift)) >> (shift + 1u);
    }
    if has_top {
        return (sum_top + (1 << (shift - 1u))) >> shift;
    }
    if has_left {
        return (sum_left + (1 << (shift - 1u))) >> shift;
    }
    return 128;
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

// A 4x4 block's 16 levels at `qp` (`Quant4x4::quant`). Even rows hold position classes
// 0, 2, 0, 2; odd rows 2, 1, 2, 1.
fn quant4x4(w: Block, qp: u32) -> Block {
    let qbits = 15u + qp / 6u;
    let mf = MF[qp % 6u];
    let even = vec4<i32>(mf.x, mf.z, mf.x, mf.z);
    let odd = vec4<i32>(mf.z, mf.y, mf.z, mf.y);
    return Block(quant_row(w.r0, even, qbits), quant_row(w.r1, odd, qbits), quant_row(w.r2, even, qbits), quant_row(w.r3, odd, qbits));
}

// Its AC levels (`Quant4x4::quant_ac`): position 0 left at 0.
fn quant_ac(w: Block, qp: u32) -> Block {
    return with_dc(quant4x4(w, qp), 0);
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

// Every position scaled (`Quant4x4::dequant`).
fn dequant4x4(c: Block, qp: u32) -> Block {
    let norm = NORM[qp % 6u] * 16;
    let even = vec4<i32>(norm.x, norm.z, norm.x, norm.z);
    let odd = vec4<i32>(norm.z, norm.y, norm.z, norm.y);
    return Block(dequant_row(c.r0, even, qp), dequant_row(c.r1, odd, qp), dequant_row(c.r2, even, qp), dequant_row(c.r3, odd, qp));
}

fn dequant_ac(c: Block, qp: u32) -> Block {
    return with_dc(dequant4x4(c, qp), c.r0.x);
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

// A block's 16 levels in scan order (`ZIGZAG` written out: no array indexed at run time).
fn zigzag_block(b: Block) -> array<i32, 16> {
    return block_array(zigzag_rows(b));
}

// The same, four a row.
fn zigzag_rows(b: Block) -> Block {
    return Block(vec4<i32>(b.r0.x, b.r0.y, b.r1.x, b.r2.x), vec4<i32>(b.r1.y, b.r0.z, b.r0.w, b.r1.z),
        vec4<i32>(b.r2.y, b.r3.x, b.r3.y, b.r2.z), vec4<i32>(b.r1.w, b.r2.w, b.r3.z, b.r3.w));
}

// 16 values (raster) as a block.
fn array_block(a: array<i32, 16>) -> Block {
    return Block(vec4<i32>(a[0], a[1], a[2], a[3]), vec4<i32>(a[4], a[5], a[6], a[7]),
        vec4<i32>(a[8], a[9], a[10], a[11]), vec4<i32>(a[12], a[13], a[14], a[15]));
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

// Sum of squared differences of two blocks.
fn block_ssd(a: Block, b: Block) -> u32 {
    let d0 = a.r0 - b.r0;
    let d1 = a.r1 - b.r1;
    let d2 = a.r2 - b.r2;
    let d3 = a.r3 - b.r3;
    return u32(dot(d0, d0) + dot(d1, d1) + dot(d2, d2) + dot(d3, d3));
}

// Nonzero levels of a block (its TotalCoeff when all 16 are coded).
fn block_nonzero(b: Block) -> u32 {
    let z = vec4<i32>(0);
    let one = vec4<u32>(1u);
    let none = vec4<u32>(0u);
    let n = select(one, none, b.r0 == z) + select(one, none, b.r1 == z) + select(one, none, b.r2 == z) + select(one, none, b.r3 == z);
    return n.x + n.y + n.z + n.w;
}

fn pack_levels(a: i32, b: i32) -> u32 {
    return (u32(a) & 0xffffu) | (u32(b) << 16u);
}

fn pack_samples(v: vec4<i32>) -> u32 {
    let u = vec4<u32>(v);
    return u.x | (u.y << 8u) | (u.z << 16u) | (u.w << 24u);
}
