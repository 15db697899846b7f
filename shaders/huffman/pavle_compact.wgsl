// PAVLE's last pass, compaction: the block-codes sit in their slots (huffman/pavle.wgsl) and
// their offsets in the stream are the exclusive scan of the block bit lengths (scan/exclusive,
// recorded between the two passes, as Balevic's scan of the block lengths). One workgroup
// per block-code (grid-stride, a bounded count per workgroup) shifts the block's words into
// place: a plain store for the words only this block covers, atomicOr for its first and
// last word, which neighbouring blocks share. Slots hold LSB-first words; they go out
// through common/bitwriter.wgsl's `stream_word` (MSB_FIRST reverses the bits of each byte).
// CPU twin: src/huffman/pavle.rs `encode_pavle_cpu`.
//!import common/invocation
//!import common/bitwriter

struct CompactParams {
    n_blocks: u32,      // block-codes in this segment
    slot_words: u32,    // stride of the slots
    start_bit: u32,     // bit offset of the first code within output word `out_word_base`
    out_word_base: u32, // first output word of this segment within the bound window
}
// keep in sync with src/huffman/pavle.rs `CompactParams`
@group(0) @binding(0) var<uniform> params: CompactParams;
@group(0) @binding(1) var<storage, read> slots: array<u32>;
@group(0) @binding(2) var<storage, read> block_bits: array<u32>;
// binding 3: `output` (common/bitwriter.wgsl).
// Exclusive prefix of block_bits: each block-code's bit offset in the segment.
@group(0) @binding(4) var<storage, read> block_offsets: array<u32>;

// Word `k` of a block-code starting `shift` bits into its first output word.
fn shifted_word(slot: u32, n_src: u32, k: u32, shift: u32) -> u32 {
    var v = 0u;
    if k < n_src {
        v = slots[slot + k] << shift;
    }
    if shift != 0u && k > 0u {
        v |= slots[slot + k - 1u] >> (32u - shift);
    }
    return v;
}

@compute @workgroup_size(WG_SIZE)
fn compact(inv: Invocation) {
    for (var block = inv.wid.x; block < params.n_blocks; block += inv.nwg.x) {
        let bits = block_bits[block];
        if bits == 0u {
            continue;
        }
        let position = params.out_word_base * 32u + params.start_bit + block_offsets[block];
        let first = position >> 5u;
        let shift = position & 31u;
        let n_src = (bits + 31u) / 32u;
        let n_dst = ((position + bits - 1u) >> 5u) - first + 1u;
        let slot = block * params.slot_words;
        for (var k = inv.lid; k < n_dst; k += WG_SIZE) {
            let word = stream_word(shifted_word(slot, n_src, k, shift));
            if k == 0u || k + 1u == n_dst {
                atomicOr(&output[first + k], word);
            } else {
                atomicStore(&output[first + k], word);
            }
        }
    }
}
