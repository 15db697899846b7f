//! The luma of an I_NxN (Intra_4x4) macroblock: per 4x4 block in decoding order, the
//! mode by SATD plus lambda times its syntax bits (x264's intra analysis: 1 bit when it
//! is the predicted mode, 4 otherwise), then the
//! block's transform, quantization and reconstruction at once, since the next block
//! predicts from it.

use super::macroblock::{codable, zigzag};
use super::predict::Neighbours;
use super::predict4x4::{
    blk_idx, mode_syntax, predict4x4, predicted_mode, Edge, NeighbourMode, I4_MODES,
};
use super::rate::{rd_cost, EdgeCoeffs};
use super::transform::{forward4x4, inverse4x4, Quant4x4};
use crate::cavlc::cpu::{block_bits_nc, luma4x4_bits_floor};
use crate::cavlc::frame::LUMA_CODING_ORDER;
use crate::cavlc::BlockKind;

/// x264's lambda by QP (2^(QP/6 - 2), at least 1): the weight of one header bit against
/// SATD.
const LAMBDA: [u32; 52] = [
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 6, 6, 7, 8, 9,
    10, 11, 13, 14, 16, 18, 20, 23, 25, 29, 32, 36, 40, 45, 51, 57, 64, 72, 81, 91,
];

pub fn lambda(qp: u8) -> u32 {
    LAMBDA[qp.min(51) as usize]
}

/// The macroblock's surroundings as Intra_4x4 sees them.
pub struct Context<'a> {
    /// Source luma, 16x16 raster.
    pub src: &'a [u8; 256],
    /// Reconstructed neighbour samples of the macroblock.
    pub n: &'a Neighbours<16>,
    /// The bottom-left four samples of the macroblock above and to the right.
    pub top_right: Option<[u8; 4]>,
    /// The modes of the left macroblock's right column (blocks (3, y), y = 0..3).
    pub left_modes: [NeighbourMode; 4],
    /// The modes of the upper macroblock's bottom row (blocks (x, 3), x = 0..3).
    pub top_modes: [NeighbourMode; 4],
    /// TotalCoeff of the luma blocks along the left and upper edges.
    pub luma_tc: EdgeCoeffs,
}

/// An Intra_4x4 luma coded at one QP.
pub struct Luma4x4 {
    /// Intra4x4PredMode per block, raster block order.
    pub modes: [u32; 16],
    /// The mode syntax per luma4x4BlkIdx, as [`crate::cavlc::frame::MbHeader::intra4x4_modes`].
    pub syntax: [u32; 2],
    /// Levels per block (raster block order), each raster `y * 4 + x`.
    pub levels: [[i32; 16]; 16],
    /// Bit `b8` set where the 8x8 quadrant has a nonzero level.
    pub cbp_luma: u32,
    pub recon: [u8; 256],
    /// Each block's CAVLC bits with its nC (raster), for the choice of macroblock type.
    pub bits: [u32; 16],
}

/// How many of a block's modes, the cheapest by SATD, are coded to be compared by rate
/// and distortion.
const RD_CANDIDATES: usize = 5;

/// `satd::<4>` of one 4x4 block, for the nine modes of every block.
fn satd4x4(a: &[u8; 16], b: &[u8; 16]) -> u32 {
    hadamard_abs_sum(a, b) / 2
}

/// The sum of the absolute 4x4 Hadamard transform of `a - b` (rows then columns), not
/// yet halved: written out, since the mode decisions take it of every prediction.
pub(super) fn hadamard_abs_sum(a: &[u8; 16], b: &[u8; 16]) -> u32 {
    let d: [i32; 16] = std::array::from_fn(|p| a[p] as i32 - b[p] as i32);
    let mut t = [0i32; 16];
    for r in 0..4 {
        let (s01, d01) = (d[r * 4] + d[r * 4 + 1], d[r * 4] - d[r * 4 + 1]);
        let (s23, d23) = (d[r * 4 + 2] + d[r * 4 + 3], d[r * 4 + 2] - d[r * 4 + 3]);
        t[r * 4] = s01 + s23;
        t[r * 4 + 1] = s01 - s23;
        t[r * 4 + 2] = d01 - d23;
        t[r * 4 + 3] = d01 + d23;
    }
    let mut sum = 0u32;
    for c in 0..4 {
        let (s01, d01) = (t[c] + t[4 + c], t[c] - t[4 + c]);
        let (s23, d23) = (t[8 + c] + t[12 + c], t[8 + c] - t[12 + c]);
        sum += (s01 + s23).unsigned_abs()
            + (s01 - s23).unsigned_abs()
            + (d01 - d23).unsigned_abs()
            + (d01 + d23).unsigned_abs();
    }
    sum
}

/// A 4x4 block coded from one prediction: its levels, reconstruction, squared error,
/// TotalCoeff, and its CAVLC bits once counted.
#[derive(Clone, Copy)]
struct Trial {
    z: [i32; 16],
    recon: [u8; 16],
    ssd: u32,
    total_coeff: u32,
    bits: Option<u32>,
}

/// A 4x4 block's levels and reconstruction from prediction `pred` with `q`; `None` when
/// Baseline CAVLC cannot code the levels.
fn code_block(src: &[u8; 16], pred: &[u8; 16], q: &Quant4x4) -> Option<Trial> {
    let residual: [i32; 16] = std::array::from_fn(|p| src[p] as i32 - pred[p] as i32);
    let z = q.quant(&forward4x4(&residual));
    if !codable(&zigzag(&z), BlockKind::Luma4x4) {
        return None;
    }
    let total_coeff = z.iter().map(|&v| (v != 0) as u32).sum::<u32>();
    let recon = if total_coeff == 0 {
        *pred // the inverse transform of nothing adds nothing
    } else {
        let r = inverse4x4(&q.dequant(&z));
        std::array::from_fn(|p| (pred[p] as i32 + r[p]).clamp(0, 255) as u8)
    };
    let ssd = (0..16)
        .map(|p| (src[p] as i32 - recon[p] as i32).pow(2) as u32)
        .sum();
    Some(Trial {
        z,
        recon,
        ssd,
        total_coeff,
        bits: None,
    })
}

/// Code the luma of `ctx` as Intra_4x4 at `qp`, every block in `force` where its
/// neighbours allow that mode (the others choose freely); `None` when some block's
/// levels cannot be coded in Baseline CAVLC at this QP, or when its cost as the choice
/// of macroblock type counts it ([`rd_cost`] of its squared error and
/// [`super::rate::luma_bits`]) cannot come below `limit`.
pub fn encode_luma4x4(
    ctx: &Context<'_>,
    qp: u8,
    force: Option<u32>,
    limit: Option<u64>,
) -> Option<Luma4x4> {
    let lambda = lambda(qp);
    let q = Quant4x4::new(qp);
    let mut out = Luma4x4 {
        modes: [0; 16],
        syntax: [0; 2],
        levels: [[0; 16]; 16],
        cbp_luma: 0,
        recon: [0; 256],
        bits: [0; 16],
    };
    // What the blocks so far add to that cost at least: their squared error, mb_type
    // and coded_block_pattern (a bit each at least), their mode fields, and the
    // residual of each block with a level (its 8x8 quadrant is coded).
    let (mut ssd_so_far, mut bits_so_far) = (0u64, 2u32);
    for (idx, &raster) in LUMA_CODING_ORDER.iter().enumerate() {
        let (bx, by) = (raster % 4, raster / 4);
        debug_assert_eq!(blk_idx(bx, by), idx);
        let a = if bx > 0 {
            NeighbourMode::Mode(out.modes[raster - 1])
        } else {
            ctx.left_modes[by]
        };
        let b = if by > 0 {
            NeighbourMode::Mode(out.modes[raster - 4])
        } else {
            ctx.top_modes[bx]
        };
        let pred_mode = predicted_mode(a, b);
        let edge = Edge::of_block(&out.recon, ctx.n, ctx.top_right, bx, by);
        let src: [u8; 16] =
            std::array::from_fn(|p| ctx.src[(by * 4 + p / 4) * 16 + bx * 4 + p % 4]);

        let tc = |b: &[i32; 16]| b.iter().filter(|&&v| v != 0).count() as u8;
        let nc = ctx.luma_tc.luma_nc(raster, |r| tc(&out.levels[r]));

        // Candidates: the forced mode where it predicts, else every mode by SATD plus
        // lambda times its syntax bits, the best RD_CANDIDATES of them then coded.
        let mut modes = [0u32; I4_MODES as usize];
        let mut preds = [[0u8; 16]; I4_MODES as usize];
        let mut satds = [0u32; I4_MODES as usize];
        let mut n = 0;
        for m in 0..I4_MODES {
            if let Some(p) = predict4x4(m, &edge) {
                let bits = if m == pred_mode { 1 } else { 4 };
                (modes[n], preds[n], satds[n]) = (m, p, satd4x4(&p, &src) + lambda * bits);
                n += 1;
            }
        }
        // Sorted by SATD cost, ties in mode order (a stable sort, as before).
        let mut order: [usize; I4_MODES as usize] = std::array::from_fn(|i| i);
        let candidates = match force.and_then(|f| modes[..n].iter().position(|&m| m == f)) {
            Some(i) => &order[i..=i],
            None => {
                // Insertion sort: stable, and short for nine at most.
                for k in 1..n {
                    let mut j = k;
                    while j > 0 && satds[order[j - 1]] > satds[order[j]] {
                        order.swap(j - 1, j);
                        j -= 1;
                    }
                }
                &order[..n.min(RD_CANDIDATES)]
            }
        };
        // The one with the least squared error plus lambda times its bits. Modes often
        // predict the same samples (flat edges): those are coded once.
        let mut trials: [([u8; 16], Option<Trial>); RD_CANDIDATES] =
            [([0; 16], None); RD_CANDIDATES];
        let mut tried = 0;
        let mut best: Option<(u64, u32, usize)> = None;
        for &i in candidates {
            let (m, pred) = (modes[i], &preds[i]);
            let t = match trials[..tried].iter().position(|t| t.0 == *pred) {
                Some(t) => t,
                None => {
                    trials[tried] = (*pred, code_block(&src, pred, &q));
                    tried += 1;
                    tried - 1
                }
            };
            let Some(trial) = &mut trials[t].1 else {
                continue;
            };
            let mode_bits = if m == pred_mode { 1 } else { 4 };
            // A floor under the bits from TotalCoeff gives a floor under the cost that,
            // already no better than the best, settles it without counting the bits
            // (cost grows with bits, rounding included).
            if let Some((best_cost, ..)) = best {
                let floor = mode_bits + luma4x4_bits_floor(trial.total_coeff, nc);
                let least = rd_cost(trial.ssd as u64, floor, qp);
                if least >= best_cost {
                    continue;
                }
            }
            let block = *trial
                .bits
                .get_or_insert_with(|| block_bits_nc(&zigzag(&trial.z), nc));
            let cost = rd_cost(trial.ssd as u64, mode_bits + block, qp);
            if best.as_ref().is_none_or(|b| cost < b.0) {
                best = Some((cost, m, t));
            }
        }
        let (_, mode, t) = best?;
        let Some(Trial {
            z,
            recon,
            ssd,
            total_coeff,
            bits: Some(bits),
        }) = trials[t].1
        else {
            return None; // the best always has its bits counted
        };
        ssd_so_far += ssd as u64;
        bits_so_far +=
            if mode == pred_mode { 1 } else { 4 } + if total_coeff > 0 { bits } else { 0 };
        if limit.is_some_and(|l| rd_cost(ssd_so_far, bits_so_far, qp) >= l) {
            return None;
        }
        out.bits[raster] = bits;
        out.modes[raster] = mode;
        out.syntax[idx / 8] |= mode_syntax(mode, pred_mode) << (4 * (idx % 8));
        if z.iter().any(|&v| v != 0) {
            out.cbp_luma |= 1 << ((by / 2) * 2 + bx / 2);
        }
        for (row, pixels) in recon.chunks_exact(4).enumerate() {
            out.recon[(by * 4 + row) * 16 + bx * 4..][..4].copy_from_slice(pixels);
        }
        out.levels[raster] = z;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::h264::macroblock::satd;
    use crate::h264::transform::hadamard4;

    #[test]
    fn satd4x4_is_satd() {
        let mut rng = crate::testdata::SplitMix64(5);
        for k in 0..20_000 {
            let mut a = [0u8; 16];
            let mut b = [0u8; 16];
            rng.fill(&mut a);
            rng.fill(&mut b);
            if k % 4 == 0 {
                b = a.map(|v| v.saturating_add((k % 7) as u8)); // small differences
            }
            let d: [i32; 16] = std::array::from_fn(|p| a[p] as i32 - b[p] as i32);
            let plain: u32 = hadamard4(&d).iter().map(|v| v.unsigned_abs()).sum();
            assert_eq!(hadamard_abs_sum(&a, &b), plain, "{a:?} {b:?}");
            assert_eq!(satd4x4(&a, &b), satd::<4>(&a, &b), "{a:?} {b:?}");
        }
    }
}
