// CRC32 (IEEE, reflected, as gzip) for the `cuda` feature's kernels, prepended to the
// sources that use it (src/cuda: `concat!`, NVRTC has no include path here): slicing by 4
// from four tables of 256 that a thread block builds in shared memory (table k is the
// register's image of a byte k bytes ahead), and the register run over n zero bytes
// without reading them, so that threads can each take a part of a block and XOR their
// registers together (src/crc.rs says why that holds). The twin of
// shaders/huffman/crc32.wgsl. Used by vld.cu (the decoder's block CRC32s) and
// block_crc.cu (the encoder's).

// Fill `table` (1024 words of shared memory). Every thread of the block calls it.
__device__ __forceinline__ void build_crc_tables(unsigned* table) {
    for (unsigned i = threadIdx.x; i < 256u; i += blockDim.x) {
        unsigned c = i;
        for (unsigned k = 0u; k < 8u; k++) {
            c = (c >> 1u) ^ ((c & 1u) ? 0xedb88320u : 0u);
        }
        table[i] = c;
    }
    for (unsigned t = 1u; t < 4u; t++) {
        __syncthreads();
        for (unsigned i = threadIdx.x; i < 256u; i += blockDim.x) {
            const unsigned prev = table[(t - 1u) * 256u + i];
            table[t * 256u + i] = (prev >> 8u) ^ table[prev & 0xffu];
        }
    }
    __syncthreads();
}

// The register after one more byte.
__device__ __forceinline__ unsigned crc_byte(const unsigned* table, unsigned c, unsigned byte) {
    return (c >> 8u) ^ table[(c ^ byte) & 0xffu];
}

// The register after four more bytes, `word` little-endian (its low byte first).
__device__ __forceinline__ unsigned crc_word(const unsigned* table, unsigned c, unsigned word) {
    const unsigned x = c ^ word;
    return table[768u + (x & 0xffu)] ^ table[512u + ((x >> 8u) & 0xffu)]
        ^ table[256u + ((x >> 16u) & 0xffu)] ^ table[x >> 24u];
}

// x^(8 * 2^k) mod P, k = 0..31, reflected (x^0 = 0x80000000): the register's multiplier
// for 2^k zero bytes (crc32.wgsl `CRC_ZERO_POWERS`).
__constant__ unsigned CRC_ZERO_POWERS[32] = {
    0x00800000u, 0x00008000u, 0xedb88320u, 0xb1e6b092u, 0xa06a2517u, 0xed627daeu,
    0x88d14467u, 0xd7bbfe6au, 0xec447f11u, 0x8e7ea170u, 0x6427800eu, 0x4d47bae0u,
    0x09fe548fu, 0x83852d0fu, 0x30362f1au, 0x7b5a9cc3u, 0x31fec169u, 0x9fec022au,
    0x6c8dedc4u, 0x15d6874du, 0x5fde7a4eu, 0xbad90e37u, 0x2e4e5eefu, 0x4eaba214u,
    0xa8a472c0u, 0x429a969eu, 0x148d302au, 0xc40ba6d0u, 0xc4e22c3cu, 0x40000000u,
    0x20000000u, 0x08000000u,
};

// a * b mod P, reflected (zlib's multmodp), branch-free.
__device__ unsigned crc_mul(unsigned a, unsigned b) {
    unsigned p = 0u;
    for (unsigned i = 0u; i < 32u; i++) {
        p ^= b & (0u - ((a >> (31u - i)) & 1u));
        b = (b >> 1u) ^ (0xedb88320u & (0u - (b & 1u)));
    }
    return p;
}

// The multiplier that runs the register over `n` zero bytes: x^(8n) mod P.
__device__ unsigned crc_zeros(unsigned n) {
    unsigned op = 0x80000000u;
    for (unsigned k = 0u; n != 0u; k++, n >>= 1u) {
        if (n & 1u) {
            op = crc_mul(CRC_ZERO_POWERS[k], op);
        }
    }
    return op;
}

