// What a luma choice costs in the rate-distortion decisions of the intra front end: the
// CAVLC bits of a residual block with its nC (src/cavlc/cpu.rs `block_bits_nc`), the
// header bits of an I_NxN or I_16x16 luma (src/h264/rate.rs `luma4x4_bits`,
// `luma_bits`), and costs of squared error plus lambda2 times bits, exact in 64 bits as a
// (high, low) pair (src/h264/rate.rs `rd_cost`).

//!import h264/block

// keep in sync with src/h264/intra.rs `rate_tables`: u32 entries.
@group(0) @binding(8) var<storage, read> rate_tables: array<u32>;
const RT_COEFF_TOKEN: u32 = 0u;  // coeff_token lengths [nC 0-1, 2-3, 4-7, 8+][TotalCoeff 0..16][T1s 0..3]
const RT_TOTAL_ZEROS: u32 = 272u; // total_zeros lengths [TotalCoeff - 1][total_zeros 0..15]
const RT_CBP_CODE: u32 = 512u;    // Intra_4x4 coded_block_pattern 0..47 -> codeNum of me(v)
const RT_LAMBDA: u32 = 560u;      // x264's lambda by QP (SATD costs)
const RT_LAMBDA2: u32 = 612u;     // lambda2 by QP, in units of 2^-RD_SHIFT
const RT_I4_TAPS: u32 = 664u;     // Intra_4x4 prediction taps [mode][row], a byte per sample (predict4x4.wgsl)
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

// The bits of run_before (Table 9-10) with `zeros_left` (1..7: 7 stands for more) zeros
// left and a run of `run`.
fn run_before_bits(zeros_left: u32, run: u32) -> u32 {
    var b = select(run - 3u, 3u, run < 7u);
    b = select(b, select(3u, 2u, run == 0u), zeros_left == 6u);
    b = select(b, select(3u, 2u, run < 2u), zeros_left == 5u);
    b = select(b, select(3u, 2u, run < 3u), zeros_left == 4u);
    b = select(b, 2u, zeros_left == 3u);
    b = select(b, select(2u, 1u, run == 0u), zeros_left == 2u);
    return select(b, 1u, zeros_left == 1u);
}

// The CAVLC bits of the `n` levels (16, or 15 for an AC block) of `scan` from position
// `first`, with nC `nc`; 0 where a level needs level_prefix > 15 (the caller checks
// codability first). The twin of src/cavlc/cpu.rs `block_bits_nc`. The nonzero levels
// are visited from the last one down through a mask, a step each; a level's run_before
// follows from the mask alone (the zeros below it, the gap to the next), so no step
// waits on the one before's table read. (A walk over all 16 positions with a table read
// per run took a third of the front end's GPU time.)
fn block_bits(scan: Block, first: u32, n: u32, nc: u32) -> u32 {
    var table = 3u;
    if nc < 2u {
        table = 0u;
    } else if nc < 4u {
        table = 1u;
    } else if nc < 8u {
        table = 2u;
    }
    let bit = vec4<u32>(1u, 2u, 4u, 8u);
    let none = vec4<u32>(0u);
    let zero = vec4<i32>(0);
    let m0 = select(none, bit, scan.r0 != zero);
    let m1 = select(none, bit, scan.r1 != zero);
    let m2 = select(none, bit, scan.r2 != zero);
    let m3 = select(none, bit, scan.r3 != zero);
    let all = (m0.x | m0.y | m0.z | m0.w) | ((m1.x | m1.y | m1.z | m1.w) << 4u)
        | ((m2.x | m2.y | m2.z | m2.w) << 8u) | ((m3.x | m3.y | m3.z | m3.w) << 12u);
    let mask = (all >> first) & ((1u << n) - 1u);
    if mask == 0u {
        return rate_tables[RT_COEFF_TOKEN + table * 68u];
    }
    let total = countOneBits(mask);
    let total_zeros = firstLeadingBit(mask) + 1u - total;
    // Read before the walk: neither depends on it.
    var bits = select(0u, rate_tables[RT_TOTAL_ZEROS + (total - 1u) * 16u + total_zeros], total < n);
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
        // run_before of every level but the lowest, while zeros are left below it.
        if rest != 0u {
            let zeros_left = i - countOneBits(rest);
            let run = i - 1u - firstLeadingBit(rest);
            bits += select(0u, run_before_bits(min(zeros_left, 7u), run), zeros_left > 0u);
        }
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

// a * b as (high, low) words.
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let al = a & 0xffffu;
    let ah = a >> 16u;
    let bl = b & 0xffffu;
    let bh = b >> 16u;
    let ll = al * bl;
    let lh = al * bh;
    let hl = ah * bl;
    let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
    return vec2<u32>(ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u), (ll & 0xffffu) | (mid << 16u));
}

// `ssd` (below 2^26) times 2^RD_SHIFT plus lambda2 at `qp` times `bits` (`rd_cost`).
fn rd_cost(ssd: u32, bits: u32, qp: u32) -> vec2<u32> {
    let product = mul_wide(rate_tables[RT_LAMBDA2 + qp], bits);
    let lo = product.y + (ssd << RD_SHIFT);
    return vec2<u32>(product.x + select(0u, 1u, lo < product.y), lo);
}

fn cost_less(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}
