// The CRC32 of every block of an input window, one invocation a block: the stream
// compressor folds a frame's blocks into the frame's CRC32 on the host (src/crc.rs)
// instead of a core's pass over the frame's bytes.
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

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    build_crc_tables(inv);
    let grid = workgroup_grid(inv);
    for (var first = grid.x * WG_SIZE; first < params.n_blocks; first += grid.y * WG_SIZE) {
        let b = first + inv.lid;
        if b < params.n_blocks {
            var at = b * params.block_words * 4u;
            let end = min(at + params.block_words * 4u, params.n_bytes);
            var c = 0xffffffffu;
            while at + 4u <= end {
                c = crc_word(c, input[at >> 2u]);
                at += 4u;
            }
            while at < end {
                c = crc_byte(c, (input[at >> 2u] >> (8u * (at & 3u))) & 0xffu);
                at++;
            }
            crcs[params.crc_base + b] = ~c;
        }
    }
}
