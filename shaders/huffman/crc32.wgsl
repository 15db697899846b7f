// CRC32 (IEEE, reflected, as gzip) by four tables of 256 (slicing by 4), built by the
// workgroup: table k is the register's image of a byte k bytes ahead. Used by the
// decoder's per-block checksums (vld.wgsl) and the encoder's (block_crc.wgsl).
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
