//! All the CPU work of a picture before CAVLC: padding to whole macroblocks, slices of
//! macroblock rows coded in parallel (rayon; slices never predict from each other), and
//! the [`Frame`] the CAVLC stages take.

use rayon::prelude::*;

use super::macroblock::{encode_mb, Luma, MbInput, MbOutput};
use super::predict::Neighbours;
use super::predict4x4::NeighbourMode;
use super::rate::EdgeCoeffs;
use super::{EncoderConfig, Geometry, Picture};
use crate::cavlc::frame::{Frame, MbHeader, MB_LEVELS};
use crate::Result;

/// One plane padded to whole macroblocks.
struct Plane {
    stride: usize,
    data: Vec<u8>,
}

impl Plane {
    /// `src` (`w` x `h`) padded to `stride` x `rows` by repeating its last column and row.
    fn padded(src: &[u8], w: usize, h: usize, stride: usize, rows: usize) -> Plane {
        let mut data = vec![0u8; stride * rows];
        for (y, row) in data.chunks_exact_mut(stride).enumerate() {
            let s = &src[y.min(h - 1) * w..][..w];
            row[..w].copy_from_slice(s);
            row[w..].fill(s[w - 1]);
        }
        Plane { stride, data }
    }
    fn block<const N: usize, const NN: usize>(&self, x: usize, y: usize) -> [u8; NN] {
        std::array::from_fn(|i| self.data[(y + i / N) * self.stride + x + i % N])
    }
    /// `w` x `h` from the top-left corner.
    fn cropped(&self, w: usize, h: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(w * h);
        for row in self.data.chunks_exact(self.stride).take(h) {
            out.extend_from_slice(&row[..w]);
        }
        out
    }
}

/// The reconstructed rows of one slice: luma, Cb, Cr bands.
struct Band<'a> {
    y: &'a mut [u8],
    u: &'a mut [u8],
    v: &'a mut [u8],
}

/// The reconstructed neighbours of the macroblock at (`mbx`, local row `r`) of a band
/// of an `N`-wide-per-macroblock plane: rows above the band are in another slice.
fn neighbours<const N: usize>(band: &[u8], stride: usize, mbx: usize, r: usize) -> Neighbours<N> {
    let (x0, y0) = (mbx * N, r * N);
    let top = (r > 0).then(|| std::array::from_fn(|i| band[(y0 - 1) * stride + x0 + i]));
    let left = (mbx > 0).then(|| std::array::from_fn(|i| band[(y0 + i) * stride + x0 - 1]));
    let top_left = (r > 0 && mbx > 0).then(|| band[(y0 - 1) * stride + x0 - 1]);
    Neighbours {
        top,
        left,
        top_left,
    }
}

fn store<const N: usize>(band: &mut [u8], stride: usize, mbx: usize, r: usize, block: &[u8]) {
    for i in 0..N {
        band[(r * N + i) * stride + mbx * N..][..N].copy_from_slice(&block[i * N..][..N]);
    }
}

/// mb_qp_delta taking `pred` to `qp`: QP wraps modulo 52 (clause 7.4.5), so every QP is
/// one delta in -26..=25 away.
fn qp_delta(pred: u8, qp: u8) -> i32 {
    (qp as i32 - pred as i32 + 26).rem_euclid(52) - 26
}

/// The Intra_4x4 modes of the blocks along one edge of a neighbouring macroblock
/// (`None`: outside the slice; `Some(None)`: an I_16x16 macroblock).
fn edge_modes(mb: Option<&Option<[u32; 16]>>, blocks: [usize; 4]) -> [NeighbourMode; 4] {
    blocks.map(|b| match mb {
        None => NeighbourMode::Unavailable,
        Some(None) => NeighbourMode::NotIntra4x4,
        Some(Some(modes)) => NeighbourMode::Mode(modes[b]),
    })
}

#[allow(clippy::too_many_arguments)]
fn encode_slice(
    src: &[Plane; 3],
    g: &Geometry,
    config: &EncoderConfig,
    slice: usize,
    first_row: usize,
    band: Band<'_>,
    mbs: &mut [MbHeader],
    levels: &mut [i16],
) -> Result<()> {
    let wm = g.width_mbs as usize;
    let (ys, cs) = (src[0].stride, src[1].stride);
    let mut qp_pred = config.qp;
    // Intra_4x4 modes (raster block order) of the slice's macroblocks; None: I_16x16.
    let mut modes: Vec<Option<[u32; 16]>> = Vec::with_capacity(mbs.len());
    // TotalCoeff of their luma blocks (raster).
    let mut tcs: Vec<[u8; 16]> = Vec::with_capacity(mbs.len());
    for (i, (header, lv)) in mbs
        .iter_mut()
        .zip(levels.chunks_exact_mut(MB_LEVELS))
        .enumerate()
    {
        let (mbx, r) = (i % wm, i / wm);
        let row = first_row + r;
        // Above-right is decoded before this macroblock when the row above is in the slice.
        let y_top_right = (r > 0 && mbx + 1 < wm)
            .then(|| std::array::from_fn(|k| band.y[(r * 16 - 1) * ys + (mbx + 1) * 16 + k]));
        let input = MbInput {
            y: src[0].block::<16, 256>(mbx * 16, row * 16),
            u: src[1].block::<8, 64>(mbx * 8, row * 8),
            v: src[2].block::<8, 64>(mbx * 8, row * 8),
            ny: neighbours::<16>(band.y, ys, mbx, r),
            nu: neighbours::<8>(band.u, cs, mbx, r),
            nv: neighbours::<8>(band.v, cs, mbx, r),
            y_top_right,
            left_modes: edge_modes((mbx > 0).then(|| &modes[i - 1]), [3, 7, 11, 15]),
            top_modes: edge_modes((r > 0).then(|| &modes[i - wm]), [12, 13, 14, 15]),
            luma_tc: EdgeCoeffs {
                left: (mbx > 0).then(|| [3, 7, 11, 15].map(|b| tcs[i - 1][b])),
                top: (r > 0).then(|| [12, 13, 14, 15].map(|b| tcs[i - wm][b])),
            },
        };
        let out: MbOutput = encode_mb(&input, config.qp, config.luma)?;
        store::<16>(band.y, ys, mbx, r, &out.y);
        store::<8>(band.u, cs, mbx, r, &out.u);
        store::<8>(band.v, cs, mbx, r, &out.v);
        *header = match out.luma {
            Luma::Intra16x16(mode) => {
                modes.push(None);
                MbHeader::intra16x16(
                    mode,
                    out.cbp_luma,
                    out.cbp_chroma,
                    out.chroma_mode,
                    qp_delta(qp_pred, out.qp),
                    slice as u32,
                )
            }
            Luma::Intra4x4 { modes: m, syntax } => {
                modes.push(Some(m));
                let cbp = out.cbp_luma | out.cbp_chroma << 4;
                // Without a residual there is no mb_qp_delta and the QP stays the
                // predicted one; the reconstruction (the prediction) does not depend on it.
                let delta = if cbp == 0 {
                    0
                } else {
                    qp_delta(qp_pred, out.qp)
                };
                MbHeader::intra4x4(syntax, cbp, out.chroma_mode, delta, slice as u32)
            }
        };
        if header.mb_qp_delta != 0 {
            qp_pred = out.qp;
        }
        tcs.push(out.luma_tc);
        lv.copy_from_slice(&out.levels);
    }
    Ok(())
}

/// Code `picture` up to CAVLC: the [`Frame`] (headers and levels, slices of
/// `config.slice_rows` macroblock rows) and the reconstruction at the display size
/// (width and height rounded up to even; see the module docs), which is what a decoder
/// outputs for the stream.
pub fn encode_picture_levels(
    picture: &Picture,
    config: &EncoderConfig,
) -> Result<(Frame, Picture)> {
    config.validate()?;
    picture.validate()?;
    let g = Geometry::new(picture.width, picture.height)?;
    let (wm, hm) = (g.width_mbs as usize, g.height_mbs as usize);
    let (w, h) = (picture.width as usize, picture.height as usize);
    let (cw, ch) = picture.chroma_size();
    let (cw, ch) = (cw as usize, ch as usize);
    let src = [
        Plane::padded(&picture.y, w, h, wm * 16, hm * 16),
        Plane::padded(&picture.u, cw, ch, wm * 8, hm * 8),
        Plane::padded(&picture.v, cw, ch, wm * 8, hm * 8),
    ];
    let mut recon = [
        vec![0u8; wm * 16 * hm * 16],
        vec![0u8; wm * 8 * hm * 8],
        vec![0u8; wm * 8 * hm * 8],
    ];
    let rows = config.rows_per_slice(g.height_mbs) as usize;
    let mut frame = Frame::new(g.width_mbs, g.height_mbs);
    let [ry, ru, rv] = &mut recon;
    ry.par_chunks_mut(rows * 16 * wm * 16)
        .zip(ru.par_chunks_mut(rows * 8 * wm * 8))
        .zip(rv.par_chunks_mut(rows * 8 * wm * 8))
        .zip(frame.mbs.par_chunks_mut(rows * wm))
        .zip(frame.levels.par_chunks_mut(rows * wm * MB_LEVELS))
        .enumerate()
        .try_for_each(|(s, ((((y, u), v), mbs), levels))| {
            encode_slice(&src, &g, config, s, s * rows, Band { y, u, v }, mbs, levels)
        })?;
    let (dw, dh) = (g.display_width as usize, g.display_height as usize);
    let [ry, ru, rv] = recon;
    let crop = |data, stride, w, h| Plane { stride, data }.cropped(w, h);
    let out = Picture {
        width: g.display_width,
        height: g.display_height,
        y: crop(ry, wm * 16, dw, dh),
        u: crop(ru, wm * 8, dw / 2, dh / 2),
        v: crop(rv, wm * 8, dw / 2, dh / 2),
    };
    Ok((frame, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qp_delta_wraps() {
        assert_eq!(qp_delta(26, 26), 0);
        assert_eq!(qp_delta(26, 51), 25);
        assert_eq!(qp_delta(30, 0), 22); // 30 + 22 = 52 = 0 (mod 52)
        assert_eq!(qp_delta(0, 30), -22);
        assert_eq!(qp_delta(51, 25), -26);
        for a in 0..52u8 {
            for b in 0..52u8 {
                let d = qp_delta(a, b);
                assert!((-26..=25).contains(&d));
                assert_eq!((a as i32 + d + 52) % 52, b as i32);
            }
        }
    }
}
