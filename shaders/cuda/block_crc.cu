// The CRC32 of every block of a chunk on the device, for the `cuda` feature: the twin of
// shaders/huffman/block_crc.wgsl (CPU twin: src/huffman/block_crc.rs `block_crcs_cpu`),
// compiled at run time by NVRTC (src/cuda/mod.rs) after shaders/cuda/crc32.cuh. The
// stream coder folds a frame's blocks into the frame's CRC32 on the host (src/crc.rs)
// instead of a core's pass over the chunk. A warp a block: each lane runs the register over its own run of the
// block's words, shifts it past the runs after its own, and the warp XORs the results by
// shuffles (no block barrier after the tables are built).

typedef unsigned int u32;
typedef unsigned long long u64;

#define WG_SIZE 256u
#define WARPS (WG_SIZE / 32u)

// keep in sync with src/huffman/block_crc.rs `BlockCrcParams`
struct BlockCrcParams {
    u32 n_bytes;     // bytes of the input
    u32 block_words; // words of a block
    u32 n_blocks;    // blocks of the input, the last one maybe shorter
    u32 crc_base;    // where the first block's CRC32 goes in `crcs`
};

// `input` holds `n_bytes` bytes, zeros after them to a multiple of 16 (the stream
// coder's padded upload), 16-byte aligned.
extern "C" __global__ void __launch_bounds__(WG_SIZE)
block_crc(BlockCrcParams params, const u32* __restrict__ input, u32* __restrict__ crcs) {
    __shared__ u32 table[1024];
    build_crc_tables(table);
    const u32 tid = threadIdx.x;
    const u32 lane = tid & 31u;
    const u32 block_bytes = params.block_words * 4u;
    const u32 run_bytes = (params.block_words + 31u) / 32u * 4u;
    const u32 run_start = min(lane * run_bytes, block_bytes);
    const u32 run_end = min(run_start + run_bytes, block_bytes);
    // The shift past the runs after this one in a whole block: the same for every block
    // but a short last one.
    const u32 whole_after = block_bytes - run_end;
    const u32 whole_op = crc_zeros(whole_after);
    const u32 first = blockIdx.x * WARPS + (tid >> 5u);
    for (u32 b = first; b < params.n_blocks; b += gridDim.x * WARPS) {
        const u64 block_start = (u64)b * block_bytes;
        const u64 block_end = min(block_start + block_bytes, (u64)params.n_bytes);
        u64 at = min(block_start + run_start, block_end);
        const u64 end = min(block_start + run_end, block_end);
        // The message's initial register goes in with the first run alone: the register
        // is affine in it.
        u32 c = lane == 0u ? 0xffffffffu : 0u;
        // 128-bit loads where the run is aligned to them (runs of whole 16 bytes).
        while ((at & 15u) == 0u && at + 16u <= end) {
            const uint4 v = *reinterpret_cast<const uint4*>(input + (at >> 2u));
            c = crc_word(table, c, v.x);
            c = crc_word(table, c, v.y);
            c = crc_word(table, c, v.z);
            c = crc_word(table, c, v.w);
            at += 16u;
        }
        while (at + 4u <= end) {
            c = crc_word(table, c, input[at >> 2u]);
            at += 4u;
        }
        while (at < end) {
            c = crc_byte(table, c, (input[at >> 2u] >> (8u * (u32)(at & 3u))) & 0xffu);
            at++;
        }
        const u32 after = (u32)(block_end - end);
        const u32 op = after == whole_after ? whole_op : crc_zeros(after);
        u32 all = crc_mul(op, c);
        for (u32 s = 16u; s > 0u; s >>= 1u) {
            all ^= __shfl_xor_sync(0xffffffffu, all, s);
        }
        if (lane == 0u) {
            crcs[params.crc_base + b] = ~all;
        }
    }
}
