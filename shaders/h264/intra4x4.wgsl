// The luma of an I_NxN (Intra_4x4) macroblock, the twin of src/h264/intra4x4.rs
// `encode_luma4x4`: each block's mode by SATD plus lambda times its syntax bits, the
// cheapest five then coded and compared by squared error plus lambda2 times their bits
// (mode field and CAVLC block with its real nC), the best one transformed, quantized and
// reconstructed before the blocks that predict from it. The twin skips candidates and
// stops early where a bound shows they cannot win; the GPU codes them all and chooses
// the same (the bounds never skip a winner).
//
// The twin codes the blocks in luma4x4BlkIdx order; a block needs only its left, upper
// left, upper and upper right neighbours, so here the blocks where x + 2 * y is the same
// are coded at once: ten steps, at most two blocks each. Each block has sixteen of the
// macroblock's 32 invocations: one per mode for the predictions (all nine at once: with
// eight, the ninth mode took a second round), one per candidate for the coding, and the
// winner writes the result.

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
// squared error, and nonzero when some block cannot be coded: both blocks of a step add
// to them.
var<workgroup> i4_syntax: array<atomic<u32>, 2>;
var<workgroup> i4_cbp: atomic<u32>;
var<workgroup> i4_ssd: atomic<u32>;
var<workgroup> i4_failed: atomic<u32>;
// `i4_failed` once the luma is done, for a uniform load.
var<workgroup> i4_failed_seen: u32;

// Each of a step's two blocks' decision (index: the block's half of the workgroup): each
// mode's SATD cost and prediction, and whether each candidate codes and at what cost (the
// candidate's own invocation keeps the rest).
var<workgroup> mode_cost: array<array<u32, 9>, 2>;
var<workgroup> mode_pred: array<array<Block, 9>, 2>;
var<workgroup> cand_ok: array<array<u32, 5>, 2>;
var<workgroup> cand_cost: array<array<vec2<u32>, 5>, 2>;

// Most candidates coded per block (`RD_CANDIDATES`).
const RD_CANDIDATES: u32 = 5u;

// `half`'s mode `m` as a sort key: its SATD cost and then its number (costs stay far
// below 2^28: a 4x4 block's SATD plus lambda times 4 bits); unavailable modes last.
fn mode_key(half: u32, m: u32) -> u32 {
    let cost = mode_cost[half][m];
    return select((cost << 4u) | m, NONE, cost == NONE);
}

// Candidate `sub`'s mode among `half`'s modes ranked by SATD cost, ties in mode order
// (x), and how many candidates there are (y): the keys sorted by a network of 25
// comparisons in registers. Every invocation of the block ranks them itself, so none
// waits on another's placing (that took a barrier and a pass over all nine modes per
// mode).
fn rank_modes(half: u32, sub: u32) -> vec2<u32> {
    var k0 = mode_key(half, 0u);
    var k1 = mode_key(half, 1u);
    var k2 = mode_key(half, 2u);
    var k3 = mode_key(half, 3u);
    var k4 = mode_key(half, 4u);
    var k5 = mode_key(half, 5u);
    var k6 = mode_key(half, 6u);
    var k7 = mode_key(half, 7u);
    var k8 = mode_key(half, 8u);
    var available = 0u;
    for (var m = 0u; m < 9u; m++) {
        available += u32(mode_cost[half][m] != NONE);
    }
    var o: vec2<u32>;
    o = vec2<u32>(min(k0, k1), max(k0, k1)); k0 = o.x; k1 = o.y;
    o = vec2<u32>(min(k3, k4), max(k3, k4)); k3 = o.x; k4 = o.y;
    o = vec2<u32>(min(k6, k7), max(k6, k7)); k6 = o.x; k7 = o.y;
    o = vec2<u32>(min(k1, k2), max(k1, k2)); k1 = o.x; k2 = o.y;
    o = vec2<u32>(min(k4, k5), max(k4, k5)); k4 = o.x; k5 = o.y;
    o = vec2<u32>(min(k7, k8), max(k7, k8)); k7 = o.x; k8 = o.y;
    o = vec2<u32>(min(k0, k1), max(k0, k1)); k0 = o.x; k1 = o.y;
    o = vec2<u32>(min(k3, k4), max(k3, k4)); k3 = o.x; k4 = o.y;
    o = vec2<u32>(min(k6, k7), max(k6, k7)); k6 = o.x; k7 = o.y;
    o = vec2<u32>(min(k0, k3), max(k0, k3)); k0 = o.x; k3 = o.y;
    o = vec2<u32>(min(k3, k6), max(k3, k6)); k3 = o.x; k6 = o.y;
    o = vec2<u32>(min(k0, k3), max(k0, k3)); k0 = o.x; k3 = o.y;
    o = vec2<u32>(min(k1, k4), max(k1, k4)); k1 = o.x; k4 = o.y;
    o = vec2<u32>(min(k4, k7), max(k4, k7)); k4 = o.x; k7 = o.y;
    o = vec2<u32>(min(k1, k4), max(k1, k4)); k1 = o.x; k4 = o.y;
    o = vec2<u32>(min(k2, k5), max(k2, k5)); k2 = o.x; k5 = o.y;
    o = vec2<u32>(min(k5, k8), max(k5, k8)); k5 = o.x; k8 = o.y;
    o = vec2<u32>(min(k2, k5), max(k2, k5)); k2 = o.x; k5 = o.y;
    o = vec2<u32>(min(k1, k3), max(k1, k3)); k1 = o.x; k3 = o.y;
    o = vec2<u32>(min(k5, k7), max(k5, k7)); k5 = o.x; k7 = o.y;
    o = vec2<u32>(min(k2, k6), max(k2, k6)); k2 = o.x; k6 = o.y;
    o = vec2<u32>(min(k4, k6), max(k4, k6)); k4 = o.x; k6 = o.y;
    o = vec2<u32>(min(k2, k4), max(k2, k4)); k2 = o.x; k4 = o.y;
    o = vec2<u32>(min(k2, k3), max(k2, k3)); k2 = o.x; k3 = o.y;
    o = vec2<u32>(min(k5, k6), max(k5, k6)); k5 = o.x; k6 = o.y;
    // (A select per place: an array indexed at run time would go to memory.)
    let mine = select(select(select(select(k4, k3, sub == 3u), k2, sub == 2u), k1, sub == 1u), k0, sub == 0u);
    return vec2<u32>(mine & 15u, min(available, RD_CANDIDATES));
}

// luma4x4BlkIdx of the block at (bx, by).
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
// into the i4_ state; `i4_failed_seen` is nonzero after it when some block cannot be
// coded.
// Every invocation of the workgroup (32, `lane` its index) calls it.
fn luma4x4(lane: u32, qp: u32, forced: u32, mb_top: bool, mb_left: bool, mb_top_right: bool) {
    if lane < 2u {
        atomicStore(&i4_syntax[lane], 0u);
    }
    if lane == 0u {
        atomicStore(&i4_cbp, 0u);
        atomicStore(&i4_ssd, 0u);
        atomicStore(&i4_failed, 0u);
    }
    let lambda = rate_tables[RT_LAMBDA + qp];
    let half = lane / 16u; // which of the step's blocks
    let sub = lane % 16u;
    for (var step = 0u; step < 10u; step++) {
        // The blocks (x, y) with x + 2 * y = step, by y: this half's is the first's y plus
        // `half`, where there is one.
        let y_first = select(0u, (step - 2u) / 2u, step >= 4u);
        let by = y_first + half;
        let has_block = by <= min(3u, step / 2u) && step - 2u * by <= 3u;
        let bx = select(0u, step - 2u * by, has_block);
        let raster = by * 4u + bx;
        // Reads of the blocks coded before (their reconstruction, modes, TotalCoeff).
        workgroupBarrier();
        var e: Edge4;
        var pred_mode = 2u;
        var src = splat_block(0);
        if has_block {
            e = edge_of(bx, by, mb_top, mb_left, mb_top_right);
            let a = select(left_modes[by], i4_modes[max(raster, 1u) - 1u], bx > 0u);
            let b = select(top_modes[bx], i4_modes[max(raster, 4u) - 4u], by > 0u);
            if a != NONE && b != NONE {
                pred_mode = min(a, b);
            }
            src = src_blocks[raster];
            if sub == 0u {
                i4_store_line(half, e.t, e.l);
            }
        }
        // The line written.
        workgroupBarrier();
        if has_block {
            let dc = dc_from_edges(e.t[1] + e.t[2] + e.t[3] + e.t[4], e.l[1] + e.l[2] + e.l[3] + e.l[4], e.has_top, e.has_left, 2u);
            if sub < 9u {
                let m = sub;
                var cost = NONE;
                if i4_mode_available(m, e.has_top, e.has_left, e.has_corner) {
                    let p = predict4x4(m, half, dc);
                    mode_pred[half][m] = p;
                    cost = hadamard_abs_sum(block_sub(p, src)) / 2u + lambda * select(4u, 1u, m == pred_mode);
                }
                mode_cost[half][m] = cost;
            }
        }
        workgroupBarrier();
        // The forced mode where it predicts; else candidate `sub` is the mode with `sub`
        // modes before it by SATD cost, ties in mode order (the twin's stable sort).
        var n_candidates = 0u;
        var mode = 0u;
        if has_block {
            if forced != 0u && mode_cost[half][forced - 1u] != NONE {
                n_candidates = 1u;
                mode = forced - 1u;
            } else {
                let ranked = rank_modes(half, sub);
                n_candidates = ranked.y;
                if sub < n_candidates {
                    mode = ranked.x;
                }
            }
        }
        // This candidate's coding, kept by its invocation: the winner writes it.
        var z = splat_block(0);
        var rec = splat_block(0);
        var tc = 0u;
        var ssd = 0u;
        var bits = 0u;
        if sub < n_candidates {
            let p = mode_pred[half][mode];
            z = quant4x4(forward4x4(block_sub(src, p)), qp);
            let ok = !beyond_escape(z) || codable(zigzag_block(z), 16u);
            tc = block_nonzero(z);
            rec = p;
            if tc != 0u {
                rec = block_add_clamped(p, inverse4x4(dequant4x4(z, qp)));
            }
            ssd = block_ssd(src, rec);
            let at = select(left_tc[by], i4_tc[max(raster, 1u) - 1u], bx > 0u);
            let above = select(top_tc[bx], i4_tc[max(raster, 4u) - 4u], by > 0u);
            bits = block_bits(zigzag_rows(z), 0u, 16u, nc_of(at, above));
            cand_ok[half][sub] = select(0u, 1u, ok);
            cand_cost[half][sub] = rd_cost(ssd, select(4u, 1u, mode == pred_mode) + bits, qp);
        }
        workgroupBarrier();
        if sub < n_candidates {
            // The first candidate of least cost writes the block.
            var best = NONE;
            for (var k = 0u; k < n_candidates; k++) {
                if cand_ok[half][k] != 0u && (best == NONE || cost_less(cand_cost[half][k], cand_cost[half][best])) {
                    best = k;
                }
            }
            if best == NONE {
                if sub == 0u {
                    atomicOr(&i4_failed, 1u);
                }
            } else if sub == best {
                i4_modes[raster] = mode;
                var field = 8u;
                if mode != pred_mode {
                    field = select(mode - 1u, mode, mode < pred_mode);
                }
                let idx = blk_idx(bx, by);
                atomicOr(&i4_syntax[idx / 8u], field << (4u * (idx % 8u)));
                i4_levels[raster] = z;
                i4_recon[raster] = rec;
                i4_tc[raster] = tc;
                i4_bits[raster] = bits;
                if tc != 0u {
                    atomicOr(&i4_cbp, 1u << ((by / 2u) * 2u + bx / 2u));
                }
                atomicAdd(&i4_ssd, ssd);
            }
        }
    }
    // (A block that cannot be coded leaves the ones after it predicting from nothing: the
    // whole I_NxN luma is dropped then.)
    workgroupBarrier();
    if lane == 0u {
        i4_failed_seen = atomicLoad(&i4_failed);
    }
    workgroupBarrier();
}

// The bits of the I_NxN luma just coded (`luma4x4_bits`) with the chroma's
// coded_block_pattern: header, and every block of a coded 8x8 quadrant.
fn luma4x4_bits(cbp_chroma: u32) -> u32 {
    let cbp = atomicLoad(&i4_cbp);
    var bits = intra4x4_header_bits(atomicLoad(&i4_syntax[0]), atomicLoad(&i4_syntax[1]), cbp | (cbp_chroma << 4u));
    for (var raster = 0u; raster < 16u; raster++) {
        if (cbp & (1u << ((raster / 8u) * 2u + (raster % 4u) / 2u))) != 0u {
            bits += i4_bits[raster];
        }
    }
    return bits;
}
