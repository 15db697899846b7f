// A gzip frame's DEFLATE dynamic block header (BFINAL = 0) from the code lengths the frame
// plan built (shaders/cuda/frame_plan.cu), for the `cuda` feature: the twin of
// shaders/huffman/deflate_head.wgsl, compiled at run time by NVRTC (src/cuda/mod.rs), in
// its output words, so that the host reads them with the wgpu path's reader
// (src/huffman/deflate_head.rs `head_of`).
// CPU twin: src/huffman/gzip.rs `deflate_block_header_with`, bit for bit: the same
// run-length coding of the lengths, the code-length code by code_lengths.rs (sorted by
// count then symbol, two-queue Huffman with the leaf first on a tie, package-merge where
// it is deeper than 7 bits), canonical codes, and the same field order.
// A block a frame: its threads load the lengths and store the header; one thread builds
// the header in shared memory (a few hundred serial steps; a chunk's frames run side by
// side, one a block).

typedef unsigned int u32;

#define WG_SIZE 64u
// keep in sync with src/huffman/deflate_head.rs `HEAD_WORDS`
#define HEAD_WORDS 117u
#define LENGTH_WORDS 65u // keep in sync with src/huffman/frame_plan.rs `LENGTH_WORDS`
#define LITERALS 257u
// The lengths a header codes: the literals', then the one distance code's.
#define LENGTHS (LITERALS + 1u)
#define MAX_LITERAL_LEN 15u
// The code-length code: 19 symbols of at most 7 bits.
#define CL_SYMBOLS 19u
#define CL_MAX_LEN 7u
#define NONE 0xffffffffu
// Run-length entries: at most one a length, and room for two more (gzip.rs).
#define MAX_ENTRIES (LITERALS + 3u)

// The plan's parts for a frame whose first cell is c (huffman/plan_words.wgsl).
__device__ __forceinline__ unsigned long long plan_info(u32 n, u32 c) {
    return (unsigned long long)n + 2u * (unsigned long long)c;
}
__device__ __forceinline__ unsigned long long plan_lengths(u32 n, u32 c) {
    return 3u * (unsigned long long)n + LENGTH_WORDS * (unsigned long long)c;
}

__device__ __forceinline__ u32 extra_bits(u32 s) {
    return s == 16u ? 2u : s == 17u ? 3u : s == 18u ? 7u : 0u;
}

// The header being built: its bits, LSB first, four bytes a word.
struct Header {
    u32* words;
    u32 at;
    __device__ void put(u32 value, u32 len) {
        const u32 w = at / 32u, b = at % 32u;
        words[w] |= value << b;
        if (b + len > 32u) {
            words[w + 1u] |= value >> (32u - b);
        }
        at += len;
    }
};

// Huffman depths of the k >= 2 leaves weight[0..k] (sorted ascending) by two queues, the
// leaf first on a tie, into depth[0..k]; returns the deepest.
__device__ u32 huffman_depths(u32 k, const u32* weight, u32* depth) {
    u32 node_weight[CL_SYMBOLS], node_parent[CL_SYMBOLS], leaf_parent[CL_SYMBOLS];
    u32 leaf = 0u, inner = 0u;
    for (u32 node = 0u; node + 1u < k; node++) {
        u32 sum = 0u;
        for (u32 pick = 0u; pick < 2u; pick++) {
            const bool take_leaf = leaf < k && (inner >= node || weight[leaf] <= node_weight[inner]);
            if (take_leaf) {
                leaf_parent[leaf] = node;
                sum += weight[leaf++];
            } else {
                node_parent[inner] = node;
                sum += node_weight[inner++];
            }
        }
        node_weight[node] = sum;
    }
    // Depths from the root (node k - 2) down; a parent is made after its children.
    node_weight[k - 2u] = 0u;
    for (int node = (int)k - 3; node >= 0; node--) {
        node_weight[node] = node_weight[node_parent[node]] + 1u;
    }
    u32 deepest = 0u;
    for (u32 l = 0u; l < k; l++) {
        depth[l] = node_weight[leaf_parent[l]] + 1u;
        deepest = max(deepest, depth[l]);
    }
    return deepest;
}

// Package-merge of the k leaves weight[0..k] (sorted ascending) at most CL_MAX_LEN deep,
// as code_lengths.rs builds it: each level's list the leaves merged with the packages of
// the level below (the leaf first on a tie), which of its entries were leaves kept as a
// mask; then from the top level down, the leaves among the entries taken deepen by one.
__device__ void package_merge(u32 k, const u32* weight, u32* depth) {
    u32 current[2u * CL_SYMBOLS], packages[CL_SYMBOLS + 1u];
    unsigned long long leaf_mask[CL_MAX_LEN];
    u32 list_len[CL_MAX_LEN];
    for (u32 i = 0u; i < k; i++) {
        current[i] = weight[i];
        depth[i] = 0u;
    }
    u32 current_len = k;
    leaf_mask[0] = (1ull << k) - 1ull;
    list_len[0] = k;
    for (u32 level = 1u; level < CL_MAX_LEN; level++) {
        const u32 n_packages = current_len / 2u;
        for (u32 j = 0u; j < n_packages; j++) {
            packages[j] = current[2u * j] + current[2u * j + 1u];
        }
        packages[n_packages] = NONE;
        u32 i = 0u, j = 0u;
        unsigned long long mask = 0ull;
        for (u32 at = 0u; at < k + n_packages; at++) {
            const u32 lw = i < k ? weight[i] : NONE;
            const bool take_leaf = lw <= packages[j];
            current[at] = take_leaf ? lw : packages[j];
            if (take_leaf) {
                mask |= 1ull << at;
                i++;
            } else {
                j++;
            }
        }
        current_len = k + n_packages;
        leaf_mask[level] = mask;
        list_len[level] = current_len;
    }
    u32 take = 2u * k - 2u;
    for (u32 level = CL_MAX_LEN; level > 0u && take > 0u; level--) {
        const u32 l = level - 1u;
        const u32 selected = min(take, list_len[l]);
        const unsigned long long below = selected >= 64u ? ~0ull : (1ull << selected) - 1ull;
        const u32 n_leaves = __popcll(leaf_mask[l] & below);
        for (u32 d = 0u; d < n_leaves; d++) {
            depth[d] += 1u;
        }
        take = 2u * (selected - n_leaves);
    }
}

extern "C" __global__ void __launch_bounds__(WG_SIZE)
    deflate_head(const u32 n_cells, const u32* __restrict__ plan, u32* heads) {
    __shared__ u32 lens[LENGTHS];
    __shared__ u32 head[HEAD_WORDS];
    __shared__ unsigned char entry_symbol[MAX_ENTRIES], entry_extra[MAX_ENTRIES];
    __shared__ u32 here;
    const u32 order[CL_SYMBOLS] = {16u, 17u, 18u, 0u, 8u, 7u, 9u, 6u, 10u, 5u,
                                   11u, 4u, 12u, 3u, 13u, 2u, 14u, 1u, 15u};
    for (u32 c = blockIdx.x; c < n_cells; c += gridDim.x) {
        __syncthreads(); // the last frame's header is stored
        const unsigned long long out = (unsigned long long)c * HEAD_WORDS;
        if (threadIdx.x == 0u) {
            // No header where no frame starts, or where its code is deeper than DEFLATE
            // allows (the host codes that frame).
            here = plan[c] != 0u && plan[plan_info(n_cells, c) + 1u] <= MAX_LITERAL_LEN;
        }
        __syncthreads();
        if (!here) {
            if (threadIdx.x == 0u) {
                heads[out] = 0u;
            }
            continue;
        }
        const unsigned long long at = plan_lengths(n_cells, c);
        for (u32 i = threadIdx.x; i < LENGTHS; i += WG_SIZE) {
            lens[i] = i == LITERALS ? 1u : (plan[at + i / 4u] >> (8u * (i % 4u))) & 0xffu;
        }
        for (u32 i = threadIdx.x; i < HEAD_WORDS; i += WG_SIZE) {
            head[i] = 0u;
        }
        __syncthreads();
        if (threadIdx.x == 0u) {
            // RFC 1951's run-length coding, as gzip.rs `rle_code_lengths`: zeros by 17
            // and 18, repeats of a length by 16 after the length itself.
            u32 freq[CL_SYMBOLS] = {};
            u32 n = 0u;
            // One entry: a code-length symbol and its extra bits' value.
            auto put = [&](u32 symbol, u32 extra) {
                entry_symbol[n] = (unsigned char)symbol;
                entry_extra[n++] = (unsigned char)extra;
                freq[symbol]++;
            };
            for (u32 i = 0u; i < LENGTHS;) {
                const u32 v = lens[i];
                u32 run = 1u;
                while (i + run < LENGTHS && lens[i + run] == v) {
                    run++;
                }
                i += run;
                if (v == 0u) {
                    while (run >= 11u) {
                        const u32 r = min(run, 138u);
                        put(18u, r - 11u);
                        run -= r;
                    }
                    if (run >= 3u) {
                        put(17u, run - 3u);
                        run = 0u;
                    }
                } else {
                    put(v, 0u);
                    run -= 1u;
                    while (run >= 3u) {
                        const u32 r = min(run, 6u);
                        put(16u, r - 3u);
                        run -= r;
                    }
                }
                for (; run > 0u; run--) {
                    put(v, 0u);
                }
            }
            // The code-length code: the used symbols by (count, symbol), insertion sort.
            u32 sorted[CL_SYMBOLS], weight[CL_SYMBOLS], depth[CL_SYMBOLS];
            u32 k = 0u;
            for (u32 s = 0u; s < CL_SYMBOLS; s++) {
                if (freq[s] == 0u) {
                    continue;
                }
                u32 j = k++;
                while (j > 0u && freq[sorted[j - 1u]] > freq[s]) {
                    sorted[j] = sorted[j - 1u];
                    j--;
                }
                sorted[j] = s;
            }
            u32 cl_len[CL_SYMBOLS] = {};
            if (k == 1u) {
                // One symbol: it and the first other symbol get one bit each.
                cl_len[sorted[0]] = 1u;
                cl_len[sorted[0] == 0u ? 1u : 0u] = 1u;
            } else {
                for (u32 i = 0u; i < k; i++) {
                    weight[i] = freq[sorted[i]];
                }
                if (huffman_depths(k, weight, depth) > CL_MAX_LEN) {
                    package_merge(k, weight, depth);
                }
                for (u32 i = 0u; i < k; i++) {
                    cl_len[sorted[i]] = depth[i];
                }
            }
            // Canonical codes, first bit lowest.
            u32 count[CL_MAX_LEN + 1u] = {}, next[CL_MAX_LEN + 1u] = {};
            for (u32 s = 0u; s < CL_SYMBOLS; s++) {
                count[cl_len[s]]++;
            }
            count[0] = 0u;
            u32 code = 0u;
            for (u32 bits = 1u; bits <= CL_MAX_LEN; bits++) {
                code = (code + count[bits - 1u]) << 1u;
                next[bits] = code;
            }
            u32 cl_lsb[CL_SYMBOLS];
            for (u32 s = 0u; s < CL_SYMBOLS; s++) {
                const u32 l = cl_len[s];
                cl_lsb[s] = l > 0u ? __brev(next[l]++) >> (32u - l) : 0u;
            }
            u32 n_cl = 4u;
            for (u32 p = 0u; p < CL_SYMBOLS; p++) {
                if (cl_len[order[p]] != 0u) {
                    n_cl = max(n_cl, p + 1u);
                }
            }
            Header h = {head + 1, 0u};
            h.put(4u, 13u); // BFINAL 0, BTYPE 10 (dynamic), HLIT 0, HDIST 0 (one code)
            h.put(n_cl - 4u, 4u); // HCLEN
            for (u32 p = 0u; p < n_cl; p++) {
                h.put(cl_len[order[p]], 3u);
            }
            for (u32 e = 0u; e < n; e++) {
                const u32 s = entry_symbol[e];
                h.put(cl_lsb[s] | ((u32)entry_extra[e] << cl_len[s]), cl_len[s] + extra_bits(s));
            }
            head[0] = h.at;
        }
        __syncthreads();
        for (u32 i = threadIdx.x; i < HEAD_WORDS; i += WG_SIZE) {
            heads[out + i] = head[i];
        }
    }
}
