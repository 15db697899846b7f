// CUVLE (Fuentes-Alventosa et al.): variable-length encoding with the code table cached
// in workgroup memory, persistent workgroups taking block-inputs by ticket, block offsets
// by common/lookback.wgsl, and each invocation writing its thread-code straight into the
// output (common/bitwriter.wgsl). CPU twins: src/huffman/cuvle.rs `encode_cuvle_cpu`, and
// `encode_cuvle_cpu_framed` for FRAMED (one code table per frame, a gap before each frame).
//!import common/lookback
//!import common/wg_scan
//!import common/bitwriter

struct CuvleParams {
    n_bytes: u32,       // input bytes in this segment
    n_blocks: u32,      // block-inputs in this segment
    start_bit: u32,     // bit offset of the first code within output word `out_word_base`
    out_word_base: u32, // first output word of this segment within the bound window
    first_block: u32,   // FRAMED: this segment's first block in `block_frames`
}
// keep in sync with src/huffman/cuvle.rs `CuvleParams`
@group(0) @binding(0) var<uniform> params: CuvleParams;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
// A table: [0, 256): codes, bit-reversed (first bit in bit 0); [256, 512): lengths.
// FRAMED: one table per frame (table t from word 512 t on); else one.
@group(0) @binding(2) var<storage, read> code_table: array<u32>;
// FRAMED: per block of the input, (its table, the zero bits left before its code: nonzero
// only on a frame's first block, where the host writes the frame's header). Bound to a
// dummy otherwise.
@group(0) @binding(4) var<storage, read> block_frames: array<vec2<u32>>;

// Code a run of frames, each with its own table and a gap before it. Off, the kernel is
// the single-table one: every FRAMED branch is constant.
override FRAMED: bool = false;
const TABLE_WORDS: u32 = 512u; // keep in sync with src/huffman/cuvle/cpu.rs `TABLE_WORDS`
// The `table` argument meaning the table cached in workgroup memory.
const CACHED: u32 = 0xffffffffu;
// No table cached yet.
const NO_TABLE: u32 = 0xffffffffu;

// Input words per invocation (the paper's NET): a multiple of 4, at most 32.
override NET: u32 = 16u;
const MAX_NET_VEC4: u32 = 8u;

// PACKED: one word per symbol, code in the low bits and length in the top five (codes of
// at most 27 bits; one workgroup-memory read per symbol when writing). Otherwise codes
// and lengths in two tables (codes up to 32 bits).
override PACKED: bool = true;
// Codes of at most 16 bits: two symbols always fit one 32-bit put, which halves the
// per-symbol flush checks (each a branch some lane of a warp takes on almost every symbol).
override PAIRS: bool = false;
const PACKED_LEN_SHIFT: u32 = 27u;

var<workgroup> table_code: array<u32, 256>;
var<workgroup> table_len: array<u32, 256>;

fn code_len(symbol: u32) -> u32 {
    if PACKED {
        return table_code[symbol] >> PACKED_LEN_SHIFT;
    }
    return table_len[symbol];
}

fn put_symbol(writer: ptr<function, BitWriter>, symbol: u32) {
    if PACKED {
        let entry = table_code[symbol];
        bitwriter_put(writer, entry & ((1u << PACKED_LEN_SHIFT) - 1u), entry >> PACKED_LEN_SHIFT);
    } else {
        bitwriter_put(writer, table_code[symbol], table_len[symbol]);
    }
}

fn bytes_in_word(first_byte: u32) -> u32 {
    if first_byte >= params.n_bytes {
        return 0u;
    }
    return min(4u, params.n_bytes - first_byte);
}

fn full_word_bits(word: u32) -> u32 {
    return code_len(word & 0xffu) + code_len((word >> 8u) & 0xffu)
        + code_len((word >> 16u) & 0xffu) + code_len(word >> 24u);
}

// Code bits of the `valid` low bytes of `word` with `table`: CACHED, or (FRAMED) a table of
// the global buffer, read there so that the fallback needs no barrier.
fn word_bits(word: u32, valid: u32, table: u32) -> u32 {
    if FRAMED && table != CACHED {
        var bits = 0u;
        for (var k = 0u; k < valid; k++) {
            bits += code_table[table * TABLE_WORDS + 256u + ((word >> (8u * k)) & 0xffu)];
        }
        return bits;
    }
    if valid == 4u {
        return full_word_bits(word);
    }
    var bits = 0u;
    for (var k = 0u; k < valid; k++) {
        bits += code_len((word >> (8u * k)) & 0xffu);
    }
    return bits;
}

// First byte of the thread-input of `lane` in `block`.
fn thread_input_byte(block: u32, lane: u32) -> u32 {
    return (block * WG_SIZE + lane) * NET * 4u;
}

fn thread_input_bits(block: u32, lane: u32, table: u32) -> u32 {
    let first_vec = (block * WG_SIZE + lane) * (NET / 4u);
    let first_byte = thread_input_byte(block, lane);
    var bits = 0u;
    for (var v = 0u; v < NET / 4u; v++) {
        if first_byte + v * 16u >= params.n_bytes {
            break;
        }
        let q = input[first_vec + v];
        for (var k = 0u; k < 4u; k++) {
            bits += word_bits(q[k], bytes_in_word(first_byte + v * 16u + k * 4u), table);
        }
    }
    return bits;
}

// The decoupled fallback: a stalled predecessor's block-code length, from its input;
// FRAMED: with its own table and plus its gap.
fn block_aggregate(inv: Invocation, block: u32) -> u32 {
    var table = CACHED;
    var gap = 0u;
    if FRAMED {
        let frame = block_frames[params.first_block + block];
        table = frame.x;
        gap = frame.y;
    }
    return wg_exclusive_scan(inv, thread_input_bits(block, scan_lane(inv), table)).y + gap;
}

// Table `table` of the global buffer into workgroup memory.
fn cache_code_table(inv: Invocation, table: u32) {
    let base = table * TABLE_WORDS;
    for (var i = inv.lid; i < 256u; i += WG_SIZE) {
        let len = code_table[base + 256u + i];
        if PACKED {
            table_code[i] = code_table[base + i] | (len << PACKED_LEN_SHIFT);
        } else {
            table_code[i] = code_table[base + i];
            table_len[i] = len;
        }
    }
    workgroupBarrier();
}

// reduce_then_scan, first dispatch: every block-code's length (FRAMED: plus its gap).
@compute @workgroup_size(WG_SIZE)
fn reduce(inv: Invocation) {
    if !FRAMED {
        cache_code_table(inv, 0u);
    }
    let grid = workgroup_grid(inv);
    for (var block = grid.x; block < params.n_blocks; block += grid.y) {
        let total = block_aggregate(inv, block);
        if inv.lid == 0u {
            atomicStore(&scan_state[STATE_HEADER + block], total);
        }
    }
}

// Workgroup barriers per block-input: the scan's (one in the subgroup flavour), one for
// the look-back with the next ticket, two before a staged block's copy-out; a frame's
// table change adds two. (Zeroing the stage once and OR-ing every word in would save one,
// but shared-memory atomicOr on every word measured 1-4% slower on the H200.)
@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    // FRAMED: the table in workgroup memory, loaded when a block needs another.
    var cached = NO_TABLE;
    if !FRAMED {
        cache_code_table(inv, 0u);
    }
    let lane = scan_lane(inv);
    var block = take_block(inv);
    for (var taken = 1u; block < params.n_blocks; taken++) {
        var gap = 0u;
        if FRAMED {
            // A read-only buffer at a uniform index: uniform, no barrier to share it.
            let frame = block_frames[params.first_block + block];
            gap = frame.y;
            if frame.x != cached {
                // No invocation may still read the previous block's table.
                workgroupBarrier();
                cache_code_table(inv, frame.x);
                cached = frame.x;
            }
        }
        // Read the thread-input once, into registers, and size its thread-code. Whole
        // thread-inputs (all but the last few) take the straight-line path: constant trip
        // counts, so the words stay in registers.
        let first_vec = (block * WG_SIZE + lane) * (NET / 4u);
        let first_byte = thread_input_byte(block, lane);
        let whole = first_byte + NET * 4u <= params.n_bytes;
        var words: array<vec4<u32>, MAX_NET_VEC4>;
        var bits = 0u;
        if whole {
            for (var v = 0u; v < NET / 4u; v++) {
                let q = input[first_vec + v];
                words[v] = q;
                bits += full_word_bits(q.x) + full_word_bits(q.y) + full_word_bits(q.z) + full_word_bits(q.w);
            }
        } else {
            for (var v = 0u; v < NET / 4u; v++) {
                if first_byte + v * 16u < params.n_bytes {
                    words[v] = input[first_vec + v];
                    for (var k = 0u; k < 4u; k++) {
                        bits += word_bits(words[v][k], bytes_in_word(first_byte + v * 16u + k * 4u), CACHED);
                    }
                }
            }
        }
        // The look-back's barrier comes before the next scan.
        let local = wg_exclusive_scan_unfenced(inv, bits);
        // A block's share of the stream: its gap, then its code.
        lookback_publish(inv, block, local.y + gap);
        let more = taken < MAX_BLOCKS_PER_WORKGROUP;
        var look = lookback_resolve(inv, block, local.y + gap, more);
        while look.x != 0u {
            lookback_supply(inv, block_aggregate(inv, look.x - 1u));
            look = lookback_resolve(inv, block, local.y + gap, more);
        }
        // Uniform copies of the block's place and size, for the choice below.
        let block_first_bit = params.out_word_base * 32u + params.start_bit + look.y + gap;
        let block_bits = look.z - gap;
        let position = block_first_bit + local.x;
        // Staged when the block's code fits the stage, the paper's direct writes otherwise:
        // a workgroup-uniform choice (the staged path has a barrier).
        if stage_fits(block_first_bit, block_bits) {
            var writer = bitwriter_staged(position, block_first_bit >> 5u);
            if bits != 0u {
                encode_thread_input(&writer, &words, whole, first_byte);
            }
            let is_last = bits != 0u && local.x + bits == block_bits;
            bitwriter_stage_out(inv, &writer, is_last, block_first_bit, block_bits);
            if STAGE_ENDS_TO_CALLER && inv.lid == 0u {
                // After the segment's block flags: the host ORs them into place
                // (src/huffman/block_ends.rs).
                let ends = bitwriter_stage_ends(block_first_bit, block_bits);
                let at = STATE_HEADER + params.n_blocks + 2u * block;
                atomicStore(&scan_state[at], ends.x);
                atomicStore(&scan_state[at + 1u], ends.y);
            }
        } else if bits != 0u {
            var writer = bitwriter_at(position);
            encode_thread_input(&writer, &words, whole, first_byte);
            bitwriter_finish(&writer, position >> 5u);
        }
        block = look.w;
    }
}

// Put every symbol of the thread-input (held in `words`) into `writer`.
fn encode_thread_input(writer: ptr<function, BitWriter>, words: ptr<function, array<vec4<u32>, MAX_NET_VEC4>>, whole: bool, first_byte: u32) {
    if whole && PAIRS {
        for (var v = 0u; v < NET / 4u; v++) {
            for (var k = 0u; k < 4u; k++) {
                let word = (*words)[v][k];
                let e0 = table_code[word & 0xffu];
                let e1 = table_code[(word >> 8u) & 0xffu];
                let e2 = table_code[(word >> 16u) & 0xffu];
                let e3 = table_code[word >> 24u];
                let mask = (1u << PACKED_LEN_SHIFT) - 1u;
                let l0 = e0 >> PACKED_LEN_SHIFT;
                let l2 = e2 >> PACKED_LEN_SHIFT;
                bitwriter_put(writer, (e0 & mask) | ((e1 & mask) << l0), l0 + (e1 >> PACKED_LEN_SHIFT));
                bitwriter_put(writer, (e2 & mask) | ((e3 & mask) << l2), l2 + (e3 >> PACKED_LEN_SHIFT));
            }
        }
    } else if whole {
        for (var v = 0u; v < NET / 4u; v++) {
            for (var k = 0u; k < 4u; k++) {
                let word = (*words)[v][k];
                put_symbol(writer, word & 0xffu);
                put_symbol(writer, (word >> 8u) & 0xffu);
                put_symbol(writer, (word >> 16u) & 0xffu);
                put_symbol(writer, word >> 24u);
            }
        }
    } else {
        for (var v = 0u; v < NET / 4u; v++) {
            for (var k = 0u; k < 4u; k++) {
                let valid = bytes_in_word(first_byte + v * 16u + k * 4u);
                let word = (*words)[v][k];
                for (var b = 0u; b < valid; b++) {
                    put_symbol(writer, (word >> (8u * b)) & 0xffu);
                }
            }
        }
    }
}
