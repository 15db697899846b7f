//! A chunk's frames planned on the GPU (shaders/huffman/frame_plan.wgsl): cells merged
//! into frames and every frame's code lengths, recorded after the cell histograms in the
//! same submission and read back with them. The host then only turns lengths into codes
//! and headers: planning on the host was a stream compressor's largest cost a chunk
//! (docs/results.md, "Thirteenth pass"). CPU twin: [`plan_frames`], which the result
//! equals frame for frame; a frame whose plain Huffman code is too long is built on the
//! host (package-merge), as the twin does.

use wgpu::util::DeviceExt;

use super::compress::Format;
use super::cuvle::{gpu_table_words, GpuInput, VleEncoder};
use super::deflate_head::{head_of, record_deflate_heads, HEAD_WORDS};
use super::frame_tables::{record_frame_tables, table_at, TABLE_WORDS};
use super::frames::{
    frame_code, log2_segments, merge_threshold, plan_frames, FrameConfig, FramePlan,
    FRAME_MAX_CODE_LEN,
};
use super::gzip::{deflate_block_header_with, LITERAL_SYMBOLS};
use super::histogram::{histogram_cpu, total_histogram, HistogramPending};
use super::Codebook;
use crate::bits::BitBuf;
use crate::gpu::registry::huffman::FRAME_PLAN;
use crate::gpu::{Gpu, GpuStage, PooledBuffer, Profiler};
use crate::{Error, Result};

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/huffman/frame_plan.wgsl `FramePlanParams` and
/// shaders/cuda/frame_plan.cu `FramePlanParams`
pub(crate) struct FramePlanParams {
    n_cells: u32,
    cells_per_region: u32,
    cell_bytes: u32,
    last_cell_bytes: u32,
    alphabet: u32,
    fixed: u32,
    threshold_lo: u32,
    threshold_hi: u32,
}

impl FramePlanParams {
    /// The plan of `n_cells` cells of `config.cell_bytes` (the last one short) holding
    /// `len` bytes, its frames coded in `format`.
    pub(crate) fn new(n_cells: usize, len: u64, format: Format, config: &FrameConfig) -> Self {
        let threshold = merge_threshold(format);
        FramePlanParams {
            n_cells: n_cells as u32,
            cells_per_region: (config.max_frame_bytes / config.cell_bytes) as u32,
            cell_bytes: config.cell_bytes as u32,
            last_cell_bytes: (len - (n_cells as u64 - 1) * config.cell_bytes) as u32,
            alphabet: frame_alphabet(format) as u32,
            fixed: config.fixed as u32,
            threshold_lo: threshold as u32,
            threshold_hi: (threshold >> 32) as u32,
        }
    }

    /// Regions of the plan: the merge's workgroups (blocks on CUDA).
    pub(crate) fn n_regions(&self) -> u32 {
        self.n_cells.div_ceil(self.cells_per_region.max(1))
    }
}

/// Where each part of a plan lies, in words (keep in sync with
/// shaders/huffman/plan_words.wgsl, which the frame plan and the DEFLATE headers share).
pub(crate) struct PlanWords {
    pub(crate) n_cells: usize,
}

/// Words of a frame's code lengths: 257 lengths, four a word.
pub(crate) const LENGTH_WORDS: usize = 65;

impl PlanWords {
    pub(crate) fn info(&self, c: usize) -> usize {
        self.n_cells + 2 * c
    }
    pub(crate) fn lengths(&self, c: usize) -> usize {
        3 * self.n_cells + LENGTH_WORDS * c
    }
    /// Words the host reads back: everything but the frames' histograms.
    pub(crate) fn read_back(&self) -> usize {
        (3 + LENGTH_WORDS) * self.n_cells
    }
    pub(crate) fn all(&self) -> usize {
        Self::PER_CELL * self.n_cells
    }
    /// Whether every word lies below 2^32 (the kernels' indices are 32-bit).
    pub(crate) fn addressable(&self) -> bool {
        self.n_cells < u32::MAX as usize / Self::PER_CELL
    }
    /// Words a cell adds: its frame's cells, info, lengths and histogram.
    const PER_CELL: usize = 3 + LENGTH_WORDS + 256;
}

/// Symbols of `format`'s frame codes: the bytes, and gzip's end-of-block.
pub(crate) fn frame_alphabet(format: Format) -> usize {
    match format {
        Format::Native => 256,
        Format::Gzip => LITERAL_SYMBOLS,
    }
}

/// A plan recorded by [`record_frame_plan`]: read its first `read_words` words back, and
/// (gzip) the first `head_words` of its frames' headers.
pub(crate) struct PlanPending {
    pub(crate) buffer: PooledBuffer,
    pub(crate) read_words: usize,
    pub(crate) heads: Option<PooledBuffer>,
    pub(crate) head_words: usize,
    /// Every frame's code table in the slot of its first cell ([`super::frame_tables`]),
    /// `table_words` words.
    pub(crate) tables: PooledBuffer,
    pub(crate) table_words: usize,
}

/// Record the frame plan of an input of `len` bytes whose cell histograms (of
/// `config.cell_bytes`, as [`VleEncoder::with_chunk_bytes`] counts them) `cells` holds;
/// None for no input.
pub(crate) fn record_frame_plan(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    cells: &HistogramPending,
    len: u64,
    format: Format,
    config: &FrameConfig,
    mut profiler: Option<&mut Profiler>,
) -> Result<Option<PlanPending>> {
    let Some(counts) = &cells.counts else {
        return Ok(None);
    };
    let n_cells = cells.n_chunks;
    let words = PlanWords { n_cells };
    if n_cells as u64 != len.div_ceil(config.cell_bytes) || !words.addressable() {
        return Err(Error::InvalidArgument(format!(
            "a frame plan of {n_cells} cells for {len} bytes in cells of {}",
            config.cell_bytes
        )));
    }
    let params = FramePlanParams::new(n_cells, len, format, config);
    let params_buffer = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("parvlc.huffman.frame_plan.params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
    let table = gpu.resident_buffer("parvlc.huffman.frame_plan.log2_segments", || {
        bytemuck::cast_slice(log2_segments()).to_vec()
    });
    let plan = gpu.pooled_buffer(
        words.all() as u64 * 4,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    );
    // Only frames' first cells are written: the others must read "no frame".
    encoder.clear_buffer(&plan, 0, Some(n_cells as u64 * 4));
    // An invocation a byte value.
    let constants = [("WG_SIZE", 256.0)];
    let merge = gpu.pipeline(&FRAME_PLAN, "merge", &constants)?;
    let lengths = gpu.pipeline(&FRAME_PLAN, "code_lengths", &constants)?;
    let entries = [
        (0, params_buffer.as_entire_buffer_binding()),
        (1, table.as_entire_buffer_binding()),
        (2, counts.as_entire_buffer_binding()),
        (3, plan.as_entire_buffer_binding()),
    ];
    let max_groups = gpu.limits.max_compute_workgroups_per_dimension;
    let n_regions = params.n_regions();
    // A pass each, so that a profiler times them apart.
    for (built, label, groups) in [
        (&merge, "frame_plan.merge", n_regions),
        (&lengths, "frame_plan.code_lengths", n_cells as u32),
    ] {
        let timestamp_writes = profiler.as_deref_mut().and_then(|p| p.pass(label));
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(FRAME_PLAN.label),
            timestamp_writes,
        });
        pass.set_pipeline(&built.pipeline);
        pass.set_bind_group(0, &gpu.bind(built, &entries), &[]);
        pass.dispatch_workgroups(groups.min(max_groups), 1, 1);
    }
    // gzip: every frame's DEFLATE header from its lengths, in the same submission.
    let heads = match format {
        Format::Gzip => Some(record_deflate_heads(
            gpu,
            encoder,
            &plan,
            n_cells,
            profiler.as_deref_mut(),
        )?),
        Format::Native => None,
    };
    // Every frame's code table from its lengths, for the encode to read where it lies.
    let tables = record_frame_tables(
        gpu,
        encoder,
        &plan,
        n_cells,
        frame_alphabet(format),
        profiler,
    )?;
    Ok(Some(PlanPending {
        buffer: plan,
        read_words: words.read_back(),
        head_words: heads.as_ref().map_or(0, |_| n_cells * HEAD_WORDS),
        heads,
        tables,
        table_words: n_cells * TABLE_WORDS,
    }))
}

/// A plan as the host reads it ([`frames_from_plan`]): its frames, each frame's gzip
/// header where the GPU built one, and the slot of its code table where the GPU built
/// that (its first cell; None for a frame coded on the host).
pub(crate) struct PlanRead {
    pub(crate) frames: Vec<FramePlan>,
    pub(crate) heads: Vec<Option<BitBuf>>,
    pub(crate) slots: Vec<Option<u32>>,
}

/// The frames of a plan read back (`words`, [`PlanPending::read_words`] of them), with
/// their codes: a frame the GPU flagged (its plain code too long) coded from `cells` on
/// the host. Checks what it reads: frames that tile the input, within regions, with
/// codes that code their bytes. Beside each frame, its gzip header from `heads` (the
/// plan's [`PlanPending::head_words`], empty for none) where the GPU built one, and the
/// slot of its table where the GPU built that ([`super::frame_tables`]).
pub(crate) fn frames_from_plan(
    words: &[u32],
    heads: &[u32],
    cells: &[[u64; 256]],
    len: u64,
    format: Format,
    config: &FrameConfig,
) -> Result<PlanRead> {
    let n_cells = cells.len();
    let layout = PlanWords { n_cells };
    let bad = |what: String| Error::Gpu {
        stage: FRAME_PLAN.name,
        message: what,
    };
    if words.len() < layout.read_back() || n_cells as u64 != len.div_ceil(config.cell_bytes) {
        return Err(bad(format!(
            "a plan of {} words for {n_cells} cells",
            words.len()
        )));
    }
    let per_region = (config.max_frame_bytes / config.cell_bytes) as usize;
    let alphabet = frame_alphabet(format);
    let cell = config.cell_bytes;
    let (mut frames, mut frame_heads, mut slots) = (Vec::new(), Vec::new(), Vec::new());
    let (mut c, mut deep) = (0, 0);
    while c < n_cells {
        let n = words[c] as usize;
        if n == 0 || c + n > n_cells || c / per_region != (c + n - 1) / per_region {
            return Err(bad(format!("a frame of {n} cells at cell {c}")));
        }
        let start = c as u64 * cell;
        let frame_len = ((c + n) as u64 * cell).min(len) - start;
        let info = layout.info(c);
        let (bits, deepest) = (words[info] as u64, words[info + 1]);
        let frame = if deepest > FRAME_MAX_CODE_LEN as u32 {
            deep += 1;
            frame_heads.push(None);
            slots.push(None);
            frame_code(start, frame_len, &total_histogram(&cells[c..c + n]), format)?
        } else {
            frame_heads.push(match heads.is_empty() {
                true => None,
                false => head_of(heads, c)?,
            });
            slots.push(Some(c as u32));
            let at = layout.lengths(c);
            let lengths: Vec<u8> =
                bytemuck::cast_slice::<u32, u8>(&words[at..at + LENGTH_WORDS])[..alphabet].to_vec();
            let book = Codebook::from_lengths(&lengths)?;
            let table = book.table()?;
            FramePlan {
                start,
                len: frame_len,
                book,
                table,
                symbol_bits: bits,
            }
        };
        frames.push(frame);
        c += n;
    }
    if deep > 0 {
        log::debug!(
            "{deep} of {} frames deeper than {FRAME_MAX_CODE_LEN} bits on the GPU: their codes built on the host",
            frames.len()
        );
    }
    Ok(PlanRead {
        frames,
        heads: frame_heads,
        slots,
    })
}

/// What a plan says of a frame, to compare the GPU's with the twin's: where it lies, its
/// code lengths, its code bits and (gzip) its DEFLATE block header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedSummary {
    pub start: u64,
    pub len: u64,
    pub lengths: Vec<u8>,
    pub symbol_bits: u64,
    pub gzip_head: Option<BitBuf>,
    /// The framed encode's table of its code (its codes, then its lengths: 512 words).
    pub table: Vec<u32>,
}

/// `frames` summed up, a gzip frame's header from `heads` (by frame) where there is one,
/// else built here; its table from the GPU's `tables` (read back) where `slots` gives it
/// one, else built here.
pub(crate) fn summaries(
    frames: &[FramePlan],
    heads: Vec<Option<BitBuf>>,
    slots: &[Option<u32>],
    tables: &[u32],
    format: Format,
) -> Result<Vec<PlannedSummary>> {
    let mut heads = heads.into_iter();
    frames
        .iter()
        .enumerate()
        .map(|(k, f)| {
            let table = match slots.get(k).copied().flatten() {
                Some(slot) => table_at(tables, slot as usize)?,
                None => gpu_table_words(&f.table).to_vec(),
            };
            let gzip_head = match (format, heads.next().flatten()) {
                (Format::Native, _) => None,
                (Format::Gzip, Some(head)) => Some(head),
                (Format::Gzip, None) => Some(deflate_block_header_with(&f.book, false)?),
            };
            Ok(PlannedSummary {
                start: f.start,
                len: f.len,
                lengths: f.book.lengths().to_vec(),
                symbol_bits: f.symbol_bits,
                gzip_head,
                table,
            })
        })
        .collect()
}

/// The frame plan as a [`GpuStage`]: bytes in, uploaded in `VleEncoder`'s windows with
/// cells of `.2.cell_bytes` (set the encoder's chunk bytes to it), their histograms and
/// the plan recorded, the frames read back.
pub struct FramePlanStage<'e, 'g>(pub &'e VleEncoder<'g>, pub Format, pub FrameConfig);

impl FramePlanStage<'_, '_> {
    /// The cell histograms and the plan recorded into `encoder`, its passes timed by
    /// `profiler` if given.
    fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        uploaded: &GpuInput,
        profiler: Option<&mut Profiler>,
    ) -> Result<FramePlanPending> {
        let cells = self.0.record_histograms(encoder, uploaded, None)?;
        let gpu = GpuStage::gpu(self);
        let plan = record_frame_plan(
            gpu,
            encoder,
            &cells,
            uploaded.len(),
            self.1,
            &self.2,
            profiler,
        )?;
        Ok(FramePlanPending(cells, plan))
    }

    /// GPU seconds of the plan's two passes (merge, code lengths) on `uploaded`, from
    /// timestamps (zeros where the adapter has none): for benchmarks.
    pub async fn kernel_seconds(&self, uploaded: &GpuInput) -> Result<(f64, f64)> {
        let gpu = GpuStage::gpu(self);
        let mut profiler = Profiler::new(gpu, 2);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        self.record(&mut encoder, uploaded, Some(&mut profiler))?;
        profiler.resolve(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        let t = profiler.timings(gpu).await?;
        Ok((t.get("frame_plan.merge"), t.get("frame_plan.code_lengths")))
    }
}

/// Recorded histograms and plan; none for an empty input.
pub struct FramePlanPending(HistogramPending, Option<PlanPending>);

impl GpuStage for FramePlanStage<'_, '_> {
    type Input<'a> = [u8];
    type Uploaded = GpuInput;
    type Pending = FramePlanPending;
    type Report = Vec<PlannedSummary>;
    type Output = Vec<PlannedSummary>;

    fn gpu(&self) -> &Gpu {
        GpuStage::gpu(self.0)
    }

    fn label(&self) -> &'static str {
        FRAME_PLAN.label
    }

    async fn upload(&self, input: &Self::Input<'_>) -> Result<GpuInput> {
        VleEncoder::upload(self.0, input)
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        uploaded: &GpuInput,
    ) -> Result<FramePlanPending> {
        self.record(encoder, uploaded, None)
    }

    async fn finish(
        &self,
        input: &Self::Input<'_>,
        _uploaded: &GpuInput,
        pending: FramePlanPending,
    ) -> Result<Vec<PlannedSummary>> {
        let FramePlanPending(cells, plan) = pending;
        // No input, no frames (as the twin plans them).
        let Some(plan) = plan else {
            return Ok(Vec::new());
        };
        let gpu = GpuStage::gpu(self);
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(
            &gpu.read_buffer(&plan.buffer, 0, plan.read_words as u64 * 4)
                .await?,
        );
        let heads: Vec<u32> = match &plan.heads {
            Some(heads) => bytemuck::pod_collect_to_vec(
                &gpu.read_buffer(heads, 0, plan.head_words as u64 * 4)
                    .await?,
            ),
            None => Vec::new(),
        };
        let cells = self.0.read_histograms(cells).await?;
        let tables: Vec<u32> = bytemuck::pod_collect_to_vec(
            &gpu.read_buffer(&plan.tables, 0, plan.table_words as u64 * 4)
                .await?,
        );
        let read = frames_from_plan(&words, &heads, &cells, input.len() as u64, self.1, &self.2)?;
        summaries(&read.frames, read.heads, &read.slots, &tables, self.1)
    }

    fn output(report: Vec<PlannedSummary>) -> Vec<PlannedSummary> {
        report
    }

    fn cpu(&self, input: &[u8]) -> Result<Vec<PlannedSummary>> {
        plan_summaries_cpu(input, self.1, &self.2)
    }
}

/// The CPU twin's plan of `input`, summed up: what every GPU frame plan (this stage, and
/// the CUDA one) must equal.
pub fn plan_summaries_cpu(
    input: &[u8],
    format: Format,
    config: &FrameConfig,
) -> Result<Vec<PlannedSummary>> {
    let cells = histogram_cpu(input, config.cell_bytes as usize);
    let frames = plan_frames(&cells, input.len() as u64, format, config)?;
    summaries(&frames, Vec::new(), &[], &[], format)
}
