//! One chunk of a framed stream: its frames planned, coded and laid out as container
//! bytes. The CPU codes each frame on its own core; the GPU codes every frame of the
//! chunk in one pass at the bit where the layout puts it ([`ChunkLayout::gaps`]); both
//! then fill the headers and trailers in place, so the bytes are the same.

use rayon::prelude::*;

use super::compress::Format;
use super::cpu::encode_serial;
use super::cuvle::Encoded;
use super::framed::{CodedFraming, FrameCodes, FrameSpec, Framing};
use super::frames::{plan_regions, FrameConfig, FramePlan};
use super::framing::{finish_frame, frame_layout, frame_layout_with, FrameFacts, FrameLayout};
use super::gzip_index::FrameCode;
use super::histogram::histogram_cpu;
use super::CodeTable;
use crate::bits::{BitBuf, BitOrder};
use crate::{Error, Result};

/// The bit order of a format's codes.
pub fn bit_order(format: Format) -> BitOrder {
    match format {
        Format::Native => BitOrder::MsbFirst,
        Format::Gzip => BitOrder::LsbFirst,
    }
}

/// A chunk's frames and where their bytes go.
#[derive(Clone, Debug)]
pub struct ChunkLayout {
    pub frames: Vec<FramePlan>,
    pub layouts: Vec<FrameLayout>,
    /// First byte of every frame in the chunk's output, and the output's length last.
    pub starts: Vec<u64>,
}

impl ChunkLayout {
    pub fn plan(
        cells: &[[u64; 256]],
        len: u64,
        format: Format,
        config: &FrameConfig,
        block_symbols: u64,
    ) -> Result<ChunkLayout> {
        let regions = plan_regions(cells, len, format, config, |f| {
            frame_layout(format, f, block_symbols)
        })?;
        let n = regions.iter().map(|r| r.0.len()).sum();
        let (mut frames, mut layouts) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (f, l) in regions {
            frames.extend(f);
            layouts.extend(l);
        }
        Ok(ChunkLayout::with_layouts(frames, layouts))
    }

    /// The layout of frames planned elsewhere (on the GPU: [`super::frame_plan`]), with
    /// the gzip headers built there (`heads`, by frame; None, or none at all, for a
    /// header to build here).
    pub(crate) fn from_frames(
        frames: Vec<FramePlan>,
        heads: Vec<Option<BitBuf>>,
        format: Format,
        block_symbols: u64,
    ) -> Result<ChunkLayout> {
        let mut heads = heads.into_iter();
        let layouts = frames
            .iter()
            .map(|f| frame_layout_with(format, f, block_symbols, heads.next().flatten()))
            .collect::<Result<Vec<_>>>()?;
        Ok(ChunkLayout::with_layouts(frames, layouts))
    }

    fn with_layouts(frames: Vec<FramePlan>, layouts: Vec<FrameLayout>) -> ChunkLayout {
        let mut starts = Vec::with_capacity(frames.len() + 1);
        let mut at = 0u64;
        for l in &layouts {
            starts.push(at);
            at += l.bytes;
        }
        starts.push(at);
        ChunkLayout {
            frames,
            layouts,
            starts,
        }
    }

    pub fn output_bytes(&self) -> u64 {
        self.starts.last().copied().unwrap_or(0)
    }

    /// `out` (the chunk's output) cut into each frame's bytes.
    fn regions<'a>(&self, out: &'a mut [u8]) -> Vec<&'a mut [u8]> {
        let mut regions = Vec::with_capacity(self.layouts.len());
        let mut rest = out;
        for l in &self.layouts {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(l.bytes as usize);
            regions.push(head);
            rest = tail;
        }
        regions
    }

    /// Zero bits before each frame's first symbol, counted from the end of the previous
    /// frame's symbols (from bit 0 for the first), and the bits after the last symbol:
    /// what the GPU encoder leaves for the headers and trailers.
    pub fn gaps(&self) -> (Vec<u64>, u64) {
        let mut gaps = Vec::with_capacity(self.frames.len());
        let mut end = 0u64;
        for (l, &start) in self.layouts.iter().zip(&self.starts) {
            let first = start * 8 + l.symbol_start();
            gaps.push(first - end);
            end = first + l.symbol_bits;
        }
        (gaps, self.output_bytes() * 8 - end)
    }

    /// What a GPU coder codes this chunk with: every frame's table, and each frame's
    /// first block and the gap before it ([`Self::gaps`]), in blocks of `block` bytes.
    pub(crate) fn gpu_frames(&self, block: u64) -> Result<GpuFrames> {
        let (specs, tail_bits) = self.frame_specs(block, |k, _| k as u64)?;
        let tables = self.frames.iter().map(|f| f.table.clone()).collect();
        Ok(GpuFrames {
            tables,
            specs,
            tail_bits,
        })
    }

    /// Each frame's spec for a GPU coder's framed encode, its table `table_of` it (by its
    /// index), and the zero bits after the last frame's code ([`Self::gaps`]), in blocks
    /// of `block` bytes.
    pub(crate) fn frame_specs(
        &self,
        block: u64,
        table_of: impl Fn(usize, &FramePlan) -> u64,
    ) -> Result<(Vec<FrameSpec>, u32)> {
        let (gaps, tail_bits) = self.gaps();
        let to_u32 = |v: u64, what: &str| {
            u32::try_from(v).map_err(|_| Error::TooLarge(format!("{what} of {v}")))
        };
        let specs = self
            .frames
            .iter()
            .zip(&gaps)
            .enumerate()
            .map(|(k, (f, &gap))| {
                Ok(FrameSpec {
                    first_block: to_u32(f.start / block, "first block")?,
                    table: to_u32(table_of(k, f), "table")?,
                    gap_bits: to_u32(gap, "frame gap")?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((specs, to_u32(tail_bits, "tail")?))
    }
}

impl ChunkLayout {
    /// What a GPU coder codes this chunk with when its frame plan built the frames' tables
    /// on the device in `n_slots` slots (a frame's at its first cell of `cell_bytes`):
    /// each frame's spec naming its slot, its code lengths, and the tables built here for
    /// the frames that `slots` (by frame, from the plan's read) gives none.
    pub(crate) fn slotted_frames(
        &self,
        block: u64,
        cell_bytes: u64,
        slots: &[Option<u32>],
        n_slots: usize,
    ) -> Result<SlottedFrames<'_>> {
        let (specs, tail_bits) = self.frame_specs(block, |_, f| f.start / cell_bytes)?;
        let host_tables = self
            .frames
            .iter()
            .zip(&specs)
            .zip(slots)
            .filter(|(_, slot)| slot.is_none())
            .map(|((f, spec), _)| (spec.table, &f.table))
            .collect();
        Ok(SlottedFrames {
            specs,
            lengths: self.frames.iter().map(|f| &f.table.lengths).collect(),
            host_tables,
            tail_bits,
            n_slots: u32::try_from(n_slots)
                .map_err(|_| Error::TooLarge(format!("{n_slots} table slots")))?,
        })
    }
}

/// A chunk's frames as a GPU coder's framed encode takes them with the tables its frame
/// plan left on the device ([`ChunkLayout::slotted_frames`]).
pub(crate) struct SlottedFrames<'a> {
    pub specs: Vec<FrameSpec>,
    lengths: Vec<&'a [u8; 256]>,
    /// A slot and its table, for each frame whose table the device did not build.
    pub host_tables: Vec<(u32, &'a CodeTable)>,
    tail_bits: u32,
    n_slots: u32,
}

impl SlottedFrames<'_> {
    /// The framing of a chunk coded in `format`'s bit order from bit 0.
    pub(crate) fn framing(&self, format: Format) -> CodedFraming<'_> {
        CodedFraming {
            frames: &self.specs,
            codes: FrameCodes::Slots {
                n_slots: self.n_slots,
                lengths: &self.lengths,
            },
            order: bit_order(format),
            start_bit: 0,
            tail_bits: self.tail_bits,
        }
    }
}

/// A chunk's frames as a GPU coder's framed encode takes them
/// ([`ChunkLayout::gpu_frames`]).
pub(crate) struct GpuFrames {
    pub tables: Vec<CodeTable>,
    pub specs: Vec<FrameSpec>,
    pub tail_bits: u32,
}

impl GpuFrames {
    /// The framing of a chunk coded in `format`'s bit order from bit 0.
    pub(crate) fn framing(&self, format: Format) -> Framing<'_> {
        Framing {
            tables: &self.tables,
            frames: &self.specs,
            order: bit_order(format),
            start_bit: 0,
            tail_bits: self.tail_bits,
        }
    }
}

/// Each frame's block offsets from its first symbol, from a GPU encode's log (native
/// headers and gzip indexes list them so).
pub(crate) fn frame_block_offsets<'a>(
    layout: &'a ChunkLayout,
    block: u64,
    encoded: &'a Encoded,
) -> impl Fn(usize) -> Vec<u64> + Sync + 'a {
    move |i: usize| {
        let f = &layout.frames[i];
        let (a, b) = ((f.start / block) as usize, f.end().div_ceil(block) as usize);
        encoded
            .block_offsets
            .get(a..b)
            .unwrap_or(&[])
            .iter()
            .map(|&o| o - encoded.frame_offsets[i])
            .collect()
    }
}

/// The chunk a GPU coder's framed encode of `data` (laid out as `layout`) makes once read
/// back: its stream taken as the chunk's bytes, checked to be the layout's length, then
/// the headers, trailers and checksums filled in ([`finish_chunk`]; frame CRC32s folded
/// from `block_crcs` where the GPU took them).
pub(crate) fn chunk_from_encoded(
    data: &[u8],
    layout: &ChunkLayout,
    format: Format,
    block: u64,
    encoded: &mut Encoded,
    block_crcs: Option<&[u32]>,
) -> Result<CodedChunk> {
    let mut out = std::mem::take(&mut encoded.stream.bytes);
    if out.len() as u64 != layout.output_bytes() {
        return Err(layout_mismatch(out.len(), layout));
    }
    let offsets = frame_block_offsets(layout, block, encoded);
    let done = finish_chunk(
        data,
        layout,
        format,
        block,
        &mut out,
        Some(&offsets),
        block_crcs,
    )?;
    Ok(CodedChunk::new(out, layout, done, data.len() as u64, block))
}

/// A GPU encode whose length is not the one its chunk's layout planned.
pub(crate) fn layout_mismatch(bytes: usize, layout: &ChunkLayout) -> Error {
    Error::Gpu {
        stage: crate::gpu::registry::huffman::CUVLE.name,
        message: format!(
            "framed output of {bytes} bytes, the layout needs {}",
            layout.output_bytes()
        ),
    }
}

/// A coded chunk: container bytes (frames only; the stream's header and trailer are the
/// caller's), the checksum of its input, its length and frame count.
pub struct CodedChunk {
    pub bytes: Vec<u8>,
    pub crc: crc32fast::Hasher,
    pub len: u64,
    pub frames: u64,
    /// Each frame's input length, container bytes and checksum, in order (the gzip
    /// members' frame index).
    pub spans: Vec<FrameSpan>,
    /// Where [`super::pipeline::compress_to_vec`]'s vector holds the chunk, its
    /// container's pieces included, when its coder wrote it there itself (`bytes` is
    /// then empty).
    pub(crate) written_at: Option<ChunkPlace>,
}

/// A chunk's bytes in the output vector: from `offset`, `len` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ChunkPlace {
    pub offset: usize,
    pub len: usize,
}

/// One coded frame within its chunk's bytes.
#[derive(Clone, Debug)]
pub struct FrameSpan {
    pub len: u64,
    pub bytes: u64,
    pub crc: crc32fast::Hasher,
    /// A gzip frame's literals and blocks, for its member's index (None for native
    /// frames, whose headers hold them, and where a field would overflow its `u32`).
    pub code: Option<FrameCode>,
}

/// A frame's checksum, and for gzip where its blocks start (from its first literal).
pub(crate) struct Finished {
    pub crc: crc32fast::Hasher,
    pub block_offsets: Vec<u64>,
}

impl CodedChunk {
    /// The chunk of `len` input bytes coded into `bytes` as `layout` says, with each
    /// frame's checksum and blocks.
    pub(crate) fn new(
        bytes: Vec<u8>,
        layout: &ChunkLayout,
        finished: Vec<Finished>,
        len: u64,
        block_symbols: u64,
    ) -> CodedChunk {
        let mut crc = crc32fast::Hasher::new();
        for f in &finished {
            crc.combine(&f.crc);
        }
        let spans = finished
            .into_iter()
            .zip(&layout.layouts)
            .zip(&layout.frames)
            .map(|((done, l), f)| frame_span(f, l, done.crc, &done.block_offsets, block_symbols))
            .collect();
        CodedChunk {
            bytes,
            crc,
            len,
            frames: layout.frames.len() as u64,
            spans,
            written_at: None,
        }
    }

    /// The length of the chunk's frames' bytes (`bytes`, unless the coder wrote them in
    /// their place).
    pub(crate) fn coded_len(&self) -> usize {
        match self.written_at {
            Some(_) => self.spans.iter().map(|s| s.bytes as usize).sum(),
            None => self.bytes.len(),
        }
    }
}

/// The spans a chunk of `layout` will have once coded, but for their checksums: what
/// its container's pieces measure ([`super::pipeline`]'s placement, before the encode
/// is read back). `format` Gzip: each frame's blocks as many as its index will list.
pub(crate) fn expected_spans(
    layout: &ChunkLayout,
    format: Format,
    block_symbols: u64,
) -> Vec<FrameSpan> {
    layout
        .frames
        .iter()
        .zip(&layout.layouts)
        .map(|(f, l)| {
            let blocks = match format {
                Format::Gzip => {
                    (f.end().div_ceil(block_symbols) - f.start / block_symbols) as usize
                }
                Format::Native => 0,
            };
            frame_span(
                f,
                l,
                crc32fast::Hasher::new(),
                &vec![0; blocks],
                block_symbols,
            )
        })
        .collect()
}

fn frame_span(
    frame: &FramePlan,
    layout: &FrameLayout,
    crc: crc32fast::Hasher,
    block_offsets: &[u64],
    block_symbols: u64,
) -> FrameSpan {
    FrameSpan {
        len: frame.len,
        bytes: layout.bytes,
        code: gzip_code(layout, block_offsets, block_symbols),
        crc,
    }
}

/// A gzip frame's index fields from its layout and block offsets; None for a native frame
/// (no offsets kept) or where a field overflows.
fn gzip_code(layout: &FrameLayout, offsets: &[u64], block_symbols: u64) -> Option<FrameCode> {
    if offsets.is_empty() {
        return None;
    }
    Some(FrameCode {
        symbol_start: u32::try_from(layout.symbol_start()).ok()?,
        symbol_bits: u32::try_from(layout.symbol_bits).ok()?,
        block_symbols: u32::try_from(block_symbols).ok()?,
        block_offsets: offsets[1..]
            .iter()
            .map(|&o| u32::try_from(o).ok())
            .collect::<Option<Vec<u32>>>()?,
    })
}

/// Bit offsets of each block's code relative to the frame's first symbol.
fn block_offsets(data: &[u8], frame: &FramePlan, block_symbols: u64) -> Vec<u64> {
    let mut at = 0u64;
    data.chunks(block_symbols.max(1) as usize)
        .map(|b| {
            let o = at;
            at += b
                .iter()
                .map(|&s| frame.table.lengths[s as usize] as u64)
                .sum::<u64>();
            o
        })
        .collect()
}

/// Frames finished by one task at least.
const FRAMES_PER_TASK: usize = 16;

/// Fill every frame's header and trailer into `out` (the chunk's output, symbols in
/// place), in parallel; block offsets (a native frame's header holds them, a gzip
/// frame's index entry) from `offsets(frame index)` when given (the GPU's), else
/// computed from the input. Returns each frame's checksum, and a gzip frame's offsets.
pub(crate) fn finish_chunk(
    data: &[u8],
    layout: &ChunkLayout,
    format: Format,
    block_symbols: u64,
    out: &mut [u8],
    gpu_offsets: Option<&(dyn Fn(usize) -> Vec<u64> + Sync)>,
    block_crcs: Option<&[u32]>,
) -> Result<Vec<Finished>> {
    let checks = frame_checks(data, layout, block_symbols, gpu_offsets, block_crcs)?;
    write_frames(layout, format, block_symbols, &checks, out)?;
    Ok(finished(format, checks))
}

/// What [`finish_chunk`] writes into a chunk's output, before it is written: each frame's
/// checksum and block offsets, in parallel.
pub(crate) fn frame_checks(
    data: &[u8],
    layout: &ChunkLayout,
    block_symbols: u64,
    gpu_offsets: Option<&(dyn Fn(usize) -> Vec<u64> + Sync)>,
    block_crcs: Option<&[u32]>,
) -> Result<Vec<Finished>> {
    if let Some(crcs) = block_crcs {
        if crcs.len() as u64 != (data.len() as u64).div_ceil(block_symbols) {
            return Err(Error::InvalidArgument(format!(
                "{} block CRC32s for {} bytes in blocks of {block_symbols}",
                crcs.len(),
                data.len()
            )));
        }
    }
    layout
        .frames
        .par_iter()
        .enumerate()
        // A frame is microseconds of work (its checksum and header): tasks of a few
        // dozen, so that several coders finishing chunks at once do not spend their time
        // stealing single frames from each other.
        .with_min_len(FRAMES_PER_TASK)
        .map(|(i, frame)| {
            let bytes = &data[frame.start as usize..frame.end() as usize];
            let crc = match block_crcs {
                // Frames start on block boundaries (whole cells): the frame's blocks'
                // CRC32s folded into its own.
                Some(crcs) => {
                    if !frame.start.is_multiple_of(block_symbols) {
                        return Err(Error::InvalidArgument(
                            "a frame starts inside a block: its CRC32 needs the bytes".into(),
                        ));
                    }
                    let first = frame.start / block_symbols;
                    let parts = (first..frame.end().div_ceil(block_symbols)).map(|b| {
                        let len = (frame.end() - b * block_symbols).min(block_symbols);
                        (crcs[b as usize], len)
                    });
                    crc32fast::Hasher::new_with_initial_len(crate::crc::concat(parts), frame.len)
                }
                None => {
                    let mut crc = crc32fast::Hasher::new();
                    crc.update(bytes);
                    crc
                }
            };
            let block_offsets = match gpu_offsets {
                Some(f) => f(i),
                None => block_offsets(bytes, frame, block_symbols),
            };
            Ok(Finished { crc, block_offsets })
        })
        .collect()
}

/// Every frame's header and trailer written into `out` (the chunk's output, symbols in
/// place) from its `checks`, in parallel.
pub(crate) fn write_frames(
    layout: &ChunkLayout,
    format: Format,
    block_symbols: u64,
    checks: &[Finished],
    out: &mut [u8],
) -> Result<()> {
    if out.len() as u64 != layout.output_bytes() || checks.len() != layout.frames.len() {
        return Err(Error::InvalidArgument(format!(
            "chunk output of {} bytes and {} frames' checks, the layout says {} and {}",
            out.len(),
            checks.len(),
            layout.output_bytes(),
            layout.frames.len()
        )));
    }
    layout
        .regions(out)
        .into_par_iter()
        .zip(checks)
        .enumerate()
        .with_min_len(FRAMES_PER_TASK)
        .try_for_each(|(i, (region, check))| {
            let facts = FrameFacts {
                crc32: check.crc.clone().finalize(),
                block_offsets: &check.block_offsets,
                block_symbols,
            };
            finish_frame(
                format,
                &layout.frames[i],
                &layout.layouts[i],
                &facts,
                region,
            )
        })
}

/// The checks as a chunk keeps them: a gzip frame's block offsets (its index entry), a
/// native frame's none (its header holds them).
pub(crate) fn finished(format: Format, mut checks: Vec<Finished>) -> Vec<Finished> {
    if format == Format::Native {
        for c in &mut checks {
            c.block_offsets = Vec::new();
        }
    }
    checks
}

/// Code a chunk on all CPU cores: frames planned from its cell histograms, each coded
/// serially on its own core, in place.
pub fn encode_chunk_cpu(
    data: &[u8],
    format: Format,
    config: &FrameConfig,
    block_symbols: u64,
) -> Result<CodedChunk> {
    config.validate(block_symbols)?;
    let cells = histogram_cpu(data, config.cell_bytes as usize);
    let layout = ChunkLayout::plan(&cells, data.len() as u64, format, config, block_symbols)?;
    let mut out = vec![0u8; layout.output_bytes() as usize];
    layout
        .regions(&mut out)
        .into_par_iter()
        .zip(layout.frames.par_iter().zip(&layout.layouts))
        .try_for_each(|(region, (frame, l))| -> Result<()> {
            let bytes = &data[frame.start as usize..frame.end() as usize];
            let phase = (l.symbol_start() % 8) as u32;
            let coded = encode_serial(bytes, &frame.table, bit_order(format), phase)?;
            let at = (l.symbol_start() / 8) as usize;
            for (d, s) in region[at..].iter_mut().zip(&coded.bytes) {
                *d |= s;
            }
            Ok(())
        })?;
    let finished = finish_chunk(data, &layout, format, block_symbols, &mut out, None, None)?;
    Ok(CodedChunk::new(
        out,
        &layout,
        finished,
        data.len() as u64,
        block_symbols,
    ))
}
