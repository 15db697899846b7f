//! The table-driven MSB-first decoder of canonical code streams (the native format), and
//! the reader other decoders of such streams share.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::huffman::decode_table::{
    self, Canonical, Entry, COUNT_MASK, FAST_BITS, FAST_LEN, LEN_MASK,
};
use crate::huffman::Codebook;

/// Output bytes a fast round may write: five lookups of up to three bytes, and the last
/// lookup's fourth (ignored) byte.
const ROUND_OUT: usize = 16;

/// Table-driven decoder for MSB-first canonical code streams (the native format).
/// Symbols 0..256 decode to bytes; any other symbol is reported as corrupt data.
#[derive(Clone, Debug)]
pub struct Decoder {
    /// Up to three bytes a lookup ([`decode_table::fast_table`]).
    fast: Box<[Entry; FAST_LEN]>,
    /// Code length of each byte: the first of an entry's bytes alone takes that many bits.
    byte_len: [u8; 256],
    /// Every byte has an 8-bit code, and no other symbol a code: the canonical code of
    /// byte `b` is `b` itself (incompressible data), and a byte-aligned block is a copy.
    identity: bool,
    /// Codes longer than the table, by a search over lengths.
    code: Canonical,
}

/// A reader of an MSB-first stream, for a decode in progress.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    /// Next byte to load.
    pos: usize,
    /// Pending bits, left-aligned; bits below the top `n` are either zero or the true
    /// stream bits that follow.
    buf: u64,
    n: u32,
}

impl<'a> Reader<'a> {
    fn new(data: &'a [u8], start_bit: u64) -> Option<Reader<'a>> {
        let byte = usize::try_from(start_bit / 8).ok()?;
        if byte > data.len() || (byte == data.len() && !start_bit.is_multiple_of(8)) {
            return None;
        }
        let mut r = Reader {
            data,
            pos: byte,
            buf: 0,
            n: 0,
        };
        r.refill();
        let skip = (start_bit % 8) as u32;
        r.buf <<= skip;
        r.n -= skip;
        Some(r)
    }

    /// At least 56 bits in the buffer where the data has them; past its end, all the
    /// bits there are.
    #[inline(always)]
    fn refill(&mut self) {
        if !self.refill_fast() {
            while self.n <= 56 {
                match self.data.get(self.pos) {
                    Some(&b) => {
                        self.buf |= (b as u64) << (56 - self.n);
                        self.pos += 1;
                        self.n += 8;
                    }
                    None => break,
                }
            }
        }
    }

    /// Tops the buffer up to 56..64 bits with one 8-byte load, where 8 bytes are left;
    /// false (nothing done) where not.
    #[inline(always)]
    fn refill_fast(&mut self) -> bool {
        let Some(&w) = self.data.get(self.pos..).and_then(|d| d.first_chunk::<8>()) else {
            return false;
        };
        // `n` is at most 63 here: the shift keeps the bits already there.
        self.buf |= u64::from_be_bytes(w) >> self.n;
        self.pos += ((63 - self.n) / 8) as usize;
        self.n |= 56;
        true
    }

    /// Bit position of the next unread bit.
    fn bit_pos(&self) -> u64 {
        self.pos as u64 * 8 - self.n as u64
    }
}

fn corrupt(reason: impl Into<String>) -> Error {
    Error::corrupt("native", reason)
}

impl Decoder {
    /// Builds the decoding tables for `book`'s canonical code.
    pub fn new(book: &Codebook) -> Result<Decoder> {
        Decoder::from_lengths(book.lengths())
    }

    /// [`Decoder::new`] from the code lengths alone (checked as
    /// [`Codebook::from_lengths`] does, with its errors).
    pub(crate) fn from_lengths(lengths: &[u8]) -> Result<Decoder> {
        let code = Canonical::new(lengths)?;
        let mut byte_len = [0u8; 256];
        for (b, &l) in byte_len.iter_mut().zip(lengths) {
            *b = l;
        }
        Ok(Decoder {
            fast: decode_table::fast_table::<false>(&code),
            byte_len,
            identity: lengths.len() == 256 && lengths.iter().all(|&l| l == 8),
            code,
        })
    }

    /// Decodes `out.len()` symbols starting at `start_bit`; returns the end bit.
    fn decode_into(&self, bytes: &[u8], start_bit: u64, out: &mut [u8]) -> Result<u64> {
        self.decode_window(bytes, 0, start_bit, out)
    }

    /// Like `decode_into` on a window of a longer stream: `bytes[0]` is stream bit
    /// `base_bit` (a multiple of 8), and `start_bit` and the returned end bit are
    /// relative to `bytes`. Errors name stream bits, so a streaming caller's messages
    /// match a whole-file decode's.
    pub(crate) fn decode_window(
        &self,
        bytes: &[u8],
        base_bit: u64,
        start_bit: u64,
        out: &mut [u8],
    ) -> Result<u64> {
        if out.is_empty() {
            return Ok(start_bit);
        }
        if let Some(end) = self.copy(bytes, start_bit, out) {
            return Ok(end);
        }
        let mut r = self.reader(bytes, base_bit, start_bit)?;
        let mut done = 0;
        while self.round(&mut r, out, &mut done) {}
        self.decode_rest(&mut r, base_bit, out, done)
    }

    /// `out.len()` symbols from `start_bit` where the code is the identity and the block
    /// is byte-aligned and all there: a copy; returns the end bit. None where the block
    /// must be decoded (and any error found) as any other.
    pub(crate) fn copy(&self, bytes: &[u8], start_bit: u64, out: &mut [u8]) -> Option<u64> {
        if !self.identity || !start_bit.is_multiple_of(8) {
            return None;
        }
        let at = usize::try_from(start_bit / 8).ok()?;
        out.copy_from_slice(bytes.get(at..)?.get(..out.len())?);
        Some(start_bit + out.len() as u64 * 8)
    }

    /// Two blocks of the same stream decoded side by side: two independent chains of
    /// lookups keep a core busy where one waits on each lookup. Returns both end bits.
    fn decode_two(
        &self,
        bytes: &[u8],
        (a_start, a): (u64, &mut [u8]),
        (b_start, b): (u64, &mut [u8]),
    ) -> (Result<u64>, Result<u64>) {
        let (mut ra, mut rb) = match (
            self.reader(bytes, 0, a_start),
            self.reader(bytes, 0, b_start),
        ) {
            (Ok(ra), Ok(rb)) if !a.is_empty() && !b.is_empty() && !self.identity => (ra, rb),
            _ => {
                return (
                    self.decode_window(bytes, 0, a_start, a),
                    self.decode_window(bytes, 0, b_start, b),
                )
            }
        };
        let (mut da, mut db) = (0, 0);
        while self.round(&mut ra, a, &mut da) & self.round(&mut rb, b, &mut db) {}
        while self.round(&mut ra, a, &mut da) {}
        while self.round(&mut rb, b, &mut db) {}
        (
            self.decode_rest(&mut ra, 0, a, da),
            self.decode_rest(&mut rb, 0, b, db),
        )
    }

    pub(crate) fn reader<'a>(
        &self,
        bytes: &'a [u8],
        base_bit: u64,
        start_bit: u64,
    ) -> Result<Reader<'a>> {
        Reader::new(bytes, start_bit).ok_or_else(|| {
            corrupt(format!(
                "start bit {} is past the end of the stream at bit {}",
                base_bit.saturating_add(start_bit),
                base_bit.saturating_add(bytes.len() as u64 * 8)
            ))
        })
    }

    /// The careful loop: symbols `done..` of `out`, every code and the stream's end
    /// checked; returns the end bit.
    pub(crate) fn decode_rest(
        &self,
        r: &mut Reader<'_>,
        base_bit: u64,
        out: &mut [u8],
        done: usize,
    ) -> Result<u64> {
        let at = |bit: u64| base_bit.saturating_add(bit);
        for (i, o) in out.iter_mut().enumerate().skip(done) {
            if r.n < 32 {
                r.refill();
            }
            let e = self.fast[(r.buf >> (64 - FAST_BITS)) as usize];
            let (sym, len) = if e & COUNT_MASK != 0 {
                let b = decode_table::first_symbol(e);
                (b, self.byte_len[b as usize] as u32)
            } else if e != 0 {
                (decode_table::first_symbol(e), e & LEN_MASK)
            } else {
                self.code.decode(r.buf, FAST_BITS + 1).ok_or_else(|| {
                    corrupt(format!(
                        "invalid code at bit {} (symbol {i} of the block)",
                        at(r.bit_pos())
                    ))
                })?
            };
            if len > r.n {
                return Err(corrupt(format!(
                    "stream ends inside symbol {i} of the block (bit {})",
                    at(r.bit_pos())
                )));
            }
            if sym > 255 {
                return Err(corrupt(format!("decoded symbol {sym} is not a byte")));
            }
            *o = sym as u8;
            r.buf <<= len;
            r.n -= len;
        }
        Ok(r.bit_pos())
    }

    /// One round of the hot loop, while 8 input bytes and `ROUND_OUT` output bytes
    /// remain: one refill, then four or five lookups of up to three bytes each (all four bytes
    /// written whatever the count); a code longer than the table is decoded in place and
    /// ends the round. False at the end, or at a code the careful loop must report (the
    /// symbols before it done).
    #[inline(always)]
    pub(crate) fn round(&self, r: &mut Reader<'_>, out: &mut [u8], i: &mut usize) -> bool {
        let Some(window) = out.get_mut(*i..*i + ROUND_OUT) else {
            return false;
        };
        if !r.refill_fast() {
            return false;
        }
        // In locals, registers. `n` is exact in its low six bits only: whole entries are
        // subtracted from it (their lengths are their low six bits).
        let (mut buf, mut n, mut k) = (r.buf, r.n, 0usize);
        // The table's address in a register: the byte stores below could, for all the
        // compiler knows, change the pointer to it.
        let fast: &[Entry; FAST_LEN] = &self.fast;
        // After the refill at least 56 bits: four lookups of at most FAST_BITS (12), at
        // most three bytes each (a fifth below, the last written at byte 12 of the window).
        for _ in 0..4 {
            let e = fast[(buf >> (64 - FAST_BITS)) as usize];
            if e & COUNT_MASK == 0 {
                (r.buf, r.n) = (buf, n & LEN_MASK);
                let Some((b, after)) = self.long(*r) else {
                    *i += k;
                    return false;
                };
                *r = after;
                if let Some(o) = window.get_mut(k) {
                    *o = b;
                }
                *i += k + 1;
                return true;
            }
            if let Some(o) = window.get_mut(k..k + 4) {
                o.copy_from_slice(&decode_table::literal_bytes(e));
            }
            k += decode_table::literals(e);
            // The shift takes the entry as it is: its length is its low six bits.
            buf = buf.wrapping_shl(e);
            n = n.wrapping_sub(e);
        }
        // A fifth lookup where the bits for one are left (codes of 8-10 bits leave them);
        // anything but literals waits for the next round.
        if n & LEN_MASK >= FAST_BITS {
            let e = fast[(buf >> (64 - FAST_BITS)) as usize];
            if e & COUNT_MASK != 0 {
                if let Some(o) = window.get_mut(k..k + 4) {
                    o.copy_from_slice(&decode_table::literal_bytes(e));
                }
                k += decode_table::literals(e);
                buf = buf.wrapping_shl(e);
                n = n.wrapping_sub(e);
            }
        }
        (r.buf, r.n) = (buf, n & LEN_MASK);
        *i += k;
        true
    }

    /// A code longer than the table, in the hot loop: its byte and the reader past it;
    /// None where the careful loop must take over. The reader goes by value, so that the
    /// hot loop's stays in registers.
    #[inline(never)]
    fn long<'a>(&self, mut r: Reader<'a>) -> Option<(u8, Reader<'a>)> {
        if r.n < self.code.max_len() && !r.refill_fast() {
            return None;
        }
        match self.code.decode(r.buf, FAST_BITS + 1) {
            Some((sym, len)) if sym <= 255 && len <= r.n => {
                r.buf <<= len;
                r.n -= len;
                Some((sym as u8, r))
            }
            _ => None,
        }
    }

    /// Decodes exactly `count` symbols starting at `start_bit`, appending to `out`.
    pub fn decode(
        &self,
        bytes: &[u8],
        start_bit: u64,
        count: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let old = out.len();
        out.resize(old + count, 0);
        match self.decode_into(bytes, start_bit, &mut out[old..]) {
            Ok(_) => Ok(()),
            Err(e) => {
                out.truncate(old);
                Err(e)
            }
        }
    }

    /// Decodes `total_symbols` symbols in blocks of `block_symbols` (the last block
    /// fewer), block `i` starting at `block_bit_offsets[i]`, in parallel. Blocks may not
    /// overlap: block `i` must end at or before `block_bit_offsets[i + 1]`.
    pub fn decode_blocks(
        &self,
        bytes: &[u8],
        block_bit_offsets: &[u64],
        block_symbols: usize,
        total_symbols: usize,
    ) -> Result<Vec<u8>> {
        self.decode_blocks_ends(bytes, block_bit_offsets, block_symbols, total_symbols)
            .map(|(out, _)| out)
    }

    /// Like [`Decoder::decode_blocks`], also returning the end bit of every block.
    pub fn decode_blocks_ends(
        &self,
        bytes: &[u8],
        block_bit_offsets: &[u64],
        block_symbols: usize,
        total_symbols: usize,
    ) -> Result<(Vec<u8>, Vec<u64>)> {
        let mut out = vec![0u8; total_symbols];
        let ends = self.decode_blocks_into(bytes, block_bit_offsets, block_symbols, &mut out)?;
        Ok((out, ends))
    }

    /// [`Decoder::decode_blocks_ends`] into `out` (its length the symbol count): no
    /// buffer of its own, for a caller that decodes many frames into one.
    pub fn decode_blocks_into(
        &self,
        bytes: &[u8],
        block_bit_offsets: &[u64],
        block_symbols: usize,
        out: &mut [u8],
    ) -> Result<Vec<u64>> {
        let total_symbols = out.len();
        let expected = if total_symbols == 0 {
            0
        } else if block_symbols == 0 {
            return Err(corrupt("block size is 0 symbols"));
        } else {
            total_symbols.div_ceil(block_symbols)
        };
        if block_bit_offsets.len() != expected {
            return Err(corrupt(format!(
                "{} block offsets for {total_symbols} symbols in blocks of {block_symbols} (expected {expected})",
                block_bit_offsets.len()
            )));
        }
        let stream_bits = bytes.len() as u64 * 8;
        for (i, w) in block_bit_offsets.windows(2).enumerate() {
            if w[1] < w[0] {
                return Err(corrupt(format!(
                    "block offsets decrease at block {}",
                    i + 1
                )));
            }
        }
        if let Some(&last) = block_bit_offsets.last() {
            if last > stream_bits {
                return Err(corrupt(format!(
                    "block offset {last} is past the {stream_bits}-bit stream"
                )));
            }
        }
        if total_symbols == 0 {
            return Ok(Vec::new());
        }
        // Blocks in pairs, decoded side by side on one core.
        let ends: Vec<[Option<u64>; 2]> = out
            .par_chunks_mut(2 * block_symbols)
            .zip(block_bit_offsets.par_chunks(2))
            .enumerate()
            .map(|(k, (chunk, starts))| {
                let results =
                    if let ([a_start, b_start], true) = (starts, chunk.len() > block_symbols) {
                        let (a, b) = chunk.split_at_mut(block_symbols);
                        let (ea, eb) = self.decode_two(bytes, (*a_start, a), (*b_start, b));
                        [Some(ea), Some(eb)]
                    } else {
                        [Some(self.decode_into(bytes, starts[0], chunk)), None]
                    };
                let mut ends = [None, None];
                for (j, result) in results.into_iter().enumerate() {
                    let Some(result) = result else { continue };
                    let i = 2 * k + j;
                    let limit = block_bit_offsets.get(i + 1).copied().unwrap_or(stream_bits);
                    let end = result.map_err(|e| match e {
                        Error::Corrupt { format, reason } => Error::Corrupt {
                            format,
                            reason: format!("block {i}: {reason}"),
                        },
                        other => other,
                    })?;
                    if end > limit {
                        return Err(corrupt(format!(
                            "block {i} ends at bit {end}, past the next block at {limit}"
                        )));
                    }
                    ends[j] = Some(end);
                }
                Ok(ends)
            })
            .collect::<Result<_>>()?;
        Ok(ends.into_iter().flatten().flatten().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{book_for, skewed, splitmix};
    use super::*;
    use crate::huffman::cpu::{encode_parallel, encode_serial};
    use crate::huffman::BitOrder;

    #[test]
    fn decode_round_trip() {
        let mut st = 5;
        for n in [0usize, 1, 10, 1000, 100_000] {
            let data = skewed(n, splitmix(&mut st));
            for max_len in [9u8, 11, 12, 15, 20, 32] {
                let mut freq_src = data.clone();
                freq_src.extend(0..=255u8);
                let book = book_for(&freq_src, max_len);
                let table = book.table().unwrap();
                let dec = Decoder::new(&book).unwrap();
                for start in [0u32, 3, 17] {
                    let enc = encode_serial(&data, &table, BitOrder::MsbFirst, start).unwrap();
                    let mut out = vec![9u8];
                    dec.decode(&enc.bytes, start as u64, data.len(), &mut out)
                        .unwrap();
                    assert_eq!(&out[1..], &data[..]);
                }
            }
        }
    }

    #[test]
    fn decode_blocks_round_trip() {
        let mut st = 77;
        let data = skewed(1_000_000, splitmix(&mut st));
        let book = book_for(&data, 15);
        let table = book.table().unwrap();
        let dec = Decoder::new(&book).unwrap();
        for block in [1usize, 1000, 4096, 999_999, 1_000_000, 5_000_000] {
            let mut offsets = Vec::new();
            let mut bit = 0u64;
            for c in data.chunks(block) {
                offsets.push(bit);
                bit += c
                    .iter()
                    .map(|&b| table.lengths[b as usize] as u64)
                    .sum::<u64>();
            }
            let enc = encode_parallel(&data, &table, BitOrder::MsbFirst, 0).unwrap();
            assert_eq!(enc.bits, bit);
            let (out, ends) = dec
                .decode_blocks_ends(&enc.bytes, &offsets, block, data.len())
                .unwrap();
            assert_eq!(out, data);
            assert_eq!(*ends.last().unwrap(), bit);
            // Bad offsets.
            if offsets.len() > 2 {
                let mut bad = offsets.clone();
                bad.swap(1, 2);
                assert!(matches!(
                    dec.decode_blocks(&enc.bytes, &bad, block, data.len()),
                    Err(Error::Corrupt {
                        format: "native",
                        ..
                    })
                ));
            }
            let mut bad = offsets.clone();
            bad.push(enc.bytes.len() as u64 * 8 + 1);
            assert!(dec
                .decode_blocks(&enc.bytes, &bad, block, data.len())
                .is_err());
        }
        assert_eq!(dec.decode_blocks(&[], &[], 0, 0).unwrap(), Vec::<u8>::new());
        assert!(dec.decode_blocks(&[], &[0], 0, 5).is_err());
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut st = 3;
        // Incomplete code: only a few codes of 12+ bits, most bit patterns invalid.
        let mut lengths = [0u8; 256];
        for (i, l) in lengths.iter_mut().enumerate().take(40) {
            *l = 13 + (i % 20) as u8;
        }
        let sparse = Codebook::from_lengths(&lengths).unwrap();
        let dense = book_for(&skewed(10_000, 9), 15);
        let all32 = Codebook::from_lengths(&[32u8; 256]).unwrap();
        for book in [&sparse, &dense, &all32] {
            let dec = Decoder::new(book).unwrap();
            for n in 0..200usize {
                let garbage: Vec<u8> = (0..n).map(|_| splitmix(&mut st) as u8).collect();
                let mut out = Vec::new();
                for start in [0u64, 5, n as u64 * 8, n as u64 * 8 + 3, u64::MAX] {
                    let _ = dec.decode(&garbage, start, 1000, &mut out);
                    out.clear();
                }
                // Asking for more symbols than the bits allow must fail.
                assert!(dec.decode(&garbage, 0, n * 8 + 1, &mut out).is_err());
                assert!(out.is_empty());
            }
        }
        // Sparse canonical code: the low code values are taken, all-one bits are invalid.
        let dec = Decoder::new(&sparse).unwrap();
        let mut out = Vec::new();
        let e = dec.decode(&[0xffu8; 16], 0, 1, &mut out).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Corrupt {
                    format: "native",
                    ..
                }
            ),
            "{e}"
        );
        // Empty code decodes nothing.
        let empty = Decoder::new(&Codebook::from_lengths(&[0u8; 256]).unwrap()).unwrap();
        assert!(empty.decode(&[0xff; 8], 0, 1, &mut out).is_err());
        assert!(empty.decode(&[0xff; 8], 0, 0, &mut out).is_ok());
    }
}
