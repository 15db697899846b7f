// PAVLE (Balevic, "Parallel variable-length encoding on GPGPUs", 2010), the CUVLE paper's
// baseline, first pass: one workgroup per block-input (grid-stride over blocks, a bounded
// count per workgroup, no tickets), the code table cached in workgroup memory, each
// invocation encodes its thread-input of NET words, a workgroup scan of the thread bit
// lengths places the thread-codes within the block, the invocations OR them into a zeroed
// block buffer in workgroup memory (huffman/bitwriter_wg.wgsl), and the buffer is copied out
// to the block's own slot of the intermediate output (slot j at a fixed stride, the
// block's worst-case size: "at the position of the block's input" once codes may be
// longer than 8 bits), its bit length to `block_bits[j]`. huffman/pavle_compact.wgsl then
// packs the slots into the stream. CPU twin: src/huffman/pavle.rs `encode_pavle_cpu`.
//!import common/wg_scan
//!import huffman/bitwriter_wg

struct PavleParams {
    n_bytes: u32,    // input bytes in this segment
    n_blocks: u32,   // block-inputs in this segment
    slot_words: u32, // stride of the slots: a block's worst-case words (WG_BITS_WORDS)
    pad: u32,
}
// keep in sync with src/huffman/pavle.rs `PavleParams`
@group(0) @binding(0) var<uniform> params: PavleParams;
@group(0) @binding(1) var<storage, read> input: array<u32>;
// [0, 256): codes, bit-reversed (first bit in bit 0); [256, 512): lengths.
@group(0) @binding(2) var<storage, read> code_table: array<u32, 512>;
// Block-codes, LSB-first words, block j at j * slot_words.
@group(0) @binding(3) var<storage, read_write> slots: array<u32>;
@group(0) @binding(4) var<storage, read_write> block_bits: array<u32>;

// Input words per invocation (the paper's NET): Balevic's PAVLE reads one, 4 symbols.
override NET: u32 = 1u;
const MAX_NET: u32 = 32u;

// The VLET in workgroup memory: code values and lengths, as two tables.
var<workgroup> table_code: array<u32, 256>;
var<workgroup> table_len: array<u32, 256>;

// Input bytes of segment word `word` (4 but in the last word).
fn valid_bytes(word: u32) -> u32 {
    let first = word * 4u;
    if first >= params.n_bytes {
        return 0u;
    }
    return min(4u, params.n_bytes - first);
}

fn word_bits(word: u32, valid: u32) -> u32 {
    if valid == 4u {
        return table_len[word & 0xffu] + table_len[(word >> 8u) & 0xffu]
            + table_len[(word >> 16u) & 0xffu] + table_len[word >> 24u];
    }
    var bits = 0u;
    for (var k = 0u; k < valid; k++) {
        bits += table_len[(word >> (8u * k)) & 0xffu];
    }
    return bits;
}

fn put_symbol(writer: ptr<function, WgBitWriter>, symbol: u32) {
    wg_bitwriter_put(writer, table_code[symbol], table_len[symbol]);
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    for (var i = inv.lid; i < 256u; i += WG_SIZE) {
        table_code[i] = code_table[i];
        table_len[i] = code_table[256u + i];
    }
    workgroupBarrier();
    let lane = scan_lane(inv);
    let grid = workgroup_grid(inv);
    for (var block = grid.x; block < params.n_blocks; block += grid.y) {
        // The thread-input, into registers, and the bit length of its thread-code.
        let first_word = (block * WG_SIZE + lane) * NET;
        var words: array<u32, MAX_NET>;
        var bits = 0u;
        for (var v = 0u; v < NET; v++) {
            let valid = valid_bytes(first_word + v);
            if valid == 0u {
                break;
            }
            words[v] = input[first_word + v];
            bits += word_bits(words[v], valid);
        }
        // Positions within the block; zero as much of the buffer as the block-code needs.
        let placed = wg_exclusive_scan(inv, bits);
        let total = placed.y;
        let used = (total + 31u) / 32u;
        for (var w = inv.lid; w < used; w += WG_SIZE) {
            atomicStore(&wg_bits[w], 0u);
        }
        workgroupBarrier();
        if bits != 0u {
            var writer = wg_bitwriter_at(placed.x);
            for (var v = 0u; v < NET; v++) {
                let valid = valid_bytes(first_word + v);
                let word = words[v];
                if valid == 4u {
                    put_symbol(&writer, word & 0xffu);
                    put_symbol(&writer, (word >> 8u) & 0xffu);
                    put_symbol(&writer, (word >> 16u) & 0xffu);
                    put_symbol(&writer, word >> 24u);
                } else {
                    for (var k = 0u; k < valid; k++) {
                        put_symbol(&writer, (word >> (8u * k)) & 0xffu);
                    }
                }
            }
            wg_bitwriter_finish(&writer);
        }
        workgroupBarrier();
        // Copy the block-code out to its slot.
        let slot = block * params.slot_words;
        for (var w = inv.lid; w < used; w += WG_SIZE) {
            slots[slot + w] = atomicLoad(&wg_bits[w]);
        }
        if inv.lid == 0u {
            block_bits[block] = total;
        }
        // The next block zeroes the buffer again.
        workgroupBarrier();
    }
}
