// Writes one invocation's run of codes into the shared, zeroed output, in one of two
// ways chosen per block (uniformly):
// - direct (the CUVLE paper): straight to the output, atomicOr on the first and last
//   word, which neighbours share; plain atomic stores for the words in between;
// - staged: into the block's stage in workgroup memory, each completed word stored by the
//   invocation that completes it, partial words OR-ed in after a barrier; the workgroup
//   then copies the block's words out whole and coalesced (bitwriter_stage_out), atomicOr
//   only on the block's two end words (or, with STAGE_ENDS_TO_CALLER, none: the caller
//   hands those two back, and the output needs no clearing). Neighbouring invocations
//   write ~9 words apart, so direct stores touch a cache line each; staged ones fill
//   whole lines.
//
// Codes are packed LSB-first (DEFLATE order) and must arrive bit-reversed, so that their
// first bit is bit 0. With MSB_FIRST every output word has the bits of each byte reversed,
// which turns the LSB-first stream into the MSB-first one (JPEG, H.264, CUVLE).
// CPU twin: src/huffman/cuvle.rs `encode_cuvle_cpu`.

//!import common/bitpack
//!import common/invocation

@group(0) @binding(3) var<storage, read_write> output: array<atomic<u32>>;

override MSB_FIRST: bool = true;
// Blocks are staged when STAGED and their code fits the STAGE_WORDS words of the stage;
// the others take the direct path.
override STAGED: bool = false;
override STAGE_WORDS: u32 = 1u;
// The staged copy-out leaves a block's two end words in the stage for the caller, which
// hands them to the host: the output then takes plain stores only, needs no clearing,
// and may lie in host memory. Every block must then fit the stage.
override STAGE_ENDS_TO_CALLER: bool = false;
var<workgroup> stage: array<atomic<u32>, STAGE_WORDS>;

struct BitWriter {
    word: u32,    // output word the pending bits belong to
    pending: u32,
    fill: u32,    // pending bits, 0..31
    head: u32,    // direct: the invocation's first word, held back: its neighbour shares it
    has_head: bool,
    stage_base: u32, // staged: output word of stage[0]
    staged: bool,
}

fn bitwriter_at(bit_position: u32) -> BitWriter {
    return BitWriter(bit_position >> 5u, 0u, bit_position & 31u, 0u, false, 0u, false);
}

// A writer into the stage of a block whose first output word is `stage_base`.
fn bitwriter_staged(bit_position: u32, stage_base: u32) -> BitWriter {
    return BitWriter(bit_position >> 5u, 0u, bit_position & 31u, 0u, false, stage_base, true);
}

// Whether a block of `bits` bits starting at `first_bit` fits the stage.
fn stage_fits(first_bit: u32, bits: u32) -> bool {
    return STAGED && ((first_bit + bits + 31u) >> 5u) - (first_bit >> 5u) <= STAGE_WORDS;
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
    if (*w).staged {
        atomicStore(&stage[(*w).word - (*w).stage_base], (*w).pending);
    } else if (*w).has_head {
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

// Direct: write the held-back first word and the partial last word, both shared with
// neighbours.
fn bitwriter_finish(w: ptr<function, BitWriter>, first_word: u32) {
    if (*w).has_head {
        atomicOr(&output[first_word], stream_word((*w).head));
    }
    if (*w).fill != 0u {
        atomicOr(&output[(*w).word], stream_word((*w).pending));
    }
}

// Staged, called by the whole workgroup: complete the stage (the invocation holding the
// block's last bit stores the final partial word; every other partial word is OR-ed into
// a word its completer stored), then copy the block's words out. `is_last`: this
// invocation holds the block's last bit. `first_bit`/`bits`: the block's span. No
// barrier after: the caller's next barrier (before the next block's words go in) orders
// the copy-out before them, and bitwriter_stage_ends' reads too.
fn bitwriter_stage_out(inv: Invocation, w: ptr<function, BitWriter>, is_last: bool, first_bit: u32, bits: u32) {
    let tail = (*w).fill != 0u;
    if tail && is_last {
        atomicStore(&stage[(*w).word - (*w).stage_base], (*w).pending);
    }
    workgroupBarrier();
    if tail && !is_last {
        atomicOr(&stage[(*w).word - (*w).stage_base], (*w).pending);
    }
    workgroupBarrier();
    let first_word = first_bit >> 5u;
    let n_words = ((first_bit + bits + 31u) >> 5u) - first_word;
    for (var j = inv.lid; j < n_words; j += WG_SIZE) {
        let value = stream_word(atomicLoad(&stage[j]));
        if j == 0u || j + 1u == n_words {
            if !STAGE_ENDS_TO_CALLER {
                atomicOr(&output[first_word + j], value);
            }
        } else {
            atomicStore(&output[first_word + j], value);
        }
    }
}

// STAGE_ENDS_TO_CALLER: the first and last word of the block just copied out (after
// bitwriter_stage_out, before the next barrier), in stream order; the last is 0 when
// the block's code lies in one word.
fn bitwriter_stage_ends(first_bit: u32, bits: u32) -> vec2<u32> {
    let n_words = ((first_bit + bits + 31u) >> 5u) - (first_bit >> 5u);
    if n_words == 0u {
        return vec2<u32>(0u, 0u);
    }
    let head = stream_word(atomicLoad(&stage[0]));
    if n_words == 1u {
        return vec2<u32>(head, 0u);
    }
    return vec2<u32>(head, stream_word(atomicLoad(&stage[n_words - 1u])));
}
