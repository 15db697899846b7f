// Bit-stuffing of many raw segments at once, one invocation per segment: the serial
// writer's rule run in registers, four output bytes a step, straight from and to global
// memory, with no workgroup memory and no barrier. Where segments are many and short (a
// tier-1's code-blocks, at most 1 KiB of raw bits each), the GPU is filled by segments,
// not by the bits of one; vote and fsm, a workgroup per segment, are bound by their
// barriers there. A step costs the same whatever the bits, so runs of 0xFF are as fast as
// random bits (a stuffed byte takes 7 of them, not 8).
// CPU twin: src/bitstuff/serial.rs `stuff_batch`; host: src/bitstuff/solo.rs.
//!import bitstuff/batch

// The next raw bits of a segment, MSB-first: `hi` holds the word at `word` and `lo` the
// one after (zero past the segment), `at` bits of `hi` already taken. (Loading a third
// word a step ahead measured the same on the H200: results/h200-2026-11-28-solo14b.txt
// under benches/.)
struct Reader {
    hi: u32,
    lo: u32,
    at: u32,
    word: u32,
}

// Output bytes in stream order: `acc` holds `held` bytes (from its high end) not yet
// stored; `stored` words are stored from `first`.
struct Writer {
    acc: u32,
    held: u32,
    stored: u32,
    first: u32,
}

fn load_word(seg: Segment, word: u32, n_words: u32) -> u32 {
    var w = 0u;
    if word < n_words {
        w = swap_bytes(input[seg.in_word + word]);
    }
    return w;
}

// The next 32 raw bits (past the segment's end: zeros), not taken.
fn peek32(r: Reader) -> u32 {
    if r.at == 0u {
        return r.hi;
    }
    return (r.hi << r.at) | (r.lo >> (32u - r.at));
}

// Take `n` (0..=32) bits.
fn advance(r: ptr<function, Reader>, n: u32, seg: Segment, n_words: u32) {
    let at = (*r).at + n;
    if at >= 32u {
        (*r).word += 1u;
        (*r).hi = (*r).lo;
        (*r).lo = load_word(seg, (*r).word + 1u, n_words);
        (*r).at = at - 32u;
    } else {
        (*r).at = at;
    }
}

// Append the `count` (1..=4) bytes at the high end of `bytes`.
fn put_bytes(w: ptr<function, Writer>, bytes: u32, count: u32) {
    let held = (*w).held;
    (*w).acc |= bytes >> (8u * held);
    let total = held + count;
    if total >= 4u {
        output[(*w).first + (*w).stored] = swap_bytes((*w).acc);
        (*w).stored += 1u;
        // The bytes that did not fit; a shift by 32 would be taken modulo 32.
        (*w).acc = select(bytes << (32u - 8u * held), 0u, held == 0u);
        (*w).held = total - 4u;
    } else {
        (*w).held = total;
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    let index = batch_index(inv) * WG_SIZE + inv.lid;
    if index >= params.n_segments {
        return;
    }
    let seg = segments[index];
    let n = seg.bits;
    let n_words = (n + 31u) / 32u;
    var r = Reader(load_word(seg, 0u, n_words), load_word(seg, 1u, n_words), 0u, 0u);
    var w = Writer(0u, 0u, 0u, seg.out_word);
    var taken = 0u;
    // The last byte was 0xFF (so the next takes 7 bits), and the last two bytes.
    var after_ff = 0u;
    var last_two = 0u;
    // Four whole bytes a step while 32 raw bits remain: each takes 8 bits, or 7 after 0xFF.
    while n - taken >= 32u {
        let x = peek32(r);
        var bytes = 0u;
        var used = 0u;
        for (var k = 0u; k < 4u; k++) {
            let width = 8u - after_ff;
            let b = (x << used) >> (32u - width);
            after_ff = select(0u, 1u, b == 0xffu);
            bytes = (bytes << 8u) | b;
            used += width;
        }
        put_bytes(&w, bytes, 4u);
        last_two = bytes & 0xffffu;
        advance(&r, used, seg, n_words);
        taken += used;
    }
    // Then a byte at a time while a whole one remains.
    var width = 8u - after_ff;
    while n - taken >= width {
        let b = peek32(r) >> (32u - width);
        put_bytes(&w, b << 24u, 1u);
        last_two = ((last_two << 8u) | b) & 0xffffu;
        after_ff = select(0u, 1u, b == 0xffu);
        advance(&r, width, seg, n_words);
        taken += width;
        width = 8u - after_ff;
    }
    // Termination (OpenJPEG's BYPASS flush, as RawWriter::finish).
    var n_bytes = 4u * w.stored + w.held;
    let pending = n - taken;
    if n > 0u {
        if pending > 0u || (params.predictable != 0u && after_ff == 1u) {
            // Pad the partial byte with 0, 1, 0, ... (after 0xFF with nothing pending:
            // 0x2A).
            let free = width - pending;
            let pad = (0x55u >> (free & 1u)) & ((1u << free) - 1u);
            let head = select(0u, peek32(r) >> (32u - pending), pending > 0u);
            put_bytes(&w, ((head << free) | pad) << 24u, 1u);
            n_bytes += 1u;
        } else if after_ff == 1u {
            // A final 0xFF with nothing pending is dropped.
            n_bytes -= 1u;
        } else if params.predictable == 0u && n_bytes >= 2u && last_two == 0xff7fu {
            // So is a final 0xFF 0x7F: the decoder reads 15 one bits past the end anyway.
            n_bytes -= 2u;
        }
    }
    if w.held > 0u {
        output[w.first + w.stored] = swap_bytes(w.acc);
    }
    results[index] = vec2<u32>(n_bytes, 0u);
}
