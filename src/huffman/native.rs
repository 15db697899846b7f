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
use std::io::{Read, Write};

use rayon::prelude::*;

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

/// Output bytes decoded per batch by the streaming decoder: the batch, and the payload
/// bytes it needs, are what it holds in memory.
pub const DEFAULT_BATCH_BYTES: usize = 32 << 20;

/// Reads until `buf` is full or the input ends; returns how many bytes were read.
pub(crate) fn read_full<R: Read + ?Sized>(r: &mut R, buf: &mut [u8]) -> Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::ReadInput(e)),
        }
    }
    Ok(got)
}

/// Reads header fields in order, hashing them for the header checksum.
pub(crate) struct HeaderReader<'r, R> {
    pub(crate) r: &'r mut R,
    pub(crate) pos: u64,
    pub(crate) crc: crc32fast::Hasher,
}

impl<R: Read> HeaderReader<'_, R> {
    pub(crate) fn fill(&mut self, buf: &mut [u8], what: &str) -> Result<()> {
        let got = read_full(self.r, buf)?;
        let want = buf.len() as u64;
        if got < buf.len() {
            return Err(corrupt(format!(
                "truncated header: the file ends at byte {}, {what} needs bytes {}..{}",
                self.pos + got as u64,
                self.pos,
                self.pos + want
            )));
        }
        self.crc.update(buf);
        self.pos += want;
        Ok(())
    }
    pub(crate) fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        self.fill(&mut a, what)?;
        Ok(a)
    }
    pub(crate) fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
}

/// Reads and validates a native header from the start of `r`, which is left at the
/// first payload byte. Memory grows only with the header bytes actually present: the
/// block offsets are read in chunks, never allocated from the count alone.
pub fn read_header(r: &mut impl Read) -> Result<NativeHeader> {
    match read_version(r)? {
        VERSION => read_header_v1(r),
        v => Err(Error::UnsupportedVersion {
            format: FORMAT,
            version: v as u32,
        }),
    }
}

/// Reads the magic and the version byte.
fn read_version(r: &mut impl Read) -> Result<u8> {
    let mut magic = [0u8; 4];
    let got = read_full(r, &mut magic)?;
    if &magic[..got] != MAGIC {
        return Err(Error::BadMagic {
            format: FORMAT,
            reason: format!(
                "starts with {:02x?}, expected {MAGIC:02x?} (\"PVLC\")",
                &magic[..got]
            ),
        });
    }
    let mut version = [0u8; 1];
    if read_full(r, &mut version)? < 1 {
        return Err(corrupt(
            "truncated header: the file ends at byte 4, before the version",
        ));
    }
    Ok(version[0])
}

/// The rest of a version-1 header, after its magic and version.
fn read_header_v1(r: &mut impl Read) -> Result<NativeHeader> {
    let mut crc = crc32fast::Hasher::new();
    crc.update(MAGIC);
    crc.update(&[VERSION]);
    let mut c = HeaderReader { r, pos: 5, crc };
    let reserved = c.array::<3>("reserved bytes")?;
    let original_len = c.u64("original length")?;
    let crc32 = c.u32("checksum")?;
    let block_symbols = c.u32("block size")?;
    let n_blocks = c.u32("block count")?;
    let payload_bits = c.u64("payload size")?;
    let lengths = c.array::<256>("code lengths")?;
    let mut block_offsets = Vec::with_capacity((n_blocks as usize).min(1 << 13));
    let mut chunk = [0u8; 8 << 10];
    let mut left = n_blocks as usize;
    while left > 0 {
        let n = left.min(chunk.len() / 8);
        c.fill(&mut chunk[..n * 8], "block offsets")?;
        block_offsets.extend(chunk[..n * 8].chunks_exact(8).map(|b| {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            u64::from_le_bytes(a)
        }));
        left -= n;
    }
    let computed = c.crc.clone().finalize();
    let stored_crc = c.u32("header checksum")?;
    if stored_crc != computed {
        return Err(corrupt(format!(
            "header checksum mismatch (stored {stored_crc:08x}, computed {computed:08x})"
        )));
    }
    if reserved != [0; 3] {
        return Err(corrupt("reserved header bytes are not zero"));
    }
    let h = NativeHeader {
        original_len,
        crc32,
        block_symbols,
        payload_bits,
        lengths,
        block_offsets,
    };
    validate(&h)?;
    Ok(h)
}

/// The checks a header passes on its own (the payload's length aside).
fn validate(h: &NativeHeader) -> Result<()> {
    let (original_len, block_symbols, payload_bits) =
        (h.original_len, h.block_symbols, h.payload_bits);
    let n_blocks = h.block_offsets.len();
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
    if original_len == 0 && payload_bits != 0 {
        return Err(corrupt(format!(
            "empty file with {payload_bits} payload bits"
        )));
    }
    if let Some(&first) = h.block_offsets.first() {
        if first != 0 {
            return Err(corrupt(format!("block 0 starts at bit {first}, not 0")));
        }
    }
    for (i, w) in h.block_offsets.windows(2).enumerate() {
        if w[1] < w[0] || w[1] > payload_bits {
            return Err(corrupt(format!(
                "block {} offset {} is out of order or past the payload",
                i + 1,
                w[1]
            )));
        }
    }
    Codebook::from_lengths(&h.lengths).map_err(|e| corrupt(format!("bad code lengths: {e}")))?;
    if original_len > 0 && h.lengths.iter().all(|&l| l == 0) {
        return Err(corrupt("no code lengths for a non-empty file"));
    }
    Ok(())
}

/// Parses and validates a native file; returns the header and the payload bytes.
pub fn parse_native(data: &[u8]) -> Result<(NativeHeader, &[u8])> {
    let mut payload = data;
    let h = read_header(&mut payload)?;
    check_payload_len(&h, payload.len() as u64)?;
    Ok((h, payload))
}

fn check_payload_len(h: &NativeHeader, present: u64) -> Result<()> {
    let expected = h.payload_bits.div_ceil(8);
    if present != expected {
        return Err(corrupt(format!(
            "payload is {present} bytes, header says {expected}"
        )));
    }
    Ok(())
}

/// Whether `head` (a stream's first bytes) starts a native framed (v2) stream: the magic
/// and the version.
pub fn is_framed(head: &[u8]) -> bool {
    head.len() >= 5 && head[..4] == MAGIC[..] && head[4] == super::framing::VERSION_FRAMED
}

/// Decodes a native file (blocks in parallel) and verifies its checksum.
pub fn decompress_native(data: &[u8]) -> Result<Vec<u8>> {
    if data.get(4) == Some(&super::framing::VERSION_FRAMED) {
        let mut out = Vec::new();
        decompress_native_to(&mut &data[..], &mut out, DEFAULT_BATCH_BYTES)?;
        return Ok(out);
    }
    let (h, mut payload) = parse_native(data)?;
    // The checks above bound original_len by 8 bits per payload byte present.
    let mut out = Vec::with_capacity(usize::try_from(h.original_len).unwrap_or(0));
    decode_payload(&h, &mut payload, &mut out, DEFAULT_BATCH_BYTES)?;
    Ok(out)
}

/// Decodes a native file from `input` into `output` as it goes, `batch_bytes` of output
/// at a time (at least one), and returns the decoded length. Every check of
/// [`decompress_native`] is made, the data checksum last: on an error, what was written
/// must be discarded.
pub fn decompress_native_to(
    input: &mut impl Read,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<u64> {
    decompress_native_on(None, input, output, batch_bytes)
}

/// [`decompress_native_to`], framed (v2) files decoded on `gpu` where one is given.
pub fn decompress_native_on(
    gpu: Option<&crate::gpu::Gpu>,
    input: &mut impl Read,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<u64> {
    let gpu = gpu.map(super::framed_decode::DecodeGpu::Wgpu);
    decompress_native_with(gpu.into(), input, output, batch_bytes)
}

/// [`decompress_native_on`] on either GPU decoder, wgpu's or CUDA's.
pub(crate) fn decompress_native_with(
    gpu: super::framed_decode::GpuSource<'_>,
    input: &mut impl Read,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<u64> {
    match read_version(input)? {
        VERSION => {
            let h = read_header_v1(input)?;
            decode_payload(&h, input, output, batch_bytes)?;
            Ok(h.original_len)
        }
        super::framing::VERSION_FRAMED => {
            super::framed_decode::decode_frames(input, output, batch_bytes, gpu)
        }
        v => Err(Error::UnsupportedVersion {
            format: FORMAT,
            version: v as u32,
        }),
    }
}

/// A run of one block's symbols decoded as a unit: a whole block, or (where a block is
/// longer than a batch) a batch-sized part of one, resumed where the last part ended.
struct Piece {
    block: usize,
    start: u64,
    symbols: u64,
    /// The next block's first bit (the payload's end for the last block).
    limit: u64,
    /// Whether this piece finishes its block, which must then end exactly at `limit`.
    last: bool,
}

/// Payload bytes `[base, base + bytes.len())`, read from the input as batches need them.
struct Window {
    bytes: Vec<u8>,
    base: u64,
    /// Payload bytes the header promises.
    len: u64,
}

impl Window {
    /// Drops the bytes before `from` and reads until the window reaches `to`.
    fn slide(&mut self, input: &mut impl Read, from: u64, to: u64) -> Result<()> {
        let drop = from.saturating_sub(self.base).min(self.bytes.len() as u64);
        self.bytes.drain(..drop as usize);
        self.base += drop;
        let end = self.base + self.bytes.len() as u64;
        if from > end {
            return Err(corrupt(format!(
                "batch starts at payload byte {from}, past the {end} bytes read"
            )));
        }
        let want = to.saturating_sub(end);
        let want = usize::try_from(want)
            .map_err(|_| Error::TooLarge(format!("a batch of {want} payload bytes")))?;
        let old = self.bytes.len();
        self.bytes.resize(old + want, 0);
        let got = read_full(input, &mut self.bytes[old..])?;
        if got < want {
            return Err(corrupt(format!(
                "payload is {} bytes, header says {} (the file is truncated)",
                end + got as u64,
                self.len
            )));
        }
        Ok(())
    }
}

/// Decodes the payload after header `h`, checks its padding, its length and the data
/// checksum (last: what was written before an error must be discarded).
fn decode_payload(
    h: &NativeHeader,
    input: &mut impl Read,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<()> {
    let mut window = Window {
        bytes: Vec::new(),
        base: 0,
        len: h.payload_bits.div_ceil(8),
    };
    let mut crc = crc32fast::Hasher::new();
    if h.original_len > 0 {
        let dec = Decoder::new(&Codebook::from_lengths(&h.lengths)?)?;
        let batch = (batch_bytes as u64).max(1);
        decode_batches(h, &dec, batch, input, &mut window, &mut crc, output)?;
    }
    let pad = (h.payload_bits % 8) as u32;
    if pad != 0 {
        if let Some(&last) = window.bytes.last() {
            if last & (0xffu8 >> pad) != 0 {
                return Err(corrupt("padding bits after the payload are not zero"));
            }
        }
    }
    let mut extra = [0u8; 1];
    if read_full(input, &mut extra)? != 0 {
        return Err(corrupt(format!(
            "payload is longer than the {} bytes the header says",
            window.len
        )));
    }
    let computed = crc.finalize();
    if computed != h.crc32 {
        return Err(Error::Checksum {
            expected: h.crc32,
            computed,
        });
    }
    Ok(())
}

/// The batch loop: plan up to `batch` symbols of pieces, read the payload bytes they
/// span, decode them in parallel, check where every piece ended, hash and write.
fn decode_batches(
    h: &NativeHeader,
    dec: &Decoder,
    batch: u64,
    input: &mut impl Read,
    window: &mut Window,
    crc: &mut crc32fast::Hasher,
    output: &mut (impl Write + Send),
) -> Result<()> {
    let max_len = h.lengths.iter().copied().max().unwrap_or(0) as u64;
    let mut out = Vec::new();
    // Where the next batch starts: block, symbols of it done, and its next bit.
    let (mut block, mut done, mut bit) = (0usize, 0u64, 0u64);
    while block < h.block_offsets.len() {
        let pieces = plan_batch(h, batch, (block, done, bit));
        let (Some(first), Some(last)) = (pieces.first(), pieces.last()) else {
            break;
        };
        // A symbol has at most max_len bits: this bounds the bytes a batch reads.
        for p in pieces.iter().filter(|p| p.last) {
            if p.limit < p.start || p.limit - p.start > p.symbols * max_len {
                return Err(corrupt(format!(
                    "block {} has bits {}..{} for {} symbols of at most {max_len} bits",
                    p.block, p.start, p.limit, p.symbols
                )));
            }
        }
        let to = if last.last {
            last.limit
        } else {
            last.limit
                .min(last.start.saturating_add(last.symbols * max_len))
        };
        window.slide(input, first.start / 8, to.div_ceil(8))?;
        out.resize(pieces.iter().map(|p| p.symbols as usize).sum(), 0);
        let ends = decode_pieces(dec, window, &pieces, &mut out)?;
        for (p, &end) in pieces.iter().zip(&ends) {
            if end > p.limit || (p.last && end != p.limit) {
                return Err(corrupt(format!(
                    "block {} ends at bit {end}, the next starts at bit {}",
                    p.block, p.limit
                )));
            }
        }
        crc.update(&out);
        output.write_all(&out).map_err(Error::WriteOutput)?;
        (block, done, bit) = match (last.last, ends.last()) {
            // Only a batch's sole piece can leave its block unfinished (plan_batch).
            (false, Some(&end)) => (last.block, done + last.symbols, end),
            _ => {
                let next = last.block + 1;
                (next, 0, h.block_offsets.get(next).copied().unwrap_or(0))
            }
        };
    }
    Ok(())
}

/// The pieces of the next batch: whole blocks while they fit in `batch` symbols, or one
/// batch-sized part of a longer block (the next part starts where this one ends, so it
/// waits for the next batch).
fn plan_batch(h: &NativeHeader, batch: u64, (block, done, bit): (usize, u64, u64)) -> Vec<Piece> {
    let bs = h.block_symbols as u64;
    let mut pieces = Vec::new();
    let mut sum = 0u64;
    let (mut b, mut done, mut start) = (block, done, bit);
    while b < h.block_offsets.len() {
        let block_len = bs.min(h.original_len - b as u64 * bs);
        let symbols = (block_len - done).min(batch);
        if sum + symbols > batch && !pieces.is_empty() {
            break;
        }
        let limit = h
            .block_offsets
            .get(b + 1)
            .copied()
            .unwrap_or(h.payload_bits);
        let last = done + symbols == block_len;
        pieces.push(Piece {
            block: b,
            start,
            symbols,
            limit,
            last,
        });
        sum += symbols;
        if !last {
            break;
        }
        b += 1;
        done = 0;
        start = limit;
    }
    pieces
}

/// Decodes `pieces` in parallel into consecutive parts of `out`; returns their end bits.
fn decode_pieces(
    dec: &Decoder,
    window: &Window,
    pieces: &[Piece],
    out: &mut [u8],
) -> Result<Vec<u64>> {
    let mut parts = Vec::with_capacity(pieces.len());
    let mut rest = out;
    for p in pieces {
        let (part, tail) = rest.split_at_mut((p.symbols as usize).min(rest.len()));
        parts.push(part);
        rest = tail;
    }
    let base_bit = window.base.saturating_mul(8);
    parts
        .into_par_iter()
        .zip(pieces.par_iter())
        .map(|(part, p)| {
            let start = p.start.checked_sub(base_bit).unwrap_or(u64::MAX);
            dec.decode_window(&window.bytes, base_bit, start, part)
                .map(|end| end.saturating_add(base_bit))
                .map_err(|e| match e {
                    Error::Corrupt { format, reason } => Error::Corrupt {
                        format,
                        reason: format!("block {}: {reason}", p.block),
                    },
                    other => other,
                })
        })
        .collect()
}

/// A human-readable summary of a native file's header.
pub fn info_native(data: &[u8]) -> Result<String> {
    let (h, _) = parse_native(data)?;
    Ok(describe(&h, data.len() as u64))
}

/// The summary of [`info_native`] from the header alone: `r` holds the file from its
/// start, `file_len` bytes long. Nothing past the header is read.
pub fn info_native_header(r: &mut impl Read, file_len: u64) -> Result<String> {
    match read_version(r)? {
        VERSION => {}
        super::framing::VERSION_FRAMED => {
            return super::framed_decode::describe_frames(r, file_len);
        }
        v => {
            return Err(Error::UnsupportedVersion {
                format: FORMAT,
                version: v as u32,
            })
        }
    }
    let h = read_header_v1(r)?;
    check_payload_len(&h, file_len.saturating_sub(h.encoded_len() as u64))?;
    Ok(describe(&h, file_len))
}

fn describe(h: &NativeHeader, file_len: u64) -> String {
    let used = h.lengths.iter().filter(|&&l| l > 0).count();
    let max = h.lengths.iter().copied().max().unwrap_or(0);
    let mut s = String::new();
    let ratio = if h.original_len > 0 {
        file_len as f64 / h.original_len as f64
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
        file_len, ratio
    );
    let _ = writeln!(
        s,
        "payload:       {} bits in {} bytes",
        h.payload_bits,
        h.payload_bits.div_ceil(8)
    );
    let _ = writeln!(
        s,
        "blocks:        {} of {} symbols",
        h.block_offsets.len(),
        h.block_symbols
    );
    let _ = writeln!(s, "code:          {used} symbols, longest {max} bits");
    s
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
        // Version 2 is the framed format (huffman::framing); 3 is unknown.
        let mut v = file.clone();
        v[4] = 3;
        assert!(matches!(
            decompress_native(&v),
            Err(Error::UnsupportedVersion { version: 3, .. })
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
