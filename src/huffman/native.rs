//! The native parvlc container: one MSB-first canonical Huffman stream split into
//! independently decodable blocks.
//!
//! Layout (little-endian): `b"PVLC"`, version `u8` = 1, 3 reserved zero bytes,
//! `original_len u64`, `crc32 u32` (of the original), `block_symbols u32`,
//! `n_blocks u32`, `payload_bits u64`, 256 code lengths (`u8`), `n_blocks` absolute
//! block bit offsets (`u64`, block 0 at 0), `header_crc32 u32` (of every preceding
//! header byte), then `ceil(payload_bits / 8)` payload bytes.
//!
//! Blocks are contiguous: block `i` ends exactly where block `i + 1` starts and the last
//! block ends at `payload_bits`; the padding bits of the last byte are zero. With the
//! checksums this makes every single-bit corruption detectable.

use std::fmt::Write as _;

use crate::error::{Error, Result};
use crate::huffman::cpu::Decoder;
use crate::huffman::Codebook;

pub const MAGIC: &[u8; 4] = b"PVLC";
pub const VERSION: u8 = 1;
const FORMAT: &str = "parvlc native";
/// Bytes before the block offsets.
const FIXED_LEN: usize = 4 + 1 + 3 + 8 + 4 + 4 + 4 + 8 + 256;

/// The native container header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeHeader {
    pub original_len: u64,
    pub crc32: u32,
    pub block_symbols: u32,
    pub payload_bits: u64,
    pub lengths: [u8; 256],
    pub block_offsets: Vec<u64>,
}

impl NativeHeader {
    /// Serialized header size in bytes, offsets and header checksum included.
    pub fn encoded_len(&self) -> usize {
        FIXED_LEN + 8 * self.block_offsets.len() + 4
    }

    fn to_bytes(&self) -> std::io::Result<Vec<u8>> {
        let n_blocks = u32::try_from(self.block_offsets.len()).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "more than 2^32 - 1 blocks",
            )
        })?;
        let mut h = Vec::with_capacity(self.encoded_len());
        h.extend_from_slice(MAGIC);
        h.push(VERSION);
        h.extend_from_slice(&[0; 3]);
        h.extend_from_slice(&self.original_len.to_le_bytes());
        h.extend_from_slice(&self.crc32.to_le_bytes());
        h.extend_from_slice(&self.block_symbols.to_le_bytes());
        h.extend_from_slice(&n_blocks.to_le_bytes());
        h.extend_from_slice(&self.payload_bits.to_le_bytes());
        h.extend_from_slice(&self.lengths);
        for &o in &self.block_offsets {
            h.extend_from_slice(&o.to_le_bytes());
        }
        let crc = crc32fast::hash(&h);
        h.extend_from_slice(&crc.to_le_bytes());
        Ok(h)
    }
}

/// Writes a native file: header then payload.
pub fn write_native(
    w: &mut impl std::io::Write,
    header: &NativeHeader,
    payload: &[u8],
) -> std::io::Result<()> {
    let expected = header.payload_bits.div_ceil(8);
    if payload.len() as u64 != expected {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("payload is {} bytes, header says {expected}", payload.len()),
        ));
    }
    w.write_all(&header.to_bytes()?)?;
    w.write_all(payload)
}

fn corrupt(reason: impl Into<String>) -> Error {
    Error::corrupt("native", reason)
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(|| {
                corrupt(format!(
                    "truncated header: {} bytes, {what} needs bytes {}..{}",
                    self.data.len(),
                    self.pos,
                    self.pos as u128 + n as u128
                ))
            })?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N, what)?);
        Ok(a)
    }
    fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
}

/// Parses and validates a native file; returns the header and the payload bytes.
pub fn parse_native(data: &[u8]) -> Result<(NativeHeader, &[u8])> {
    let magic = data.get(..4).unwrap_or(data);
    if magic != MAGIC {
        return Err(Error::BadMagic {
            format: FORMAT,
            reason: format!("starts with {magic:02x?}, expected {MAGIC:02x?} (\"PVLC\")"),
        });
    }
    let mut c = Cursor { data, pos: 4 };
    let [version] = c.array::<1>("version")?;
    if version != VERSION {
        return Err(Error::UnsupportedVersion {
            format: FORMAT,
            version: version as u32,
        });
    }
    let reserved = c.array::<3>("reserved bytes")?;
    let original_len = c.u64("original length")?;
    let crc32 = c.u32("checksum")?;
    let block_symbols = c.u32("block size")?;
    let n_blocks = c.u32("block count")?;
    let payload_bits = c.u64("payload size")?;
    let lengths = c.array::<256>("code lengths")?;
    let offsets_raw = c.take((n_blocks as usize).saturating_mul(8), "block offsets")?;
    let header_end = c.pos;
    let stored_crc = c.u32("header checksum")?;
    let computed = crc32fast::hash(&data[..header_end]);
    if stored_crc != computed {
        return Err(corrupt(format!(
            "header checksum mismatch (stored {stored_crc:08x}, computed {computed:08x})"
        )));
    }
    if reserved != [0; 3] {
        return Err(corrupt("reserved header bytes are not zero"));
    }
    let payload = &data[c.pos..];
    let expected = payload_bits.div_ceil(8);
    if payload.len() as u64 != expected {
        return Err(corrupt(format!(
            "payload is {} bytes, header says {expected}",
            payload.len()
        )));
    }
    let expected_blocks = if original_len == 0 {
        0
    } else if block_symbols == 0 {
        return Err(corrupt("block size is 0 symbols"));
    } else {
        original_len.div_ceil(block_symbols as u64)
    };
    if n_blocks as u64 != expected_blocks {
        return Err(corrupt(format!(
            "{n_blocks} blocks, but {original_len} bytes in blocks of {block_symbols} need {expected_blocks}"
        )));
    }
    // Every symbol takes at least one bit.
    if original_len > payload_bits {
        return Err(corrupt(format!(
            "{original_len} bytes cannot fit in {payload_bits} payload bits"
        )));
    }
    let block_offsets: Vec<u64> = offsets_raw
        .chunks_exact(8)
        .map(|b| {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            u64::from_le_bytes(a)
        })
        .collect();
    if let Some(&first) = block_offsets.first() {
        if first != 0 {
            return Err(corrupt(format!("block 0 starts at bit {first}, not 0")));
        }
    }
    for (i, w) in block_offsets.windows(2).enumerate() {
        if w[1] < w[0] || w[1] > payload_bits {
            return Err(corrupt(format!(
                "block {} offset {} is out of order or past the payload",
                i + 1,
                w[1]
            )));
        }
    }
    Codebook::from_lengths(&lengths).map_err(|e| corrupt(format!("bad code lengths: {e}")))?;
    if original_len > 0 && lengths.iter().all(|&l| l == 0) {
        return Err(corrupt("no code lengths for a non-empty file"));
    }
    Ok((
        NativeHeader {
            original_len,
            crc32,
            block_symbols,
            payload_bits,
            lengths,
            block_offsets,
        },
        payload,
    ))
}

/// Decodes a native file (blocks in parallel) and verifies its checksum.
pub fn decompress_native(data: &[u8]) -> Result<Vec<u8>> {
    let (h, payload) = parse_native(data)?;
    let total = usize::try_from(h.original_len)
        .map_err(|_| Error::TooLarge(format!("{} bytes do not fit in memory", h.original_len)))?;
    let book = Codebook::from_lengths(&h.lengths)?;
    let dec = Decoder::new(&book)?;
    let (out, ends) =
        dec.decode_blocks_ends(payload, &h.block_offsets, h.block_symbols as usize, total)?;
    for (i, &end) in ends.iter().enumerate() {
        let next = h
            .block_offsets
            .get(i + 1)
            .copied()
            .unwrap_or(h.payload_bits);
        if end != next {
            return Err(corrupt(format!(
                "block {i} ends at bit {end}, the next starts at bit {next}"
            )));
        }
    }
    if ends.is_empty() && h.payload_bits != 0 {
        return Err(corrupt(format!(
            "empty file with {} payload bits",
            h.payload_bits
        )));
    }
    let pad = (h.payload_bits % 8) as u32;
    if pad != 0 {
        if let Some(&last) = payload.last() {
            if last & (0xffu8 >> pad) != 0 {
                return Err(corrupt("padding bits after the payload are not zero"));
            }
        }
    }
    let computed = crc32fast::hash(&out);
    if computed != h.crc32 {
        return Err(Error::Checksum {
            expected: h.crc32,
            computed,
        });
    }
    Ok(out)
}

/// A human-readable summary of a native file's header.
pub fn info_native(data: &[u8]) -> Result<String> {
    let (h, payload) = parse_native(data)?;
    let used = h.lengths.iter().filter(|&&l| l > 0).count();
    let max = h.lengths.iter().copied().max().unwrap_or(0);
    let mut s = String::new();
    let ratio = if h.original_len > 0 {
        data.len() as f64 / h.original_len as f64
    } else {
        0.0
    };
    let _ = writeln!(s, "format:        parvlc native v{VERSION}");
    let _ = writeln!(
        s,
        "original size: {} bytes (crc32 {:08x})",
        h.original_len, h.crc32
    );
    let _ = writeln!(
        s,
        "file size:     {} bytes ({:.4} of original)",
        data.len(),
        ratio
    );
    let _ = writeln!(
        s,
        "payload:       {} bits in {} bytes",
        h.payload_bits,
        payload.len()
    );
    let _ = writeln!(
        s,
        "blocks:        {} of {} symbols",
        h.block_offsets.len(),
        h.block_symbols
    );
    let _ = writeln!(s, "code:          {used} symbols, longest {max} bits");
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::huffman::cpu::encode_serial;
    use crate::huffman::BitOrder;

    fn compress(data: &[u8], block: u32) -> Vec<u8> {
        let mut h = vec![0u64; 256];
        for &b in data {
            h[b as usize] += 1;
        }
        let book = Codebook::from_frequencies(&h, 16).unwrap();
        let table = book.table().unwrap();
        let enc = encode_serial(data, &table, BitOrder::MsbFirst, 0).unwrap();
        let mut offsets = Vec::new();
        let mut bit = 0u64;
        for c in data.chunks(block as usize) {
            offsets.push(bit);
            bit += c
                .iter()
                .map(|&b| table.lengths[b as usize] as u64)
                .sum::<u64>();
        }
        let mut lengths = [0u8; 256];
        lengths.copy_from_slice(book.lengths());
        let header = NativeHeader {
            original_len: data.len() as u64,
            crc32: crc32fast::hash(data),
            block_symbols: block,
            payload_bits: enc.bits,
            lengths,
            block_offsets: offsets,
        };
        let mut out = Vec::new();
        write_native(&mut out, &header, &enc.bytes).unwrap();
        assert_eq!(out.len(), header.encoded_len() + enc.bytes.len());
        out
    }

    fn sample(n: usize) -> Vec<u8> {
        let mut st = 0x1234u64;
        (0..n)
            .map(|_| {
                st = st
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let r = st >> 33;
                (r.trailing_zeros() as u8) * 3 + (r % 3) as u8
            })
            .collect()
    }

    #[test]
    fn round_trip() {
        for n in [0usize, 1, 2, 100, 4096, 100_000] {
            let data = sample(n);
            for block in [1u32, 7, 4096, 1 << 20] {
                let file = compress(&data, block);
                assert_eq!(
                    decompress_native(&file).unwrap(),
                    data,
                    "n {n} block {block}"
                );
                assert!(info_native(&file).unwrap().contains("parvlc native"));
            }
        }
        let single = vec![b'x'; 1000];
        assert_eq!(decompress_native(&compress(&single, 100)).unwrap(), single);
    }

    #[test]
    fn every_bit_flip_is_an_error() {
        for (n, block) in [(0usize, 16u32), (1, 16), (60, 16), (200, 64)] {
            let file = compress(&sample(n), block);
            for bit in 0..file.len() * 8 {
                let mut f = file.clone();
                f[bit / 8] ^= 1 << (bit % 8);
                assert!(
                    decompress_native(&f).is_err(),
                    "n {n} flip of bit {bit} went unnoticed"
                );
            }
        }
    }

    #[test]
    fn errors_are_specific() {
        let file = compress(&sample(1000), 128);
        assert!(matches!(
            decompress_native(b"GZIP"),
            Err(Error::BadMagic { .. })
        ));
        assert!(matches!(
            decompress_native(b""),
            Err(Error::BadMagic { .. })
        ));
        assert!(matches!(
            decompress_native(b"PV"),
            Err(Error::BadMagic { .. })
        ));
        let mut v = file.clone();
        v[4] = 2;
        assert!(matches!(
            decompress_native(&v),
            Err(Error::UnsupportedVersion { version: 2, .. })
        ));
        for cut in [5usize, 20, 200, 300, file.len() - 1] {
            let e = decompress_native(&file[..cut]).unwrap_err();
            let msg = e.to_string();
            assert!(matches!(e, Error::Corrupt { .. }), "{msg}");
            assert!(
                msg.contains("truncated header") || msg.contains("payload is"),
                "cut {cut}: {msg}"
            );
        }
        let mut v = file.clone();
        v.push(0);
        assert!(decompress_native(&v)
            .unwrap_err()
            .to_string()
            .contains("payload is"));
        let mut v = file.clone();
        let last = v.len() - 1;
        v[last] ^= 0x10;
        let e = decompress_native(&v).unwrap_err();
        assert!(
            matches!(e, Error::Corrupt { .. } | Error::Checksum { .. }),
            "{e}"
        );
        let mut v = file.clone();
        v[40] ^= 1;
        assert!(decompress_native(&v)
            .unwrap_err()
            .to_string()
            .contains("header checksum mismatch"));
    }

    #[test]
    fn payload_corruption_with_valid_header_gives_checksum_error() {
        // Swap two symbols' code lengths-equivalent data: change the stored crc and re-sign.
        let data = sample(5000);
        let file = compress(&data, 512);
        let (mut h, payload) = parse_native(&file).unwrap();
        h.crc32 ^= 1;
        let mut f = Vec::new();
        write_native(&mut f, &h, payload).unwrap();
        assert!(matches!(decompress_native(&f), Err(Error::Checksum { .. })));
    }
}
