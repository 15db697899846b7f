// What a luma choice costs in the rate-distortion decisions of the intra front end: the
// CAVLC bits of a residual block with its nC (src/cavlc/cpu.rs `block_bits_nc`), the
// header bits of an I_NxN or I_16x16 luma (src/h264/rate.rs `luma4x4_bits`,
// `luma_bits`), and costs of squared error plus lambda2 times bits, exact in 64 bits as a
// (high, low) pair (src/h264/rate.rs `rd_cost`).

//!import h264/block
//!import common/wide

// keep in sync with src/h264/intra.rs `rate_table_parts` (a test reads the offsets here):
// u32 entries.
@group(0) @binding(8) var<storage, read> rate_tables: array<u32>;
const RT_COEFF_TOKEN: u32 = 0u;  // coeff_token lengths [nC 0-1, 2-3, 4-7, 8+][TotalCoeff 0..16][T1s 0..3]
const RT_TOTAL_ZEROS: u32 = 272u; // total_zeros lengths [TotalCoeff - 1][total_zeros 0..15]
const RT_CBP_CODE: u32 = 512u;    // Intra_4x4 coded_block_pattern 0..47 -> codeNum of me(v)
const RT_LAMBDA: u32 = 560u;      // x264's lambda by QP (SATD costs)
const RT_LAMBDA2: u32 = 612u;     // lambda2 by QP, in units of 2^-RD_SHIFT
const RT_I4_TAPS: u32 = 664u;     // Intra_4x4 prediction taps [mode][row], a byte per sample (predict4x4.wgsl)
const RT_RUN_BEFORE: u32 = 700u;  // run_before bits of a block by its nonzero levels' mask, a byte each
const RD_SHIFT: u32 = 6u;

// Where a neighbour's TotalCoeff or mode is not available (outside the slice).
const NONE: u32 = 0xffffffffu;

// nC of a block from its left (a) and upper (b) neighbours' TotalCoeff (clause 9.2.1).
fn nc_of(a: u32, b: u32) -> u32 {
    if a != NONE && b != NONE {
        return (a + b + 1u) >> 1u;
    }
    if a != NONE {
        return a;
    }
    if b != NONE {
        return b;
    }
    return 0u;
}

// The level at scan position `p` of `scan` (a block's levels in scan order, four a
// row): a vector indexed at run time stays in registers, where an array would not.
fn scan_at(scan: Block, p: u32) -> i32 {
    let row = select(select(scan.r0, scan.r1, p >= 4u), select(scan.r2, scan.r3, p >= 12u), p >= 8u);
    return row[p & 3u];
}

// The run_before bits of a block whose nonzero levels are `mask` (bit 0: the first
// level counted), from the table (src/cavlc/cpu.rs `run_before_bits`).
fn run_before_bits(mask: u32) -> u32 {
    return (rate_tables[RT_RUN_BEFORE + (mask >> 2u)] >> (8u * (mask & 3u))) & 255u;
}

// The bits of the levels coded as levels after the first, those in `rest`, at positions
// below it: `walk` (bits so far, suffixLength) after the level at position `p` (a
// constant at every call). With suffixLength s at least 1, level_code >> s is
// (magnitude - 1) >> (s - 1) for either sign, the code escapes where that reaches 15,
// and s grows where it reaches 3: a shift and a comparison carry s from one level to the
// next.
fn walk_level(walk: vec2<u32>, level: i32, p: u32, rest: u32) -> vec2<u32> {
    let s = walk.y;
    let q = (u32(abs(level)) - 1u) >> (s - 1u);
    let on = (rest & (1u << p)) != 0u;
    let bits = select(28u, q + 1u + s, q < 15u);
    return vec2<u32>(walk.x + select(0u, bits, on), s + select(0u, 1u, on && q >= 3u && s < 6u));
}

// The CAVLC bits of the `n` levels (16, or 15 for an AC block) of `scan` from position
// `first`, with nC `nc`; 0 where a level needs level_prefix > 15 (the caller checks
// codability first). The twin of src/cavlc/cpu.rs `block_bits_nc`. Straight-line code
// with every level's position a constant, in registers: the trailing ones follow from
// masks of the nonzero levels and of those of magnitude one, the run_befores from a table
// by the nonzero levels' mask, the first level coded as a level (suffixLength 0 or 1, its
// level_code lowered after fewer than three trailing ones) on its own, and the others
// carry only suffixLength from one to the next. (A loop over the nonzero levels, as many
// steps as the warp's longest block, each with a level read indexed at run time, made the
// front end 37% slower on the H200.) A level past 2063, which may escape beyond
// level_prefix 15, takes the loop.
fn block_bits(scan: Block, first: u32, n: u32, nc: u32) -> u32 {
    if beyond_escape(scan) {
        return block_bits_loop(scan, first, n, nc);
    }
    let table = coeff_token_table(nc);
    let mask = block_mask(scan, vec4<i32>(0), false) & (((1u << n) - 1u) << first);
    if mask == 0u {
        return rate_tables[RT_COEFF_TOKEN + table * 68u];
    }
    let total = countOneBits(mask);
    let total_zeros = firstLeadingBit(mask) + 1u - first - total;
    // Trailing ones: the nonzero levels above the highest one of magnitude past 1, at
    // most three.
    let others = mask & block_mask(scan, vec4<i32>(1), true);
    let above_others = select(mask, mask & ~((2u << firstLeadingBit(others)) - 1u), others != 0u);
    let trailing_ones = min(countOneBits(above_others), 3u);
    var coded = mask;
    for (var t = 0u; t < 3u; t++) {
        coded = select(coded, coded ^ (1u << firstLeadingBit(coded)), t < trailing_ones);
    }
    var bits = rate_tables[RT_COEFF_TOKEN + (table * 17u + total) * 4u + trailing_ones] + trailing_ones
        + select(0u, rate_tables[RT_TOTAL_ZEROS + (total - 1u) * 16u + total_zeros], total < n)
        + run_before_bits(mask >> first);
    if coded == 0u {
        return bits;
    }
    let top = firstLeadingBit(coded);
    let level = scan_at(scan, top);
    let magnitude = u32(abs(level));
    let level_code = 2u * magnitude - select(1u, 2u, level > 0) - select(0u, 2u, trailing_ones < 3u);
    if total > 10u && trailing_ones < 3u {
        bits += select(28u, (level_code >> 1u) + 2u, level_code < 30u);
    } else {
        bits += select(select(28u, 19u, level_code < 30u), level_code + 1u, level_code < 14u);
    }
    let rest = coded ^ (1u << top);
    var walk = vec2<u32>(bits, select(1u, 2u, magnitude > 3u));
    walk = walk_level(walk, scan.r3.z, 14u, rest);
    walk = walk_level(walk, scan.r3.y, 13u, rest);
    walk = walk_level(walk, scan.r3.x, 12u, rest);
    walk = walk_level(walk, scan.r2.w, 11u, rest);
    walk = walk_level(walk, scan.r2.z, 10u, rest);
    walk = walk_level(walk, scan.r2.y, 9u, rest);
    walk = walk_level(walk, scan.r2.x, 8u, rest);
    walk = walk_level(walk, scan.r1.w, 7u, rest);
    walk = walk_level(walk, scan.r1.z, 6u, rest);
    walk = walk_level(walk, scan.r1.y, 5u, rest);
    walk = walk_level(walk, scan.r1.x, 4u, rest);
    walk = walk_level(walk, scan.r0.w, 3u, rest);
    walk = walk_level(walk, scan.r0.z, 2u, rest);
    walk = walk_level(walk, scan.r0.y, 1u, rest);
    walk = walk_level(walk, scan.r0.x, 0u, rest);
    return walk.x;
}

// Which coeff_token lengths serve nC `nc` (0-1, 2-3, 4-7, 8 and up).
fn coeff_token_table(nc: u32) -> u32 {
    return select(select(select(3u, 2u, nc < 8u), 1u, nc < 4u), 0u, nc < 2u);
}

// The positions of `scan` whose level is not `v` (`magnitude`: whose magnitude), a bit
// each.
fn block_mask(scan: Block, v: vec4<i32>, magnitude: bool) -> u32 {
    let bit = vec4<u32>(1u, 2u, 4u, 8u);
    let none = vec4<u32>(0u);
    let m0 = select(none, bit, select(scan.r0, abs(scan.r0), magnitude) != v);
    let m1 = select(none, bit, select(scan.r1, abs(scan.r1), magnitude) != v);
    let m2 = select(none, bit, select(scan.r2, abs(scan.r2), magnitude) != v);
    let m3 = select(none, bit, select(scan.r3, abs(scan.r3), magnitude) != v);
    return (m0.x | m0.y | m0.z | m0.w) | ((m1.x | m1.y | m1.z | m1.w) << 4u)
        | ((m2.x | m2.y | m2.z | m2.w) << 8u) | ((m3.x | m3.y | m3.z | m3.w) << 12u);
}

// `block_bits` a step per nonzero level, from the last one down, for any levels (the
// walk above takes none past 2063).
fn block_bits_loop(scan: Block, first: u32, n: u32, nc: u32) -> u32 {
    let table = coeff_token_table(nc);
    let mask = (block_mask(scan, vec4<i32>(0), false) >> first) & ((1u << n) - 1u);
    if mask == 0u {
        return rate_tables[RT_COEFF_TOKEN + table * 68u];
    }
    let total = countOneBits(mask);
    let total_zeros = firstLeadingBit(mask) + 1u - total;
    var bits = select(0u, rate_tables[RT_TOTAL_ZEROS + (total - 1u) * 16u + total_zeros], total < n)
        + run_before_bits(mask);
    let tokens = RT_COEFF_TOKEN + (table * 17u + total) * 4u;
    var rest = mask;
    var k = 0u; // levels coded so far, from the last one down
    var trailing_ones = 0u;
    var suffix_length = 0u;
    var uncodable = false;
    loop {
        if rest == 0u {
            break;
        }
        let i = firstLeadingBit(rest);
        rest ^= 1u << i;
        let level = scan_at(scan, i + first);
        let magnitude = u32(abs(level));
        let is_one = k == trailing_ones && trailing_ones < 3u && magnitude == 1u;
        // The first level after the trailing ones: their count is final.
        let after_ones = k == trailing_ones && !is_one;
        if after_ones {
            suffix_length = select(0u, 1u, total > 10u && trailing_ones < 3u);
        }
        // (Unused for a trailing one, where it may wrap.)
        let level_code = 2u * magnitude - select(1u, 2u, level > 0) - select(0u, 2u, after_ones && trailing_ones < 3u);
        var level_bits = 0u;
        var beyond = false;
        if suffix_length == 0u {
            level_bits = select(select(28u, 19u, level_code < 30u), level_code + 1u, level_code < 14u);
            beyond = level_code >= 30u && level_code - 30u >= 4096u;
        } else {
            let escape = 15u << suffix_length;
            level_bits = select(28u, (level_code >> suffix_length) + 1u + suffix_length, level_code < escape);
            beyond = level_code >= escape && level_code - escape >= 4096u;
        }
        bits += select(level_bits, 1u, is_one);
        uncodable = uncodable || (beyond && !is_one);
        let grown = max(suffix_length, 1u);
        let next = grown + select(0u, 1u, magnitude > (3u << (grown - 1u)) && grown < 6u);
        suffix_length = select(next, suffix_length, is_one);
        trailing_ones += select(0u, 1u, is_one);
        k++;
    }
    if uncodable {
        return 0u;
    }
    return bits + rate_tables[tokens + trailing_ones];
}

// The header bits of an I_NxN luma (`intra4x4_header_bits`): mb_type, its 16 mode fields
// (syntax nibbles: 8 is the predicted mode's flag, 1 bit; else 4), coded_block_pattern,
// and mb_qp_delta where the pattern is not zero (1 bit: the same QP).
fn intra4x4_header_bits(syntax0: u32, syntax1: u32, cbp: u32) -> u32 {
    var fields = 0u;
    for (var i = 0u; i < 8u; i++) {
        fields += select(4u, 1u, ((syntax0 >> (4u * i)) & 15u) == 8u);
        fields += select(4u, 1u, ((syntax1 >> (4u * i)) & 15u) == 8u);
    }
    return 1u + fields + ue_bits(rate_tables[RT_CBP_CODE + cbp]) + select(0u, 1u, cbp != 0u);
}

// `ssd` (below 2^26) times 2^RD_SHIFT plus lambda2 at `qp` times `bits` (`rd_cost`).
fn rd_cost(ssd: u32, bits: u32, qp: u32) -> vec2<u32> {
    return add_wide(mul_wide(rate_tables[RT_LAMBDA2 + qp], bits), vec2<u32>(0u, ssd << RD_SHIFT));
}

fn cost_less(a: vec2<u32>, b: vec2<u32>) -> bool {
    return !le_wide(b, a);
}
