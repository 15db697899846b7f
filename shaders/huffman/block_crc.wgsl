// The CRC32 of every block of an input window, a workgroup a block: the stream
// compressor folds a frame's blocks into the frame's CRC32 on the host (src/crc.rs)
// instead of a core's pass over the frame's bytes. Each invocation runs the register
// over its own run of the block's words, shifts it past the runs after its own, and the
// workgroup XORs the results: a chain of a few words an invocation, not of the whole
// block (one invocation a block made this pass a chunk's slowest on the H200).
// CPU twin: src/huffman/block_crc.rs `block_crcs_cpu`.
//!import common/invocation
//!import huffman/crc32

struct BlockCrcParams {
    n_bytes: u32,     // bytes of the window
    block_words: u32, // words of a block
    n_blocks: u32,    // blocks of the window, the last one maybe shorter
    crc_base: u32,    // where the window's first block's CRC32 goes in `crcs`
}
// keep in sync with src/huffman/block_crc.rs `BlockCrcParams`
@group(0) @binding(0) var<uniform> params: BlockCrcParams;
// The window's bytes, little-endian in words, zeros after `n_bytes`.
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> crcs: array<u32>;
// By invocation, the multiplier that shifts its run's register past the runs after it in
// a whole block (x^(8n) mod P for those n bytes; src/huffman/block_crc.rs
// `run_shifts`): the same for every block, made once on the host. Built here, each
// workgroup's invocations spent most of the pass on it.
@group(0) @binding(3) var<storage, read> run_shifts: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    build_crc_tables(inv);
    let grid = workgroup_grid(inv);
    let block_bytes = params.block_words * 4u;
    let run_bytes = (params.block_words + WG_SIZE - 1u) / WG_SIZE * 4u;
    let run_start = min(inv.lid * run_bytes, block_bytes);
    let run_end = min(run_start + run_bytes, block_bytes);
    // The shift past the runs after this one, in a whole block: the same for every block
    // but a short last one.
    let whole_after = block_bytes - run_end;
    let whole_op = run_shifts[inv.lid];
    for (var b = grid.x; b < params.n_blocks; b += grid.y) {
        let block_start = b * block_bytes;
        let block_end = min(block_start + block_bytes, params.n_bytes);
        var at = min(block_start + run_start, block_end);
        let end = min(block_start + run_end, block_end);
        // The message's initial register goes in with the first run alone: the register
        // is affine in it.
        var c = select(0u, 0xffffffffu, inv.lid == 0u);
        while at + 4u <= end {
            c = crc_word(c, input[at >> 2u]);
            at += 4u;
        }
        while at < end {
            c = crc_byte(c, (input[at >> 2u] >> (8u * (at & 3u))) & 0xffu);
            at++;
        }
        let after = block_end - end;
        var op = whole_op;
        if after != whole_after {
            op = crc_zeros(after);
        }
        let all = crc_xor_parts(inv.lid, crc_mul(op, c));
        if inv.lid == 0u {
            crcs[params.crc_base + b] = ~all;
        }
    }
}
