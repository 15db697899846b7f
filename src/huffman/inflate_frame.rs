//! A strict decoder for one frame of our gzip output ([`super::framing`]): a dynamic
//! DEFLATE block (BFINAL = 0) of exactly `len` literals and its end-of-block code, then
//! an empty stored block (`00 00 ff ff`) that ends the frame's bytes exactly. It accepts
//! only that shape, so what it outputs is what any inflate makes of the same bytes;
//! anything else (a match, a final block, a frame that runs short or long) is an error.
//! Table-driven ([`super::decode_table`]): 12 bits a lookup give up to three literals.

use super::decode_table::{self, Canonical, Entry, COUNT_MASK, FAST_BITS, FAST_LEN, LEN_MASK};
use super::lanes::{self, Lane};
use crate::{Error, Result};

const MASK: u64 = FAST_LEN as u64 - 1;
/// Output bytes a fast round may write: five lookups of up to three bytes, and the last
/// lookup's fourth (ignored) byte.
const ROUND_OUT: usize = 16;
/// The code-length code's longest code (RFC 1951 3.2.7: lengths of 3 bits).
const CL_BITS: u32 = 7;

/// Order of the code-length code lengths (RFC 1951 3.2.7).
const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

fn corrupt(reason: impl Into<String>) -> Error {
    Error::corrupt("gzip", reason.into())
}

/// LSB-first bits of a byte slice; reads past the end see zeros, and [`Bits::pos`]
/// then exceeds the slice, which the caller checks at the end.
#[derive(Clone, Copy)]
struct Bits<'a> {
    data: &'a [u8],
    /// Next byte to load.
    at: usize,
    buf: u64,
    n: u32,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8]) -> Self {
        let mut b = Bits {
            data,
            at: 0,
            buf: 0,
            n: 0,
        };
        b.refill();
        b
    }

    /// Bits of `data` from bit `bit`.
    fn at(data: &'a [u8], bit: u64) -> Self {
        let mut b = Bits {
            data,
            at: (bit / 8).min(data.len() as u64) as usize,
            buf: 0,
            n: 0,
        };
        b.refill();
        if !bit.is_multiple_of(8) {
            b.skip((bit % 8) as u32);
        }
        b
    }

    /// At least 56 bits in the buffer (zeros past the end).
    #[inline(always)]
    fn refill(&mut self) {
        if !self.refill_fast() {
            while self.n <= 56 {
                let b = self.data.get(self.at).copied().unwrap_or(0);
                self.buf |= (b as u64) << self.n;
                self.at += 1;
                self.n += 8;
            }
        }
    }

    /// Tops the buffer up to 56..64 bits with one 8-byte load, where 8 bytes are left;
    /// false (nothing done) where not.
    #[inline(always)]
    fn refill_fast(&mut self) -> bool {
        let Some(&w) = self.data.get(self.at..).and_then(|d| d.first_chunk::<8>()) else {
            return false;
        };
        // `n` is at most 63 here: bits above it are zero.
        self.buf |= u64::from_le_bytes(w) << self.n;
        self.at += ((63 - self.n) / 8) as usize;
        self.n |= 56;
        true
    }

    #[inline(always)]
    fn take(&mut self, k: u32) -> u32 {
        if self.n < k {
            self.refill();
        }
        let v = (self.buf & ((1u64 << k) - 1)) as u32;
        self.skip(k);
        v
    }

    #[inline(always)]
    fn skip(&mut self, k: u32) {
        self.buf >>= k;
        self.n -= k;
    }

    /// Bit position of the next unread bit (past the slice if zeros were read).
    fn pos(&self) -> u64 {
        self.at as u64 * 8 - self.n as u64
    }
}

/// Reads the dynamic block header: the literal/length code lengths (286 at most).
fn read_header(bits: &mut Bits<'_>) -> Result<Vec<u8>> {
    let head = bits.take(3);
    if head != 0b100 {
        return Err(corrupt(format!(
            "the frame does not start with a non-final dynamic block (BFINAL {}, BTYPE {})",
            head & 1,
            head >> 1
        )));
    }
    let hlit = bits.take(5) as usize + 257;
    let hdist = bits.take(5) as usize + 1;
    let hclen = bits.take(4) as usize + 4;
    if hlit > 286 || hdist > 30 {
        return Err(corrupt(format!(
            "{hlit} literal/length and {hdist} distance codes"
        )));
    }
    let mut cl = [0u8; 19];
    for &s in &CL_ORDER[..hclen] {
        cl[s] = bits.take(3) as u8;
    }
    let cl_code = Canonical::new(&cl).map_err(|e| corrupt(format!("code-length code: {e}")))?;
    // Its codes by their 7 bits (first stream bit lowest): symbol << 8 | length, or 0.
    let mut cl_table = [0u16; 1 << CL_BITS];
    cl_code.for_each_code(CL_BITS, |s, l, c| {
        let mut i = (c.reverse_bits() >> (32 - l)) as usize;
        while let Some(x) = cl_table.get_mut(i) {
            *x = ((s << 8) | l) as u16;
            i += 1 << l;
        }
    });
    let mut lengths = Vec::with_capacity(hlit + hdist);
    while lengths.len() < hlit + hdist {
        if bits.n < 32 {
            bits.refill();
        }
        let e = cl_table[(bits.buf & ((1 << CL_BITS) - 1)) as usize];
        if e == 0 {
            return Err(corrupt("invalid code in the code lengths"));
        }
        bits.skip((e & 0xff) as u32);
        let sym = e >> 8;
        let (value, run) = match sym {
            0..=15 => (sym as u8, 1),
            16 => {
                let prev = *lengths
                    .last()
                    .ok_or_else(|| corrupt("a repeat code before any length"))?;
                (prev, 3 + bits.take(2) as usize)
            }
            17 => (0, 3 + bits.take(3) as usize),
            _ => (0, 11 + bits.take(7) as usize),
        };
        if lengths.len() + run > hlit + hdist {
            return Err(corrupt("code lengths run past their count"));
        }
        lengths.extend(std::iter::repeat_n(value, run));
    }
    // Distance codes are never used by a literal-only frame; they must still be a code
    // zlib accepts (not over-subscribed).
    decode_table::check_lengths(&lengths[hlit..])
        .map_err(|e| corrupt(format!("distance code: {e}")))?;
    lengths.truncate(hlit);
    if lengths[256] == 0 {
        return Err(corrupt("the end-of-block symbol has no code"));
    }
    Ok(lengths)
}

/// zlib refuses an incomplete literal/length code (bar one code of one bit, which a
/// literal-only frame never has): so does this decoder.
fn check_complete(lengths: &[u8]) -> Result<()> {
    let kraft: u64 = lengths
        .iter()
        .filter(|&&l| l > 0)
        .map(|&l| 1u64 << (15 - l))
        .sum();
    if kraft != 1 << 15 {
        return Err(corrupt("the literal/length code is incomplete"));
    }
    Ok(())
}

/// A frame's literal/length code, for a decoder of its own (the GPU's,
/// [`super::inflate_gpu`]): its header read and checked as [`decode_frames`] checks it.
pub(crate) struct LiteralCode {
    /// Code lengths of the literal/length symbols (257 at least).
    pub lengths: Vec<u8>,
    /// The bit where the literals start.
    pub symbol_start: u64,
}

/// Reads the code at the start of a frame's bytes, `data`.
pub(crate) fn read_code(data: &[u8]) -> Result<LiteralCode> {
    let mut bits = Bits::new(data);
    let lengths = read_header(&mut bits)?;
    // The CPU decoder's table checks these two.
    Canonical::new(&lengths).map_err(|e| corrupt(format!("literal code: {e}")))?;
    check_complete(&lengths)?;
    Ok(LiteralCode {
        lengths,
        symbol_start: bits.pos(),
    })
}

/// Checks what follows a frame's literals, which end at bit `end` of its bytes `data`:
/// the end-of-block code of `code`, then the empty stored block that ends the bytes.
pub(crate) fn check_frame_end(code: &LiteralCode, data: &[u8], end: u64) -> Result<()> {
    let mut count = [0u32; 16];
    for &l in &code.lengths {
        count[l as usize & 15] += 1;
    }
    // The canonical code of symbol 256: after every shorter code, and after the
    // literals of its own length.
    let len = code.lengths[256] as u32;
    let mut first = 0u32;
    for c in &count[1..len as usize] {
        first = (first + c) << 1;
    }
    let before = code.lengths[..256]
        .iter()
        .filter(|&&l| l as u32 == len)
        .count() as u32;
    let eob = first + before;
    let mut bits = Bits::at(data, end);
    // A code is stored from its most significant bit, the first in the stream.
    let got = bits.take(len).reverse_bits() >> (32 - len);
    if got != eob {
        return Err(corrupt(
            "no end-of-block after the frame's literals (a wrong index entry?)",
        ));
    }
    stored_block_end(&mut bits)
}

/// The literal/length code of a frame: its fast table (first stream bit lowest), the
/// code for longer codes, each literal's length.
struct Table {
    fast: Box<[Entry; FAST_LEN]>,
    code: Canonical,
    lit_len: [u8; 256],
}

impl Table {
    fn new(lengths: &[u8]) -> Result<Table> {
        let code = Canonical::new(lengths).map_err(|e| corrupt(format!("literal code: {e}")))?;
        check_complete(lengths)?;
        let mut lit_len = [0u8; 256];
        for (d, &l) in lit_len.iter_mut().zip(lengths) {
            *d = l;
        }
        Ok(Table {
            fast: decode_table::fast_table::<true>(&code),
            code,
            lit_len,
        })
    }

    /// The code at the reader longer than the table (at least 15 bits there, or
    /// zeros): its symbol and length, or None for no code.
    #[inline(never)]
    fn long(&self, buf: u64) -> Option<(u32, u32)> {
        self.code.decode(buf.reverse_bits(), FAST_BITS + 1)
    }

    /// The first symbol at the reader (at least 15 bits there, or zeros) and its length,
    /// or None for no code.
    fn one(&self, buf: u64) -> Option<(u32, u32)> {
        let e = self.fast[(buf & MASK) as usize];
        if e & COUNT_MASK != 0 {
            let b = decode_table::first_symbol(e);
            Some((b, self.lit_len[b as usize] as u32))
        } else if e != 0 {
            Some((decode_table::first_symbol(e), e & LEN_MASK))
        } else {
            self.long(buf)
        }
    }

    /// One round of the hot loop, while 8 input bytes and `ROUND_OUT` output bytes
    /// remain: one refill, then four or five lookups of up to three literals each (all four bytes
    /// written whatever the count); a long literal is decoded in place and ends the
    /// round. False at the end, or at a symbol the careful loop must take (the literals
    /// before it done).
    #[inline(always)]
    fn round(&self, r: &mut Bits<'_>, out: &mut [u8], p: &mut usize) -> bool {
        let Some(window) = out.get_mut(*p..*p + ROUND_OUT) else {
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
            let e = fast[(buf & MASK) as usize];
            if e & COUNT_MASK == 0 {
                (r.buf, r.n) = (buf, n & LEN_MASK);
                *p += k;
                // A long literal (at least 20 bits are there); anything else (another
                // symbol, no code) is the careful loop's.
                if e != 0 {
                    return false;
                }
                return match self.long(buf) {
                    Some((sym, l)) if sym < 256 => {
                        if let Some(o) = window.get_mut(k) {
                            *o = sym as u8;
                        }
                        *p += 1;
                        r.skip(l);
                        true
                    }
                    _ => false,
                };
            }
            if let Some(o) = window.get_mut(k..k + 4) {
                o.copy_from_slice(&decode_table::literal_bytes(e));
            }
            k += decode_table::literals(e);
            // The shift takes the entry as it is: its length is its low six bits.
            buf = buf.wrapping_shr(e);
            n = n.wrapping_sub(e);
        }
        // A fifth lookup where the bits for one are left (codes of 8-10 bits leave them);
        // anything but literals waits for the next round.
        if n & LEN_MASK >= FAST_BITS {
            let e = fast[(buf & MASK) as usize];
            if e & COUNT_MASK != 0 {
                if let Some(o) = window.get_mut(k..k + 4) {
                    o.copy_from_slice(&decode_table::literal_bytes(e));
                }
                k += decode_table::literals(e);
                buf = buf.wrapping_shr(e);
                n = n.wrapping_sub(e);
            }
        }
        (r.buf, r.n) = (buf, n & LEN_MASK);
        *p += k;
        true
    }
}

/// Decodes one frame (`data`, exactly its bytes) into `out` (exactly its input length).
#[cfg(test)]
fn decode_frame(data: &[u8], out: &mut [u8]) -> Result<LiteralSpan> {
    decode_frames(&mut [(data, out)]).remove(0)
}

/// Where a frame's literals lie in its bits, as its decoder found them: what its index
/// entry (version 2 or 3) must say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiteralSpan {
    pub start: u64,
    pub end: u64,
}

impl LiteralSpan {
    /// Checks the span against a version-2 or -3 index entry's (where a GPU would start and end
    /// the frame's literals); an entry without one says nothing to check.
    pub(crate) fn check(self, code: Option<&super::gzip_index::FrameCode>) -> Result<()> {
        let Some(c) = code else {
            return Ok(());
        };
        let start = c.symbol_start as u64;
        let end = start + c.symbol_bits as u64;
        if (self.start, self.end) != (start, end) {
            return Err(corrupt(format!(
                "its literals lie at bits {}..{}, the index says {start}..{end} (a wrong \
                 index entry?)",
                self.start, self.end
            )));
        }
        Ok(())
    }
}

/// Decodes frames (each its bytes and its output, exactly its input length) on this
/// core, two at a time ([`lanes`]). Returns each frame's result, in order.
pub fn decode_frames(frames: &mut [(&[u8], &mut [u8])]) -> Vec<Result<LiteralSpan>> {
    let mut results: Vec<Result<LiteralSpan>> = frames
        .iter()
        .map(|_| Err(corrupt("a frame was not decoded")))
        .collect();
    let todo = frames.iter_mut().map(|(d, o)| (*d, &mut **o)).enumerate();
    let mut state = (todo, &mut results);
    lanes::two_lanes(
        &mut state,
        // The next frame whose header reads; each that does not has its error.
        |(todo, results)| {
            for (i, (data, out)) in todo.by_ref() {
                match Frame::start(i, data, out) {
                    Ok(f) => return Some(f),
                    Err(e) => results[i] = Err(e),
                }
            }
            None
        },
        |(_, results), (i, result)| results[i] = result,
    );
    results
}

/// A frame being decoded: its header read, its table built.
struct Frame<'a, 'o> {
    /// Its place among the frames decoded.
    index: usize,
    /// The bit where its literals start.
    start: u64,
    out: &'o mut [u8],
    bits: Bits<'a>,
    table: Table,
    /// Literals decoded.
    p: usize,
}

impl<'a, 'o> Frame<'a, 'o> {
    fn start(index: usize, data: &'a [u8], out: &'o mut [u8]) -> Result<Self> {
        let mut bits = Bits::new(data);
        let table = Table::new(&read_header(&mut bits)?)?;
        Ok(Frame {
            index,
            start: bits.pos(),
            out,
            bits,
            table,
            p: 0,
        })
    }
}

impl Lane for Frame<'_, '_> {
    type Done = (usize, Result<LiteralSpan>);

    #[inline(always)]
    fn round(&mut self) -> bool {
        self.table.round(&mut self.bits, self.out, &mut self.p)
    }

    fn finish(mut self) -> Self::Done {
        let r = finish(&self.table, &mut self.bits, self.start, self.out, self.p);
        (self.index, r)
    }
}

/// The careful end of a frame: literals `p..` one lookup at a time, every symbol
/// checked, then the end-of-block code, the empty stored block and the frame's end.
fn finish(
    table: &Table,
    bits: &mut Bits<'_>,
    start: u64,
    out: &mut [u8],
    mut p: usize,
) -> Result<LiteralSpan> {
    let len = out.len();
    while p < len {
        if bits.n < 32 {
            bits.refill();
        }
        let e = table.fast[(bits.buf & MASK) as usize];
        let count = decode_table::literals(e);
        if count > 0 && count <= len - p {
            // Every literal of the entry is one the frame still holds.
            if let Some(o) = out.get_mut(p..p + count) {
                o.copy_from_slice(&decode_table::literal_bytes(e)[..count]);
            }
            p += count;
            bits.skip(e & LEN_MASK);
            continue;
        }
        let (sym, l) = table
            .one(bits.buf)
            .ok_or_else(|| corrupt(format!("invalid code at literal {p} of the frame")))?;
        if sym > 255 {
            return Err(unexpected(sym, p, len));
        }
        out[p] = sym as u8;
        p += 1;
        bits.skip(l);
    }
    if bits.n < 32 {
        bits.refill();
    }
    let end = bits.pos();
    let (eob, l) = table
        .one(bits.buf)
        .ok_or_else(|| corrupt("invalid code after the frame's literals"))?;
    if eob != 256 {
        return Err(corrupt(format!(
            "symbol {eob} after the frame's {len} literals, expected end-of-block (a wrong index entry?)"
        )));
    }
    bits.skip(l);
    stored_block_end(bits)?;
    Ok(LiteralSpan { start, end })
}

/// The empty stored block after a frame's end-of-block (BFINAL = 0, BTYPE = 00, padding
/// to a byte, 00 00 ff ff), which must end the frame's bytes.
fn stored_block_end(bits: &mut Bits<'_>) -> Result<()> {
    if bits.take(3) != 0 {
        return Err(corrupt(
            "the frame's block is not followed by an empty stored block",
        ));
    }
    let pad = (8 - bits.pos() % 8) % 8;
    bits.take(pad as u32);
    let (lo, hi) = (bits.take(16), bits.take(16));
    if lo != 0 || hi != 0xffff {
        return Err(corrupt("the frame does not end with an empty stored block"));
    }
    if bits.pos() != bits.data.len() as u64 * 8 {
        return Err(corrupt(format!(
            "the frame's code ends at byte {} of its {} (a wrong index entry?)",
            bits.pos().div_ceil(8),
            bits.data.len()
        )));
    }
    Ok(())
}

fn unexpected(sym: u32, p: usize, len: usize) -> Error {
    corrupt(if sym == 256 {
        format!("end-of-block after {p} literals, the index says {len} (a wrong index entry?)")
    } else {
        format!("symbol {sym} at literal {p}: indexed frames hold literals only")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::huffman::chunk::encode_chunk_cpu;
    use crate::huffman::compress::Format;
    use crate::huffman::frames::FrameConfig;

    /// Frames of varied data (text, random, one repeated byte), with their input.
    fn frames() -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut data = Vec::new();
        let mut x = 7u64;
        for i in 0..(24 << 10) {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            data.push(match i >> 12 {
                0 | 3 => b"etaoin shrdlu"[(x >> 60) as usize % 13],
                1 => (x >> 56) as u8,
                2 => 9,
                _ => (x >> 62) as u8,
            });
        }
        let config = FrameConfig {
            cell_bytes: 4096,
            max_frame_bytes: 4096,
            fixed: true,
        };
        let coded = encode_chunk_cpu(&data, Format::Gzip, &config, 512).unwrap();
        let (mut at, mut from) = (0usize, 0usize);
        coded
            .spans
            .iter()
            .map(|s| {
                let f = coded.bytes[at..at + s.bytes as usize].to_vec();
                let input = data[from..from + s.len as usize].to_vec();
                at += s.bytes as usize;
                from += s.len as usize;
                (f, input)
            })
            .collect()
    }

    #[test]
    fn frames_decode_and_anything_else_is_an_error() {
        let frames = frames();
        assert_eq!(frames.len(), 6);
        for (i, (f, input)) in frames.iter().enumerate() {
            let mut out = vec![0u8; input.len()];
            decode_frame(f, &mut out).unwrap();
            assert!(&out == input, "frame {i}");
            let fails = |bytes: &[u8], len: usize| {
                let mut out = vec![0u8; len];
                decode_frame(bytes, &mut out).is_err()
            };
            let mut longer = f.clone();
            longer.push(0);
            assert!(fails(&longer, input.len()), "frame {i}: a byte after it");
            assert!(
                fails(&f[..f.len() - 1], input.len()),
                "frame {i}: a byte short"
            );
            assert!(fails(f, input.len() - 1), "frame {i}: one literal fewer");
            assert!(fails(f, input.len() + 1), "frame {i}: one literal more");
            let mut last = f.clone();
            last[0] |= 1;
            assert!(fails(&last, input.len()), "frame {i}: BFINAL set");
        }
    }

    #[test]
    fn frames_decode_two_at_a_time_each_with_its_own_result() {
        let frames = frames();
        for bad in 0..frames.len() {
            let mut bytes: Vec<Vec<u8>> = frames.iter().map(|(f, _)| f.clone()).collect();
            // Frame `bad` claims to be final: it alone fails.
            bytes[bad][0] |= 1;
            let mut outs: Vec<Vec<u8>> = frames.iter().map(|(_, i)| vec![0; i.len()]).collect();
            let mut jobs: Vec<(&[u8], &mut [u8])> = bytes
                .iter()
                .map(|b| &b[..])
                .zip(outs.iter_mut().map(|o| &mut o[..]))
                .collect();
            let results = decode_frames(&mut jobs);
            for (i, r) in results.iter().enumerate() {
                assert_eq!(r.is_err(), i == bad, "frame {i}, frame {bad} bad: {r:?}");
                if i != bad {
                    assert!(outs[i] == frames[i].1, "frame {i}");
                }
            }
        }
    }
}
