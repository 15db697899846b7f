//! One I_16x16 macroblock: prediction modes chosen by SATD, transform, quantization,
//! a check that Baseline CAVLC can code every block (else a coarser QP), and the
//! reconstruction a decoder will compute.

use super::predict::{self, Neighbours};
use super::transform::{
    chroma_qp, dequant4x4, forward4x4, forward_chroma_dc, forward_luma_dc, hadamard4, inverse4x4,
    inverse_chroma_dc, inverse_luma_dc, quant4x4, quant_dc,
};
use crate::bits::MsbWriter;
use crate::cavlc::frame::{CHROMA_BLOCK0, MB_LEVELS, ZIGZAG};
use crate::cavlc::{encode_residual_block, BlockKind};
use crate::{Error, Result};

/// The source samples of a macroblock and the reconstructed neighbours around it.
pub struct MbInput {
    pub y: [u8; 256],
    pub u: [u8; 64],
    pub v: [u8; 64],
    pub ny: Neighbours<16>,
    pub nu: Neighbours<8>,
    pub nv: Neighbours<8>,
}

/// A coded macroblock: its modes, QP, levels (the layout of
/// [`crate::cavlc::frame::Frame::levels`]) and reconstruction.
pub struct MbOutput {
    pub pred_mode: u32,
    pub chroma_mode: u32,
    pub qp: u8,
    pub cbp_luma: u32,
    pub cbp_chroma: u32,
    pub levels: [i16; MB_LEVELS],
    pub y: [u8; 256],
    pub u: [u8; 64],
    pub v: [u8; 64],
}

/// Sum of absolute Hadamard-transformed differences over the 4x4 blocks of two N-wide
/// blocks: closer to the bits a residual costs after the transform than SAD is, so the
/// mode it picks codes smaller (x264's intra mode decision measures the same).
fn satd<const N: usize>(a: &[u8], b: &[u8]) -> u32 {
    let mut total = 0u32;
    for by in (0..N).step_by(4) {
        for bx in (0..N).step_by(4) {
            let d: [i32; 16] = std::array::from_fn(|p| {
                let i = (by + p / 4) * N + bx + p % 4;
                a[i] as i32 - b[i] as i32
            });
            total += hadamard4(&d).iter().map(|v| v.unsigned_abs()).sum::<u32>();
        }
    }
    // The unnormalised 4x4 Hadamard gains 4 over the samples; halved as x264 does.
    total / 2
}

/// The cheapest available mode by `cost` and its prediction (DC needs no neighbour, so
/// there always is one).
fn best_mode<T: Copy>(
    predict: impl Fn(u32) -> Option<T>,
    cost: impl Fn(&T) -> u32,
) -> Result<(u32, T)> {
    let mut best: Option<(u32, u32, T)> = None;
    for mode in 0..4 {
        if let Some(p) = predict(mode) {
            let c = cost(&p);
            if best.as_ref().is_none_or(|b| c < b.1) {
                best = Some((mode, c, p));
            }
        }
    }
    best.map(|(m, _, p)| (m, p))
        .ok_or_else(|| Error::InvalidArgument("no intra prediction mode available".into()))
}

/// Residual blocks of an N x N (N = 16 or 8) component, forward transformed, raster block
/// order.
fn transform_blocks<const N: usize>(src: &[u8], pred: &[u8]) -> Vec<[i32; 16]> {
    let side = N / 4;
    (0..side * side)
        .map(|b| {
            let (bx, by) = (b % side, b / side);
            let x: [i32; 16] = std::array::from_fn(|p| {
                let i = (by * 4 + p / 4) * N + bx * 4 + p % 4;
                src[i] as i32 - pred[i] as i32
            });
            forward4x4(&x)
        })
        .collect()
}

/// Whether Baseline CAVLC can code these coefficients (scan order) as a `kind` block.
/// Any level up to 2063 in magnitude always fits (the 12-bit escape suffix past
/// levelCode 30 covers it for every suffixLength); only larger ones need the real coder,
/// and level coding does not depend on nC.
fn codable(scan: &[i32], kind: BlockKind) -> bool {
    if scan.iter().all(|v| v.unsigned_abs() <= 2063) {
        return true;
    }
    let nc = if kind == BlockKind::ChromaDC { -1 } else { 0 };
    encode_residual_block(scan, kind, nc, &mut MsbWriter::new()).is_ok()
}

fn zigzag(block: &[i32; 16]) -> [i32; 16] {
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
fn quant_chroma(w: &[[i32; 16]], qpc: u8) -> ([i32; 4], Vec<[i32; 16]>) {
    let dc = quant_dc(
        &forward_chroma_dc(&[w[0][0], w[1][0], w[2][0], w[3][0]]),
        qpc,
    );
    (dc, w.iter().map(|b| quant4x4(b, qpc, 1)).collect())
}

fn recon_chroma(pred: &[u8; 64], dc: &[i32; 4], ac: &[[i32; 16]], qpc: u8) -> [u8; 64] {
    let dcc = inverse_chroma_dc(dc, qpc);
    let mut out = [0u8; 64];
    for b in 0..4 {
        let mut c = ac[b];
        c[0] = dcc[b];
        add_block::<8>(
            pred,
            &inverse4x4(&dequant4x4(&c, qpc, true)),
            b % 2,
            b / 2,
            &mut out,
        );
    }
    out
}

/// Code one macroblock at `qp`, or at the lowest coarser QP where every block is codable.
pub fn encode_mb(input: &MbInput, qp: u8) -> Result<MbOutput> {
    let (pred_mode, pred_y) = best_mode(
        |m| predict::luma16(m, &input.ny),
        |p| satd::<16>(p, &input.y),
    )?;
    let (chroma_mode, (pred_u, pred_v)) = best_mode(
        |m| {
            Some((
                predict::chroma8(m, &input.nu)?,
                predict::chroma8(m, &input.nv)?,
            ))
        },
        |(pu, pv)| satd::<8>(pu, &input.u) + satd::<8>(pv, &input.v),
    )?;
    let wy = transform_blocks::<16>(&input.y, &pred_y);
    let wu = transform_blocks::<8>(&input.u, &pred_u);
    let wv = transform_blocks::<8>(&input.v, &pred_v);
    let wdc: [i32; 16] = std::array::from_fn(|b| wy[b][0]);
    let ydc_t = forward_luma_dc(&wdc);

    for qp in qp..=51 {
        let qpc = chroma_qp(qp);
        let ydc = quant_dc(&ydc_t, qp);
        let yac: Vec<[i32; 16]> = wy.iter().map(|b| quant4x4(b, qp, 1)).collect();
        let (udc, uac) = quant_chroma(&wu, qpc);
        let (vdc, vac) = quant_chroma(&wv, qpc);
        let ok = codable(&zigzag(&ydc), BlockKind::Intra16x16DC)
            && yac
                .iter()
                .chain(&uac)
                .chain(&vac)
                .all(|b| codable(&zigzag(b)[1..], BlockKind::Intra16x16AC))
            && codable(&udc, BlockKind::ChromaDC)
            && codable(&vdc, BlockKind::ChromaDC);
        if !ok {
            continue;
        }
        let any = |blocks: &[[i32; 16]]| blocks.iter().any(|b| b[1..].iter().any(|&v| v != 0));
        let cbp_luma = if any(&yac) { 15 } else { 0 };
        let cbp_chroma = if any(&uac) || any(&vac) {
            2
        } else if udc.iter().chain(&vdc).any(|&v| v != 0) {
            1
        } else {
            0
        };

        let mut levels = [0i16; MB_LEVELS];
        for b in 0..16 {
            levels[b * 16] = ydc[b] as i16;
            for p in 1..16 {
                levels[b * 16 + p] = yac[b][p] as i16;
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

        let dcy = inverse_luma_dc(&ydc, qp);
        let mut y = [0u8; 256];
        for b in 0..16 {
            let mut c = yac[b];
            c[0] = dcy[b];
            add_block::<16>(
                &pred_y,
                &inverse4x4(&dequant4x4(&c, qp, true)),
                b % 4,
                b / 4,
                &mut y,
            );
        }
        return Ok(MbOutput {
            pred_mode,
            chroma_mode,
            qp,
            cbp_luma,
            cbp_chroma,
            levels,
            y,
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
            let out = encode_mb(&inp, 0).unwrap();
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
            let out = encode_mb(&input(seed, top, left), 28).unwrap();
            match out.pred_mode {
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
}
