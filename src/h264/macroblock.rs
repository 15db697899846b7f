//! One intra macroblock: the luma as I_16x16 or I_4x4 (whichever costs less by SATD plus
//! lambda times the estimated header bits, as x264's intra analysis does), the chroma
//! modes by SATD, transform, quantization, a check that Baseline CAVLC can code every
//! block (else a coarser QP), and the reconstruction a decoder will compute.

use super::intra4x4::{encode_luma4x4, hadamard_abs_sum, lambda, Context};
use super::predict::{self, Neighbours};
use super::predict4x4::{NeighbourMode, I4_MODES};
use super::rate::{luma4x4_bits, luma_bits, luma_total_coeffs, rd_cost, ue_bits, EdgeCoeffs};
use super::transform::{
    chroma_qp, forward4x4, forward_chroma_dc, forward_luma_dc, inverse4x4, inverse_chroma_dc,
    inverse_luma_dc, quant_dc, Quant4x4,
};
use crate::cavlc::frame::{CHROMA_BLOCK0, MB_LEVELS, ZIGZAG};
use crate::cavlc::{residual_block_bits, BlockKind};
use crate::{Error, Result};

/// Which luma predictions the encoder may use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LumaModes {
    /// Per macroblock, I_16x16 or I_4x4, whichever costs less.
    #[default]
    Auto,
    /// I_16x16 only.
    Intra16x16,
    /// I_4x4 only, each block's mode chosen as in `Auto`.
    Intra4x4,
    /// I_4x4 only, every block in this Intra4x4PredMode (0..=8) where its neighbours
    /// allow it, the others chosen freely: for testing each mode at picture and slice
    /// edges.
    Intra4x4Forced(u32),
}

impl LumaModes {
    fn allows_16x16(self) -> bool {
        matches!(self, LumaModes::Auto | LumaModes::Intra16x16)
    }
    fn allows_4x4(self) -> bool {
        self != LumaModes::Intra16x16
    }
    fn forced(self) -> Option<u32> {
        match self {
            LumaModes::Intra4x4Forced(m) => Some(m),
            _ => None,
        }
    }
    pub fn validate(self) -> Result<()> {
        match self {
            LumaModes::Intra4x4Forced(m) if m >= I4_MODES => Err(Error::InvalidArgument(format!(
                "Intra_4x4 prediction mode {m} is outside 0..=8"
            ))),
            _ => Ok(()),
        }
    }
}

impl std::str::FromStr for LumaModes {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let modes = match s {
            "auto" => LumaModes::Auto,
            "16x16" => LumaModes::Intra16x16,
            "4x4" => LumaModes::Intra4x4,
            _ => match s.strip_prefix("4x4:").map(str::parse::<u32>) {
                Some(Ok(m)) => LumaModes::Intra4x4Forced(m),
                _ => {
                    return Err(Error::InvalidArgument(format!(
                        "luma modes `{s}`: auto, 16x16, 4x4 or 4x4:MODE (MODE 0..=8)"
                    )))
                }
            },
        };
        modes.validate()?;
        Ok(modes)
    }
}

/// The source samples of a macroblock and the reconstructed neighbours around it.
pub struct MbInput {
    pub y: [u8; 256],
    pub u: [u8; 64],
    pub v: [u8; 64],
    pub ny: Neighbours<16>,
    pub nu: Neighbours<8>,
    pub nv: Neighbours<8>,
    /// The bottom-left four luma samples of the macroblock above and to the right, when
    /// it is in the slice.
    pub y_top_right: Option<[u8; 4]>,
    /// Intra_4x4 modes of the left macroblock's right column, top to bottom.
    pub left_modes: [NeighbourMode; 4],
    /// Intra_4x4 modes of the upper macroblock's bottom row, left to right.
    pub top_modes: [NeighbourMode; 4],
    /// TotalCoeff of the luma blocks along the left and upper edges.
    pub luma_tc: EdgeCoeffs,
}

/// How the luma of a macroblock is predicted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Luma {
    /// I_16x16 with this Intra16x16PredMode.
    Intra16x16(u32),
    /// I_NxN: Intra4x4PredMode per block (raster block order) and their syntax (per
    /// luma4x4BlkIdx, as [`crate::cavlc::frame::MbHeader::intra4x4_modes`]).
    Intra4x4 { modes: [u32; 16], syntax: [u32; 2] },
}

/// A coded macroblock: its modes, QP, levels (the layout of
/// [`crate::cavlc::frame::Frame::levels`]) and reconstruction.
pub struct MbOutput {
    pub luma: Luma,
    pub chroma_mode: u32,
    pub qp: u8,
    /// I_16x16: 0 or 15; I_NxN: one bit per 8x8 quadrant with a nonzero level.
    pub cbp_luma: u32,
    pub cbp_chroma: u32,
    pub levels: [i16; MB_LEVELS],
    /// TotalCoeff of each luma block (raster), for the next macroblocks' nC.
    pub luma_tc: [u8; 16],
    pub y: [u8; 256],
    pub u: [u8; 64],
    pub v: [u8; 64],
}

/// Sum of absolute Hadamard-transformed differences over the 4x4 blocks of two N-wide
/// blocks: closer to the bits a residual costs after the transform than SAD is, so the
/// mode it picks codes smaller (x264's intra mode decision measures the same).
pub(super) fn satd<const N: usize>(a: &[u8], b: &[u8]) -> u32 {
    let mut total = 0u32;
    for by in (0..N).step_by(4) {
        for bx in (0..N).step_by(4) {
            let block = |s: &[u8]| -> [u8; 16] {
                std::array::from_fn(|p| s[(by + p / 4) * N + bx + p % 4])
            };
            total += hadamard_abs_sum(&block(a), &block(b));
        }
    }
    // The unnormalised 4x4 Hadamard gains 4 over the samples; halved as x264 does.
    total / 2
}

/// The cheapest available mode by `cost` and its prediction (DC needs no neighbour, so
/// there always is one).
fn best_mode<T: Copy>(
    predict: impl Fn(u32) -> Option<T>,
    cost: impl Fn(u32, &T) -> u32,
) -> Result<(u32, T)> {
    let mut best: Option<(u32, u32, T)> = None;
    for mode in 0..4 {
        if let Some(p) = predict(mode) {
            let c = cost(mode, &p);
            if best.as_ref().is_none_or(|b| c < b.1) {
                best = Some((mode, c, p));
            }
        }
    }
    best.map(|(m, _, p)| (m, p))
        .ok_or_else(|| Error::InvalidArgument("no intra prediction mode available".into()))
}

/// Sum of squared differences.
fn ssd(a: &[u8], b: &[u8]) -> u64 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| (x as i64 - y as i64).pow(2) as u64)
        .sum()
}

/// Residual blocks of an N x N (N = 16 or 8) component, forward transformed, raster block
/// order (B = (N / 4)^2 of them).
fn transform_blocks<const N: usize, const B: usize>(src: &[u8], pred: &[u8]) -> [[i32; 16]; B] {
    let side = N / 4;
    std::array::from_fn(|b| {
        let (bx, by) = (b % side, b / side);
        let x: [i32; 16] = std::array::from_fn(|p| {
            let i = (by * 4 + p / 4) * N + bx * 4 + p % 4;
            src[i] as i32 - pred[i] as i32
        });
        forward4x4(&x)
    })
}

/// Whether Baseline CAVLC can code these coefficients (scan order) as a `kind` block.
/// Any level up to 2063 in magnitude always fits (the 12-bit escape suffix past
/// levelCode 30 covers it for every suffixLength); only larger ones need the real coder,
/// and level coding does not depend on nC.
pub(super) fn codable(scan: &[i32], kind: BlockKind) -> bool {
    if scan.iter().all(|v| v.unsigned_abs() <= 2063) {
        return true;
    }
    let nc = if kind == BlockKind::ChromaDC { -1 } else { 0 };
    residual_block_bits(scan, kind, nc).is_ok()
}

pub(super) fn zigzag(block: &[i32; 16]) -> [i32; 16] {
    std::array::from_fn(|s| block[ZIGZAG[s]])
}

/// Add a residual to a prediction into `out` (a 4x4 block at (bx, by) of an N-wide block).
fn add_block<const N: usize>(pred: &[u8], r: &[i32; 16], bx: usize, by: usize, out: &mut [u8]) {
    for (p, &res) in r.iter().enumerate() {
        let i = (by * 4 + p / 4) * N + bx * 4 + p % 4;
        out[i] = (pred[i] as i32 + res).clamp(0, 255) as u8;
    }
}

/// Levels of one component's chroma blocks at `qpc`: (dc levels, ac levels per block).
fn quant_chroma(w: &[[i32; 16]; 4], qpc: u8) -> ([i32; 4], [[i32; 16]; 4]) {
    let dc = quant_dc(
        &forward_chroma_dc(&[w[0][0], w[1][0], w[2][0], w[3][0]]),
        qpc,
    );
    let q = Quant4x4::new(qpc);
    (dc, w.map(|b| q.quant_ac(&b)))
}

fn recon_chroma(pred: &[u8; 64], dc: &[i32; 4], ac: &[[i32; 16]], qpc: u8) -> [u8; 64] {
    let dcc = inverse_chroma_dc(dc, qpc);
    let q = Quant4x4::new(qpc);
    let mut out = [0u8; 64];
    for b in 0..4 {
        let mut c = ac[b];
        c[0] = dcc[b];
        add_block::<8>(pred, &inverse4x4(&q.dequant_ac(&c)), b % 2, b / 2, &mut out);
    }
    out
}

/// The I_16x16 luma of a macroblock before quantization.
struct Luma16 {
    mode: u32,
    pred: [u8; 256],
    blocks: [[i32; 16]; 16],
    dc: [i32; 16],
}

/// A luma coded at one QP.
struct LumaCoded {
    luma: Luma,
    cbp_luma: u32,
    /// Per block (raster), raster levels; an I_16x16 block's level 0 is its DC level.
    levels: [[i32; 16]; 16],
    y: [u8; 256],
    /// I_NxN: each block's CAVLC bits, counted by the mode decision.
    block_bits: Option<[u32; 16]>,
}

fn luma16_at(l: &Luma16, qp: u8) -> Option<LumaCoded> {
    let ydc = quant_dc(&l.dc, qp);
    let q = Quant4x4::new(qp);
    let yac = l.blocks.map(|b| q.quant_ac(&b));
    if !codable(&zigzag(&ydc), BlockKind::Intra16x16DC)
        || !yac
            .iter()
            .all(|b| codable(&zigzag(b)[1..], BlockKind::Intra16x16AC))
    {
        return None;
    }
    let dcy = inverse_luma_dc(&ydc, qp);
    let mut y = [0u8; 256];
    let mut levels = [[0i32; 16]; 16];
    for b in 0..16 {
        let mut c = yac[b];
        c[0] = dcy[b];
        let r = inverse4x4(&q.dequant_ac(&c));
        add_block::<16>(&l.pred, &r, b % 4, b / 4, &mut y);
        levels[b] = yac[b];
        levels[b][0] = ydc[b];
    }
    let ac = yac.iter().any(|b| b[1..].iter().any(|&v| v != 0));
    Some(LumaCoded {
        luma: Luma::Intra16x16(l.mode),
        cbp_luma: if ac { 15 } else { 0 },
        levels,
        y,
        block_bits: None,
    })
}

/// Code one macroblock at `qp`, or at the lowest coarser QP where every block is codable,
/// with the luma predictions `modes` allows.
pub fn encode_mb(input: &MbInput, qp: u8, modes: LumaModes) -> Result<MbOutput> {
    modes.validate()?;
    let luma16 = if modes.allows_16x16() {
        let l = lambda(qp);
        let (mode, pred) = best_mode(
            |m| predict::luma16(m, &input.ny),
            |m, p| satd::<16>(p, &input.y) + l * ue_bits(m),
        )?;
        let blocks = transform_blocks::<16, 16>(&input.y, &pred);
        let dc = forward_luma_dc(&std::array::from_fn(|b| blocks[b][0]));
        Some(Luma16 {
            mode,
            pred,
            blocks,
            dc,
        })
    } else {
        None
    };
    let (chroma_mode, (pred_u, pred_v)) = best_mode(
        |m| {
            Some((
                predict::chroma8(m, &input.nu)?,
                predict::chroma8(m, &input.nv)?,
            ))
        },
        |_, (pu, pv)| satd::<8>(pu, &input.u) + satd::<8>(pv, &input.v),
    )?;
    let wu = transform_blocks::<8, 4>(&input.u, &pred_u);
    let wv = transform_blocks::<8, 4>(&input.v, &pred_v);
    let ctx = Context {
        src: &input.y,
        n: &input.ny,
        top_right: input.y_top_right,
        left_modes: input.left_modes,
        top_modes: input.top_modes,
        luma_tc: input.luma_tc,
    };

    for qp in qp..=51 {
        let qpc = chroma_qp(qp);
        let (udc, uac) = quant_chroma(&wu, qpc);
        let (vdc, vac) = quant_chroma(&wv, qpc);
        let chroma_ok = uac
            .iter()
            .chain(&vac)
            .all(|b| codable(&zigzag(b)[1..], BlockKind::ChromaAC))
            && codable(&udc, BlockKind::ChromaDC)
            && codable(&vdc, BlockKind::ChromaDC);
        if !chroma_ok {
            continue;
        }
        let c16 = luma16.as_ref().and_then(|l| luma16_at(l, qp));
        let any = |blocks: &[[i32; 16]]| blocks.iter().any(|b| b[1..].iter().any(|&v| v != 0));
        let cbp_chroma = if any(&uac) || any(&vac) {
            2
        } else if udc.iter().chain(&vdc).any(|&v| v != 0) {
            1
        } else {
            0
        };
        // Both codable: the one with less distortion plus lambda times bits.
        let rd = |c: &LumaCoded| {
            let bits = match (c.luma, &c.block_bits) {
                (Luma::Intra4x4 { syntax, .. }, Some(blocks)) => {
                    luma4x4_bits(syntax, c.cbp_luma, cbp_chroma, blocks)
                }
                (Luma::Intra4x4 { syntax, .. }, None) => luma_bits(
                    None,
                    syntax,
                    c.cbp_luma,
                    cbp_chroma,
                    &c.levels,
                    &input.luma_tc,
                ),
                (Luma::Intra16x16(m), _) => luma_bits(
                    Some(m),
                    [0, 0],
                    c.cbp_luma,
                    cbp_chroma,
                    &c.levels,
                    &input.luma_tc,
                ),
            };
            rd_cost(ssd(&input.y, &c.y), bits, qp)
        };
        // With both kinds allowed, the I_16x16 cost first: the I_4x4 decision stops as
        // soon as it cannot cost less (the same choice, found sooner).
        let c16 = c16.map(|c| {
            let cost = modes.allows_4x4().then(|| rd(&c));
            (c, cost)
        });
        let c4 = if modes.allows_4x4() {
            let limit = c16.as_ref().and_then(|c| c.1);
            encode_luma4x4(&ctx, qp, modes.forced(), limit).map(|l| LumaCoded {
                luma: Luma::Intra4x4 {
                    modes: l.modes,
                    syntax: l.syntax,
                },
                cbp_luma: l.cbp_luma,
                levels: l.levels,
                y: l.recon,
                block_bits: Some(l.bits),
            })
        } else {
            None
        };
        let luma = match (c16, c4) {
            (Some((a, Some(cost_a))), Some(b)) => {
                if rd(&b) < cost_a {
                    b
                } else {
                    a
                }
            }
            (Some((c, _)), _) | (None, Some(c)) => c,
            (None, None) => continue,
        };
        let mut levels = [0i16; MB_LEVELS];
        for (b, block) in luma.levels.iter().enumerate() {
            for (p, &v) in block.iter().enumerate() {
                levels[b * 16 + p] = v as i16;
            }
        }
        for (comp, (dc, ac)) in [(&udc, &uac), (&vdc, &vac)].into_iter().enumerate() {
            for b in 0..4 {
                let base = (CHROMA_BLOCK0 + comp * 4 + b) * 16;
                levels[base] = dc[b] as i16;
                for p in 1..16 {
                    levels[base + p] = ac[b][p] as i16;
                }
            }
        }
        return Ok(MbOutput {
            luma: luma.luma,
            chroma_mode,
            qp,
            cbp_luma: luma.cbp_luma,
            cbp_chroma,
            levels,
            luma_tc: luma_total_coeffs(&luma.levels, matches!(luma.luma, Luma::Intra16x16(_))),
            y: luma.y,
            u: recon_chroma(&pred_u, &udc, &uac, qpc),
            v: recon_chroma(&pred_v, &vdc, &vac, qpc),
        });
    }
    Err(Error::InvalidArgument(
        "a macroblock's levels cannot be coded in Baseline CAVLC even at QP 51".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::MsbWriter;
    use crate::cavlc::encode_residual_block;

    fn input(seed: u32, top: bool, left: bool) -> MbInput {
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 24) as u8
        };
        let y = std::array::from_fn(|_| next());
        let u = std::array::from_fn(|_| next());
        let v = std::array::from_fn(|_| next());
        let t16: [u8; 16] = std::array::from_fn(|_| next());
        let l16: [u8; 16] = std::array::from_fn(|_| next());
        let t8: [u8; 8] = std::array::from_fn(|_| next());
        let l8: [u8; 8] = std::array::from_fn(|_| next());
        let corner = next();
        MbInput {
            y,
            u,
            v,
            ny: Neighbours {
                top: top.then_some(t16),
                left: left.then_some(l16),
                top_left: (top && left).then_some(corner),
            },
            nu: Neighbours {
                top: top.then_some(t8),
                left: left.then_some(l8),
                top_left: (top && left).then_some(corner),
            },
            nv: Neighbours {
                top: top.then_some(t8),
                left: left.then_some(l8),
                top_left: (top && left).then_some(corner),
            },
            y_top_right: top.then(|| std::array::from_fn(|_| next())),
            left_modes: [0, 1, 2, 3].map(|i| match left {
                true => NeighbourMode::Mode((seed + i) % I4_MODES),
                false => NeighbourMode::Unavailable,
            }),
            top_modes: [4, 5, 6, 7].map(|i| match top {
                true => NeighbourMode::Mode((seed + i) % I4_MODES),
                false => NeighbourMode::Unavailable,
            }),
            luma_tc: EdgeCoeffs {
                left: left.then_some([1, 0, 3, 2]),
                top: top.then_some([0, 5, 2, 16]),
            },
        }
    }

    #[test]
    fn noise_at_qp0_needs_a_coarser_qp_and_stays_codable() {
        // Full-range noise against a flat 128 prediction: luma DC levels at QP 0 exceed
        // what Baseline can code, so the macroblock moves to a higher QP.
        let mut saw_requant = false;
        for seed in 0..20 {
            let mut inp = input(seed, false, false);
            inp.y = [255; 256];
            let out = encode_mb(&inp, 0, LumaModes::Intra16x16).unwrap();
            saw_requant |= out.qp > 0;
            // Every block of the result is codable by the real coder.
            for b in 0..16 {
                let blk: [i32; 16] = std::array::from_fn(|p| out.levels[b * 16 + p] as i32);
                let mut w = MsbWriter::new();
                encode_residual_block(&zigzag(&blk)[1..], BlockKind::Intra16x16AC, 0, &mut w)
                    .unwrap();
            }
            let dc: [i32; 16] = std::array::from_fn(|b| out.levels[b * 16] as i32);
            encode_residual_block(
                &zigzag(&dc),
                BlockKind::Intra16x16DC,
                0,
                &mut MsbWriter::new(),
            )
            .unwrap();
            // And the reconstruction is close to the flat source.
            assert!(out.y.iter().all(|&v| v >= 250), "{:?}", &out.y[..16]);
        }
        assert!(saw_requant);
    }

    #[test]
    fn modes_respect_availability_and_cbp_matches_levels() {
        for seed in 0..40 {
            let (top, left) = (seed % 2 == 0, seed % 3 == 0);
            let out = encode_mb(&input(seed, top, left), 28, LumaModes::Intra16x16).unwrap();
            let Luma::Intra16x16(pred_mode) = out.luma else {
                panic!("I_16x16 only, got {:?}", out.luma)
            };
            match pred_mode {
                0 => assert!(top),
                1 => assert!(left),
                3 => assert!(top && left),
                _ => {}
            }
            match out.chroma_mode {
                1 => assert!(left),
                2 => assert!(top),
                3 => assert!(top && left),
                _ => {}
            }
            let ac_luma = (0..16).any(|b| (1..16).any(|p| out.levels[b * 16 + p] != 0));
            assert_eq!(out.cbp_luma == 15, ac_luma);
            let ac_chroma = (16..24).any(|b| (1..16).any(|p| out.levels[b * 16 + p] != 0));
            let dc_chroma = (16..24).any(|b| out.levels[b * 16] != 0);
            assert_eq!(out.cbp_chroma == 2, ac_chroma);
            assert_eq!(out.cbp_chroma >= 1, ac_chroma || dc_chroma);
        }
    }

    /// Whether Intra_4x4 `mode` may be used by block (`bx`, `by`) of a macroblock with
    /// these neighbours (the corner comes with top and left in these inputs).
    fn mode_allowed(mode: u32, bx: usize, by: usize, top: bool, left: bool) -> bool {
        let (t, l) = (by > 0 || top, bx > 0 || left);
        match mode {
            0 | 3 | 7 => t,
            1 | 8 => l,
            4..=6 => t && l,
            _ => true,
        }
    }

    #[test]
    fn intra4x4_modes_respect_availability_and_cbp_matches_levels() {
        use crate::cavlc::frame::LUMA_CODING_ORDER;
        use crate::h264::predict4x4::{mode_from_syntax, predicted_mode};
        let mut used = [false; 9];
        for seed in 0..60 {
            let (top, left) = (seed % 2 == 0, seed % 3 == 0);
            let inp = input(seed, top, left);
            let out = encode_mb(&inp, 20 + (seed % 20) as u8, LumaModes::Intra4x4).unwrap();
            let Luma::Intra4x4 { modes, syntax } = out.luma else {
                panic!("I_4x4 only, got {:?}", out.luma)
            };
            for (idx, &raster) in LUMA_CODING_ORDER.iter().enumerate() {
                let (bx, by) = (raster % 4, raster / 4);
                let m = modes[raster];
                used[m as usize] = true;
                assert!(
                    mode_allowed(m, bx, by, top, left),
                    "mode {m} at ({bx},{by})"
                );
                // A decoder recovers the mode from the syntax and its own prediction.
                let a = if bx > 0 {
                    NeighbourMode::Mode(modes[raster - 1])
                } else {
                    inp.left_modes[by]
                };
                let b = if by > 0 {
                    NeighbourMode::Mode(modes[raster - 4])
                } else {
                    inp.top_modes[bx]
                };
                let field = (syntax[idx / 8] >> (4 * (idx % 8))) & 15;
                assert_eq!(mode_from_syntax(field, predicted_mode(a, b)), m);
            }
            for q in 0..4 {
                let nonzero = (0..16)
                    .filter(|b| (b / 8) * 2 + (b % 4) / 2 == q)
                    .any(|b| (0..16).any(|p| out.levels[b * 16 + p] != 0));
                assert_eq!(out.cbp_luma & (1 << q) != 0, nonzero, "quadrant {q}");
            }
        }
        assert!(
            used.iter().all(|&u| u),
            "every mode chosen somewhere: {used:?}"
        );
    }

    #[test]
    fn forced_intra4x4_mode_is_used_wherever_allowed() {
        for mode in 0..I4_MODES {
            for seed in 0..8 {
                let (top, left) = (seed % 2 == 0, seed / 2 % 2 == 0);
                let out = encode_mb(&input(seed, top, left), 26, LumaModes::Intra4x4Forced(mode))
                    .unwrap();
                let Luma::Intra4x4 { modes, .. } = out.luma else {
                    panic!("I_4x4 only")
                };
                for (raster, &m) in modes.iter().enumerate() {
                    let (bx, by) = (raster % 4, raster / 4);
                    assert!(mode_allowed(m, bx, by, top, left));
                    if mode_allowed(mode, bx, by, top, left) {
                        assert_eq!(m, mode, "block ({bx},{by}), top {top}, left {left}");
                    }
                }
            }
        }
        assert!(encode_mb(&input(0, true, true), 26, LumaModes::Intra4x4Forced(9)).is_err());
        assert!("4x4:9".parse::<LumaModes>().is_err());
        assert_eq!(
            "4x4:8".parse::<LumaModes>().unwrap(),
            LumaModes::Intra4x4Forced(8)
        );
        assert_eq!("auto".parse::<LumaModes>().unwrap(), LumaModes::Auto);
    }

    #[test]
    fn auto_takes_the_cheaper_luma() {
        // A flat macroblock equal to its neighbours costs nothing as I_16x16 DC, while
        // I_4x4 pays for its header: I_16x16. Columns alternating dark and light under
        // a noisy row above: I_16x16 has only that row to go by, while I_4x4 blocks
        // below the first row predict Vertical from the reconstructed stripes.
        let mut stripes = input(2, true, true);
        stripes.y = std::array::from_fn(|i| if i % 2 == 0 { 40 } else { 200 });
        let out = encode_mb(&stripes, 26, LumaModes::Auto).unwrap();
        assert!(matches!(out.luma, Luma::Intra4x4 { .. }), "{:?}", out.luma);
    }
}
