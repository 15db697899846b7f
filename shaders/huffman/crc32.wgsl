// CRC32 (IEEE, reflected, as gzip) by four tables of 256 (slicing by 4), built by the
// workgroup: table k is the register's image of a byte k bytes ahead. Used by the
// decoder's per-block checksums (vld.wgsl) and the encoder's (block_crc.wgsl).
// And the register run over n zero bytes without reading them (`crc_shift`), so that
// invocations can each take a part of a block and XOR their registers together
// (src/crc.rs says why that holds).
//!import common/invocation

var<workgroup> crc_table: array<u32, 1024>;

// Call in uniform control flow (barriers).
fn build_crc_tables(inv: Invocation) {
    for (var i = inv.lid; i < 256u; i += WG_SIZE) {
        var c = i;
        for (var k = 0u; k < 8u; k++) {
            c = (c >> 1u) ^ select(0u, 0xedb88320u, (c & 1u) != 0u);
        }
        crc_table[i] = c;
    }
    for (var t = 1u; t < 4u; t++) {
        workgroupBarrier();
        for (var i = inv.lid; i < 256u; i += WG_SIZE) {
            let prev = crc_table[(t - 1u) * 256u + i];
            crc_table[t * 256u + i] = (prev >> 8u) ^ crc_table[prev & 0xffu];
        }
    }
    workgroupBarrier();
}

// The register after one more byte.
fn crc_byte(c: u32, byte: u32) -> u32 {
    return (c >> 8u) ^ crc_table[(c ^ byte) & 0xffu];
}

// The register after four more bytes, `word` little-endian (its low byte first).
fn crc_word(c: u32, word: u32) -> u32 {
    let x = c ^ word;
    return crc_table[768u + (x & 0xffu)] ^ crc_table[512u + ((x >> 8u) & 0xffu)]
        ^ crc_table[256u + ((x >> 16u) & 0xffu)] ^ crc_table[x >> 24u];
}

// x^(8 * 2^k) mod P, k = 0..31, in the reflected bit order (x^0 = 0x80000000): the
// register's multiplier for 2^k zero bytes. Checked against src/crc.rs
// `the_shaders_zero_byte_multipliers_are_the_powers_of_x`.
const CRC_ZERO_POWERS = array<u32, 32>(
    0x00800000u, 0x00008000u, 0xedb88320u, 0xb1e6b092u, 0xa06a2517u, 0xed627daeu,
    0x88d14467u, 0xd7bbfe6au, 0xec447f11u, 0x8e7ea170u, 0x6427800eu, 0x4d47bae0u,
    0x09fe548fu, 0x83852d0fu, 0x30362f1au, 0x7b5a9cc3u, 0x31fec169u, 0x9fec022au,
    0x6c8dedc4u, 0x15d6874du, 0x5fde7a4eu, 0xbad90e37u, 0x2e4e5eefu, 0x4eaba214u,
    0xa8a472c0u, 0x429a969eu, 0x148d302au, 0xc40ba6d0u, 0xc4e22c3cu, 0x40000000u,
    0x20000000u, 0x08000000u,
);

// a * b mod P, reflected (zlib's multmodp), branch-free.
fn crc_mul(a: u32, b0: u32) -> u32 {
    var b = b0;
    var p = 0u;
    for (var i = 0u; i < 32u; i++) {
        p ^= b & (0u - ((a >> (31u - i)) & 1u));
        b = (b >> 1u) ^ (0xedb88320u & (0u - (b & 1u)));
    }
    return p;
}

// The multiplier that runs the register over `n` zero bytes: x^(8n) mod P.
fn crc_zeros(n: u32) -> u32 {
    var op = 0x80000000u;
    var rest = n;
    for (var k = 0u; rest != 0u; k++) {
        if (rest & 1u) != 0u {
            op = crc_mul(CRC_ZERO_POWERS[k], op);
        }
        rest >>= 1u;
    }
    return op;
}

var<workgroup> crc_parts: array<u32, WG_SIZE>;

// The XOR of every invocation's `part`, to every invocation: the workgroup's registers,
// each already shifted to the message's end, combined. Call in uniform control flow.
fn crc_xor_parts(lid: u32, part: u32) -> u32 {
    crc_parts[lid] = part;
    for (var s = 1u; s < WG_SIZE; s <<= 1u) {
        workgroupBarrier();
        if (lid & (2u * s - 1u)) == 0u && lid + s < WG_SIZE {
            crc_parts[lid] ^= crc_parts[lid + s];
        }
    }
    workgroupBarrier();
    let all = crc_parts[0];
    // Before the next call overwrites it.
    workgroupBarrier();
    return all;
}
