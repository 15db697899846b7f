// The previous VLD kernel, kept to compare with vld.wgsl (VldDecoder::old_kernel, bench
// row `vld-old`): the same bindings, overrides, steps and reports.
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
// Writes: where every block size is a multiple of 64 (the encoder's are 16 KiB), the
// workgroup decodes 64 symbols of each of its blocks into workgroup memory, then writes
// them out together (16 lanes per block's 64 bytes: whole sectors), round after round;
// otherwise each invocation writes its own words (OR-ed where two blocks share one).
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
const STAGE_SYMBOLS: u32 = 64u;
const STAGE_WORDS: u32 = 16u;

// Blocks' output staged in workgroup memory and written out coalesced, in rounds of
// STAGE_SYMBOLS per block: for batches whose every block size is a multiple of
// STAGE_SYMBOLS (then every block starts on a word and owns its words). WG_SIZE <= 64.
override STAGED: bool = false;
var<workgroup> stage: array<u32, 1024>; // STAGE_WORDS * 64

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

// A block's decode in progress: the bit reader (64 bits from the current position, `hi`
// then `lo`, `pos` of them consumed; the word after them loaded one refill ahead, so that
// its latency overlaps the symbols decoded meanwhile), the output word being gathered
// (`filled` bytes of `acc`), and the symbols out so far.
struct Walk {
    base: u32, // the frame's first payload word
    next: u32,
    hi: u32,
    lo: u32,
    ahead: u32,
    pos: u32,
    acc: u32,
    filled: u32,
    out_word: u32,
    head_shared: bool,
    produced: u32,
    slot: u32, // STAGED: the next word of this round's stage
    fault: vec2<u32>,
}

fn walk_begin(task: vec4<u32>, base: u32) -> Walk {
    let next = (task.x >> 5u) + 3u;
    return Walk(base, next, stream_word(base + next - 3u), stream_word(base + next - 2u),
        stream_word(base + next - 1u), task.x & 31u, 0u, task.z & 3u, task.z >> 2u,
        (task.z & 3u) != 0u, 0u, 0u, vec2<u32>(0u, 0u));
}

fn walk_bit(w: ptr<function, Walk>) -> u32 {
    return ((*w).next - 3u) * 32u + (*w).pos;
}

// A word of output complete: to the stage (STAGED) or straight to the output.
fn emit_word(w: ptr<function, Walk>, slot_base: u32, last: bool) {
    if STAGED {
        stage[slot_base + (*w).slot] = (*w).acc;
        (*w).slot += 1u;
    } else {
        put_word((*w).out_word, (*w).acc, (*w).head_shared || last);
        (*w).head_shared = false;
        (*w).out_word += 1u;
    }
}

// Decode until `until` symbols of the block are out, or a fault. A lookup yields two
// symbols only where both fit before `until` and before the next multiple of
// STAGE_SYMBOLS (so that both paths, and the CPU twin, take the same steps).
fn walk_to(w: ptr<function, Walk>, task: vec4<u32>, until: u32, slot_base: u32) {
    let max_len = table[MAX_LEN_AT];
    while (*w).produced < until {
        let pos = (*w).pos;
        let window = ((*w).hi << pos) | (((*w).lo >> 1u) >> (31u - pos));
        let e = table[window >> (32u - PRIMARY_BITS)];
        var len = e & 15u;
        var symbols = (e >> 8u) & 0xffu;
        var count = 1u;
        let room = min(until, ((*w).produced / STAGE_SYMBOLS + 1u) * STAGE_SYMBOLS) - (*w).produced;
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
                (*w).fault = vec2<u32>(STATUS_INVALID_CODE, walk_bit(w));
                return;
            }
        } else if ((e >> 4u) & 15u) != 0u && room >= 2u {
            len = (e >> 4u) & 15u;
            symbols = (e >> 8u) & 0xffffu;
            count = 2u;
        }
        (*w).pos += len;
        if (*w).pos >= 32u {
            (*w).pos -= 32u;
            (*w).hi = (*w).lo;
            (*w).lo = (*w).ahead;
            (*w).ahead = stream_word((*w).base + (*w).next);
            (*w).next += 1u;
        }
        (*w).acc |= symbols << (8u * (*w).filled);
        (*w).filled += count;
        if (*w).filled >= 4u {
            emit_word(w, slot_base, false);
            (*w).filled -= 4u;
            (*w).acc = symbols >> (8u * (count - (*w).filled));
        }
        (*w).produced += count;
        if walk_bit(w) > task.y {
            (*w).fault = vec2<u32>(STATUS_OVERRUN, (*w).produced);
            return;
        }
    }
}

// After the block's last symbol: its last partial word, and whether it ended at its end.
fn walk_end(w: ptr<function, Walk>, task: vec4<u32>, slot_base: u32) {
    if (*w).fault.x != 0u {
        return;
    }
    if (*w).filled != 0u {
        // Direct: the next block of the frame starts in this word.
        emit_word(w, slot_base, (task.w & LAST_BLOCK) == 0u);
    }
    let end = walk_bit(w);
    if end != task.y {
        (*w).fault = vec2<u32>(STATUS_WRONG_END, end);
    }
}

var<workgroup> group_symbols: u32;

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
        if inv.lid == 0u {
            // The group's first block is its longest (only a frame's last is shorter).
            group_symbols = blocks[group.x].w & ~LAST_BLOCK;
        }
        let longest = workgroupUniformLoad(&group_symbols);
        let decoding = inv.lid < group.y;
        let b = group.x + min(inv.lid, group.y - 1u);
        let task = blocks[b];
        let n = task.w & ~LAST_BLOCK;
        var w = walk_begin(task, group.w);
        if STAGED {
            // Rounds of STAGE_SYMBOLS symbols per block into workgroup memory, then written
            // out by the whole workgroup: 16 consecutive lanes write a block's 64 bytes.
            let slot_base = inv.lid * STAGE_WORDS;
            let rounds = (longest + STAGE_SYMBOLS - 1u) / STAGE_SYMBOLS;
            for (var r = 0u; r < rounds; r++) {
                if decoding && w.fault.x == 0u && w.produced < n {
                    w.slot = 0u;
                    walk_to(&w, task, min(n, (r + 1u) * STAGE_SYMBOLS), slot_base);
                    if w.produced == n {
                        walk_end(&w, task, slot_base);
                    }
                }
                workgroupBarrier();
                for (var i = inv.lid; i < group.y * STAGE_WORDS; i += WG_SIZE) {
                    let t = blocks[group.x + i / STAGE_WORDS];
                    let word = (t.z >> 2u) + r * STAGE_WORDS + i % STAGE_WORDS;
                    let words_end = (t.z + (t.w & ~LAST_BLOCK) + 3u) >> 2u;
                    if word < words_end {
                        atomicStore(&output[word], stage[i]);
                    }
                }
                workgroupBarrier();
            }
        } else if decoding {
            walk_to(&w, task, n, 0u);
            walk_end(&w, task, 0u);
        }
        if decoding {
            status[b] = w.fault;
        }
    }
}
