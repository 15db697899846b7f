// One residual block's CAVLC code (clause 9.2) into its slot of `enc_words`, MSB-first:
// the CAVLCU paper's symbol pass (a nonzero mask of the scan, countOneBits for
// TotalCoeff, firstLeadingBit to walk the coefficients from the last one, levels coded
// without tables as Hoffman et al. do) and its word-at-a-time writer.
// CPU twin: src/cavlc/cavlcu.rs `encode_block_words`.
//!import cavlc/frame

@group(0) @binding(5) var<storage, read_write> enc_words: array<u32>;
@group(0) @binding(6) var<storage, read_write> enc_lens: array<u32>;
// [0]: nonzero when some level needed level_prefix > 15 (Baseline cannot code it); the
// host then reports the error (its bits are never used).
@group(0) @binding(9) var<storage, read_write> cavlc_status: array<atomic<u32>>;

struct BlockWriter {
    base: u32, // first word of the slot
    word: u32, // word the pending bits belong to, from `base`
    acc: u32,  // pending bits, first in bit 31
    fill: u32, // pending bits, 0..31
}

// Append `len` (1..32) bits of `code` (right-aligned, no bits above `len`).
fn bw_put(w: ptr<function, BlockWriter>, code: u32, len: u32) {
    let free = 32u - (*w).fill;
    if len < free {
        (*w).acc |= code << (free - len);
        (*w).fill += len;
    } else {
        let spill = len - free;
        (*w).acc |= code >> spill;
        enc_words[(*w).base + (*w).word] = (*w).acc;
        (*w).word += 1u;
        (*w).fill = spill;
        (*w).acc = select(0u, code << (32u - spill), spill != 0u);
    }
}

// A table entry `len << 16 | code`.
fn bw_entry(w: ptr<function, BlockWriter>, entry: u32) {
    bw_put(w, entry & 0xffffu, entry >> 16u);
}

// Bits written; stores the partial last word.
fn bw_finish(w: ptr<function, BlockWriter>) -> u32 {
    if (*w).fill != 0u {
        enc_words[(*w).base + (*w).word] = (*w).acc;
    }
    return (*w).word * 32u + (*w).fill;
}

fn coeff_token_entry(ct: u32, total_coeff: u32, trailing_ones: u32) -> u32 {
    if ct == 3u {
        // nC >= 8: 6-bit fixed length, (TotalCoeff - 1) << 2 | T1s; 000011 for none.
        if total_coeff == 0u {
            return (6u << 16u) | 3u;
        }
        return (6u << 16u) | ((total_coeff - 1u) << 2u) | trailing_ones;
    }
    let t = select(ct, 3u, ct == CT_CHROMA_DC);
    return cavlc_tables[CT_BASE + (t * 17u + total_coeff) * 4u + trailing_ones];
}

fn total_zeros_entry(chroma_dc: bool, total_coeff: u32, total_zeros: u32) -> u32 {
    if chroma_dc {
        return cavlc_tables[TZC_BASE + (total_coeff - 1u) * 4u + total_zeros];
    }
    return cavlc_tables[TZ_BASE + (total_coeff - 1u) * 16u + total_zeros];
}

fn run_before_entry(zeros_left: u32, run: u32) -> u32 {
    return cavlc_tables[RB_BASE + (min(zeros_left, 7u) - 1u) * 15u + run];
}

// Code one level (not a trailing one) with suffixLength `sl`; returns the next
// suffixLength. `first_adjust`: the first level after fewer than 3 trailing ones.
fn put_level(w: ptr<function, BlockWriter>, level: i32, sl: u32, first_adjust: bool) -> u32 {
    let magnitude = u32(abs(level));
    var level_code = 2u * magnitude - select(1u, 2u, level > 0);
    if first_adjust {
        level_code -= 2u;
    }
    var escape = 15u << sl;
    if sl == 0u {
        escape = 30u;
    }
    if level_code < escape {
        if sl == 0u {
            if level_code < 14u {
                bw_put(w, 1u, level_code + 1u);
            } else {
                // level_prefix 14, 4-bit suffix
                bw_put(w, 16u | (level_code - 14u), 19u);
            }
        } else {
            bw_put(w, (1u << sl) | (level_code & ((1u << sl) - 1u)), (level_code >> sl) + 1u + sl);
        }
    } else {
        let suffix = level_code - escape;
        if suffix >= 4096u {
            atomicOr(&cavlc_status[0], 1u);
        } else {
            // level_prefix 15, 12-bit suffix
            bw_put(w, 4096u | suffix, 28u);
        }
    }
    var next = max(sl, 1u);
    if magnitude > (3u << (next - 1u)) && next < 6u {
        next += 1u;
    }
    return next;
}

// Code the block whose coefficients are zz[start .. start + n) (scan order) with
// coeff_token table `ct` into the slot at word `base`; returns its length in bits.
fn encode_block(base: u32, zz: ptr<function, array<i32, 16>>, start: u32, n: u32, ct: u32) -> u32 {
    var mask = 0u;
    for (var i = 0u; i < 16u; i++) {
        mask |= select(0u, 1u << i, (*zz)[i] != 0);
    }
    mask &= ((1u << n) - 1u) << start;
    var w = BlockWriter(base, 0u, 0u, 0u);
    let total_coeff = countOneBits(mask);
    // Trailing ones: up to three +-1 from the last coefficient down.
    var rest = mask;
    var trailing_ones = 0u;
    var signs = 0u;
    loop {
        if trailing_ones == 3u || rest == 0u {
            break;
        }
        let p = firstLeadingBit(rest);
        let v = (*zz)[p];
        if abs(v) != 1 {
            break;
        }
        signs = (signs << 1u) | u32(v < 0);
        trailing_ones += 1u;
        rest ^= 1u << p;
    }
    bw_entry(&w, coeff_token_entry(ct, total_coeff, trailing_ones));
    if total_coeff == 0u {
        return bw_finish(&w);
    }
    if trailing_ones > 0u {
        bw_put(&w, signs, trailing_ones);
    }
    var sl = select(0u, 1u, total_coeff > 10u && trailing_ones < 3u);
    var first = trailing_ones < 3u;
    loop {
        if rest == 0u {
            break;
        }
        let p = firstLeadingBit(rest);
        rest ^= 1u << p;
        sl = put_level(&w, (*zz)[p], sl, first);
        first = false;
    }
    let last = firstLeadingBit(mask);
    let total_zeros = last - start + 1u - total_coeff;
    if total_coeff < n {
        bw_entry(&w, total_zeros_entry(ct == CT_CHROMA_DC, total_coeff, total_zeros));
    }
    // run_before of every coefficient but the first, from the last one down, while zeros
    // are left.
    var zeros_left = total_zeros;
    var runs = mask ^ (1u << last);
    var p = last;
    loop {
        if zeros_left == 0u || runs == 0u {
            break;
        }
        let q = firstLeadingBit(runs);
        runs ^= 1u << q;
        let run = p - q - 1u;
        bw_entry(&w, run_before_entry(zeros_left, run));
        zeros_left -= run;
        p = q;
    }
    return bw_finish(&w);
}
