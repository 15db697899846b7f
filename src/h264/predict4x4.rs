//! Intra_4x4 luma prediction (clause 8.3.1): the nine modes, the neighbouring samples of
//! each 4x4 block with the standard's availability rules, and the prediction of the mode
//! itself (predIntra4x4PredMode, clause 8.3.1.1).

use super::predict::Neighbours;

/// Intra4x4PredMode values (Table 8-2).
pub const I4_VERTICAL: u32 = 0;
pub const I4_HORIZONTAL: u32 = 1;
pub const I4_DC: u32 = 2;
pub const I4_DIAGONAL_DOWN_LEFT: u32 = 3;
pub const I4_DIAGONAL_DOWN_RIGHT: u32 = 4;
pub const I4_VERTICAL_RIGHT: u32 = 5;
pub const I4_HORIZONTAL_DOWN: u32 = 6;
pub const I4_VERTICAL_LEFT: u32 = 7;
pub const I4_HORIZONTAL_UP: u32 = 8;
pub const I4_MODES: u32 = 9;

/// luma4x4BlkIdx of the 4x4 block at (`bx`, `by`) (in blocks) of a macroblock.
pub fn blk_idx(bx: usize, by: usize) -> usize {
    (by / 2) * 8 + (bx / 2) * 4 + (by % 2) * 2 + bx % 2
}

/// The samples a 4x4 block predicts from: p[x, -1] for x = 0..7 (the top-right four
/// already substituted by p[3, -1] where the standard says so), p[-1, y] for y = 0..3,
/// and p[-1, -1]; `None` where not available for Intra_4x4 prediction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub top: Option<[u8; 8]>,
    pub left: Option<[u8; 4]>,
    pub top_left: Option<u8>,
}

impl Edge {
    /// The edge of block (`bx`, `by`) of a macroblock whose luma reconstructed so far is
    /// `recon` (16x16, raster; blocks before this one in luma4x4BlkIdx order are final),
    /// with the macroblock's neighbours `n` and the four samples of the macroblock above
    /// and to the right, `top_right` (`None` when not available).
    ///
    /// Clause 6.4.11.4: the top-right block is available only where it was decoded before
    /// this one, which rules out blocks 3, 7, 11, 13 and 15 (and 5 outside the picture
    /// or slice: the macroblock above-right); missing top-right samples are replaced by
    /// p[3, -1] when the top is there (clause 8.3.1.2).
    pub fn of_block(
        recon: &[u8; 256],
        n: &Neighbours<16>,
        top_right: Option<[u8; 4]>,
        bx: usize,
        by: usize,
    ) -> Edge {
        let (x0, y0) = (bx * 4, by * 4);
        let row =
            |y: usize, x: usize| -> [u8; 4] { std::array::from_fn(|i| recon[y * 16 + x + i]) };
        let top4: Option<[u8; 4]> = if by > 0 {
            Some(row(y0 - 1, x0))
        } else {
            n.top.map(|t| std::array::from_fn(|i| t[x0 + i]))
        };
        let tr4: Option<[u8; 4]> = if by > 0 {
            (bx < 3 && blk_idx(bx + 1, by - 1) < blk_idx(bx, by)).then(|| row(y0 - 1, x0 + 4))
        } else if bx < 3 {
            n.top.map(|t| std::array::from_fn(|i| t[x0 + 4 + i]))
        } else {
            top_right
        };
        let top = top4.map(|t| {
            let tr = tr4.unwrap_or([t[3]; 4]);
            std::array::from_fn(|i| if i < 4 { t[i] } else { tr[i - 4] })
        });
        let left = if bx > 0 {
            Some(std::array::from_fn(|i| recon[(y0 + i) * 16 + x0 - 1]))
        } else {
            n.left.map(|l| std::array::from_fn(|i| l[y0 + i]))
        };
        let top_left = match (bx > 0, by > 0) {
            (true, true) => Some(recon[(y0 - 1) * 16 + x0 - 1]),
            (false, true) => n.left.map(|l| l[y0 - 1]),
            (true, false) => n.top.map(|t| t[x0 - 1]),
            (false, false) => n.top_left,
        };
        Edge {
            top,
            left,
            top_left,
        }
    }
}

/// The Intra_4x4 prediction (16 samples, raster) of `mode` from `e`, or `None` when the
/// mode needs samples that are not available.
pub fn predict4x4(mode: u32, e: &Edge) -> Option<[u8; 16]> {
    // p[x, -1] for x = -1..7 and p[-1, y] for y = -1..3, the corner at index -1 of both.
    let full = |need_left: bool| -> Option<([i32; 9], [i32; 5])> {
        let t = e.top?;
        let c = if need_left { e.top_left? as i32 } else { 0 };
        let l = if need_left { e.left? } else { [0; 4] };
        Some((
            std::array::from_fn(|i| if i == 0 { c } else { t[i - 1] as i32 }),
            std::array::from_fn(|i| if i == 0 { c } else { l[i - 1] as i32 }),
        ))
    };
    let mut out = [0u8; 16];
    // Generic rather than `dyn`: each mode's formula inlines into its own loop.
    fn fill(out: &mut [u8; 16], f: impl Fn(i32, i32) -> i32) {
        for y in 0..4 {
            for x in 0..4 {
                out[(y * 4 + x) as usize] = f(x, y) as u8;
            }
        }
    }
    match mode {
        I4_VERTICAL => {
            let t = e.top?;
            fill(&mut out, |x, _| t[x as usize] as i32);
        }
        I4_HORIZONTAL => {
            let l = e.left?;
            fill(&mut out, |_, y| l[y as usize] as i32);
        }
        I4_DC => {
            let st = e.top.map(|t| t[..4].iter().map(|&v| v as i32).sum::<i32>());
            let sl = e.left.map(|l| l.iter().map(|&v| v as i32).sum::<i32>());
            let dc = match (st, sl) {
                (Some(t), Some(l)) => (t + l + 4) >> 3,
                (Some(s), None) | (None, Some(s)) => (s + 2) >> 2,
                (None, None) => 128,
            };
            fill(&mut out, |_, _| dc);
        }
        I4_DIAGONAL_DOWN_LEFT | I4_VERTICAL_LEFT => {
            let (t, _) = full(false)?;
            let p = |x: i32| t[(x + 1) as usize]; // p[x, -1]
            if mode == I4_DIAGONAL_DOWN_LEFT {
                fill(&mut out, |x, y| {
                    if x == 3 && y == 3 {
                        (p(6) + 3 * p(7) + 2) >> 2
                    } else {
                        (p(x + y) + 2 * p(x + y + 1) + p(x + y + 2) + 2) >> 2
                    }
                });
            } else {
                fill(&mut out, |x, y| {
                    let i = x + (y >> 1);
                    if y % 2 == 0 {
                        (p(i) + p(i + 1) + 1) >> 1
                    } else {
                        (p(i) + 2 * p(i + 1) + p(i + 2) + 2) >> 2
                    }
                });
            }
        }
        I4_DIAGONAL_DOWN_RIGHT | I4_VERTICAL_RIGHT | I4_HORIZONTAL_DOWN => {
            let (t, l) = full(true)?;
            let pt = |x: i32| t[(x + 1) as usize]; // p[x, -1], x >= -1
            let pl = |y: i32| l[(y + 1) as usize]; // p[-1, y], y >= -1
            let corner = (pl(0) + 2 * pt(-1) + pt(0) + 2) >> 2;
            match mode {
                I4_DIAGONAL_DOWN_RIGHT => fill(&mut out, |x, y| {
                    if x > y {
                        (pt(x - y - 2) + 2 * pt(x - y - 1) + pt(x - y) + 2) >> 2
                    } else if x < y {
                        (pl(y - x - 2) + 2 * pl(y - x - 1) + pl(y - x) + 2) >> 2
                    } else {
                        corner
                    }
                }),
                I4_VERTICAL_RIGHT => fill(&mut out, |x, y| {
                    let z = 2 * x - y;
                    let i = x - (y >> 1);
                    match z {
                        0 | 2 | 4 | 6 => (pt(i - 1) + pt(i) + 1) >> 1,
                        1 | 3 | 5 => (pt(i - 2) + 2 * pt(i - 1) + pt(i) + 2) >> 2,
                        -1 => corner,
                        _ => (pl(y - 1) + 2 * pl(y - 2) + pl(y - 3) + 2) >> 2,
                    }
                }),
                _ => fill(&mut out, |x, y| {
                    let z = 2 * y - x;
                    let i = y - (x >> 1);
                    match z {
                        0 | 2 | 4 | 6 => (pl(i - 1) + pl(i) + 1) >> 1,
                        1 | 3 | 5 => (pl(i - 2) + 2 * pl(i - 1) + pl(i) + 2) >> 2,
                        -1 => corner,
                        _ => (pt(x - 1) + 2 * pt(x - 2) + pt(x - 3) + 2) >> 2,
                    }
                }),
            }
        }
        I4_HORIZONTAL_UP => {
            let l = e.left?;
            let p = |y: i32| l[y as usize] as i32;
            fill(&mut out, |x, y| {
                let z = x + 2 * y;
                let i = y + (x >> 1);
                match z {
                    0 | 2 | 4 => (p(i) + p(i + 1) + 1) >> 1,
                    1 | 3 => (p(i) + 2 * p(i + 1) + p(i + 2) + 2) >> 2,
                    5 => (p(2) + 3 * p(3) + 2) >> 2,
                    _ => p(3),
                }
            });
        }
        _ => return None,
    }
    Some(out)
}

/// Entries of [`Edge::line`].
pub const LINE_LEN: usize = 16;

impl Edge {
    /// The edge as one line, as the GPU predicts from it (keep in sync with
    /// shaders/h264/predict4x4.wgsl `i4_store_line`):
    /// p[-1, 3] at 0 and 1, p[-1, y] at 4 - y, the corner p[-1, -1] at 5, p[x, -1] at
    /// 6 + x, and p[7, -1] again at 14 and 15; a missing part reads 0.
    pub fn line(&self) -> [i32; LINE_LEN] {
        let mut line = [0i32; LINE_LEN];
        if let Some(l) = self.left {
            for (y, &v) in l.iter().enumerate() {
                line[4 - y] = v as i32;
            }
            line[0] = l[3] as i32;
        }
        line[5] = self.top_left.unwrap_or(0) as i32;
        if let Some(t) = self.top {
            for (x, &v) in t.iter().enumerate() {
                line[6 + x] = v as i32;
            }
            line[14] = t[7] as i32;
            line[15] = t[7] as i32;
        }
        line
    }
}

/// How a directional mode's sample (`x`, `y`) is made from [`Edge::line`]: from entry
/// `i` on, the entry itself, the rounded mean of two, or the (1, 2, 1) filter of three,
/// packed as `i | kind << 4` (kind 0, 1, 2). Every directional mode of clause 8.3.1.2 is
/// one of these along the line, which lets a GPU predict any mode with the same
/// instructions (shaders/h264/predict4x4.wgsl; tested against [`predict4x4`]). DC is not
/// one (0).
pub fn line_tap(mode: u32, x: i32, y: i32) -> u32 {
    const COPY: u32 = 0;
    const MEAN2: u32 = 1;
    const FILTER3: u32 = 2;
    let (i, kind) = match mode {
        I4_VERTICAL => (6 + x, COPY),
        I4_HORIZONTAL => (4 - y, COPY),
        // p[6, -1] + 3 p[7, -1] at (3, 3) is the filter over p[7, -1]'s second copy.
        I4_DIAGONAL_DOWN_LEFT => (6 + x + y, FILTER3),
        I4_DIAGONAL_DOWN_RIGHT => (4 + x - y, FILTER3),
        I4_VERTICAL_RIGHT => {
            let (z, i) = (2 * x - y, x - (y >> 1));
            match z {
                0 | 2 | 4 | 6 => (5 + i, MEAN2),
                1 | 3 | 5 => (4 + i, FILTER3),
                -1 => (4, FILTER3),
                _ => (5 - y, FILTER3),
            }
        }
        I4_HORIZONTAL_DOWN => {
            let (z, i) = (2 * y - x, y - (x >> 1));
            match z {
                0 | 2 | 4 | 6 => (4 - i, MEAN2),
                1 | 3 | 5 => (4 - i, FILTER3),
                -1 => (4, FILTER3),
                _ => (3 + x, FILTER3),
            }
        }
        I4_VERTICAL_LEFT => (6 + x + (y >> 1), if y % 2 == 0 { MEAN2 } else { FILTER3 }),
        I4_HORIZONTAL_UP => {
            let (z, i) = (x + 2 * y, y + (x >> 1));
            match z {
                0 | 2 | 4 => (3 - i, MEAN2),
                1 | 3 => (2 - i, FILTER3),
                // p[-1, 2] + 3 p[-1, 3]: the filter over p[-1, 3]'s second copy.
                5 => (0, FILTER3),
                _ => (1, COPY),
            }
        }
        _ => (0, COPY),
    };
    i as u32 | kind << 4
}

/// [`line_tap`] of every mode (DC's are 0) and row, a row's four taps a word (sample x
/// in byte x): what the GPU reads (keep in sync with shaders/h264/predict4x4.wgsl
/// `i4_line_row` and `i4_line_sample`).
pub fn line_taps() -> Vec<u32> {
    (0..I4_MODES)
        .flat_map(|m| (0..4).map(move |y| (0..4).fold(0, |w, x| w | line_tap(m, x, y) << (8 * x))))
        .collect()
}

/// What a neighbouring 4x4 block (left A or above B) contributes to the mode prediction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NeighbourMode {
    /// Outside the picture or in another slice: the prediction is DC.
    Unavailable,
    /// In a macroblock that is not Intra_4x4 (here: Intra_16x16): counts as DC (2).
    NotIntra4x4,
    /// The Intra4x4PredMode of that block.
    Mode(u32),
}

/// predIntra4x4PredMode (clause 8.3.1.1): DC when either neighbour is unavailable, else
/// the smaller of their modes, an Intra_16x16 neighbour counting as DC.
pub fn predicted_mode(a: NeighbourMode, b: NeighbourMode) -> u32 {
    let mode = |n| match n {
        NeighbourMode::Mode(m) => Some(m),
        NeighbourMode::NotIntra4x4 => Some(I4_DC),
        NeighbourMode::Unavailable => None,
    };
    match (mode(a), mode(b)) {
        (Some(a), Some(b)) => a.min(b),
        _ => I4_DC,
    }
}

/// The syntax of `mode` against its prediction `pred`: 8 for
/// prev_intra4x4_pred_mode_flag = 1, else rem_intra4x4_pred_mode 0..=7 (the nibble of
/// [`crate::cavlc::frame::MbHeader::intra4x4_modes`]).
pub fn mode_syntax(mode: u32, pred: u32) -> u32 {
    if mode == pred {
        8
    } else if mode < pred {
        mode
    } else {
        mode - 1
    }
}

/// The Intra4x4PredMode a decoder derives from the syntax nibble `field` and the
/// prediction `pred` (the inverse of [`mode_syntax`]).
pub fn mode_from_syntax(field: u32, pred: u32) -> u32 {
    if field == 8 {
        pred
    } else if field < pred {
        field
    } else {
        field + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cavlc::frame::LUMA_CODING_ORDER;

    #[test]
    fn line_taps_predict_every_directional_mode() {
        // Random edges, every part present: each directional mode's samples from the
        // line and its taps equal the clause's formulas.
        let mut rng = crate::testdata::SplitMix64(44);
        let taps = line_taps();
        for _ in 0..2000 {
            let mut bytes = [0u8; 13];
            rng.fill(&mut bytes);
            // Now and then the extremes, where rounding differs.
            if rng.below(4) == 0 {
                for b in bytes.iter_mut() {
                    *b = if *b & 1 == 0 { 0 } else { 255 };
                }
            }
            let e = Edge {
                top: Some(std::array::from_fn(|i| bytes[i])),
                left: Some(std::array::from_fn(|i| bytes[8 + i])),
                top_left: Some(bytes[12]),
            };
            let line = e.line();
            for mode in (0..I4_MODES).filter(|&m| m != I4_DC) {
                let want = predict4x4(mode, &e).unwrap();
                for k in 0..16 {
                    let tap = line_tap(mode, k % 4, k / 4);
                    let word = taps[(mode * 4 + k as u32 / 4) as usize];
                    assert_eq!(tap, word >> (8 * (k % 4)) & 0xff, "packed tap {mode} {k}");
                    let (i, kind) = ((tap & 15) as usize, tap >> 4);
                    let (a, b, c) = (line[i], line[i + 1], line[i + 2]);
                    let got = match kind {
                        0 => a,
                        1 => (a + b + 1) >> 1,
                        _ => (a + 2 * b + c + 2) >> 2,
                    };
                    assert_eq!(got, want[k as usize] as i32, "mode {mode} sample {k}");
                }
            }
        }
    }

    /// p[x, -1] = 10, 20, .., 80; p[-1, y] = 15, 25, 35, 45; p[-1, -1] = 5.
    const EDGE: Edge = Edge {
        top: Some([10, 20, 30, 40, 50, 60, 70, 80]),
        left: Some([15, 25, 35, 45]),
        top_left: Some(5),
    };

    fn at(mode: u32, x: usize, y: usize) -> u8 {
        predict4x4(mode, &EDGE).unwrap()[y * 4 + x]
    }

    #[test]
    fn every_mode_by_hand() {
        assert_eq!(
            predict4x4(I4_VERTICAL, &EDGE).unwrap()[12..],
            [10, 20, 30, 40]
        );
        assert_eq!(at(I4_HORIZONTAL, 3, 2), 35);
        assert_eq!(at(I4_DC, 1, 1), 28); // (100 + 120 + 4) >> 3
                                         // Diagonal_Down_Left: (p[x+y] + 2p[x+y+1] + p[x+y+2] + 2) >> 2, and the corner
                                         // (3,3) from p[6], p[7].
        assert_eq!(at(I4_DIAGONAL_DOWN_LEFT, 0, 0), 20);
        assert_eq!(at(I4_DIAGONAL_DOWN_LEFT, 1, 2), 50);
        assert_eq!(at(I4_DIAGONAL_DOWN_LEFT, 3, 3), 78);
        // Diagonal_Down_Right: the diagonal through p[-1,-1], above it the top, below it
        // the left.
        assert_eq!(at(I4_DIAGONAL_DOWN_RIGHT, 0, 0), 9);
        assert_eq!(at(I4_DIAGONAL_DOWN_RIGHT, 2, 2), 9);
        assert_eq!(at(I4_DIAGONAL_DOWN_RIGHT, 1, 0), 11);
        assert_eq!(at(I4_DIAGONAL_DOWN_RIGHT, 3, 0), 30);
        assert_eq!(at(I4_DIAGONAL_DOWN_RIGHT, 0, 1), 15);
        // Vertical_Right by zVR = 2x - y: 0 even, 1 odd, -1 the corner, -2/-3 the left.
        assert_eq!(at(I4_VERTICAL_RIGHT, 0, 0), 8);
        assert_eq!(at(I4_VERTICAL_RIGHT, 1, 1), 11);
        assert_eq!(at(I4_VERTICAL_RIGHT, 0, 1), 9);
        assert_eq!(at(I4_VERTICAL_RIGHT, 0, 2), 15);
        assert_eq!(at(I4_VERTICAL_RIGHT, 0, 3), 25);
        // Horizontal_Down by zHD = 2y - x, the mirror image.
        assert_eq!(at(I4_HORIZONTAL_DOWN, 0, 0), 10);
        assert_eq!(at(I4_HORIZONTAL_DOWN, 1, 0), 9);
        assert_eq!(at(I4_HORIZONTAL_DOWN, 2, 0), 11);
        assert_eq!(at(I4_HORIZONTAL_DOWN, 3, 0), 20);
        // Vertical_Left: even rows average two samples, odd rows filter three; reaches
        // into the top-right samples.
        assert_eq!(at(I4_VERTICAL_LEFT, 0, 0), 15);
        assert_eq!(at(I4_VERTICAL_LEFT, 0, 1), 20);
        assert_eq!(at(I4_VERTICAL_LEFT, 3, 2), 55);
        assert_eq!(at(I4_VERTICAL_LEFT, 3, 3), 60);
        // Horizontal_Up by zHU = x + 2y: 5 from p[-1,2] and p[-1,3], beyond it p[-1,3].
        assert_eq!(at(I4_HORIZONTAL_UP, 0, 0), 20);
        assert_eq!(at(I4_HORIZONTAL_UP, 1, 0), 25);
        assert_eq!(at(I4_HORIZONTAL_UP, 2, 1), 40);
        assert_eq!(at(I4_HORIZONTAL_UP, 1, 2), 43);
        assert_eq!(at(I4_HORIZONTAL_UP, 3, 1), 43);
        assert_eq!(at(I4_HORIZONTAL_UP, 2, 2), 45);
        assert_eq!(at(I4_HORIZONTAL_UP, 0, 3), 45);
        assert_eq!(predict4x4(I4_MODES, &EDGE), None);
    }

    #[test]
    fn modes_need_their_samples() {
        let no_top = Edge { top: None, ..EDGE };
        let no_left = Edge { left: None, ..EDGE };
        let no_corner = Edge {
            top_left: None,
            ..EDGE
        };
        for m in 0..I4_MODES {
            let needs_top = matches!(m, 0 | 3 | 4 | 5 | 6 | 7);
            let needs_left = matches!(m, 1 | 4 | 5 | 6 | 8);
            let needs_corner = matches!(m, 4..=6);
            assert_eq!(predict4x4(m, &no_top).is_some(), !needs_top, "mode {m}");
            assert_eq!(predict4x4(m, &no_left).is_some(), !needs_left, "mode {m}");
            assert_eq!(
                predict4x4(m, &no_corner).is_some(),
                !needs_corner,
                "mode {m}"
            );
        }
        // DC with one side: that side's mean; with none: 128.
        assert_eq!(at_edge(I4_DC, &no_top), 30); // (120 + 2) >> 2
        assert_eq!(at_edge(I4_DC, &no_left), 25); // (100 + 2) >> 2
        let none = Edge {
            top: None,
            left: None,
            top_left: None,
        };
        assert_eq!(at_edge(I4_DC, &none), 128);
    }

    fn at_edge(mode: u32, e: &Edge) -> u8 {
        predict4x4(mode, e).unwrap()[0]
    }

    #[test]
    fn block_index_is_the_coding_order() {
        for (idx, &raster) in LUMA_CODING_ORDER.iter().enumerate() {
            assert_eq!(blk_idx(raster % 4, raster / 4), idx);
        }
    }

    #[test]
    fn top_right_availability_and_substitution() {
        // Reconstruction so far: sample value = its raster index / 2 (distinct enough).
        let recon: [u8; 256] = std::array::from_fn(|i| (i / 2) as u8);
        let top: [u8; 16] = std::array::from_fn(|i| 200 + i as u8);
        let n = Neighbours::<16> {
            top: Some(top),
            left: Some([100; 16]),
            top_left: Some(99),
        };
        let tr = Some([1, 2, 3, 4]);
        let edge = |bx, by, tr| Edge::of_block(&recon, &n, tr, bx, by).top.unwrap();
        // Top row: the macroblock above, and for block 5 the one above-right.
        assert_eq!(edge(0, 0, tr), [200, 201, 202, 203, 204, 205, 206, 207]);
        assert_eq!(edge(3, 0, tr)[4..], [1, 2, 3, 4]);
        // Above-right missing (picture edge, other slice): p[3, -1] repeated.
        assert_eq!(edge(3, 0, None)[4..], [215; 4]);
        // Inside: blocks whose top-right is decoded later (3, 7, 11, 13, 15) or outside
        // the macroblock substitute; the others read the reconstruction.
        for (idx, &raster) in LUMA_CODING_ORDER.iter().enumerate() {
            let (bx, by) = (raster % 4, raster / 4);
            if by == 0 {
                continue;
            }
            let e = edge(bx, by, tr);
            let row = (by * 4 - 1) * 16 + bx * 4;
            let own: [u8; 4] = std::array::from_fn(|i| recon[row + i]);
            assert_eq!(e[..4], own);
            if [3, 7, 11, 13, 15].contains(&idx) {
                assert_eq!(e[4..], [own[3]; 4], "block {idx}");
            } else {
                let tr: [u8; 4] = std::array::from_fn(|i| recon[row + 4 + i]);
                assert_eq!(e[4..], tr, "block {idx}");
            }
        }
        // Left and corner across the macroblock edges.
        let e = Edge::of_block(&recon, &n, tr, 0, 1);
        assert_eq!((e.left, e.top_left), (Some([100; 4]), Some(100)));
        let e = Edge::of_block(&recon, &n, tr, 1, 0);
        assert_eq!(e.top_left, Some(203));
        let e = Edge::of_block(&recon, &n, tr, 0, 0);
        assert_eq!(e.top_left, Some(99));
        let alone = Neighbours::<16> {
            top: None,
            left: None,
            top_left: None,
        };
        let e = Edge::of_block(&recon, &alone, None, 0, 0);
        assert_eq!((e.top, e.left, e.top_left), (None, None, None));
    }

    #[test]
    fn mode_prediction() {
        use NeighbourMode::*;
        // Either neighbour outside the picture or slice: DC, whatever the other says.
        assert_eq!(predicted_mode(Unavailable, Mode(0)), I4_DC);
        assert_eq!(predicted_mode(Mode(0), Unavailable), I4_DC);
        assert_eq!(predicted_mode(Unavailable, Unavailable), I4_DC);
        // Both there: the smaller mode; an I_16x16 neighbour counts as DC (2).
        assert_eq!(predicted_mode(Mode(7), Mode(4)), 4);
        assert_eq!(predicted_mode(Mode(0), Mode(8)), 0);
        assert_eq!(predicted_mode(NotIntra4x4, Mode(8)), 2);
        assert_eq!(predicted_mode(Mode(1), NotIntra4x4), 1);
        assert_eq!(predicted_mode(NotIntra4x4, NotIntra4x4), 2);
        // The syntax: flag when equal, else the remaining eight modes numbered 0..=7.
        assert_eq!(mode_syntax(4, 4), 8);
        assert_eq!(mode_syntax(3, 4), 3);
        assert_eq!(mode_syntax(5, 4), 4);
        assert_eq!(mode_syntax(8, 0), 7);
        for pred in 0..I4_MODES {
            let mut seen = [false; 9];
            for mode in 0..I4_MODES {
                let f = mode_syntax(mode, pred);
                assert!(f <= 8 && !seen[f as usize]);
                seen[f as usize] = true;
                assert_eq!(mode_from_syntax(f, pred), mode);
            }
        }
    }
}
