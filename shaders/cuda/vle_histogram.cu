// Byte histogram per input chunk for the `cuda` feature: the twin of
// shaders/huffman/histogram.wgsl, compiled at run time by NVRTC (src/cuda/mod.rs).
//
// Each block counts one tile of the input (a power of two of words that divides the
// chunk, so no tile straddles two chunks; large tiles, so few global atomics) with
// 128-bit loads into COPIES copies of the counts in shared memory: lane l uses copy l %
// COPIES, so lanes of a warp that meet the same byte mostly hit different words, and the
// copies are 257 words apart, so those words sit in different banks. A word of four
// equal bytes (a run, the common case at low entropy) is counted with one atomic. The
// copies are merged into the chunk's global counts.
// CPU twin: src/huffman/histogram.rs `histogram_cpu`.

typedef unsigned int u32;
typedef unsigned long long u64;

#ifndef WG_SIZE
#define WG_SIZE 256
#endif

#define COPIES 8u
#define COPY_STRIDE 257u

// keep in sync with src/cuda/cuvle.rs `HistogramArgs`
struct HistogramArgs {
    u64 n_bytes;         // input bytes
    u32 words_per_tile;  // a multiple of 4 that divides words_per_chunk
    u32 words_per_chunk;
};

__device__ __forceinline__ void count_word(u32* counts, u32 word, u32 valid) {
    const u32 b0 = word & 0xffu;
    if (valid == 4u && word == b0 * 0x01010101u) {
        atomicAdd(&counts[b0], 4u); // a run of one byte: one atomic
    } else {
        for (u32 k = 0u; k < valid; k++) {
            atomicAdd(&counts[(word >> (8u * k)) & 0xffu], 1u);
        }
    }
}

extern "C" __global__ void __launch_bounds__(WG_SIZE)
    vle_histogram(HistogramArgs a, const uint4* __restrict__ input, u32* histogram) {
    __shared__ u32 counts[COPIES * COPY_STRIDE];
    for (u32 i = threadIdx.x; i < COPIES * COPY_STRIDE; i += WG_SIZE) {
        counts[i] = 0u;
    }
    __syncthreads();
    u32* mine = counts + (threadIdx.x % COPIES) * COPY_STRIDE;
    const u64 n_words = (a.n_bytes + 3u) / 4u;
    const u64 first = (u64)blockIdx.x * a.words_per_tile;
    const u64 end = min(first + a.words_per_tile, n_words);
    const uint4* tile = input + first / 4u;
    if (end - first == a.words_per_tile && (u64)(first + a.words_per_tile) * 4u <= a.n_bytes) {
        // A whole tile of whole words: no bounds to check.
        const u32 n_vecs = a.words_per_tile / 4u;
#pragma unroll 4
        for (u32 v = threadIdx.x; v < n_vecs; v += WG_SIZE) {
            const uint4 q = tile[v];
            count_word(mine, q.x, 4u);
            count_word(mine, q.y, 4u);
            count_word(mine, q.z, 4u);
            count_word(mine, q.w, 4u);
        }
    } else {
        const u32 n_vecs = (u32)((end - first + 3u) / 4u);
        for (u32 v = threadIdx.x; v < n_vecs; v += WG_SIZE) {
            const uint4 q = tile[v];
            const u32 words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const u64 w = first + 4u * v + k;
                const u32 valid = w < end ? (u32)min((u64)4u, a.n_bytes - 4u * w) : 0u;
                count_word(mine, words[k], valid);
            }
        }
    }
    __syncthreads();
    const u64 chunk = first / a.words_per_chunk;
    for (u32 s = threadIdx.x; s < 256u; s += WG_SIZE) {
        u32 total = 0u;
#pragma unroll
        for (u32 c = 0u; c < COPIES; c++) {
            total += counts[c * COPY_STRIDE + s];
        }
        if (total != 0u) {
            atomicAdd(&histogram[chunk * 256u + s], total);
        }
    }
}
