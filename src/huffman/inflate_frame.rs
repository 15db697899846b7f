//! A strict decoder for one frame of our gzip output ([`super::framing`]): a dynamic
//! DEFLATE block (BFINAL = 0) of exactly `len` literals and its end-of-block code, then
//! an empty stored block (`00 00 ff ff`) that ends the frame's bytes exactly. It accepts
//! only that shape, so what it outputs is what any inflate makes of the same bytes;
//! anything else (a match, a final block, a frame that runs short or long) is an error.
//! Table-driven: 11 bits per lookup yield one or two literals.

use super::Codebook;
use crate::{Error, Result};

/// Bits looked up at once.
const TABLE_BITS: u32 = 11;
const MASK: u64 = (1 << TABLE_BITS) - 1;
/// Entry kinds, in bits 21..23: a code longer than the table (slow path), one literal,
/// two literals, one other symbol (end-of-block or a length code) in bits 0..9. Bits
/// 16..21 hold the bits the entry consumes; a pair keeps its first literal's length in
/// bits 24.. (for a pair that straddles the frame's end).
const SLOW: u32 = 0;
const ONE: u32 = 1;
const TWO: u32 = 2;
const OTHER: u32 = 3;

/// Order of the code-length code lengths (RFC 1951 3.2.7).
const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

fn corrupt(reason: impl Into<String>) -> Error {
    Error::corrupt("gzip", reason.into())
}

/// LSB-first bits of a byte slice; reads past the end see zeros, and [`Bits::pos`]
/// then exceeds the slice, which the caller checks at the end.
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

    /// At least 56 bits in the buffer (zeros past the end).
    #[inline(always)]
    fn refill(&mut self) {
        if let Some(w) = self.data.get(self.at..self.at + 8) {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            self.buf |= u64::from_le_bytes(a) << self.n;
            let added = (63 - self.n) / 8;
            self.at += added as usize;
            self.n += added * 8;
        } else {
            while self.n <= 56 {
                let b = self.data.get(self.at).copied().unwrap_or(0);
                self.buf |= (b as u64) << self.n;
                self.at += 1;
                self.n += 8;
            }
        }
    }

    #[inline(always)]
    fn take(&mut self, k: u32) -> u32 {
        if self.n < k {
            self.refill();
        }
        let v = (self.buf & ((1u64 << k) - 1)) as u32;
        self.buf >>= k;
        self.n -= k;
        v
    }

    /// Bit position of the next unread bit (past the slice if zeros were read).
    fn pos(&self) -> u64 {
        self.at as u64 * 8 - self.n as u64
    }
}

/// Canonical decoding of a small code (the header's codes), one bit at a time.
struct SlowCode {
    /// Per length: first code, count, index of its first symbol in `sorted`.
    first: [u32; 16],
    count: [u32; 16],
    index: [usize; 16],
    sorted: Vec<u16>,
}

impl SlowCode {
    fn new(lengths: &[u8], what: &str) -> Result<SlowCode> {
        Codebook::from_lengths(lengths).map_err(|e| corrupt(format!("{what}: {e}")))?;
        let mut count = [0u32; 16];
        for &l in lengths {
            if l > 15 {
                return Err(corrupt(format!("{what}: a code of {l} bits")));
            }
            count[l as usize] += 1;
        }
        count[0] = 0;
        let (mut first, mut index) = ([0u32; 16], [0usize; 16]);
        let (mut code, mut idx) = (0u32, 0usize);
        for l in 1..16 {
            code = (code + count[l - 1]) << 1;
            first[l] = code;
            index[l] = idx;
            idx += count[l] as usize;
        }
        let mut sorted = vec![0u16; idx];
        let mut fill = index;
        for (s, &l) in lengths.iter().enumerate() {
            if l > 0 {
                sorted[fill[l as usize]] = s as u16;
                fill[l as usize] += 1;
            }
        }
        Ok(SlowCode {
            first,
            count,
            index,
            sorted,
        })
    }

    /// Decodes a code longer than the lookup table from the buffer's low bits (at least
    /// 15 valid); returns the symbol and its length.
    #[inline(never)]
    fn decode_long(&self, buf: u64) -> Option<(u16, u32)> {
        // The next 15 stream bits, first bit highest: canonical codes compare as numbers.
        let msb = ((buf as u32) & 0x7fff).reverse_bits() >> 17;
        for l in (TABLE_BITS as usize + 1)..16 {
            let code = msb >> (15 - l);
            if code >= self.first[l] && code - self.first[l] < self.count[l] {
                let s = self
                    .sorted
                    .get(self.index[l] + (code - self.first[l]) as usize)?;
                return Some((*s, l as u32));
            }
        }
        None
    }

    fn decode(&self, bits: &mut Bits<'_>) -> Option<u16> {
        let mut code = 0u32;
        for l in 1..16 {
            code = (code << 1) | bits.take(1);
            if code >= self.first[l] && code - self.first[l] < self.count[l] {
                return self
                    .sorted
                    .get(self.index[l] + (code - self.first[l]) as usize)
                    .copied();
            }
        }
        None
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
    let cl = SlowCode::new(&cl, "code-length code")?;
    let mut lengths = Vec::with_capacity(hlit + hdist);
    while lengths.len() < hlit + hdist {
        let sym = cl
            .decode(bits)
            .ok_or_else(|| corrupt("invalid code in the code lengths"))?;
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
    SlowCode::new(&lengths[hlit..], "distance code")?;
    lengths.truncate(hlit);
    if lengths[256] == 0 {
        return Err(corrupt("the end-of-block symbol has no code"));
    }
    Ok(lengths)
}

/// The lookup table for a literal/length code: `TABLE_BITS` of stream bits (LSB first)
/// give one or two literals, one other symbol, or "slow" for longer codes.
struct Table {
    entries: Vec<u32>,
    slow: SlowCode,
}

fn reverse(code: u32, len: u32) -> u32 {
    code.reverse_bits() >> (32 - len)
}

impl Table {
    fn new(lengths: &[u8]) -> Result<Table> {
        let book =
            Codebook::from_lengths(lengths).map_err(|e| corrupt(format!("literal code: {e}")))?;
        let kraft: u64 = lengths
            .iter()
            .filter(|&&l| l > 0)
            .map(|&l| 1u64 << (15 - l))
            .sum();
        if kraft != 1 << 15 {
            return Err(corrupt("the literal/length code is incomplete"));
        }
        let slow = SlowCode::new(lengths, "literal code")?;
        // One symbol per entry first.
        let mut single = vec![SLOW << 21; 1 << TABLE_BITS];
        for (s, &l) in lengths.iter().enumerate() {
            let l = l as u32;
            if l == 0 || l > TABLE_BITS {
                continue;
            }
            let kind = if s < 256 { ONE } else { OTHER };
            let entry = (kind << 21) | (l << 16) | s as u32;
            let mut i = reverse(book.codes()[s], l) as usize;
            while i < single.len() {
                single[i] = entry;
                i += 1 << l;
            }
        }
        // Then a second literal where the first leaves room for its whole code.
        let entries = single
            .iter()
            .enumerate()
            .map(|(i, &e)| {
                if e >> 21 != ONE {
                    return e;
                }
                let l1 = (e >> 16) & 31;
                let e2 = single[i >> l1];
                let l2 = (e2 >> 16) & 31;
                if e2 >> 21 == ONE && l1 + l2 <= TABLE_BITS {
                    (l1 << 24) | (TWO << 21) | ((l1 + l2) << 16) | ((e2 & 0xff) << 8) | (e & 0xff)
                } else {
                    e
                }
            })
            .collect();
        Ok(Table { entries, slow })
    }
}

/// The hot loop: literals while two more fit in `out`, one table lookup each (one or
/// two literals), both bytes written whatever the count; stops at the first entry of
/// another kind (a long code, end-of-block) for the careful loop to handle. Returns the
/// literals decoded.
#[inline(always)]
fn fast_literals(table: &Table, bits: &mut Bits<'_>, out: &mut [u8]) -> usize {
    let entries = &table.entries[..1 << TABLE_BITS];
    let mut p = 0usize;
    let end = out.len().saturating_sub(3);
    while p < end {
        if bits.n < 32 {
            bits.refill();
        }
        let e = entries[(bits.buf & MASK) as usize];
        let kind = (e >> 21) & 3;
        if kind == SLOW || kind == OTHER {
            // A long literal is decoded here; anything else is the careful loop's.
            if kind == OTHER {
                break;
            }
            match table.slow.decode_long(bits.buf) {
                Some((sym, l)) if sym < 256 => {
                    out[p] = sym as u8;
                    p += 1;
                    bits.buf >>= l;
                    bits.n -= l;
                    continue;
                }
                _ => break,
            }
        }
        let l = (e >> 16) & 31;
        out[p] = e as u8;
        out[p + 1] = (e >> 8) as u8;
        p += kind as usize;
        bits.buf >>= l;
        bits.n -= l;
        // A second lookup on the same refill when its (at most 22) bits are there.
        if bits.n >= 22 {
            let e = entries[(bits.buf & MASK) as usize];
            let kind = (e >> 21) & 3;
            if kind == ONE || kind == TWO {
                let l = (e >> 16) & 31;
                out[p] = e as u8;
                out[p + 1] = (e >> 8) as u8;
                p += kind as usize;
                bits.buf >>= l;
                bits.n -= l;
            }
        }
    }
    p
}

/// Decodes one frame (`data`, exactly its bytes) into `out` (exactly its input length).
pub fn decode_frame(data: &[u8], out: &mut [u8]) -> Result<()> {
    let mut bits = Bits::new(data);
    let lengths = read_header(&mut bits)?;
    let table = Table::new(&lengths)?;
    let len = out.len();
    let mut p = fast_literals(&table, &mut bits, out);
    while p < len {
        if bits.n < 32 {
            bits.refill();
        }
        let e = table.entries[(bits.buf & MASK) as usize];
        let l = (e >> 16) & 31;
        match (e >> 21) & 3 {
            TWO if p + 1 < len => {
                out[p] = e as u8;
                out[p + 1] = (e >> 8) as u8;
                p += 2;
            }
            ONE | TWO => {
                out[p] = e as u8;
                p += 1;
                // A pair at the last byte: take only the first literal's bits.
                let l = if (e >> 21) & 3 == TWO { e >> 24 } else { l };
                bits.buf >>= l;
                bits.n -= l;
                continue;
            }
            OTHER => return Err(unexpected(e & 0x1ff, p, len)),
            _ => {
                let (sym, l) = table
                    .slow
                    .decode_long(bits.buf)
                    .ok_or_else(|| corrupt(format!("invalid code at literal {p} of the frame")))?;
                if sym > 255 {
                    return Err(unexpected(sym as u32, p, len));
                }
                out[p] = sym as u8;
                p += 1;
                bits.buf >>= l;
                bits.n -= l;
                continue;
            }
        }
        bits.buf >>= l;
        bits.n -= l;
    }
    let eob = table
        .slow
        .decode(&mut bits)
        .ok_or_else(|| corrupt("invalid code after the frame's literals"))?;
    if eob != 256 {
        return Err(corrupt(format!(
            "symbol {eob} after the frame's {len} literals, expected end-of-block (a wrong index entry?)"
        )));
    }
    // The empty stored block: BFINAL = 0, BTYPE = 00, padding to a byte, 00 00 ff ff.
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
    if bits.pos() != data.len() as u64 * 8 {
        return Err(corrupt(format!(
            "the frame's code ends at byte {} of its {} (a wrong index entry?)",
            bits.pos().div_ceil(8),
            data.len()
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
}
