// EBCOT tier-1 context modelling shared by the tier-1 stages (shaders/j2k/tier1.wgsl, the
// one-kernel strategy, and shaders/j2k/tier1_split.wgsl, the three-kernel one): one
// workgroup per code-block, each invocation owning CPI consecutive stripe columns in scan
// order. Significance lives in two bitmaps of 4-bit stripe-column nibbles, `cur` (now)
// and `snap` (at the start of the pass): a neighbour earlier in scan order is read from
// `cur`, a later one from `snap`, which is exactly what the serial coder sees. The SPP's
// membership (a sample joins when a neighbour is significant, including one that turned
// significant earlier in this very pass) is the least fixed point of a monotone sweep.
// Symbols go to `pairs` (context-decision pairs, one byte each, in rounds of PAIR_CAP)
// or to the bit-stuffer's `bs_bits` (raw bits).
//!import common/invocation
//!import j2k/t1_io
//!import common/bitstuff_wg

// Stripe columns per invocation; WG_SIZE * CPI must cover the largest block's stripe
// columns (1024 for 64x64).
override CPI: u32 = 4u;
const MAX_CPI: u32 = 8u;
// 4-bit nibbles of 1024 stripe columns (keep in sync with src/j2k/tier1/gpu.rs
// `MAX_STRIPE_COLUMNS`, which refuses larger code-blocks).
const MAP_WORDS: u32 = 128u;
// Context-decision pairs per round, one byte each.
const PAIR_CAP: u32 = 4096u;
const PAIR_WORDS: u32 = 1024u;
const CTX_AGG: u32 = 17u;
const CTX_UNI: u32 = 18u;

var<workgroup> cur: array<atomic<u32>, MAP_WORDS>;
var<workgroup> snap: array<u32, MAP_WORDS>;
var<workgroup> signs: array<atomic<u32>, MAP_WORDS>;
var<workgroup> pairs: array<atomic<u32>, PAIR_WORDS>;
var<workgroup> wg_flag: atomic<u32>;
var<workgroup> wg_value: u32;
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

// ---- symbol sinks: count, raw bits, or context-decision pairs in [sink_lo, sink_hi)

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

// One step of pass `kind` of plane p, in uniform control flow. Step 0 counts this
// invocation's context-decision pairs and places them by scan: it sets `own` to (first
// place, count) and returns the pass's total (uniform). Step k >= 1 fills `pairs` with
// round k - 1 (pairs [PAIR_CAP * (k - 1), PAIR_CAP * k) of the `total`), complete on
// return, and returns `total`. Callers loop over the steps from one call site: each call
// site of a walk is a copy of it once the driver inlines, and copies cost compile time.
fn pairs_step(inv: Invocation, kind: u32, p: u32, step: u32, total: u32, own: ptr<function, vec2<u32>>) -> u32 {
    let counting = step == 0u;
    var go = true;
    if counting {
        sink = SINK_COUNT;
        sink_pos = 0u;
    } else {
        let lo = (step - 1u) * PAIR_CAP;
        let words = (min(PAIR_CAP, total - lo) + 3u) / 4u;
        for (var w = lane; w < words; w += WG_SIZE) {
            atomicStore(&pairs[w], 0u);
        }
        workgroupBarrier();
        let at = (*own).x;
        let n = (*own).y;
        go = n != 0u && at < lo + PAIR_CAP && at + n > lo;
        sink = SINK_PAIRS;
        sink_pos = at;
        sink_lo = lo;
        sink_hi = lo + PAIR_CAP;
    }
    if go {
        walk(kind, p, false);
    }
    if counting {
        let n = sink_pos;
        let placed = wg_exclusive_scan(inv, n);
        if lane == 0u {
            wg_value = placed.y;
        }
        *own = vec2<u32>(placed.x, n);
        return workgroupUniformLoad(&wg_value);
    }
    workgroupBarrier();
    return total;
}

// Steps of a pass of `total` pairs: the count, then a step per round.
fn pairs_steps(total: u32) -> u32 {
    return 1u + (total + PAIR_CAP - 1u) / PAIR_CAP;
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

fn snapshot() {
    for (var w = lane; w < MAP_WORDS; w += WG_SIZE) {
        snap[w] = atomicLoad(&cur[w]);
    }
    workgroupBarrier();
}


// Load a code-block's magnitudes into `mag` and its signs into `signs` (cur and signs
// zeroed first); returns the workgroup's largest magnitude. Call in uniform control flow.
fn load_block(desc: BlockDesc) -> u32 {
    bw = desc.width;
    bh = desc.height;
    n_stripes = (bh + 3u) / 4u;
    n_cols = bw * n_stripes;
    orient = desc.orient;
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
    return workgroupUniformLoad(&wg_value);
}

// The SPP's membership at plane p: sweep until no invocation sets a new bit (after
// `snapshot`). Call in uniform control flow.
fn spp_settle(p: u32) {
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
}

// Whether plane (1-based) codes its SPP and MRP raw.
fn is_raw_plane(plane: u32) -> bool {
    return params.bypass_from != 0u && plane > 1u && plane >= params.bypass_from;
}
