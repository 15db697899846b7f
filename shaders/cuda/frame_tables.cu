// Every planned frame's code table for the framed encode (shaders/cuda/vle_cuvle.cu,
// FLAG_FRAMED), built from the code lengths the frame plan left in its words
// (shaders/cuda/frame_plan.cu), for the `cuda` feature: the twin of
// shaders/huffman/frame_tables.wgsl, compiled at run time by NVRTC (src/cuda/mod.rs), in
// its output words. CPU twin: src/huffman/cuvle/cpu.rs `gpu_table_words` of the canonical
// code (src/huffman/codebook.rs `canonical_codes`, RFC 1951 3.2.2), word for word.
// A block a cell, a thread a byte value: the lengths counted, each length's first code
// from the counts, each symbol ranked among the lower symbols of its length. A cell where
// no frame starts, or whose frame's code is deeper than 15 bits (the host builds that
// table), is left as it is.

typedef unsigned int u32;

#define WG_SIZE 256u
// keep in sync with src/huffman/cuvle/cpu.rs `TABLE_WORDS`
#define TABLE_WORDS 512u
#define LENGTH_WORDS 65u // keep in sync with src/huffman/frame_plan.rs `LENGTH_WORDS`
#define MAX_LEN 15u

// keep in sync with src/huffman/frame_tables.rs `FrameTablesParams`
struct FrameTablesParams {
    u32 n_cells;
    u32 alphabet; // code lengths a frame has: 256, or 257 with gzip's end-of-block
    u32 pad0;
    u32 pad1;
};

// The plan's parts for a frame whose first cell is c (huffman/plan_words.wgsl).
__device__ __forceinline__ unsigned long long plan_info(u32 n, u32 c) {
    return (unsigned long long)n + 2u * (unsigned long long)c;
}
__device__ __forceinline__ unsigned long long plan_lengths(u32 n, u32 c) {
    return 3u * (unsigned long long)n + LENGTH_WORDS * (unsigned long long)c;
}

// Bytes of `word` equal to `len` (the WGSL twin's carry-free test).
__device__ __forceinline__ u32 bytes_equal(u32 word, u32 len) {
    u32 x = word ^ (len * 0x01010101u);
    u32 high_clear = ((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x;
    return __popc(~high_clear & 0x80808080u);
}

extern "C" __global__ void __launch_bounds__(WG_SIZE)
frame_tables(FrameTablesParams params, const u32* __restrict__ plan, u32* __restrict__ tables) {
    __shared__ u32 lengths[LENGTH_WORDS];
    __shared__ u32 count[16];
    const u32 lid = threadIdx.x;
    for (u32 c = blockIdx.x; c < params.n_cells; c += gridDim.x) {
        // Every thread reads the same words: the branch is the block's.
        if (plan[c] == 0u || plan[plan_info(params.n_cells, c) + 1u] > MAX_LEN) {
            continue;
        }
        const unsigned long long at = plan_lengths(params.n_cells, c);
        for (u32 i = lid; i < LENGTH_WORDS; i += WG_SIZE) {
            lengths[i] = plan[at + i];
        }
        if (lid < 16u) {
            count[lid] = 0u;
        }
        __syncthreads();
        for (u32 s = lid; s < params.alphabet; s += WG_SIZE) {
            u32 len = (lengths[s / 4u] >> (8u * (s % 4u))) & 0xffu;
            atomicAdd(&count[min(len, MAX_LEN)], 1u);
        }
        __syncthreads();
        for (u32 s = lid; s < 256u; s += WG_SIZE) {
            const u32 len = (lengths[s / 4u] >> (8u * (s % 4u))) & 0xffu;
            u32 first = 0u;
            for (u32 l = 1u; l < len; l++) {
                first = (first + count[l]) << 1u;
            }
            u32 rank = 0u;
            for (u32 w = 0u; w < s / 4u; w++) {
                rank += bytes_equal(lengths[w], len);
            }
            // Its own word's bytes from its own on set to 0xff, which no length equals.
            rank += bytes_equal(lengths[s / 4u] | (0xffffffffu << (8u * (s % 4u))), len);
            const u32 code = first + rank;
            const u32 reversed = len == 0u ? 0u : __brev(code) >> (32u - len);
            const unsigned long long out = (unsigned long long)c * TABLE_WORDS;
            tables[out + s] = reversed;
            tables[out + 256u + s] = len;
        }
        // The next cell's lengths overwrite this one's only once every rank is taken.
        __syncthreads();
    }
}
