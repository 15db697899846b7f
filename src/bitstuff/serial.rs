//! The serial reference: one implementation of the rule, the incremental [`RawWriter`]
//! (OpenJPEG's `opj_mqc_bypass_enc` / `opj_mqc_bypass_flush_enc`, rewritten), and the
//! batch functions on top of it.

use rayon::prelude::*;

use super::{RawBits, Stuffed, Termination};
use crate::Result;

/// Writes raw bits one or several at a time, stuffing a 0 into the MSB of every byte that
/// follows 0xFF. A CPU tier-1 feeds it the SPP/MRP bits of one raw segment, reads
/// [`RawWriter::rate`] at pass ends that are not terminated, and calls
/// [`RawWriter::finish`] at the segment's end.
#[derive(Clone, Debug, Default)]
pub struct RawWriter {
    out: Vec<u8>,
    /// Bits of the current byte so far, right-aligned.
    byte: u32,
    /// Data bits the current byte still takes: 8, or 7 after 0xFF.
    free: u32,
    /// Whether any bit was written (OpenJPEG's `BYPASS_CT_INIT`): an empty segment
    /// writes nothing at all.
    started: bool,
}

impl RawWriter {
    pub fn new() -> Self {
        RawWriter {
            out: Vec::new(),
            byte: 0,
            free: 8,
            started: false,
        }
    }

    /// A writer that appends to `out` (whose last byte, if any, must not be 0xFF).
    pub fn with_buffer(out: Vec<u8>) -> Self {
        RawWriter {
            out,
            ..RawWriter::new()
        }
    }

    /// Write one bit (its low bit).
    #[inline]
    pub fn put_bit(&mut self, bit: u32) {
        self.put_bits(bit & 1, 1);
    }

    /// Write the low `n` bits of `value` (n <= 32), most significant first.
    #[inline]
    pub fn put_bits(&mut self, value: u32, n: u32) {
        debug_assert!(n <= 32);
        if n == 0 {
            return;
        }
        self.started = true;
        let mut n = n;
        // Complete bytes: each takes the bits it still has room for (8, or 7 after 0xFF).
        while n >= self.free {
            n -= self.free;
            let low = (value >> n) & ((1u32 << self.free) - 1);
            let b = ((self.byte << self.free) | low) as u8;
            self.out.push(b);
            self.free = if b == 0xFF { 7 } else { 8 };
            self.byte = 0;
        }
        if n > 0 {
            self.byte = (self.byte << n) | (value & ((1u32 << n) - 1));
            self.free -= n;
        }
    }

    /// Complete bytes written so far.
    pub fn len(&self) -> usize {
        self.out.len()
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty() && !self.started
    }

    /// Data bits waiting in the current, incomplete byte.
    fn pending(&self) -> u32 {
        let capacity = if self.out.last() == Some(&0xFF) { 7 } else { 8 };
        capacity - self.free
    }

    /// Whether terminating now writes one more byte (OpenJPEG's
    /// `opj_mqc_bypass_get_extra_bytes`).
    fn extra_byte(&self, term: Termination) -> bool {
        self.started
            && (self.pending() > 0
                || (term == Termination::Predictable && self.out.last() == Some(&0xFF)))
    }

    /// Bytes this segment counts if it were cut here without termination: complete bytes
    /// plus one for a byte in progress (OpenJPEG's rate of a pass that is not terminated,
    /// `opj_mqc_numbytes + opj_mqc_bypass_get_extra_bytes`).
    pub fn rate(&self, term: Termination) -> usize {
        self.out.len() + self.extra_byte(term) as usize
    }

    /// Terminate the segment and return its bytes (see the module docs of
    /// [`crate::bitstuff`] for the rules).
    pub fn finish(mut self, term: Termination) -> Vec<u8> {
        if !self.started {
            return self.out;
        }
        if self.extra_byte(term) {
            // Pad with 0, 1, 0, ...: the first pad bit is 0, so this byte is not 0xFF.
            let free = self.free;
            let pad = (0x55u32 >> (free & 1)) & ((1 << free) - 1);
            self.out.push(((self.byte << free) | pad) as u8);
        } else if self.out.last() == Some(&0xFF) {
            self.out.pop();
        } else if term == Termination::Plain && self.out.ends_with(&[0xFF, 0x7F]) {
            // Nothing pending and the last byte 0x7F is complete: it follows 0xFF, so it
            // holds 7 one bits, which the decoder reads past the end anyway.
            self.out.truncate(self.out.len() - 2);
        }
        self.out
    }
}

/// Stuff and terminate one segment: the first `bits` bits of `data`, MSB-first.
pub fn stuff(raw: RawBits<'_>, term: Termination) -> Result<Vec<u8>> {
    raw.check(0, u64::MAX)?;
    Ok(stuff_unchecked(raw, term))
}

fn stuff_unchecked(raw: RawBits<'_>, term: Termination) -> Vec<u8> {
    let mut w = RawWriter::with_buffer(Vec::with_capacity(
        super::max_stuffed_bytes(raw.bits) as usize
    ));
    let whole = (raw.bits / 8) as usize;
    for &b in &raw.data[..whole] {
        w.put_bits(b as u32, 8);
    }
    let rest = (raw.bits % 8) as u32;
    if rest > 0 {
        w.put_bits(raw.data[whole] as u32 >> (8 - rest), rest);
    }
    w.finish(term)
}

fn check_all(segments: &[RawBits<'_>]) -> Result<()> {
    segments
        .iter()
        .enumerate()
        .try_for_each(|(i, s)| s.check(i, u64::MAX))
}

fn concat(parts: impl IntoIterator<Item = Vec<u8>>) -> Stuffed {
    let mut out = Stuffed {
        bytes: Vec::new(),
        offsets: vec![0],
    };
    for p in parts {
        out.bytes.extend_from_slice(&p);
        out.offsets.push(out.bytes.len());
    }
    out
}

/// Every segment of a batch, one after another on one core.
pub fn stuff_batch(segments: &[RawBits<'_>], term: Termination) -> Result<Stuffed> {
    check_all(segments)?;
    Ok(concat(segments.iter().map(|s| stuff_unchecked(*s, term))))
}

/// Every segment of a batch, spread over all cores (rayon).
pub fn stuff_batch_par(segments: &[RawBits<'_>], term: Termination) -> Result<Stuffed> {
    check_all(segments)?;
    let parts: Vec<Vec<u8>> = segments
        .par_iter()
        .map(|s| stuff_unchecked(*s, term))
        .collect();
    Ok(concat(parts))
}

/// Read `bits` raw bits back from a stuffed segment the way OpenJPEG's decoder does
/// (`opj_mqc_raw_decode`): the segment is followed by 0xFF 0xFF, a byte after 0xFF gives
/// 7 bits unless it exceeds 0x8F (a marker: then 1 bits for ever). Returns the bits
/// MSB-first, the last byte zero-filled. The judge of termination in tests.
pub fn unstuff(segment: &[u8], bits: u64) -> Vec<u8> {
    let mut out = vec![0u8; bits.div_ceil(8) as usize];
    let byte_at = |i: usize| segment.get(i).copied().unwrap_or(0xFF);
    let (mut at, mut c, mut ct) = (0usize, 0u32, 0u32);
    for i in 0..bits {
        if ct == 0 {
            if c == 0xFF {
                if byte_at(at) > 0x8F {
                    ct = 8;
                } else {
                    c = byte_at(at) as u32;
                    at += 1;
                    ct = 7;
                }
            } else {
                c = byte_at(at) as u32;
                at += 1;
                ct = 8;
            }
        }
        ct -= 1;
        if (c >> ct) & 1 == 1 {
            out[(i / 8) as usize] |= 0x80 >> (i % 8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(s: &str) -> (Vec<u8>, u64) {
        let s: Vec<u8> = s.bytes().filter(|c| *c == b'0' || *c == b'1').collect();
        let mut data = vec![0u8; s.len().div_ceil(8)];
        for (i, c) in s.iter().enumerate() {
            if *c == b'1' {
                data[i / 8] |= 0x80 >> (i % 8);
            }
        }
        (data, s.len() as u64)
    }

    fn plain(s: &str) -> Vec<u8> {
        let (d, n) = bits(s);
        stuff(RawBits { data: &d, bits: n }, Termination::Plain).unwrap()
    }

    fn pterm(s: &str) -> Vec<u8> {
        let (d, n) = bits(s);
        stuff(RawBits { data: &d, bits: n }, Termination::Predictable).unwrap()
    }

    #[test]
    fn empty_segment_writes_nothing() {
        assert_eq!(plain(""), Vec::<u8>::new());
        assert_eq!(pterm(""), Vec::<u8>::new());
    }

    #[test]
    fn whole_bytes_pass_through() {
        assert_eq!(plain("11001101 00000000"), vec![0xCD, 0x00]);
    }

    #[test]
    fn partial_byte_is_padded_with_0101() {
        // 1 bit pending: 1 then 0101010.
        assert_eq!(plain("1"), vec![0b1010_1010]);
        assert_eq!(plain("0"), vec![0b0010_1010]);
        // 3 bits pending: 111 then 01010.
        assert_eq!(plain("111"), vec![0b1110_1010]);
        // 7 ones: 1111111 then 0, not 0xFF.
        assert_eq!(plain("1111111"), vec![0xFE]);
        assert_eq!(plain("10110011 011"), vec![0xB3, 0b0110_1010]);
    }

    #[test]
    fn byte_after_ff_gets_a_zero_msb() {
        // FF, then 7 data bits 1010101 behind a stuffed 0, then 8 more bits.
        assert_eq!(
            plain("11111111 1010101 11001100"),
            vec![0xFF, 0b0101_0101, 0xCC]
        );
        // The paper's figure 2: stuffing shifts the rest right by one.
        assert_eq!(
            plain("11001101 11111111 11111111 11001101 11111110 1100"),
            vec![
                0b1100_1101,
                0xFF,
                0b0111_1111,
                0b1110_0110,
                0b1111_1111,
                0b0011_0001, // stuffed 0, data 01100, pad 01
            ]
        );
    }

    #[test]
    fn stuffed_7f_is_not_ff_so_no_second_stuff() {
        // FF then 7 ones -> 0x7F; the next byte takes 8 bits again.
        assert_eq!(
            plain("11111111 1111111 11111111 0"),
            vec![0xFF, 0x7F, 0xFF, 0b0001_0101]
        );
    }

    #[test]
    fn final_ff_is_dropped() {
        assert_eq!(plain("11111111"), Vec::<u8>::new());
        assert_eq!(plain("00000001 11111111"), vec![0x01]);
        // ... unless PTERM: then FF is followed by a stuffed 0 + 0101010.
        assert_eq!(pterm("11111111"), vec![0xFF, 0x2A]);
        assert_eq!(pterm("00000001 11111111"), vec![0x01, 0xFF, 0x2A]);
    }

    #[test]
    fn final_ff_7f_is_dropped() {
        assert_eq!(plain("00010000 11111111 1111111"), vec![0x10]);
        assert_eq!(plain("11111111 1111111"), Vec::<u8>::new());
        // PTERM keeps them (nothing pending after 0x7F, so nothing more).
        assert_eq!(pterm("11111111 1111111"), vec![0xFF, 0x7F]);
        // Only once: FF 7F FF 7F loses the last pair only.
        assert_eq!(plain("11111111 1111111 11111111 1111111"), vec![0xFF, 0x7F]);
        // An unstuffed 0x7F is kept.
        assert_eq!(plain("01111111"), vec![0x7F]);
    }

    #[test]
    fn pending_bits_after_ff_are_padded() {
        // FF, then 1 data bit after the stuffed 0: 0 1 010101.
        assert_eq!(plain("11111111 1"), vec![0xFF, 0b0101_0101]);
        assert_eq!(pterm("11111111 1"), vec![0xFF, 0b0101_0101]);
        // 6 data bits after FF: 0 111111 0.
        assert_eq!(plain("11111111 111111"), vec![0xFF, 0x7E]);
    }

    #[test]
    fn rate_counts_a_byte_in_progress() {
        let mut w = RawWriter::new();
        assert_eq!(w.rate(Termination::Plain), 0);
        w.put_bits(0xFF, 8);
        assert_eq!(w.rate(Termination::Plain), 1);
        assert_eq!(w.rate(Termination::Predictable), 2);
        w.put_bit(1);
        assert_eq!(w.rate(Termination::Plain), 2);
        w.put_bits(0b111111, 6);
        assert_eq!(w.len(), 2);
        assert_eq!(w.rate(Termination::Plain), 2);
        assert_eq!(w.finish(Termination::Plain), Vec::<u8>::new());
    }

    #[test]
    fn bit_at_a_time_equals_batch() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for len in 0..200u64 {
            let mut data = vec![0u8; (len as usize).div_ceil(8)];
            for b in &mut data {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Mostly ones, so 0xFF runs are common.
                *b = if x.is_multiple_of(3) { x as u8 } else { 0xFF };
            }
            let mut w = RawWriter::new();
            for i in 0..len {
                w.put_bit((data[(i / 8) as usize] >> (7 - i % 8)) as u32);
            }
            let raw = RawBits {
                data: &data,
                bits: len,
            };
            assert_eq!(
                w.finish(Termination::Plain),
                stuff(raw, Termination::Plain).unwrap()
            );
        }
    }

    #[test]
    fn openjpeg_reads_back_every_termination() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for len in 0..400u64 {
            for density in [0u64, 2, 8] {
                let mut data = vec![0u8; (len as usize).div_ceil(8)];
                for b in &mut data {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    *b = if x % 10 < density { x as u8 } else { 0xFF };
                }
                // Bits past the segment are zero, as unstuff returns them.
                if !len.is_multiple_of(8) {
                    *data.last_mut().unwrap() &= 0xFFu8 << (8 - len % 8);
                }
                let raw = RawBits {
                    data: &data,
                    bits: len,
                };
                for term in [Termination::Plain, Termination::Predictable] {
                    let s = stuff(raw, term).unwrap();
                    assert_ne!(s.last(), Some(&0xFF), "len {len}: ends on 0xFF");
                    for w in s.windows(2) {
                        assert!(w[0] != 0xFF || w[1] < 0x80, "len {len}: {s:02x?}");
                    }
                    assert_eq!(unstuff(&s, len), data, "len {len} {term:?}: {s:02x?}");
                }
            }
        }
    }

    #[test]
    fn bad_input_is_named() {
        let e = stuff(
            RawBits {
                data: &[0u8; 2],
                bits: 17,
            },
            Termination::Plain,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("bit count 17 exceeds its data (2 bytes"), "{e}");
        let d = [0u8; 4];
        let segs = [RawBits::bytes(&d), RawBits { data: &d, bits: 33 }];
        let e = stuff_batch(&segs, Termination::Plain)
            .unwrap_err()
            .to_string();
        assert!(e.contains("raw segment 1"), "{e}");
    }
}
