//! Precincts and code-blocks of one tile at the origin (ITU-T T.800 B.6, B.7).
//!
//! With the tile, every resolution and every subband anchored at 0, the code-block and
//! precinct grids start at 0 in each band's own coordinates. Precincts are the maximum
//! size (PPx = PPy = 15: 2^15 in the resolution, 2^14 in a band of resolution r > 0), so
//! an image up to 32768 samples wide and high has one precinct per resolution; larger
//! ones get the grid the standard draws. Code-blocks are listed in packet order
//! (resolution, component, precinct, band, block raster order), which is also the order
//! of their bytes in the codestream.

use super::dwt::{Orientation, Subband};

/// log2 of the precinct size signalled (by default) in COD: PPx = PPy = 15.
pub const PRECINCT_EXP: u32 = 15;

/// One code-block: where its samples lie in its component's transformed plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockPlace {
    pub component: u32,
    /// Index into [`Layout::bands`].
    pub band: usize,
    pub x0: usize,
    pub y0: usize,
    pub width: usize,
    pub height: usize,
}

/// The code-blocks of one band within one precinct, a `grid_w` x `grid_h` grid in raster
/// order (what the tag trees of a packet cover).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrecinctBand {
    pub band: usize,
    pub grid_w: usize,
    pub grid_h: usize,
    /// Indices into [`Layout::blocks`], raster order.
    pub blocks: Vec<usize>,
}

/// One packet's worth of code-blocks (one layer): resolution `r`, component `c`, precinct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    pub resolution: u32,
    pub component: u32,
    pub precinct: usize,
    /// Bands of the resolution (LL; or HL, LH, HH), empty ones left out.
    pub bands: Vec<PrecinctBand>,
}

/// Every packet and code-block of the image, in LRCP order.
#[derive(Clone, Debug)]
pub struct Layout {
    pub bands: Vec<Subband>,
    pub blocks: Vec<BlockPlace>,
    pub packets: Vec<Packet>,
}

/// The layout for `components` planes of `width` x `height` after `levels` levels, with
/// code-blocks of `cblk` x `cblk` (a power of two, at most 2^14).
pub fn layout(width: usize, height: usize, components: u32, levels: u32, cblk: usize) -> Layout {
    let bands = super::dwt::subbands(width, height, levels);
    let mut blocks = Vec::new();
    let mut packets = Vec::new();
    for r in 0..=levels {
        // The resolution's size: the tile reduced by levels - r halvings (rounding up).
        let shift = levels - r;
        let rw = width.div_ceil(1 << shift);
        let rh = height.div_ceil(1 << shift);
        let npx = rw.div_ceil(1 << PRECINCT_EXP);
        let npy = rh.div_ceil(1 << PRECINCT_EXP);
        // A precinct's extent in the band: halved for the bands of r > 0.
        let pb = 1usize << (PRECINCT_EXP - (r > 0) as u32);
        let cb = cblk.min(pb);
        let in_res: Vec<usize> = (0..bands.len())
            .filter(|&b| bands[b].resolution == r)
            .collect();
        for c in 0..components {
            for p in 0..npx * npy {
                let (px, py) = (p % npx, p / npx);
                let mut pbands = Vec::new();
                for &b in &in_res {
                    let band = &bands[b];
                    let (x0, x1) = ((px * pb).min(band.width), ((px + 1) * pb).min(band.width));
                    let (y0, y1) = ((py * pb).min(band.height), ((py + 1) * pb).min(band.height));
                    if x0 == x1 || y0 == y1 {
                        continue;
                    }
                    let grid_w = (x1 - x0).div_ceil(cb);
                    let grid_h = (y1 - y0).div_ceil(cb);
                    let mut ids = Vec::with_capacity(grid_w * grid_h);
                    for gy in 0..grid_h {
                        for gx in 0..grid_w {
                            let bx = x0 + gx * cb;
                            let by = y0 + gy * cb;
                            ids.push(blocks.len());
                            blocks.push(BlockPlace {
                                component: c,
                                band: b,
                                x0: band.x0 + bx,
                                y0: band.y0 + by,
                                width: cb.min(x1 - bx),
                                height: cb.min(y1 - by),
                            });
                        }
                    }
                    pbands.push(PrecinctBand {
                        band: b,
                        grid_w,
                        grid_h,
                        blocks: ids,
                    });
                }
                packets.push(Packet {
                    resolution: r,
                    component: c,
                    precinct: p,
                    bands: pbands,
                });
            }
        }
    }
    Layout {
        bands,
        blocks,
        packets,
    }
}

impl Layout {
    pub fn orientation(&self, block: usize) -> Orientation {
        self.bands[self.blocks[block].band].orientation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_tile_every_band_exactly_once() {
        for (w, h, levels, cblk) in [
            (67, 33, 1, 32),
            (129, 65, 5, 64),
            (1, 1, 0, 64),
            (200, 3, 1, 32),
        ] {
            let l = layout(w, h, 3, levels, cblk);
            let mut cover = vec![0u8; w * h * 3];
            for b in &l.blocks {
                assert!(b.width <= cblk && b.height <= cblk && b.width > 0 && b.height > 0);
                for y in b.y0..b.y0 + b.height {
                    for x in b.x0..b.x0 + b.width {
                        cover[b.component as usize * w * h + y * w + x] += 1;
                    }
                }
            }
            assert!(cover.iter().all(|&c| c == 1), "{w}x{h}");
            // One precinct per resolution and component at these sizes; LRCP order.
            assert_eq!(l.packets.len(), (levels as usize + 1) * 3);
            let order: Vec<_> = l
                .packets
                .iter()
                .map(|p| (p.resolution, p.component))
                .collect();
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(order, sorted);
        }
    }

    #[test]
    fn code_block_grid_is_anchored_in_band_coordinates() {
        // 129 wide, 1 level: LL is 65 wide, HL 64. Blocks of 32 in LL: 32, 32, 1; in HL two
        // of 32 starting at the band's own origin (x = 65 in the plane).
        let l = layout(129, 10, 1, 1, 32);
        let hl: Vec<_> = l
            .blocks
            .iter()
            .filter(|b| l.bands[b.band].orientation == Orientation::HL)
            .map(|b| (b.x0, b.width))
            .collect();
        assert_eq!(hl, vec![(65, 32), (97, 32)]);
        let ll: Vec<_> = l
            .blocks
            .iter()
            .filter(|b| l.bands[b.band].orientation == Orientation::LL)
            .map(|b| (b.x0, b.width))
            .collect();
        assert_eq!(ll, vec![(0, 32), (32, 32), (64, 1)]);
    }

    #[test]
    fn wide_images_get_several_precincts() {
        // 40000 wide, 1 level: resolution 1 is 40000 wide -> 2 precincts; its bands are
        // 20000 wide, precincts 16384 in the band.
        let l = layout(40000, 1, 1, 1, 64);
        let r1: Vec<_> = l.packets.iter().filter(|p| p.resolution == 1).collect();
        assert_eq!(r1.len(), 2);
        let hl_in = |p: &Packet| {
            p.bands
                .iter()
                .find(|b| l.bands[b.band].orientation == Orientation::HL)
                .map(|b| b.grid_w)
        };
        assert_eq!(hl_in(r1[0]), Some(16384 / 64));
        assert_eq!(hl_in(r1[1]), Some((20000 - 16384usize).div_ceil(64)));
    }
}
