// JPEG 2000 tier-1 (EBCOT, ISO/IEC 15444-1 Annex D) of many code-blocks, one workgroup
// per code-block: the fast-mode paper's one-kernel strategy (Algorithm 1). Each
// invocation owns CPI consecutive stripe columns in scan order, so an exclusive scan of
// per-invocation symbol counts places every symbol of a pass. Per bit-plane:
// - context modelling is sample-parallel: significance lives in two bitmaps of 4-bit
//   stripe-column nibbles, `cur` (now) and `snap` (at the start of the pass); a
//   neighbour earlier in scan order is read from `cur`, a later one from `snap`, which is
//   exactly what the serial coder sees. The SPP's membership (a sample joins when a
//   neighbour is significant, including one that turned significant earlier in this very
//   pass) is the least fixed point of a monotone sweep, reached by repeating the sweep
//   until no invocation sets a new bit;
// - raw (bypassed) SPP and MRP bits go by scan offset and atomicOr into workgroup memory,
//   are bit-stuffed in parallel (common/bitstuff_wg.wgsl, the paper's Algorithm 2) and
//   terminated like OpenJPEG's opj_mqc_bypass_flush_enc;
// - MQ-coded passes: the invocations write their context-decision pairs (one byte each,
//   in rounds of PAIR_CAP) to workgroup memory and invocation 0 codes them (OpenJPEG's
//   encoder: C.2 with its flush and pass-length rules).
// Context modelling: j2k/t1_model.wgsl; MQ coder: j2k/mq.wgsl; raw segments:
// j2k/t1_raw.wgsl. Host: src/j2k/tier1/gpu.rs; CPU twin: src/j2k/tier1
// (encode_code_block).
//!import common/wg_scan
//!import j2k/t1_model
//!import j2k/mq
//!import j2k/t1_raw

// An MQ-coded pass: count, place by scan, code in rounds of PAIR_CAP pairs.
fn mq_pass(inv: Invocation, kind: u32, p: u32, plane: u32, last: bool) {
    var own = vec2<u32>(0u, 0u);
    if lane == 0u && prev_term {
        mq_start();
    }
    var total = 0u;
    for (var step = 0u; step < pairs_steps(total); step++) {
        total = pairs_step(inv, kind, p, step, total, &own);
        if step > 0u && lane == 0u {
            let round = min(PAIR_CAP, total - (step - 1u) * PAIR_CAP);
            // Eight pairs per iteration (few loop iterations, see mq_renorm).
            for (var w = 0u; w * 4u < round; w += 2u) {
                mq_encode_word(atomicLoad(&pairs[w]), round - w * 4u);
                if (w + 1u) * 4u < round {
                    mq_encode_word(atomicLoad(&pairs[w + 1u]), round - (w + 1u) * 4u);
                }
            }
        }
        workgroupBarrier();
    }
    if lane == 0u {
        let term = is_term(kind, plane, last);
        if term {
            mq_flush();
            record_pass(out_len | PASS_TERM);
        } else {
            record_pass(mq_open_rate());
        }
        prev_term = term;
    }
}

// The raw SPP and MRP of plane p: bits by scan offset into the bit-stuffer's workgroup
// buffer, stuffed in parallel and terminated (common/bitstuff_wg.wgsl), appended to the
// output.
fn raw_passes(inv: Invocation, p: u32) {
    var n_spp = 0u;
    let total = raw_place(inv, p, &n_spp);
    raw_segment(inv, total, n_spp);
}

fn encode_block(inv: Invocation, index: u32) {
    let desc = blocks[index];
    out_base = desc.out_word;
    out_cap_words = desc.cap_words;
    res_base = desc.result;
    let max_mag = load_block(desc);
    let numbps = 32u - countLeadingZeros(max_mag);
    if lane == 0u {
        out_len = 0u;
        out_tail = 0u;
        n_passes = 0u;
        prev_term = false;
        mq_reset_contexts();
        mq_start();
    }
    for (var plane = 1u; plane <= numbps; plane++) {
        let p = numbps - plane;
        let last = p == 0u;
        pi = 0u;
        // The plane's MQ-coded passes, from SPP (or CUP alone on the first plane and
        // where SPP and MRP go raw), through one call of mq_pass: every call site is a
        // copy of the walks once the driver inlines it, and copies cost compile time
        // (seconds on a cold driver cache).
        var first_mq = PASS_CUP;
        if plane > 1u {
            snapshot();
            spp_settle(p);
            if is_raw_plane(plane) {
                raw_passes(inv, p);
            } else {
                first_mq = PASS_SPP;
            }
        }
        for (var kind = first_mq; kind <= PASS_CUP; kind++) {
            if kind == PASS_CUP {
                snapshot();
                cup_mark(p);
                workgroupBarrier();
            }
            mq_pass(inv, kind, p, plane, last);
        }
    }
    if lane == 0u {
        out_flush_tail();
        results[res_base] = out_len;
        results[res_base + 1u] = numbps;
        results[res_base + 2u] = n_passes;
    }
    workgroupBarrier();
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    lane = scan_lane(inv);
    if inv.lid < 47u {
        qe[inv.lid] = qe_row(inv.lid);
    }
    let grid = workgroup_grid(inv);
    for (var b = grid.x; b < params.n_blocks; b += grid.y) {
        encode_block(inv, b);
    }
}

