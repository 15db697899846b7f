// Every planned frame's code table for the framed CUVLE encode, built on the GPU from the
// code lengths the frame plan left in its words (shaders/huffman/frame_plan.wgsl), in the
// plan's submission: the host no longer builds, lays out and uploads a table of 512
// words a frame (hundreds of frames a stream chunk; docs/results.md, "Forty-fourth
// pass"). A frame's table goes to the slot of its first cell, which the host's block
// map names. CPU twin: src/huffman/cuvle/cpu.rs `gpu_table_words` of the canonical code
// (src/huffman/codebook.rs `canonical_codes`, RFC 1951 3.2.2), word for word.
// A workgroup a cell, an invocation a byte value: the lengths counted, each length's
// first code from the counts, each symbol ranked among the shorter-indexed ones of its
// length. A cell where no frame starts, or whose frame's code is deeper than 15 bits
// (the host builds that code and its table), is left as it is.
//!import common/invocation
//!import huffman/plan_words

struct FrameTablesParams {
    n_cells: u32,
    alphabet: u32, // code lengths a frame has: 256, or 257 with gzip's end-of-block
    _pad0: u32,
    _pad1: u32,
}
// keep in sync with src/huffman/frame_tables.rs `FrameTablesParams`
@group(0) @binding(0) var<uniform> params: FrameTablesParams;
// The frame plan's words, laid out as huffman/plan_words.wgsl says.
@group(0) @binding(1) var<storage, read> plan: array<u32>;
// TABLE_WORDS a cell: the 256 byte values' codes, first bit lowest, then their lengths
// (the framed CUVLE kernel's table, src/huffman/cuvle/cpu.rs `gpu_table_words`).
@group(0) @binding(2) var<storage, read_write> tables: array<u32>;

// keep in sync with src/huffman/cuvle/cpu.rs `TABLE_WORDS`
const TABLE_WORDS: u32 = 512u;
const MAX_LEN: u32 = 15u;

var<workgroup> lengths: array<u32, PLAN_LENGTH_WORDS>;
var<workgroup> count: array<atomic<u32>, 16>;
var<workgroup> table_here: u32;

// Bytes of `word` equal to `len`: a byte's XOR is zero exactly where it matches (the
// carry-free test: no byte's sum reaches into the next).
fn bytes_equal(word: u32, len: u32) -> u32 {
    let x = word ^ (len * 0x01010101u);
    let high_clear = ((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x;
    return countOneBits(~high_clear & 0x80808080u);
}

// Code length of symbol `s` (four a word, the first in the low byte).
fn length_of(s: u32) -> u32 {
    return (lengths[s / 4u] >> (8u * (s % 4u))) & 0xffu;
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    let grid = workgroup_grid(inv);
    for (var c = grid.x; c < params.n_cells; c += grid.y) {
        // Decided by one invocation, so that every browser sees the branch as uniform.
        if inv.lid == 0u {
            let deepest = plan[plan_info(params.n_cells, c) + 1u];
            table_here = select(0u, 1u, plan[c] != 0u && deepest <= MAX_LEN);
        }
        if workgroupUniformLoad(&table_here) == 0u {
            // Every invocation has read `table_here` before the next cell's is written.
            workgroupBarrier();
            continue;
        }
        let at = plan_lengths(params.n_cells, c);
        for (var i = inv.lid; i < PLAN_LENGTH_WORDS; i += WG_SIZE) {
            lengths[i] = plan[at + i];
        }
        if inv.lid < 16u {
            atomicStore(&count[inv.lid], 0u);
        }
        workgroupBarrier();
        for (var s = inv.lid; s < params.alphabet; s += WG_SIZE) {
            atomicAdd(&count[min(length_of(s), MAX_LEN)], 1u);
        }
        workgroupBarrier();
        for (var s = inv.lid; s < 256u; s += WG_SIZE) {
            let len = length_of(s);
            // The first code of `len` bits: the codes of every shorter length before it.
            var first = 0u;
            for (var l = 1u; l < len; l++) {
                first = (first + atomicLoad(&count[l])) << 1u;
            }
            // Its rank among the symbols of its length below it: whole words, then the
            // bytes of its own word below it.
            var rank = 0u;
            for (var w = 0u; w < s / 4u; w++) {
                rank += bytes_equal(lengths[w], len);
            }
            // Its own word's bytes from its own on set to 0xff, which no length equals.
            let below = s % 4u;
            rank += bytes_equal(lengths[s / 4u] | (0xffffffffu << (8u * below)), len);
            let code = first + rank;
            // The code reversed into its low `len` bits (first bit lowest); 0 for none.
            let reversed = select(0u, reverseBits(code) >> (32u - max(len, 1u)), len != 0u);
            tables[c * TABLE_WORDS + s] = reversed;
            tables[c * TABLE_WORDS + 256u + s] = len;
        }
        // The next cell's lengths overwrite this one's only once every rank is taken.
        workgroupBarrier();
    }
}
