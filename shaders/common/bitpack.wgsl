// LSB-first bit packing shared by the writers (common/bitwriter.wgsl writes to the output,
// huffman/bitwriter_wg.wgsl to a workgroup buffer). Codes arrive bit-reversed: first bit in bit 0.

struct Packed {
    word: u32,  // the pending word with the code's first bits in: complete when `full`
    carry: u32, // bits of the code that did not fit, the next pending word
    fill: u32,  // bits pending after this code, 0..31
    full: bool,
}

// Add `code` (`len` bits, 1..32) to `pending`, which holds `fill` bits (0..31).
fn pack_bits(pending: u32, fill: u32, code: u32, len: u32) -> Packed {
    let word = pending | (code << fill);
    let total = fill + len;
    if total >= 32u {
        return Packed(word, select(0u, code >> (32u - fill), fill != 0u), total - 32u, true);
    }
    return Packed(word, 0u, total, false);
}
