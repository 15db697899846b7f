// VLD on CUDA: the twin of shaders/huffman/vld.wgsl, step for step (it reads a table
// entry's pair fields, bits 4-23, where the WGSL reads its step fields, which say the
// same; one thread decodes one block; a thread block takes up to WG_SIZE blocks of one
// frame, that frame's decode table cached in shared memory). Same inputs (src/huffman/vld.rs `VldPlan`), same output
// words and per-block status, so src/cuda/vld.rs reads it back through the same plan.
// It exists to decode on NVIDIA GPUs and to show, under Nsight Compute (which profiles
// CUDA, not Vulkan), where the per-block decode spends its cycles.
// Compiled with -DWG_SIZE.

// keep in sync with src/huffman/vld.rs and shaders/huffman/vld.wgsl
#define PRIMARY_BITS 11u
#define LONG_AT 2048u
#define MAX_LEN_AT 2060u
#define SORTED_AT 2064u
#define TABLE_WORDS 2320u
#define LAST_BLOCK 0x80000000u
#define STATUS_INVALID_CODE 1u
#define STATUS_OVERRUN 2u
#define STATUS_WRONG_END 3u

// keep in sync with src/cuda/vld.rs `VldArgs`
struct VldArgs {
    unsigned n_groups;
    unsigned payload_words;
};

// Words in stream order (a word's first byte its most significant: the host swaps them).
__device__ __forceinline__ unsigned stream_word(const unsigned* __restrict__ payload,
                                                unsigned n, unsigned i) {
    return i < n ? __ldg(payload + i) : 0u;
}

__device__ __forceinline__ unsigned window_at(unsigned hi, unsigned lo, unsigned pos) {
    return (hi << pos) | ((lo >> 1u) >> (31u - pos));
}

// (code bits, symbols as the bytes of a word, symbols); 0 bits where no code matches.
__device__ __forceinline__ uint3 lookup(const unsigned* table, unsigned window,
                                        unsigned room, unsigned max_len) {
    unsigned e = table[window >> (32u - PRIMARY_BITS)];
    if ((e & 15u) == 0u) {
        for (unsigned l = PRIMARY_BITS + 1u; l <= max_len; l++) {
            unsigned at = LONG_AT + 3u * (l - PRIMARY_BITS - 1u);
            unsigned d = (window >> (32u - l)) - table[at];
            if (d < table[at + 1u]) {
                return make_uint3(l, table[SORTED_AT + table[at + 2u] + d], 1u);
            }
        }
        return make_uint3(0u, 0u, 1u);
    }
    bool two = ((e >> 4u) & 15u) != 0u && room >= 2u;
    return two ? make_uint3((e >> 4u) & 15u, (e >> 8u) & 0xffffu, 2u)
               : make_uint3(e & 15u, (e >> 8u) & 0xffu, 1u);
}

__device__ __forceinline__ void put_word(unsigned* output, unsigned index, unsigned word,
                                         bool or_into) {
    if (or_into) {
        atomicOr(output + index, word);
    } else {
        output[index] = word;
    }
}

__device__ void decode_block(const unsigned* table, const unsigned* __restrict__ payload,
                             unsigned payload_words, const uint4* __restrict__ blocks,
                             unsigned* output, uint2* status, unsigned b,
                             unsigned frame_word) {
    uint4 task = blocks[b];
    unsigned n = task.w & ~LAST_BLOCK;
    unsigned max_len = table[MAX_LEN_AT];
    unsigned next = (task.x >> 5u) + 3u;
    unsigned hi = stream_word(payload, payload_words, frame_word + next - 3u);
    unsigned lo = stream_word(payload, payload_words, frame_word + next - 2u);
    unsigned ahead = stream_word(payload, payload_words, frame_word + next - 1u);
    unsigned pos = task.x & 31u;
    unsigned acc = 0u;
    unsigned filled = task.z & 3u;
    unsigned out_word = task.z >> 2u;
    bool head_shared = filled != 0u;
    unsigned produced = 0u;
    uint2 fault = make_uint2(0u, 0u);
    while (produced < n) {
        uint3 found = lookup(table, window_at(hi, lo, pos), n - produced, max_len);
        if (found.x == 0u) {
            fault = make_uint2(STATUS_INVALID_CODE, (next - 3u) * 32u + pos);
            break;
        }
        pos += found.x;
        unsigned word = stream_word(payload, payload_words, frame_word + next);
        bool used_up = pos >= 32u;
        pos -= used_up ? 32u : 0u;
        hi = used_up ? lo : hi;
        lo = used_up ? ahead : lo;
        ahead = used_up ? word : ahead;
        next += used_up ? 1u : 0u;
        acc |= found.y << (8u * filled);
        filled += found.z;
        if (filled >= 4u) {
            put_word(output, out_word, acc, head_shared);
            head_shared = false;
            out_word += 1u;
            filled -= 4u;
            // found.z - filled is at most 2: never a 32-bit shift.
            acc = found.y >> (8u * (found.z - filled));
        }
        produced += found.z;
        if ((next - 3u) * 32u + pos > task.y) {
            fault = make_uint2(STATUS_OVERRUN, produced);
            break;
        }
    }
    if (fault.x == 0u) {
        if (filled != 0u) {
            // The last partial word: the next block of the frame starts in it.
            put_word(output, out_word, acc, head_shared || (task.w & LAST_BLOCK) == 0u);
        }
        unsigned end = (next - 3u) * 32u + pos;
        if (end != task.y) {
            fault = make_uint2(STATUS_WRONG_END, end);
        }
    }
    status[b] = fault;
}

extern "C" __global__ void __launch_bounds__(WG_SIZE)
vld_main(VldArgs args, const unsigned* __restrict__ payload,
         const unsigned* __restrict__ tables, const uint4* __restrict__ blocks,
         const uint4* __restrict__ groups, unsigned* output, uint2* status) {
    __shared__ unsigned table[TABLE_WORDS];
    for (unsigned g = blockIdx.x; g < args.n_groups; g += gridDim.x) {
        uint4 group = groups[g];
        __syncthreads(); // the last group's decodes are done with the table
        for (unsigned i = threadIdx.x; i < TABLE_WORDS; i += WG_SIZE) {
            table[i] = tables[group.z * TABLE_WORDS + i];
        }
        __syncthreads();
        if (threadIdx.x < group.y) {
            decode_block(table, payload, args.payload_words, blocks, output, status,
                         group.x + threadIdx.x, group.w);
        }
    }
}

// The same CRC32s as vld.wgsl `block_crcs`, after vld_main: each thread the CRC32 (IEEE,
// reflected) of one block's output bytes, by bytes up to a word boundary, then by words
// (slicing by 4, the tables built by the thread block in shared memory). (The WGSL one
// splits a block over a workgroup and shifts the parts together.)
__device__ __forceinline__ unsigned output_byte(const unsigned* output, unsigned i) {
    return (output[i >> 2u] >> (8u * (i & 3u))) & 0xffu;
}

extern "C" __global__ void __launch_bounds__(WG_SIZE)
vld_block_crcs(unsigned n_blocks, const uint4* __restrict__ blocks,
               const unsigned* __restrict__ output, unsigned* __restrict__ crcs) {
    __shared__ unsigned t[1024];
    for (unsigned i = threadIdx.x; i < 256u; i += WG_SIZE) {
        unsigned c = i;
        for (unsigned k = 0u; k < 8u; k++) {
            c = (c >> 1u) ^ ((c & 1u) ? 0xedb88320u : 0u);
        }
        t[i] = c;
    }
    for (unsigned k = 1u; k < 4u; k++) {
        __syncthreads();
        for (unsigned i = threadIdx.x; i < 256u; i += WG_SIZE) {
            unsigned prev = t[(k - 1u) * 256u + i];
            t[k * 256u + i] = (prev >> 8u) ^ t[prev & 0xffu];
        }
    }
    __syncthreads();
    for (unsigned b = blockIdx.x * WG_SIZE + threadIdx.x; b < n_blocks;
         b += gridDim.x * WG_SIZE) {
        uint4 task = blocks[b];
        unsigned at = task.z;
        unsigned end = task.z + (task.w & ~LAST_BLOCK);
        unsigned c = 0xffffffffu;
        while (at < end && (at & 3u) != 0u) {
            c = (c >> 8u) ^ t[(c ^ output_byte(output, at)) & 0xffu];
            at++;
        }
        while (at + 4u <= end) {
            unsigned x = c ^ output[at >> 2u];
            c = t[768u + (x & 0xffu)] ^ t[512u + ((x >> 8u) & 0xffu)] ^
                t[256u + ((x >> 16u) & 0xffu)] ^ t[x >> 24u];
            at += 4u;
        }
        while (at < end) {
            c = (c >> 8u) ^ t[(c ^ output_byte(output, at)) & 0xffu];
            at++;
        }
        crcs[b] = ~c;
    }
}
