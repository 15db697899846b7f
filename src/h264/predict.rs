//! Intra_16x16 luma prediction (clause 8.3.3) and 4:2:0 chroma intra prediction (clause
//! 8.3.4), exactly as a decoder computes them from the reconstructed neighbours.

/// The samples around an N x N block: the row above, the column to the left and the
/// corner, each `None` when that macroblock is outside the picture or in another slice.
#[derive(Clone, Copy, Debug)]
pub struct Neighbours<const N: usize> {
    pub top: Option<[u8; N]>,
    pub left: Option<[u8; N]>,
    pub top_left: Option<u8>,
}

/// Intra16x16PredMode values.
pub const I16_VERTICAL: u32 = 0;
pub const I16_HORIZONTAL: u32 = 1;
pub const I16_DC: u32 = 2;
pub const I16_PLANE: u32 = 3;

/// intra_chroma_pred_mode values.
pub const CHROMA_DC: u32 = 0;
pub const CHROMA_HORIZONTAL: u32 = 1;
pub const CHROMA_VERTICAL: u32 = 2;
pub const CHROMA_PLANE: u32 = 3;

fn sum(s: &[u8]) -> u32 {
    s.iter().map(|&v| v as u32).sum()
}

fn clip1(v: i32) -> u8 {
    v.clamp(0, 255) as u8
}

/// Plane prediction of an N x N block (N = 16 luma, 8 chroma): H, V over N/2 samples
/// each side of the centre, with the corner as sample -1.
fn plane<const N: usize>(
    top: &[u8; N],
    left: &[u8; N],
    corner: u8,
    out: &mut [u8],
    (mul, shift): (i32, u32),
) {
    let half = N / 2;
    let at = |s: &[u8; N], i: isize| -> i32 {
        if i < 0 {
            corner as i32
        } else {
            s[i as usize] as i32
        }
    };
    let (mut h, mut v) = (0i32, 0i32);
    for k in 0..half as isize {
        h += (k as i32 + 1) * (at(top, half as isize + k) - at(top, half as isize - 2 - k));
        v += (k as i32 + 1) * (at(left, half as isize + k) - at(left, half as isize - 2 - k));
    }
    let a = 16 * (left[N - 1] as i32 + top[N - 1] as i32);
    let b = (mul * h + (1 << (shift - 1))) >> shift;
    let c = (mul * v + (1 << (shift - 1))) >> shift;
    let centre = half as i32 - 1;
    for y in 0..N {
        for x in 0..N {
            out[y * N + x] =
                clip1((a + b * (x as i32 - centre) + c * (y as i32 - centre) + 16) >> 5);
        }
    }
}

/// The Intra_16x16 prediction for `mode`, or `None` when the mode needs a neighbour that
/// is not available.
pub fn luma16(mode: u32, n: &Neighbours<16>) -> Option<[u8; 256]> {
    let mut out = [0u8; 256];
    match mode {
        I16_VERTICAL => {
            let top = n.top?;
            for row in out.chunks_exact_mut(16) {
                row.copy_from_slice(&top);
            }
        }
        I16_HORIZONTAL => {
            let left = n.left?;
            for (row, &l) in out.chunks_exact_mut(16).zip(&left) {
                row.fill(l);
            }
        }
        I16_DC => {
            let dc = match (&n.top, &n.left) {
                (Some(t), Some(l)) => (sum(t) + sum(l) + 16) >> 5,
                (None, Some(l)) => (sum(l) + 8) >> 4,
                (Some(t), None) => (sum(t) + 8) >> 4,
                (None, None) => 128,
            };
            out.fill(dc as u8);
        }
        I16_PLANE => plane(&n.top?, &n.left?, n.top_left?, &mut out, (5, 6)),
        _ => return None,
    }
    Some(out)
}

/// The chroma prediction (one 8x8 component of a 4:2:0 macroblock) for
/// intra_chroma_pred_mode `mode`, or `None` when a needed neighbour is missing.
pub fn chroma8(mode: u32, n: &Neighbours<8>) -> Option<[u8; 64]> {
    let mut out = [0u8; 64];
    match mode {
        CHROMA_DC => {
            // Per 4x4 block (clause 8.3.4.1-3): the corner blocks (0,0) and (1,1) use both
            // edges, (1,0) prefers the top, (0,1) prefers the left.
            for (bx, by) in [(0usize, 0usize), (1, 0), (0, 1), (1, 1)] {
                let t = n.top.map(|t| sum(&t[bx * 4..bx * 4 + 4]));
                let l = n.left.map(|l| sum(&l[by * 4..by * 4 + 4]));
                let dc = match (bx, by, t, l) {
                    (1, 0, Some(t), _) => (t + 2) >> 2,
                    (0, 1, _, Some(l)) => (l + 2) >> 2,
                    (_, _, Some(t), Some(l)) => (t + l + 4) >> 3,
                    (_, _, Some(t), None) => (t + 2) >> 2,
                    (_, _, None, Some(l)) => (l + 2) >> 2,
                    (_, _, None, None) => 128,
                };
                for y in 0..4 {
                    out[(by * 4 + y) * 8 + bx * 4..][..4].fill(dc as u8);
                }
            }
        }
        CHROMA_HORIZONTAL => {
            let left = n.left?;
            for (row, &l) in out.chunks_exact_mut(8).zip(&left) {
                row.fill(l);
            }
        }
        CHROMA_VERTICAL => {
            let top = n.top?;
            for row in out.chunks_exact_mut(8) {
                row.copy_from_slice(&top);
            }
        }
        CHROMA_PLANE => plane(&n.top?, &n.left?, n.top_left?, &mut out, (34, 6)),
        _ => return None,
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dc_and_availability() {
        let none = Neighbours::<16> {
            top: None,
            left: None,
            top_left: None,
        };
        assert_eq!(luma16(I16_DC, &none), Some([128; 256]));
        assert_eq!(luma16(I16_VERTICAL, &none), None);
        assert_eq!(luma16(I16_PLANE, &none), None);
        let top_only = Neighbours::<16> {
            top: Some([10; 16]),
            ..none
        };
        assert_eq!(luma16(I16_DC, &top_only), Some([10; 256]));
        // Chroma DC with only the left column: each block row takes its left 4 samples.
        let mut left = [0u8; 8];
        left[4..].fill(200);
        let c = chroma8(
            CHROMA_DC,
            &Neighbours::<8> {
                top: None,
                left: Some(left),
                top_left: None,
            },
        )
        .unwrap();
        assert_eq!((c[0], c[7], c[56], c[63]), (0, 0, 200, 200));
        // Both edges: block (1,0) uses only the top, (0,1) only the left.
        let c = chroma8(
            CHROMA_DC,
            &Neighbours::<8> {
                top: Some([100; 8]),
                left: Some(left),
                top_left: Some(0),
            },
        )
        .unwrap();
        assert_eq!(c[0], 50); // (400 + 0 + 4) >> 3
        assert_eq!(c[7], 100); // top only
        assert_eq!(c[56], 200); // left only
        assert_eq!(c[63], 150); // (400 + 800 + 4) >> 3
    }

    #[test]
    fn plane_of_a_ramp_is_the_ramp() {
        // Neighbours sampled from p(x, y) = 8 + 4x + 2y (x, y from -1): plane prediction
        // reproduces the ramp exactly inside the block.
        let p = |x: i32, y: i32| (8 + 4 * (x + 1) + 2 * (y + 1)) as u8;
        let n = Neighbours::<16> {
            top: Some(std::array::from_fn(|x| p(x as i32, -1))),
            left: Some(std::array::from_fn(|y| p(-1, y as i32))),
            top_left: Some(p(-1, -1)),
        };
        let out = luma16(I16_PLANE, &n).unwrap();
        for y in 0..16 {
            for x in 0..16 {
                let want = p(x, y) as i32;
                let got = out[(y * 16 + x) as usize] as i32;
                // 5 * H / 64 approximates 4 per sample to within rounding of the slope.
                assert!((want - got).abs() <= 2, "({x},{y}): {got} vs {want}");
            }
        }
    }
}
