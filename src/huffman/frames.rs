//! Frames: the input split into runs of bytes that each get their own code table.
//!
//! One table for a whole file loses ratio on mixed data (a binary's code, then its
//! strings, then its tables). The input is cut into cells (16 KiB, whole blocks of the
//! GPU encoder), each cell histogrammed (on the GPU or the CPU), and neighbouring cells
//! merged into one frame while one table for both costs fewer bits than two tables and a
//! second header (an entropy estimate, as zlib's block splitting does). Frames never
//! cross a multiple of [`FrameConfig::max_frame_bytes`], so that planning runs in
//! parallel and every frame decodes on its own.

use rayon::prelude::*;

use super::compress::Format;
use super::gzip::{literal_frequencies, MAX_LITERAL_LEN};
use super::{CodeTable, Codebook};
use crate::{Error, Result};

/// Longest code of a framed stream: 15 bits, DEFLATE's limit, which the native v2 frame
/// header stores in four bits per symbol.
pub const FRAME_MAX_CODE_LEN: u8 = 15;

/// How the input is cut into frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameConfig {
    /// Histogram granularity: frames are whole cells (the last may be shorter). A
    /// multiple of the GPU encoder's block.
    pub cell_bytes: u64,
    /// Largest frame, a multiple of `cell_bytes`: bounds what a decoder holds per frame
    /// and how far apart frames' parallel decodes start.
    pub max_frame_bytes: u64,
    /// Cut at every cell, no merging (tests: many frames from small inputs).
    pub fixed: bool,
}

impl Default for FrameConfig {
    fn default() -> Self {
        FrameConfig {
            cell_bytes: 16 << 10,
            max_frame_bytes: 1 << 20,
            fixed: false,
        }
    }
}

impl FrameConfig {
    pub(crate) fn validate(&self, block_bytes: u64) -> Result<()> {
        let c = self.cell_bytes;
        if c == 0 || block_bytes == 0 || !c.is_multiple_of(block_bytes) {
            return Err(Error::InvalidArgument(format!(
                "frame cell of {c} bytes: use a multiple of the {block_bytes}-byte block"
            )));
        }
        if self.max_frame_bytes < c || !self.max_frame_bytes.is_multiple_of(c) {
            return Err(Error::InvalidArgument(format!(
                "largest frame of {} bytes: use a multiple of the {c}-byte cell",
                self.max_frame_bytes
            )));
        }
        // Frame sizes and payload bits are u32 fields of the native frame header.
        if self.max_frame_bytes > 1 << 28 {
            return Err(Error::InvalidArgument(format!(
                "largest frame of {} bytes: at most 256 MiB",
                self.max_frame_bytes
            )));
        }
        Ok(())
    }
}

/// One frame of a chunk, planned: where it lies and what codes it.
#[derive(Clone, Debug)]
pub struct FramePlan {
    /// First byte within the chunk.
    pub start: u64,
    pub len: u64,
    /// Its code: 256 symbols (native) or 257, end-of-block included (gzip).
    pub book: Codebook,
    pub table: CodeTable,
    /// Code bits of its bytes (no header, no end-of-block).
    pub symbol_bits: u64,
}

impl FramePlan {
    pub fn end(&self) -> u64 {
        self.start + self.len
    }
}

/// Bytes a frame's header costs beyond its code bits, roughly: the merge threshold.
fn header_estimate(format: Format) -> u64 {
    match format {
        // A dynamic block header with a typical spread of literal lengths, the end of
        // block and the 5-byte empty stored block that byte-aligns the frame.
        Format::Gzip => 70,
        // Fixed fields, 128 bytes of lengths and a few block offsets.
        Format::Native => 170,
    }
}

/// The merge threshold in the estimate's units (bits with [`LOG_FRACTION_BITS`]
/// fraction bits): what a second frame's header costs.
pub(crate) fn merge_threshold(format: Format) -> u64 {
    (header_estimate(format) * 8) << LOG_FRACTION_BITS
}

/// Fraction bits of the fixed-point log2 the merge estimate uses.
pub(crate) const LOG_FRACTION_BITS: u32 = 16;

/// `round(log2(1 + i / 256) * 2^16)` for `i` in `0..=256`: the estimate's only floating
/// point, computed once and shared with the GPU planner (shaders/huffman/frame_plan.wgsl),
/// which keeps it in workgroup memory. The rest is integer arithmetic, exact in any
/// order, so both cut frames in the same places.
pub(crate) fn log2_segments() -> &'static [u32; 257] {
    static TABLE: std::sync::OnceLock<[u32; 257]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        std::array::from_fn(|i| {
            ((1.0 + i as f64 / 256.0).log2() * (1u64 << LOG_FRACTION_BITS) as f64).round() as u32
        })
    })
}

/// log2(f) in fixed point: the leading bit's place, then the 24 bits below it between
/// the two nearest of 256 segments' ends, linearly (within 2^-15 of log2; never
/// decreasing in `f`, so a histogram's terms sum to at most `n * log2(n)`).
#[inline]
fn fixed_log2(table: &[u32; 257], f: u64) -> u64 {
    if f < 2 {
        return 0;
    }
    let e = 63 - f.leading_zeros();
    let below = (if e >= 24 {
        f >> (e - 24)
    } else {
        f << (24 - e)
    }) & 0xff_ffff;
    let (i, rest) = ((below >> 16) as usize, below & 0xffff);
    let (a, b) = (table[i] as u64, table[i + 1] as u64);
    ((e as u64) << LOG_FRACTION_BITS) + a + (((b - a) * rest) >> 16)
}

/// [`fixed_log2`] of every count below 2^16 (a cell's counts always are), so that the
/// host's merge reads a value where the GPU computes it: the same numbers. Computed a
/// term at a time, the host planned 14-37% slower than with the floating-point table
/// this replaced; read from here, 5-10% faster (examples/plan_bench, 8 MiB chunks of
/// libraries and source, one core of the development machine).
struct Log2 {
    segments: &'static [u32; 257],
    small: Vec<u32>,
}

fn log2s() -> &'static Log2 {
    static LOG2: std::sync::OnceLock<Log2> = std::sync::OnceLock::new();
    LOG2.get_or_init(|| {
        let segments = log2_segments();
        let small = (0..1u64 << 16)
            .map(|f| fixed_log2(segments, f) as u32)
            .collect();
        Log2 { segments, small }
    })
}

/// `f * log2(f)` in fixed point. Frames are at most 2^28 bytes (`FrameConfig`), so a
/// term is below 2^49 and a histogram's sum too.
#[inline]
fn term(log2: &Log2, f: u64) -> u64 {
    match log2.small.get(f as usize) {
        Some(&l) => f * l as u64,
        None => f * fixed_log2(log2.segments, f),
    }
}

/// Estimated code bits (fixed point) of a histogram of `n` bytes whose terms sum to
/// `sum_terms`: its order-0 entropy.
fn entropy_bits(log2: &Log2, n: u64, sum_terms: u64) -> u64 {
    term(log2, n).saturating_sub(sum_terms)
}

/// Greedy merging of one region's cells (the first is cell `base` of the chunk): each
/// frame as (first cell, cells, histogram) to `emit`, in order.
fn merge_region(
    region: &[[u64; 256]],
    base: usize,
    format: Format,
    fixed: bool,
    mut emit: impl FnMut(usize, usize, &[u64; 256]) -> Result<()>,
) -> Result<()> {
    let Some((first_cell, rest)) = region.split_first() else {
        return Ok(());
    };
    let log2 = log2s();
    let header = merge_threshold(format);
    let cost = |h: &[u64; 256]| {
        let sum = h.iter().map(|&f| term(log2, f)).sum();
        entropy_bits(log2, h.iter().sum(), sum)
    };
    let mut acc = *first_cell;
    let mut acc_n: u64 = acc.iter().sum();
    let mut cost_acc = cost(&acc);
    let (mut first, mut cells) = (base, 1);
    let mut merged = [0u64; 256];
    for (i, h) in rest.iter().enumerate() {
        let i = base + 1 + i;
        if fixed {
            emit(first, cells, &acc)?;
            (acc, first, cells) = (*h, i, 1);
            continue;
        }
        // The cell's estimate and the merged one in one pass: two independent chains.
        let (mut sum_h, mut sum_m) = (0u64, 0u64);
        let mut h_n = 0u64;
        for ((m, &a), &f) in merged.iter_mut().zip(&acc).zip(h) {
            *m = a + f;
            h_n += f;
            sum_h += term(log2, f);
            sum_m += term(log2, *m);
        }
        let cost_h = entropy_bits(log2, h_n, sum_h);
        let cost_merged = entropy_bits(log2, acc_n + h_n, sum_m);
        if cost_merged <= cost_acc + cost_h + header {
            acc = merged;
            acc_n += h_n;
            cost_acc = cost_merged;
            cells += 1;
        } else {
            emit(first, cells, &acc)?;
            (acc, acc_n, cost_acc, first, cells) = (*h, h_n, cost_h, i, 1);
        }
    }
    emit(first, cells, &acc)
}

/// Plan the frames of a chunk of `len` bytes from the histogram of every cell
/// (`cells[i]` covers bytes `[i * cell, (i + 1) * cell)`), with their codes.
pub fn plan_frames(
    cells: &[[u64; 256]],
    len: u64,
    format: Format,
    config: &FrameConfig,
) -> Result<Vec<FramePlan>> {
    let regions = plan_regions(cells, len, format, config, |_| Ok(()))?;
    let mut frames = Vec::with_capacity(regions.iter().map(|r| r.0.len()).sum());
    for (r, _) in regions {
        frames.extend(r);
    }
    Ok(frames)
}

/// [`plan_frames`] by region (of [`FrameConfig::max_frame_bytes`]), the regions planned
/// in parallel: each region's frames, and `then` of each. A region is hundreds of
/// microseconds of work at most, so that is as fine as the split goes: the coders plan
/// several chunks at once. (Frames are kilobytes: they move once, in bulk, after this.)
#[allow(clippy::type_complexity)]
pub(crate) fn plan_regions<T: Send>(
    cells: &[[u64; 256]],
    len: u64,
    format: Format,
    config: &FrameConfig,
    then: impl Fn(&FramePlan) -> Result<T> + Sync,
) -> Result<Vec<(Vec<FramePlan>, Vec<T>)>> {
    let cell = config.cell_bytes;
    if cells.len() as u64 != len.div_ceil(cell) {
        return Err(Error::InvalidArgument(format!(
            "{} cell histograms for {len} bytes in cells of {cell}",
            cells.len()
        )));
    }
    let cells_per_region = (config.max_frame_bytes / cell).max(1) as usize;
    cells
        .par_chunks(cells_per_region)
        .enumerate()
        .map(|(r, region)| {
            let mut frames = Vec::with_capacity(region.len());
            let mut out = Vec::with_capacity(region.len());
            merge_region(
                region,
                r * cells_per_region,
                format,
                config.fixed,
                |first, n, histogram| {
                    let start = first as u64 * cell;
                    let end = (start + n as u64 * cell).min(len);
                    let frame = frame_code(start, end - start, histogram, format)?;
                    out.push(then(&frame)?);
                    frames.push(frame);
                    Ok(())
                },
            )?;
            Ok((frames, out))
        })
        .collect()
}

/// The code of one frame from its histogram.
pub(crate) fn frame_code(
    start: u64,
    len: u64,
    histogram: &[u64; 256],
    format: Format,
) -> Result<FramePlan> {
    let book = match format {
        Format::Native => Codebook::from_frequencies(histogram, FRAME_MAX_CODE_LEN)?,
        Format::Gzip => {
            Codebook::from_frequencies(&literal_frequencies(histogram), MAX_LITERAL_LEN)?
        }
    };
    let table = book.table()?;
    let symbol_bits = table.encoded_bits(histogram);
    Ok(FramePlan {
        start,
        len,
        book,
        table,
        symbol_bits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::huffman::histogram::histogram_cpu;

    fn lcg(seed: u64, n: usize, alphabet: u8) -> Vec<u8> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 33) % alphabet as u64) as u8
            })
            .collect()
    }

    #[test]
    fn frames_cover_the_chunk_and_respect_the_cap() {
        let config = FrameConfig {
            cell_bytes: 1024,
            max_frame_bytes: 4096,
            fixed: false,
        };
        // Two kinds of data: the planner should cut between them.
        let mut data = lcg(1, 9000, 4);
        data.extend(lcg(2, 9000, 200).iter().map(|b| b.wrapping_add(50)));
        data.truncate(17_777);
        let cells = histogram_cpu(&data, config.cell_bytes as usize);
        for format in [Format::Native, Format::Gzip] {
            let frames = plan_frames(&cells, data.len() as u64, format, &config).unwrap();
            let mut at = 0;
            for f in &frames {
                assert_eq!(f.start, at);
                assert!(f.len > 0 && f.len <= config.max_frame_bytes);
                assert_eq!(
                    f.start / 4096,
                    (f.end() - 1) / 4096,
                    "frame crosses a region"
                );
                let mut h = [0u64; 256];
                for &b in &data[f.start as usize..f.end() as usize] {
                    h[b as usize] += 1;
                }
                assert_eq!(f.symbol_bits, f.table.encoded_bits(&h));
                at = f.end();
            }
            assert_eq!(at, data.len() as u64);
            assert!(
                frames.iter().any(|f| f.end() == 9216),
                "no cut near the change"
            );
        }
    }

    #[test]
    fn uniform_data_merges_to_the_cap_and_fixed_cuts_every_cell() {
        let data = lcg(3, 40_000, 16);
        let mut config = FrameConfig {
            cell_bytes: 1024,
            max_frame_bytes: 8192,
            fixed: false,
        };
        let cells = histogram_cpu(&data, 1024);
        let frames = plan_frames(&cells, 40_000, Format::Gzip, &config).unwrap();
        assert_eq!(frames.len(), 5);
        config.fixed = true;
        let frames = plan_frames(&cells, 40_000, Format::Gzip, &config).unwrap();
        assert_eq!(frames.len(), 40);
    }

    #[test]
    fn bad_configs_and_counts_are_errors() {
        let c = FrameConfig {
            cell_bytes: 1000,
            ..FrameConfig::default()
        };
        assert!(c.validate(1024).is_err());
        let c = FrameConfig {
            cell_bytes: 2048,
            max_frame_bytes: 3072,
            fixed: false,
        };
        assert!(c.validate(1024).is_err());
        assert!(plan_frames(&[[0; 256]], 5000, Format::Native, &FrameConfig::default()).is_ok());
        assert!(plan_frames(&[], 5000, Format::Native, &FrameConfig::default()).is_err());
    }
}
