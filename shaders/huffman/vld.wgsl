// VLD: variable-length decoding of native v2 frames (src/huffman/framing.rs). Every block
// of a frame starts at a bit offset its header stores, so blocks decode independently:
// one invocation decodes one block, a workgroup the blocks of one frame (up to WG_SIZE of
// them) with that frame's decode table cached in workgroup memory.
// CPU twin: src/huffman/vld.rs `decode_cpu`.
//
// Why one invocation per block (and not a workgroup per block in sub-streams): the format
// stores no offsets inside a block, and finding them costs a serial pass or speculative
// self-synchronising decodes that never converge on some codes (every code of one length,
// started between codes). With 16 KiB blocks a large batch has tens of thousands of
// blocks, which fills a GPU; the table's two-symbol entries halve the serial chain.
//!import common/invocation

struct VldParams {
    n_groups: u32,      // groups (runs of blocks of one frame) in this dispatch
    payload_words: u32, // words of `payload`; reads past it give zeros
    _pad0: u32,
    _pad1: u32,
}
// keep in sync with src/huffman/vld.rs `VldParams`
@group(0) @binding(0) var<uniform> params: VldParams;
// Every frame's MSB-first payload, each from a word boundary, as little-endian words.
@group(0) @binding(1) var<storage, read> payload: array<u32>;
// TABLE_WORDS per frame (layout: src/huffman/vld.rs `frame_table`).
@group(0) @binding(2) var<storage, read> tables: array<u32>;
// Per block: first bit, end bit (both from its frame's first payload word), first output
// byte, symbols (bit 31 set on a frame's last block).
@group(0) @binding(3) var<storage, read> blocks: array<vec4<u32>>;
// Per group: first block, blocks (at most WG_SIZE), table, the frame's first payload word.
@group(0) @binding(4) var<storage, read> groups: array<vec4<u32>>;
// Output bytes packed into words; words two blocks share are OR-ed into zeroed words.
@group(0) @binding(5) var<storage, read_write> output: array<atomic<u32>>;
// Per block: (status, detail); (0, 0) when the block decoded to exactly its end bit.
@group(0) @binding(6) var<storage, read_write> status: array<vec2<u32>>;

// keep in sync with src/huffman/vld.rs
const PRIMARY_BITS: u32 = 11u;
const PRIMARY: u32 = 2048u;
const LONG_AT: u32 = 2048u;   // (first code, count, sorted index) for lengths 12..15
const MAX_LEN_AT: u32 = 2060u;
const SORTED_AT: u32 = 2064u; // symbols with codes, by (length, symbol)
const TABLE_WORDS: u32 = 2320u;
const LAST_BLOCK: u32 = 0x80000000u;
const STATUS_INVALID_CODE: u32 = 1u; // detail: the code's bit in its frame's payload
const STATUS_OVERRUN: u32 = 2u;      // detail: symbols decoded when it passed its end bit
const STATUS_WRONG_END: u32 = 3u;    // detail: the bit it ended at

var<workgroup> table: array<u32, TABLE_WORDS>;

fn stream_word(i: u32) -> u32 {
    if i >= params.payload_words {
        return 0u;
    }
    // Bytes in stream order: the first byte is the word's most significant.
    let w = payload[i];
    let t = (w << 16u) | (w >> 16u);
    return ((t & 0x00ff00ffu) << 8u) | ((t >> 8u) & 0x00ff00ffu);
}

// An output word: stored where this block owns it whole, OR-ed where it shares it.
fn put_word(index: u32, word: u32, or_into: bool) {
    if or_into {
        atomicOr(&output[index], word);
    } else {
        atomicStore(&output[index], word);
    }
}

fn decode_block(b: u32, base: u32) {
    let task = blocks[b];
    let end_bit = task.y;
    let n = task.w & ~LAST_BLOCK;
    // 64 bits of stream from the current position: `hi`, then `lo`, `pos` bits consumed;
    // the word after them loaded one refill ahead, so that its latency overlaps the
    // symbols decoded meanwhile.
    var next = (task.x >> 5u) + 3u;
    var hi = stream_word(base + next - 3u);
    var lo = stream_word(base + next - 2u);
    var ahead = stream_word(base + next - 1u);
    var pos = task.x & 31u;
    let max_len = table[MAX_LEN_AT];
    // Output: bytes gathered in `acc` (`filled` of them) from the block's first byte.
    var out_word = task.z >> 2u;
    var filled = task.z & 3u;
    var acc = 0u;
    var head_shared = filled != 0u;
    var produced = 0u;
    var fault = vec2<u32>(0u, 0u);
    while produced < n {
        let window = (hi << pos) | ((lo >> 1u) >> (31u - pos));
        let e = table[window >> (32u - PRIMARY_BITS)];
        var len = e & 15u;
        var symbols = (e >> 8u) & 0xffu;
        var count = 1u;
        if len == 0u {
            // A code longer than the primary table's bits: canonical search by length.
            for (var l = PRIMARY_BITS + 1u; l <= max_len; l++) {
                let at = LONG_AT + 3u * (l - PRIMARY_BITS - 1u);
                let d = (window >> (32u - l)) - table[at];
                if d < table[at + 1u] {
                    len = l;
                    symbols = table[SORTED_AT + table[at + 2u] + d];
                    break;
                }
            }
            if len == 0u {
                fault = vec2<u32>(STATUS_INVALID_CODE, (next - 3u) * 32u + pos);
                break;
            }
        } else if ((e >> 4u) & 15u) != 0u && n - produced >= 2u {
            len = (e >> 4u) & 15u;
            symbols = (e >> 8u) & 0xffffu;
            count = 2u;
        }
        pos += len;
        if pos >= 32u {
            pos -= 32u;
            hi = lo;
            lo = ahead;
            ahead = stream_word(base + next);
            next += 1u;
        }
        acc |= symbols << (8u * filled);
        filled += count;
        if filled >= 4u {
            put_word(out_word, acc, head_shared);
            head_shared = false;
            out_word += 1u;
            filled -= 4u;
            acc = symbols >> (8u * (count - filled));
        }
        produced += count;
        if (next - 3u) * 32u + pos > end_bit {
            fault = vec2<u32>(STATUS_OVERRUN, produced);
            break;
        }
    }
    if fault.x == 0u {
        if filled != 0u {
            // The block's last word: the next block of the frame starts in it.
            put_word(out_word, acc, head_shared || (task.w & LAST_BLOCK) == 0u);
        }
        let end = (next - 3u) * 32u + pos;
        if end != end_bit {
            fault = vec2<u32>(STATUS_WRONG_END, end);
        }
    }
    status[b] = fault;
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    let grid = workgroup_grid(inv);
    for (var g = grid.x; g < params.n_groups; g += grid.y) {
        let group = groups[g];
        let base = group.z * TABLE_WORDS;
        workgroupBarrier(); // the last group's decodes are done with the table
        for (var i = inv.lid; i < TABLE_WORDS; i += WG_SIZE) {
            table[i] = tables[base + i];
        }
        workgroupBarrier();
        if inv.lid < group.y {
            decode_block(group.x + inv.lid, group.w);
        }
    }
}
