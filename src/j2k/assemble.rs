//! Tier-2 and the codestream assembled from the coded blocks: apart from the stages that code.

use rayon::prelude::*;

use super::tier1::CodeBlockCoded;
use super::{codestream, ht, partition, tier2, EncoderConfig};
use crate::{Error, Result};

/// What tier-2 and the codestream need of an image: its geometry.
pub(super) struct ImageGeometry {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) components: u32,
    pub(super) bit_depth: u32,
}

/// Tier-2 and the codestream of an image's coded blocks (in `layout`'s order).
pub(super) fn codestream_of(
    geometry: &ImageGeometry,
    config: &EncoderConfig,
    levels: u32,
    layout: &partition::Layout,
    coded: Vec<CodeBlockCoded>,
) -> Result<Vec<u8>> {
    let lens: Vec<usize> = coded.iter().map(|c| c.data.len()).collect();
    tier2_headers(geometry, config, levels, layout, &coded, &lens)?
        .write(layout, &BlockBytes::Owned(&coded))
}

/// Where the codestream's writer finds each coded block's bytes.
pub(crate) enum BlockBytes<'a> {
    /// In the blocks themselves.
    Owned(&'a [CodeBlockCoded]),
    /// Where a readback has them mapped: block `i` is the first `at[i].1` bytes of part
    /// `at[i].0` (`None`: a block with no bytes).
    Mapped {
        parts: &'a crate::gpu::MappedParts<'a>,
        at: &'a [Option<(usize, usize)>],
    },
}

impl BlockBytes<'_> {
    /// Block `i`'s bytes.
    fn get(&self, i: usize) -> &[u8] {
        match self {
            BlockBytes::Owned(coded) => coded.get(i).map_or(&[], |c| &c.data[..]),
            BlockBytes::Mapped { parts, at } => match at.get(i).copied().flatten() {
                Some((k, len)) => parts.part(k).get(..len).unwrap_or(&[]),
                None => &[],
            },
        }
    }

    /// Each block of `coded` given its bytes (a copy), on all cores.
    pub(crate) fn fill(&self, coded: &mut [CodeBlockCoded]) {
        coded
            .par_iter_mut()
            .enumerate()
            .with_min_len(64)
            .for_each(|(i, c)| c.data = self.get(i).to_vec());
    }
}

/// An image's tier-2 before the blocks' bytes are there: every block's and packet's
/// header, and the codestream's main header.
pub(super) struct Tier2Headers {
    header: codestream::Header,
    exponents: Vec<u32>,
    packets: Vec<Vec<u8>>,
    /// Each block's bytes in the tile: up to its last pass's end.
    block_lens: Vec<usize>,
}

/// Tier-2's headers of the coded blocks `coded`, of `lens[i]` bytes each (which their
/// passes are checked against; the bytes may still be on their way).
pub(super) fn tier2_headers(
    geometry: &ImageGeometry,
    config: &EncoderConfig,
    levels: u32,
    layout: &partition::Layout,
    coded: &[CodeBlockCoded],
    lens: &[usize],
) -> Result<Tier2Headers> {
    let started = crate::gpu::clock();
    if coded.len() != layout.blocks.len() || lens.len() != coded.len() {
        return Err(tier1_error(format!(
            "{} code-blocks coded ({} lengths) for {} jobs",
            coded.len(),
            lens.len(),
            layout.blocks.len()
        )));
    }

    // Guard bits: enough that Mb = G + epsilon_b - 1 covers every block's bit-planes
    // (the RCT's chroma and the wavelet's gain can exceed the nominal range); 2 at least.
    let epsilon = |band: usize| geometry.bit_depth + layout.bands[band].orientation.gain_bits();
    let mut guard_bits = 2;
    for (place, c) in layout.blocks.iter().zip(coded) {
        guard_bits = guard_bits.max((c.num_bitplanes + 1).saturating_sub(epsilon(place.band)));
    }
    if guard_bits > 7 {
        return Err(Error::InvalidArgument(format!(
            "coefficients need {guard_bits} guard bits, more than the 7 JPEG 2000 can signal"
        )));
    }
    // Each block's header, then each packet's (independent: one layer, one precinct per
    // resolution), on all cores.
    let headers = layout
        .blocks
        .par_iter()
        .zip(coded)
        .zip(lens)
        .with_min_len(256)
        .map(|((place, c), &len)| {
            let mb = guard_bits + epsilon(place.band) - 1;
            if !config.ht {
                return block_header(c, len, mb, config.bypass_from);
            }
            if mb > ht::cleanup::MAX_BITPLANES {
                return Err(Error::InvalidArgument(format!(
                    "a band needs {mb} magnitude bit-planes; HT code-blocks hold at most {}",
                    ht::cleanup::MAX_BITPLANES
                )));
            }
            ht::block_header(c, len, mb)
        })
        .collect::<Result<Vec<_>>>()?;
    let blocks_done = crate::gpu::clock();
    let packets = layout
        .packets
        .par_iter()
        .map(|packet| tier2::packet_header(&packet_bands(packet, &headers)))
        .collect::<Result<Vec<_>>>()?;
    let block_lens = coded
        .iter()
        .map(|c| c.passes.last().map_or(0, |p| p.end as usize))
        .collect();
    let exponents: Vec<u32> = (0..layout.bands.len()).map(epsilon).collect();
    if let (Some(t), Some(b)) = (started, blocks_done) {
        log::debug!(
            "tier-2: headers of {} blocks and {} packets made in {:.2} ms (the blocks' {:.2} ms)",
            coded.len(),
            packets.len(),
            t.elapsed().as_secs_f64() * 1e3,
            (b - t).as_secs_f64() * 1e3
        );
    }
    let header = codestream::Header {
        width: geometry.width,
        height: geometry.height,
        components: geometry.components,
        bit_depth: geometry.bit_depth,
        levels,
        cblk_exp: config.cblk.trailing_zeros(),
        cblk_style: if config.ht {
            ht::CBLK_STYLE_HT
        } else {
            config.bypass_from.is_some() as u8
        },
        guard_bits,
        ht: config.ht,
    };
    Ok(Tier2Headers {
        header,
        exponents,
        packets,
        block_lens,
    })
}

/// A packet's bands as [`tier2::packet_header`] takes them: each band's code-block grid and
/// its blocks' headers in raster order.
fn packet_bands<'a>(
    packet: &partition::Packet,
    headers: &'a [tier2::BlockHeader],
) -> Vec<(usize, usize, Vec<&'a tier2::BlockHeader>)> {
    packet
        .bands
        .iter()
        .map(|b| {
            (
                b.grid_w,
                b.grid_h,
                b.blocks.iter().map(|&i| &headers[i]).collect(),
            )
        })
        .collect()
}

impl Tier2Headers {
    /// The codestream: the headers, each packet's header followed by its blocks' bytes
    /// from `bytes`, copied once.
    pub(super) fn write(
        &self,
        layout: &partition::Layout,
        bytes: &BlockBytes<'_>,
    ) -> Result<Vec<u8>> {
        let t = crate::gpu::clock();
        let mut tile: Vec<&[u8]> = Vec::with_capacity(layout.blocks.len() + self.packets.len());
        for (packet, header) in layout.packets.iter().zip(&self.packets) {
            tile.push(header);
            for b in &packet.bands {
                for &i in &b.blocks {
                    // The headers checked every block's passes against its length.
                    let data = bytes.get(i).get(..self.block_lens[i]).ok_or_else(|| {
                        tier1_error(format!("code-block {i}: fewer bytes than its passes"))
                    })?;
                    tile.push(data);
                }
            }
        }
        let written = codestream::write_pieces(&self.header, &self.exponents, &tile);
        if let Some(t) = t {
            log::debug!(
                "tier-2: codestream of {} pieces written in {:.2} ms",
                tile.len(),
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        written
    }
}

fn tier1_error(reason: String) -> Error {
    Error::corrupt("tier-1 output", reason)
}

/// Whether pass `i` (0-based) of `n` ends a codeword segment: the last pass, and with
/// bypass from bit-plane k, the cleanup pass before the first raw pass and from there on
/// every raw MRP and every cleanup (what a Part 1 decoder expects for k = 5).
fn ends_segment(i: usize, n: usize, bypass_from: Option<u32>) -> bool {
    if i + 1 == n {
        return true;
    }
    match bypass_from {
        // Pass index of the first raw SPP: 1 + 3 * (k - 2).
        Some(k) => {
            let first_raw = 3 * k as usize - 5;
            i + 1 >= first_raw && (i + 1 - first_raw) % 3 != 1
        }
        None => false,
    }
}

/// The tier-2 view of a coded block, checked for consistency first.
fn block_header(
    c: &CodeBlockCoded,
    data_len: usize,
    mb: u32,
    bypass_from: Option<u32>,
) -> Result<tier2::BlockHeader> {
    let n = c.passes.len();
    let want = if c.num_bitplanes == 0 {
        0
    } else {
        3 * c.num_bitplanes as usize - 2
    };
    if n != want {
        return Err(tier1_error(format!(
            "{n} passes for {} bit-planes",
            c.num_bitplanes
        )));
    }
    if c.num_bitplanes > mb {
        return Err(tier1_error(format!(
            "{} bit-planes exceed Mb = {mb}",
            c.num_bitplanes
        )));
    }
    let mut segments = Vec::new();
    let (mut start_pass, mut start_byte) = (0usize, 0u32);
    for (i, p) in c.passes.iter().enumerate() {
        let ends = ends_segment(i, n, bypass_from);
        if p.terminated != ends || p.end < start_byte || p.end as usize > data_len {
            return Err(tier1_error(format!(
                "pass {i} of {n}: end {} (data {data_len} bytes), terminated {} (expected {ends})",
                p.end, p.terminated
            )));
        }
        if ends {
            segments.push(((i + 1 - start_pass) as u32, p.end - start_byte));
            (start_pass, start_byte) = (i + 1, p.end);
        }
    }
    Ok(tier2::BlockHeader {
        passes: n as u32,
        zero_bitplanes: mb - c.num_bitplanes,
        segments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::j2k::{transform_cpu, Image, Tier1Engine};

    #[test]
    fn segment_ends_match_part1_bypass() {
        let ends: Vec<usize> = (0..19).filter(|&i| ends_segment(i, 19, Some(5))).collect();
        assert_eq!(ends, vec![9, 11, 12, 14, 15, 17, 18]);
        let ends: Vec<usize> = (0..7).filter(|&i| ends_segment(i, 7, Some(2))).collect();
        assert_eq!(ends, vec![0, 2, 3, 5, 6]);
        let ends: Vec<usize> = (0..19).filter(|&i| ends_segment(i, 19, None)).collect();
        assert_eq!(ends, vec![18]);
        assert_eq!((0..7).filter(|&i| ends_segment(i, 7, Some(5))).count(), 1);
    }

    /// The HT encoder's tier-2 headers on the bench's 4K picture, timed (not a test of
    /// behaviour: `cargo test --release --lib tier2_headers_timed -- --ignored
    /// --nocapture`).
    #[test]
    #[ignore]
    fn tier2_headers_timed() {
        let (w, h) = (4096, 2160);
        let img = Image::new(w, h, 3, 8, crate::testdata::synthetic_rgb(w, h, 7)).unwrap();
        let config = EncoderConfig {
            ht: true,
            ..Default::default()
        };
        let batch = transform_cpu(&img, 5, 64);
        let coded =
            pollster::block_on(ht::HtCpu.encode_batch(&batch, &Default::default())).unwrap();
        let lens: Vec<usize> = coded.iter().map(|c| c.data.len()).collect();
        let layout = partition::layout(w as usize, h as usize, 3, 5, 64);
        let geometry = ImageGeometry {
            width: w,
            height: h,
            components: 3,
            bit_depth: 8,
        };
        let mut best = f64::INFINITY;
        let rounds = std::env::var("ROUNDS").map_or(30, |r| r.parse().unwrap_or(30));
        for _ in 0..rounds {
            let t = std::time::Instant::now();
            let made = tier2_headers(&geometry, &config, 5, &layout, &coded, &lens).unwrap();
            best = best.min(t.elapsed().as_secs_f64());
            std::hint::black_box(made);
        }
        let made = tier2_headers(&geometry, &config, 5, &layout, &coded, &lens).unwrap();
        // The largest packet's header alone, from its blocks' headers.
        let headers: Vec<tier2::BlockHeader> = layout
            .blocks
            .iter()
            .zip(&coded)
            .zip(&lens)
            .map(|((place, c), &len)| {
                let mb = made.header.guard_bits + made.exponents[place.band] - 1;
                ht::block_header(c, len, mb).unwrap()
            })
            .collect();
        let largest = layout
            .packets
            .iter()
            .max_by_key(|p| p.bands.iter().map(|b| b.blocks.len()).sum::<usize>())
            .unwrap();
        let bands = packet_bands(largest, &headers);
        let mut best_packet = f64::INFINITY;
        for _ in 0..rounds {
            let t = std::time::Instant::now();
            std::hint::black_box(tier2::packet_header(&bands).unwrap());
            best_packet = best_packet.min(t.elapsed().as_secs_f64());
        }
        eprintln!(
            "the largest packet ({} blocks): best {:.3} ms",
            bands.iter().map(|b| b.2.len()).sum::<usize>(),
            best_packet * 1e3
        );
        let bytes: Vec<u8> = made.packets.concat();
        eprintln!(
            "tier-2 headers of {} blocks: best {:.3} ms; {} header bytes, CRC-32 {:08x}",
            coded.len(),
            best * 1e3,
            bytes.len(),
            crc32fast::hash(&bytes)
        );
    }
}
