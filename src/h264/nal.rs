//! NAL units in the Annex B byte stream: start codes, the one-byte NAL header and
//! emulation prevention (clause 7.4.1), and RBSP trailing bits.

use crate::bits::MsbWriter;

pub const NAL_SLICE_IDR: u8 = 5;
pub const NAL_SPS: u8 = 7;
pub const NAL_PPS: u8 = 8;

/// Append `rbsp` to `out` with emulation prevention: a 0x03 byte after any two zero bytes
/// that a byte 0x00..=0x03 would follow, and after a trailing zero byte. Stretches of 32
/// bytes without a zero go out whole: a 1080p picture's slices are most of a megabyte,
/// and a byte at a time took milliseconds of a coder's thread per picture.
pub fn escape(rbsp: &[u8], out: &mut Vec<u8>) {
    out.reserve(rbsp.len() + rbsp.len() / 64 + 1);
    let mut zeros = 0;
    let mut i = 0;
    while i < rbsp.len() {
        if zeros < 2 {
            // (After two zeros even a nonzero byte may need the escape: one at a time.)
            let clear = rbsp[i..]
                .chunks_exact(32)
                .take_while(|c| !c.contains(&0))
                .count()
                * 32;
            if clear > 0 {
                out.extend_from_slice(&rbsp[i..i + clear]);
                i += clear;
                zeros = 0;
                continue;
            }
        }
        let b = rbsp[i];
        if zeros >= 2 && b <= 3 {
            out.push(3);
            zeros = 0;
        }
        out.push(b);
        zeros = if b == 0 { zeros + 1 } else { 0 };
        i += 1;
    }
    if rbsp.last() == Some(&0) {
        out.push(3);
    }
}

/// The inverse of [`escape`] (what a decoder does): drop each 0x03 that follows two zeros.
pub fn unescape(ebsp: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ebsp.len());
    let mut zeros = 0;
    for &b in ebsp {
        if zeros >= 2 && b == 3 {
            zeros = 0;
            continue;
        }
        out.push(b);
        zeros = if b == 0 { zeros + 1 } else { 0 };
    }
    out
}

/// One NAL unit in Annex B form: a 4-byte start code, the header, the escaped payload.
pub fn write_nal(out: &mut Vec<u8>, nal_ref_idc: u8, nal_unit_type: u8, rbsp: &[u8]) {
    out.extend_from_slice(&[0, 0, 0, 1, (nal_ref_idc & 3) << 5 | (nal_unit_type & 31)]);
    escape(rbsp, out);
}

/// rbsp_trailing_bits(): a one, then zeros to the byte boundary.
pub fn trailing_bits(w: &mut MsbWriter) {
    w.put(1, 1);
    let pad = (8 - w.bit_len() % 8) % 8;
    w.put(0, pad as u32);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulation_prevention_patterns() {
        let cases: &[(&[u8], &[u8])] = &[
            (&[0, 0, 0], &[0, 0, 3, 0, 3]),
            (&[0, 0, 1], &[0, 0, 3, 1]),
            (&[0, 0, 2], &[0, 0, 3, 2]),
            (&[0, 0, 3], &[0, 0, 3, 3]),
            (&[0, 0, 4], &[0, 0, 4]),
            (&[0, 0, 0, 0, 0, 1], &[0, 0, 3, 0, 0, 3, 0, 1]),
            (&[1, 0, 0, 3, 0, 0, 2, 7], &[1, 0, 0, 3, 3, 0, 0, 3, 2, 7]),
            (&[0, 1, 0, 2], &[0, 1, 0, 2]),
            (&[5, 0], &[5, 0, 3]),
            (&[0, 0], &[0, 0, 3]),
        ];
        for (rbsp, want) in cases {
            let mut out = Vec::new();
            escape(rbsp, &mut out);
            assert_eq!(&out, want, "{rbsp:?}");
            // No start-code prefix (or 0x000000/0x000003 without its escape) survives.
            for w in out.windows(3) {
                assert!(!(w[0] == 0 && w[1] == 0 && w[2] <= 2), "{out:?}");
            }
            if rbsp.last() != Some(&0) {
                assert_eq!(&unescape(&out), rbsp);
            }
        }
        // Random bytes rich in zeros round-trip.
        let mut s = 7u32;
        let data: Vec<u8> = (0..20_000)
            .map(|_| {
                s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                if s >> 30 == 0 {
                    (s >> 20) as u8 & 3
                } else {
                    0
                }
            })
            .chain([1])
            .collect();
        let mut out = Vec::new();
        escape(&data, &mut out);
        assert_eq!(unescape(&out), data);
        assert_eq!(out, escape_bytewise(&data));
        // Long stretches without zeros between the patterns, at every alignment.
        for gap in [0usize, 1, 31, 32, 33, 64, 95] {
            let mut data = Vec::new();
            for (k, pattern) in [&[0u8, 0, 1][..], &[0, 0, 0, 0], &[0, 0, 3, 0], &[7, 0, 0]]
                .iter()
                .cycle()
                .take(40)
                .enumerate()
            {
                data.extend((0..gap + k % 5).map(|j| 1 + (j % 250) as u8));
                data.extend_from_slice(pattern);
            }
            let mut out = Vec::new();
            escape(&data, &mut out);
            assert_eq!(out, escape_bytewise(&data), "gap {gap}");
        }
        for w in out.windows(3) {
            assert!(!(w[0] == 0 && w[1] == 0 && w[2] <= 2));
        }
    }

    /// [`escape`] a byte at a time, the rule as clause 7.4.1 states it.
    fn escape_bytewise(rbsp: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut zeros = 0;
        for &b in rbsp {
            if zeros >= 2 && b <= 3 {
                out.push(3);
                zeros = 0;
            }
            out.push(b);
            zeros = if b == 0 { zeros + 1 } else { 0 };
        }
        if rbsp.last() == Some(&0) {
            out.push(3);
        }
        out
    }

    #[test]
    fn nal_header_and_trailing_bits() {
        let mut w = MsbWriter::new();
        w.put(0b101, 3);
        trailing_bits(&mut w);
        assert_eq!(w.as_bytes(), &[0b1011_0000]);
        let mut w = MsbWriter::new();
        w.put(0xAB, 8);
        trailing_bits(&mut w);
        assert_eq!(w.as_bytes(), &[0xAB, 0x80]);
        let mut out = Vec::new();
        write_nal(&mut out, 3, NAL_SPS, &[0x42]);
        assert_eq!(out, [0, 0, 0, 1, 0x67, 0x42]);
    }
}
