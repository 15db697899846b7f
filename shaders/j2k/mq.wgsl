// The MQ coder of EBCOT tier-1 (ISO/IEC 15444-1 C.2 with OpenJPEG's conventions: its
// byte-out, flush and pass-length rules), for one invocation per code-block, and the
// code-block's output bytes. `qe` must be filled with `qe_row` first; each coder of a
// workgroup has its 19 contexts at `mq_slot * 19` of `mq_ctx` (MQ_CTX_WORDS = 19 times
// the coders per workgroup).
//!import j2k/t1_io

override MQ_CTX_WORDS: u32 = 19u;
// Per context: state index | MPS << 7.
var<workgroup> mq_ctx: array<u32, MQ_CTX_WORDS>;
var<private> mq_slot: u32;

fn mq_ctx_get(cx: u32) -> u32 {
    return mq_ctx[mq_slot * 19u + cx];
}

fn mq_ctx_set(cx: u32, v: u32) {
    mq_ctx[mq_slot * 19u + cx] = v;
}


// Table C.2 packed: Qe | NMPS << 16 | NLPS << 22 | SWITCH << 28. Copied to workgroup
// memory per workgroup (a module-scope const array beside the override-sized arrays of
// common/bitstuff_wg.wgsl trips naga's override processing).
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
    for (var i = 1u; i < 17u; i++) {
        mq_ctx_set(i, 0u);
    }
    mq_ctx_set(0u, 4u);
    mq_ctx_set(17u, 3u);
    mq_ctx_set(18u, 46u);
}

// INITENC: a new segment (its first byte follows one that is not 0xFF).
fn mq_start() {
    mq_a = 0x8000u;
    mq_c = 0u;
    mq_ct = 12u;
    mq_has_b = false;
}

// BYTEOUT (C.2.7) with OpenJPEG's carry handling, written with one out_byte: the coder
// is inlined at every renormalisation, so each copy's size is compile time.
fn mq_byteout() {
    // After a 0xFF, or a carry that makes B 0xFF, the next byte takes 7 bits (stuffing).
    var seven = mq_has_b && mq_b == 0xffu;
    if !seven && mq_has_b && (mq_c & 0x8000000u) != 0u {
        mq_b += 1u;
        if mq_b == 0xffu {
            mq_c &= 0x7ffffffu;
            seven = true;
        }
    }
    // Before the segment's first byte B precedes the segment and INITENC's CT = 12 rules
    // a carry out.
    if mq_has_b {
        out_byte(mq_b);
    }
    if seven {
        mq_b = (mq_c >> 20u) & 255u;
        mq_c &= 0xfffffu;
        mq_ct = 7u;
    } else {
        mq_b = (mq_c >> 19u) & 255u;
        mq_c &= 0x7ffffu;
        mq_ct = 8u;
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
    let st = mq_ctx_get(cx);
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
        mq_ctx_set(cx, ((e >> 16u) & 63u) | (mps << 7u));
    } else {
        if mq_a < qe {
            mq_c += qe;
        } else {
            mq_a = qe;
        }
        mq_ctx_set(cx, ((e >> 22u) & 63u) | ((mps ^ (e >> 28u)) << 7u));
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

