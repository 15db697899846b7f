// CAVLCU (Fuentes-Alventosa et al., J. Supercomputing 2021): one kernel codes every
// residual block of a frame. A workgroup takes a region of REG_SIZE consecutive
// macroblocks (raster order) by ticket, 16 invocations per macroblock, one per 4x4 luma
// block; the same invocations then code the chroma AC blocks (0..7), chroma DC (8, 9)
// and Intra16x16DC (10). Each block's levels are read once (two 128-bit loads) and
// zigzag-ordered in registers; nC comes from the neighbours' TotalCoeff: inside the
// macroblock by cavlc/nbr (shuffles or workgroup memory), from the region's other
// macroblocks by workgroup memory, and from earlier regions through words they publish
// in scan_state (common/lookback.wgsl): polled SPIN_BUDGET times, then recomputed from the
// neighbour's levels (so it never hangs). RECOMPUTE: never publish or wait, always
// recompute (the `recompute` variant). Output: per-slot codes and lengths (0 for blocks
// the coded block pattern leaves out). CPU twin: src/cavlc/cavlcu.rs `block_codes_cpu`.
//!import common/lookback
//!import cavlc/block
//!import cavlc/nbr

// Macroblocks per workgroup (the paper's REG_SIZE): WG_SIZE must be 16 * REG_SIZE.
override REG_SIZE: u32 = 8u;
override RECOMPUTE: bool = false;

var<workgroup> wg_dc: array<i32, 384>; // level 0 of every block, MAX_REG * 24
var<workgroup> wg_nc0: array<i32, 16>; // nC of luma block 0 (Intra16x16DC), MAX_REG

// Words each macroblock publishes at scan_state[STATE_HEADER + 4 * mb + k]:
const PUB_R_LUMA: u32 = 0u;   // blocks 3, 7, 11, 15 (5 bits each): for the right neighbour
const PUB_R_CHROMA: u32 = 1u; // blocks 17, 19, 21, 23 (4 bits each)
const PUB_B_LUMA: u32 = 2u;   // blocks 12..15: for the macroblock below
const PUB_B_CHROMA: u32 = 3u; // blocks 18, 19, 22, 23

fn pub_index(mb: u32, k: u32) -> u32 {
    return STATE_HEADER + 4u * mb + k;
}

// TotalCoeff of block `blk` of macroblock `n` of an earlier region: field `field` of
// `bits` bits of its published word `k`, or recomputed from its levels.
fn far_tc(n: u32, k: u32, field: u32, bits: u32, blk: u32) -> i32 {
    if !RECOMPUTE {
        let v = lookback_poll_word(pub_index(n, k));
        if v != 0u {
            return i32((v >> (field * bits)) & ((1u << bits) - 1u));
        }
        lookback_count_fallback();
    }
    return i32(block_total_coeff(n, blk));
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    let lane = scan_lane(inv);
    let z = lane / 16u;
    let t = lane % 16u;
    let bx = t % 4u;
    let by = t / 4u;
    let is_chroma = t < 8u;
    // Chroma block t (t < 8): component comp, position (cx, cy) in its 2x2.
    let comp = (t / 4u) % 2u;
    let cx = t % 2u;
    let cy = (t / 2u) % 2u;
    let w = params.width_mbs;
    for (var taken = 0u; taken < MAX_BLOCKS_PER_WORKGROUP; taken++) {
        let region = take_block(inv);
        if region >= params.n_groups {
            break;
        }
        let r0 = region * REG_SIZE;
        let mb = r0 + z;
        let valid = mb < params.n_mbs;
        let mbc = min(mb, params.n_mbs - 1u);
        let h = headers[mbc];
        let i16 = is_i16(h);
        let li = (mbc * MB_BLOCKS + t) * 2u;
        let lq0 = levels[li];
        let lq1 = levels[li + 1u];
        var cq0 = vec4<u32>();
        var cq1 = vec4<u32>();
        if is_chroma {
            let ci = (mbc * MB_BLOCKS + 16u + t) * 2u;
            cq0 = levels[ci];
            cq1 = levels[ci + 1u];
        }
        let lum_tc = count_nonzero(lq0, lq1, i16);
        let chr_tc = count_nonzero(cq0, cq1, true);
        let wz = z * MB_BLOCKS;
        wg_tc[wz + t] = lum_tc;
        wg_dc[wz + t] = lo16(lq0.x);
        if is_chroma {
            wg_tc[wz + 16u + t] = chr_tc;
            wg_dc[wz + 16u + t] = lo16(cq0.x);
        }
        workgroupBarrier();

        // Publish what later regions need: every macroblock's bottom edge, the region's
        // last macroblock's right edge.
        if valid && !RECOMPUTE {
            let last = z == REG_SIZE - 1u || mb + 1u == params.n_mbs;
            if t == 0u {
                lookback_publish_word(pub_index(mb, PUB_B_LUMA), wg_tc[wz + 12u] | (wg_tc[wz + 13u] << 5u) | (wg_tc[wz + 14u] << 10u) | (wg_tc[wz + 15u] << 15u));
            } else if t == 1u {
                lookback_publish_word(pub_index(mb, PUB_B_CHROMA), wg_tc[wz + 18u] | (wg_tc[wz + 19u] << 4u) | (wg_tc[wz + 22u] << 8u) | (wg_tc[wz + 23u] << 12u));
            } else if t == 2u && last {
                lookback_publish_word(pub_index(mb, PUB_R_LUMA), wg_tc[wz + 3u] | (wg_tc[wz + 7u] << 5u) | (wg_tc[wz + 11u] << 10u) | (wg_tc[wz + 15u] << 15u));
            } else if t == 3u && last {
                lookback_publish_word(pub_index(mb, PUB_R_CHROMA), wg_tc[wz + 17u] | (wg_tc[wz + 19u] << 4u) | (wg_tc[wz + 21u] << 8u) | (wg_tc[wz + 23u] << 12u));
            }
        }

        // Neighbours inside the macroblock (every invocation takes part in the shuffles).
        let in_left = mb_neighbour_tc(inv, lum_tc, 1u, wz + max(t, 1u) - 1u);
        let in_up = mb_neighbour_tc(inv, lum_tc, 4u, wz + max(t, 4u) - 4u);
        let cin_left = mb_neighbour_tc(inv, chr_tc, 1u, wz + 16u + min(max(t, 1u) - 1u, 7u));
        let cin_up = mb_neighbour_tc(inv, chr_tc, 2u, wz + 16u + min(max(t, 2u) - 2u, 7u));

        let left_ok = valid && left_available(mb, h.slice);
        let up_ok = valid && up_available(mb, h.slice);
        let nl = mb - 1u;
        let nu = mb - w;
        // Luma block (bx, by).
        var na = -1;
        var nb = -1;
        if bx > 0u {
            na = i32(in_left);
        } else if left_ok {
            if nl >= r0 {
                na = i32(wg_tc[(nl - r0) * MB_BLOCKS + by * 4u + 3u]);
            } else {
                na = far_tc(nl, PUB_R_LUMA, by, 5u, by * 4u + 3u);
            }
        }
        if by > 0u {
            nb = i32(in_up);
        } else if up_ok {
            if nu >= r0 {
                nb = i32(wg_tc[(nu - r0) * MB_BLOCKS + 12u + bx]);
            } else {
                nb = far_tc(nu, PUB_B_LUMA, bx, 5u, 12u + bx);
            }
        }
        let nc_luma = nc_of(na, nb);
        // Chroma AC block 16 + t.
        var ca = -1;
        var cb = -1;
        if is_chroma {
            if cx > 0u {
                ca = i32(cin_left);
            } else if left_ok {
                let blk = 16u + comp * 4u + cy * 2u + 1u;
                if nl >= r0 {
                    ca = i32(wg_tc[(nl - r0) * MB_BLOCKS + blk]);
                } else {
                    ca = far_tc(nl, PUB_R_CHROMA, comp * 2u + cy, 4u, blk);
                }
            }
            if cy > 0u {
                cb = i32(cin_up);
            } else if up_ok {
                let blk = 16u + comp * 4u + 2u + cx;
                if nu >= r0 {
                    cb = i32(wg_tc[(nu - r0) * MB_BLOCKS + blk]);
                } else {
                    cb = far_tc(nu, PUB_B_CHROMA, comp * 2u + cx, 4u, blk);
                }
            }
        }
        let nc_chroma = nc_of(ca, cb);
        if t == 0u {
            wg_nc0[z] = nc_luma;
        }
        workgroupBarrier();

        if valid {
            let slots = mb * MB_SLOTS;
            // The luma block.
            let slot = 1u + luma_coding_index(bx, by);
            var zz = zigzag(lq0, lq1);
            var len = 0u;
            if ((cbp_luma(h) >> ((by / 2u) * 2u + bx / 2u)) & 1u) != 0u {
                len = encode_block((slots + slot) * SLOT_WORDS, &zz, select(0u, 1u, i16), select(16u, 15u, i16), coeff_token_table(nc_luma));
            }
            enc_lens[slots + slot] = len;
            // Then a chroma AC block, a chroma DC block or the Intra16x16DC block.
            if is_chroma {
                var czz = zigzag(cq0, cq1);
                var clen = 0u;
                if cbp_chroma(h) == 2u {
                    clen = encode_block((slots + SLOT_CHROMA_AC + t) * SLOT_WORDS, &czz, 1u, 15u, coeff_token_table(nc_chroma));
                }
                enc_lens[slots + SLOT_CHROMA_AC + t] = clen;
            } else if t < 10u {
                let c = t - 8u;
                var dzz = array<i32, 16>();
                for (var k = 0u; k < 4u; k++) {
                    dzz[k] = wg_dc[wz + 16u + c * 4u + k];
                }
                var dlen = 0u;
                if cbp_chroma(h) >= 1u {
                    dlen = encode_block((slots + SLOT_CB_DC + c) * SLOT_WORDS, &dzz, 0u, 4u, CT_CHROMA_DC);
                }
                enc_lens[slots + SLOT_CB_DC + c] = dlen;
            } else if t == 10u {
                var dzz = array<i32, 16>();
                for (var s = 0u; s < 16u; s++) {
                    dzz[s] = wg_dc[wz + ZIGZAG[s]];
                }
                var dlen = 0u;
                if i16 {
                    dlen = encode_block(slots * SLOT_WORDS, &dzz, 0u, 16u, coeff_token_table(wg_nc0[z]));
                }
                enc_lens[slots] = dlen;
            }
        }
        // The next region reuses the workgroup memory.
        workgroupBarrier();
    }
}
