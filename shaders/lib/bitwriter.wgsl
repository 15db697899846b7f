// Writes one invocation's run of codes straight into the shared, zeroed output (CUVLE):
// atomicOr on the first and last word, which neighbours share; plain atomic stores for
// the words in between, which only this invocation touches.
//
// Codes are packed LSB-first (DEFLATE order) and must arrive bit-reversed, so that their
// first bit is bit 0. With MSB_FIRST every output word has the bits of each byte reversed,
// which turns the LSB-first stream into the MSB-first one (JPEG, H.264, CUVLE).
// CPU twin: src/huffman/cuvle.rs `encode_cuvle_cpu`.

//!import bitpack

@group(0) @binding(3) var<storage, read_write> output: array<atomic<u32>>;

override MSB_FIRST: bool = true;

struct BitWriter {
    word: u32,    // output word the pending bits belong to
    pending: u32,
    fill: u32,    // pending bits, 0..31
    head: u32,    // the invocation's first word, held back: its neighbour shares it
    has_head: bool,
}

fn bitwriter_at(bit_position: u32) -> BitWriter {
    return BitWriter(bit_position >> 5u, 0u, bit_position & 31u, 0u, false);
}

fn reverse_bits_in_bytes(x: u32) -> u32 {
    let r = reverseBits(x);
    return (r >> 24u) | ((r >> 8u) & 0xff00u) | ((r << 8u) & 0xff0000u) | (r << 24u);
}

fn stream_word(x: u32) -> u32 {
    if MSB_FIRST {
        return reverse_bits_in_bytes(x);
    }
    return x;
}

// A full word: the first one is kept in a register (written by bitwriter_finish with
// atomicOr), the others are this invocation's alone and are stored. Keeping the head in
// a register leaves one memory operation per flush, with no divergent choice between two.
fn bitwriter_flush(w: ptr<function, BitWriter>) {
    if (*w).has_head {
        atomicStore(&output[(*w).word], stream_word((*w).pending));
    } else {
        (*w).head = (*w).pending;
        (*w).has_head = true;
    }
    (*w).word += 1u;
}

// `code` holds `len` (1..32) bits, first bit in bit 0.
fn bitwriter_put(w: ptr<function, BitWriter>, code: u32, len: u32) {
    let p = pack_bits((*w).pending, (*w).fill, code, len);
    (*w).pending = p.word;
    if p.full {
        bitwriter_flush(w);
        (*w).pending = p.carry;
    }
    (*w).fill = p.fill;
}

// Write the held-back first word and the partial last word, both shared with neighbours.
fn bitwriter_finish(w: ptr<function, BitWriter>, first_word: u32) {
    if (*w).has_head {
        atomicOr(&output[first_word], stream_word((*w).head));
    }
    if (*w).fill != 0u {
        atomicOr(&output[(*w).word], stream_word((*w).pending));
    }
}
