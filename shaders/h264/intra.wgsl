// The H.264 intra front end on the GPU: per macroblock the luma as I_16x16 (its mode by
// SATD) or I_NxN (every 4x4 block's mode by rate and distortion), whichever the luma
// modes allow and costs less in squared error plus lambda2 times bits; the chroma by
// SATD; forward transform, quantization (a coarser QP where Baseline CAVLC cannot code a
// level), reconstruction, and the levels and headers the CAVLC stages read.
// CPU twin: src/h264/macroblock.rs `encode_mb` through src/h264/slices.rs
// `encode_picture_levels` (src/h264/intra.rs holds the Rust side); the I_NxN luma is
// h264/intra4x4.wgsl, the twin of src/h264/intra4x4.rs.
//
// One workgroup of 32 invocations per macroblock (a macroblock takes a whole warp of 32
// anyway), invocation b < 16 working on luma 4x4 block b (raster), invocations 16..23 on
// chroma block b - 16 (Cb 0..3, Cr 4..7) in the same instructions, invocations 24..31
// computing as b - 16 does and writing nothing; in the I_NxN luma all 32 work, sixteen a
// block (h264/intra4x4.wgsl). A macroblock needs its left, top-left, top and top-right
// neighbours done; it reads what it needs of them from their published edges (`state`).
// Two schedules, the same output:
// - entry `chained`: one dispatch for the whole batch. Each workgroup takes a ticket;
//   tickets run over the macroblocks wave by wave (below), so every neighbour has a
//   smaller ticket, taken by a workgroup already running, and a macroblock waits only
//   for the edge words it reads, each published with a flag of its own (relaxed
//   atomics promise nothing across locations, so every word carries its own).
// - entry `wave`: a dispatch per wave of every slice of every picture of the batch: the
//   macroblocks where x + 2 * row (row within the slice) equals `wave`, whose neighbours
//   earlier waves (earlier dispatches) coded; for a platform where workgroups waiting on
//   others might not progress.
// Entry `write_headers`: one invocation per macroblock, after the last wave: mb_qp_delta
// against the QP of the last macroblock before it that codes one.

//!import h264/intra4x4

// keep in sync with src/h264/intra.rs `IntraParams`
struct IntraParams {
    width: u32,
    height: u32,
    chroma_width: u32,
    chroma_height: u32,
    width_mbs: u32,
    height_mbs: u32,
    rows_per_slice: u32,
    qp: u32,
    src_words: u32, // words of one source picture (Y, Cb, Cr planes back to back)
    recon_words: u32, // words of one reconstruction (planes padded to whole macroblocks)
    n_mbs: u32,
    wave: u32,      // `wave`: the wave this dispatch codes
    first_row: u32, // `wave`: the lowest row (within a slice) the wave holds
    pictures: u32,
    luma: u32, // LUMA_16X16 | LUMA_4X4: the luma kinds allowed
    forced: u32, // an Intra4x4PredMode + 1 that every block takes where it can; 0 none
    keep_recon: u32, // nonzero: `recon` is written (only the host reads it)
    pad1: u32,
    pad2: u32,
    pad3: u32,
}

const LUMA_16X16: u32 = 1u;
const LUMA_4X4: u32 = 2u;

@group(0) @binding(0) var<uniform> params: IntraParams;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> recon: array<u32>;
// 24 blocks of 16 levels per macroblock as i16 pairs (level 2k in the low half), the
// layout of src/cavlc/frame.rs `Frame::levels`.
@group(0) @binding(3) var<storage, read_write> levels: array<u32>;
// Per macroblock: I_16x16 luma mode | chroma mode << 2 | I_16x16 luma AC << 4 |
// cbp_chroma << 5 | qp << 8 | not codable even at QP 51 << 14 | I_NxN << 15 |
// I_NxN cbp_luma << 16.
@group(0) @binding(4) var<storage, read_write> choices: array<u32>;
// src/cavlc/frame.rs `MbHeader`, 8 words each.
@group(0) @binding(5) var<storage, read_write> mb_headers: array<u32>;
// Zeroed before each batch. STATE_NOT_CODABLE: nonzero when some macroblock could not be
// coded; STATE_TICKET: the next ticket (`chained`); STATE_STALLED: nonzero when a
// macroblock gave up waiting for a neighbour (its output is wrong, the batch an error);
// then EDGE_WORDS per macroblock of the batch: its edges as its neighbours read them.
@group(0) @binding(6) var<storage, read_write> state: array<atomic<u32>>;
// Per macroblock, what its header needs: the I_NxN mode syntax.
@group(0) @binding(7) var<storage, read_write> mb_info: array<u32>;
const INFO_WORDS: u32 = 2u;

// keep in sync with src/h264/intra.rs
const STATE_NOT_CODABLE: u32 = 0u;
const STATE_TICKET: u32 = 1u;
const STATE_STALLED: u32 = 2u;
const EDGES_AT: u32 = 4u;
const EDGE_WORDS: u32 = 32u;
// A macroblock's edges, three samples (or four 4-bit modes, or four 6-bit TotalCoeffs) a
// word below EDGE_VALID: the bottom row and right column of its reconstructed luma (16
// samples each) and chroma (Cb's 8, then Cr's), the Intra4x4PredMode (2 for I_16x16) of
// its right column's and bottom row's blocks, and their TotalCoeff.
const EDGE_BOTTOM_Y: u32 = 0u;
const EDGE_RIGHT_Y: u32 = 6u;
const EDGE_BOTTOM_C: u32 = 12u;
const EDGE_RIGHT_C: u32 = 18u;
const EDGE_RIGHT_MODES: u32 = 24u;
const EDGE_BOTTOM_MODES: u32 = 25u;
const EDGE_RIGHT_TC: u32 = 26u;
const EDGE_BOTTOM_TC: u32 = 27u;
const EDGE_USED: u32 = 28u;
const EDGE_VALID: u32 = 0x80000000u;
// Rounds of polling its neighbours' edges before a macroblock gives up (about a second on
// a GPU, where a neighbour takes microseconds).
const SPIN_LIMIT: u32 = 0x100000u;

// cbp_chroma from the chroma flags: 2 with an AC level, else 1 with a DC level, else 0.
fn cbp_chroma_of(seen: u32) -> u32 {
    return select(select(0u, 1u, (seen & 8u) != 0u), 2u, (seen & 4u) != 0u);
}

// SATD sums: luma modes 0..3, Cb modes 4..7, Cr modes 8..11.
var<workgroup> satd_sums: array<atomic<u32>, 12>;
var<workgroup> luma_dc_coeffs: array<i32, 16>;
var<workgroup> chroma_dc_coeffs: array<i32, 8>;
var<workgroup> luma_dc_levels: array<i32, 16>;
var<workgroup> chroma_dc_levels: array<i32, 8>;
// Bit 0: a chroma block not codable at this QP; 1: an I_16x16 luma AC level; 2: a
// chroma AC level; 3: a chroma DC level; 4: an I_16x16 luma block not codable.
var<workgroup> flags: atomic<u32>;
var<workgroup> flags_seen: u32;
// The I_16x16 luma's cost at this QP: squared error and bits, summed over the blocks;
// its blocks' TotalCoeff (AC levels).
var<workgroup> i16_ssd: atomic<u32>;
var<workgroup> i16_bits: atomic<u32>;
var<workgroup> i16_tc: array<u32, 16>;
// 1 where the macroblock codes I_NxN.
var<workgroup> chose_4x4: u32;

fn src_byte(at: u32) -> i32 {
    return i32((src[at >> 2u] >> ((at & 3u) * 8u)) & 0xffu);
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

// Write a reconstructed 4x4 block at byte `at` of a plane `stride` bytes wide (4-aligned),
// where the host asked for the reconstruction.
fn store_samples(at: u32, stride: u32, b: Block) {
    if params.keep_recon == 0u {
        return;
    }
    let w = at / 4u;
    let s = stride / 4u;
    recon[w] = pack_samples(b.r0);
    recon[w + s] = pack_samples(b.r1);
    recon[w + 2u * s] = pack_samples(b.r2);
    recon[w + 3u * s] = pack_samples(b.r3);
}


// The bottom row and right column samples of the macroblock's reconstruction (luma,
// then Cb and Cr), gathered for its edges.
var<workgroup> edge_samples: array<u32, 64>;
var<workgroup> ticket: u32;

@compute @workgroup_size(32)
fn wave(@builtin(local_invocation_index) invocation: u32, @builtin(workgroup_id) group: vec3<u32>) {
    let p = params;
    let r = p.first_row + group.x; // row within the slice
    if r * 2u > p.wave || p.wave - r * 2u >= p.width_mbs {
        return;
    }
    let row = group.y * p.rows_per_slice + r;
    if r >= p.rows_per_slice || row >= p.height_mbs {
        return;
    }
    code_macroblock(invocation, group.z, p.wave - r * 2u, row, r);
}

@compute @workgroup_size(32)
fn chained(@builtin(local_invocation_index) invocation: u32) {
    if invocation == 0u {
        ticket = atomicAdd(&state[STATE_TICKET], 1u);
    }
    let t = workgroupUniformLoad(&ticket);
    if t >= params.pictures * params.n_mbs {
        return;
    }
    let at = ticket_macroblock(t);
    code_macroblock(invocation, at.x, at.w, at.y * params.rows_per_slice + at.z, at.z);
}

// Macroblocks before wave `w` in a slice of `rows` rows: the sum over its rows r of
// clamp(w - 2r, 0, width_mbs), those rows where the wave is past the row's end giving
// the whole row.
fn before_wave(w: u32, rows: u32) -> u32 {
    let wm = params.width_mbs;
    let whole = select(0u, min(rows, (w - wm) / 2u + 1u), w >= wm);
    let started = min(rows, (w + 1u) / 2u);
    return whole * wm + (started - whole) * w - (started * (started - 1u) - whole * (whole - 1u));
}

// Macroblocks of one picture before wave `w` (the last slice may be shorter).
fn picture_before_wave(w: u32) -> u32 {
    let rows = params.rows_per_slice;
    let slices = (params.height_mbs + rows - 1u) / rows;
    let last_rows = params.height_mbs - (slices - 1u) * rows;
    return (slices - 1u) * before_wave(w, rows) + before_wave(w, last_rows);
}

// The macroblock of ticket `t` as (picture, slice, row within the slice, x): tickets run
// over waves, and within a wave over pictures, slices and rows. The twin of
// src/h264/intra.rs `ticket_macroblock`.
fn ticket_macroblock(t: u32) -> vec4<u32> {
    let wm = params.width_mbs;
    let rows = params.rows_per_slice;
    let slices = (params.height_mbs + rows - 1u) / rows;
    var lo = 0u;
    var hi = wm + 2u * (rows - 1u);
    while hi - lo > 1u {
        let mid = (lo + hi) / 2u;
        if params.pictures * picture_before_wave(mid) <= t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let w = lo;
    let first = picture_before_wave(w);
    let in_wave = picture_before_wave(w + 1u) - first;
    let k = (t - params.pictures * first) % in_wave;
    let pic = (t - params.pictures * first) / in_wave;
    let in_full = before_wave(w + 1u, rows) - before_wave(w, rows);
    var slice = slices - 1u;
    var j = k - (slices - 1u) * in_full;
    if k < (slices - 1u) * in_full {
        slice = k / in_full;
        j = k % in_full;
    }
    let low = (select(0u, w + 1u - wm, w + 1u >= wm) + 1u) / 2u;
    let r = low + j;
    return vec4<u32>(pic, slice, r, w - 2u * r);
}

fn edge_sample(v: u32, i: u32) -> i32 {
    return i32((v >> (8u * i)) & 0xffu);
}

// Where neighbour edge word `e` (0..32) of the macroblock `mb` (of the batch) lies in
// `state`, or NONE where that neighbour does not exist: the upper one's bottom luma
// (0..5), chroma (6..11), modes (12) and TotalCoeff (13), the left one's right column
// (14..27 likewise), the upper left one's corner samples (28..30: sample 15 of the luma
// row, 7 of Cb's and 15 of the chroma row, Cr's 7), the upper right one's first four
// bottom samples (31, 32).
fn edge_source(e: u32, mb: u32, wm: u32, has_top: bool, has_left: bool, has_top_right: bool) -> u32 {
    var at = NONE;
    if e < 14u {
        if has_top {
            let words = array<u32, 14>(0u, 1u, 2u, 3u, 4u, 5u, 12u, 13u, 14u, 15u, 16u, 17u, EDGE_BOTTOM_MODES, EDGE_BOTTOM_TC);
            at = (mb - wm) * EDGE_WORDS + words[e];
        }
    } else if e < 28u {
        if has_left {
            let words = array<u32, 14>(6u, 7u, 8u, 9u, 10u, 11u, 18u, 19u, 20u, 21u, 22u, 23u, EDGE_RIGHT_MODES, EDGE_RIGHT_TC);
            at = (mb - 1u) * EDGE_WORDS + words[e - 14u];
        }
    } else if e < 31u {
        if has_top && has_left {
            at = (mb - wm - 1u) * EDGE_WORDS + select(select(EDGE_BOTTOM_C + 5u, EDGE_BOTTOM_C + 2u, e == 29u), EDGE_BOTTOM_Y + 5u, e == 28u);
        }
    } else if has_top_right {
        at = (mb - wm + 1u) * EDGE_WORDS + EDGE_BOTTOM_Y + e - 31u;
    }
    return select(NONE, EDGES_AT + at, at != NONE);
}

// Neighbour edge word `e` (`v`, as `edge_source` names it) into the workgroup's
// neighbour arrays; `present`: whether that neighbour exists (else its modes and
// TotalCoeff are NONE).
fn unpack_edge(e: u32, v: u32, present: bool) {
    if e == 12u || e == 13u || e == 26u || e == 27u {
        for (var i = 0u; i < 4u; i++) {
            let mode = select(NONE, (v >> (4u * i)) & 15u, present);
            let tc = select(NONE, (v >> (6u * i)) & 63u, present);
            switch e {
                case 12u: { top_modes[i] = mode; }
                case 13u: { top_tc[i] = tc; }
                case 26u: { left_modes[i] = mode; }
                default: { left_tc[i] = tc; }
            }
        }
    } else if !present {
        return;
    } else if e < 28u {
        let k = e % 14u % 6u;
        for (var i = 0u; i < 3u; i++) {
            let at = 3u * k + i;
            if at < 16u {
                let sample = edge_sample(v, i);
                if e < 6u {
                    top_y[at] = sample;
                } else if e < 12u {
                    top_c[at] = sample;
                } else if e < 20u {
                    left_y[at] = sample;
                } else {
                    left_c[at] = sample;
                }
            }
        }
    } else if e < 31u {
        corner[e - 28u] = edge_sample(v, select(0u, 1u, e == 29u));
    } else if e == 31u {
        for (var i = 0u; i < 3u; i++) {
            top_right_y[i] = edge_sample(v, i);
        }
    } else {
        top_right_y[3] = edge_sample(v, 0u);
    }
}

var<workgroup> edges_missing: atomic<u32>;
var<workgroup> edges_missing_seen: u32;

// The neighbours' edges into workgroup memory: invocation i reads word i, invocation 0
// word 32 too. The whole workgroup polls in step, a barrier between rounds, until every
// word it reads is published (a workgroup whose invocations waited apart from each other
// was seen to break on a software rasterizer, lavapipe, under load).
fn fetch_edges(invocation: u32, mb: u32, wm: u32, has_top: bool, has_left: bool, has_top_right: bool) {
    let src = edge_source(invocation, mb, wm, has_top, has_left, has_top_right);
    var src2 = NONE;
    if invocation == 0u {
        src2 = edge_source(32u, mb, wm, has_top, has_left, has_top_right);
    }
    var v = 0u;
    var v2 = 0u;
    for (var round = 0u; round < SPIN_LIMIT; round++) {
        if invocation == 0u {
            atomicStore(&edges_missing, 0u);
        }
        workgroupBarrier();
        if src != NONE && (v & EDGE_VALID) == 0u {
            v = atomicLoad(&state[src]);
        }
        if src2 != NONE && (v2 & EDGE_VALID) == 0u {
            v2 = atomicLoad(&state[src2]);
        }
        if src != NONE && (v & EDGE_VALID) == 0u || src2 != NONE && (v2 & EDGE_VALID) == 0u {
            atomicAdd(&edges_missing, 1u);
        }
        workgroupBarrier();
        if invocation == 0u {
            edges_missing_seen = atomicLoad(&edges_missing);
        }
        if workgroupUniformLoad(&edges_missing_seen) == 0u {
            break;
        }
        if round + 1u == SPIN_LIMIT && invocation == 0u {
            atomicOr(&state[STATE_STALLED], 1u);
        }
    }
    unpack_edge(invocation, v, src != NONE);
    if invocation == 0u {
        unpack_edge(32u, v2, src2 != NONE);
    }
}

// Macroblock (mbx, row) of picture `pic`, `r` its row within its slice.
fn code_macroblock(invocation: u32, pic: u32, mbx: u32, row: u32, r: u32) {
    let p = params;
    // The luma block this invocation works on, and whether it is the one that writes.
    let lane = invocation % 16u;
    let writes = invocation < 16u;
    let mb = row * p.width_mbs + mbx;
    let has_top = r > 0u;
    let has_left = mbx > 0u;
    let has_top_right = has_top && mbx + 1u < p.width_mbs;
    let allows16 = (p.luma & LUMA_16X16) != 0u;
    let allows4 = (p.luma & LUMA_4X4) != 0u;

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
    let batch_mb = pic * p.n_mbs + mb;

    // Neighbours (read only where they exist; the modes that need them are unavailable).
    fetch_edges(invocation, batch_mb, p.width_mbs, has_top, has_left, has_top_right);
    if writes && lane < 12u {
        atomicStore(&satd_sums[lane], 0u);
    }

    // This invocation's block: invocations 0..15 (and 24..31, which write nothing) luma
    // block `lane`, invocations 16..23 chroma block `cb` (Cb 0..3, Cr 4..7), so that the
    // luma's and the chroma's transforms run as one instruction stream on a warp's lanes.
    let bx = lane % 4u;
    let by = lane / 4u;
    let is_chroma = invocation >= 16u && invocation < 24u;
    let cb = invocation % 8u;
    let comp = cb / 4u; // chroma component (0 Cb, 1 Cr)
    let cbx = cb % 2u;
    let cby = (cb / 2u) % 2u;
    var src = splat_block(0);
    if is_chroma {
        let base = select(src_cb, src_cr, comp == 1u);
        src = source_block(base, p.chroma_width, p.chroma_height, cx0 + cbx * 4u, cy0 + cby * 4u);
    } else {
        src = source_block(src_base, p.width, p.height, x0 + bx * 4u, y0 + by * 4u);
    }
    if writes {
        src_blocks[lane] = src;
    }
    workgroupBarrier();

    // Mode decisions: SATD of each available prediction, summed over the blocks.
    var sum_t = 0;
    var sum_l = 0;
    for (var i = 0u; i < 16u; i++) {
        sum_t += select(0, top_y[i], has_top);
        sum_l += select(0, left_y[i], has_left);
    }
    let dc16 = dc_from_edges(sum_t, sum_l, has_top, has_left, 4u);
    var plane16 = vec3<i32>(0);
    var plane_c = vec3<i32>(0);
    var dc_c = 0;
    if has_top && has_left {
        if is_chroma {
            plane_c = plane_chroma(comp);
        } else {
            plane16 = plane_luma();
        }
    }
    if is_chroma {
        dc_c = chroma_dc_pred(comp, cbx, cby, has_top, has_left);
    }
    for (var m = 0u; m < 4u; m++) {
        var counts = writes && allows16 && luma_mode_available(m, has_top, has_left);
        if is_chroma {
            counts = chroma_mode_available(m, has_top, has_left);
        }
        if counts {
            var pred = splat_block(0);
            if is_chroma {
                pred = chroma_pred(m, comp, cbx, cby, dc_c, plane_c);
            } else {
                pred = luma_pred(m, bx, by, dc16, plane16);
            }
            atomicAdd(&satd_sums[select(m, 4u + comp * 4u + m, is_chroma)], hadamard_abs_sum(block_sub(src, pred)));
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
            // The I_16x16 mode is chosen once, with the configured QP's lambda.
            let cost = atomicLoad(&satd_sums[m]) / 2u + rate_tables[RT_LAMBDA + p.qp] * ue_bits(m);
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

    // Forward transforms of the chosen predictions' residuals, luma and chroma at once.
    var pred = splat_block(0);
    if is_chroma {
        pred = chroma_pred(chroma_mode, comp, cbx, cby, dc_c, plane_c);
    } else {
        pred = luma_pred(luma_mode, bx, by, dc16, plane16);
    }
    let w = forward4x4(block_sub(src, pred));
    if is_chroma {
        chroma_dc_coeffs[cb] = w.r0.x;
    } else if writes {
        luma_dc_coeffs[lane] = w.r0.x;
    }
    workgroupBarrier();
    var dc = 0;
    if is_chroma {
        dc = chroma_dc_transform(chroma_dc_coeffs, comp, cb % 4u);
    } else {
        dc = (hadamard_luma_dc(luma_dc_coeffs, lane) + 1) >> 1u;
    }

    // The configured QP, or the lowest coarser one at which the chroma and a luma the
    // modes allow are codable.
    var qp = p.qp;
    var ac = splat_block(0);
    var seen = 0u;
    var use4 = false;
    var codable_here = false;
    loop {
        let q = select(qp, chroma_qp(qp), is_chroma);
        if invocation == 0u {
            atomicStore(&flags, 0u);
            atomicStore(&i16_ssd, 0u);
            atomicStore(&i16_bits, 0u);
        }
        let dc_level = quant(dc, MF[q % 6u].x, 16u + q / 6u);
        if is_chroma {
            chroma_dc_levels[cb] = dc_level;
        } else if writes {
            luma_dc_levels[lane] = dc_level;
        }
        ac = quant_ac(w, q);
        workgroupBarrier();
        // Only a level beyond 2063 can be out of Baseline's reach: the scans are built
        // for the rare block that holds one.
        let not_codable = !ac_codable(ac);
        let nonzero = any_ac_nonzero(ac);
        var mine = select(0u, 16u, not_codable) | select(0u, 2u, nonzero);
        if is_chroma {
            mine = select(0u, 1u, not_codable) | select(0u, 4u, nonzero) | select(0u, 8u, dc_level != 0);
        }
        // Each DC block is checked by one invocation.
        if invocation == 0u {
            var dc: array<i32, 16>;
            var large = false;
            for (var i = 0u; i < 16u; i++) {
                dc[i] = luma_dc_levels[i];
                large = large || abs(dc[i]) > 2063;
            }
            mine |= select(0u, 16u, large && !codable(zigzag(dc), 16u));
        }
        if invocation == 1u || invocation == 2u {
            var dc: array<i32, 16>;
            var large = false;
            for (var i = 0u; i < 4u; i++) {
                dc[i] = chroma_dc_levels[(invocation - 1u) * 4u + i];
                large = large || abs(dc[i]) > 2063;
            }
            mine |= select(0u, 1u, large && !codable(dc, 4u));
        }
        if writes || is_chroma {
            atomicOr(&flags, mine);
        }
        workgroupBarrier();
        if invocation == 0u {
            flags_seen = atomicLoad(&flags);
        }
        seen = workgroupUniformLoad(&flags_seen);
        let chroma_ok = (seen & 1u) == 0u;
        let ok16 = allows16 && chroma_ok && (seen & 16u) == 0u;
        var ok4 = false;
        if allows4 && chroma_ok {
            luma4x4(invocation, qp, p.forced, has_top, has_left, has_top_right);
            ok4 = workgroupUniformLoad(&i4_failed_seen) == 0u;
        }
        let cbp_chroma = cbp_chroma_of(seen);
        if ok16 && ok4 {
            // Both codable: the one with less squared error plus lambda2 times bits
            // (`encode_mb`'s `rd`), I_16x16 where they tie.
            let rec16 = block_add_clamped(pred, luma16_residual(lane, ac, qp));
            let cbp_luma = select(0u, 15u, (seen & 2u) != 0u);
            if writes {
                atomicAdd(&i16_ssd, block_ssd(src, rec16));
                i16_tc[lane] = block_nonzero(ac);
            }
            workgroupBarrier();
            var bits = 0u;
            if cbp_luma == 15u {
                let a = select(left_tc[by], i16_tc[max(lane, 1u) - 1u], bx > 0u);
                let b = select(top_tc[bx], i16_tc[max(lane, 4u) - 4u], by > 0u);
                bits = block_bits(zigzag_rows(ac), 1u, 15u, nc_of(a, b));
            }
            if invocation == 0u {
                var dc: array<i32, 16>;
                for (var i = 0u; i < 16u; i++) {
                    dc[i] = luma_dc_levels[i];
                }
                bits += ue_bits(1u + luma_mode + 4u * cbp_chroma + select(0u, 12u, cbp_luma == 15u)) + 1u
                    + block_bits(zigzag_rows(array_block(dc)), 0u, 16u, nc_of(left_tc[0], top_tc[0]));
            }
            if writes {
                atomicAdd(&i16_bits, bits);
            }
            workgroupBarrier();
            if invocation == 0u {
                let cost16 = rd_cost(atomicLoad(&i16_ssd), atomicLoad(&i16_bits), qp);
                let cost4 = rd_cost(atomicLoad(&i4_ssd), luma4x4_bits(cbp_chroma), qp);
                chose_4x4 = select(0u, 1u, cost_less(cost4, cost16));
            }
            use4 = workgroupUniformLoad(&chose_4x4) != 0u;
        } else {
            use4 = ok4;
        }
        codable_here = ok16 || ok4;
        if codable_here || qp == 51u {
            break;
        }
        qp++;
    }

    // Reconstruction, as a decoder computes it, and what the CAVLC stages and the
    // neighbours read: the I_16x16 luma's and the chroma's residuals at once.
    let mb_word = (pic * p.n_mbs + mb) * 192u;
    var residual_dc = 0;
    if is_chroma {
        let qpc = chroma_qp(qp);
        let fc = chroma_dc_transform(chroma_dc_levels, comp, cb % 4u);
        residual_dc = ((fc * 16 * NORM[qpc % 6u].x) << (qpc / 6u)) >> 5u;
    } else {
        residual_dc = luma16_dc(lane, qp);
    }
    let rec = block_add_clamped(pred, inverse4x4(dequant_ac(with_dc(ac, residual_dc), select(qp, chroma_qp(qp), is_chroma))));
    if writes {
        let rec_at = rec_y + (y0 + by * 4u) * ys + x0 + bx * 4u;
        var tc = 0u;
        var rec_y_block = rec;
        if use4 {
            rec_y_block = i4_recon[lane];
            store_levels(mb_word + lane * 8u, i4_levels[lane]);
            tc = i4_tc[lane];
        } else {
            store_levels(mb_word + lane * 8u, with_dc(ac, luma_dc_levels[lane]));
            tc = block_nonzero(ac);
        }
        store_samples(rec_at, ys, rec_y_block);
        gather_edges(bx * 4u, by == 3u, 16u + by * 4u, bx == 3u, rec_y_block);
        i16_tc[lane] = tc;
    }
    if is_chroma {
        let base = select(rec_cb, rec_cr, comp == 1u);
        store_samples(base + (cy0 + cby * 4u) * cs + cx0 + cbx * 4u, cs, rec);
        gather_edges(32u + comp * 8u + cbx * 4u, cby == 1u, 48u + comp * 8u + cby * 4u, cbx == 1u, rec);
        store_levels(mb_word + (16u + cb) * 8u, with_dc(ac, chroma_dc_levels[cb]));
    }
    workgroupBarrier();
    publish_edges(invocation, batch_mb, use4);
    if invocation == 0u {
        let cbp_chroma = cbp_chroma_of(seen);
        var choice = luma_mode | (chroma_mode << 2u) | (((seen >> 1u) & 1u) << 4u) | (cbp_chroma << 5u)
            | (qp << 8u) | (select(1u, 0u, codable_here) << 14u);
        var syntax = array<u32, 2>(0u, 0u);
        if use4 {
            choice |= (1u << 15u) | (atomicLoad(&i4_cbp) << 16u);
            syntax = array<u32, 2>(atomicLoad(&i4_syntax[0]), atomicLoad(&i4_syntax[1]));
        }
        choices[batch_mb] = choice;
        mb_info[batch_mb * INFO_WORDS] = syntax[0];
        mb_info[batch_mb * INFO_WORDS + 1u] = syntax[1];
    }
}

// A reconstructed 4x4 block's samples on the macroblock's edges into `edge_samples`:
// its bottom row at `bottom_at` where it is in the bottom row of blocks, its right
// column at `right_at` where it is in the right column.
fn gather_edges(bottom_at: u32, is_bottom: bool, right_at: u32, is_right: bool, b: Block) {
    if is_bottom {
        edge_samples[bottom_at] = u32(b.r3.x);
        edge_samples[bottom_at + 1u] = u32(b.r3.y);
        edge_samples[bottom_at + 2u] = u32(b.r3.z);
        edge_samples[bottom_at + 3u] = u32(b.r3.w);
    }
    if is_right {
        edge_samples[right_at] = u32(b.r0.w);
        edge_samples[right_at + 1u] = u32(b.r1.w);
        edge_samples[right_at + 2u] = u32(b.r2.w);
        edge_samples[right_at + 3u] = u32(b.r3.w);
    }
}

// The macroblock's edges (after the barrier that follows `gather_edges`), a word an
// invocation, each stored with EDGE_VALID: the neighbours waiting on it may go on.
fn publish_edges(invocation: u32, batch_mb: u32, use4: bool) {
    if invocation >= EDGE_USED {
        return;
    }
    var word = 0u;
    if invocation < 24u {
        let part = invocation / 6u;
        for (var i = 0u; i < 3u; i++) {
            let k = 3u * (invocation % 6u) + i;
            if k < 16u {
                word |= edge_samples[part * 16u + k] << (8u * i);
            }
        }
    } else {
        // Right column (24, 26) or bottom row (25, 27); modes (24, 25) or TotalCoeff.
        let right = invocation % 2u == 0u;
        for (var i = 0u; i < 4u; i++) {
            let b = select(12u + i, 4u * i + 3u, right);
            if invocation < 26u {
                word |= select(2u, i4_modes[b], use4) << (4u * i);
            } else {
                word |= i16_tc[b] << (6u * i);
            }
        }
    }
    atomicStore(&state[EDGES_AT + batch_mb * EDGE_WORDS + invocation], word | EDGE_VALID);
}

// The I_16x16 residual's DC of the invocation's luma block at `qp`, from the macroblock's
// DC levels (the inverse Hadamard and scaling of clause 8.5.10).
fn luma16_dc(lane: u32, qp: u32) -> i32 {
    let shift = qp / 6u;
    let dc_scale = 16 * NORM[qp % 6u].x;
    let f = hadamard_luma_dc(luma_dc_levels, lane);
    if qp >= 36u {
        return (f * dc_scale) << (shift - 6u);
    }
    return (f * dc_scale + (1 << (5u - shift))) >> (6u - shift);
}

// The I_16x16 residual of the invocation's luma block at `qp`: its DC (`luma16_dc`), its
// AC levels scaled, inverse transformed.
fn luma16_residual(lane: u32, ac: Block, qp: u32) -> Block {
    return inverse4x4(dequant_ac(with_dc(ac, luma16_dc(lane, qp)), qp));
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
    let nxn = ((choice >> 15u) & 1u) != 0u;
    let cbp_chroma = (choice >> 5u) & 3u;
    let cbp = ((choice >> 16u) & 15u) | (cbp_chroma << 4u);
    // mb_qp_delta against the QP of the last macroblock before this one in its slice
    // that codes one (all but I_NxN without residual), else the slice QP.
    let slice_first = i - mb + (row - row % p.rows_per_slice) * p.width_mbs;
    var qp_pred = p.qp;
    for (var j = i; j > slice_first; j--) {
        let c = choices[j - 1u];
        let silent = ((c >> 15u) & 1u) != 0u && ((c >> 16u) & 15u) == 0u && ((c >> 5u) & 3u) == 0u;
        if !silent {
            qp_pred = (c >> 8u) & 63u;
            break;
        }
    }
    var delta = (i32(qp) - i32(qp_pred) + 26 + 52) % 52 - 26;
    let h = i * 8u;
    if nxn {
        if cbp == 0u {
            delta = 0;
        }
        mb_headers[h] = 0u;
        mb_headers[h + 4u] = cbp;
        mb_headers[h + 5u] = mb_info[i * INFO_WORDS];
        mb_headers[h + 6u] = mb_info[i * INFO_WORDS + 1u];
    } else {
        mb_headers[h] = 1u + (choice & 3u) + 4u * cbp_chroma + 12u * ((choice >> 4u) & 1u);
        mb_headers[h + 4u] = 0u;
        mb_headers[h + 5u] = 0u;
        mb_headers[h + 6u] = 0u;
    }
    mb_headers[h + 1u] = (choice >> 2u) & 3u;
    mb_headers[h + 2u] = u32(delta);
    mb_headers[h + 3u] = row / p.rows_per_slice;
    mb_headers[h + 7u] = 0u;
    if ((choice >> 14u) & 1u) != 0u {
        atomicOr(&state[STATE_NOT_CODABLE], 1u);
    }
}
