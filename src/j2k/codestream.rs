//! The codestream's markers (ITU-T T.800 Annex A): SOC, SIZ, COD, QCD, one tile-part
//! (SOT, SOD, its packets) and EOC; for HT code-blocks (T.814) also CAP after SIZ.

use crate::{Error, Result};

/// Everything the main header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub width: u32,
    pub height: u32,
    pub components: u32,
    /// Unsigned bits per sample, 1..=16.
    pub bit_depth: u32,
    /// Decomposition levels, 0..=32.
    pub levels: u32,
    /// log2 of the code-block width and height (2..=10, and their sum at most 12).
    pub cblk_exp: u32,
    /// Code-block style byte of COD (0x01: selective arithmetic coding bypass).
    pub cblk_style: u8,
    /// Guard bits, 0..=7.
    pub guard_bits: u32,
    /// HT code-blocks (Part 15): Rsiz bit 14 and a CAP marker say so (the style bit
    /// 0x40 is the caller's, in `cblk_style`).
    pub ht: bool,
}

impl Header {
    /// Number of subbands, as QCD lists their exponents.
    pub fn bands(&self) -> usize {
        3 * self.levels as usize + 1
    }
}

const SOC: u16 = 0xFF4F;
const SIZ: u16 = 0xFF51;
const CAP: u16 = 0xFF50;
const COD: u16 = 0xFF52;
const QCD: u16 = 0xFF5C;
const SOT: u16 = 0xFF90;
const SOD: u16 = 0xFF93;
const EOC: u16 = 0xFFD9;

fn u16be(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

fn u32be(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// The whole codestream: main header, one tile-part holding `tile_data` (the packets in
/// order), EOC. `exponents` are the QCD exponents epsilon_b in codestream band order.
pub fn write(h: &Header, exponents: &[u32], tile_data: &[u8]) -> Result<Vec<u8>> {
    write_pieces(h, exponents, &[tile_data])
}

/// [`write()`] of tile data given as pieces in order (packet headers and code-block bytes),
/// each copied once into a codestream allocated at its final size.
pub fn write_pieces(h: &Header, exponents: &[u32], pieces: &[&[u8]]) -> Result<Vec<u8>> {
    let tile_len: usize = pieces.iter().map(|p| p.len()).sum();
    if exponents.len() != h.bands() || exponents.iter().any(|&e| e > 31) {
        return Err(Error::InvalidArgument(format!(
            "QCD needs {} exponents of 5 bits, got {exponents:?}",
            h.bands()
        )));
    }
    if h.guard_bits > 7 {
        return Err(Error::InvalidArgument(format!(
            "{} guard bits do not fit QCD's 3 bits",
            h.guard_bits
        )));
    }
    let mut out = Vec::with_capacity(128 + exponents.len());
    u16be(&mut out, SOC);

    // SIZ: one tile as large as the image, all at the origin, no subsampling.
    u16be(&mut out, SIZ);
    u16be(&mut out, (38 + 3 * h.components) as u16);
    // Rsiz: no profile restrictions claimed; bit 14: Part 15 capabilities (in CAP).
    u16be(&mut out, if h.ht { 0x4000 } else { 0 });
    for v in [h.width, h.height, 0, 0, h.width, h.height, 0, 0] {
        u32be(&mut out, v);
    }
    u16be(&mut out, h.components as u16);
    for _ in 0..h.components {
        out.extend_from_slice(&[(h.bit_depth - 1) as u8, 1, 1]); // unsigned, XRsiz, YRsiz
    }

    if h.ht {
        // CAP: Pcap with only Part 15's bit (the 15th from the top), then Ccap15: all
        // blocks HT, one HT set each, no ROI, homogeneous, reversible, and in its low 5
        // bits the largest magnitude bit-plane count B (over 8: B - 8; from 28: 13 + B/4).
        let b = h.guard_bits + exponents.iter().copied().max().unwrap_or(0) - 1;
        let b_code = match b {
            0..=8 => 0,
            9..=27 => b - 8,
            _ => 13 + (b >> 2),
        };
        u16be(&mut out, CAP);
        u16be(&mut out, 8);
        u32be(&mut out, 1 << (32 - 15));
        u16be(&mut out, b_code.min(31) as u16);
    }

    // COD: default precincts (PPx = PPy = 15), LRCP, one layer, RCT for three components.
    u16be(&mut out, COD);
    u16be(&mut out, 12);
    out.push(0); // Scod
    out.push(0); // progression order: LRCP
    u16be(&mut out, 1); // layers
    out.push((h.components == 3) as u8); // multiple component transform
    out.push(h.levels as u8);
    out.push((h.cblk_exp - 2) as u8);
    out.push((h.cblk_exp - 2) as u8);
    out.push(h.cblk_style);
    out.push(1); // 5/3 reversible

    // QCD: no quantization, one exponent byte per band.
    u16be(&mut out, QCD);
    u16be(&mut out, (3 + exponents.len()) as u16);
    out.push((h.guard_bits << 5) as u8);
    for &e in exponents {
        out.push((e << 3) as u8);
    }

    // SOT: tile 0, part 0 of 1; Psot runs from SOT's first byte to the end of the data.
    let psot = 12u64 + 2 + tile_len as u64;
    let psot = u32::try_from(psot).map_err(|_| {
        Error::TooLarge(format!(
            "tile data of {tile_len} bytes exceeds one tile-part (Psot is 32 bits)"
        ))
    })?;
    u16be(&mut out, SOT);
    u16be(&mut out, 10);
    u16be(&mut out, 0);
    u32be(&mut out, psot);
    out.push(0);
    out.push(1);
    u16be(&mut out, SOD);
    // The main header, the tile's pieces and EOC copied once, on all cores, into a
    // codestream of its final size.
    let eoc = EOC.to_be_bytes();
    let mut all: Vec<&[u8]> = Vec::with_capacity(pieces.len() + 2);
    all.push(&out);
    all.extend_from_slice(pieces);
    all.push(&eoc);
    Ok(crate::concat::concat(&all))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_bytes_by_hand() {
        let h = Header {
            width: 3,
            height: 5,
            components: 1,
            bit_depth: 8,
            levels: 1,
            cblk_exp: 6,
            cblk_style: 1,
            guard_bits: 2,
            ht: false,
        };
        let cs = write(&h, &[8, 9, 9, 10], &[0xAB, 0xCD]).unwrap();
        let mut want = vec![0xFF, 0x4F];
        want.extend([0xFF, 0x51, 0, 41, 0, 0]);
        want.extend([0, 0, 0, 3, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0]);
        want.extend([0, 0, 0, 3, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0]);
        want.extend([0, 1, 7, 1, 1]);
        want.extend([0xFF, 0x52, 0, 12, 0, 0, 0, 1, 0, 1, 4, 4, 1, 1]);
        want.extend([0xFF, 0x5C, 0, 7, 0x40, 8 << 3, 9 << 3, 9 << 3, 10 << 3]);
        want.extend([0xFF, 0x90, 0, 10, 0, 0, 0, 0, 0, 16, 0, 1]);
        want.extend([0xFF, 0x93, 0xAB, 0xCD, 0xFF, 0xD9]);
        assert_eq!(cs, want);
    }

    #[test]
    fn bad_header_values_are_errors() {
        let h = Header {
            width: 1,
            height: 1,
            components: 3,
            bit_depth: 16,
            levels: 0,
            cblk_exp: 5,
            cblk_style: 0,
            guard_bits: 8,
            ht: false,
        };
        assert!(write(&h, &[16], &[]).is_err());
        let h = Header { guard_bits: 2, ..h };
        assert!(write(&h, &[16, 17], &[]).is_err());
        assert!(write(&h, &[32], &[]).is_err());
        let cs = write(&h, &[16], &[]).unwrap();
        // SIZ of three 16-bit components: Ssiz 15 each; COD's MCT byte is 1.
        assert_eq!(&cs[42..51], &[15, 1, 1, 15, 1, 1, 15, 1, 1]);
        assert_eq!(cs[51 + 8], 1);
    }
}
