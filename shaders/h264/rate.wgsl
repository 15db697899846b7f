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
const RT_RUN_BEFORE: u32 = 512u;  // run_before lengths [min(zerosLeft, 7) - 1][run 0..14]
const RT_CBP_CODE: u32 = 617u;    // Intra_4x4 coded_block_pattern 0..47 -> codeNum of me(v)
const RT_LAMBDA: u32 = 665u;      // x264's lambda by QP (SATD costs)
const RT_LAMBDA2: u32 = 717u;     // lambda2 by QP, in units of 2^-RD_SHIFT
const RT_I4_TAPS: u32 = 769u;     // Intra_4x4 prediction taps [mode][row], a byte per sample (predict4x4.wgsl)
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

// The CAVLC bits of `n` (16, or 15 for an AC block) levels in scan order with nC `nc`;
// 0 where a level needs level_prefix > 15 (the caller checks codability first). The
// levels are walked from the end in a loop of fixed length, so that every index is a
// constant once it is unrolled (an array indexed at run time goes to local memory).
fn block_bits(scan: array<i32, 16>, n: u32, nc: u32) -> u32 {
    var table = 3u;
    if nc < 2u {
        table = 0u;
    } else if nc < 4u {
        table = 1u;
    } else if nc < 8u {
        table = 2u;
    }
    var total = 0u;
    var last = 0u;
    for (var i = 0u; i < 16u; i++) {
        if i < n && scan[i] != 0 {
            total++;
            last = i;
        }
    }
    if total == 0u {
        return rate_tables[RT_COEFF_TOKEN + table * 68u];
    }
    let total_zeros = last + 1u - total;
    var bits = 0u;
    var k = 0u; // levels coded so far, from the last one down
    var trailing_ones = 0u;
    var suffix_length = 0u;
    var zeros_left = total_zeros;
    var run = 0u; // zeros since the level before
    var uncodable = false;
    for (var j = 0u; j < 16u; j++) {
        let i = 15u - j;
        let level = scan[i];
        if i >= n || i > last {
            continue;
        }
        if level == 0 {
            run++;
            continue;
        }
        // run_before of the level before this one (each level's but the last), while
        // zeros are left.
        if k > 0u && zeros_left > 0u {
            bits += rate_tables[RT_RUN_BEFORE + (min(zeros_left, 7u) - 1u) * 15u + run];
            zeros_left -= run;
        }
        run = 0u;
        let magnitude = u32(abs(level));
        if k == trailing_ones && trailing_ones < 3u && magnitude == 1u {
            trailing_ones++;
            bits++;
            k++;
            continue;
        }
        if k == trailing_ones {
            // The first level after the trailing ones: their count is final.
            suffix_length = select(0u, 1u, total > 10u && trailing_ones < 3u);
        }
        var level_code = 2u * magnitude - select(1u, 2u, level > 0);
        if k == trailing_ones && trailing_ones < 3u {
            level_code -= 2u;
        }
        if suffix_length == 0u {
            if level_code < 14u {
                bits += level_code + 1u;
            } else if level_code < 30u {
                bits += 19u;
            } else if level_code - 30u < 4096u {
                bits += 28u;
            } else {
                uncodable = true;
            }
        } else if level_code < (15u << suffix_length) {
            bits += (level_code >> suffix_length) + 1u + suffix_length;
        } else if level_code - (15u << suffix_length) < 4096u {
            bits += 28u;
        } else {
            uncodable = true;
        }
        if suffix_length == 0u {
            suffix_length = 1u;
        }
        if magnitude > (3u << (suffix_length - 1u)) && suffix_length < 6u {
            suffix_length++;
        }
        k++;
    }
    if uncodable {
        return 0u;
    }
    bits += rate_tables[RT_COEFF_TOKEN + (table * 17u + total) * 4u + trailing_ones];
    if total < n {
        bits += rate_tables[RT_TOTAL_ZEROS + (total - 1u) * 16u + total_zeros];
    }
    return bits;
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
