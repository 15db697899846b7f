// The luma of an I_NxN (Intra_4x4) macroblock, the twin of src/h264/intra4x4.rs
// `encode_luma4x4`: block after block in luma4x4BlkIdx order, each block's mode by SATD
// plus lambda times its syntax bits, the cheapest five then coded and compared by squared
// error plus lambda2 times their bits (mode field and CAVLC block with its real nC), the
// best one transformed, quantized and reconstructed before the next block predicts from
// it. The twin skips candidates and stops early where a bound shows they cannot win; the
// GPU codes them all and chooses the same (the bounds never skip a winner).
//
// The sixteen invocations of the macroblock's workgroup share each block's work: one per
// mode for the predictions, one per candidate for the coding, the first for the choices.

//!import h264/predict
//!import h264/predict4x4
//!import h264/rate

// The macroblock's source luma by block (raster); filled by the stage.
var<workgroup> src_blocks: array<Block, 16>;
// The bottom-left four samples of the macroblock above and to the right.
var<workgroup> top_right_y: array<i32, 4>;
// Intra4x4PredMode (NONE outside the slice; 2, DC, for an I_16x16 macroblock) and
// TotalCoeff of the neighbouring macroblocks' blocks along this one's edges: the left
// one's right column and the upper one's bottom row.
var<workgroup> left_modes: array<u32, 4>;
var<workgroup> top_modes: array<u32, 4>;
var<workgroup> left_tc: array<u32, 4>;
var<workgroup> top_tc: array<u32, 4>;

// The I_NxN luma so far, by block (raster).
var<workgroup> i4_recon: array<Block, 16>;
var<workgroup> i4_levels: array<Block, 16>;
var<workgroup> i4_modes: array<u32, 16>;
var<workgroup> i4_tc: array<u32, 16>;
var<workgroup> i4_bits: array<u32, 16>;
// Mode syntax per luma4x4BlkIdx (`MbHeader::intra4x4_modes`), coded 8x8 quadrants, the
// squared error, and nonzero when some block cannot be coded.
var<workgroup> i4_syntax: array<u32, 2>;
var<workgroup> i4_cbp: u32;
var<workgroup> i4_ssd: u32;
var<workgroup> i4_failed: u32;

// One block's decision: each mode's SATD cost, the candidates in order, and what coding
// each of them gave.
var<workgroup> mode_cost: array<u32, 9>;
var<workgroup> mode_pred: array<Block, 9>;
var<workgroup> candidates: array<u32, 5>;
var<workgroup> n_candidates: u32;
var<workgroup> cand_ok: array<u32, 5>;
var<workgroup> cand_cost: array<vec2<u32>, 5>;
var<workgroup> cand_levels: array<Block, 5>;
var<workgroup> cand_recon: array<Block, 5>;
var<workgroup> cand_ssd: array<u32, 5>;
var<workgroup> cand_bits: array<u32, 5>;

// Most candidates coded per block (`RD_CANDIDATES`).
const RD_CANDIDATES: u32 = 5u;

// The raster index of luma4x4BlkIdx `idx`, and back.
fn raster_of(idx: u32) -> u32 {
    let bx = ((idx >> 2u) & 1u) * 2u + (idx & 1u);
    let by = (idx >> 3u) * 2u + ((idx >> 1u) & 1u);
    return by * 4u + bx;
}

fn blk_idx(bx: u32, by: u32) -> u32 {
    return (by / 2u) * 8u + (bx / 2u) * 4u + (by % 2u) * 2u + bx % 2u;
}

// A block's edge (`Edge::of_block`): p[x, -1] for x = -1..7 in `t`, p[-1, y] for
// y = -1..3 in `l`, and which of top, left and corner exist.
struct Edge4 {
    t: array<i32, 9>,
    l: array<i32, 5>,
    has_top: bool,
    has_left: bool,
    has_corner: bool,
}

fn edge_of(bx: u32, by: u32, mb_top: bool, mb_left: bool, mb_top_right: bool) -> Edge4 {
    var e: Edge4;
    var top4 = vec4<i32>(0);
    var tr4 = vec4<i32>(0);
    var has_tr = false;
    if by > 0u {
        e.has_top = true;
        top4 = i4_recon[(by - 1u) * 4u + bx].r3;
        if bx < 3u && blk_idx(bx + 1u, by - 1u) < blk_idx(bx, by) {
            has_tr = true;
            tr4 = i4_recon[(by - 1u) * 4u + bx + 1u].r3;
        }
    } else {
        e.has_top = mb_top;
        if mb_top {
            top4 = vec4<i32>(top_y[bx * 4u], top_y[bx * 4u + 1u], top_y[bx * 4u + 2u], top_y[bx * 4u + 3u]);
            if bx < 3u {
                has_tr = true;
                tr4 = vec4<i32>(top_y[bx * 4u + 4u], top_y[bx * 4u + 5u], top_y[bx * 4u + 6u], top_y[bx * 4u + 7u]);
            } else if mb_top_right {
                has_tr = true;
                tr4 = vec4<i32>(top_right_y[0], top_right_y[1], top_right_y[2], top_right_y[3]);
            }
        }
    }
    if !has_tr {
        tr4 = vec4<i32>(top4.w);
    }
    var left4 = vec4<i32>(0);
    if bx > 0u {
        e.has_left = true;
        let b = i4_recon[by * 4u + bx - 1u];
        left4 = vec4<i32>(b.r0.w, b.r1.w, b.r2.w, b.r3.w);
    } else {
        e.has_left = mb_left;
        if mb_left {
            left4 = vec4<i32>(left_y[by * 4u], left_y[by * 4u + 1u], left_y[by * 4u + 2u], left_y[by * 4u + 3u]);
        }
    }
    var c = 0;
    if bx > 0u && by > 0u {
        e.has_corner = true;
        c = i4_recon[(by - 1u) * 4u + bx - 1u].r3.w;
    } else if by > 0u {
        e.has_corner = mb_left;
        c = select(0, left_y[max(by * 4u, 1u) - 1u], mb_left);
    } else if bx > 0u {
        e.has_corner = mb_top;
        c = select(0, top_y[max(bx * 4u, 1u) - 1u], mb_top);
    } else {
        e.has_corner = mb_top && mb_left;
        c = select(0, corner[0], mb_top && mb_left);
    }
    e.t = array<i32, 9>(c, top4.x, top4.y, top4.z, top4.w, tr4.x, tr4.y, tr4.z, tr4.w);
    e.l = array<i32, 5>(c, left4.x, left4.y, left4.z, left4.w);
    return e;
}

// Code the I_NxN luma at `qp` (`forced`: a mode + 1 to force where available, 0 none)
// into the i4_ state; `i4_failed` is nonzero after it when some block cannot be coded.
// Every invocation of the workgroup calls it.
fn luma4x4(lane: u32, qp: u32, forced: u32, mb_top: bool, mb_left: bool, mb_top_right: bool) {
    if lane == 0u {
        i4_syntax[0] = 0u;
        i4_syntax[1] = 0u;
        i4_cbp = 0u;
        i4_ssd = 0u;
        i4_failed = 0u;
    }
    let lambda = rate_tables[RT_LAMBDA + qp];
    for (var idx = 0u; idx < 16u; idx++) {
        let raster = raster_of(idx);
        let bx = raster % 4u;
        let by = raster / 4u;
        // Reads of the blocks coded before (their reconstruction, modes, TotalCoeff).
        workgroupBarrier();
        let e = edge_of(bx, by, mb_top, mb_left, mb_top_right);
        let a = select(left_modes[by], i4_modes[max(raster, 1u) - 1u], bx > 0u);
        let b = select(top_modes[bx], i4_modes[max(raster, 4u) - 4u], by > 0u);
        var pred_mode = 2u;
        if a != NONE && b != NONE {
            pred_mode = min(a, b);
        }
        let src = src_blocks[raster];
        if lane < 9u {
            var cost = NONE;
            if i4_mode_available(lane, e.has_top, e.has_left, e.has_corner) {
                let p = predict4x4(lane, e.t, e.l, e.has_top, e.has_left);
                mode_pred[lane] = p;
                cost = hadamard_abs_sum(block_sub(p, src)) / 2u + lambda * select(4u, 1u, lane == pred_mode);
            }
            mode_cost[lane] = cost;
        }
        workgroupBarrier();
        // The forced mode where it predicts; else the available modes by SATD cost, ties
        // in mode order (the twin's stable sort), the cheapest five: each mode finds its
        // own place.
        let forcing = forced != 0u && mode_cost[forced - 1u] != NONE;
        if lane < 9u && mode_cost[lane] != NONE && !forcing {
            let cost = mode_cost[lane];
            var place = 0u;
            for (var m = 0u; m < 9u; m++) {
                let c = mode_cost[m];
                if c != NONE && (c < cost || (c == cost && m < lane)) {
                    place++;
                }
            }
            if place < RD_CANDIDATES {
                candidates[place] = lane;
            }
        }
        if lane == 0u {
            var n = 0u;
            for (var m = 0u; m < 9u; m++) {
                n += select(0u, 1u, mode_cost[m] != NONE);
            }
            n_candidates = select(min(n, RD_CANDIDATES), 1u, forcing);
            if forcing {
                candidates[0] = forced - 1u;
            }
        }
        workgroupBarrier();
        if lane < n_candidates {
            let mode = candidates[lane];
            let p = mode_pred[mode];
            let z = quant4x4(forward4x4(block_sub(src, p)), qp);
            let scan = zigzag(block_array(z));
            let ok = !beyond_escape(z) || codable(scan, 16u);
            let tc = block_nonzero(z);
            var rec = p;
            if tc != 0u {
                rec = block_add_clamped(p, inverse4x4(dequant4x4(z, qp)));
            }
            let ssd = block_ssd(src, rec);
            let at = select(left_tc[by], i4_tc[max(raster, 1u) - 1u], bx > 0u);
            let above = select(top_tc[bx], i4_tc[max(raster, 4u) - 4u], by > 0u);
            let bits = block_bits(scan, 16u, nc_of(at, above));
            cand_ok[lane] = select(0u, 1u, ok);
            cand_cost[lane] = rd_cost(ssd, select(4u, 1u, mode == pred_mode) + bits, qp);
            cand_levels[lane] = z;
            cand_recon[lane] = rec;
            cand_ssd[lane] = ssd;
            cand_bits[lane] = bits;
        }
        workgroupBarrier();
        if lane == 0u {
            // The first candidate of least cost.
            var best = NONE;
            for (var k = 0u; k < n_candidates; k++) {
                if cand_ok[k] != 0u && (best == NONE || cost_less(cand_cost[k], cand_cost[best])) {
                    best = k;
                }
            }
            if best == NONE {
                i4_failed = 1u;
            } else {
                let mode = candidates[best];
                let z = cand_levels[best];
                i4_modes[raster] = mode;
                var field = 8u;
                if mode != pred_mode {
                    field = select(mode - 1u, mode, mode < pred_mode);
                }
                i4_syntax[idx / 8u] |= field << (4u * (idx % 8u));
                i4_levels[raster] = z;
                i4_recon[raster] = cand_recon[best];
                let tc = block_nonzero(z);
                i4_tc[raster] = tc;
                i4_bits[raster] = cand_bits[best];
                if tc != 0u {
                    i4_cbp |= 1u << ((by / 2u) * 2u + bx / 2u);
                }
                i4_ssd += cand_ssd[best];
            }
        }
        if workgroupUniformLoad(&i4_failed) != 0u {
            return;
        }
    }
    workgroupBarrier();
}

// The bits of the I_NxN luma just coded (`luma4x4_bits`) with the chroma's
// coded_block_pattern: header, and every block of a coded 8x8 quadrant.
fn luma4x4_bits(cbp_chroma: u32) -> u32 {
    var bits = intra4x4_header_bits(i4_syntax[0], i4_syntax[1], i4_cbp | (cbp_chroma << 4u));
    for (var raster = 0u; raster < 16u; raster++) {
        if (i4_cbp & (1u << ((raster / 8u) * 2u + (raster % 4u) / 2u))) != 0u {
            bits += i4_bits[raster];
        }
    }
    return bits;
}
