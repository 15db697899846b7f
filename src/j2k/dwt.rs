//! The reversible 5/3 wavelet (ITU-T T.800 Annex F) by lifting, with the standard's
//! whole-sample symmetric extension, for one tile at the origin: every level splits a
//! length `n` into `ceil(n/2)` low-pass and `floor(n/2)` high-pass samples, and a length
//! of 1 passes through unchanged (F.3.7, even start). Coefficients are kept in place the
//! way Mallat's layout draws them: after each level LL top-left, HL top-right, LH
//! bottom-left, HH bottom-right, and the next level works on the LL corner.

use rayon::prelude::*;

/// Subband orientation (the packet and QCD order within a level is HL, LH, HH).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Orientation {
    LL,
    HL,
    LH,
    HH,
}

impl Orientation {
    /// log2 of the nominal gain of the 5/3 analysis for this band (E.1.1.1 / Table E.1).
    pub fn gain_bits(self) -> u32 {
        match self {
            Orientation::LL => 0,
            Orientation::HL | Orientation::LH => 1,
            Orientation::HH => 2,
        }
    }
}

/// One subband's place in the transformed tile-component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subband {
    pub orientation: Orientation,
    /// Decomposition level (1 = finest); the LL band carries the number of levels.
    pub level: u32,
    /// Resolution this band belongs to (0 = the LL band's).
    pub resolution: u32,
    pub x0: usize,
    pub y0: usize,
    pub width: usize,
    pub height: usize,
}

/// Size of the low-pass half after one split.
fn low(n: usize) -> usize {
    n.div_ceil(2)
}

/// The subbands of a `width` x `height` tile-component after `levels` levels, in codestream
/// order: LL, then per resolution (coarsest first) HL, LH, HH.
pub fn subbands(width: usize, height: usize, levels: u32) -> Vec<Subband> {
    // Sizes of the LL region entering each level: sizes[l] is LL after l levels.
    let mut sizes = vec![(width, height)];
    for l in 0..levels as usize {
        let (w, h) = sizes[l];
        sizes.push((low(w), low(h)));
    }
    let (w, h) = sizes[levels as usize];
    let mut out = vec![Subband {
        orientation: Orientation::LL,
        level: levels,
        resolution: 0,
        x0: 0,
        y0: 0,
        width: w,
        height: h,
    }];
    for level in (1..=levels).rev() {
        let (w, h) = sizes[level as usize - 1];
        let (lw, lh) = (low(w), low(h));
        let resolution = levels - level + 1;
        for (orientation, x0, y0, bw, bh) in [
            (Orientation::HL, lw, 0, w - lw, lh),
            (Orientation::LH, 0, lh, lw, h - lh),
            (Orientation::HH, lw, lh, w - lw, h - lh),
        ] {
            out.push(Subband {
                orientation,
                level,
                resolution,
                x0,
                y0,
                width: bw,
                height: bh,
            });
        }
    }
    out
}

/// Reflect index `i` into `0..n` (whole-sample symmetric extension, n >= 2).
#[inline]
fn mirror(i: isize, n: usize) -> usize {
    let n = n as isize;
    let i = if i < 0 { -i } else { i };
    (if i >= n { 2 * (n - 1) - i } else { i }) as usize
}

/// One 1-D forward pass over `x` (start index 0), output low half then high half.
pub fn forward_1d(x: &mut [i32], tmp: &mut Vec<i32>) {
    let n = x.len();
    if n < 2 {
        return;
    }
    // Predict the odd samples, then update the even ones from the new odd samples.
    for k in (1..n).step_by(2) {
        let right = x[mirror(k as isize + 1, n)];
        x[k] -= (x[k - 1] + right) >> 1;
    }
    for k in (0..n).step_by(2) {
        let left = x[mirror(k as isize - 1, n)];
        let right = x[mirror(k as isize + 1, n)];
        x[k] += (left + right + 2) >> 2;
    }
    deinterleave(x, tmp);
}

/// The inverse of [`forward_1d`].
pub fn inverse_1d(x: &mut [i32], tmp: &mut Vec<i32>) {
    let n = x.len();
    if n < 2 {
        return;
    }
    interleave(x, tmp);
    for k in (0..n).step_by(2) {
        let left = x[mirror(k as isize - 1, n)];
        let right = x[mirror(k as isize + 1, n)];
        x[k] -= (left + right + 2) >> 2;
    }
    for k in (1..n).step_by(2) {
        let right = x[mirror(k as isize + 1, n)];
        x[k] += (x[k - 1] + right) >> 1;
    }
}

fn deinterleave(x: &mut [i32], tmp: &mut Vec<i32>) {
    tmp.clear();
    tmp.extend(x.iter().step_by(2));
    tmp.extend(x.iter().skip(1).step_by(2));
    x.copy_from_slice(tmp);
}

fn interleave(x: &mut [i32], tmp: &mut Vec<i32>) {
    let l = low(x.len());
    tmp.clear();
    tmp.resize(x.len(), 0);
    for (i, &v) in x.iter().enumerate() {
        let at = if i < l { 2 * i } else { 2 * (i - l) + 1 };
        tmp[at] = v;
    }
    x.copy_from_slice(tmp);
}

/// Transform the `width` x `height` plane (row-major) in place by `levels` levels: each
/// level columns first, then rows, as F.4.2 orders 2D_SD (the decoder undoes rows first).
/// Lines are independent, so both passes run on all cores.
pub fn forward_2d(data: &mut [i32], width: usize, height: usize, levels: u32) {
    let (mut w, mut h) = (width, height);
    let mut columns_buf = Vec::new();
    for _ in 0..levels {
        columns(data, width, w, h, &mut columns_buf, forward_1d);
        rows(data, width, w, h, forward_1d);
        (w, h) = (low(w), low(h));
    }
}

/// The inverse of [`forward_2d`] (for tests).
pub fn inverse_2d(data: &mut [i32], width: usize, height: usize, levels: u32) {
    let mut sizes = vec![(width, height)];
    for l in 0..levels as usize {
        let (w, h) = sizes[l];
        sizes.push((low(w), low(h)));
    }
    let mut columns_buf = Vec::new();
    for &(w, h) in sizes[..levels as usize].iter().rev() {
        rows(data, width, w, h, inverse_1d);
        columns(data, width, w, h, &mut columns_buf, inverse_1d);
    }
}

/// Lines handed to one task: enough contiguous work per task, and (for the column pass's
/// gather and scatter) several neighbouring words per cache line touched.
const LINES_PER_TASK: usize = 8;

fn rows(data: &mut [i32], stride: usize, w: usize, h: usize, f: fn(&mut [i32], &mut Vec<i32>)) {
    if w == 0 || h == 0 {
        return;
    }
    data.par_chunks_mut(stride)
        .take(h)
        .for_each_init(Vec::new, |tmp, row| f(&mut row[..w], tmp));
}

/// The column pass: columns gathered into `buf` (column-major), transformed there in
/// parallel, scattered back row by row in parallel.
fn columns(
    data: &mut [i32],
    stride: usize,
    w: usize,
    h: usize,
    buf: &mut Vec<i32>,
    f: fn(&mut [i32], &mut Vec<i32>),
) {
    if w == 0 || h == 0 {
        return;
    }
    buf.clear();
    buf.resize(w * h, 0);
    let src: &[i32] = data;
    buf.par_chunks_mut(h * LINES_PER_TASK)
        .enumerate()
        .for_each_init(Vec::new, |tmp, (task, lines)| {
            let x0 = task * LINES_PER_TASK;
            for (y, row) in src.chunks(stride).take(h).enumerate() {
                for (k, &v) in row[x0..].iter().take(lines.len() / h).enumerate() {
                    lines[k * h + y] = v;
                }
            }
            for line in lines.chunks_mut(h) {
                f(line, tmp);
            }
        });
    let cols: &[i32] = buf;
    data.par_chunks_mut(stride * LINES_PER_TASK)
        .take(h.div_ceil(LINES_PER_TASK))
        .enumerate()
        .for_each(|(task, band)| {
            let y0 = task * LINES_PER_TASK;
            for (dy, row) in band.chunks_mut(stride).take(h - y0).enumerate() {
                for (x, v) in row[..w].iter_mut().enumerate() {
                    *v = cols[x * h + y0 + dy];
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_values_1d() {
        let mut tmp = Vec::new();
        let mut x = vec![1, 2, 3, 4, 5];
        forward_1d(&mut x, &mut tmp);
        assert_eq!(x, vec![1, 3, 5, 0, 0]);
        // Negative predictions floor towards minus infinity.
        let mut x = vec![10, 0, 10, 0];
        forward_1d(&mut x, &mut tmp);
        assert_eq!(x, vec![5, 5, -10, -10]);
        // Length 2: X(2) mirrors to X(0); Y(-1) mirrors to Y(1).
        let mut x = vec![7, 3];
        forward_1d(&mut x, &mut tmp);
        assert_eq!(x, vec![7 + ((-4 - 4 + 2) >> 2), 3 - 7]);
        assert_eq!(x, vec![5, -4]);
        let mut x = vec![42];
        forward_1d(&mut x, &mut tmp);
        assert_eq!(x, vec![42]);
    }

    #[test]
    fn hand_values_2d() {
        // A 2x2 block, columns first. Column [1,3]: high 3 - ((1+1)>>1) = 2, low
        // 1 + ((2+2+2)>>2) = 2; column [2,4] -> low 3, high 2. Then rows: [2,3] -> low
        // 2 + ((1+1+2)>>2) = 3, high 1; [2,2] -> low 2, high 0.
        let mut d = vec![1, 2, 3, 4];
        forward_2d(&mut d, 2, 2, 1);
        assert_eq!(d, vec![3, 1, 2, 0]);
    }

    fn noise(n: usize, seed: u64, amp: i32) -> Vec<i32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 33) as i32).rem_euclid(2 * amp + 1) - amp
            })
            .collect()
    }

    #[test]
    fn round_trip_any_size_and_levels() {
        for (w, h) in [
            (1, 1),
            (1, 7),
            (9, 1),
            (2, 2),
            (3, 5),
            (17, 33),
            (67, 33),
            (64, 64),
        ] {
            for levels in [0, 1, 2, 5, 8] {
                let orig = noise(w * h, (w * 131 + h) as u64, 40000);
                let mut d = orig.clone();
                forward_2d(&mut d, w, h, levels);
                if levels > 0 && w * h > 1 {
                    assert_ne!(d, orig, "{w}x{h} levels {levels}");
                }
                inverse_2d(&mut d, w, h, levels);
                assert_eq!(d, orig, "{w}x{h} levels {levels}");
            }
        }
    }

    #[test]
    fn flat_input_leaves_only_ll() {
        let (w, h) = (13, 6);
        let mut d = vec![-5; w * h];
        forward_2d(&mut d, w, h, 3);
        for b in subbands(w, h, 3) {
            for y in b.y0..b.y0 + b.height {
                for x in b.x0..b.x0 + b.width {
                    let want = if b.orientation == Orientation::LL {
                        -5
                    } else {
                        0
                    };
                    assert_eq!(d[y * w + x], want, "{b:?}");
                }
            }
        }
    }

    #[test]
    fn subband_geometry() {
        let bands = subbands(67, 33, 2);
        let dims: Vec<_> = bands
            .iter()
            .map(|b| {
                (
                    b.orientation,
                    b.level,
                    b.resolution,
                    b.x0,
                    b.y0,
                    b.width,
                    b.height,
                )
            })
            .collect();
        use Orientation::*;
        assert_eq!(
            dims,
            vec![
                (LL, 2, 0, 0, 0, 17, 9),
                (HL, 2, 1, 17, 0, 17, 9),
                (LH, 2, 1, 0, 9, 17, 8),
                (HH, 2, 1, 17, 9, 17, 8),
                (HL, 1, 2, 34, 0, 33, 17),
                (LH, 1, 2, 0, 17, 34, 16),
                (HH, 1, 2, 34, 17, 33, 16),
            ]
        );
        // Areas add up, and 1-pixel dimensions give empty high bands.
        let area: usize = bands.iter().map(|b| b.width * b.height).sum();
        assert_eq!(area, 67 * 33);
        let one = subbands(1, 1, 3);
        assert!(one[1..].iter().all(|b| b.width * b.height == 0));
        assert_eq!((one[0].width, one[0].height), (1, 1));
    }
}
