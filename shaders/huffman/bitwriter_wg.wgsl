// Writes one invocation's run of codes into a block buffer in workgroup memory (PAVLE):
// every word goes in with atomicOr, since the first and last are shared with neighbouring
// invocations (Balevic's kernel ORs every word; the block buffer is zeroed first).
// Workgroup-memory twin of common/bitwriter.wgsl, which writes straight to the output
// (CUVLE): the same put, LSB-first, codes arriving bit-reversed (first bit in bit 0); the
// stage turns words into stream order later (common/bitwriter.wgsl `stream_word`).
// CPU twin: src/huffman/pavle.rs `encode_pavle_cpu`.

//!import common/bitpack

// Words of the block buffer: the stage sets its worst case (src/huffman/pavle.rs
// `PavleConfig::buffer_words`).
override WG_BITS_WORDS: u32 = 1024u;
var<workgroup> wg_bits: array<atomic<u32>, WG_BITS_WORDS>;

struct WgBitWriter {
    word: u32,    // buffer word the pending bits belong to
    pending: u32,
    fill: u32,    // pending bits, 0..31
}

fn wg_bitwriter_at(bit_position: u32) -> WgBitWriter {
    return WgBitWriter(bit_position >> 5u, 0u, bit_position & 31u);
}

// `code` holds `len` (1..32) bits, first bit in bit 0.
fn wg_bitwriter_put(w: ptr<function, WgBitWriter>, code: u32, len: u32) {
    let p = pack_bits((*w).pending, (*w).fill, code, len);
    if p.full {
        atomicOr(&wg_bits[(*w).word], p.word);
        (*w).word += 1u;
        (*w).pending = p.carry;
    } else {
        (*w).pending = p.word;
    }
    (*w).fill = p.fill;
}

fn wg_bitwriter_finish(w: ptr<function, WgBitWriter>) {
    if (*w).fill != 0u {
        atomicOr(&wg_bits[(*w).word], (*w).pending);
    }
}
