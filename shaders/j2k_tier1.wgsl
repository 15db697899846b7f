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
//   are bit-stuffed in parallel (lib/bitstuff_wg.wgsl, the paper's Algorithm 2) and
//   terminated like OpenJPEG's opj_mqc_bypass_flush_enc;
// - MQ-coded passes: the invocations write their context-decision pairs (one byte each,
//   in rounds of PAIR_CAP) to workgroup memory and invocation 0 codes them (OpenJPEG's
//   encoder: C.2 with its flush and pass-length rules).
// Host: src/j2k/tier1_gpu.rs; CPU twin: src/j2k/tier1 (encode_code_block).
//!import wg_scan
//!import bitstuff_wg

// keep in sync with src/j2k/tier1_gpu.rs `Tier1Params`
struct Tier1Params {
    n_blocks: u32,
    // First bit-plane (1-based from the most significant) whose SPP and MRP bypass the
    // MQ coder; 0: none (all passes MQ-coded).
    bypass_from: u32,
    pad0: u32,
    pad1: u32,
}

// keep in sync with src/j2k/tier1_gpu.rs `BlockDesc`
struct BlockDesc {
    coeff_offset: u32, // first coefficient (row-major) in `coeffs`
    width: u32,
    height: u32,
    orient: u32,       // 0 LL, 1 HL, 2 LH, 3 HH
    out_word: u32,     // first word of the block's output region
    cap_words: u32,    // words in the region
    result: u32,       // first word of the block's result record
    pad: u32,
}

@group(0) @binding(0) var<uniform> params: Tier1Params;
@group(0) @binding(1) var<storage, read> blocks: array<BlockDesc>;
@group(0) @binding(2) var<storage, read> coeffs: array<i32>;
// Bytes of every block, little-endian within words.
@group(0) @binding(3) var<storage, read_write> out_words: array<u32>;
// Per block (keep in sync with src/j2k/tier1_gpu.rs `RESULT_*`): bytes, bit-planes,
// passes, then one word per pass: bits 0-29 its raw rate, bit 30 "MQ pass not
// terminated" (OpenJPEG's rate = bytes + 3), bit 31 terminated.
@group(0) @binding(4) var<storage, read_write> results: array<u32>;

// Stripe columns per invocation; WG_SIZE * CPI must cover the largest block's stripe
// columns (1024 for 64x64).
override CPI: u32 = 4u;
const MAX_CPI: u32 = 8u;
// 4-bit nibbles of 1024 stripe columns.
const MAP_WORDS: u32 = 128u;
// Context-decision pairs per round, one byte each.
const PAIR_CAP: u32 = 4096u;
const PAIR_WORDS: u32 = 1024u;

const CTX_AGG: u32 = 17u;
const CTX_UNI: u32 = 18u;
const PASS_MQ_OPEN: u32 = 0x40000000u;
const PASS_TERM: u32 = 0x80000000u;

var<workgroup> cur: array<atomic<u32>, MAP_WORDS>;
var<workgroup> snap: array<u32, MAP_WORDS>;
var<workgroup> signs: array<atomic<u32>, MAP_WORDS>;
var<workgroup> pairs: array<atomic<u32>, PAIR_WORDS>;
var<workgroup> wg_flag: atomic<u32>;
var<workgroup> wg_value: u32;
// The output's length and its partial last word, handed between invocation 0 (MQ
// passes) and the raw copy.
var<workgroup> wg_out_len: u32;
var<workgroup> wg_out_tail: u32;

var<private> lane: u32;
var<private> bw: u32;
var<private> bh: u32;
var<private> n_stripes: u32;
var<private> n_cols: u32;
var<private> orient: u32;
// Own samples' magnitudes, index column * 4 + row.
var<private> mag: array<u32, 32>;
// Own samples coded in this plane's SPP (OpenJPEG's PI flag), bit column * 4 + row.
var<private> pi: u32;

// ---- significance maps

fn nibble_at(k: u32) -> vec2<u32> {
    return vec2<u32>(k >> 3u, (k & 7u) * 4u);
}

fn cur_nibble(s: u32, x: u32) -> u32 {
    let at = nibble_at(s * bw + x);
    return (atomicLoad(&cur[at.x]) >> at.y) & 15u;
}

fn snap_nibble(s: u32, x: u32) -> u32 {
    let at = nibble_at(s * bw + x);
    return (snap[at.x] >> at.y) & 15u;
}

fn sign_nibble(s: u32, x: u32) -> u32 {
    let at = nibble_at(s * bw + x);
    return (atomicLoad(&signs[at.x]) >> at.y) & 15u;
}

// Column x of stripe s and the rows next to it, 6 bits: bit 0 the row above the stripe,
// bits 1-4 the stripe's rows, bit 5 the row below. 0 outside the block.
fn cur_col(s: u32, x: i32) -> u32 {
    if x < 0 || u32(x) >= bw {
        return 0u;
    }
    let ux = u32(x);
    var v = cur_nibble(s, ux) << 1u;
    if s > 0u {
        v |= cur_nibble(s - 1u, ux) >> 3u;
    }
    if s + 1u < n_stripes {
        v |= (cur_nibble(s + 1u, ux) & 1u) << 5u;
    }
    return v;
}

fn snap_col(s: u32, x: i32) -> u32 {
    if x < 0 || u32(x) >= bw {
        return 0u;
    }
    let ux = u32(x);
    var v = snap_nibble(s, ux) << 1u;
    if s > 0u {
        v |= snap_nibble(s - 1u, ux) >> 3u;
    }
    if s + 1u < n_stripes {
        v |= (snap_nibble(s + 1u, ux) & 1u) << 5u;
    }
    return v;
}

fn sign_col(s: u32, x: i32) -> u32 {
    if x < 0 || u32(x) >= bw {
        return 0u;
    }
    let ux = u32(x);
    var v = sign_nibble(s, ux) << 1u;
    if s > 0u {
        v |= sign_nibble(s - 1u, ux) >> 3u;
    }
    if s + 1u < n_stripes {
        v |= (sign_nibble(s + 1u, ux) & 1u) << 5u;
    }
    return v;
}

// Significance as the serial coder sees it while it codes stripe column (s, x): the
// columns to the left are done (all from `cur` but the row below the stripe), the ones
// to the right are not (all from `snap` but the row above the stripe).
fn left_col(s: u32, x: i32) -> u32 {
    return (cur_col(s, x - 1) & 31u) | (snap_col(s, x - 1) & 32u);
}

fn right_col(s: u32, x: i32) -> u32 {
    return (cur_col(s, x + 1) & 1u) | (snap_col(s, x + 1) & 62u);
}

// The own column for the sample at window position q: rows above from `own`, rows
// below from `own_snap`.
fn centre_col(own: u32, own_snap: u32, q: u32) -> u32 {
    return (own & ((1u << q) - 1u)) | (own_snap & ~((2u << q) - 1u));
}

fn set_cur(k: u32, r: u32) -> bool {
    let at = nibble_at(k);
    let bit = 1u << (at.y + r);
    let old = atomicOr(&cur[at.x], bit);
    return (old & bit) == 0u;
}

// ---- contexts (Annex D tables)

fn bit_at(v: u32, q: u32) -> u32 {
    return (v >> q) & 1u;
}

fn any_neighbour(l: u32, c: u32, r: u32, q: u32) -> bool {
    return ((((l | r) >> (q - 1u)) & 7u) | ((c >> (q - 1u)) & 5u)) != 0u;
}

// Zero coding context (Table D.1) from the 8 neighbours.
fn zc_ctx(l: u32, c: u32, r: u32, q: u32) -> u32 {
    var h = bit_at(l, q) + bit_at(r, q);
    var v = bit_at(c, q - 1u) + bit_at(c, q + 1u);
    let d = bit_at(l, q - 1u) + bit_at(l, q + 1u) + bit_at(r, q - 1u) + bit_at(r, q + 1u);
    if orient == 3u {
        let hv = h + v;
        if d >= 3u {
            return 8u;
        }
        if d == 2u {
            return select(6u, 7u, hv >= 1u);
        }
        if d == 1u {
            return select(select(3u, 4u, hv == 1u), 5u, hv >= 2u);
        }
        return min(hv, 2u);
    }
    if orient == 1u {
        let t = h;
        h = v;
        v = t;
    }
    if h == 2u {
        return 8u;
    }
    if h == 1u {
        if v >= 1u {
            return 7u;
        }
        return select(5u, 6u, d >= 1u);
    }
    if v >= 1u {
        return 2u + v;
    }
    return min(d, 2u);
}

// Sign coding context (Table D.3) and its XOR bit: (context, xor).
fn sc_ctx(l: u32, c: u32, r: u32, sl: u32, sc: u32, sr: u32, q: u32) -> vec2<u32> {
    let w = bit_at(l, q);
    let e = bit_at(r, q);
    let n = bit_at(c, q - 1u);
    let s = bit_at(c, q + 1u);
    let w_neg = w & bit_at(sl, q);
    let e_neg = e & bit_at(sr, q);
    let n_neg = n & bit_at(sc, q - 1u);
    let s_neg = s & bit_at(sc, q + 1u);
    var hc = i32(min((w - w_neg) + (e - e_neg), 1u)) - i32(min(w_neg + e_neg, 1u));
    var vc = i32(min((n - n_neg) + (s - s_neg), 1u)) - i32(min(n_neg + s_neg, 1u));
    var flip = 0u;
    if hc < 0 || (hc == 0 && vc < 0) {
        flip = 1u;
    }
    if hc < 0 {
        hc = -hc;
        vc = -vc;
    }
    if hc == 0 {
        return vec2<u32>(select(10u, 9u, vc == 0), flip);
    }
    return vec2<u32>(u32(12 + vc), flip);
}

// ---- symbol sinks: count, raw bits, or context-decision pairs of one round

const SINK_COUNT: u32 = 0u;
const SINK_RAW: u32 = 1u;
const SINK_PAIRS: u32 = 2u;
var<private> sink: u32;
var<private> sink_pos: u32;
var<private> sink_lo: u32;
var<private> sink_hi: u32;

fn emit(ctx: u32, d: u32) {
    let pos = sink_pos;
    sink_pos = pos + 1u;
    if sink == SINK_RAW {
        if d != 0u {
            atomicOr(&bs_bits[pos >> 5u], 0x80000000u >> (pos & 31u));
        }
    } else if sink == SINK_PAIRS {
        if pos >= sink_lo && pos < sink_hi {
            let j = pos - sink_lo;
            atomicOr(&pairs[j >> 2u], ((ctx << 1u) | d) << ((j & 3u) * 8u));
        }
    }
}

fn sink_done() -> bool {
    return sink == SINK_PAIRS && sink_pos >= sink_hi;
}

// m >> n, 0 for n >= 32 (WGSL takes shift counts modulo 32).
fn above(m: u32, n: u32) -> u32 {
    return select(m >> n, 0u, n >= 32u);
}

fn stripe_rows(s: u32) -> u32 {
    return min(4u, bh - 4u * s);
}

// ---- the passes, per invocation over its stripe columns

// One sweep of the SPP's membership at plane p: returns whether it set a new bit.
fn spp_sweep(p: u32) -> bool {
    var changed = false;
    for (var c = 0u; c < CPI; c++) {
        let k = lane * CPI + c;
        if k >= n_cols {
            break;
        }
        let s = k / bw;
        let x = i32(k % bw);
        let l = left_col(s, x);
        let r = right_col(s, x);
        var own = cur_col(s, x);
        let own_snap = snap_col(s, x);
        let rows = stripe_rows(s);
        for (var row = 0u; row < rows; row++) {
            let i = c * 4u + row;
            let m = mag[i];
            if above(m, p + 1u) != 0u {
                continue;
            }
            let q = row + 1u;
            if !any_neighbour(l, centre_col(own, own_snap, q), r, q) {
                continue;
            }
            pi |= 1u << i;
            if ((m >> p) & 1u) != 0u {
                own |= 1u << q;
                if set_cur(k, row) {
                    changed = true;
                }
            }
        }
    }
    return changed;
}

// The SPP's symbols at plane p (membership settled): raw, a sign is its bit; MQ, it
// goes through the sign context and its XOR bit.
fn spp_walk(p: u32, raw: bool) {
    for (var c = 0u; c < CPI; c++) {
        let k = lane * CPI + c;
        if k >= n_cols || sink_done() {
            break;
        }
        if ((pi >> (c * 4u)) & 15u) == 0u {
            continue;
        }
        let s = k / bw;
        let x = i32(k % bw);
        let l = left_col(s, x);
        let r = right_col(s, x);
        let own = cur_col(s, x);
        let own_snap = snap_col(s, x);
        let rows = stripe_rows(s);
        for (var row = 0u; row < rows; row++) {
            let i = c * 4u + row;
            if ((pi >> i) & 1u) == 0u {
                continue;
            }
            let q = row + 1u;
            let centre = centre_col(own, own_snap, q);
            let m = mag[i];
            let v = (m >> p) & 1u;
            emit(zc_ctx(l, centre, r, q), v);
            if v != 0u {
                let sign = bit_at(sign_col(s, x), q);
                if raw {
                    emit(0u, sign);
                } else {
                    let sc = sc_ctx(l, centre, r, sign_col(s, x - 1), sign_col(s, x), sign_col(s, x + 1), q);
                    emit(sc.x, sign ^ sc.y);
                }
            }
        }
    }
}

// The MRP's symbols at plane p: samples significant before it, context 16 once refined,
// else 15 with a significant neighbour, else 14.
fn mrp_walk(p: u32) {
    for (var c = 0u; c < CPI; c++) {
        let k = lane * CPI + c;
        if k >= n_cols || sink_done() {
            break;
        }
        let s = k / bw;
        let x = i32(k % bw);
        let rows = stripe_rows(s);
        var any = false;
        for (var row = 0u; row < rows; row++) {
            any = any || above(mag[c * 4u + row], p + 1u) != 0u;
        }
        if !any {
            continue;
        }
        let l = cur_col(s, x - 1);
        let r = cur_col(s, x + 1);
        let own = cur_col(s, x);
        for (var row = 0u; row < rows; row++) {
            let m = mag[c * 4u + row];
            if above(m, p + 1u) == 0u {
                continue;
            }
            var ctx = 14u;
            if above(m, p + 2u) != 0u {
                ctx = 16u;
            } else if any_neighbour(l, own, r, row + 1u) {
                ctx = 15u;
            }
            emit(ctx, (m >> p) & 1u);
        }
    }
}

// Own samples the CUP codes at plane p: neither significant before nor coded in the SPP.
fn cup_member(i: u32, p: u32) -> bool {
    return above(mag[i], p + 1u) == 0u && ((pi >> i) & 1u) == 0u;
}

// Mark the samples that turn significant in the CUP (known before its contexts are).
fn cup_mark(p: u32) {
    for (var c = 0u; c < CPI; c++) {
        let k = lane * CPI + c;
        if k >= n_cols {
            break;
        }
        let rows = stripe_rows(k / bw);
        for (var row = 0u; row < rows; row++) {
            let i = c * 4u + row;
            if cup_member(i, p) && ((mag[i] >> p) & 1u) != 0u {
                set_cur(k, row);
            }
        }
    }
}

fn cup_sign(s: u32, x: i32, l: u32, centre: u32, r: u32, q: u32) {
    let sign = bit_at(sign_col(s, x), q);
    let sc = sc_ctx(l, centre, r, sign_col(s, x - 1), sign_col(s, x), sign_col(s, x + 1), q);
    emit(sc.x, sign ^ sc.y);
}

// The CUP's context-decision pairs at plane p, run mode included.
fn cup_walk(p: u32) {
    for (var c = 0u; c < CPI; c++) {
        let k = lane * CPI + c;
        if k >= n_cols || sink_done() {
            break;
        }
        let s = k / bw;
        let x = i32(k % bw);
        let rows = stripe_rows(s);
        var pending = false;
        for (var row = 0u; row < rows; row++) {
            pending = pending || cup_member(c * 4u + row, p);
        }
        if !pending {
            continue;
        }
        let l = left_col(s, x);
        let r = right_col(s, x);
        let own = cur_col(s, x);
        let own_snap = snap_col(s, x);
        var start = 0u;
        // Run mode: a full stripe column, none of it significant or coded yet, no
        // significant neighbour (OpenJPEG: its flags word is 0).
        if rows == 4u && l == 0u && r == 0u && (own & 1u) == 0u && (own_snap & 62u) == 0u
            && ((pi >> (c * 4u)) & 15u) == 0u {
            var run = 4u;
            for (var row = 0u; row < 4u; row++) {
                if ((mag[c * 4u + row] >> p) & 1u) != 0u {
                    run = row;
                    break;
                }
            }
            emit(CTX_AGG, select(1u, 0u, run == 4u));
            if run == 4u {
                continue;
            }
            emit(CTX_UNI, run >> 1u);
            emit(CTX_UNI, run & 1u);
            let q = run + 1u;
            cup_sign(s, x, l, centre_col(own, own_snap, q), r, q);
            start = run + 1u;
        }
        for (var row = start; row < rows; row++) {
            let i = c * 4u + row;
            if !cup_member(i, p) {
                continue;
            }
            let q = row + 1u;
            let centre = centre_col(own, own_snap, q);
            let v = (mag[i] >> p) & 1u;
            emit(zc_ctx(l, centre, r, q), v);
            if v != 0u {
                cup_sign(s, x, l, centre, r, q);
            }
        }
    }
}

const PASS_SPP: u32 = 0u;
const PASS_MRP: u32 = 1u;
const PASS_CUP: u32 = 2u;

fn walk(kind: u32, p: u32, raw: bool) {
    if kind == PASS_SPP {
        spp_walk(p, raw);
    } else if kind == PASS_MRP {
        mrp_walk(p);
    } else {
        cup_walk(p);
    }
}

// ---- invocation 0: the MQ coder (C.2, OpenJPEG's conventions) and the output bytes

// Table C.2 packed: Qe | NMPS << 16 | NLPS << 22 | SWITCH << 28. Copied to workgroup
// memory per workgroup (a module-scope const array beside the override-sized arrays of
// lib/bitstuff_wg.wgsl trips naga's override processing).
fn qe_row(i: u32) -> u32 {
    var table = array<u32, 47>(
    0x10415601u, 0x01823401u, 0x02431801u, 0x03040ac1u, 0x07450521u, 0x08660221u,
    0x11875601u, 0x03885401u, 0x03894801u, 0x038a3801u, 0x044b3001u, 0x048c2401u,
    0x050d1c01u, 0x055d1601u, 0x138f5601u, 0x03905401u, 0x03d15101u, 0x04124801u,
    0x04533801u, 0x04943401u, 0x04d53001u, 0x04d62801u, 0x05172401u, 0x05582201u,
    0x05991c01u, 0x05da1801u, 0x061b1601u, 0x065c1401u, 0x069d1201u, 0x06de1101u,
    0x071f0ac1u, 0x076009c1u, 0x07a108a1u, 0x07e20521u, 0x08230441u, 0x086402a1u,
    0x08a50221u, 0x08e60141u, 0x09270111u, 0x09680085u, 0x09a90049u, 0x09ea0025u,
    0x0a2b0015u, 0x0a6c0009u, 0x0aad0005u, 0x0aed0001u, 0x0bae5601u
    );
    return table[i];
}

var<workgroup> qe: array<u32, 47>;
// Per context: state index | MPS << 7 (invocation 0's).
var<workgroup> mq_ctx: array<u32, 19>;

var<private> mq_a: u32;
var<private> mq_c: u32;
var<private> mq_ct: u32;
// The standard's register B (the last byte, which a carry may still change), if any
// byte of the segment was produced yet.
var<private> mq_b: u32;
var<private> mq_has_b: bool;
var<private> out_len: u32;
var<private> out_tail: u32;
var<private> out_base: u32;
var<private> out_cap_words: u32;

fn out_byte(b: u32) {
    out_tail |= (b & 255u) << ((out_len & 3u) * 8u);
    if (out_len & 3u) == 3u {
        if (out_len >> 2u) < out_cap_words {
            out_words[out_base + (out_len >> 2u)] = out_tail;
        }
        out_tail = 0u;
    }
    out_len += 1u;
}

fn out_flush_tail() {
    if (out_len & 3u) != 0u && (out_len >> 2u) < out_cap_words {
        out_words[out_base + (out_len >> 2u)] = out_tail;
    }
}

fn mq_reset_contexts() {
    for (var i = 0u; i < 19u; i++) {
        mq_ctx[i] = 0u;
    }
    mq_ctx[0] = 4u;
    mq_ctx[CTX_AGG] = 3u;
    mq_ctx[CTX_UNI] = 46u;
}

// INITENC: a new segment (its first byte follows one that is not 0xFF).
fn mq_start() {
    mq_a = 0x8000u;
    mq_c = 0u;
    mq_ct = 12u;
    mq_has_b = false;
}

// BYTEOUT (C.2.7) with OpenJPEG's carry handling.
fn mq_byteout() {
    if mq_has_b && mq_b == 0xffu {
        out_byte(mq_b);
        mq_b = (mq_c >> 20u) & 255u;
        mq_c &= 0xfffffu;
        mq_ct = 7u;
    } else if (mq_c & 0x8000000u) == 0u || !mq_has_b {
        // Before the segment's first byte B precedes the segment and INITENC's CT = 12
        // rules a carry out.
        if mq_has_b {
            out_byte(mq_b);
        }
        mq_b = (mq_c >> 19u) & 255u;
        mq_c &= 0x7ffffu;
        mq_ct = 8u;
    } else {
        mq_b += 1u;
        if mq_b == 0xffu {
            mq_c &= 0x7ffffffu;
            out_byte(mq_b);
            mq_b = (mq_c >> 20u) & 255u;
            mq_c &= 0xfffffu;
            mq_ct = 7u;
        } else {
            out_byte(mq_b);
            mq_b = (mq_c >> 19u) & 255u;
            mq_c &= 0x7ffffu;
            mq_ct = 8u;
        }
    }
    mq_has_b = true;
}

// Shift A and C left until A >= 0x8000, a byte out whenever CT runs out. At most 15
// shifts (A >= 1): one byte-out when CT runs out, then at most two more as each leaves
// CT at 7 or 8. Straight-line code, no loop: software rasterizers (lavapipe) cap the
// loop iterations of an invocation, and invocation 0 codes every pair of a block.
fn mq_shift_out(n: ptr<function, u32>) {
    if *n >= mq_ct {
        mq_a <<= mq_ct;
        mq_c <<= mq_ct;
        *n -= mq_ct;
        mq_byteout();
    }
}

fn mq_renorm() {
    var n = countLeadingZeros(mq_a) - 16u;
    mq_shift_out(&n);
    mq_shift_out(&n);
    mq_shift_out(&n);
    mq_a <<= n;
    mq_c <<= n;
    mq_ct -= n;
}

fn mq_encode(cx: u32, d: u32) {
    let st = mq_ctx[cx];
    let mps = st >> 7u;
    let e = qe[st & 127u];
    let qe = e & 0xffffu;
    mq_a -= qe;
    if d == mps {
        if (mq_a & 0x8000u) != 0u {
            mq_c += qe;
            return;
        }
        if mq_a < qe {
            mq_a = qe;
        } else {
            mq_c += qe;
        }
        mq_ctx[cx] = ((e >> 16u) & 63u) | (mps << 7u);
    } else {
        if mq_a < qe {
            mq_c += qe;
        } else {
            mq_a = qe;
        }
        mq_ctx[cx] = ((e >> 22u) & 63u) | ((mps ^ (e >> 28u)) << 7u);
    }
    mq_renorm();
}

// The first min(n, 4) pairs of a word (byte j: context << 1 | decision).
fn mq_encode_word(word: u32, n: u32) {
    mq_encode((word >> 1u) & 31u, word & 1u);
    if n > 1u {
        mq_encode((word >> 9u) & 31u, (word >> 8u) & 1u);
    }
    if n > 2u {
        mq_encode((word >> 17u) & 31u, (word >> 16u) & 1u);
    }
    if n > 3u {
        mq_encode((word >> 25u) & 31u, (word >> 24u) & 1u);
    }
}

// FLUSH (C.2.9) as OpenJPEG: SETBITS, two byte-outs, a final 0xFF is not part of it.
fn mq_flush() {
    let tempc = mq_c + mq_a;
    mq_c |= 0xffffu;
    if mq_c >= tempc {
        mq_c -= 0x8000u;
    }
    mq_c <<= mq_ct;
    mq_byteout();
    mq_c <<= mq_ct;
    mq_byteout();
    if mq_b != 0xffu {
        out_byte(mq_b);
    }
    mq_has_b = false;
}

// OpenJPEG's rate of a pass that does not end its segment: bytes to B, plus 3.
fn mq_open_rate() -> u32 {
    return (out_len + select(0u, 1u, mq_has_b)) | PASS_MQ_OPEN;
}

var<private> res_base: u32;
var<private> n_passes: u32;
var<private> prev_term: bool;

fn record_pass(word: u32) {
    results[res_base + 3u + n_passes] = word;
    n_passes += 1u;
}

// Whether pass `kind` of bit-plane `plane` (1-based from the most significant) ends its
// segment: the last pass, the CUP just before the first bypassed plane, and from there
// every MRP (raw) and CUP (MQ). Mirrors the CPU twin.
fn is_term(kind: u32, plane: u32, last: bool) -> bool {
    if kind == PASS_CUP && last {
        return true;
    }
    let first_raw = params.bypass_from;
    if first_raw == 0u {
        return false;
    }
    if kind == PASS_CUP && plane + 1u == first_raw {
        return true;
    }
    return plane >= first_raw && kind != PASS_SPP;
}

// An MQ-coded pass: count, place by scan, code in rounds of PAIR_CAP pairs.
fn mq_pass(inv: Invocation, kind: u32, p: u32, plane: u32, last: bool) {
    sink = SINK_COUNT;
    sink_pos = 0u;
    walk(kind, p, false);
    let n = sink_pos;
    let placed = wg_exclusive_scan(inv, n);
    if lane == 0u {
        wg_value = placed.y;
    }
    let total = workgroupUniformLoad(&wg_value);
    if lane == 0u && prev_term {
        mq_start();
    }
    for (var lo = 0u; lo < total; lo += PAIR_CAP) {
        let round = min(PAIR_CAP, total - lo);
        for (var w = lane; w < (round + 3u) / 4u; w += WG_SIZE) {
            atomicStore(&pairs[w], 0u);
        }
        workgroupBarrier();
        if n != 0u && placed.x < lo + PAIR_CAP && placed.x + n > lo {
            sink = SINK_PAIRS;
            sink_pos = placed.x;
            sink_lo = lo;
            sink_hi = lo + PAIR_CAP;
            walk(kind, p, false);
        }
        workgroupBarrier();
        if lane == 0u {
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

// Byte k of the stuffed segment in bs_out (lib/bitstuff_wg.wgsl: big-endian words).
fn stuffed_byte(k: u32) -> u32 {
    return (bs_out[k >> 2u] >> (24u - 8u * (k & 3u))) & 255u;
}

var<workgroup> wg_spp_bytes: atomic<u32>;

// Bytes of the stuffed segment (n_bytes long) that hold its first n_spp raw bits: byte j
// holds 7 bits after a 0xFF, else 8. Past the terminated bytes (a dropped final 0xFF or
// 0xFF 0x7F) any larger count does: tier-2 never lets an open pass end beyond the
// segment's end. Each invocation walks its own bytes after a scan of the 0xFF counts.
fn spp_bytes(inv: Invocation, n_bytes: u32, n_spp: u32) -> u32 {
    let per = (n_bytes + WG_SIZE - 1u) / WG_SIZE;
    let first = min(lane * per, n_bytes);
    let end = min(first + per, n_bytes);
    var ff = 0u;
    for (var j = first; j < end; j++) {
        ff += select(0u, 1u, stuffed_byte(j) == 255u);
    }
    let before = wg_exclusive_scan(inv, ff);
    if lane == 0u {
        atomicStore(&wg_spp_bytes, select(n_bytes + 1u, 0u, n_spp == 0u));
    }
    workgroupBarrier();
    // Raw bits before byte `first`: 8 per byte but one per byte after a 0xFF, and the
    // scan counted a 0xFF at first - 1, which only stuffs byte `first` itself.
    var bits = 8u * first - before.x;
    if first > 0u && stuffed_byte(first - 1u) == 255u {
        bits += 1u;
    }
    for (var j = first; j < end; j++) {
        let next = bits + select(8u, 7u, j > 0u && stuffed_byte(j - 1u) == 255u);
        if bits < n_spp && n_spp <= next {
            atomicStore(&wg_spp_bytes, j + 1u);
        }
        bits = next;
    }
    workgroupBarrier();
    return atomicLoad(&wg_spp_bytes);
}

// The raw SPP and MRP of plane p: bits by scan offset into the bit-stuffer's workgroup
// buffer, stuffed in parallel and terminated (lib/bitstuff_wg.wgsl), appended to the
// output.
fn raw_passes(inv: Invocation, p: u32) {
    sink = SINK_COUNT;
    sink_pos = 0u;
    spp_walk(p, true);
    let n_spp = sink_pos;
    sink_pos = 0u;
    mrp_walk(p);
    let n_mrp = sink_pos;
    let spp = wg_exclusive_scan(inv, n_spp);
    let mrp = wg_exclusive_scan(inv, n_mrp);
    if lane == 0u {
        wg_value = spp.y + mrp.y;
    }
    let total = workgroupUniformLoad(&wg_value);
    for (var w = lane; w < (total + 31u) / 32u; w += WG_SIZE) {
        atomicStore(&bs_bits[w], 0u);
    }
    workgroupBarrier();
    sink = SINK_RAW;
    sink_pos = spp.x;
    spp_walk(p, true);
    sink_pos = spp.y + mrp.x;
    mrp_walk(p);
    if lane == 0u {
        wg_out_len = out_len;
        wg_out_tail = out_tail;
    }
    workgroupBarrier();
    let n_bytes = bitstuff_wg(inv, total, false).x;
    let spp_end = spp_bytes(inv, n_bytes, spp.y);
    // Append: invocation j writes output word j of the region from the old length on.
    let start = workgroupUniformLoad(&wg_out_len);
    let tail = wg_out_tail;
    let end = start + n_bytes;
    let first_word = start >> 2u;
    let n_words = ((end + 3u) >> 2u) - first_word;
    for (var j = lane; j < n_words; j += WG_SIZE) {
        let word_index = first_word + j;
        var word = 0u;
        if j == 0u {
            word = tail;
        }
        for (var b = 0u; b < 4u; b++) {
            let at = word_index * 4u + b;
            if at >= start && at < end {
                word |= stuffed_byte(at - start) << (b * 8u);
            }
        }
        if word_index < out_cap_words {
            out_words[out_base + word_index] = word;
        }
        if j + 1u == n_words {
            wg_out_tail = select(0u, word, (end & 3u) != 0u);
        }
    }
    workgroupBarrier();
    if lane == 0u {
        // SPP: OpenJPEG's rate of an open raw pass is the bytes holding its bits.
        record_pass(start + spp_end);
        record_pass(end | PASS_TERM);
        out_len = end;
        out_tail = wg_out_tail;
        prev_term = true;
    }
    workgroupBarrier();
}

fn snapshot() {
    for (var w = lane; w < MAP_WORDS; w += WG_SIZE) {
        snap[w] = atomicLoad(&cur[w]);
    }
    workgroupBarrier();
}

fn encode_block(inv: Invocation, index: u32) {
    let desc = blocks[index];
    bw = desc.width;
    bh = desc.height;
    n_stripes = (bh + 3u) / 4u;
    n_cols = bw * n_stripes;
    orient = desc.orient;
    out_base = desc.out_word;
    out_cap_words = desc.cap_words;
    res_base = desc.result;
    for (var w = lane; w < MAP_WORDS; w += WG_SIZE) {
        atomicStore(&cur[w], 0u);
        atomicStore(&signs[w], 0u);
    }
    if lane == 0u {
        atomicStore(&wg_flag, 0u);
    }
    workgroupBarrier();
    var local_max = 0u;
    for (var c = 0u; c < CPI; c++) {
        let k = lane * CPI + c;
        for (var row = 0u; row < 4u; row++) {
            mag[c * 4u + row] = 0u;
        }
        if k >= n_cols {
            continue;
        }
        let s = k / bw;
        let x = k % bw;
        let rows = stripe_rows(s);
        var neg = 0u;
        for (var row = 0u; row < rows; row++) {
            let v = coeffs[desc.coeff_offset + (s * 4u + row) * bw + x];
            // |i32::MIN| is 2^31: abs wraps to i32::MIN, whose bits are 2^31.
            let m = bitcast<u32>(abs(v));
            mag[c * 4u + row] = m;
            local_max = max(local_max, m);
            neg |= select(0u, 1u << row, v < 0);
        }
        if neg != 0u {
            let at = nibble_at(k);
            atomicOr(&signs[at.x], neg << at.y);
        }
    }
    atomicMax(&wg_flag, local_max);
    workgroupBarrier();
    if lane == 0u {
        wg_value = atomicLoad(&wg_flag);
        atomicStore(&wg_flag, 0u);
    }
    let max_mag = workgroupUniformLoad(&wg_value);
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
        if plane > 1u {
            snapshot();
            // The SPP's membership: sweep until no invocation sets a new bit.
            loop {
                if spp_sweep(p) {
                    atomicOr(&wg_flag, 1u);
                }
                workgroupBarrier();
                if lane == 0u {
                    wg_value = atomicExchange(&wg_flag, 0u);
                }
                if workgroupUniformLoad(&wg_value) == 0u {
                    break;
                }
            }
            if params.bypass_from != 0u && plane >= params.bypass_from {
                raw_passes(inv, p);
            } else {
                mq_pass(inv, PASS_SPP, p, plane, last);
                mq_pass(inv, PASS_MRP, p, plane, last);
            }
        }
        snapshot();
        cup_mark(p);
        workgroupBarrier();
        mq_pass(inv, PASS_CUP, p, plane, last);
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
