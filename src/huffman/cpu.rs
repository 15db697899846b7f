//! CPU reference coders: the serial bit writer (the CUVLE paper's CPU-VLE), a rayon
//! parallel encoder byte-identical to it, and (`decoder`) a table-driven MSB-first
//! decoder.

mod decoder;

pub use decoder::Decoder;
pub(crate) use decoder::Reader;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::huffman::{BitBuf, BitOrder, CodeTable};

/// Per-call encoding tables: code lengths, and codes already in emission form
/// (masked for MSB-first, bit-reversed for LSB-first).
struct EncTable {
    lens: [u32; 256],
    codes: [u64; 256],
}

impl EncTable {
    fn new(table: &CodeTable, order: BitOrder) -> Result<EncTable> {
        let mut lens = [0u32; 256];
        let mut codes = [0u64; 256];
        for s in 0..256 {
            let l = table.lengths[s] as u32;
            if l > 32 {
                return Err(Error::InvalidCodeTable(format!(
                    "byte {s} has code length {l}, the limit is 32"
                )));
            }
            let c = (table.codes[s] as u64) & ((1u64 << l) - 1);
            lens[s] = l;
            codes[s] = match order {
                BitOrder::MsbFirst => c,
                BitOrder::LsbFirst => {
                    if l == 0 {
                        0
                    } else {
                        ((c as u32).reverse_bits() >> (32 - l)) as u64
                    }
                }
            };
        }
        Ok(EncTable { lens, codes })
    }

    /// Total code bits of `input`, or the first byte value without a code.
    fn bits_of(&self, input: &[u8]) -> Result<u64> {
        let mut bits = 0u64;
        let mut missing = false;
        for &b in input {
            let l = self.lens[b as usize];
            bits += l as u64;
            missing |= l == 0;
        }
        if missing {
            if let Some(&b) = input.iter().find(|&&b| self.lens[b as usize] == 0) {
                return Err(Error::InvalidCodeTable(format!(
                    "byte {b} (0x{b:02x}) occurs in the input but has no code"
                )));
            }
        }
        Ok(bits)
    }
}

/// Encodes `input` into `out`, which holds exactly the whole bytes of a stream that
/// starts `phase` (0..8) zero bits into `out[0]`. Returns the trailing partial byte
/// (0 if the stream ends on a byte boundary).
fn encode_into(input: &[u8], t: &EncTable, order: BitOrder, phase: u32, out: &mut [u8]) -> u8 {
    match order {
        BitOrder::MsbFirst => encode_msb(input, t, phase, out),
        BitOrder::LsbFirst => encode_lsb(input, t, phase, out),
    }
}

fn encode_msb(input: &[u8], t: &EncTable, phase: u32, out: &mut [u8]) -> u8 {
    // `acc` holds `n` pending bits in its low bits (higher bits are stale).
    let mut acc = 0u64;
    let mut n = phase;
    let mut pos = 0usize;
    for &b in input {
        let l = t.lens[b as usize];
        acc = (acc << l) | t.codes[b as usize];
        n += l;
        if n >= 32 {
            n -= 32;
            let w = (acc >> n) as u32;
            out[pos..pos + 4].copy_from_slice(&w.to_be_bytes());
            pos += 4;
        }
    }
    while n >= 8 {
        n -= 8;
        out[pos] = (acc >> n) as u8;
        pos += 1;
    }
    if n > 0 {
        ((acc << (8 - n)) & 0xff) as u8
    } else {
        0
    }
}

fn encode_lsb(input: &[u8], t: &EncTable, phase: u32, out: &mut [u8]) -> u8 {
    // `acc` holds `n` pending bits in its low bits, stream order from bit 0 up.
    let mut acc = 0u64;
    let mut n = phase;
    let mut pos = 0usize;
    for &b in input {
        acc |= t.codes[b as usize] << n;
        n += t.lens[b as usize];
        if n >= 32 {
            out[pos..pos + 4].copy_from_slice(&(acc as u32).to_le_bytes());
            pos += 4;
            acc >>= 32;
            n -= 32;
        }
    }
    while n >= 8 {
        out[pos] = acc as u8;
        pos += 1;
        acc >>= 8;
        n -= 8;
    }
    if n > 0 {
        (acc & 0xff) as u8
    } else {
        0
    }
}

fn check_start_bit(start_bit: u32) -> Result<()> {
    if start_bit >= 32 {
        return Err(Error::InvalidArgument(format!(
            "start bit {start_bit} is outside 0..32"
        )));
    }
    Ok(())
}

fn finish(mut bytes: Vec<u8>, bits: u64, tail: u8) -> BitBuf {
    if !bits.is_multiple_of(8) {
        if let Some(last) = bytes.last_mut() {
            *last |= tail;
        }
    }
    BitBuf { bytes, bits }
}

fn byte_len(bits: u64) -> Result<usize> {
    usize::try_from(bits.div_ceil(8))
        .map_err(|_| Error::TooLarge(format!("{bits} encoded bits do not fit in memory")))
}

/// Serial CPU VLE: one bit writer over the whole input. The stream starts with
/// `start_bit` (0..32) zero bits, then each byte's code, first bit first.
pub fn encode_serial(
    input: &[u8],
    table: &CodeTable,
    order: BitOrder,
    start_bit: u32,
) -> Result<BitBuf> {
    check_start_bit(start_bit)?;
    let t = EncTable::new(table, order)?;
    let bits = start_bit as u64 + t.bits_of(input)?;
    let mut bytes = vec![0u8; byte_len(bits)?];
    let first = (start_bit / 8) as usize;
    let whole = (bits / 8) as usize;
    let tail = encode_into(input, &t, order, start_bit % 8, &mut bytes[first..whole]);
    Ok(finish(bytes, bits, tail))
}

/// Parallel CPU VLE on all cores (rayon), byte-identical to [`encode_serial`]: chunk
/// bit lengths, exclusive scan, each chunk encoded straight into its own byte range
/// at its bit phase, and the partial boundary bytes OR-merged afterwards.
pub fn encode_parallel(
    input: &[u8],
    table: &CodeTable,
    order: BitOrder,
    start_bit: u32,
) -> Result<BitBuf> {
    check_start_bit(start_bit)?;
    let threads = rayon::current_num_threads().max(1);
    let chunk = input.len().div_ceil(threads * 8).max(1 << 16);
    if input.len() <= chunk || threads == 1 {
        return encode_serial(input, table, order, start_bit);
    }
    let t = EncTable::new(table, order)?;
    let chunks: Vec<&[u8]> = input.chunks(chunk).collect();
    let chunk_bits: Vec<u64> = chunks
        .par_iter()
        .map(|c| t.bits_of(c))
        .collect::<Result<_>>()?;

    // Exclusive scan: absolute start bit of each chunk, plus the end.
    let mut offsets = Vec::with_capacity(chunks.len() + 1);
    let mut acc = start_bit as u64;
    for &b in &chunk_bits {
        offsets.push(acc);
        acc += b;
    }
    offsets.push(acc);
    let bits = acc;
    let mut bytes = vec![0u8; byte_len(bits)?];

    // Chunk i owns the whole bytes [off_i / 8, off_{i+1} / 8).
    let mut regions: Vec<&mut [u8]> = Vec::with_capacity(chunks.len());
    {
        let whole = (bits / 8) as usize;
        let first = (start_bit / 8) as usize;
        let mut rest = &mut bytes[first..whole];
        for i in 0..chunks.len() {
            let len = (offsets[i + 1] / 8 - offsets[i] / 8) as usize;
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(len);
            regions.push(head);
            rest = tail;
        }
    }
    let tails: Vec<u8> = chunks
        .par_iter()
        .zip(regions.into_par_iter())
        .enumerate()
        .map(|(i, (c, region))| encode_into(c, &t, order, (offsets[i] % 8) as u32, region))
        .collect();

    // Merge each chunk's trailing partial byte into the byte where the next chunk starts.
    let mut carry = 0u8;
    for i in 0..chunks.len() {
        let start = (offsets[i] / 8) as usize;
        let owned = offsets[i + 1] / 8 > offsets[i] / 8;
        if owned {
            bytes[start] |= carry;
            carry = tails[i];
        } else {
            carry |= tails[i];
        }
    }
    Ok(finish(bytes, bits, carry))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::huffman::Codebook;

    pub(super) fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(super) fn skewed(n: usize, seed: u64) -> Vec<u8> {
        let mut st = seed;
        (0..n)
            .map(|_| {
                let r = splitmix(&mut st);
                // Geometric-ish: many small values, occasional large.
                (r.trailing_zeros() as u8).wrapping_mul(7) ^ ((r >> 60) as u8 & (r >> 40) as u8)
            })
            .collect()
    }

    pub(super) fn book_for(data: &[u8], max_len: u8) -> Codebook {
        let mut h = vec![0u64; 256];
        for &b in data {
            h[b as usize] += 1;
        }
        Codebook::from_frequencies(&h, max_len).unwrap()
    }

    /// Bit-by-bit reference writer.
    fn reference(input: &[u8], t: &CodeTable, order: BitOrder, start: u32) -> BitBuf {
        let mut bits: Vec<bool> = vec![false; start as usize];
        for &b in input {
            let l = t.lengths[b as usize];
            for k in (0..l).rev() {
                bits.push((t.codes[b as usize] >> k) & 1 == 1);
            }
        }
        let mut bytes = vec![0u8; bits.len().div_ceil(8)];
        for (i, &bit) in bits.iter().enumerate() {
            if bit {
                bytes[i / 8] |= match order {
                    BitOrder::MsbFirst => 0x80 >> (i % 8),
                    BitOrder::LsbFirst => 1 << (i % 8),
                };
            }
        }
        BitBuf {
            bytes,
            bits: bits.len() as u64,
        }
    }

    #[test]
    fn serial_matches_reference() {
        let mut st = 1;
        for n in [0usize, 1, 2, 3, 7, 100, 1000, 5000] {
            let data = skewed(n, splitmix(&mut st));
            for max_len in [8u8, 12, 32] {
                let mut all = data.clone();
                all.extend(0..=255u8); // make every byte codable
                let table = book_for(&all, max_len.max(9)).table().unwrap();
                for order in [BitOrder::MsbFirst, BitOrder::LsbFirst] {
                    for start in [0u32, 1, 5, 8, 13, 31] {
                        let a = encode_serial(&data, &table, order, start).unwrap();
                        assert_eq!(
                            a,
                            reference(&data, &table, order, start),
                            "n {n} start {start} {order:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn long_codes_32_bits() {
        let lengths = [32u8; 256];
        let book = Codebook::from_lengths(&lengths).unwrap();
        let table = book.table().unwrap();
        let data: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
        for order in [BitOrder::MsbFirst, BitOrder::LsbFirst] {
            for start in [0u32, 3, 31] {
                let a = encode_serial(&data, &table, order, start).unwrap();
                assert_eq!(a, reference(&data, &table, order, start));
                let b = encode_parallel(&data, &table, order, start).unwrap();
                assert_eq!(a, b);
            }
        }
        let enc = encode_serial(&data, &table, BitOrder::MsbFirst, 0).unwrap();
        let dec = Decoder::new(&book).unwrap();
        let mut out = Vec::new();
        dec.decode(&enc.bytes, 0, data.len(), &mut out).unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn parallel_matches_serial() {
        let mut st = 42;
        for n in [0usize, 1, 65535, 65536, 65537, 200_000, 1 << 20, 3_000_001] {
            let data = skewed(n, splitmix(&mut st));
            let mut all = data.clone();
            all.extend(0..=255u8);
            for max_len in [10u8, 15, 32] {
                let table = book_for(&all, max_len).table().unwrap();
                for order in [BitOrder::MsbFirst, BitOrder::LsbFirst] {
                    for start in [0u32, 1, 7, 9, 31] {
                        let a = encode_serial(&data, &table, order, start).unwrap();
                        let b = encode_parallel(&data, &table, order, start).unwrap();
                        assert_eq!(a.bits, b.bits);
                        assert!(
                            a.bytes == b.bytes,
                            "n {n} len {max_len} {order:?} start {start}"
                        );
                    }
                }
            }
        }
        // Tiny codes: many chunks smaller than a byte are impossible (chunk >= 64 Ki),
        // but a 1-bit code gives chunks at every phase.
        let data: Vec<u8> = (0..1_000_003u32)
            .map(|_| (splitmix(&mut st) % 2) as u8)
            .collect();
        let table = book_for(&data, 15).table().unwrap();
        for start in 0..32 {
            for order in [BitOrder::MsbFirst, BitOrder::LsbFirst] {
                assert_eq!(
                    encode_serial(&data, &table, order, start).unwrap(),
                    encode_parallel(&data, &table, order, start).unwrap()
                );
            }
        }
    }

    #[test]
    fn missing_code_and_bad_start() {
        let table = book_for(b"aaab", 15).table().unwrap();
        let e = encode_serial(b"aac", &table, BitOrder::MsbFirst, 0).unwrap_err();
        assert!(
            matches!(e, Error::InvalidCodeTable(ref m) if m.contains("99")),
            "{e}"
        );
        let big = vec![b'c'; 1 << 20];
        assert!(matches!(
            encode_parallel(&big, &table, BitOrder::LsbFirst, 0),
            Err(Error::InvalidCodeTable(_))
        ));
        assert!(encode_serial(b"a", &table, BitOrder::MsbFirst, 32).is_err());
        assert!(encode_parallel(b"a", &table, BitOrder::MsbFirst, 32).is_err());
    }
}
