// The HT cleanup pass (T.814), one invocation per code-block: the CPU twin
// src/j2k/ht/cleanup.rs run serially over the block, byte for byte. MagSgn is written
// straight into the block's output region (it opens the segment); MEL and VLC go to the
// block's scratch and are appended (VLC reversed) by the merge of src/j2k/ht/streams.rs,
// Scup in the last 12 bits. The CxtVLC look-ups are the CPU's (src/j2k/ht/vlc.rs),
// uploaded: 2048 words for the first quad row, then 2048 for the others.
//
// LOOPS: lavapipe's compiler stops every loop of an invocation once it has run 65535
// iterations in all (its guard against endless loops), so a block's work is kept well
// below that: bits are written several at a time, the four samples of a quad written
// out, and the host checks that the quad loop reached the end (FLAG_CUT otherwise).
//
// A write past a region's room is dropped and flagged; lengths are still counted, so
// the host can name what did not fit (the host sizes the regions so that it cannot).

// keep in sync with src/j2k/ht/gpu.rs `HtParams`
struct HtParams {
    n_blocks: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// keep in sync with src/j2k/ht/gpu.rs `HtBlock`
struct HtBlock {
    coeff_offset: u32,
    width: u32,
    height: u32,
    // Output region: first word and room in bytes.
    out_word: u32,
    out_cap: u32,
    // Scratch: MEL at scratch_word (mel_cap bytes), VLC after it (vlc_cap bytes).
    scratch_word: u32,
    mel_cap: u32,
    vlc_cap: u32,
}

// Per block (keep in sync with src/j2k/ht/gpu.rs `RESULT_WORDS`): segment bytes, Scup,
// flags (FLAG_*), magnitude bit-planes (0: an all-zero block, which codes nothing).
const RESULT_WORDS: u32 = 4u;
const FLAG_NO_CODEWORD: u32 = 1u;
const FLAG_OVERFLOW: u32 = 2u;
const FLAG_CUT: u32 = 4u;
const FLAG_TOO_DEEP: u32 = 8u;

@group(0) @binding(0) var<uniform> params: HtParams;
@group(0) @binding(1) var<storage, read> blocks: array<HtBlock>;
@group(0) @binding(2) var<storage, read> coeffs: array<i32>;
@group(0) @binding(3) var<storage, read> vlc_table: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
@group(0) @binding(5) var<storage, read_write> scratch: array<u32>;
@group(0) @binding(6) var<storage, read_write> results: array<u32>;

override WG_SIZE: u32 = 4u;

var<private> blk: HtBlock;
var<private> flags: u32;

// MagSgn: bytes written, the partial byte, its bits, its room (7 after 0xFF), last byte.
var<private> ms_len: u32;
var<private> ms_acc: u32;
var<private> ms_used: u32;
var<private> ms_room: u32;
var<private> ms_last: u32;
// MEL: bytes, partial byte (bits from the bottom), free bits, run, state.
var<private> mel_len: u32;
var<private> mel_acc: u32;
var<private> mel_free: u32;
var<private> mel_run: u32;
var<private> mel_state: u32;
// VLC: bytes in writing order, partial byte, its bits, whether the last byte > 0x8F.
var<private> vlc_len: u32;
var<private> vlc_acc: u32;
var<private> vlc_used: u32;
var<private> vlc_after_big: bool;

// Byte `p` of a region of `cap` bytes at word `base` of `out` or `scratch`. Bytes are
// appended in order: the first byte of a word clears the rest of it.
// No early returns in these helpers (nor elsewhere here): lavapipe gave wrong results
// for early returns in functions called under divergent control flow.
fn out_put(p: u32, b: u32) {
    if p >= blk.out_cap {
        flags |= FLAG_OVERFLOW;
    } else {
        let w = blk.out_word + p / 4u;
        let s = (p % 4u) * 8u;
        var cur = 0u;
        if s != 0u {
            cur = out[w];
        }
        out[w] = (cur & ~(0xFFu << s)) | ((b & 0xFFu) << s);
    }
}

fn out_get(p: u32) -> u32 {
    var b = 0u;
    if p < blk.out_cap {
        b = (out[blk.out_word + p / 4u] >> ((p % 4u) * 8u)) & 0xFFu;
    }
    return b;
}

fn scratch_put(base: u32, cap: u32, p: u32, b: u32) {
    if p >= cap {
        flags |= FLAG_OVERFLOW;
    } else {
        let w = base + p / 4u;
        let s = (p % 4u) * 8u;
        var cur = 0u;
        if s != 0u {
            cur = scratch[w];
        }
        scratch[w] = (cur & ~(0xFFu << s)) | ((b & 0xFFu) << s);
    }
}

fn scratch_get(base: u32, cap: u32, p: u32) -> u32 {
    var b = 0u;
    if p < cap {
        b = (scratch[base + p / 4u] >> ((p % 4u) * 8u)) & 0xFFu;
    }
    return b;
}

fn mel_base() -> u32 {
    return blk.scratch_word;
}

fn vlc_base() -> u32 {
    return blk.scratch_word + (blk.mel_cap + 3u) / 4u;
}

// ---- MagSgn: forward, each byte from bit 0 up, 7 bits in the byte after 0xFF.

fn ms_put_bits(value: u32, n: u32) {
    // As many bits at a time as the byte has room for.
    var v = value;
    var left = n;
    while left > 0u {
        let k = min(ms_room - ms_used, left);
        ms_acc |= (v & ((1u << k) - 1u)) << ms_used;
        ms_used += k;
        v = v >> k;
        left -= k;
        if ms_used == ms_room {
            out_put(ms_len, ms_acc);
            ms_len += 1u;
            ms_last = ms_acc;
            ms_room = select(8u, 7u, ms_acc == 0xFFu);
            ms_acc = 0u;
            ms_used = 0u;
        }
    }
}

// The last byte padded with 1s; a last byte of 0xFF is left out.
fn ms_finish() {
    if ms_used > 0u {
        ms_acc |= (0xFFu << ms_used) & ((1u << ms_room) - 1u) & 0xFFu;
        if ms_acc != 0xFFu {
            out_put(ms_len, ms_acc);
            ms_len += 1u;
        }
    } else if ms_len > 0u && ms_last == 0xFFu {
        ms_len -= 1u;
    }
}

// ---- MEL: 13-state run-length coder, MSB first, a 0 stuffed after 0xFF.

// Run-length exponent of each state: 0,0,0,1,1,1,2,2,2,3,3,4,5.
fn mel_e(s: u32) -> u32 {
    return select(select(s - 7u, 3u, s < 11u), s / 3u, s < 9u);
}

fn mel_put_bit(bit: u32) {
    mel_acc = ((mel_acc << 1u) | bit) & 0xFFu;
    mel_free -= 1u;
    if mel_free == 0u {
        scratch_put(mel_base(), blk.mel_cap, mel_len, mel_acc);
        mel_len += 1u;
        mel_free = select(8u, 7u, mel_acc == 0xFFu);
        mel_acc = 0u;
    }
}

fn mel_encode(event: bool) {
    let e = mel_e(mel_state);
    if !event {
        mel_run += 1u;
        if mel_run == (1u << e) {
            mel_put_bit(1u);
            mel_run = 0u;
            mel_state = min(mel_state + 1u, 12u);
        }
    } else {
        mel_put_bit(0u);
        for (var i = e; i > 0u; i--) {
            mel_put_bit((mel_run >> (i - 1u)) & 1u);
        }
        mel_run = 0u;
        mel_state = select(0u, mel_state - 1u, mel_state > 0u);
    }
}

// ---- VLC: backward from the segment's end, each byte from bit 0 up.

fn vlc_put_bits(value: u32, n: u32) {
    // As many bits at a time as fit before the next point where a byte may close: bit 7
    // after a byte above 0x8F (seven 1s close it with a stuffed 0), else bit 8.
    var v = value;
    var left = n;
    while left > 0u {
        let end = select(8u, 7u, vlc_after_big && vlc_used < 7u);
        let k = min(end - vlc_used, left);
        vlc_acc |= (v & ((1u << k) - 1u)) << vlc_used;
        vlc_used += k;
        v = v >> k;
        left -= k;
        if (vlc_used == 7u && vlc_after_big && vlc_acc == 0x7Fu) || vlc_used == 8u {
            scratch_put(vlc_base(), blk.vlc_cap, vlc_len, vlc_acc);
            vlc_len += 1u;
            vlc_after_big = vlc_acc > 0x8Fu;
            vlc_acc = 0u;
            vlc_used = 0u;
        }
    }
}

// ---- Samples.

// Exponent E of the sample at (x, y): the bits of 2 mu - 1; 0 outside or insignificant.
fn e_at(x: i32, y: u32) -> u32 {
    var e = 0u;
    if x >= 0 && u32(x) < blk.width && y < blk.height {
        let mu = u32(abs(coeffs[blk.coeff_offset + y * blk.width + u32(x)]));
        e = select(32u - countLeadingZeros(2u * mu - 1u), 0u, mu == 0u);
    }
    return e;
}

fn v_at(x: u32, y: u32) -> u32 {
    let c = coeffs[blk.coeff_offset + y * blk.width + x];
    let mu = u32(abs(c));
    return 2u * (mu - 1u) + select(0u, 1u, c < 0);
}

// The u code of u (prefix, its length, suffix, its length; first bit in bit 0).
fn ucode(u: u32) -> vec4<u32> {
    var c = vec4<u32>(0u, 3u, u - 5u, 5u);
    if u == 0u {
        c = vec4<u32>(0u, 0u, 0u, 0u);
    } else if u == 1u {
        c = vec4<u32>(1u, 1u, 0u, 0u);
    } else if u == 2u {
        c = vec4<u32>(2u, 2u, 0u, 0u);
    } else if u <= 4u {
        c = vec4<u32>(4u, 3u, u - 3u, 1u);
    }
    return c;
}

// One quad: returns (rho, u).
fn code_quad(qx: u32, qy: u32, left_rho: u32) -> vec2<u32> {
    let x = i32(2u * qx);
    let y = 2u * qy;
    var e: array<u32, 4>;
    e[0] = e_at(x, y);
    e[1] = e_at(x, y + 1u);
    e[2] = e_at(x + 1, y);
    e[3] = e_at(x + 1, y + 1u);
    // The four samples' loops are written out: see LOOPS above.
    let sig4 = vec4<u32>(e[0], e[1], e[2], e[3]) > vec4<u32>(0u);
    let rho = pattern(sig4);
    let e_max = max(max(e[0], e[1]), max(e[2], e[3]));
    // The row above (its four exponents, read once) gives kappa and the context.
    var kappa = 1u;
    var c_q = 0u;
    if qy == 0u {
        c_q = (left_rho & 1u) | (left_rho >> 1u);
    } else {
        let ya = y - 1u;
        let a = vec4<u32>(e_at(x - 1, ya), e_at(x, ya), e_at(x + 1, ya), e_at(x + 2, ya));
        if countOneBits(rho) > 1u {
            let above = max(max(a.x, a.y), max(a.z, a.w));
            kappa = max(select(0u, above - 1u, above > 0u), 1u);
        }
        let nw_n = a.x > 0u || a.y > 0u;
        let ne_nf = a.z > 0u || a.w > 0u;
        let west = (left_rho & 12u) != 0u;
        c_q = select(0u, 1u, nw_n) | (select(0u, 1u, west) << 1u) | (select(0u, 1u, ne_nf) << 2u);
    }
    let big_u = max(e_max, kappa);
    let u = big_u - kappa;
    var eps = 0u;
    if u > 0u {
        eps = pattern(vec4<u32>(e[0], e[1], e[2], e[3]) == vec4<u32>(big_u));
    }
    if c_q == 0u {
        mel_encode(rho != 0u);
    }
    var e_k = 0u;
    if c_q != 0u || rho != 0u {
        let base = select(2048u, 0u, qy == 0u);
        let w = vlc_table[base + (((c_q & 7u) << 8u) | ((rho & 15u) << 4u) | (eps & 15u))];
        if w == 0u {
            flags |= FLAG_NO_CODEWORD;
        }
        vlc_put_bits(w & 0x7Fu, (w >> 7u) & 7u);
        e_k = w >> 10u;
    }
    ms_sample(rho, e_k, big_u, 0u, u32(x), y);
    ms_sample(rho, e_k, big_u, 1u, u32(x), y + 1u);
    ms_sample(rho, e_k, big_u, 2u, u32(x) + 1u, y);
    ms_sample(rho, e_k, big_u, 3u, u32(x) + 1u, y + 1u);
    return vec2<u32>(rho, u);
}

// Bit n set where component n holds.
fn pattern(b: vec4<bool>) -> u32 {
    return select(0u, 1u, b.x) | (select(0u, 2u, b.y)) | select(0u, 4u, b.z) | select(0u, 8u, b.w);
}

// Sample n's MagSgn bits, if it is significant: v's low U bits, less the top one where
// the codeword told it (e_k).
fn ms_sample(rho: u32, e_k: u32, big_u: u32, n: u32, sx: u32, sy: u32) {
    if ((rho >> n) & 1u) == 1u {
        let m = big_u - ((e_k >> n) & 1u);
        ms_put_bits(v_at(sx, sy) & ((1u << m) - 1u), m);
    }
}

// The u values of a quad pair (src/j2k/ht/cleanup.rs `code_u_pair`).
fn code_u_pair(first_row: bool, u0: u32, u1: u32) {
    var a = u0;
    var b = u1;
    var one_bit = false;
    if first_row && u0 > 0u && u1 > 0u {
        let both_big = u0 > 2u && u1 > 2u;
        mel_encode(both_big);
        if both_big {
            a = u0 - 2u;
            b = u1 - 2u;
        } else if u0 > 2u {
            one_bit = true;
        }
    }
    if one_bit {
        let c = ucode(u0);
        vlc_put_bits(c.x, c.y);
        vlc_put_bits(u1 - 1u, 1u);
        vlc_put_bits(c.z, c.w);
    } else {
        let ca = ucode(a);
        let cb = ucode(b);
        vlc_put_bits(ca.x, ca.y);
        vlc_put_bits(cb.x, cb.y);
        vlc_put_bits(ca.z, ca.w);
        vlc_put_bits(cb.z, cb.w);
    }
}

// MagSgn, MEL, reversed VLC; Scup in the last 12 bits (src/j2k/ht/streams.rs `merge`).
// Returns (segment bytes, Scup).
fn merge() -> vec2<u32> {
    ms_finish();
    // MEL's end: an unfinished run is sent as a full one; its partial byte at the top.
    if mel_run > 0u {
        mel_put_bit(1u);
    }
    let mel_tail = (mel_acc << mel_free) & 0xFFu;
    let mel_mask = (0xFFu << mel_free) & 0xFFu;
    let vlc_tail = vlc_acc;
    let vlc_mask = ((1u << vlc_used) - 1u) & 0xFFu;
    if (mel_mask | vlc_mask) != 0u {
        let fused = mel_tail | vlc_tail;
        let agree = ((fused ^ mel_tail) & mel_mask) == 0u && ((fused ^ vlc_tail) & vlc_mask) == 0u;
        if agree && fused != 0xFFu && vlc_len > 1u {
            scratch_put(mel_base(), blk.mel_cap, mel_len, fused);
            mel_len += 1u;
        } else {
            scratch_put(mel_base(), blk.mel_cap, mel_len, mel_tail);
            mel_len += 1u;
            scratch_put(vlc_base(), blk.vlc_cap, vlc_len, vlc_tail);
            vlc_len += 1u;
        }
    }
    let scup = mel_len + vlc_len;
    var p = ms_len;
    for (var i = 0u; i < mel_len; i++) {
        out_put(p, scratch_get(mel_base(), blk.mel_cap, i));
        p += 1u;
    }
    for (var i = vlc_len; i > 0u; i--) {
        out_put(p, scratch_get(vlc_base(), blk.vlc_cap, i - 1u));
        p += 1u;
    }
    // p >= 2: the VLC holds at least its placeholder byte, the MEL or VLC a tail byte.
    if p >= 2u && p <= blk.out_cap {
        let w = blk.out_word + (p - 1u) / 4u;
        let s = ((p - 1u) % 4u) * 8u;
        out[w] = (out[w] & ~(0xFFu << s)) | (((scup >> 4u) & 0xFFu) << s);
        let w2 = blk.out_word + (p - 2u) / 4u;
        let s2 = ((p - 2u) % 4u) * 8u;
        let b2 = (out_get(p - 2u) & 0xF0u) | (scup & 0xFu);
        out[w2] = (out[w2] & ~(0xFFu << s2)) | (b2 << s2);
    }
    return vec2<u32>(p, scup);
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= params.n_blocks {
        return;
    }
    blk = blocks[i];
    // The block's bit-planes: the host knows them only where it holds the coefficients.
    // Four loads in flight at a time: one at a time, each waits out a trip to memory.
    var max_mu = 0u;
    let n = blk.width * blk.height;
    let at = blk.coeff_offset;
    var k = 0u;
    for (; k + 4u <= n; k += 4u) {
        let c = vec4<i32>(coeffs[at + k], coeffs[at + k + 1u], coeffs[at + k + 2u], coeffs[at + k + 3u]);
        let m = vec4<u32>(abs(c));
        max_mu = max(max_mu, max(max(m.x, m.y), max(m.z, m.w)));
    }
    for (; k < n; k++) {
        max_mu = max(max_mu, u32(abs(coeffs[at + k])));
    }
    let planes = 32u - countLeadingZeros(max_mu);
    if planes == 0u || planes > 30u {
        results[i * RESULT_WORDS] = 0u;
        results[i * RESULT_WORDS + 1u] = 0u;
        results[i * RESULT_WORDS + 2u] = select(0u, FLAG_TOO_DEEP, planes > 30u);
        results[i * RESULT_WORDS + 3u] = planes;
        return;
    }
    flags = 0u;
    ms_len = 0u;
    ms_acc = 0u;
    ms_used = 0u;
    ms_room = 8u;
    ms_last = 0u;
    mel_len = 0u;
    mel_acc = 0u;
    mel_free = 8u;
    mel_run = 0u;
    mel_state = 0u;
    // The last byte and the low nibble of the one before it will hold Scup; until then
    // they read as 1s.
    scratch_put(vlc_base(), blk.vlc_cap, 0u, 0xFFu);
    vlc_len = 1u;
    vlc_acc = 0x0Fu;
    vlc_used = 4u;
    vlc_after_big = true;

    let quads_w = (blk.width + 1u) / 2u;
    let quads_h = (blk.height + 1u) / 2u;
    var rows = 0u;
    for (var qy = 0u; qy < quads_h; qy++) {
        var left = 0u;
        for (var qx = 0u; qx < quads_w; qx += 2u) {
            let q0 = code_quad(qx, qy, left);
            left = q0.x;
            var u1 = 0u;
            if qx + 1u < quads_w {
                let q1 = code_quad(qx + 1u, qy, left);
                left = q1.x;
                u1 = q1.y;
            }
            code_u_pair(qy == 0u, q0.y, u1);
        }
        rows += 1u;
    }
    let r = merge();
    if rows != quads_h || r.x != ms_len + r.y {
        flags |= FLAG_CUT;
    }
    results[i * RESULT_WORDS] = r.x;
    results[i * RESULT_WORDS + 1u] = r.y;
    results[i * RESULT_WORDS + 2u] = flags;
    results[i * RESULT_WORDS + 3u] = planes;
}
