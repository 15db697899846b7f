//! Seeded random CAVLC frames for the tests and the benchmark's stand-in input: I_16x16
//! and I_NxN macroblocks with random patterns, modes and slices, and blocks drawn to hit
//! every coeff_token table (nC 0-1, 2-3, 4-7, >= 8), level escapes up to the Baseline
//! limit, trailing-ones edge cases, and all-zero and all-nonzero blocks.

use super::frame::{Frame, MbHeader, MB_BLOCKS};
use crate::testdata::SplitMix64;

/// Largest magnitude every context can code (level_code - 30 < 4096 at suffixLength 0).
pub const MAX_CODABLE_LEVEL: i32 = 2063;

/// How a random frame is drawn.
#[derive(Clone, Copy, Debug)]
pub struct RandomFrame {
    pub width_mbs: u32,
    pub height_mbs: u32,
    /// Share of I_16x16 macroblocks, 0..=1.
    pub intra16x16: f64,
    /// Slices (at most one per macroblock); boundaries are random.
    pub slices: u32,
    /// Share of coded positions left zero on average, 0..=1 (a dial for the density).
    pub sparsity: f64,
}

impl RandomFrame {
    pub fn new(width_mbs: u32, height_mbs: u32) -> Self {
        RandomFrame {
            width_mbs,
            height_mbs,
            intra16x16: 0.5,
            slices: 1,
            sparsity: 0.5,
        }
    }

    pub fn generate(&self, seed: u64) -> Frame {
        let mut rng = SplitMix64(seed);
        let n = (self.width_mbs * self.height_mbs) as usize;
        let mut frame = Frame::new(self.width_mbs, self.height_mbs);
        // Slice boundaries: distinct random macroblocks, indices that may skip numbers.
        let mut starts: Vec<usize> = (1..self.slices.min(n as u32))
            .map(|_| 1 + rng.below(n.max(2) as u64 - 1) as usize)
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let mut slice = 0u32;
        let mut next = starts.iter().peekable();
        for mb in 0..n {
            if next.peek() == Some(&&mb) {
                next.next();
                slice += 1 + rng.below(2) as u32;
            }
            let h = if (rng.below(1 << 20) as f64) < self.intra16x16 * (1 << 20) as f64 {
                MbHeader::intra16x16(
                    rng.below(4) as u32,
                    if rng.below(4) == 0 { 0 } else { 15 },
                    rng.below(3) as u32,
                    rng.below(4) as u32,
                    rng.below(52) as i32 - 26,
                    slice,
                )
            } else {
                let mut modes = [0u32; 2];
                for i in 0..16 {
                    modes[i / 8] |= (rng.below(9) as u32) << (4 * (i % 8));
                }
                MbHeader {
                    mb_type: 0,
                    intra_chroma_pred_mode: rng.below(4) as u32,
                    mb_qp_delta: rng.below(52) as i32 - 26,
                    slice,
                    coded_block_pattern: (rng.below(16) as u32) | ((rng.below(3) as u32) << 4),
                    intra4x4_modes: modes,
                    _pad: 0,
                }
            };
            frame.mbs[mb] = h;
            let sparsity = self.sparsity;
            let levels = frame.mb_levels_mut(mb);
            for blk in 0..MB_BLOCKS {
                random_block(&mut rng, &mut levels[blk * 16..(blk + 1) * 16], sparsity);
                for (pos, l) in levels[blk * 16..(blk + 1) * 16].iter_mut().enumerate() {
                    if !h.codes_level(blk, pos) {
                        *l = 0;
                    }
                }
            }
        }
        frame
    }
}

/// One block's 16 raster levels: a density class (empty, sparse, medium, dense, full) and
/// a magnitude class (trailing-one runs, small, escapes, near the limit).
fn random_block(rng: &mut SplitMix64, out: &mut [i16], sparsity: f64) {
    let density = match rng.below(8) {
        0 => 0.0,
        1 => 1.0,
        2 => 0.1,
        3 => 0.3,
        4 => 0.6,
        _ => 1.0 - sparsity,
    };
    let magnitudes = rng.below(6);
    for l in out.iter_mut() {
        if (rng.below(1000) as f64) >= density * 1000.0 {
            *l = 0;
            continue;
        }
        let m: i32 = match magnitudes {
            0 | 1 => 1,
            2 => 1 + rng.below(3) as i32,
            3 => 1 + rng.below(20) as i32,
            4 => {
                if rng.below(4) == 0 {
                    MAX_CODABLE_LEVEL - rng.below(64) as i32
                } else {
                    1 + rng.below(2) as i32
                }
            }
            _ => {
                let cap = rng.below(MAX_CODABLE_LEVEL as u64) + 1;
                1 + rng.below(cap) as i32
            }
        };
        *l = if rng.below(2) == 0 { m } else { -m } as i16;
    }
}
