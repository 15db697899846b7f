// Byte-per-bit Huffman encoding (Rahmani, "A Parallel Huffman Coder on the CUDA
// Architecture", 2014). Per segment of the input, four dispatches:
//   symbol_lengths     the code length of every symbol, one u32 each (table in workgroup memory)
//   scan/exclusive     (the crate's device-wide exclusive scan) each symbol's first output bit
//   scatter_bit_bytes  every code written as one byte per bit, 0 or 1, at its position
//   pack_bit_bytes     every 32 bit-bytes become one output word
// WGSL has no u8 storage: bit-bytes live four to a u32 (bit-byte 4w + k is byte k of word
// w, little-endian, as the host reads them). Bit-byte j of a segment is stream bit
// 32 * (first output word of the segment) + j: the bit-bytes before the segment's first
// code (`phase` of them) and after its last stay zero (the host clears the array).
// Every invocation handles a fixed amount of work (one input word, or one output word),
// so no loop depends on the input size (llvmpipe's per-invocation loop budget).
// CPU twin: src/huffman/bytestream.rs `encode_bytestream_cpu` and its stage functions.
//!import common/invocation

struct BytestreamParams {
    n_bytes: u32,       // input bytes (symbols) in this segment
    phase: u32,         // bit position of the segment's first code in its first output word
    n_words: u32,       // output words the segment touches: ceil((phase + code bits) / 32)
    out_word_base: u32, // first output word of the segment within the bound output window
}
// keep in sync with src/huffman/bytestream.rs `BytestreamParams`
@group(0) @binding(0) var<uniform> params: BytestreamParams;
@group(0) @binding(1) var<storage, read> input: array<u32>;
// [0, 256): codes, bit-reversed (first bit in bit 0); [256, 512): lengths (as huffman/cuvle).
@group(0) @binding(2) var<storage, read> code_table: array<u32, 512>;
// symbol_lengths writes one u32 per symbol, four at a time; scan/exclusive reads them.
@group(0) @binding(3) var<storage, read_write> code_lengths: array<vec4<u32>>;
// scan/exclusive's output: the exclusive prefix of the code lengths, per symbol.
@group(0) @binding(4) var<storage, read> prefixes: array<u32>;
// The bit-byte array, two views of one binding (never both in one entry point):
// scatter_bit_bytes ORs and stores words, pack_bit_bytes reads 32 bit-bytes at a time.
@group(0) @binding(5) var<storage, read_write> bit_bytes: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> bit_byte_quads: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read_write> output: array<atomic<u32>>;

// Pack with the bits of each byte reversed: stream bit 0 in bit 7 of byte 0.
override MSB_FIRST: bool = true;

var<workgroup> table_code: array<u32, 256>;
var<workgroup> table_len: array<u32, 256>;

// Dispatches may be 2-D (more workgroups than one dimension takes).
fn global_index(inv: Invocation) -> u32 {
    return (inv.wid.x + inv.wid.y * inv.nwg.x) * WG_SIZE + inv.lid;
}

fn cache_code_table(inv: Invocation, with_codes: bool) {
    for (var i = inv.lid; i < 256u; i += WG_SIZE) {
        table_len[i] = code_table[256u + i];
        if with_codes {
            table_code[i] = code_table[i];
        }
    }
    workgroupBarrier();
}

// Step 1 input: the code length of each of the four symbols of input word `w` (0 past the end).
@compute @workgroup_size(WG_SIZE)
fn symbol_lengths(inv: Invocation) {
    cache_code_table(inv, false);
    let w = global_index(inv);
    if w * 4u >= params.n_bytes {
        return;
    }
    let word = input[w];
    let lens = vec4<u32>(
        table_len[word & 0xffu],
        table_len[(word >> 8u) & 0xffu],
        table_len[(word >> 16u) & 0xffu],
        table_len[word >> 24u],
    );
    let valid = vec4<u32>(params.n_bytes - w * 4u) > vec4<u32>(0u, 1u, 2u, 3u);
    code_lengths[w] = select(vec4<u32>(0u), lens, valid);
}

// An invocation's run of bit-bytes, a word at a time: its first word is shared with the
// run before (atomicOr), the words inside are its own (stored), its last word is shared
// with the run after (atomicOr).
struct ByteWriter {
    word: u32,
    pending: u32,
    first: bool,
}

fn byte_writer_flush(writer: ptr<function, ByteWriter>) {
    if (*writer).first {
        if (*writer).pending != 0u {
            atomicOr(&bit_bytes[(*writer).word], (*writer).pending);
        }
        (*writer).first = false;
    } else {
        atomicStore(&bit_bytes[(*writer).word], (*writer).pending);
    }
}

// Four code bits (bit 0 first) as four bit-bytes: bit k of `nibble` to bit 8k.
fn spread_nibble(nibble: u32) -> u32 {
    return (nibble * 0x00204081u) & 0x01010101u;
}

// Write code `code` (`len` bits, first bit in bit 0) as bit-bytes from bit-byte `pos` on,
// up to four bit-bytes (one word) per step.
fn put_code(writer: ptr<function, ByteWriter>, pos: u32, code: u32, len: u32) {
    var done = 0u;
    loop {
        if done >= len {
            break;
        }
        let p = pos + done;
        let lane = p & 3u;
        let take = min(4u - lane, len - done);
        let bits = (code >> done) & ((1u << take) - 1u);
        if (p >> 2u) != (*writer).word {
            byte_writer_flush(writer);
            (*writer).word = p >> 2u;
            (*writer).pending = 0u;
        }
        (*writer).pending |= spread_nibble(bits) << (8u * lane);
        done += take;
    }
}

// Step 2: the symbols of input word `w`, each code at its scanned bit position.
@compute @workgroup_size(WG_SIZE)
fn scatter_bit_bytes(inv: Invocation) {
    cache_code_table(inv, true);
    let w = global_index(inv);
    let first = w * 4u;
    if first >= params.n_bytes {
        return;
    }
    let word = input[w];
    let valid = min(4u, params.n_bytes - first);
    var pos = params.phase + prefixes[first];
    var writer = ByteWriter(pos >> 2u, 0u, true);
    for (var k = 0u; k < valid; k++) {
        let symbol = (word >> (8u * k)) & 0xffu;
        let len = table_len[symbol];
        put_code(&writer, pos, table_code[symbol], len);
        pos += len;
    }
    if writer.pending != 0u {
        atomicOr(&bit_bytes[writer.word], writer.pending);
    }
}

// Four bit-bytes (each 0 or 1) as four bits: byte k to bit k.
fn gather_nibble(x: u32) -> u32 {
    return (x | (x >> 7u) | (x >> 14u) | (x >> 21u)) & 0xfu;
}

// As common/bitwriter.wgsl: the LSB-first word with each byte's bits reversed is MSB-first.
fn reverse_bits_in_bytes(x: u32) -> u32 {
    let r = reverseBits(x);
    return (r >> 24u) | ((r >> 8u) & 0xff00u) | ((r << 8u) & 0xff0000u) | (r << 24u);
}

// Step 3: output word `w` of the segment from its 32 bit-bytes. The segment's first and
// last words are shared with the neighbouring segments (atomicOr); the others are stored.
@compute @workgroup_size(WG_SIZE)
fn pack_bit_bytes(inv: Invocation) {
    let w = global_index(inv);
    if w >= params.n_words {
        return;
    }
    let lo = bit_byte_quads[2u * w];
    let hi = bit_byte_quads[2u * w + 1u];
    var word = gather_nibble(lo.x) | (gather_nibble(lo.y) << 4u) | (gather_nibble(lo.z) << 8u)
        | (gather_nibble(lo.w) << 12u) | (gather_nibble(hi.x) << 16u) | (gather_nibble(hi.y) << 20u)
        | (gather_nibble(hi.z) << 24u) | (gather_nibble(hi.w) << 28u);
    if MSB_FIRST {
        word = reverse_bits_in_bytes(word);
    }
    let out = params.out_word_base + w;
    if w == 0u || w + 1u == params.n_words {
        if word != 0u {
            atomicOr(&output[out], word);
        }
    } else {
        atomicStore(&output[out], word);
    }
}
