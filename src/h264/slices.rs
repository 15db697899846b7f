//! All the CPU work of a picture before CAVLC: padding to whole macroblocks, slices of
//! macroblock rows coded in parallel (rayon; slices never predict from each other), and
//! the [`Frame`] the CAVLC stages take.

use rayon::prelude::*;

use super::macroblock::{encode_mb, Luma, MbInput};
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

/// What the headers of a coded macroblock need, kept until they are written in raster
/// order.
struct MbChoice {
    luma: Luma,
    chroma_mode: u32,
    qp: u8,
    cbp_luma: u32,
    cbp_chroma: u32,
}

/// Code one slice, its macroblocks in raster order or, with `wavefront`, in waves where
/// `x + 2 * row` is constant: each one's left, upper-left, upper and upper-right
/// neighbours are in earlier waves, so a wave's macroblocks code in parallel (rayon)
/// from the same inputs as in raster order, and the output is the same. Waves cost one
/// core about a fifth more (they leave the raster order's locality), so they pay only
/// where cores would otherwise idle. The headers, whose mb_qp_delta follows raster
/// order, come after.
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
    wavefront: bool,
) -> Result<()> {
    let wm = g.width_mbs as usize;
    let rows = mbs.len() / wm;
    let (ys, cs) = (src[0].stride, src[1].stride);
    // Intra_4x4 modes (raster block order) of the slice's macroblocks; None: I_16x16
    // (or not coded yet, which no macroblock reads).
    let mut modes: Vec<Option<[u32; 16]>> = vec![None; mbs.len()];
    // TotalCoeff of their luma blocks (raster).
    let mut tcs: Vec<[u8; 16]> = vec![[0; 16]; mbs.len()];
    let mut choices: Vec<Option<MbChoice>> = (0..mbs.len()).map(|_| None).collect();
    let groups = match wavefront {
        true => wm + 2 * rows.saturating_sub(1),
        false => mbs.len(),
    };
    let (mut inputs, mut coded) = (Vec::new(), Vec::new());
    for group in 0..groups {
        // The macroblocks of this wave (by row), or the one macroblock `group`.
        let (first, end) = match wavefront {
            true => (
                group.saturating_sub(wm - 1).div_ceil(2),
                rows.min(group / 2 + 1),
            ),
            false => (group, group + 1),
        };
        let members = (first..end).map(|k| match wavefront {
            true => k * wm + group - 2 * k,
            false => k,
        });
        inputs.clear();
        inputs.extend(members.map(|i| {
            let (mbx, r) = (i % wm, i / wm);
            let row = first_row + r;
            // Above-right is decoded before this macroblock when the row above is in
            // the slice.
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
            (i, input)
        }));
        let code = |(_, input): &(usize, MbInput)| encode_mb(input, config.qp, config.luma);
        // Handing a wave to other threads costs a wake-up: not for one macroblock, nor
        // without other threads.
        if inputs.len() > 1 && rayon::current_num_threads() > 1 {
            inputs.par_iter().map(code).collect_into_vec(&mut coded);
        } else {
            coded.clear();
            coded.extend(inputs.iter().map(code));
        }
        for ((i, _), out) in inputs.iter().zip(coded.drain(..)) {
            let (i, out) = (*i, out?);
            let (mbx, r) = (i % wm, i / wm);
            store::<16>(band.y, ys, mbx, r, &out.y);
            store::<8>(band.u, cs, mbx, r, &out.u);
            store::<8>(band.v, cs, mbx, r, &out.v);
            modes[i] = match out.luma {
                Luma::Intra16x16(_) => None,
                Luma::Intra4x4 { modes: m, .. } => Some(m),
            };
            tcs[i] = out.luma_tc;
            levels[i * MB_LEVELS..][..MB_LEVELS].copy_from_slice(&out.levels);
            choices[i] = Some(MbChoice {
                luma: out.luma,
                chroma_mode: out.chroma_mode,
                qp: out.qp,
                cbp_luma: out.cbp_luma,
                cbp_chroma: out.cbp_chroma,
            });
        }
    }
    let mut qp_pred = config.qp;
    for (header, out) in mbs.iter_mut().zip(choices.iter().flatten()) {
        *header = match out.luma {
            Luma::Intra16x16(mode) => MbHeader::intra16x16(
                mode,
                out.cbp_luma,
                out.cbp_chroma,
                out.chroma_mode,
                qp_delta(qp_pred, out.qp),
                slice as u32,
            ),
            Luma::Intra4x4 { syntax, .. } => {
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
    encode_picture_levels_with(picture, config, false)
}

/// [`encode_picture_levels`], with each slice's macroblocks in parallel waves where
/// `wavefront` (the same output): for when fewer pictures are coded at once than there
/// are cores.
pub fn encode_picture_levels_with(
    picture: &Picture,
    config: &EncoderConfig,
    wavefront: bool,
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
            let band = Band { y, u, v };
            encode_slice(&src, &g, config, s, s * rows, band, mbs, levels, wavefront)
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
    fn waves_code_what_raster_order_codes() {
        use crate::h264::LumaModes;
        // A texture with flat patches (so both macroblock types occur), odd sizes, one
        // and several slices, QPs where macroblocks reuse a mode and where they do not.
        let mut rng = crate::testdata::SplitMix64(3);
        let mut p = Picture::new(150, 90);
        for (i, v) in p.y.iter_mut().enumerate() {
            let (x, y) = (i % 150, i / 150);
            *v = if (x / 24 + y / 20) % 3 == 0 {
                90
            } else {
                (x * 3 + y * 5) as u8 ^ rng.below(64) as u8
            };
        }
        rng.fill(&mut p.u);
        for (i, v) in p.v.iter_mut().enumerate() {
            *v = (i * 7 % 251) as u8;
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        for (qp, slice_rows, luma) in [
            (22, None, LumaModes::Auto),
            (30, Some(2), LumaModes::Auto),
            (37, Some(4), LumaModes::Intra4x4),
            (27, None, LumaModes::Intra16x16),
        ] {
            let config = EncoderConfig {
                qp,
                slice_rows,
                luma,
                ..EncoderConfig::default()
            };
            let raster = encode_picture_levels(&p, &config).unwrap();
            let waves = pool.install(|| encode_picture_levels_with(&p, &config, true).unwrap());
            assert!(
                raster.0 == waves.0,
                "frame, QP {qp}, {slice_rows:?}, {luma:?}"
            );
            assert_eq!(
                raster.1, waves.1,
                "recon, QP {qp}, {slice_rows:?}, {luma:?}"
            );
        }
    }

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
