//! Framed coding: CUVLE codes one input with many code tables, one per frame (a run of
//! whole blocks), in one pass, and leaves a gap of zero bits before every frame for the
//! host to fill later with a container header (a DEFLATE block header, a native frame
//! header). The kernel is shaders/huffman/cuvle.wgsl with `FRAMED` on: a workgroup caches
//! the table of the block it codes, and a block's share of the stream is its gap plus its
//! code.
//!
//! Stream layout: `start_bit` bits, then per frame its gap and its codes (block after
//! block), then `tail_bits` zero bits (room for the last frame's trailer).
//!
//! Flow: [`VleEncoder::with_chunk_bytes`] (the frame granularity), upload, per-chunk
//! histograms, tables chosen by the caller, [`VleEncoder::plan_framed`],
//! [`VleEncoder::upload_frames`], [`VleEncoder::encode_framed_into`], and
//! [`VleEncoder::finish`], whose [`Encoded::frame_offsets`] give each frame's first code.

use std::ops::Range;

use wgpu::util::DeviceExt;

use super::cuvle::{
    check_output, check_table, code_blocks, gpu_table_words, segment_caps, CuvleConfig,
    DeviceLimits, Encoded, FramedCodes, GpuInput, Pending, Plan, PlannedFrame, VleEncoder,
};
use super::frame_tables::TABLE_WORDS;
use super::histogram::{histogram_cpu, total_histogram};
use super::segments::group_units;
use super::{BitBuf, BitOrder, CodeTable};
use crate::gpu::registry::huffman::CUVLE;
use crate::gpu::{Gpu, GpuStage, PooledBuffer};
use crate::{Error, Result};

/// One frame: from block `first_block` to the next frame's first block (or the end),
/// coded with `tables[table]`, after `gap_bits` zero bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameSpec {
    pub first_block: u32,
    pub table: u32,
    pub gap_bits: u32,
}

/// How an input is framed and coded: its tables, its frames (sorted, the first at block
/// 0, each of at least one block; an empty input has one frame of none), the bit order,
/// the bit of the first word the stream starts at (0..32), and the zero bits after the
/// last code.
#[derive(Clone, Copy, Debug)]
pub struct Framing<'a> {
    pub tables: &'a [CodeTable],
    pub frames: &'a [FrameSpec],
    pub order: BitOrder,
    pub start_bit: u32,
    pub tail_bits: u32,
}

/// The CPU twin's result: the stream and where its blocks and frames start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FramedBits {
    pub stream: BitBuf,
    /// Bit of every block's first code.
    pub block_offsets: Vec<u64>,
    /// Bit of every frame's first code (after its gap).
    pub frame_offsets: Vec<u64>,
}

/// Check the frames of `framing` against an input of `n_blocks` blocks; returns the
/// block range of every frame.
fn frame_blocks(framing: &CodedFraming<'_>, n_blocks: u64) -> Result<Vec<Range<u64>>> {
    let bad = |m: String| Err(Error::InvalidArgument(m));
    if framing.start_bit >= 32 {
        return bad(format!("start bit {} must be below 32", framing.start_bit));
    }
    let frames = framing.frames;
    if frames.is_empty() || frames[0].first_block != 0 {
        return bad("the first frame must start at block 0".into());
    }
    if let FrameCodes::Slots { lengths, .. } = framing.codes {
        if lengths.len() != frames.len() {
            return bad(format!(
                "{} frames' code lengths for {} frames",
                lengths.len(),
                frames.len()
            ));
        }
    }
    let n_tables = framing.codes.n_tables();
    let mut ranges = Vec::with_capacity(frames.len());
    for (k, f) in frames.iter().enumerate() {
        let end = frames
            .get(k + 1)
            .map_or(n_blocks, |next| next.first_block as u64);
        if end <= f.first_block as u64 && !(n_blocks == 0 && frames.len() == 1) {
            return bad(format!(
                "frame {k} (from block {}) has no blocks: frames must be sorted, each of at least one of the input's {n_blocks} blocks",
                f.first_block
            ));
        }
        if f.table as usize >= n_tables {
            return bad(format!("frame {k} uses table {} of {n_tables}", f.table));
        }
        ranges.push(f.first_block as u64..end);
    }
    Ok(ranges)
}

/// What a framed encode's frames are coded with: the host's tables, which a frame's spec
/// names, or tables a frame plan built on the device
/// ([`crate::huffman::frame_tables`]), a table a slot, which a frame's spec names, each
/// frame's code lengths here, in frame order.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FrameCodes<'a> {
    Tables(&'a [CodeTable]),
    Slots {
        n_slots: u32,
        lengths: &'a [&'a [u8; 256]],
    },
}

impl FrameCodes<'_> {
    fn n_tables(&self) -> usize {
        match self {
            FrameCodes::Tables(t) => t.len(),
            FrameCodes::Slots { n_slots, .. } => *n_slots as usize,
        }
    }
}

/// A [`Framing`] whose tables may be on the device: what a framed encode is planned with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CodedFraming<'a> {
    pub frames: &'a [FrameSpec],
    pub codes: FrameCodes<'a>,
    pub order: BitOrder,
    pub start_bit: u32,
    pub tail_bits: u32,
}

impl<'a> From<&Framing<'a>> for CodedFraming<'a> {
    fn from(f: &Framing<'a>) -> Self {
        CodedFraming {
            frames: f.frames,
            codes: FrameCodes::Tables(f.tables),
            order: f.order,
            start_bit: f.start_bit,
            tail_bits: f.tail_bits,
        }
    }
}

/// Frame `k`'s code lengths against its byte counts, where the device built its table
/// from them: every byte present needs a code; the error names the frame.
fn check_frame_lengths(k: usize, lengths: &[u8; 256], histogram: &[u64; 256]) -> Result<()> {
    let bad = (lengths.iter().zip(histogram))
        .fold(false, |bad, (&l, &n)| bad | ((n > 0) & (l == 0)) | (l > 32));
    if !bad {
        return Ok(());
    }
    let s = (0..256)
        .find(|&s| (histogram[s] > 0 && lengths[s] == 0) || lengths[s] > 32)
        .unwrap_or(0);
    Err(Error::InvalidCodeTable(format!(
        "frame {k}: byte {s} occurs {} times and has a code of {} bits",
        histogram[s], lengths[s]
    )))
}

/// Frame `k`'s table against its byte counts, the error naming the frame.
fn check_frame_table(k: usize, table: &CodeTable, histogram: &[u64; 256]) -> Result<()> {
    check_table(table, histogram).map_err(|e| match e {
        Error::InvalidCodeTable(m) => Error::InvalidCodeTable(format!("frame {k}: {m}")),
        e => e,
    })
}

/// The CPU twin of the FRAMED kernel: every frame coded as [`super::cuvle::encode_cuvle_cpu`]
/// codes an input, with its own table, after its gap.
pub fn encode_cuvle_cpu_framed(
    input: &[u8],
    framing: &Framing<'_>,
    config: &CuvleConfig,
) -> Result<FramedBits> {
    config.validate()?;
    let block = config.block_bytes();
    let n_bytes = input.len() as u64;
    let ranges = frame_blocks(&framing.into(), n_bytes.div_ceil(block))?;
    let bytes_of = |r: &Range<u64>| {
        &input[(r.start * block).min(n_bytes) as usize..(r.end * block).min(n_bytes) as usize]
    };
    let mut total_bits = framing.start_bit as u64 + framing.tail_bits as u64;
    for (k, (f, r)) in framing.frames.iter().zip(&ranges).enumerate() {
        let data = bytes_of(r);
        let histogram = total_histogram(&histogram_cpu(data, data.len().max(1)));
        let table = &framing.tables[f.table as usize];
        check_frame_table(k, table, &histogram)?;
        total_bits += f.gap_bits as u64 + table.encoded_bits(&histogram);
    }
    let mut out = vec![0u32; total_bits.div_ceil(32) as usize + 1];
    let mut block_offsets = Vec::with_capacity(n_bytes.div_ceil(block) as usize);
    let mut frame_offsets = Vec::with_capacity(ranges.len());
    let mut at = framing.start_bit as u64;
    for (f, r) in framing.frames.iter().zip(&ranges) {
        at += f.gap_bits as u64;
        frame_offsets.push(at);
        let words = gpu_table_words(&framing.tables[f.table as usize]);
        at = code_blocks(
            &mut out,
            bytes_of(r),
            &words,
            framing.order,
            at,
            config,
            &mut block_offsets,
        );
    }
    debug_assert_eq!(at + framing.tail_bits as u64, total_bits);
    Ok(FramedBits {
        stream: BitBuf::from_words(&out, total_bits),
        block_offsets,
        frame_offsets,
    })
}

/// Plan a framed encode: the input lies in `windows` (as for `plan_segments`), with one
/// histogram per `chunk` bytes; every frame starts on a chunk boundary. Segments keep
/// frames whole where they can (a frame larger than a segment, or across two windows, is
/// cut between chunks: the kernel reads each block's table and gap, so that is exact).
pub(crate) fn plan_frames(
    windows: &[(u64, u64)],
    chunk: u64,
    chunk_histograms: &[[u64; 256]],
    framing: &CodedFraming<'_>,
    config: &CuvleConfig,
    limits: DeviceLimits,
) -> Result<Plan> {
    let n_bytes: u64 = windows.iter().map(|w| w.1).sum();
    let n_chunks = n_bytes.div_ceil(chunk) as usize;
    if chunk_histograms.len() != n_chunks {
        return Err(Error::InvalidArgument(
            "one histogram per input chunk expected".into(),
        ));
    }
    let block = config.block_bytes();
    if !chunk.is_multiple_of(block) {
        return Err(Error::InvalidArgument(format!(
            "histogram chunks of {chunk} bytes are not whole {block}-byte blocks"
        )));
    }
    let ranges = frame_blocks(framing, n_bytes.div_ceil(block))?;
    let mut chunk_bits = vec![0u64; n_chunks];
    let mut starts = vec![false; n_chunks];
    let mut frames = Vec::with_capacity(ranges.len());
    let mut at = framing.start_bit as u64;
    let mut max_len = 0;
    for (k, (f, r)) in framing.frames.iter().zip(&ranges).enumerate() {
        if !(r.start * block).is_multiple_of(chunk) {
            return Err(Error::InvalidArgument(format!(
                "frame {k} starts at byte {}, not on a histogram chunk boundary (every {chunk} bytes): set the encoder's chunk bytes to the frame granularity",
                r.start * block
            )));
        }
        let chunks = (r.start * block / chunk) as usize..(r.end * block).div_ceil(chunk) as usize;
        let chunks = chunks.start..chunks.end.min(n_chunks);
        let lengths = match framing.codes {
            FrameCodes::Tables(tables) => {
                let table = &tables[f.table as usize];
                let histogram = total_histogram(&chunk_histograms[chunks.clone()]);
                check_frame_table(k, table, &histogram)?;
                &table.lengths
            }
            // The device's table is the canonical code of these lengths: only they are
            // checked against the bytes, a cell at a time.
            FrameCodes::Slots { lengths, .. } => {
                for h in &chunk_histograms[chunks.clone()] {
                    check_frame_lengths(k, lengths[k], h)?;
                }
                lengths[k]
            }
        };
        max_len = max_len.max(lengths.iter().copied().max().unwrap_or(0) as u32);
        at += f.gap_bits as u64;
        frames.push(PlannedFrame {
            first_block: r.start,
            table: f.table,
            gap_bits: f.gap_bits,
            first_bit: at,
        });
        if let Some(first) = chunk_bits.get_mut(chunks.start) {
            *first = f.gap_bits as u64;
            starts[chunks.start] = true;
        }
        for c in chunks {
            let bits = encoded_bits(lengths, &chunk_histograms[c]);
            chunk_bits[c] += bits;
            at += bits;
        }
    }
    let segments = group_units(
        windows,
        chunk,
        &chunk_bits,
        |c| starts[c],
        framing.start_bit,
        segment_caps(config, limits),
    )?;
    let total_bits = at + framing.tail_bits as u64;
    check_output(total_bits, limits)?;
    Ok(Plan {
        segments,
        order: framing.order,
        max_len,
        total_bits,
        block_bytes: block,
        frames,
        framed: Some(match framing.codes {
            FrameCodes::Tables(tables) => {
                FramedCodes::Tables(tables.iter().map(|t| t.lengths).collect())
            }
            FrameCodes::Slots { n_slots, .. } => FramedCodes::Slots(n_slots),
        }),
    })
}

/// Code bits of bytes counted in `histogram` with these code lengths.
fn encoded_bits(lengths: &[u8; 256], histogram: &[u64; 256]) -> u64 {
    histogram
        .iter()
        .zip(lengths)
        .map(|(&n, &l)| n * l as u64)
        .sum()
}

/// The tables of a framed encode on the GPU, and each block's table and gap.
pub struct FramedTables {
    tables: TableBuffer,
    block_frames: wgpu::Buffer,
    /// The frames they were uploaded for: (first block, table, gap bits).
    frames: Vec<(u64, u32, u32)>,
}

/// Where a framed encode's tables lie: uploaded by the host, or built by a frame plan.
enum TableBuffer {
    Uploaded(wgpu::Buffer),
    Built(PooledBuffer),
}

impl std::ops::Deref for TableBuffer {
    type Target = wgpu::Buffer;
    fn deref(&self) -> &wgpu::Buffer {
        match self {
            TableBuffer::Uploaded(b) => b,
            TableBuffer::Built(b) => b,
        }
    }
}

pub(crate) fn frame_keys(plan: &Plan) -> Vec<(u64, u32, u32)> {
    plan.frames
        .iter()
        .map(|f| (f.first_block, f.table, f.gap_bits))
        .collect()
}

/// What a framed encode's kernel reads beside the input, for `tables` (those `plan` was
/// made with: checked): every table in the kernel's layout, one after the other, and the
/// plan's [`block_map`]. The wgpu and CUDA kernels read the same.
pub(crate) fn framed_words(tables: &[CodeTable], plan: &Plan) -> Result<(Vec<u32>, Vec<[u32; 2]>)> {
    let planned = match &plan.framed {
        Some(FramedCodes::Tables(planned)) => planned,
        _ => {
            return Err(Error::InvalidArgument(
                "a framed encode with the host's tables takes a plan from plan_framed".into(),
            ))
        }
    };
    if tables.len() != planned.len() {
        return Err(Error::InvalidArgument(format!(
            "{} tables; the plan was made with {}",
            tables.len(),
            planned.len()
        )));
    }
    if let Some(i) = (0..tables.len()).find(|&i| tables[i].lengths != planned[i]) {
        return Err(Error::InvalidArgument(format!(
            "table {i} has other code lengths than the plan was made with"
        )));
    }
    let mut words = Vec::with_capacity(tables.len() * TABLE_WORDS);
    for t in tables {
        words.extend_from_slice(&gpu_table_words(t));
    }
    Ok((words, block_map(plan)))
}

/// Per block of a framed `plan`, its table and the zero bits left before its code (its
/// frame's gap on the frame's first block, 0 elsewhere).
pub(crate) fn block_map(plan: &Plan) -> Vec<[u32; 2]> {
    let n_blocks = plan.n_blocks();
    let mut map = vec![[0u32; 2]; n_blocks.max(1) as usize];
    for (k, f) in plan.frames.iter().enumerate() {
        let end = plan
            .frames
            .get(k + 1)
            .map_or(n_blocks, |next| next.first_block);
        for b in f.first_block..end {
            map[b as usize] = [f.table, 0];
        }
        if let Some(first) = map.get_mut(f.first_block as usize) {
            first[1] = f.gap_bits;
        }
    }
    map
}

/// A host-built table's words and the byte of the device's table buffer they go to.
pub(crate) type SlotWrite = (usize, [u32; TABLE_WORDS]);

/// The block map of a `plan` made with tables a frame plan built on the device in
/// `n_slots` slots, checked to be such a plan; and each of `host_tables` (a slot and the
/// table the host built for it, for a frame whose code the device did not build) as the
/// words to write into its slot.
pub(crate) fn slotted_words(
    plan: &Plan,
    n_slots: usize,
    host_tables: &[(u32, &CodeTable)],
) -> Result<(Vec<[u32; 2]>, Vec<SlotWrite>)> {
    match plan.framed {
        Some(FramedCodes::Slots(n)) if n as usize == n_slots => {}
        _ => {
            return Err(Error::InvalidArgument(format!(
            "a framed encode with {n_slots} tables built on the device takes a plan made with them"
        )))
        }
    }
    let mut writes = Vec::with_capacity(host_tables.len());
    for &(slot, table) in host_tables {
        if slot as usize >= n_slots {
            return Err(Error::InvalidArgument(format!(
                "a table for slot {slot} of {n_slots}"
            )));
        }
        writes.push((slot as usize * TABLE_WORDS * 4, gpu_table_words(table)));
    }
    Ok((block_map(plan), writes))
}

impl VleEncoder<'_> {
    /// Plan a framed encode of `input` from its per-chunk histograms
    /// ([`VleEncoder::histograms`]); every frame must start on a chunk boundary
    /// ([`VleEncoder::with_chunk_bytes`]) and every table must code its frames' bytes.
    pub fn plan_framed(
        &self,
        input: &GpuInput,
        chunk_histograms: &[[u64; 256]],
        framing: &Framing<'_>,
    ) -> Result<Plan> {
        self.plan_coded(input, chunk_histograms, &framing.into())
    }

    /// [`Self::plan_framed`] with tables on the host or on the device.
    pub(crate) fn plan_coded(
        &self,
        input: &GpuInput,
        chunk_histograms: &[[u64; 256]],
        framing: &CodedFraming<'_>,
    ) -> Result<Plan> {
        plan_frames(
            &input.window_spans(),
            input.chunk_bytes(),
            chunk_histograms,
            framing,
            self.config(),
            self.limits(),
        )
    }

    /// Upload `tables` (those the plan was made with) and the block map of `plan`.
    pub fn upload_frames(&self, tables: &[CodeTable], plan: &Plan) -> Result<FramedTables> {
        let (words, map) = framed_words(tables, plan)?;
        let tables = self.storage("parvlc.huffman.cuvle.tables", bytemuck::cast_slice(&words));
        Ok(FramedTables {
            tables: TableBuffer::Uploaded(tables),
            block_frames: self.block_map_buffer(&map),
            frames: frame_keys(plan),
        })
    }

    /// The tables a frame plan built on the device (`tables`, its
    /// [`crate::huffman::frame_plan::PlanPending::tables`] of `n_slots` slots) beside the
    /// block map of `plan` (made with them: [`FrameCodes::Slots`]), uploaded, with
    /// `host_tables` (a slot and its table, for frames whose code the host built) written
    /// into their slots.
    pub(crate) fn upload_slotted_frames(
        &self,
        tables: PooledBuffer,
        n_slots: usize,
        host_tables: &[(u32, &CodeTable)],
        plan: &Plan,
    ) -> Result<FramedTables> {
        if tables.size() < (n_slots * TABLE_WORDS * 4) as u64 {
            return Err(Error::InvalidArgument(format!(
                "a table buffer of {} bytes for {n_slots} slots",
                tables.size()
            )));
        }
        let (map, writes) = slotted_words(plan, n_slots, host_tables)?;
        for (at, words) in &writes {
            self.gpu
                .queue
                .write_buffer(&tables, *at as u64, bytemuck::cast_slice(words));
        }
        Ok(FramedTables {
            tables: TableBuffer::Built(tables),
            block_frames: self.block_map_buffer(&map),
            frames: frame_keys(plan),
        })
    }

    fn storage(&self, label: &str, contents: &[u8]) -> wgpu::Buffer {
        self.gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: wgpu::BufferUsages::STORAGE,
            })
    }

    fn block_map_buffer(&self, map: &[[u32; 2]]) -> wgpu::Buffer {
        self.storage(
            "parvlc.huffman.cuvle.block_frames",
            bytemuck::cast_slice(map),
        )
    }

    /// Record a framed encode into `encoder` (nothing is submitted); read it back with
    /// [`VleEncoder::finish`].
    pub fn encode_framed_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        input: &GpuInput,
        tables: &FramedTables,
        plan: &Plan,
        profile: bool,
    ) -> Result<Pending> {
        if !plan.is_framed() || tables.frames != frame_keys(plan) {
            return Err(Error::InvalidArgument(
                "the framed tables were uploaded for another plan".into(),
            ));
        }
        self.record(
            encoder,
            input,
            &tables.tables,
            Some(&tables.block_frames),
            plan,
            profile,
        )
    }

    /// Everything in one call: upload, histogram, plan, encode, read back.
    pub async fn encode_framed(&self, data: &[u8], framing: &Framing<'_>) -> Result<Encoded> {
        FramedStage(self)
            .run(&FramedInput {
                data,
                framing: *framing,
            })
            .await
    }
}

/// Framed CUVLE as a [`GpuStage`]: the input with its framing, on an encoder whose chunk
/// bytes fit the frames.
pub struct FramedStage<'e, 'g>(pub &'e VleEncoder<'g>);

/// What one framed encode codes.
#[derive(Clone, Copy, Debug)]
pub struct FramedInput<'a> {
    pub data: &'a [u8],
    pub framing: Framing<'a>,
}

/// A framed input uploaded, histogrammed on the GPU and planned, with its tables.
pub struct FramedUploaded {
    pub input: GpuInput,
    pub plan: Plan,
    pub tables: FramedTables,
}

impl GpuStage for FramedStage<'_, '_> {
    type Input<'a> = FramedInput<'a>;
    type Uploaded = FramedUploaded;
    type Pending = Pending;
    type Report = Encoded;
    type Output = BitBuf;

    fn gpu(&self) -> &Gpu {
        self.0.gpu
    }

    fn label(&self) -> &'static str {
        CUVLE.label
    }

    async fn upload(&self, input: &Self::Input<'_>) -> Result<FramedUploaded> {
        let uploaded = self.0.upload(input.data)?;
        let histograms = self.0.histograms(&uploaded, None).await?;
        let plan = self.0.plan_framed(&uploaded, &histograms, &input.framing)?;
        let tables = self.0.upload_frames(input.framing.tables, &plan)?;
        Ok(FramedUploaded {
            input: uploaded,
            plan,
            tables,
        })
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        up: &FramedUploaded,
    ) -> Result<Pending> {
        self.0
            .encode_framed_into(encoder, &up.input, &up.tables, &up.plan, false)
    }

    async fn finish(
        &self,
        _input: &Self::Input<'_>,
        _uploaded: &FramedUploaded,
        pending: Pending,
    ) -> Result<Encoded> {
        self.0.finish(pending).await
    }

    fn output(report: Encoded) -> BitBuf {
        report.stream
    }

    fn cpu(&self, input: &Self::Input<'_>) -> Result<BitBuf> {
        encode_cuvle_cpu_framed(input.data, &input.framing, self.0.config()).map(|f| f.stream)
    }
}
