// A chunk's frames planned on a CUDA device from its cell histograms, for the `cuda`
// feature: the twin of shaders/huffman/frame_plan.wgsl, compiled at run time by NVRTC
// (src/cuda/mod.rs), writing the same plan words (huffman/plan_words.wgsl's layout), so
// that the host reads them with the wgpu plan's reader (src/huffman/frame_plan.rs
// `frames_from_plan`). `frame_plan_merge` (a block a region) joins neighbouring cells
// while one code for both is estimated to cost less than two codes and a second header;
// `frame_plan_code_lengths` (a block a frame) builds each frame's code lengths.
// CPU twin: src/huffman/frames.rs `plan_frames`: the same estimate in the same fixed
// point (exact integer sums, so any order gives the same cuts), and the lengths of
// code_lengths.rs's plain Huffman construction (sorted by count then symbol, two queues,
// the leaf first on a tie). A frame whose plain code is longer than the limit is left to
// the host (package-merge), flagged by its deepest leaf.
// Both run 256 threads a block: a thread a byte value.

typedef unsigned int u32;
typedef unsigned long long u64;

#define WG_SIZE 256u
#define WARPS (WG_SIZE / 32u)
#define LENGTH_WORDS 65u // keep in sync with src/huffman/frame_plan.rs `LENGTH_WORDS`
#define SYMBOLS 260u     // 257 rounded up to whole words of four lengths

// keep in sync with src/huffman/frame_plan.rs `FramePlanParams` (and
// shaders/huffman/frame_plan.wgsl's)
struct FramePlanParams {
    u32 n_cells;
    u32 cells_per_region; // frames never cross a region
    u32 cell_bytes;
    u32 last_cell_bytes;
    u32 alphabet; // 256, or 257: the end-of-block symbol, counted once
    u32 fixed;    // 1: every cell a frame
    u32 threshold_lo; // what a second header costs, in the estimate's fixed point
    u32 threshold_hi;
};

// keep in sync with src/cuda/cuvle/frame_plan.rs `FramePlanArgs`
struct FramePlanArgs {
    FramePlanParams p;
    // round(log2(1 + i / 256) * 2^16) for i in 0..=256 (src/huffman/frames.rs
    // `log2_segments`), by value: no buffer to keep.
    u32 log2_segments[257];
};

// The plan's parts for a frame whose first cell is c (huffman/plan_words.wgsl).
__device__ __forceinline__ u64 plan_info(u32 n, u32 c) { return (u64)n + 2u * (u64)c; }
__device__ __forceinline__ u64 plan_lengths(u32 n, u32 c) {
    return 3u * (u64)n + LENGTH_WORDS * (u64)c;
}
__device__ __forceinline__ u64 plan_hist(u32 n, u32 c) {
    return (3u + LENGTH_WORDS) * (u64)n + 256u * (u64)c;
}

// log2(f) in fixed point: the leading bit's place, then the 24 bits below it between the
// nearest two of 256 segments' ends (frames.rs `fixed_log2`).
__device__ __forceinline__ u32 fixed_log2(const u32* segments, u32 f) {
    if (f < 2u) {
        return 0u;
    }
    const u32 e = 31u - __clz(f);
    u32 below = e > 24u ? f >> (e - 24u) : f << (24u - e);
    below &= 0xffffffu;
    const u32 i = below >> 16u;
    const u32 a = segments[i];
    const u32 b = segments[i + 1u];
    return (e << 16u) + a + (((b - a) * (below & 0xffffu)) >> 16u);
}

__device__ __forceinline__ u64 term(const u32* segments, u32 f) {
    return (u64)f * fixed_log2(segments, f);
}

// Estimated code bits of `n` bytes whose counts' terms sum to `sum`.
__device__ __forceinline__ u64 entropy_bits(const u32* segments, u32 n, u64 sum) {
    const u64 t = term(segments, n);
    return t > sum ? t - sum : 0u;
}

// The block's sums of `a` and `b`, for every thread: warps by shuffles, then the warps'
// partial sums from `partial[parity]` (two sets, so that one barrier a call suffices).
__device__ __forceinline__ void block_sum2(u64 (*partial)[WARPS][2], u32& parity, u64& a,
                                           u64& b) {
#pragma unroll
    for (u32 d = 16u; d > 0u; d >>= 1u) {
        a += __shfl_xor_sync(0xffffffffu, a, d);
        b += __shfl_xor_sync(0xffffffffu, b, d);
    }
    if (threadIdx.x % 32u == 0u) {
        partial[parity][threadIdx.x / 32u][0] = a;
        partial[parity][threadIdx.x / 32u][1] = b;
    }
    __syncthreads();
    a = 0u;
    b = 0u;
#pragma unroll
    for (u32 w = 0u; w < WARPS; w++) {
        a += partial[parity][w][0];
        b += partial[parity][w][1];
    }
    parity ^= 1u;
}

__device__ __forceinline__ u32 cell_len(const FramePlanArgs& a, u32 c) {
    return c + 1u == a.p.n_cells ? a.p.last_cell_bytes : a.p.cell_bytes;
}

// A frame of `n` cells from cell `first` (of `n_cells`), whose count of this thread's
// byte value `s` is `count`.
__device__ __forceinline__ void emit(u32* plan, u32 n_cells, u32 s, u32 first, u32 n,
                                     u32 count) {
    plan[plan_hist(n_cells, first) + s] = count;
    if (s == 0u) {
        plan[first] = n;
    }
}

// One region at a time (its cells a serial chain of decisions), a thread a byte value.
extern "C" __global__ void __launch_bounds__(WG_SIZE)
    frame_plan_merge(const FramePlanArgs a, const u32* __restrict__ cells, u32* plan) {
    __shared__ u32 segments[257];
    __shared__ u64 partial[2][WARPS][2];
    for (u32 i = threadIdx.x; i < 257u; i += WG_SIZE) {
        segments[i] = a.log2_segments[i];
    }
    __syncthreads();
    const u32 s = threadIdx.x;
    const u64 threshold = ((u64)a.p.threshold_hi << 32u) | a.p.threshold_lo;
    u32 parity = 0u;
    const u32 n_regions = (a.p.n_cells + a.p.cells_per_region - 1u) / a.p.cells_per_region;
    for (u32 r = blockIdx.x; r < n_regions; r += gridDim.x) {
        const u32 begin = r * a.p.cells_per_region;
        const u32 end = min(begin + a.p.cells_per_region, a.p.n_cells);
        u32 acc = cells[(u64)begin * 256u + s];
        u32 acc_n = cell_len(a, begin);
        u64 sum_acc = term(segments, acc), unused = 0u;
        block_sum2(partial, parity, sum_acc, unused);
        u64 cost_acc = entropy_bits(segments, acc_n, sum_acc);
        u32 first = begin, n = 1u;
        for (u32 c = begin + 1u; c < end; c++) {
            const u32 h = cells[(u64)c * 256u + s];
            const u32 h_n = cell_len(a, c);
            bool take = false;
            u64 cost_h = 0u;
            if (a.p.fixed == 0u) {
                // The cell's estimate and the merged one, from one reduction.
                u64 sum_h = term(segments, h), sum_m = term(segments, acc + h);
                block_sum2(partial, parity, sum_h, sum_m);
                cost_h = entropy_bits(segments, h_n, sum_h);
                const u64 cost_merged = entropy_bits(segments, acc_n + h_n, sum_m);
                take = cost_merged <= cost_acc + cost_h + threshold;
                if (take) {
                    cost_acc = cost_merged;
                }
            }
            if (take) {
                acc += h;
                acc_n += h_n;
                n += 1u;
            } else {
                emit(plan, a.p.n_cells, s, first, n, acc);
                acc = h;
                acc_n = h_n;
                cost_acc = cost_h;
                first = c;
                n = 1u;
            }
        }
        emit(plan, a.p.n_cells, s, first, n, acc);
    }
}

// A frame at a time: its used symbols sorted by (count, symbol) by rank, a thread a
// symbol; then the two-queue tree and the leaves' depths by one thread (a few hundred
// steps in shared memory, microseconds; the frames of a chunk run side by side).
extern "C" __global__ void __launch_bounds__(WG_SIZE)
    frame_plan_code_lengths(const FramePlanArgs a, u32* plan) {
    __shared__ u32 counts[SYMBOLS];
    __shared__ u32 leaf_weight[SYMBOLS];
    __shared__ u32 leaf_symbol[SYMBOLS];
    __shared__ u32 lengths[SYMBOLS];
    __shared__ u32 node_weight[SYMBOLS];
    __shared__ unsigned short leaf_parent[SYMBOLS];
    __shared__ unsigned short node_parent[SYMBOLS];
    __shared__ u32 frame_cells, used;
    const u32 n = a.p.n_cells;
    for (u32 c = blockIdx.x; c < n; c += gridDim.x) {
        __syncthreads(); // the last frame's reads are done
        if (threadIdx.x == 0u) {
            frame_cells = plan[c];
            used = 0u;
        }
        __syncthreads();
        if (frame_cells == 0u) {
            continue;
        }
        for (u32 s = threadIdx.x; s < SYMBOLS; s += WG_SIZE) {
            u32 f = 0u;
            if (s < a.p.alphabet) {
                f = s < 256u ? plan[plan_hist(n, c) + s] : 1u;
            }
            counts[s] = f;
            lengths[s] = 0u;
        }
        __syncthreads();
        // Each used symbol's place among the used ones in (count, symbol) order.
        for (u32 s = threadIdx.x; s < a.p.alphabet; s += WG_SIZE) {
            const u32 f = counts[s];
            if (f == 0u) {
                continue;
            }
            u32 rank = 0u;
            for (u32 t = 0u; t < a.p.alphabet; t++) {
                const u32 g = counts[t];
                rank += (g != 0u && (g < f || (g == f && t < s))) ? 1u : 0u;
            }
            leaf_weight[rank] = f;
            leaf_symbol[rank] = s;
            atomicAdd(&used, 1u);
        }
        __syncthreads();
        if (threadIdx.x == 0u) {
            const u32 k = used;
            u32 deepest = 1u;
            if (k == 1u) {
                // One symbol: it and the first other symbol get one bit each.
                const u32 s = leaf_symbol[0];
                lengths[s] = 1u;
                lengths[s == 0u ? 1u : 0u] = 1u;
            } else {
                // Two queues: the leaves in order, the nodes in the order they are made
                // (their weights never decrease); the smaller front each time, the leaf
                // on a tie. Node `k - 2` is the root.
                u32 leaf = 0u, inner = 0u;
                for (u32 node = 0u; node + 1u < k; node++) {
                    u32 sum = 0u;
                    for (u32 pick = 0u; pick < 2u; pick++) {
                        const bool take_leaf =
                            leaf < k && (inner >= node || leaf_weight[leaf] <= node_weight[inner]);
                        if (take_leaf) {
                            leaf_parent[leaf] = (unsigned short)node;
                            sum += leaf_weight[leaf];
                            leaf++;
                        } else {
                            node_parent[inner] = (unsigned short)node;
                            sum += node_weight[inner];
                            inner++;
                        }
                    }
                    node_weight[node] = sum;
                }
                // Depths from the root down (a parent is made after its children); the
                // nodes' weights are no longer needed and hold their depths.
                const u32 root = k - 2u;
                node_weight[root] = 0u;
                for (int node = (int)root - 1; node >= 0; node--) {
                    node_weight[node] = node_weight[node_parent[node]] + 1u;
                }
                deepest = 0u;
                for (u32 r = 0u; r < k; r++) {
                    const u32 d = node_weight[leaf_parent[r]] + 1u;
                    lengths[leaf_symbol[r]] = d;
                    deepest = max(deepest, d);
                }
            }
            // Code bits of the frame's bytes (no end-of-block).
            u32 bits = 0u;
            for (u32 s = 0u; s < 256u; s++) {
                bits += counts[s] * lengths[s];
            }
            plan[plan_info(n, c)] = bits;
            plan[plan_info(n, c) + 1u] = deepest;
        }
        __syncthreads();
        for (u32 w = threadIdx.x; w < LENGTH_WORDS; w += WG_SIZE) {
            const u32 b = 4u * w;
            plan[plan_lengths(n, c) + w] = lengths[b] | (lengths[b + 1u] << 8u) |
                                           (lengths[b + 2u] << 16u) | (lengths[b + 3u] << 24u);
        }
    }
}
