//! What a macroblock's luma costs in bits, counted by the CAVLC coder itself with each
//! block's real nC: the rate of the rate-distortion choice between I_16x16 and I_4x4
//! (x264 at `-preset medium` decides the macroblock type the same way).

use crate::cavlc::cpu::block_bits_nc;
use crate::cavlc::frame::{intra_cbp_code_num, ZIGZAG};
use crate::cavlc::{nc_from_neighbours, residual_block_bits, BlockKind};

/// TotalCoeff of the luma blocks next to a macroblock: the left macroblock's right column
/// (top to bottom) and the upper one's bottom row (left to right); `None` outside the
/// slice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EdgeCoeffs {
    pub left: Option<[u8; 4]>,
    pub top: Option<[u8; 4]>,
}

impl EdgeCoeffs {
    /// nC of luma block `raster` (clause 9.2.1): from the TotalCoeff (`inner`) of the
    /// blocks left of and above it in the macroblock, else from these edges.
    pub fn luma_nc(&self, raster: usize, inner: impl Fn(usize) -> u8) -> i32 {
        let (bx, by) = (raster % 4, raster / 4);
        let a = if bx > 0 {
            Some(inner(raster - 1))
        } else {
            self.left.map(|l| l[by])
        };
        let b = if by > 0 {
            Some(inner(raster - 4))
        } else {
            self.top.map(|t| t[bx])
        };
        nc_from_neighbours(a, b)
    }
}

/// TotalCoeff per luma block (raster) as clause 9.2.1 counts it: an I_16x16 block's AC
/// levels, an Intra_4x4 block's all 16. `levels` per block, raster, level 0 of an
/// I_16x16 block being its DC level.
pub fn luma_total_coeffs(levels: &[[i32; 16]; 16], intra16x16: bool) -> [u8; 16] {
    levels.map(|b| b[intra16x16 as usize..].iter().filter(|&&v| v != 0).count() as u8)
}

/// The weight of a bit against squared error in the choice of macroblock type and of
/// each 4x4 block's mode: c * 2^((QP - 12) / 3), the form of the H.264 reference
/// software's intra lambda (c = 0.85; x264 0.9). c = 0.6 measured best against x264 on
/// PSNR (docs/h264.md: small clips 0.4-1.2 tried). In units of 2^-[`RD_SHIFT`]
/// (round(2^6 * 0.6 * 2^((QP - 12) / 3))), so that costs are integers that the GPU front
/// end computes exactly as the CPU does.
const LAMBDA2: [u32; 52] = [
    2, 3, 4, 5, 6, 8, 10, 12, 15, 19, 24, 30, 38, 48, 61, 77, 97, 122, 154, 194, 244, 307, 387,
    488, 614, 774, 975, 1229, 1548, 1951, 2458, 3096, 3901, 4915, 6193, 7802, 9830, 12386, 15605,
    19661, 24771, 31210, 39322, 49542, 62419, 78643, 99084, 124838, 157286, 198168, 249677, 314573,
];

/// The fractional bits of [`lambda2`] and of every rate-distortion cost.
pub const RD_SHIFT: u32 = 6;

/// `LAMBDA2` at `qp`: the weight of a bit, in units of 2^-[`RD_SHIFT`] squared error.
pub fn lambda2(qp: u8) -> u32 {
    LAMBDA2[qp.min(51) as usize]
}

/// Squared error plus lambda2 times bits, in units of 2^-[`RD_SHIFT`]: the cost the
/// mode and macroblock-type decisions compare (keep in sync with
/// shaders/h264/intra.wgsl `rd_cost`).
pub fn rd_cost(ssd: u64, bits: u32, qp: u8) -> u64 {
    (ssd << RD_SHIFT) + lambda2(qp) as u64 * bits as u64
}

/// Bits of ue(v) (clause 9.1).
pub fn ue_bits(v: u32) -> u32 {
    2 * (32 - (v + 1).leading_zeros()) - 1
}

/// Bits of one residual block as CAVLC codes it with `nc`.
pub fn block_bits(coeffs: &[i32], kind: BlockKind, nc: i32) -> u32 {
    // The caller checked that every block is codable; an error would only count 0 bits.
    match kind {
        BlockKind::ChromaDC => residual_block_bits(coeffs, kind, nc).unwrap_or(0),
        _ if coeffs.len() != kind.max_coeffs() => 0,
        _ => block_bits_nc(coeffs, nc),
    }
}

/// The part of [`luma_bits`] before the residual for I_NxN: mb_type, the mode fields,
/// coded_block_pattern and mb_qp_delta.
fn intra4x4_header_bits(syntax: [u32; 2], cbp_luma: u32, cbp_chroma: u32) -> u32 {
    let fields: u32 = (0..16)
        .map(|i| match (syntax[i / 8] >> (4 * (i % 8))) & 15 {
            8 => 1,
            _ => 4,
        })
        .sum();
    let cbp = cbp_luma | cbp_chroma << 4;
    1 + fields + ue_bits(intra_cbp_code_num(cbp)) + (cbp != 0) as u32
}

/// [`luma_bits`] of an I_NxN luma whose blocks' bits (raster, each [`block_bits`] of its
/// levels with its real nC) the mode decision already counted.
pub fn luma4x4_bits(syntax: [u32; 2], cbp_luma: u32, cbp_chroma: u32, blocks: &[u32; 16]) -> u32 {
    let coded: u32 = (0..16)
        .filter(|raster| cbp_luma & (1 << ((raster / 8) * 2 + (raster % 4) / 2)) != 0)
        .map(|raster| blocks[raster])
        .sum();
    intra4x4_header_bits(syntax, cbp_luma, cbp_chroma) + coded
}

/// The luma's bits: mb_type, the Intra_4x4 mode fields (`syntax` nibbles, I_NxN only),
/// coded_block_pattern and mb_qp_delta where they depend on the luma choice, and the
/// luma residual blocks. `i16_mode` is the Intra16x16PredMode of an I_16x16 luma, `None`
/// for I_NxN; the chroma's syntax, common to both, is left out except where it enters
/// mb_type or coded_block_pattern.
pub fn luma_bits(
    i16_mode: Option<u32>,
    syntax: [u32; 2],
    cbp_luma: u32,
    cbp_chroma: u32,
    levels: &[[i32; 16]; 16],
    edge: &EdgeCoeffs,
) -> u32 {
    let mut bits = match i16_mode {
        Some(mode) => ue_bits(1 + mode + 4 * cbp_chroma + if cbp_luma == 15 { 12 } else { 0 }) + 1,
        None => intra4x4_header_bits(syntax, cbp_luma, cbp_chroma),
    };
    let tc = luma_total_coeffs(levels, i16_mode.is_some());
    let nc = |raster: usize| edge.luma_nc(raster, |r| tc[r]);
    let scan = |b: &[i32; 16]| -> [i32; 16] { std::array::from_fn(|s| b[ZIGZAG[s]]) };
    if i16_mode.is_some() {
        let dc: [i32; 16] = std::array::from_fn(|s| levels[ZIGZAG[s]][0]);
        bits += block_bits(&dc, BlockKind::Intra16x16DC, nc(0));
    }
    for (raster, block) in levels.iter().enumerate() {
        let b8 = (raster / 8) * 2 + (raster % 4) / 2;
        if cbp_luma & (1 << b8) == 0 {
            continue;
        }
        bits += match i16_mode {
            Some(_) => block_bits(&scan(block)[1..], BlockKind::Intra16x16AC, nc(raster)),
            None => block_bits(&scan(block), BlockKind::Luma4x4, nc(raster)),
        };
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::MsbWriter;

    #[test]
    fn lambda2_is_its_formula_in_fixed_point() {
        for qp in 0..52u8 {
            let exact = 0.6 * 2f64.powf((qp as f64 - 12.0) / 3.0) * (1u32 << RD_SHIFT) as f64;
            assert_eq!(lambda2(qp), exact.round() as u32, "QP {qp}");
        }
    }
    use crate::cavlc::frame::{encode_slice_data, total_coeffs, Frame, MbHeader, MB_BLOCKS};

    /// A random luma: (header, I_16x16 mode, mode syntax, cbp_luma, levels).
    type Case = (MbHeader, Option<u32>, [u32; 2], u32, [[i32; 16]; 16]);

    fn random_luma(intra16: bool, next: &mut impl FnMut(u32) -> u32) -> Case {
        let mut levels = [[0i32; 16]; 16];
        for b in levels.iter_mut() {
            for v in b.iter_mut() {
                if next(3) == 0 {
                    *v = next(41) as i32 - 20;
                }
            }
        }
        if intra16 {
            let ac = levels.iter().any(|b| b[1..].iter().any(|&v| v != 0));
            let cbp_luma = if ac { 15 } else { 0 };
            let mode = next(4);
            let h = MbHeader::intra16x16(mode, cbp_luma, 0, 0, 0, 0);
            return (h, Some(mode), [0, 0], cbp_luma, levels);
        }
        let cbp_luma = next(16);
        for (raster, b) in levels.iter_mut().enumerate() {
            if cbp_luma & (1 << ((raster / 8) * 2 + (raster % 4) / 2)) == 0 {
                *b = [0; 16];
            }
        }
        let mut syntax = [0u32; 2];
        for i in 0..16 {
            syntax[i / 8] |= next(9) << (4 * (i % 8));
        }
        let h = MbHeader::intra4x4(syntax, cbp_luma, 0, 0, 0);
        (h, None, syntax, cbp_luma, levels)
    }

    /// The count equals what the CAVLC reference writes for the last macroblock of a 2x2
    /// frame (its left and upper neighbours random too, so nC crosses macroblock
    /// edges), less that macroblock's intra_chroma_pred_mode (0: one bit).
    #[test]
    fn luma_bits_match_the_slice_data_coder() {
        let mut rng = crate::testdata::SplitMix64(7);
        let mut next = |n: u32| rng.below(n as u64) as u32;
        for case in 0..300 {
            let mut frame = Frame::new(2, 2);
            let mut last = None;
            for mb in 0..4 {
                let c = random_luma(next(2) == 0, &mut next);
                frame.mbs[mb] = c.0;
                for (dst, &v) in frame.mb_levels_mut(mb).iter_mut().zip(c.4.as_flattened()) {
                    *dst = v as i16;
                }
                last = Some(c);
            }
            let (_, i16_mode, syntax, cbp_luma, levels) = last.unwrap();
            let tc = total_coeffs(&frame);
            let bits = |mbs| {
                let mut w = MsbWriter::new();
                encode_slice_data(&frame, &tc, mbs, &mut w).unwrap();
                w.bit_len()
            };
            let edge = EdgeCoeffs {
                left: Some([3, 7, 11, 15].map(|r| tc[2 * MB_BLOCKS + r])),
                top: Some([12, 13, 14, 15].map(|r| tc[MB_BLOCKS + r])),
            };
            let counted = luma_bits(i16_mode, syntax, cbp_luma, 0, &levels, &edge);
            assert_eq!(counted as u64 + 1, bits(0..4) - bits(0..3), "case {case}");
            if i16_mode.is_none() {
                // The same from per-block counts, as the Intra_4x4 decision keeps them.
                let own = luma_total_coeffs(&levels, false);
                let blocks: [u32; 16] = std::array::from_fn(|r| {
                    let scan: [i32; 16] = std::array::from_fn(|s| levels[r][ZIGZAG[s]]);
                    block_bits(&scan, BlockKind::Luma4x4, edge.luma_nc(r, |n| own[n]))
                });
                assert_eq!(
                    luma4x4_bits(syntax, cbp_luma, 0, &blocks),
                    counted,
                    "case {case}"
                );
            }
            let alone = luma_bits(
                i16_mode,
                syntax,
                cbp_luma,
                0,
                &levels,
                &EdgeCoeffs::default(),
            );
            let mut one = Frame::new(1, 1);
            one.mbs[0] = frame.mbs[3];
            one.levels.copy_from_slice(frame.mb_levels(3));
            let mut w = MsbWriter::new();
            encode_slice_data(&one, &total_coeffs(&one), 0..1, &mut w).unwrap();
            assert_eq!(alone as u64 + 1, w.bit_len(), "case {case} alone");
        }
    }
}
