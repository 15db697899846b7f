// JPEG 2000 tier-1 by the fast-mode paper's three-kernel strategy: per bit-plane k
// (1-based from each code-block's most significant), three dispatches over all
// code-blocks, the blocks' state kept in global memory between them:
// - `cm`, one workgroup per code-block: the plane's context modelling (j2k/t1_model),
//   its context-decision pairs (SPP, MRP and CUP of an MQ plane, the CUP of a bypassed
//   one; each pass from a word boundary) and the raw SPP+MRP bits to `scratch`;
// - `raw`, one workgroup per code-block: a bypassed plane's raw segment, stuffed in
//   parallel (common/bitstuff_wg), terminated and appended (j2k/t1_raw);
// - `mq`, one invocation per code-block: the plane's MQ passes (j2k/mq).
// Same bytes as the one-kernel strategy (shaders/j2k/tier1.wgsl). Host:
// src/j2k/tier1/gpu.rs; CPU twin: src/j2k/tier1 (encode_code_block).
//!import common/wg_scan
//!import j2k/t1_model
//!import j2k/mq
//!import j2k/t1_raw

// Per-block state (keep in sync with src/j2k/tier1/gpu.rs `SPLIT_STATE_WORDS`).
const STATE_WORDS: u32 = 176u;
const ST_NUMBPS: u32 = 128u; // words 0-127: the significance map
const ST_OUT_LEN: u32 = 129u;
const ST_OUT_TAIL: u32 = 130u;
const ST_PASSES: u32 = 131u;
const ST_PREV_TERM: u32 = 132u;
const ST_A: u32 = 133u;
const ST_C: u32 = 134u;
const ST_CT: u32 = 135u;
const ST_B: u32 = 136u;
const ST_HAS_B: u32 = 137u;
const ST_CTX: u32 = 138u; // 19 words
const ST_PAIRS: u32 = 157u; // pairs of the plane's SPP, MRP, CUP
const ST_RAW_BITS: u32 = 160u;
const ST_RAW_SPP: u32 = 161u;
// Per-block scratch (keep in sync with src/j2k/tier1/gpu.rs `SPLIT_SCRATCH_WORDS`): a
// plane's pairs (at most 2.5 per sample: 10240 bytes, plus word alignment per pass),
// then its raw bits (at most 2 per sample).
const SCRATCH_PAIR_WORDS: u32 = 2816u;
const SCRATCH_WORDS: u32 = 3073u;

@group(0) @binding(5) var<storage, read_write> state: array<u32>;
@group(0) @binding(6) var<storage, read_write> scratch: array<u32>;

// Coders (code-blocks) per workgroup of `mq`.
override MQ_WG: u32 = 64u;

fn pair_words(n: u32) -> u32 {
    return (n + 3u) / 4u;
}

// A pass's pairs to scratch from word `at`, in rounds through workgroup memory.
fn pairs_to_scratch(inv: Invocation, kind: u32, p: u32, base: u32, at: u32) -> u32 {
    var own = vec2<u32>(0u, 0u);
    var total = 0u;
    for (var step = 0u; step < pairs_steps(total); step++) {
        total = pairs_step(inv, kind, p, step, total, &own);
        if step > 0u {
            let lo = (step - 1u) * PAIR_CAP;
            let words = pair_words(min(PAIR_CAP, total - lo));
            for (var w = lane; w < words; w += WG_SIZE) {
                scratch[base + at + lo / 4u + w] = atomicLoad(&pairs[w]);
            }
            workgroupBarrier();
        }
    }
    return total;
}

fn cm_block(inv: Invocation, index: u32) {
    let desc = blocks[index];
    let st = index * STATE_WORDS;
    let base = index * SCRATCH_WORDS;
    let plane = params.plane;
    let numbps = 32u - countLeadingZeros(load_block(desc));
    if plane == 1u && lane == 0u {
        state[st + ST_NUMBPS] = numbps;
        state[st + ST_OUT_LEN] = 0u;
        state[st + ST_OUT_TAIL] = 0u;
        state[st + ST_PASSES] = 0u;
        state[st + ST_PREV_TERM] = 0u;
        state[st + ST_A] = 0x8000u;
        state[st + ST_C] = 0u;
        state[st + ST_CT] = 12u;
        state[st + ST_B] = 0u;
        state[st + ST_HAS_B] = 0u;
        for (var i = 0u; i < 19u; i++) {
            state[st + ST_CTX + i] = select(0u, select(select(4u, 3u, i == 17u), 46u, i == 18u), i == 0u || i >= 17u);
        }
        if numbps == 0u {
            results[desc.result] = 0u;
            results[desc.result + 1u] = 0u;
            results[desc.result + 2u] = 0u;
        }
    }
    if plane > numbps {
        workgroupBarrier();
        return;
    }
    if plane > 1u {
        for (var w = lane; w < MAP_WORDS; w += WG_SIZE) {
            atomicStore(&cur[w], state[st + w]);
        }
        workgroupBarrier();
    }
    let p = numbps - plane;
    pi = 0u;
    // Pairs of the plane's MQ passes, through one call of pairs_to_scratch (each call
    // site is a copy of the walks once inlined, and copies cost compile time).
    var counts = vec3<u32>(0u, 0u, 0u);
    var first = PASS_CUP;
    if plane > 1u {
        snapshot();
        spp_settle(p);
        if is_raw_plane(plane) {
            var raw_spp = 0u;
            let total = raw_place(inv, p, &raw_spp);
            workgroupBarrier();
            for (var w = lane; w < (total + 31u) / 32u; w += WG_SIZE) {
                scratch[base + SCRATCH_PAIR_WORDS + w] = atomicLoad(&bs_bits[w]);
            }
            if lane == 0u {
                state[st + ST_RAW_BITS] = total;
                state[st + ST_RAW_SPP] = raw_spp;
            }
        } else {
            first = PASS_SPP;
        }
    }
    var at = 0u;
    for (var kind = first; kind <= PASS_CUP; kind++) {
        if kind == PASS_CUP {
            snapshot();
            cup_mark(p);
            workgroupBarrier();
        }
        counts[kind] = pairs_to_scratch(inv, kind, p, base, at);
        at += pair_words(counts[kind]);
    }
    for (var w = lane; w < MAP_WORDS; w += WG_SIZE) {
        state[st + w] = atomicLoad(&cur[w]);
    }
    if lane == 0u {
        state[st + ST_PAIRS] = counts.x;
        state[st + ST_PAIRS + 1u] = counts.y;
        state[st + ST_PAIRS + 2u] = counts.z;
    }
    workgroupBarrier();
}

@compute @workgroup_size(WG_SIZE)
fn cm(inv: Invocation) {
    lane = scan_lane(inv);
    let grid = workgroup_grid(inv);
    for (var b = grid.x; b < params.n_blocks; b += grid.y) {
        cm_block(inv, b);
    }
}

fn raw_block(inv: Invocation, index: u32) {
    let st = index * STATE_WORDS;
    if lane == 0u {
        let numbps = state[st + ST_NUMBPS];
        wg_value = select(0u, 1u, params.plane <= numbps && is_raw_plane(params.plane));
    }
    if workgroupUniformLoad(&wg_value) == 0u {
        return;
    }
    let desc = blocks[index];
    out_base = desc.out_word;
    out_cap_words = desc.cap_words;
    res_base = desc.result;
    if lane == 0u {
        out_len = state[st + ST_OUT_LEN];
        out_tail = state[st + ST_OUT_TAIL];
        n_passes = state[st + ST_PASSES];
        wg_value = state[st + ST_RAW_BITS];
    }
    let total = workgroupUniformLoad(&wg_value);
    let n_spp = state[st + ST_RAW_SPP];
    let base = index * SCRATCH_WORDS + SCRATCH_PAIR_WORDS;
    for (var w = lane; w < (total + 31u) / 32u; w += WG_SIZE) {
        atomicStore(&bs_bits[w], scratch[base + w]);
    }
    workgroupBarrier();
    raw_segment(inv, total, n_spp);
    if lane == 0u {
        state[st + ST_OUT_LEN] = out_len;
        state[st + ST_OUT_TAIL] = out_tail;
        state[st + ST_PASSES] = n_passes;
        state[st + ST_PREV_TERM] = 1u;
    }
    workgroupBarrier();
}

@compute @workgroup_size(WG_SIZE)
fn raw(inv: Invocation) {
    lane = scan_lane(inv);
    let grid = workgroup_grid(inv);
    for (var b = grid.x; b < params.n_blocks; b += grid.y) {
        raw_block(inv, b);
    }
}

// The pairs of one MQ pass from scratch word `at`, then its end as OpenJPEG's.
fn code_pass(kind: u32, base: u32, n: u32, plane: u32, last: bool) {
    if prev_term {
        mq_start();
    }
    // One pair an iteration, so that the coder is inlined once (a copy per pair of a word
    // made the kernel's code many times larger), its words loaded a word ahead.
    var word = scratch[base];
    var next = scratch[base + 1u];
    for (var i = 0u; i < n; i++) {
        if (i & 3u) == 0u && i > 0u {
            word = next;
            next = scratch[base + i / 4u + 1u];
        }
        mq_encode((word >> 1u) & 31u, word & 1u);
        word >>= 8u;
    }
    let term = is_term(kind, plane, last);
    if term {
        mq_flush();
        record_pass(out_len | PASS_TERM);
    } else {
        record_pass(mq_open_rate());
    }
    prev_term = term;
}

fn mq_block(index: u32) {
    let st = index * STATE_WORDS;
    let plane = params.plane;
    let numbps = state[st + ST_NUMBPS];
    if plane > numbps {
        return;
    }
    let desc = blocks[index];
    out_base = desc.out_word;
    out_cap_words = desc.cap_words;
    res_base = desc.result;
    out_len = state[st + ST_OUT_LEN];
    out_tail = state[st + ST_OUT_TAIL];
    n_passes = state[st + ST_PASSES];
    prev_term = state[st + ST_PREV_TERM] != 0u;
    mq_a = state[st + ST_A];
    mq_c = state[st + ST_C];
    mq_ct = state[st + ST_CT];
    mq_b = state[st + ST_B];
    mq_has_b = state[st + ST_HAS_B] != 0u;
    for (var i = 0u; i < 19u; i++) {
        mq_ctx_set(i, state[st + ST_CTX + i]);
    }
    let last = plane == numbps;
    let n_spp = state[st + ST_PAIRS];
    let n_mrp = state[st + ST_PAIRS + 1u];
    let base = index * SCRATCH_WORDS;
    // The plane's MQ passes through one call of code_pass (each call site is a copy of
    // the coder once inlined, and copies cost compile time).
    var first = PASS_CUP;
    if plane > 1u && !is_raw_plane(plane) {
        first = PASS_SPP;
    }
    for (var kind = first; kind <= PASS_CUP; kind++) {
        var at = base;
        if kind != PASS_SPP {
            at += pair_words(n_spp);
        }
        if kind == PASS_CUP {
            at += pair_words(n_mrp);
        }
        code_pass(kind, at, state[st + ST_PAIRS + kind], plane, last);
    }
    state[st + ST_OUT_LEN] = out_len;
    state[st + ST_OUT_TAIL] = out_tail;
    state[st + ST_PASSES] = n_passes;
    state[st + ST_PREV_TERM] = select(0u, 1u, prev_term);
    state[st + ST_A] = mq_a;
    state[st + ST_C] = mq_c;
    state[st + ST_CT] = mq_ct;
    state[st + ST_B] = mq_b;
    state[st + ST_HAS_B] = select(0u, 1u, mq_has_b);
    for (var i = 0u; i < 19u; i++) {
        state[st + ST_CTX + i] = mq_ctx_get(i);
    }
    if last {
        out_flush_tail();
        results[res_base] = out_len;
        results[res_base + 1u] = numbps;
        results[res_base + 2u] = n_passes;
    }
}

@compute @workgroup_size(MQ_WG)
fn mq(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = lid; i < 47u; i += MQ_WG) {
        qe[i] = qe_row(i);
    }
    workgroupBarrier();
    mq_slot = lid;
    // Blocks by a 2-D grid of workgroups (x up to the dispatch limit).
    let index = gid.y * nwg.x * MQ_WG + gid.x;
    if index < params.n_blocks {
        mq_block(index);
    }
}
