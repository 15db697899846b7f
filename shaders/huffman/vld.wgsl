// VLD: variable-length decoding of native v2 frames (src/huffman/framing.rs) and of our
// gzip frames' literals. Every block of a frame starts at a bit offset its header (or
// index) stores, so blocks decode independently: one invocation decodes one block.
// Two entry points, the same decode:
// - `main`: a workgroup takes the blocks of one frame (up to WG_SIZE of them), with that
//   frame's decode table cached in workgroup memory (SHARED_TABLE = true);
// - `main_global`: a workgroup takes WG_SIZE consecutive blocks of any frames, each
//   invocation reading its frame's table from `tables` (SHARED_TABLE = false). Real
//   files have frames of a few blocks (system files: 5-8 of 4 KiB), which leave most of
//   a `main` workgroup idle.
// CPU twin: src/huffman/vld.rs `decode_cpu`.
//
// Why one invocation per block (and not a workgroup per block in sub-streams): the format
// stores no offsets inside a block, and finding them costs a serial pass or speculative
// self-synchronising decodes that never converge on some codes (every code of one length,
// started between codes). With 16 KiB blocks a large batch has tens of thousands of
// blocks, which fills a GPU; the table's two-symbol entries halve the serial chain.
// Writes: each invocation stores its own output words (OR-ed where two blocks share one).
// Staging a round of every block's symbols in workgroup memory and writing them out
// coalesced measured 36% slower on the H200 (58 ms against 37 ms for 1 GiB), and so
// did every variant of it tried (docs/results.md, "The vld kernel"). Storing 16-byte
// units and reading the payload a quad at a time, which took the CUDA twin from 101 to
// 165 GB/s, made this kernel slower (141 -> 92; "Thirty-first pass"; with the quad's
// word picked by selects, 138 -> 140, and slower on real files: "Thirty-second pass").
// Two blocks an invocation side by side (every state a vec2) measured slower too
// (138 -> 102 GB/s in the high state, "Thirty-second pass"). Interleaving a warp's 32
// blocks' payload words, so that its loads of a step share cache lines, left `main` where
// it was (154.7 against 154.4 GB/s; "Thirty-seventh pass"): its loads do not bound it.
// It reads files from anyone, so its modules keep naga's runtime checks:
//!runtime_checks
//!import common/invocation
//!import huffman/crc32

struct VldParams {
    n_groups: u32,      // groups (runs of blocks of one frame) in this dispatch
    payload_words: u32, // words of `payload`, READ_AHEAD_WORDS zeros at the end
    n_blocks: u32,      // blocks in this dispatch
    _pad1: u32,
}
// keep in sync with src/huffman/vld.rs `VldParams`
@group(0) @binding(0) var<uniform> params: VldParams;
// Every frame's MSB-first payload, each from a word boundary, as words in stream order
// (a word's first byte its most significant; the host swaps them), then zero words: a
// block's reads stay within its frame's words and the three after them, so none is
// checked.
@group(0) @binding(1) var<storage, read> payload: array<u32>;
// TABLE_WORDS per frame (layout: src/huffman/vld.rs; built by src/huffman/vld/table.rs).
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
// Per block: the CRC32 of its output bytes (`block_crcs`), which the host folds into each
// frame's (src/crc.rs).
@group(0) @binding(7) var<storage, read_write> crcs: array<u32>;

// keep in sync with src/huffman/vld.rs
const PRIMARY_BITS: u32 = 11u;
const PRIMARY: u32 = 2048u;
const STEP_AT: u32 = 24u;     // primary entry: a step's length where two symbols fit
const COUNT_AT: u32 = 28u;    // and its symbols (1 or 2)
const LONG_AT: u32 = 2048u;   // (first code, count, sorted index) for lengths 12..15
const MAX_LEN_AT: u32 = 2060u;
const SORTED_AT: u32 = 2064u; // symbols with codes, by (length, symbol)
const TABLE_WORDS: u32 = 2320u;
const LAST_BLOCK: u32 = 0x80000000u;
const STATUS_INVALID_CODE: u32 = 1u; // detail: the code's bit in its frame's payload
const STATUS_OVERRUN: u32 = 2u;      // detail: symbols decoded when it passed its end bit
const STATUS_WRONG_END: u32 = 3u;    // detail: the bit it ended at

// Where decode tables are read: the workgroup's copy (`main`) or `tables` (`main_global`).
override SHARED_TABLE: bool = true;

var<workgroup> table: array<u32, TABLE_WORDS>;

// Word `i` of the table that starts at word `base` of `tables`.
fn table_word(base: u32, i: u32) -> u32 {
    if SHARED_TABLE {
        return table[i];
    }
    return tables[base + i];
}

// An output word: stored where this block owns it whole, OR-ed where it shares it.
fn put_word(index: u32, word: u32, or_into: bool) {
    if or_into {
        atomicOr(&output[index], word);
    } else {
        atomicStore(&output[index], word);
    }
}

// A group's start, by the whole workgroup: its frame's table into workgroup memory,
// with a barrier before (the last group's decodes are done with the table) and after.
fn begin_group(inv: Invocation, group: vec4<u32>) {
    let base = group.z * TABLE_WORDS;
    workgroupBarrier();
    for (var i = inv.lid; i < TABLE_WORDS; i += WG_SIZE) {
        table[i] = tables[base + i];
    }
    workgroupBarrier();
}

// The 32 bits at `pos` of the 64 in `hi` then `lo`.
fn window_at(hi: u32, lo: u32, pos: u32) -> u32 {
    return (hi << pos) | ((lo >> 1u) >> (31u - pos));
}

// A code longer than the primary table's bits: canonical search by length. Returns
// (length, symbol), length 0 where no code matches.
fn long_code(base: u32, window: u32, max_len: u32) -> vec2<u32> {
    var found = vec2<u32>(0u, 0u);
    for (var l = PRIMARY_BITS + 1u; l <= max_len; l++) {
        let at = LONG_AT + 3u * (l - PRIMARY_BITS - 1u);
        let d = (window >> (32u - l)) - table_word(base, at);
        if d < table_word(base, at + 1u) {
            found = vec2<u32>(l, table_word(base, SORTED_AT + table_word(base, at + 2u) + d));
            break;
        }
    }
    return found;
}

// A block's decode lives in plain locals of one function (a struct behind a pointer may
// live in memory on some drivers): the bit reader (64 bits from the current position, `hi`
// then `lo`, `pos` of them consumed, and the word after them in `ahead`), the output word
// being gathered (`filled` bytes of `acc`), and the symbols out so far. Each step is one
// dependent chain (window, lookup, length, position) on a single warp's lanes, so its
// instructions are its time: the step's fields come from the entry by one shift and mask
// each; the payload word is taken as it is (swapped on the host, padded so that no read
// is checked); the end is checked on a running bit count. The reader loads its next word
// only when it takes one, a word ahead of its use, under a branch: 154 and 175 GB/s
// (16 and 4 KiB blocks, the H200's high state) against 141 and 162 with a load every
// step taken by `select` ("Thirty-third pass"; each load is an L2 access, the L1 being
// mostly the table's workgroup memory). In the 31 GB/s kernel of the sixth pass the
// branch had measured slower (29.0 against 31.3).

// Block `b` of a frame whose payload starts at word `frame_word` and whose table at word
// `base` of `tables`, its words written by this invocation, OR-ed where shared.
fn decode_block(b: u32, frame_word: u32, base: u32) {
    let task = blocks[b];
    let n = task.w & ~LAST_BLOCK;
    let max_len = table_word(base, MAX_LEN_AT);
    let first = frame_word + (task.x >> 5u);
    var hi = payload[first];
    var lo = payload[first + 1u];
    var ahead = payload[first + 2u];
    var next = first + 3u;
    var pos = task.x & 31u;
    var bit = task.x;
    var acc = 0u;
    var filled = task.z & 3u;
    var out_word = task.z >> 2u;
    var head_shared = filled != 0u;
    var produced = 0u;
    var fault = vec2<u32>(0u, 0u);
    while produced < n {
        let window = window_at(hi, lo, pos);
        let e = table_word(base, window >> (32u - PRIMARY_BITS));
        // Two symbols where the block has room for them; the primary cases by `select`,
        // without branches, so that a warp's lanes stay together.
        let two = produced + 1u < n;
        var len = select(e & 15u, (e >> STEP_AT) & 15u, two);
        var count = select(1u, e >> COUNT_AT, two);
        var symbols = select((e >> 8u) & 0xffu, (e >> 8u) & 0xffffu, two);
        if len == 0u {
            let found = long_code(base, window, max_len);
            if found.x == 0u {
                fault = vec2<u32>(STATUS_INVALID_CODE, bit);
                break;
            }
            len = found.x;
            symbols = found.y;
            count = 1u;
        }
        pos += len;
        bit += len;
        if pos >= 32u {
            pos -= 32u;
            hi = lo;
            lo = ahead;
            ahead = payload[next];
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
        if bit > task.y {
            fault = vec2<u32>(STATUS_OVERRUN, produced);
            break;
        }
    }
    if fault.x == 0u {
        if filled != 0u {
            // The last partial word: the next block of the frame starts in it.
            put_word(out_word, acc, head_shared || (task.w & LAST_BLOCK) == 0u);
            out_word += 1u;
        }
        if (task.w & LAST_BLOCK) != 0u {
            // The frame's padding to its 16-byte unit (the host lays frames out so).
            for (; (out_word & 3u) != 0u; out_word++) {
                atomicStore(&output[out_word], 0u);
            }
        }
        if bit != task.y {
            fault = vec2<u32>(STATUS_WRONG_END, bit);
        }
    }
    status[b] = fault;
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    let grid = workgroup_grid(inv);
    for (var g = grid.x; g < params.n_groups; g += grid.y) {
        let group = groups[g];
        begin_group(inv, group);
        if inv.lid < group.y {
            decode_block(group.x + inv.lid, group.w, 0u);
        }
    }
}

// The group holding block `b`: groups cover the blocks in order, so a binary search over
// their first blocks (a dozen loads, once per block of thousands of steps).
fn group_of(b: u32) -> vec4<u32> {
    var lo = 0u;
    var hi = params.n_groups;
    while hi - lo > 1u {
        let mid = (lo + hi) / 2u;
        if groups[mid].x <= b {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return groups[lo];
}

// Needs SHARED_TABLE = false (the workgroup's table is never filled here).
@compute @workgroup_size(WG_SIZE)
fn main_global(inv: Invocation) {
    let grid = workgroup_grid(inv);
    for (var first = grid.x * WG_SIZE; first < params.n_blocks; first += grid.y * WG_SIZE) {
        let b = first + inv.lid;
        if b < params.n_blocks {
            let group = group_of(b);
            decode_block(b, group.w, group.z * TABLE_WORDS);
        }
    }
}

// Byte `i` of the output.
fn output_byte(i: u32) -> u32 {
    return (atomicLoad(&output[i >> 2u]) >> (8u * (i & 3u))) & 0xffu;
}

// After `main` (or `main_global`), in a dispatch of its own: a workgroup a block, each
// invocation the register over its own run of the block's output bytes, shifted past the
// runs after it, the workgroup's XORed (crc32.wgsl; one invocation a block was a serial
// chain of the whole block, as block_crc.wgsl's was).
@compute @workgroup_size(WG_SIZE)
fn block_crcs(inv: Invocation) {
    build_crc_tables(inv);
    let grid = workgroup_grid(inv);
    for (var b = grid.x; b < params.n_blocks; b += grid.y) {
        let task = blocks[b];
        let len = task.w & ~LAST_BLOCK;
        // Runs of whole words but the block's ends.
        let run = (len + 4u * WG_SIZE - 1u) / (4u * WG_SIZE) * 4u;
        let run_end = min(inv.lid * run + run, len);
        var at = task.z + min(inv.lid * run, len);
        let end = task.z + run_end;
        var c = select(0u, 0xffffffffu, inv.lid == 0u);
        while at < end && (at & 3u) != 0u {
            c = crc_byte(c, output_byte(at));
            at++;
        }
        while at + 4u <= end {
            c = crc_word(c, atomicLoad(&output[at >> 2u]));
            at += 4u;
        }
        while at < end {
            c = crc_byte(c, output_byte(at));
            at++;
        }
        let all = crc_xor_parts(inv.lid, crc_mul(crc_zeros(len - run_end), c));
        if inv.lid == 0u {
            crcs[b] = ~all;
        }
    }
}
