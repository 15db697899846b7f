// VLD on CUDA: the twin of shaders/huffman/vld.wgsl, step for step in its decode (it
// reads a table entry's pair fields, bits 4-23, where the WGSL reads its step fields,
// which say the same; one thread decodes one block; a thread block takes up to WG_SIZE
// blocks of one frame, that frame's decode table cached in shared memory). Same inputs
// (src/huffman/vld.rs `VldPlan`), same output bytes and per-block status, so
// src/cuda/vld.rs reads it back through the same plan. It exists to decode on NVIDIA GPUs
// and to show, under Nsight Compute (which profiles CUDA, not Vulkan), where the
// per-block decode spends its cycles.
//
// Its memory traffic differs from the WGSL's: a thread loads its payload a 16-byte quad
// at a time, a quad ahead, and stores its output a 16-byte unit at a time (the host
// aligns frames for both). Loading a word every step and storing every four bytes, all
// its per-thread loads missed L1 and its sectors held L2 at 73%: 101 GB/s at 1 GiB and
// 4.5 bits on the H200; quads and units, 165 GB/s, L2 at 21% (docs/results.md,
// "Thirty-first pass"). The same change to the WGSL made it slower (141 -> 92 GB/s).
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

// Payload quad `g` (words 4g..4g+3) of a frame whose payload starts at `frame` (a
// multiple of 4 words: the host aligns frames), zeros past the payload.
__device__ __forceinline__ uint4 stream_quad(const unsigned* __restrict__ payload,
                                             unsigned n, unsigned frame, unsigned g) {
    unsigned i = frame + 4u * g;
    return i + 3u < n ? __ldg(reinterpret_cast<const uint4*>(payload + i))
                      : make_uint4(0u, 0u, 0u, 0u);
}

__device__ __forceinline__ unsigned quad_word(uint4 q, unsigned k) {
    return k == 0u ? q.x : k == 1u ? q.y : k == 2u ? q.z : q.w;
}

// An output unit (16 bytes at `unit`): stored at once where the block holds it whole,
// its words OR-ed (into a zeroed output) where another block shares it.
__device__ __forceinline__ void put_unit(unsigned* output, unsigned unit, uint4 q,
                                         bool shared) {
    if (shared) {
        atomicOr(output + 4u * unit, q.x);
        atomicOr(output + 4u * unit + 1u, q.y);
        atomicOr(output + 4u * unit + 2u, q.z);
        atomicOr(output + 4u * unit + 3u, q.w);
    } else {
        reinterpret_cast<uint4*>(output)[unit] = q;
    }
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

__device__ void decode_block(const unsigned* table, const unsigned* __restrict__ payload,
                             unsigned payload_words, const uint4* __restrict__ blocks,
                             unsigned* output, uint2* status, unsigned b,
                             unsigned frame_word) {
    uint4 task = blocks[b];
    unsigned n = task.w & ~LAST_BLOCK;
    bool ends_frame = (task.w & LAST_BLOCK) != 0u;
    unsigned max_len = table[MAX_LEN_AT];
    unsigned next = (task.x >> 5u) + 3u;
    unsigned hi = stream_word(payload, payload_words, frame_word + next - 3u);
    unsigned lo = stream_word(payload, payload_words, frame_word + next - 2u);
    unsigned ahead = stream_word(payload, payload_words, frame_word + next - 1u);
    // The quad holding word `next` and the one after, loaded a quad ahead.
    uint4 q = stream_quad(payload, payload_words, frame_word, next >> 2u);
    uint4 q2 = stream_quad(payload, payload_words, frame_word, (next >> 2u) + 1u);
    unsigned pos = task.x & 31u;
    unsigned acc = 0u;
    unsigned filled = task.z & 3u;
    // The output unit being gathered: whole words shift in at .w.
    uint4 out = make_uint4(0u, 0u, 0u, 0u);
    unsigned out_words = (task.z >> 2u) & 3u;
    unsigned unit = task.z >> 4u;
    bool head_shared = (task.z & 15u) != 0u;
    unsigned produced = 0u;
    uint2 fault = make_uint2(0u, 0u);
    while (produced < n) {
        uint3 found = lookup(table, window_at(hi, lo, pos), n - produced, max_len);
        if (found.x == 0u) {
            fault = make_uint2(STATUS_INVALID_CODE, (next - 3u) * 32u + pos);
            break;
        }
        pos += found.x;
        if (pos >= 32u) {
            pos -= 32u;
            hi = lo;
            lo = ahead;
            ahead = quad_word(q, next & 3u);
            next += 1u;
            if ((next & 3u) == 0u) {
                q = q2;
                q2 = stream_quad(payload, payload_words, frame_word, (next >> 2u) + 1u);
            }
        }
        acc |= found.y << (8u * filled);
        filled += found.z;
        if (filled >= 4u) {
            out = make_uint4(out.y, out.z, out.w, acc);
            out_words += 1u;
            if (out_words == 4u) {
                put_unit(output, unit, out, head_shared);
                head_shared = false;
                unit += 1u;
                out_words = 0u;
            }
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
        if (filled != 0u || out_words != 0u) {
            // The last partial unit: the next block of the frame starts in it, or the
            // frame's padding follows.
            if (filled != 0u) {
                out = make_uint4(out.y, out.z, out.w, acc);
                out_words += 1u;
            }
            for (; out_words < 4u; out_words++) {
                out = make_uint4(out.y, out.z, out.w, 0u);
            }
            put_unit(output, unit, out, head_shared || !ends_frame);
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
// (slicing by 4, the tables built by the thread block in shared memory: crc32.cuh,
// prepended to this source). (The WGSL one
// splits a block over a workgroup and shifts the parts together.)
__device__ __forceinline__ unsigned output_byte(const unsigned* output, unsigned i) {
    return (output[i >> 2u] >> (8u * (i & 3u))) & 0xffu;
}

extern "C" __global__ void __launch_bounds__(WG_SIZE)
vld_block_crcs(unsigned n_blocks, const uint4* __restrict__ blocks,
               const unsigned* __restrict__ output, unsigned* __restrict__ crcs) {
    __shared__ unsigned t[1024];
    build_crc_tables(t);
    for (unsigned b = blockIdx.x * WG_SIZE + threadIdx.x; b < n_blocks;
         b += gridDim.x * WG_SIZE) {
        uint4 task = blocks[b];
        unsigned at = task.z;
        unsigned end = task.z + (task.w & ~LAST_BLOCK);
        unsigned c = 0xffffffffu;
        while (at < end && (at & 3u) != 0u) {
            c = crc_byte(t, c, output_byte(output, at));
            at++;
        }
        while (at + 4u <= end) {
            c = crc_word(t, c, output[at >> 2u]);
            at += 4u;
        }
        while (at < end) {
            c = crc_byte(t, c, output_byte(output, at));
            at++;
        }
        crcs[b] = ~c;
    }
}
