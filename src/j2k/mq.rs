//! The MQ arithmetic coder of JPEG 2000 (ISO/IEC 15444-1 Annex C), encoder and decoder.
//!
//! The encoder follows the standard's software conventions (C.2) and terminates a
//! segment the way OpenJPEG's `opj_mqc_flush` does (C.2.9 FLUSH, then a trailing 0xFF
//! is dropped), so its bytes equal OpenJPEG's for the same decisions. The decoder
//! (C.3) exists to prove the encoder: tests and the tier-1 decoder use it.

/// One row of the probability estimation table (Table C.2).
#[derive(Clone, Copy, Debug)]
pub struct QeEntry {
    /// Probability estimate of the less probable symbol, 16-bit fixed point.
    pub qe: u16,
    /// Next state after coding the more probable symbol.
    pub nmps: u8,
    /// Next state after coding the less probable symbol.
    pub nlps: u8,
    /// Whether coding the less probable symbol swaps the sense of MPS.
    pub switch: bool,
}

const fn e(qe: u16, nmps: u8, nlps: u8, switch: u8) -> QeEntry {
    QeEntry {
        qe,
        nmps,
        nlps,
        switch: switch == 1,
    }
}

/// Table C.2: the 47 states of the MQ coder's probability estimator.
#[rustfmt::skip]
pub const QE_TABLE: [QeEntry; 47] = [
    e(0x5601, 1, 1, 1),   e(0x3401, 2, 6, 0),   e(0x1801, 3, 9, 0),   e(0x0AC1, 4, 12, 0),
    e(0x0521, 5, 29, 0),  e(0x0221, 38, 33, 0), e(0x5601, 7, 6, 1),   e(0x5401, 8, 14, 0),
    e(0x4801, 9, 14, 0),  e(0x3801, 10, 14, 0), e(0x3001, 11, 17, 0), e(0x2401, 12, 18, 0),
    e(0x1C01, 13, 20, 0), e(0x1601, 29, 21, 0), e(0x5601, 15, 14, 1), e(0x5401, 16, 14, 0),
    e(0x5101, 17, 15, 0), e(0x4801, 18, 16, 0), e(0x3801, 19, 17, 0), e(0x3401, 20, 18, 0),
    e(0x3001, 21, 19, 0), e(0x2801, 22, 19, 0), e(0x2401, 23, 20, 0), e(0x2201, 24, 21, 0),
    e(0x1C01, 25, 22, 0), e(0x1801, 26, 23, 0), e(0x1601, 27, 24, 0), e(0x1401, 28, 25, 0),
    e(0x1201, 29, 26, 0), e(0x1101, 30, 27, 0), e(0x0AC1, 31, 28, 0), e(0x09C1, 32, 29, 0),
    e(0x08A1, 33, 30, 0), e(0x0521, 34, 31, 0), e(0x0441, 35, 32, 0), e(0x02A1, 36, 33, 0),
    e(0x0221, 37, 34, 0), e(0x0141, 38, 35, 0), e(0x0111, 39, 36, 0), e(0x0085, 40, 37, 0),
    e(0x0049, 41, 38, 0), e(0x0025, 42, 39, 0), e(0x0015, 43, 40, 0), e(0x0009, 44, 41, 0),
    e(0x0005, 45, 42, 0), e(0x0001, 45, 43, 0), e(0x5601, 46, 46, 0),
];

/// The adaptive state of one context: an index into [`QE_TABLE`] and the current MPS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Context {
    pub state: u8,
    pub mps: u8,
}

impl Context {
    pub const fn new(state: u8) -> Self {
        Context { state, mps: 0 }
    }

    #[inline]
    fn after_mps(&mut self) {
        self.state = QE_TABLE[self.state as usize].nmps;
    }

    #[inline]
    fn after_lps(&mut self) {
        let row = QE_TABLE[self.state as usize];
        if row.switch {
            self.mps ^= 1;
        }
        self.state = row.nlps;
    }
}

/// MQ encoder for one terminated segment (C.2). Contexts live outside it, so that
/// several segments of one code-block can share the adapted states.
///
/// `bytes` holds the segment's output; its last byte is the standard's register B,
/// which a carry may still increment. Before the first byte, B is the byte preceding
/// the segment; INITENC's CT = 12 makes a carry into it impossible, and the caller
/// guarantees it is not 0xFF (every terminated segment ends below 0xFF), so the
/// segment is coded as if B were a zero byte, exactly as OpenJPEG's restart does.
#[derive(Clone, Debug)]
pub struct MqEncoder {
    a: u32,
    c: u32,
    ct: u32,
    bytes: Vec<u8>,
}

impl Default for MqEncoder {
    fn default() -> Self {
        Self::new()
    }
}

impl MqEncoder {
    /// INITENC (C.2.8).
    pub fn new() -> Self {
        MqEncoder {
            a: 0x8000,
            c: 0,
            ct: 12,
            bytes: Vec::new(),
        }
    }

    /// Bytes emitted so far, including B (which a later carry may still change).
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// ENCODE (C.2.2): code decision `d` (0 or 1) in context `cx`.
    #[inline]
    pub fn encode(&mut self, cx: &mut Context, d: u32) {
        let qe = QE_TABLE[cx.state as usize].qe as u32;
        self.a -= qe;
        if d == cx.mps as u32 {
            // CODEMPS (C.2.5, figure C.6)
            if self.a & 0x8000 == 0 {
                if self.a < qe {
                    self.a = qe;
                } else {
                    self.c += qe;
                }
                cx.after_mps();
                self.renorm();
            } else {
                self.c += qe;
            }
        } else {
            // CODELPS (C.2.5, figure C.5)
            if self.a < qe {
                self.c += qe;
            } else {
                self.a = qe;
            }
            cx.after_lps();
            self.renorm();
        }
    }

    /// RENORME (figure C.7).
    #[inline]
    fn renorm(&mut self) {
        loop {
            self.a <<= 1;
            self.c <<= 1;
            self.ct -= 1;
            if self.ct == 0 {
                self.byte_out();
            }
            if self.a & 0x8000 != 0 {
                break;
            }
        }
    }

    /// BYTEOUT (figure C.8), with bit stuffing after 0xFF and carry propagation into B.
    fn byte_out(&mut self) {
        let b = self.bytes.last().copied().unwrap_or(0);
        if b == 0xFF {
            self.stuffed_out();
        } else if self.c & 0x800_0000 == 0 {
            self.plain_out();
        } else {
            // The carry goes into B. It cannot reach the virtual byte before the
            // segment (see the type's comment), so `bytes` is not empty here.
            if let Some(last) = self.bytes.last_mut() {
                *last += 1;
            }
            if self.bytes.last() == Some(&0xFF) {
                self.c &= 0x7FF_FFFF;
                self.stuffed_out();
            } else {
                self.plain_out();
            }
        }
    }

    #[inline]
    fn stuffed_out(&mut self) {
        self.bytes.push((self.c >> 20) as u8);
        self.c &= 0xF_FFFF;
        self.ct = 7;
    }

    #[inline]
    fn plain_out(&mut self) {
        self.bytes.push((self.c >> 19) as u8);
        self.c &= 0x7_FFFF;
        self.ct = 8;
    }

    /// FLUSH (C.2.9, figure C.11) as OpenJPEG's `opj_mqc_flush` does it: SETBITS, two
    /// byte-outs, and a final 0xFF is not part of the segment. Returns the segment's
    /// bytes, which never end in 0xFF.
    pub fn flush(mut self) -> Vec<u8> {
        // SETBITS (figure C.12)
        let temp = self.c + self.a;
        self.c |= 0xFFFF;
        if self.c >= temp {
            self.c -= 0x8000;
        }
        self.c <<= self.ct;
        self.byte_out();
        self.c <<= self.ct;
        self.byte_out();
        if self.bytes.last() == Some(&0xFF) {
            self.bytes.pop();
        }
        self.bytes
    }
}

/// MQ decoder (C.3) over one segment. Past the segment's end it reads 0xFF bytes, as if
/// a marker followed, which feeds 1-bits the way INITDEC/BYTEIN specify.
#[derive(Clone, Debug)]
pub struct MqDecoder<'a> {
    data: &'a [u8],
    pos: usize,
    a: u32,
    c: u32,
    ct: u32,
}

impl<'a> MqDecoder<'a> {
    /// INITDEC (C.3.5, figure C.20).
    pub fn new(data: &'a [u8]) -> Self {
        let mut d = MqDecoder {
            data,
            pos: 0,
            a: 0,
            c: 0,
            ct: 0,
        };
        d.c = (d.byte(0) as u32) << 16;
        d.byte_in();
        d.c <<= 7;
        d.ct -= 7;
        d.a = 0x8000;
        d
    }

    #[inline]
    fn byte(&self, i: usize) -> u8 {
        self.data.get(i).copied().unwrap_or(0xFF)
    }

    /// BYTEIN (figure C.19): after 0xFF, a byte above 0x8F is a marker (feed 1s and stay);
    /// otherwise it carries 7 bits.
    fn byte_in(&mut self) {
        if self.byte(self.pos) == 0xFF {
            let next = self.byte(self.pos + 1);
            if next > 0x8F {
                self.c += 0xFF00;
                self.ct = 8;
            } else {
                self.pos += 1;
                self.c += (next as u32) << 9;
                self.ct = 7;
            }
        } else {
            self.pos += 1;
            self.c += (self.byte(self.pos) as u32) << 8;
            self.ct = 8;
        }
    }

    /// DECODE (C.3.2, figures C.15-C.17).
    #[inline]
    pub fn decode(&mut self, cx: &mut Context) -> u32 {
        let qe = QE_TABLE[cx.state as usize].qe as u32;
        self.a -= qe;
        let d;
        if (self.c >> 16) < qe {
            // LPS_EXCHANGE
            if self.a < qe {
                d = cx.mps as u32;
                cx.after_mps();
            } else {
                d = 1 - cx.mps as u32;
                cx.after_lps();
            }
            self.a = qe;
            self.renorm();
        } else {
            self.c -= qe << 16;
            if self.a & 0x8000 == 0 {
                // MPS_EXCHANGE
                if self.a < qe {
                    d = 1 - cx.mps as u32;
                    cx.after_lps();
                } else {
                    d = cx.mps as u32;
                    cx.after_mps();
                }
                self.renorm();
            } else {
                d = cx.mps as u32;
            }
        }
        d
    }

    /// RENORMD (figure C.18).
    fn renorm(&mut self) {
        loop {
            if self.ct == 0 {
                self.byte_in();
            }
            self.a <<= 1;
            self.c <<= 1;
            self.ct -= 1;
            if self.a & 0x8000 != 0 {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ITU-T T.88 Annex H.2, the MQ coder's published test sequence (the same coder as
    /// ISO/IEC 15444-1 Annex C): 256 decisions in one context starting at state 0,
    /// MPS 0, packed MSB first.
    #[rustfmt::skip]
    const H2_DECISIONS: [u8; 32] = [
        0x00, 0x02, 0x00, 0x51, 0x00, 0x00, 0x00, 0xC0, 0x03, 0x52, 0x87, 0x2A, 0xAA, 0xAA, 0xAA, 0xAA,
        0x82, 0xC0, 0x20, 0x00, 0xFC, 0xD7, 0x9E, 0xF6, 0xBF, 0x7F, 0xED, 0x90, 0x4F, 0x46, 0xA3, 0xBF,
    ];
    /// Its coded bytes, up to the 0xFF that JBIG2 follows with the 0xAC of its
    /// terminating marker and that the JPEG 2000 flush drops.
    #[rustfmt::skip]
    const H2_CODED: [u8; 28] = [
        0x84, 0xC7, 0x3B, 0xFC, 0xE1, 0xA1, 0x43, 0x04, 0x02, 0x20, 0x00, 0x00, 0x41, 0x0D, 0xBB, 0x86,
        0xF4, 0x31, 0x7F, 0xFF, 0x88, 0xFF, 0x37, 0x47, 0x1A, 0xDB, 0x6A, 0xDF,
    ];

    fn h2_bits() -> impl Iterator<Item = u32> {
        H2_DECISIONS
            .iter()
            .flat_map(|&b| (0..8).rev().map(move |i| (b as u32 >> i) & 1))
    }

    #[test]
    fn encoder_matches_the_standard_test_sequence() {
        let mut enc = MqEncoder::new();
        let mut cx = Context::new(0);
        for d in h2_bits() {
            enc.encode(&mut cx, d);
        }
        assert_eq!(enc.flush(), H2_CODED);
    }

    #[test]
    fn decoder_matches_the_standard_test_sequence() {
        let mut dec = MqDecoder::new(&H2_CODED);
        let mut cx = Context::new(0);
        for (i, want) in h2_bits().enumerate() {
            assert_eq!(dec.decode(&mut cx), want, "decision {i}");
        }
    }

    #[test]
    fn round_trip_many_contexts() {
        let mut rng = crate::testdata::SplitMix64(7);
        for trial in 0..300 {
            let n = rng.below(3000) as usize;
            let skew = rng.below(100);
            let decisions: Vec<(usize, u32)> = (0..n)
                .map(|_| {
                    let cx = rng.below(19) as usize;
                    // Context-dependent bias so contexts adapt to different states.
                    let p = (skew + cx as u64 * 5) % 100;
                    (cx, (rng.below(100) < p) as u32)
                })
                .collect();
            let mut enc = MqEncoder::new();
            let mut cxs = [Context::new(0); 19];
            cxs[0] = Context::new(4);
            cxs[17] = Context::new(3);
            cxs[18] = Context::new(46);
            let start = cxs;
            for &(cx, d) in &decisions {
                enc.encode(&mut cxs[cx], d);
            }
            let bytes = enc.flush();
            assert_ne!(bytes.last(), Some(&0xFF));
            for w in bytes.windows(2) {
                assert!(!(w[0] == 0xFF && w[1] > 0x8F), "marker inside a segment");
            }
            let mut dec = MqDecoder::new(&bytes);
            let mut cxs = start;
            for (i, &(cx, d)) in decisions.iter().enumerate() {
                assert_eq!(dec.decode(&mut cxs[cx]), d, "trial {trial} decision {i}");
            }
        }
    }
}
