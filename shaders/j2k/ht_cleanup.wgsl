// The HT cleanup pass (T.814), a workgroup per code-block, byte for byte the CPU twin
// src/j2k/ht/cleanup.rs. What a quad codes depends only on the samples (its own, the
// quad to its left and the row above), never on the coder's state, so the quads are
// coded in parallel and only the streams' bit-stuffing is serial:
//
// 0. The block's samples are read once (coalesced): its bit-planes, and each sample's
//    exponent as a byte in workgroup memory, where the quads read their neighbours.
// 1. Rounds of WG_SIZE quad pairs, a pair per invocation: each finds its two quads'
//    CxtVLC codewords, u codes, MEL events and MagSgn bit counts. One workgroup scan
//    places every pair's VLC and MagSgn bits. VLC bits are OR-ed into the block's raw
//    VLC in workgroup memory; MagSgn bits into the raw MagSgn's staging words. Where a
//    round would not fit the staging, its complete words go first to the block's raw
//    MagSgn in `scratch` (coalesced), the partial last one kept. MEL events are kept
//    per pair.
// 2. Stuffing: one invocation turns the raw MagSgn into stuffed bytes in the output
//    region, four bytes a step where none of the first three is 0xFF, and reads it from
//    the staging where it never left it; another, in the other half of the workgroup,
//    the raw VLC and then the MEL events (the 13-state run-length coder) into `scratch`.
// 3. The merge of src/j2k/ht/streams.rs: the MEL/VLC meeting byte, then the whole
//    workgroup copies MEL and the reversed VLC after MagSgn, Scup in the last 12 bits.
//
// The CxtVLC look-ups are the CPU's (src/j2k/ht/vlc.rs), uploaded: 2048 words for the
// first quad row, then 2048 for the others.
//
// LOOPS: lavapipe's compiler stops every loop of an invocation once it has run 65535
// iterations in all (its guard against endless loops). The longest here is a stuffing
// loop, at most a step per output byte (15,872 for a block of 31-bit samples); each
// loop reports whether it reached its end (FLAG_CUT otherwise).
//
// On lavapipe the count runs across the blocks a workgroup codes one after another, and
// once it is spent every loop ends at once; FLAG_CUT and FLAG_DONE make that an error.
//
// A write past a region's room is dropped and flagged; lengths are still counted, so
// the host can name what did not fit (the host sizes the regions so that it cannot).
//!import common/invocation
//!import common/wg_scan

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
    // Scratch: the raw (unstuffed) MagSgn bits, raw_cap words from raw_word.
    raw_word: u32,
    raw_cap: u32,
}

// Per block (keep in sync with src/j2k/ht/gpu.rs `RESULT_WORDS`): segment bytes, Scup,
// flags (FLAG_*), magnitude bit-planes (0: an all-zero block, which codes nothing).
const RESULT_WORDS: u32 = 4u;
const FLAG_NO_CODEWORD: u32 = 1u;
const FLAG_OVERFLOW: u32 = 2u;
const FLAG_CUT: u32 = 4u;
const FLAG_TOO_DEEP: u32 = 8u;
// Set for every block the kernel finished: the host clears the results first, so a block
// never reached (a grid-stride loop cut short) is an error, not an empty block.
const FLAG_DONE: u32 = 16u;

// keep in sync with src/j2k/ht/gpu.rs `MAX_PAIRS`, `MAX_WG`: the most quad pairs a
// block of sides up to 1024 and area up to 4096 has (5x819), and the largest workgroup
// the staging below holds.
const MAX_PAIRS: u32 = 820u;
const MAX_WG: u32 = 64u;
// The largest block's samples (MAX_AREA in src/j2k/tier1/cpu.rs).
const MAX_SAMPLES: u32 = 4096u;
// A pair's VLC: two 7-bit codewords and two u codes of 8 bits; its MagSgn: 8 samples of
// at most 31 bits.
const PAIR_VLC_BITS: u32 = 30u;
const PAIR_MS_BITS: u32 = 248u;
const VLC_RAW_WORDS: u32 = (4u + PAIR_VLC_BITS * MAX_PAIRS) / 32u + 2u;
const MS_STAGE_WORDS: u32 = (32u + PAIR_MS_BITS * MAX_WG) / 32u + 2u;

@group(0) @binding(0) var<uniform> params: HtParams;
@group(0) @binding(1) var<storage, read> blocks: array<HtBlock>;
@group(0) @binding(2) var<storage, read> coeffs: array<i32>;
@group(0) @binding(3) var<storage, read> vlc_table: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
@group(0) @binding(5) var<storage, read_write> scratch: array<u32>;
@group(0) @binding(6) var<storage, read_write> results: array<u32>;

// Each sample's exponent E (row-major), a byte each.
var<workgroup> exps: array<u32, MAX_SAMPLES / 4u>;
// The block's raw VLC (the 0xF placeholder nibble first), whole.
var<workgroup> vlc_raw: array<atomic<u32>, VLC_RAW_WORDS>;
// The raw MagSgn from word `stage_base` on (all of it, unless a round did not fit).
var<workgroup> ms_stage: array<atomic<u32>, MS_STAGE_WORDS>;
// Each pair's MEL events, a byte each: their count in bits 0-1, the events from bit 2.
var<workgroup> mel_codes: array<atomic<u32>, MAX_PAIRS / 4u + 1u>;
var<workgroup> wg_max: atomic<u32>;
var<workgroup> wg_planes: u32;
var<workgroup> wg_flags: atomic<u32>;
// The streams' ends, from the invocations that stuffed them: bytes, tail, tail mask.
var<workgroup> ms_end: u32;
var<workgroup> mel_end: vec3<u32>;
var<workgroup> vlc_end: vec3<u32>;
// The merged segment: bytes, Scup, MEL bytes, VLC bytes.
var<workgroup> seg: vec4<u32>;

var<private> blk: HtBlock;
// The raw MagSgn's word that the staging's first word holds (0: it never left).
var<private> stage_base: u32;

fn flag(f: u32) {
    atomicOr(&wg_flags, f);
}

// ---- Samples.

// Exponent E of the sample at (x, y): the bits of 2 mu - 1; 0 outside or insignificant.
fn e_at(x: i32, y: i32) -> u32 {
    var e = 0u;
    if x >= 0 && u32(x) < blk.width && y >= 0 && u32(y) < blk.height {
        let k = u32(y) * blk.width + u32(x);
        e = (exps[k / 4u] >> (8u * (k % 4u))) & 0xFFu;
    }
    return e;
}

fn exponent(mu: u32) -> u32 {
    return select(32u - countLeadingZeros(2u * mu - 1u), 0u, mu == 0u);
}

// v of the quad's four samples (top-left, bottom-left, top-right, bottom-right), read
// without branches so that the four loads are in flight together; a sample past the
// block's edge reads its neighbour inside (it is insignificant, and never coded).
fn quad_v(qx: u32, qy: u32) -> vec4<u32> {
    let x0 = 2u * qx;
    let y0 = 2u * qy;
    let x1 = min(x0 + 1u, blk.width - 1u);
    let y1 = min(y0 + 1u, blk.height - 1u);
    let at = blk.coeff_offset;
    let c = vec4<i32>(
        coeffs[at + y0 * blk.width + x0],
        coeffs[at + y1 * blk.width + x0],
        coeffs[at + y0 * blk.width + x1],
        coeffs[at + y1 * blk.width + x1],
    );
    let mu = vec4<u32>(abs(c));
    return 2u * (mu - vec4<u32>(1u)) + select(vec4<u32>(0u), vec4<u32>(1u), c < vec4<i32>(0));
}

// Bit n set where component n holds.
fn pattern(b: vec4<bool>) -> u32 {
    return select(0u, 1u, b.x) | select(0u, 2u, b.y) | select(0u, 4u, b.z) | select(0u, 8u, b.w);
}

// The significance pattern of the quad whose top-left sample is (x, y).
fn rho_at(x: i32, y: i32) -> u32 {
    let e = vec4<u32>(e_at(x, y), e_at(x, y + 1), e_at(x + 1, y), e_at(x + 1, y + 1));
    return pattern(e > vec4<u32>(0u));
}

// ---- One quad's coding decisions (src/j2k/ht/cleanup.rs `code_quad`).

struct QuadCode {
    rho: u32,
    big_u: u32,
    u: u32,
    e_k: u32,
    // CxtVLC codeword, first bit in bit 0, and its length.
    cw: u32,
    cw_len: u32,
    // 0: no MEL event; else 1 | event << 1.
    mel: u32,
}

fn code_quad(qx: u32, qy: u32, left_rho: u32) -> QuadCode {
    var q: QuadCode;
    let x = i32(2u * qx);
    let y = i32(2u * qy);
    let e = vec4<u32>(e_at(x, y), e_at(x, y + 1), e_at(x + 1, y), e_at(x + 1, y + 1));
    q.rho = pattern(e > vec4<u32>(0u));
    let e_max = max(max(e.x, e.y), max(e.z, e.w));
    // The row above (its four exponents) gives kappa and the context.
    var kappa = 1u;
    var c_q = 0u;
    if qy == 0u {
        c_q = (left_rho & 1u) | (left_rho >> 1u);
    } else {
        let a = vec4<u32>(e_at(x - 1, y - 1), e_at(x, y - 1), e_at(x + 1, y - 1), e_at(x + 2, y - 1));
        if countOneBits(q.rho) > 1u {
            let above = max(max(a.x, a.y), max(a.z, a.w));
            kappa = max(select(0u, above - 1u, above > 0u), 1u);
        }
        let nw_n = a.x > 0u || a.y > 0u;
        let ne_nf = a.z > 0u || a.w > 0u;
        let west = (left_rho & 12u) != 0u;
        c_q = select(0u, 1u, nw_n) | (select(0u, 1u, west) << 1u) | (select(0u, 1u, ne_nf) << 2u);
    }
    q.big_u = max(e_max, kappa);
    q.u = q.big_u - kappa;
    var eps = 0u;
    if q.u > 0u {
        eps = pattern(e == vec4<u32>(q.big_u));
    }
    if c_q == 0u {
        q.mel = 1u | (select(0u, 2u, q.rho != 0u));
    }
    if c_q != 0u || q.rho != 0u {
        let base = select(2048u, 0u, qy == 0u);
        let w = vlc_table[base + (((c_q & 7u) << 8u) | ((q.rho & 15u) << 4u) | (eps & 15u))];
        if w == 0u {
            flag(FLAG_NO_CODEWORD);
        }
        q.cw = w & 0x7Fu;
        q.cw_len = (w >> 7u) & 7u;
        q.e_k = w >> 10u;
    }
    return q;
}

// The MagSgn bits of a quad: each significant sample's U bits, less the one e_k tells.
fn ms_bits(q: QuadCode) -> u32 {
    return countOneBits(q.rho) * q.big_u - countOneBits(q.e_k & q.rho);
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

// ---- One quad pair: its VLC bits, MEL events and MagSgn bit count.

struct PairCode {
    vlc: u32,
    vlc_len: u32,
    mel: u32,
    ms_len: u32,
    // Each quad's rho, U and e_k (4 + 6 + 4 bits), for placing its MagSgn bits.
    q0: u32,
    q1: u32,
}

// `bits` with the low `n` bits of `v` appended (at most 30 bits in all).
fn append(bits: vec2<u32>, v: u32, n: u32) -> vec2<u32> {
    return vec2<u32>(bits.x | ((v & ((1u << n) - 1u)) << bits.y), bits.y + n);
}

fn pack_quad(q: QuadCode) -> u32 {
    return q.rho | (q.big_u << 4u) | (q.e_k << 10u);
}

// Quads of the pair whose first is quad column `qx`: 1 at a row's odd end.
fn pair_quads(qx: u32, quads_w: u32) -> u32 {
    return select(1u, 2u, qx + 1u < quads_w);
}

fn code_pair(p: u32, pairs_per_row: u32, quads_w: u32) -> PairCode {
    var pc: PairCode;
    let qy = p / pairs_per_row;
    let qx = 2u * (p % pairs_per_row);
    // The pair's quads (the second where the row has one) through one call site of
    // code_quad: the driver inlines a copy at each site, and copies cost compile time.
    var a: QuadCode;
    var b: QuadCode;
    var left = rho_at(i32(2u * qx) - 2, i32(2u * qy));
    for (var k = 0u; k < pair_quads(qx, quads_w); k++) {
        let q = code_quad(qx + k, qy, left);
        if k == 0u {
            a = q;
        } else {
            b = q;
        }
        left = q.rho;
    }
    // VLC: both codewords, then the u codes (src/j2k/ht/cleanup.rs `code_u_pair`).
    var vlc = append(vec2<u32>(a.cw, a.cw_len), b.cw, b.cw_len);
    var mel_n = 0u;
    var mel_v = 0u;
    if a.mel != 0u {
        mel_v |= (a.mel >> 1u) << mel_n;
        mel_n += 1u;
    }
    if b.mel != 0u {
        mel_v |= (b.mel >> 1u) << mel_n;
        mel_n += 1u;
    }
    var ua = a.u;
    var ub = b.u;
    var one_bit = false;
    if qy == 0u && a.u > 0u && b.u > 0u {
        let both_big = a.u > 2u && b.u > 2u;
        mel_v |= select(0u, 1u, both_big) << mel_n;
        mel_n += 1u;
        if both_big {
            ua = a.u - 2u;
            ub = b.u - 2u;
        } else if a.u > 2u {
            one_bit = true;
        }
    }
    if one_bit {
        let c = ucode(a.u);
        vlc = append(vlc, c.x, c.y);
        vlc = append(vlc, b.u - 1u, 1u);
        vlc = append(vlc, c.z, c.w);
    } else {
        let ca = ucode(ua);
        let cb = ucode(ub);
        vlc = append(vlc, ca.x, ca.y);
        vlc = append(vlc, cb.x, cb.y);
        vlc = append(vlc, ca.z, ca.w);
        vlc = append(vlc, cb.z, cb.w);
    }
    pc.vlc = vlc.x;
    pc.vlc_len = vlc.y;
    pc.mel = mel_n | (mel_v << 2u);
    pc.ms_len = ms_bits(a) + ms_bits(b);
    pc.q0 = pack_quad(a);
    pc.q1 = pack_quad(b);
    return pc;
}

// ---- Placing raw bits.

// `n` bits of `v` at bit `at` of the round's MagSgn staging.
fn stage_put(at: u32, v: u32, n: u32) {
    if n > 0u {
        let w = at / 32u;
        let s = at % 32u;
        atomicOr(&ms_stage[w], v << s);
        if s + n > 32u {
            atomicOr(&ms_stage[w + 1u], v >> (32u - s));
        }
    }
}

// The MagSgn bits of one quad (packed by `pack_quad`, its samples' v in `v`) from bit
// `at` of the staging; returns the end. The four samples are written out, so that `v`
// is never indexed at run time (it stays in registers).
fn stage_quad(packed: u32, v: vec4<u32>, at: u32) -> u32 {
    var pos = at;
    pos = stage_sample(packed, 0u, v.x, pos);
    pos = stage_sample(packed, 1u, v.y, pos);
    pos = stage_sample(packed, 2u, v.z, pos);
    pos = stage_sample(packed, 3u, v.w, pos);
    return pos;
}

// Sample n's MagSgn bits, if it is significant: v's low U bits, less the top one where
// the codeword told it (e_k).
fn stage_sample(packed: u32, n: u32, v: u32, at: u32) -> u32 {
    var pos = at;
    if ((packed >> n) & 1u) == 1u {
        let m = ((packed >> 4u) & 63u) - ((packed >> (10u + n)) & 1u);
        stage_put(pos, v & ((1u << m) - 1u), m);
        pos += m;
    }
    return pos;
}

fn raw_put(k: u32, v: u32) {
    if k < blk.raw_cap {
        scratch[blk.raw_word + k] = v;
    } else {
        flag(FLAG_OVERFLOW);
    }
}

// Word k of the raw MagSgn: from the staging where it never left it (the usual case:
// a block's MagSgn up to MS_STAGE_WORDS words), else from `scratch`.
fn raw_get(k: u32) -> u32 {
    var v = 0u;
    if stage_base == 0u {
        if k < MS_STAGE_WORDS {
            v = atomicLoad(&ms_stage[k]);
        }
    } else if k < blk.raw_cap {
        v = scratch[blk.raw_word + k];
    }
    return v;
}

fn vlc_raw_get(k: u32) -> u32 {
    var v = 0u;
    if k < VLC_RAW_WORDS {
        v = atomicLoad(&vlc_raw[k]);
    }
    return v;
}

// The bits from bit `s` of the window (lo, hi), lo's bit 0 first.
fn window(lo: u32, hi: u32, s: u32) -> u32 {
    return select((lo >> s) | (hi << (32u - s)), lo, s == 0u);
}

// ---- Byte outputs, a word at a time.

fn out_word_put(k: u32, v: u32) {
    if k < blk.out_cap / 4u {
        out[blk.out_word + k] = v;
    } else {
        flag(FLAG_OVERFLOW);
    }
}

fn mel_base() -> u32 {
    return blk.scratch_word;
}

fn vlc_base() -> u32 {
    return blk.scratch_word + (blk.mel_cap + 3u) / 4u;
}

fn scratch_word_put(base: u32, cap: u32, k: u32, v: u32) {
    if k < (cap + 3u) / 4u {
        scratch[base + k] = v;
    } else {
        flag(FLAG_OVERFLOW);
    }
}

// Byte `p` of a scratch stream: appended after its words are written.
fn scratch_byte_put(base: u32, cap: u32, p: u32, b: u32) {
    if p >= cap {
        flag(FLAG_OVERFLOW);
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

fn scratch_byte(base: u32, cap: u32, p: u32) -> u32 {
    var b = 0u;
    if p < cap {
        b = (scratch[base + p / 4u] >> ((p % 4u) * 8u)) & 0xFFu;
    }
    return b;
}

// ---- The stream an invocation is writing, a word at a time (MagSgn into the output
// region, MEL or VLC into scratch; one at a time per invocation): its bytes so far, and
// the word being filled.

const TO_MAGSGN: u32 = 0u;
const TO_MEL: u32 = 1u;
const TO_VLC: u32 = 2u;

var<private> sink_to: u32;
var<private> sink_len: u32;
var<private> sink_word: u32;

// Start a stream whose first `len` bytes (fewer than 4) are `word`'s.
fn sink_open(to: u32, len: u32, word: u32) {
    sink_to = to;
    sink_len = len;
    sink_word = word;
}

fn sink_put_word(k: u32, v: u32) {
    if sink_to == TO_MAGSGN {
        out_word_put(k, v);
    } else if sink_to == TO_MEL {
        scratch_word_put(mel_base(), blk.mel_cap, k, v);
    } else {
        scratch_word_put(vlc_base(), blk.vlc_cap, k, v);
    }
}

fn sink_byte(b: u32) {
    sink_word |= b << (8u * (sink_len % 4u));
    sink_len += 1u;
    if sink_len % 4u == 0u {
        sink_put_word(sink_len / 4u - 1u, sink_word);
        sink_word = 0u;
    }
}

// Four bytes, the first in bits 0-7.
fn sink_bytes4(bits: u32) {
    let sh = 8u * (sink_len % 4u);
    sink_put_word(sink_len / 4u, sink_word | (bits << sh));
    sink_word = select(bits >> (32u - sh), 0u, sh == 0u);
    sink_len += 4u;
}

// The partial last word written; returns the stream's bytes.
fn sink_close() -> u32 {
    if sink_len % 4u != 0u {
        sink_put_word(sink_len / 4u, sink_word);
    }
    return sink_len;
}

// ---- MagSgn: forward, each byte from bit 0 up, 7 bits in the byte after 0xFF; the last
// byte padded with 1s, and left out where that makes 0xFF (src/j2k/ht/streams.rs).

fn stuff_magsgn(n_bits: u32) {
    var pos = 0u;
    var room = 8u;
    var last = 0u;
    var done = false;
    sink_open(TO_MAGSGN, 0u, 0u);
    loop {
        let bits = window(raw_get(pos / 32u), raw_get(pos / 32u + 1u), pos % 32u);
        // Four whole bytes at once where none of the first three is 0xFF (the fourth
        // only sets the next byte's room): the usual case.
        let b = vec4<u32>(bits & 0xFFu, (bits >> 8u) & 0xFFu, (bits >> 16u) & 0xFFu, bits >> 24u);
        if room == 8u && n_bits - pos >= 32u && !any(b.xyz == vec3<u32>(0xFFu)) {
            sink_bytes4(bits);
            pos += 32u;
            last = b.w;
            room = select(8u, 7u, last == 0xFFu);
            continue;
        }
        // Else a byte; the last takes the partial byte, padded with 1s.
        let used = min(n_bits - pos, room);
        let one = (bits & ((1u << used) - 1u)) | ((0xFFu << used) & ((1u << room) - 1u) & 0xFFu);
        if used < room && (used == 0u || one == 0xFFu) {
            done = true;
            break;
        }
        sink_byte(one);
        if used < room {
            done = true;
            break;
        }
        pos += room;
        room = select(8u, 7u, one == 0xFFu);
        last = one;
    }
    if !done {
        flag(FLAG_CUT);
    }
    var len = sink_close();
    if pos == n_bits && len > 0u && last == 0xFFu {
        len -= 1u;
    }
    ms_end = len;
}

// ---- VLC: backward from the segment's end, each byte from bit 0 up; after a byte above
// 0x8F, seven 1 bits close a byte with a stuffed 0 on top. The raw bits begin with the
// 0xF placeholder nibble of the byte before the last; the last byte (0xFF) is byte 0.

fn stuff_vlc(n_bits: u32) {
    var pos = 0u;
    var after_big = true;
    var done = false;
    sink_open(TO_VLC, 1u, 0xFFu);
    loop {
        let rem = n_bits - pos;
        let bits = window(vlc_raw_get(pos / 32u), vlc_raw_get(pos / 32u + 1u), pos % 32u);
        // Four whole bytes at once where none closes at 7 bits.
        let b = vec4<u32>(bits & 0xFFu, (bits >> 8u) & 0xFFu, (bits >> 16u) & 0xFFu, bits >> 24u);
        let big_before = vec4<bool>(after_big, b.x > 0x8Fu, b.y > 0x8Fu, b.z > 0x8Fu);
        let sevens = (b & vec4<u32>(0x7Fu)) == vec4<u32>(0x7Fu);
        if rem >= 32u && !any(big_before & sevens) {
            sink_bytes4(bits);
            pos += 32u;
            after_big = b.w > 0x8Fu;
            continue;
        }
        var one = b.x;
        var step = 8u;
        if after_big && rem >= 7u && (b.x & 0x7Fu) == 0x7Fu {
            one = 0x7Fu;
            step = 7u;
        } else if rem < 8u {
            done = true;
            break;
        }
        sink_byte(one);
        pos += step;
        after_big = one > 0x8Fu;
    }
    if !done {
        flag(FLAG_CUT);
    }
    let len = sink_close();
    let used = n_bits - pos;
    let tail = window(vlc_raw_get(pos / 32u), vlc_raw_get(pos / 32u + 1u), pos % 32u) & ((1u << used) - 1u);
    vlc_end = vec3<u32>(len, tail, (1u << used) - 1u);
}

// ---- MEL: 13-state run-length coder, MSB first, a 0 stuffed after 0xFF.

// Run-length exponent of each state: 0,0,0,1,1,1,2,2,2,3,3,4,5.
fn mel_e(s: u32) -> u32 {
    return select(select(s - 7u, 3u, s < 11u), s / 3u, s < 9u);
}

var<private> mel_acc: u32;
var<private> mel_free: u32;

fn mel_put_bit(bit: u32) {
    mel_acc = ((mel_acc << 1u) | bit) & 0xFFu;
    mel_free -= 1u;
    if mel_free == 0u {
        sink_byte(mel_acc);
        mel_free = select(8u, 7u, mel_acc == 0xFFu);
        mel_acc = 0u;
    }
}

fn code_mel(pairs: u32) {
    sink_open(TO_MEL, 0u, 0u);
    mel_acc = 0u;
    mel_free = 8u;
    var run = 0u;
    var state = 0u;
    var p = 0u;
    for (; p < pairs; p++) {
        let code = (atomicLoad(&mel_codes[p / 4u]) >> (8u * (p % 4u))) & 0xFFu;
        for (var i = 0u; i < (code & 3u); i++) {
            let e = mel_e(state);
            if ((code >> (2u + i)) & 1u) == 0u {
                run += 1u;
                if run == (1u << e) {
                    mel_put_bit(1u);
                    run = 0u;
                    state = min(state + 1u, 12u);
                }
            } else {
                mel_put_bit(0u);
                for (var k = e; k > 0u; k--) {
                    mel_put_bit((run >> (k - 1u)) & 1u);
                }
                run = 0u;
                state = select(0u, state - 1u, state > 0u);
            }
        }
    }
    if p != pairs {
        flag(FLAG_CUT);
    }
    // An unfinished run is sent as a full one.
    if run > 0u {
        mel_put_bit(1u);
    }
    mel_end = vec3<u32>(sink_close(), (mel_acc << mel_free) & 0xFFu, (0xFFu << mel_free) & 0xFFu);
}

// ---- The merge: the meeting byte of MEL and VLC (src/j2k/ht/streams.rs `merge`).

fn merge_ends() {
    var mel_n = mel_end.x;
    var vlc_n = vlc_end.x;
    let mel_tail = mel_end.y;
    let mel_mask = mel_end.z;
    let vlc_tail = vlc_end.y;
    let vlc_mask = vlc_end.z;
    if (mel_mask | vlc_mask) != 0u {
        let fused = mel_tail | vlc_tail;
        let agree = ((fused ^ mel_tail) & mel_mask) == 0u && ((fused ^ vlc_tail) & vlc_mask) == 0u;
        if agree && fused != 0xFFu && vlc_n > 1u {
            scratch_byte_put(mel_base(), blk.mel_cap, mel_n, fused);
            mel_n += 1u;
        } else {
            scratch_byte_put(mel_base(), blk.mel_cap, mel_n, mel_tail);
            mel_n += 1u;
            scratch_byte_put(vlc_base(), blk.vlc_cap, vlc_n, vlc_tail);
            vlc_n += 1u;
        }
    }
    let scup = mel_n + vlc_n;
    seg = vec4<u32>(ms_end + scup, scup, mel_n, vlc_n);
}

// Word k of the segment from byte ms_end on: MagSgn's last bytes, MEL, the VLC
// reversed, and Scup in the last byte and the low nibble of the one before.
fn segment_word(k: u32, s: vec4<u32>, ms_n: u32) -> u32 {
    var word = 0u;
    if 4u * k < ms_n {
        word = out[blk.out_word + k];
    }
    for (var j = 0u; j < 4u; j++) {
        let p = 4u * k + j;
        var b = (word >> (8u * j)) & 0xFFu;
        if p >= ms_n {
            if p < ms_n + s.z {
                b = scratch_byte(mel_base(), blk.mel_cap, p - ms_n);
            } else if p < s.x {
                b = scratch_byte(vlc_base(), blk.vlc_cap, s.w - 1u - (p - ms_n - s.z));
            } else {
                b = 0u;
            }
        }
        if p + 1u == s.x {
            b = (s.y >> 4u) & 0xFFu;
        } else if p + 2u == s.x {
            b = (b & 0xF0u) | (s.y & 0xFu);
        }
        word = (word & ~(0xFFu << (8u * j))) | (b << (8u * j));
    }
    return word;
}

// ---- One block.

fn code_block(inv: Invocation, i: u32) {
    let lane = scan_lane(inv);
    blk = blocks[i];
    if inv.lid == 0u {
        atomicStore(&wg_max, 0u);
        atomicStore(&wg_flags, 0u);
    }
    workgroupBarrier();
    // The block's bit-planes (the host knows them only where it holds the coefficients)
    // and its samples' exponents, four samples a step, their loads in flight together.
    let n = blk.width * blk.height;
    let words = (n + 3u) / 4u;
    var max_mu = 0u;
    var k = lane;
    for (; k < words; k += WG_SIZE) {
        let idx = vec4<u32>(4u * k) + vec4<u32>(0u, 1u, 2u, 3u);
        let at = vec4<u32>(blk.coeff_offset) + min(idx, vec4<u32>(n - 1u));
        let c = vec4<i32>(coeffs[at.x], coeffs[at.y], coeffs[at.z], coeffs[at.w]);
        let mu = select(vec4<u32>(0u), vec4<u32>(abs(c)), idx < vec4<u32>(n));
        max_mu = max(max_mu, max(max(mu.x, mu.y), max(mu.z, mu.w)));
        exps[k] = exponent(mu.x) | (exponent(mu.y) << 8u) | (exponent(mu.z) << 16u) | (exponent(mu.w) << 24u);
    }
    if k < words {
        flag(FLAG_CUT);
    }
    atomicMax(&wg_max, max_mu);
    workgroupBarrier();
    if inv.lid == 0u {
        wg_planes = 32u - countLeadingZeros(atomicLoad(&wg_max));
    }
    let planes = workgroupUniformLoad(&wg_planes);
    if planes == 0u || planes > 30u {
        if inv.lid == 0u {
            results[i * RESULT_WORDS] = 0u;
            results[i * RESULT_WORDS + 1u] = 0u;
            results[i * RESULT_WORDS + 2u] = atomicLoad(&wg_flags) | FLAG_DONE | select(0u, FLAG_TOO_DEEP, planes > 30u);
            results[i * RESULT_WORDS + 3u] = planes;
        }
        return;
    }

    let quads_w = (blk.width + 1u) / 2u;
    let quads_h = (blk.height + 1u) / 2u;
    let pairs_per_row = (quads_w + 1u) / 2u;
    let pairs = pairs_per_row * quads_h;
    let vlc_words = min((4u + PAIR_VLC_BITS * pairs) / 32u + 2u, VLC_RAW_WORDS);
    for (var k = inv.lid; k < vlc_words; k += WG_SIZE) {
        atomicStore(&vlc_raw[k], select(0u, 0xFu, k == 0u));
    }
    for (var k = inv.lid; k < MS_STAGE_WORDS; k += WG_SIZE) {
        atomicStore(&ms_stage[k], 0u);
    }
    for (var k = inv.lid; k <= pairs / 4u; k += WG_SIZE) {
        atomicStore(&mel_codes[k], 0u);
    }
    stage_base = 0u;
    workgroupBarrier();

    // 1. Rounds of pairs: code, place by a scan, stage.
    var ms_at = 0u;
    var vlc_at = 4u;
    for (var r = 0u; r < pairs; r += WG_SIZE) {
        let p = r + lane;
        var pc: PairCode;
        if p < pairs {
            pc = code_pair(p, pairs_per_row, quads_w);
            atomicOr(&mel_codes[p / 4u], pc.mel << (8u * (p % 4u)));
        }
        // MagSgn bits in the low half, VLC bits in the high (a round holds fewer than
        // 2^16 of each: WG_SIZE <= MAX_WG).
        let scan = wg_exclusive_scan(inv, pc.ms_len | (pc.vlc_len << 16u));
        let round_bits = scan.y & 0xFFFFu;
        // Where the round would run past the staging (one word kept spare for its last
        // bits' straddle), the staging's complete words go to scratch first.
        let held = ms_at - 32u * stage_base;
        let flush = held + round_bits > 32u * (MS_STAGE_WORDS - 1u);
        let full = held / 32u;
        if flush {
            for (var k = inv.lid; k < full; k += WG_SIZE) {
                raw_put(stage_base + k, atomicLoad(&ms_stage[k]));
                atomicStore(&ms_stage[k], 0u);
            }
        }
        workgroupBarrier();
        if flush {
            if inv.lid == 0u {
                atomicStore(&ms_stage[0], atomicLoad(&ms_stage[full]));
                atomicStore(&ms_stage[full], 0u);
            }
            stage_base += full;
        }
        workgroupBarrier();
        if p < pairs {
            let v = vlc_at + (scan.x >> 16u);
            atomicOr(&vlc_raw[v / 32u], pc.vlc << (v % 32u));
            if v % 32u + pc.vlc_len > 32u {
                atomicOr(&vlc_raw[v / 32u + 1u], pc.vlc >> (32u - v % 32u));
            }
            let qy = p / pairs_per_row;
            let qx = 2u * (p % pairs_per_row);
            // One call site each of quad_v and stage_quad, as of code_quad.
            var at = ms_at - 32u * stage_base + (scan.x & 0xFFFFu);
            for (var k = 0u; k < pair_quads(qx, quads_w); k++) {
                at = stage_quad(select(pc.q0, pc.q1, k == 1u), quad_v(qx + k, qy), at);
            }
        }
        ms_at += round_bits;
        vlc_at += scan.y >> 16u;
    }
    workgroupBarrier();
    // A block whose MagSgn left the staging: the rest follows it.
    if stage_base != 0u {
        for (var k = inv.lid; 32u * k < ms_at - 32u * stage_base; k += WG_SIZE) {
            raw_put(stage_base + k, atomicLoad(&ms_stage[k]));
        }
    }
    storageBarrier();
    workgroupBarrier();

    // 2. Stuffing, the three streams by two invocations in different subgroups.
    if inv.lid == 0u {
        stuff_magsgn(ms_at);
    }
    if inv.lid == WG_SIZE / 2u {
        stuff_vlc(vlc_at);
        code_mel(pairs);
    }
    storageBarrier();
    workgroupBarrier();

    // 3. The merge.
    if inv.lid == 0u {
        merge_ends();
    }
    storageBarrier();
    workgroupBarrier();
    let s = seg;
    let ms_n = ms_end;
    if s.x > blk.out_cap && inv.lid == 0u {
        flag(FLAG_OVERFLOW);
    }
    var w = ms_n / 4u + inv.lid;
    for (; 4u * w < s.x; w += WG_SIZE) {
        out_word_put(w, segment_word(w, s, ms_n));
    }
    if 4u * w < s.x {
        flag(FLAG_CUT);
    }
    workgroupBarrier();
    if inv.lid == 0u {
        results[i * RESULT_WORDS] = s.x;
        results[i * RESULT_WORDS + 1u] = s.y;
        results[i * RESULT_WORDS + 2u] = atomicLoad(&wg_flags) | FLAG_DONE;
        results[i * RESULT_WORDS + 3u] = planes;
    }
    workgroupBarrier();
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    let grid = workgroup_grid(inv);
    for (var i = grid.x; i < params.n_blocks; i += grid.y) {
        code_block(inv, i);
    }
}
