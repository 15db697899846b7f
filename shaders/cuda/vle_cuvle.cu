// CUVLE (Fuentes-Alventosa et al.) for the `cuda` feature: the twin of shaders/huffman/cuvle.wgsl,
// compiled at run time by NVRTC for the device's own architecture (src/cuda/mod.rs).
//
// Same algorithm, same output, same scan state as the wgpu path: the code table cached in
// shared memory, persistent blocks (grid = resident blocks from the occupancy API) taking
// block-inputs of WG_SIZE x NET words by ticket, each thread reading its thread-input
// once (NET / 4 128-bit loads), a block scan of thread bit lengths (warp shuffles), the
// block's offset from the look-back (chained | decoupled with fallback |
// reduce_then_scan, the layout of shaders/common/lookback.wgsl), then the thread-codes
// written into the zeroed output.
//
// Two ways to write (WARP_WRITE, a compile-time choice; measured in the README):
// - direct (the paper): each thread writes its own words straight to global memory, the
//   first and the last with atomicOr (neighbours share them), the ones between stored;
// - warp (warp-cooperative): each warp packs its threads' codes into a shared-memory
//   stage that mirrors the warp's contiguous output words, then writes those words
//   coalesced (one 128-byte line per warp store), atomicOr only on the warp's first and
//   last word. A warp whose code does not fit its stage falls back to direct writes.
//
// Compile-time constants (-D): WG_SIZE (threads per block, a power of two, 32..1024), NET
// (input words per thread: 4, 8, 16 or 32), WARP_WRITE (0 or 1), MIN_BLOCKS (blocks per
// multiprocessor the registers must allow). Everything else is a launch argument.
// FRAMED (a launch flag, as the wgpu kernel's override): one code table per frame, each
// block reading its table and the zero bits left before its code (nonzero on a frame's
// first block, where the host writes the frame's header) from `block_frames`, the table
// cached again when a block needs another, the fallback and the reduce pass reading a
// block's own table from global memory.
// CPU twins: src/huffman/cuvle.rs `encode_cuvle_cpu`, src/huffman/framed.rs
// `encode_cuvle_cpu_framed`.

typedef unsigned int u32;
typedef unsigned long long u64;

#ifndef WG_SIZE
#define WG_SIZE 256
#endif
#ifndef NET
#define NET 16
#endif
#ifndef WARP_WRITE
#define WARP_WRITE 1
#endif
// Blocks per multiprocessor the register allocation must allow (__launch_bounds__).
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif

#define WARPS (WG_SIZE / 32)
#define NV (NET / 4)
#define FULL_MASK 0xffffffffu

// keep in sync with src/scan.rs and shaders/common/lookback.wgsl
#define STRATEGY_CHAINED 0u
#define STRATEGY_DECOUPLED 1u
#define STRATEGY_REDUCE_THEN_SCAN 2u
#define STATE_HEADER 4u
#define FLAG_AGGREGATE 0x40000000u
#define FLAG_PREFIX 0x80000000u
#define VALUE_MASK 0x3fffffffu
#define CHAINED_SPIN_LIMIT 0x4000000u

#define LOOK_PREFIX 1u
#define LOOK_AGGREGATE 2u
#define LOOK_FALLBACK 3u
#define LOOK_STALLED 4u

// keep in sync with src/cuda/cuvle.rs `FLAG_*`
#define FLAG_MSB_FIRST 1u
#define FLAG_PACKED 2u
#define FLAG_PAIRS 4u
#define FLAG_FRAMED 8u
#define TABLE_WORDS 512u // keep in sync with src/huffman/cuvle/cpu.rs `TABLE_WORDS`

#define PACKED_LEN_SHIFT 27u
#define PACKED_CODE_MASK ((1u << PACKED_LEN_SHIFT) - 1u)

// keep in sync with src/cuda/cuvle.rs `CuvleArgs`
struct CuvleArgs {
    u32 n_bytes;     // input bytes in this segment
    u32 n_blocks;    // block-inputs in this segment
    u32 start_bit;   // bit offset of the first code within output word 0
    u32 strategy;    // STRATEGY_*
    u32 spin_budget; // decoupled: polls before the fallback; 0 forces it
    u32 flags;       // FLAG_*
    u32 max_blocks;  // block-inputs one block takes before it exits
    u32 stage_words; // warp write: stage words per warp (dynamic shared memory)
    u32 first_block; // FRAMED: this segment's first block in `block_frames`
};

__shared__ u32 s_code[256]; // packed: code | len << 27; else the code alone
__shared__ u32 s_len[256];
__shared__ u32 s_warp_total[WARPS];
__shared__ u32 s_ticket;
__shared__ u32 s_status;
__shared__ u32 s_next;   // predecessor to look at next, plus one (leader)
__shared__ u32 s_prefix; // sum found so far (leader writes)
extern __shared__ u32 s_stage[];

__device__ __forceinline__ u32 ld_relaxed(const u32* p) {
    u32 v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void st_relaxed(u32* p, u32 v) {
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Reverse the bits of every byte: the LSB-first stream turned MSB-first
// (shaders/common/bitwriter.wgsl `reverse_bits_in_bytes`).
__device__ __forceinline__ u32 stream_word(u32 x, bool msb) {
    return msb ? __byte_perm(__brev(x), 0u, 0x0123u) : x;
}

__device__ __forceinline__ u32 lane_id() { return threadIdx.x & 31u; }

__device__ __forceinline__ u32 component(const uint4& q, int k) {
    return k == 0 ? q.x : k == 1 ? q.y : k == 2 ? q.z : q.w;
}

__device__ void cache_code_table(const u32* __restrict__ table, u32 flags) {
    for (u32 i = threadIdx.x; i < 256u; i += WG_SIZE) {
        const u32 len = table[256u + i];
        s_len[i] = len;
        s_code[i] = (flags & FLAG_PACKED) ? (table[i] | (len << PACKED_LEN_SHIFT)) : table[i];
    }
    __syncthreads();
}

__device__ __forceinline__ u32 full_word_bits(u32 w) {
    return s_len[w & 0xffu] + s_len[(w >> 8) & 0xffu] + s_len[(w >> 16) & 0xffu] + s_len[w >> 24];
}

__device__ __forceinline__ u32 bytes_in_word(u32 first_byte, u32 n_bytes) {
    return first_byte >= n_bytes ? 0u : min(4u, n_bytes - first_byte);
}

// The code bits of the `valid` low bytes of `w`: with the cached table where `lens` is
// null, else with the lengths at `lens` (FRAMED: a block's own table, in global memory).
__device__ __forceinline__ u32 word_bits(u32 w, u32 valid, const u32* __restrict__ lens) {
    if (lens == nullptr && valid == 4u) {
        return full_word_bits(w);
    }
    u32 bits = 0u;
    for (u32 k = 0u; k < valid; k++) {
        const u32 b = (w >> (8u * k)) & 0xffu;
        bits += lens == nullptr ? s_len[b] : lens[b];
    }
    return bits;
}

// Warp-shuffle scan within each warp, warp totals through shared memory. All threads.
// Returns the exclusive prefix of x in the block; *total gets the block's sum.
__device__ __forceinline__ u32 block_exclusive_scan(u32 x, u32* total) {
    const u32 lane = lane_id();
    const u32 warp = threadIdx.x >> 5;
    u32 inclusive = x;
#pragma unroll
    for (u32 offset = 1u; offset < 32u; offset <<= 1) {
        const u32 y = __shfl_up_sync(FULL_MASK, inclusive, offset);
        if (lane >= offset) {
            inclusive += y;
        }
    }
    if (lane == 31u) {
        s_warp_total[warp] = inclusive;
    }
    __syncthreads();
    u32 before = 0u;
    u32 sum = 0u;
#pragma unroll
    for (u32 w = 0u; w < WARPS; w++) {
        const u32 t = s_warp_total[w];
        before += w < warp ? t : 0u;
        sum += t;
    }
    __syncthreads();
    *total = sum;
    return before + inclusive - x;
}

// The bits of the thread-input of `lane` in `block`, read from the input (the partial
// thread-inputs, the decoupled fallback and the reduce pass: rolled, to keep code small).
__device__ __forceinline__ u32 thread_input_bits(const uint4* __restrict__ input, u32 n_bytes, u32 block, u32 lane,
                                                 const u32* __restrict__ lens) {
    const u32 first_vec = (block * WG_SIZE + lane) * NV;
    const u32 first_byte = first_vec * 16u;
    u32 bits = 0u;
#pragma unroll 1
    for (u32 v = 0u; v < NV; v++) {
        if (first_byte + v * 16u >= n_bytes) {
            break;
        }
        const uint4 q = input[first_vec + v];
        bits += word_bits(q.x, bytes_in_word(first_byte + v * 16u, n_bytes), lens) +
                word_bits(q.y, bytes_in_word(first_byte + v * 16u + 4u, n_bytes), lens) +
                word_bits(q.z, bytes_in_word(first_byte + v * 16u + 8u, n_bytes), lens) +
                word_bits(q.w, bytes_in_word(first_byte + v * 16u + 12u, n_bytes), lens);
    }
    return bits;
}

// A block's share of the stream, from its input (the decoupled fallback and the reduce
// pass): its code's length; FRAMED: with its own table, plus its gap.
__device__ u32 block_aggregate(const CuvleArgs& a, const uint4* __restrict__ input, const u32* __restrict__ table,
                               const uint2* __restrict__ block_frames, u32 block) {
    const u32* lens = nullptr;
    u32 gap = 0u;
    if (a.flags & FLAG_FRAMED) {
        const uint2 frame = block_frames[a.first_block + block];
        lens = table + frame.x * TABLE_WORDS + 256u;
        gap = frame.y;
    }
    u32 total;
    block_exclusive_scan(thread_input_bits(input, a.n_bytes, block, threadIdx.x, lens), &total);
    return total + gap;
}

// ---- inter-block prefix (shaders/common/lookback.wgsl) ----

// Leader only: poll block j's slot on behalf of `block`. Returns (status, value).
__device__ uint2 poll_predecessor(const u32* state, const CuvleArgs& a, u32 block, u32 j) {
    const bool decoupled = a.strategy == STRATEGY_DECOUPLED;
    if (decoupled && a.spin_budget == 0u && j + 1u == block) {
        // The test of the fallback: the nearest predecessor is always recomputed.
        return make_uint2(LOOK_FALLBACK, 0u);
    }
    const u32 limit = decoupled ? max(a.spin_budget, 1u) : CHAINED_SPIN_LIMIT;
    for (u32 spins = 0u; spins < limit; spins++) {
        const u32 v = ld_relaxed(&state[STATE_HEADER + j]);
        if (v & FLAG_PREFIX) {
            return make_uint2(LOOK_PREFIX, v & VALUE_MASK);
        }
        if (decoupled && (v & FLAG_AGGREGATE)) {
            return make_uint2(LOOK_AGGREGATE, v & VALUE_MASK);
        }
    }
    return make_uint2(decoupled ? LOOK_FALLBACK : LOOK_STALLED, 0u);
}

// Announce this block's aggregate (decoupled), or its inclusive prefix (block 0).
__device__ __forceinline__ void lookback_publish(u32* state, const CuvleArgs& a, u32 block, u32 aggregate) {
    if (threadIdx.x == 0u) {
        s_next = block;
        s_prefix = 0u;
        if (a.strategy != STRATEGY_REDUCE_THEN_SCAN) {
            if (block == 0u) {
                st_relaxed(&state[STATE_HEADER], FLAG_PREFIX | aggregate);
            } else if (a.strategy == STRATEGY_DECOUPLED) {
                st_relaxed(&state[STATE_HEADER + block], FLAG_AGGREGATE | aggregate);
            }
        }
    }
}

// Walk back over predecessors until an inclusive prefix is found, then publish this
// block's own. Returns 0 when done (s_prefix holds the exclusive prefix), or j + 1 when
// block j's aggregate must be supplied (lookback_supply). All threads.
__device__ u32 lookback_wait(u32* state, const CuvleArgs& a, u32 block, u32 aggregate) {
    if (a.strategy == STRATEGY_REDUCE_THEN_SCAN) {
        return 0u;
    }
    if (threadIdx.x == 0u) {
        u32 next = s_next;
        u32 status = LOOK_PREFIX;
        u32 prefix = s_prefix;
        while (next != 0u) {
            const uint2 look = poll_predecessor(state, a, block, next - 1u);
            status = look.x;
            if (status == LOOK_FALLBACK) {
                break;
            }
            prefix += look.y;
            next -= 1u;
            if (status == LOOK_PREFIX) {
                next = 0u;
            } else if (status == LOOK_STALLED) {
                // Publish anyway so no successor waits forever; the host sees the flag
                // and reports an error instead of wrong output.
                atomicExch(&state[1], 1u);
                next = 0u;
            }
        }
        s_next = next;
        s_prefix = prefix;
        const bool fallback = status == LOOK_FALLBACK;
        if (!fallback && block != 0u) {
            st_relaxed(&state[STATE_HEADER + block], FLAG_PREFIX | ((prefix + aggregate) & VALUE_MASK));
        }
        s_status = fallback ? next : 0u;
    }
    __syncthreads();
    return s_status;
}

__device__ __forceinline__ void lookback_supply(u32* state, u32 aggregate) {
    if (threadIdx.x == 0u) {
        s_prefix += aggregate;
        s_next -= 1u;
        atomicAdd(&state[2], 1u);
    }
}

// This block's exclusive prefix, once lookback_wait returned 0. All threads.
__device__ __forceinline__ u32 lookback_prefix(const u32* state, const CuvleArgs& a, u32 block) {
    if (a.strategy == STRATEGY_REDUCE_THEN_SCAN) {
        return state[STATE_HEADER + block]; // written by scan_spine, an earlier launch
    }
    return s_prefix;
}

// ---- writing ----

// A thread's pending bits: up to 63 in `acc` (LSB-first), `fill` of them valid (< 32
// between puts), and the index of the word they belong to.
struct Bits {
    u64 acc;
    u32 fill;
    u32 idx;
};

// Direct to global memory: the first full word is held back and OR-ed at the end (the
// neighbour before shares it), the ones after are this thread's alone and are stored.
struct DirectSink {
    u32* out;
    u32 first;
    u32 head;
    bool msb;
    __device__ __forceinline__ void emit(u32 idx, u32 w) {
        if (idx == first) {
            head = w;
        } else {
            out[idx] = stream_word(w, msb);
        }
    }
};

// Into the warp's stage: every completed word is stored (its owner is the thread that
// holds its last bit); partial words are OR-ed in afterwards.
struct StageSink {
    u32* stage;
    __device__ __forceinline__ void emit(u32 idx, u32 w) { stage[idx] = w; }
};

template <class Sink>
__device__ __forceinline__ void put(Sink& sink, Bits& b, u32 code, u32 len) {
    b.acc |= (u64)code << b.fill;
    b.fill += len;
    if (b.fill >= 32u) {
        sink.emit(b.idx, (u32)b.acc);
        b.idx += 1u;
        b.acc >>= 32;
        b.fill -= 32u;
    }
}

// Encode one thread-input into `sink`. Whole thread-inputs with a packed table (codes of
// at most 27 bits: all but adversarial tables) take the straight-line path over the words
// held in registers; the rest (the last thread-input of a segment, longer codes) re-read
// their input in a rolled loop, which keeps the kernel small.
template <bool PAIRS, class Sink>
__device__ __forceinline__ void encode_thread(Sink& sink, Bits& b, const uint4 (&words)[NV], bool fast,
                                              const uint4* __restrict__ input, u32 first_vec, u32 n_bytes,
                                              bool packed) {
    if (fast) {
        if constexpr (PAIRS) {
            // Codes of at most 16 bits: two symbols per put.
#pragma unroll
            for (int v = 0; v < NV; v++) {
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    const u32 w = component(words[v], k);
                    const u32 e0 = s_code[w & 0xffu];
                    const u32 e1 = s_code[(w >> 8) & 0xffu];
                    const u32 e2 = s_code[(w >> 16) & 0xffu];
                    const u32 e3 = s_code[w >> 24];
                    const u32 l0 = e0 >> PACKED_LEN_SHIFT;
                    const u32 l2 = e2 >> PACKED_LEN_SHIFT;
                    put(sink, b, (e0 & PACKED_CODE_MASK) | ((e1 & PACKED_CODE_MASK) << l0), l0 + (e1 >> PACKED_LEN_SHIFT));
                    put(sink, b, (e2 & PACKED_CODE_MASK) | ((e3 & PACKED_CODE_MASK) << l2), l2 + (e3 >> PACKED_LEN_SHIFT));
                }
            }
        } else {
#pragma unroll
            for (int v = 0; v < NV; v++) {
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    const u32 w = component(words[v], k);
#pragma unroll
                    for (int s = 0; s < 4; s++) {
                        const u32 e = s_code[(w >> (8 * s)) & 0xffu];
                        put(sink, b, e & PACKED_CODE_MASK, e >> PACKED_LEN_SHIFT);
                    }
                }
            }
        }
    } else {
        const u32 first_byte = first_vec * 16u;
        const u32 code_mask = packed ? PACKED_CODE_MASK : 0xffffffffu;
#pragma unroll 1
        for (u32 byte = first_byte; byte < min(first_byte + NET * 4u, n_bytes); byte++) {
            const u32 w = reinterpret_cast<const u32*>(input)[byte >> 2];
            const u32 symbol = (w >> (8u * (byte & 3u))) & 0xffu;
            put(sink, b, s_code[symbol] & code_mask, s_len[symbol]);
        }
    }
}

// The paper's writer: this thread's code straight into global memory at bit `pos`.
template <bool PAIRS>
__device__ __forceinline__ void write_direct(u32* out, bool msb, u32 pos, const uint4 (&words)[NV], bool fast,
                                             const uint4* __restrict__ input, u32 first_vec, u32 n_bytes,
                                             bool packed) {
    DirectSink sink{out, pos >> 5, 0u, msb};
    Bits b{0ull, pos & 31u, pos >> 5};
    encode_thread<PAIRS>(sink, b, words, fast, input, first_vec, n_bytes, packed);
    if (b.idx != sink.first) {
        atomicOr(&out[sink.first], stream_word(sink.head, msb));
    }
    if (b.fill != 0u) {
        atomicOr(&out[b.idx], stream_word((u32)b.acc, msb));
    }
}

// Warp-cooperative writer. All 32 lanes of the warp call it (warp-uniform control flow).
// Returns false, having written nothing, when the warp's code does not fit its stage.
template <bool PAIRS>
__device__ __forceinline__ bool write_warp(u32* out, bool msb, u32 stage_words, u32 pos, u32 bits,
                                           const uint4 (&words)[NV], bool fast, const uint4* __restrict__ input,
                                           u32 first_vec, u32 n_bytes, bool packed) {
    const u32 lane = lane_id();
    const u32 active = __ballot_sync(FULL_MASK, bits != 0u);
    if (active == 0u) {
        return true;
    }
    // Lanes with bits are a prefix of the warp (thread-inputs are consecutive).
    const u32 first_lane = __ffs(active) - 1u;
    const u32 last_lane = 31u - __clz(active);
    const u32 warp_first_bit = __shfl_sync(FULL_MASK, pos, first_lane);
    const u32 warp_end_bit = __shfl_sync(FULL_MASK, pos + bits, last_lane);
    const u32 w0 = warp_first_bit >> 5;
    const u32 n_words = ((warp_end_bit + 31u) >> 5) - w0;
    if (n_words > stage_words) {
        return false;
    }
    u32* stage = s_stage + (threadIdx.x >> 5) * stage_words;
    StageSink sink{stage};
    Bits b{0ull, pos & 31u, (pos >> 5) - w0};
    if (bits != 0u) {
        encode_thread<PAIRS>(sink, b, words, fast, input, first_vec, n_bytes, packed);
    }
    // The warp's last partial word belongs to no completed word: its last lane stores it;
    // every other partial word is OR-ed into a word its owner stored.
    const bool tail = bits != 0u && b.fill != 0u;
    if (tail && lane == last_lane) {
        stage[b.idx] = (u32)b.acc;
    }
    __syncwarp();
    if (tail && lane != last_lane) {
        atomicOr(&stage[b.idx], (u32)b.acc);
    }
    __syncwarp();
    // Whole words out, coalesced; the first and last are shared with the neighbours.
    for (u32 j = lane; j < n_words; j += 32u) {
        const u32 w = stream_word(stage[j], msb);
        if (j == 0u || j + 1u == n_words) {
            atomicOr(&out[w0 + j], w);
        } else {
            out[w0 + j] = w;
        }
    }
    __syncwarp();
    return true;
}

template <bool PAIRS>
__device__ __forceinline__ void write_block(const CuvleArgs& a, u32* out, u32 pos, u32 bits, const uint4 (&words)[NV],
                                            bool fast, const uint4* __restrict__ input, u32 first_vec) {
    const bool msb = (a.flags & FLAG_MSB_FIRST) != 0u;
    const bool packed = (a.flags & FLAG_PACKED) != 0u;
#if WARP_WRITE
    if (write_warp<PAIRS>(out, msb, a.stage_words, pos, bits, words, fast, input, first_vec, a.n_bytes, packed)) {
        return;
    }
    fast = false; // a warp whose code outgrew its stage (long codes): the rolled path
#endif
    if (bits != 0u) {
        write_direct<PAIRS>(out, msb, pos, words, fast, input, first_vec, a.n_bytes, packed);
    }
}

// ---- kernels ----

// reduce_then_scan, first launch: every block-code's length into the state.
extern "C" __global__ void __launch_bounds__(WG_SIZE)
    cuvle_reduce(CuvleArgs a, const uint4* __restrict__ input, const u32* __restrict__ table,
                 const uint2* __restrict__ block_frames, u32* state) {
    if (!(a.flags & FLAG_FRAMED)) {
        cache_code_table(table, a.flags);
    }
    for (u32 block = blockIdx.x; block < a.n_blocks; block += gridDim.x) {
        const u32 total = block_aggregate(a, input, table, block_frames, block);
        if (threadIdx.x == 0u) {
            state[STATE_HEADER + block] = total;
        }
    }
}

// reduce_then_scan, middle launch (one block): the aggregates into exclusive prefixes, in
// place, and the grand total into state[3] (shaders/scan/spine.wgsl).
extern "C" __global__ void __launch_bounds__(WG_SIZE) cuvle_spine(u32 n_blocks, u32* state) {
    u32 carry = 0u;
    for (u32 base = 0u; base < n_blocks; base += WG_SIZE) {
        const u32 i = base + threadIdx.x;
        const u32 x = i < n_blocks ? state[STATE_HEADER + i] : 0u;
        u32 total;
        const u32 before = block_exclusive_scan(x, &total);
        if (i < n_blocks) {
            state[STATE_HEADER + i] = carry + before;
        }
        carry += total;
    }
    if (threadIdx.x == 0u) {
        state[3] = carry;
    }
}

// The persistent loop: a block-input by ticket, taken when the block is ready for it.
// (Taking the next ticket early, before the look-back's barrier, to save the ticket's own
// barrier, measured 1.5x slower on the H200: a block-input then waits for its holder to
// finish writing the one before, and its successors' look-backs wait with it.)
template <bool PAIRS>
__device__ __forceinline__ void cuvle(const CuvleArgs& a, const uint4* __restrict__ input, const u32* __restrict__ table,
                                      const uint2* __restrict__ block_frames, u32* out, u32* state) {
    const u32 lane = threadIdx.x;
    // FRAMED: the table in shared memory, loaded when a block needs another.
    u32 cached = 0xffffffffu;
    for (u32 taken = 0u; taken < a.max_blocks; taken++) {
        if (threadIdx.x == 0u) {
            s_ticket = atomicAdd(&state[0], 1u);
        }
        __syncthreads();
        const u32 block = s_ticket;
        if (block >= a.n_blocks) {
            break;
        }
        u32 gap = 0u;
        if (a.flags & FLAG_FRAMED) {
            // The same entry for every thread: a block-uniform branch.
            const uint2 frame = block_frames[a.first_block + block];
            gap = frame.y;
            if (frame.x != cached) {
                // No thread may still read the previous block's table.
                __syncthreads();
                cache_code_table(table + frame.x * TABLE_WORDS, a.flags);
                cached = frame.x;
            }
        }
        // Read the thread-input once, into registers, and size its thread-code. Whole
        // thread-inputs (all but the last few) take the straight-line path.
        const u32 first_vec = (block * WG_SIZE + lane) * NV;
        const u32 first_byte = first_vec * 16u;
        const bool whole = first_byte + NET * 4u <= a.n_bytes;
        uint4 words[NV];
        u32 bits = 0u;
        if (whole) {
#pragma unroll
            for (int v = 0; v < NV; v++) {
                words[v] = input[first_vec + v];
            }
#pragma unroll
            for (int v = 0; v < NV; v++) {
                bits += full_word_bits(words[v].x) + full_word_bits(words[v].y) + full_word_bits(words[v].z) +
                        full_word_bits(words[v].w);
            }
        } else {
#pragma unroll
            for (int v = 0; v < NV; v++) {
                words[v] = make_uint4(0u, 0u, 0u, 0u);
            }
            bits = thread_input_bits(input, a.n_bytes, block, lane, nullptr);
        }
        u32 aggregate;
        const u32 local = block_exclusive_scan(bits, &aggregate);
        // A block's share of the stream: its gap, then its code.
        aggregate += gap;
        lookback_publish(state, a, block, aggregate);
        for (;;) {
            const u32 stalled = lookback_wait(state, a, block, aggregate);
            if (stalled == 0u) {
                break;
            }
            lookback_supply(state, block_aggregate(a, input, table, block_frames, stalled - 1u));
        }
        const u32 base = lookback_prefix(state, a, block);
        const bool fast = whole && (a.flags & FLAG_PACKED) != 0u;
        write_block<PAIRS>(a, out, a.start_bit + base + gap + local, bits, words, fast, input, first_vec);
    }
}

extern "C" __global__ void __launch_bounds__(WG_SIZE, MIN_BLOCKS)
    cuvle_main(CuvleArgs a, const uint4* __restrict__ input, const u32* __restrict__ table,
               const uint2* __restrict__ block_frames, u32* out, u32* state) {
    if (!(a.flags & FLAG_FRAMED)) {
        cache_code_table(table, a.flags);
    }
    if (a.flags & FLAG_PAIRS) {
        cuvle<true>(a, input, table, block_frames, out, state);
    } else {
        cuvle<false>(a, input, table, block_frames, out, state);
    }
}
