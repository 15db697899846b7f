//! Integer transforms and quantization of Rec. ITU-T H.264 for 4:2:0 8-bit intra
//! macroblocks: the 4x4 core transform, the Intra_16x16 luma DC Hadamard and the 2x2
//! chroma DC transform, forward (encoder side, free to choose) and inverse (clause 8.5,
//! bit exact: this is what every decoder computes). Blocks are 16 values in raster order
//! `y * 4 + x`, flat scaling matrices (Baseline has no others).

/// Quantization multipliers MF (encoder side) by `qp % 6` and position class.
const MF: [[i32; 3]; 6] = [
    [13107, 5243, 8066],
    [11916, 4660, 7490],
    [10082, 4194, 6554],
    [9362, 3647, 5825],
    [8192, 3355, 5243],
    [7282, 2893, 4559],
];

/// normAdjust4x4 v (clause 8.5.9, Table 8-... of v) by `qp % 6` and position class.
const V: [[i32; 3]; 6] = [
    [10, 16, 13],
    [11, 18, 14],
    [13, 20, 16],
    [14, 23, 18],
    [16, 25, 20],
    [18, 29, 23],
];

/// Position class of raster index `pos`: 0 both coordinates even, 1 both odd, 2 mixed.
fn class(pos: usize) -> usize {
    match ((pos % 4) & 1, (pos / 4) & 1) {
        (0, 0) => 0,
        (1, 1) => 1,
        _ => 2,
    }
}

/// LevelScale4x4(m, i, j) with the flat matrix (16 * v).
fn level_scale(qp: u8, pos: usize) -> i32 {
    16 * V[qp as usize % 6][class(pos)]
}

/// Chroma QP (QP'c) from luma QP with chroma_qp_index_offset 0 (Table 8-15).
pub fn chroma_qp(qp: u8) -> u8 {
    const HIGH: [u8; 22] = [
        29, 30, 31, 32, 32, 33, 34, 34, 35, 35, 36, 36, 37, 37, 37, 38, 38, 38, 39, 39, 39, 39,
    ];
    if qp < 30 {
        qp
    } else {
        HIGH[(qp.min(51) - 30) as usize]
    }
}

/// Forward 4x4 core transform W = Cf X Cf^T of a residual block.
pub fn forward4x4(x: &[i32; 16]) -> [i32; 16] {
    let mut t = [0i32; 16];
    for r in 0..4 {
        let (a, b, c, d) = (x[r * 4], x[r * 4 + 1], x[r * 4 + 2], x[r * 4 + 3]);
        let (s03, d03, s12, d12) = (a + d, a - d, b + c, b - c);
        t[r * 4] = s03 + s12;
        t[r * 4 + 1] = 2 * d03 + d12;
        t[r * 4 + 2] = s03 - s12;
        t[r * 4 + 3] = d03 - 2 * d12;
    }
    let mut w = [0i32; 16];
    for c in 0..4 {
        let (a, b, cc, d) = (t[c], t[4 + c], t[8 + c], t[12 + c]);
        let (s03, d03, s12, d12) = (a + d, a - d, b + cc, b - cc);
        w[c] = s03 + s12;
        w[4 + c] = 2 * d03 + d12;
        w[8 + c] = s03 - s12;
        w[12 + c] = d03 - 2 * d12;
    }
    w
}

/// The inverse 4x4 transform of clause 8.5.12.2 on scaled coefficients `d`: rows, then
/// columns, then `(h + 32) >> 6`. The residual to add to the prediction.
pub fn inverse4x4(d: &[i32; 16]) -> [i32; 16] {
    let mut f = [0i32; 16];
    for i in 0..4 {
        let r = &d[i * 4..i * 4 + 4];
        let e0 = r[0] + r[2];
        let e1 = r[0] - r[2];
        let e2 = (r[1] >> 1) - r[3];
        let e3 = r[1] + (r[3] >> 1);
        f[i * 4] = e0 + e3;
        f[i * 4 + 1] = e1 + e2;
        f[i * 4 + 2] = e1 - e2;
        f[i * 4 + 3] = e0 - e3;
    }
    let mut out = [0i32; 16];
    for j in 0..4 {
        let (f0, f1, f2, f3) = (f[j], f[4 + j], f[8 + j], f[12 + j]);
        let g0 = f0 + f2;
        let g1 = f0 - f2;
        let g2 = (f1 >> 1) - f3;
        let g3 = f1 + (f3 >> 1);
        out[j] = (g0 + g3 + 32) >> 6;
        out[4 + j] = (g1 + g2 + 32) >> 6;
        out[8 + j] = (g1 - g2 + 32) >> 6;
        out[12 + j] = (g0 - g3 + 32) >> 6;
    }
    out
}

/// 4x4 Hadamard H c H (H symmetric with rows ++++, ++--, +--+, +-+-), no scaling.
pub(crate) fn hadamard4(c: &[i32; 16]) -> [i32; 16] {
    let mut t = [0i32; 16];
    for r in 0..4 {
        let (a, b, cc, d) = (c[r * 4], c[r * 4 + 1], c[r * 4 + 2], c[r * 4 + 3]);
        t[r * 4] = a + b + cc + d;
        t[r * 4 + 1] = a + b - cc - d;
        t[r * 4 + 2] = a - b - cc + d;
        t[r * 4 + 3] = a - b + cc - d;
    }
    let mut f = [0i32; 16];
    for j in 0..4 {
        let (a, b, cc, d) = (t[j], t[4 + j], t[8 + j], t[12 + j]);
        f[j] = a + b + cc + d;
        f[4 + j] = a + b - cc - d;
        f[8 + j] = a - b - cc + d;
        f[12 + j] = a - b + cc - d;
    }
    f
}

/// Forward luma DC transform of the 16 blocks' W00 (raster block order): (H W H) / 2,
/// rounded.
pub fn forward_luma_dc(dc: &[i32; 16]) -> [i32; 16] {
    hadamard4(dc).map(|v| (v + 1) >> 1)
}

/// Forward chroma DC transform of the 4 blocks' W00 (raster 2x2): H2 W H2.
pub fn forward_chroma_dc(dc: &[i32; 4]) -> [i32; 4] {
    let (a, b, c, d) = (dc[0], dc[1], dc[2], dc[3]);
    [a + b + c + d, a - b + c - d, a + b - c - d, a - b - c + d]
}

/// Dead-zone quantizer: sign(w) * ((|w| * mf + f) >> qbits), rounding offset f = 2/5.
/// Chosen by rate-distortion (`scripts/h264_rd.py`, docs/h264.md): against x264 baseline
/// intra, the BD-rate on the small clips went from +10.4-11.7% (JM's intra 1/3) to
/// +8.9-10.2% against `-preset medium` on testsrc2 and mandelbrot; 1/4, 1/6, 11/32, 9/20
/// and 1/2 did worse.
fn quant(w: i32, mf: i32, qbits: u32) -> i32 {
    let f = (1i64 << qbits) * 2 / 5;
    let q = ((w.unsigned_abs() as i64 * mf as i64 + f) >> qbits) as i32;
    if w < 0 {
        -q
    } else {
        q
    }
}

/// Quantize a 4x4 block of transform coefficients (`from` = 1 leaves position 0, the DC
/// that a separate DC transform carries, at 0).
pub fn quant4x4(w: &[i32; 16], qp: u8, from: usize) -> [i32; 16] {
    let qbits = 15 + qp as u32 / 6;
    let mut z = [0i32; 16];
    for pos in from..16 {
        z[pos] = quant(w[pos], MF[qp as usize % 6][class(pos)], qbits);
    }
    z
}

/// [`quant4x4`] (from position 0) and [`dequant4x4`] (no DC done) of Intra_4x4 luma
/// blocks at one QP, their per-position factors worked out once per macroblock rather
/// than per coefficient: the same values, for the mode decision's many trial blocks.
pub struct Quant4x4 {
    mf: [u32; 16],
    f: u32,
    qbits: u32,
    scale: [i32; 16],
    qp: u8,
}

impl Quant4x4 {
    pub fn new(qp: u8) -> Quant4x4 {
        let qbits = 15 + qp as u32 / 6;
        Quant4x4 {
            mf: std::array::from_fn(|pos| MF[qp as usize % 6][class(pos)] as u32),
            f: ((1i64 << qbits) * 2 / 5) as u32,
            qbits,
            scale: std::array::from_fn(|pos| level_scale(qp, pos)),
            qp,
        }
    }

    /// `quant4x4(w, qp, 0)` for the transform of a residual of 8-bit samples: |w| is at
    /// most 9180 (36 * 255), so |w| * MF + f stays below 2^31 and 32 bits are exact.
    pub fn quant(&self, w: &[i32; 16]) -> [i32; 16] {
        std::array::from_fn(|pos| {
            debug_assert!(w[pos].unsigned_abs() <= 9180);
            let q = ((w[pos].unsigned_abs() * self.mf[pos] + self.f) >> self.qbits) as i32;
            if w[pos] < 0 {
                -q
            } else {
                q
            }
        })
    }

    /// `quant4x4(w, qp, 1)`: position 0 left at 0 (a DC transform carries it).
    pub fn quant_ac(&self, w: &[i32; 16]) -> [i32; 16] {
        let mut z = self.quant(w);
        z[0] = 0;
        z
    }

    /// `dequant4x4(c, qp, true)`: position 0, already scaled, copied.
    pub fn dequant_ac(&self, c: &[i32; 16]) -> [i32; 16] {
        let mut ac = *c;
        ac[0] = 0;
        let mut d = self.dequant(&ac);
        d[0] = c[0];
        d
    }

    /// `dequant4x4(c, qp, false)`.
    pub fn dequant(&self, c: &[i32; 16]) -> [i32; 16] {
        let shift = self.qp as u32 / 6;
        if self.qp >= 24 {
            std::array::from_fn(|pos| (c[pos] * self.scale[pos]) << (shift - 4))
        } else {
            let round = 1 << (3 - shift);
            std::array::from_fn(|pos| (c[pos] * self.scale[pos] + round) >> (4 - shift))
        }
    }
}

/// Quantize DC-transform outputs (luma 16 or chroma 4 values): one more bit of shift.
pub fn quant_dc<const N: usize>(y: &[i32; N], qp: u8) -> [i32; N] {
    let qbits = 16 + qp as u32 / 6;
    y.map(|v| quant(v, MF[qp as usize % 6][0], qbits))
}

/// Scale levels of a 4x4 block (clause 8.5.12.1, flat matrix); position 0 is copied
/// unscaled when `dc_done` (Intra_16x16 luma and chroma blocks, whose DC is already
/// scaled by the DC transform).
pub fn dequant4x4(c: &[i32; 16], qp: u8, dc_done: bool) -> [i32; 16] {
    let mut d = [0i32; 16];
    let shift = qp as u32 / 6;
    for pos in 0..16 {
        d[pos] = if pos == 0 && dc_done {
            c[0]
        } else if qp >= 24 {
            (c[pos] * level_scale(qp, pos)) << (shift - 4)
        } else {
            (c[pos] * level_scale(qp, pos) + (1 << (3 - shift))) >> (4 - shift)
        };
    }
    d
}

/// Inverse Intra_16x16 luma DC transform and scaling (clause 8.5.10): dcY from the DC
/// levels `c` (4x4 matrix over block positions, raster).
pub fn inverse_luma_dc(c: &[i32; 16], qp: u8) -> [i32; 16] {
    let f = hadamard4(c);
    let scale = level_scale(qp, 0);
    let shift = qp as u32 / 6;
    f.map(|v| {
        if qp >= 36 {
            (v * scale) << (shift - 6)
        } else {
            (v * scale + (1 << (5 - shift))) >> (6 - shift)
        }
    })
}

/// Inverse chroma DC transform and scaling for 4:2:0 (clause 8.5.11): dcC from the 2x2
/// DC levels `c` (raster), `qpc` the chroma QP.
pub fn inverse_chroma_dc(c: &[i32; 4], qpc: u8) -> [i32; 4] {
    let f = forward_chroma_dc(c); // the 2x2 transform is its own inverse up to scale
    let scale = level_scale(qpc, 0);
    f.map(|v| ((v * scale) << (qpc as u32 / 6)) >> 5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward4x4_by_hand() {
        // A flat block: only DC, 16 * value.
        assert_eq!(forward4x4(&[3; 16]), {
            let mut w = [0; 16];
            w[0] = 48;
            w
        });
        // One sample at the origin: W = column 0 of Cf times row 0 of Cf^T.
        let mut x = [0; 16];
        x[0] = 1;
        let cf0 = [1, 2, 1, 1];
        let w = forward4x4(&x);
        for i in 0..4 {
            for j in 0..4 {
                assert_eq!(w[i * 4 + j], cf0[i] * cf0[j], "({i},{j})");
            }
        }
        // A horizontal ramp 0,1,2,3 in every row: row transform [6, -7, 0, -1], times 4
        // (the column transform of a constant column) in row 0 only.
        let ramp: [i32; 16] = std::array::from_fn(|p| (p % 4) as i32);
        assert_eq!(
            forward4x4(&ramp),
            [24, -28, 0, -4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        );
    }

    #[test]
    fn inverse4x4_by_hand() {
        // DC 64 alone: every residual (64 + 32) >> 6 = 1.
        let mut d = [0; 16];
        d[0] = 64;
        assert_eq!(inverse4x4(&d), [1; 16]);
        // d01 = 64 (horizontal frequency 1): rows e = [0, 0, 32, 64] -> f = [64, 32, -32,
        // -64] in row 0; columns spread them unchanged: residuals 1, 1, 0 ((-32+32)>>6), -1.
        let mut d = [0; 16];
        d[1] = 64;
        let r = inverse4x4(&d);
        for row in 0..4 {
            assert_eq!(&r[row * 4..row * 4 + 4], &[1, 1, 0, -1]);
        }
        // The odd basis function's >> 1 rounding: d01 = 1 gives e2 = 0, e3 = 1.
        let mut d = [0; 16];
        d[1] = 1;
        assert_eq!(inverse4x4(&d), [0; 16]);
    }

    #[test]
    fn round_trip_reconstructs_within_quantization_error() {
        let mut seed = 0x1234_5678u32;
        for qp in [0u8, 10, 22, 28, 37, 51] {
            for _ in 0..200 {
                let x: [i32; 16] = std::array::from_fn(|_| {
                    seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (seed >> 24) as i32 - 128
                });
                let z = quant4x4(&forward4x4(&x), qp, 0);
                let r = inverse4x4(&dequant4x4(&z, qp, false));
                // Qstep is 0.625 * 2^(qp/6); the error stays within a few steps.
                let qstep = 0.625 * 2f64.powf(qp as f64 / 6.0);
                for p in 0..16 {
                    assert!(
                        ((r[p] - x[p]).abs() as f64) <= 2.0 * qstep + 1.0,
                        "qp {qp}: {x:?} -> {r:?}"
                    );
                }
            }
        }
        // QP 0 on a flat block is lossless.
        let z = quant4x4(&forward4x4(&[37; 16]), 0, 0);
        assert_eq!(inverse4x4(&dequant4x4(&z, 0, false)), [37; 16]);
    }

    #[test]
    fn dc_transforms_by_hand() {
        // One DC level 1 at block (0,0): H c H spreads +1 everywhere; at QP 36..41 the
        // scale is (1 * 16 * 10) << 0 = 160 at qp 36.
        let mut c = [0; 16];
        c[0] = 1;
        assert_eq!(inverse_luma_dc(&c, 36), [160; 16]);
        // At QP 0: (1 * 160 + 32) >> 6 = 3.
        assert_eq!(inverse_luma_dc(&c, 0), [3; 16]);
        // A DC level at (1,0): sign pattern of H's column 1 (+,+,-,-) across x, + down y.
        let mut c = [0; 16];
        c[1] = 1;
        let f = inverse_luma_dc(&c, 36);
        assert_eq!(&f[0..4], &[160, 160, -160, -160]);
        assert_eq!(&f[12..16], &[160, 160, -160, -160]);
        // Chroma: c = [1, 0, 0, 0] -> f = 1 everywhere; qpc 0: (16*10 << 0) >> 5 = 5.
        assert_eq!(inverse_chroma_dc(&[1, 0, 0, 0], 0), [5; 4]);
        assert_eq!(inverse_chroma_dc(&[0, 1, 0, 0], 6), [10, -10, 10, -10]);
        // Forward chroma DC by hand.
        assert_eq!(forward_chroma_dc(&[1, 2, 3, 4]), [10, -2, -4, 0]);
        // Forward luma DC of a constant 8: H c H = 16 * 8 at 0 only, halved.
        let mut e = [0; 16];
        e[0] = 64;
        assert_eq!(forward_luma_dc(&[8; 16]), e);
    }

    #[test]
    fn quant4x4_tables_match_the_plain_functions() {
        let mut seed = 0x9e37_79b9u32;
        for qp in 0..52u8 {
            let q = Quant4x4::new(qp);
            for k in 0..300 {
                // Random residuals, and the extremes of +-255 whose transforms are largest.
                let x: [i32; 16] = std::array::from_fn(|p| {
                    seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    match k % 3 {
                        0 => (seed >> 23) as i32 - 255,
                        1 => {
                            if (seed >> 31) == 0 {
                                255
                            } else {
                                -255
                            }
                        }
                        _ => {
                            if (p + k) % 2 == 0 {
                                255
                            } else {
                                -255
                            }
                        }
                    }
                });
                let w = forward4x4(&x);
                let z = q.quant(&w);
                assert_eq!(z, quant4x4(&w, qp, 0), "qp {qp}");
                assert_eq!(q.dequant(&z), dequant4x4(&z, qp, false), "qp {qp}");
                assert_eq!(q.quant_ac(&w), quant4x4(&w, qp, 1), "qp {qp}");
                let mut c = z;
                c[0] = w[0] * 7; // a DC far outside the levels' range, copied as it is
                assert_eq!(q.dequant_ac(&c), dequant4x4(&c, qp, true), "qp {qp}");
            }
        }
    }

    #[test]
    fn scaling_by_hand() {
        // qp 28: m = 4, v = (16, 25, 20), shift 4 -> c * 16 * v.
        let mut c = [0; 16];
        c[0] = 1;
        c[5] = -1;
        c[1] = 2;
        let d = dequant4x4(&c, 28, false);
        assert_eq!((d[0], d[5], d[1]), (16 * 16, -16 * 25, 2 * 16 * 20));
        // qp 3 (< 24): (c * 16 * 14 + 8) >> 4 = c * 14.
        assert_eq!(dequant4x4(&c, 3, false)[0], 14);
        assert_eq!(dequant4x4(&c, 3, true)[0], 1);
        assert_eq!(chroma_qp(29), 29);
        assert_eq!(chroma_qp(30), 29);
        assert_eq!(chroma_qp(40), 36);
        assert_eq!(chroma_qp(51), 39);
    }
}
