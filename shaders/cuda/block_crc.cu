// The CRC32 of every block of a chunk on the device, for the `cuda` feature: the twin of
// shaders/huffman/block_crc.wgsl (CPU twin: src/huffman/block_crc.rs `block_crcs_cpu`),
// compiled at run time by NVRTC (src/cuda/mod.rs). The stream coder folds a frame's
// blocks into the frame's CRC32 on the host (src/crc.rs) instead of a core's pass over
// the chunk. A warp a block: each lane runs the register over its own run of the
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

// x^(8 * 2^k) mod P, k = 0..31, reflected (x^0 = 0x80000000): the register's multiplier
// for 2^k zero bytes (shaders/huffman/crc32.wgsl `CRC_ZERO_POWERS`).
__constant__ u32 CRC_ZERO_POWERS[32] = {
    0x00800000u, 0x00008000u, 0xedb88320u, 0xb1e6b092u, 0xa06a2517u, 0xed627daeu,
    0x88d14467u, 0xd7bbfe6au, 0xec447f11u, 0x8e7ea170u, 0x6427800eu, 0x4d47bae0u,
    0x09fe548fu, 0x83852d0fu, 0x30362f1au, 0x7b5a9cc3u, 0x31fec169u, 0x9fec022au,
    0x6c8dedc4u, 0x15d6874du, 0x5fde7a4eu, 0xbad90e37u, 0x2e4e5eefu, 0x4eaba214u,
    0xa8a472c0u, 0x429a969eu, 0x148d302au, 0xc40ba6d0u, 0xc4e22c3cu, 0x40000000u,
    0x20000000u, 0x08000000u,
};

// a * b mod P, reflected (zlib's multmodp), branch-free.
__device__ u32 crc_mul(u32 a, u32 b) {
    u32 p = 0u;
    for (u32 i = 0u; i < 32u; i++) {
        p ^= b & (0u - ((a >> (31u - i)) & 1u));
        b = (b >> 1u) ^ (0xedb88320u & (0u - (b & 1u)));
    }
    return p;
}

// The multiplier that runs the register over `n` zero bytes: x^(8n) mod P.
__device__ u32 crc_zeros(u32 n) {
    u32 op = 0x80000000u;
    for (u32 k = 0u; n != 0u; k++, n >>= 1u) {
        if (n & 1u) {
            op = crc_mul(CRC_ZERO_POWERS[k], op);
        }
    }
    return op;
}

// Slicing by 4: table k is the register's image of a byte k bytes ahead.
__device__ __forceinline__ u32 crc_word(const u32* table, u32 c, u32 word) {
    const u32 x = c ^ word;
    return table[768u + (x & 0xffu)] ^ table[512u + ((x >> 8u) & 0xffu)]
        ^ table[256u + ((x >> 16u) & 0xffu)] ^ table[x >> 24u];
}

__device__ __forceinline__ u32 crc_byte(const u32* table, u32 c, u32 byte) {
    return (c >> 8u) ^ table[(c ^ byte) & 0xffu];
}

// `input` holds `n_bytes` bytes, zeros after them to a multiple of 16 (the stream
// coder's padded upload), 16-byte aligned.
extern "C" __global__ void __launch_bounds__(WG_SIZE)
block_crc(BlockCrcParams params, const u32* __restrict__ input, u32* __restrict__ crcs) {
    __shared__ u32 table[1024];
    const u32 tid = threadIdx.x;
    for (u32 i = tid; i < 256u; i += WG_SIZE) {
        u32 c = i;
        for (u32 k = 0u; k < 8u; k++) {
            c = (c >> 1u) ^ ((c & 1u) ? 0xedb88320u : 0u);
        }
        table[i] = c;
    }
    for (u32 t = 1u; t < 4u; t++) {
        __syncthreads();
        for (u32 i = tid; i < 256u; i += WG_SIZE) {
            const u32 prev = table[(t - 1u) * 256u + i];
            table[t * 256u + i] = (prev >> 8u) ^ table[prev & 0xffu];
        }
    }
    __syncthreads();
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
