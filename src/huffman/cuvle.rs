//! CUVLE on the GPU (shaders/huffman/cuvle.wgsl) and its CPU twin.
//!
//! Flow: upload the input in windows no larger than one storage binding; histogram per
//! chunk; once the code table is known, every chunk's exact code length follows, so the
//! encoder plans segments (each below 2^30 output bits, the look-back's value range, and
//! within one binding) with their global bit offsets on the host and encodes them all in
//! one command buffer, with no round trip between segments.
//!
//! This file holds the encoder, its config and the encode's recording; the steps around
//! it are apart: `histograms` (the per-chunk histograms), `plan` (the segments), `readback`
//! (the encode read back) and `cpu` (the CPU twin).

mod cpu;
mod histograms;
mod plan;
mod readback;

pub use cpu::{check_table, encode_cuvle_cpu};
pub(crate) use cpu::{code_blocks, gpu_table_words, TABLE_WORDS};
#[cfg(feature = "cuda")]
pub(crate) use plan::plan_segments;
pub use plan::Plan;
pub(crate) use plan::{check_output, segment_caps, DeviceLimits, FramedCodes, PlannedFrame};
pub(crate) use readback::MappedStream;
pub use readback::{Encoded, Pending};

use wgpu::util::DeviceExt;

pub(crate) use super::segments::Segment;
use super::{BitBuf, BitOrder, CodeTable};
use crate::gpu::registry::huffman::CUVLE;
use crate::gpu::Window;
use crate::gpu::{Gpu, GpuStage, Profiler};
use crate::scan::{encode_lookback, LookbackStage, ScanConfig, STATE_HEADER};
use crate::{Error, Result};

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/huffman/cuvle.wgsl `CuvleParams`
pub(crate) struct CuvleParams {
    pub n_bytes: u32,
    pub n_blocks: u32,
    pub start_bit: u32,
    pub out_word_base: u32,
    pub first_block: u32,
}

/// Workgroup memory the code table (2 KiB) leaves to the scan's buffers, at most.
const SCAN_WORKGROUP_BYTES: u32 = 4 * 1024 + 256;
/// Average code bits per input byte from which blocks are staged.
const STAGE_MIN_BITS_PER_BYTE: u64 = 4;

/// The staging sizes the kernel is built for: 1024 and 1536 words times powers of two,
/// up to `room`. Few steps, so that a run builds few pipelines, each at most half a step
/// larger than the average block needs.
fn stage_words_steps(room: u32) -> impl Iterator<Item = u32> {
    (0..8)
        .flat_map(|k| [1024u32 << k, 1536u32 << k])
        .take_while(move |&w| w <= room & !511)
}

/// Histogram granularity (a power of two) unless segments are forced smaller.
const DEFAULT_CHUNK_BYTES: u64 = 16 << 20;

/// CUVLE tuning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CuvleConfig {
    /// Input words per invocation (the paper's NET): 4, 8, 16 or 32.
    pub net: u32,
    pub scan: ScanConfig,
    /// Cap on the input bytes one dispatch covers (tests force many segments with it);
    /// the device's binding limit always applies.
    pub max_segment_bytes: Option<u64>,
    /// Words of the block stage in workgroup memory, where blocks are packed and then
    /// written out coalesced; 0 writes every block directly (the paper's writes). None:
    /// chosen per input (`VleEncoder::stage_words`).
    pub stage_words: Option<u32>,
    /// Write the output where the host reads it (a mappable buffer, in host memory on a
    /// discrete GPU), not into device memory copied back after the encode: no copy on the
    /// GPU's queue, the kernel's stores crossing the link themselves. Taken where the
    /// device allows mappable storage and a stage holds any block (its end words are then
    /// placed by the host: src/huffman/block_ends.rs); device memory otherwise.
    pub host_output: bool,
}

impl Default for CuvleConfig {
    fn default() -> Self {
        CuvleConfig {
            net: 16,
            scan: ScanConfig::default(),
            max_segment_bytes: None,
            stage_words: None,
            host_output: false,
        }
    }
}

impl CuvleConfig {
    /// Bytes of one block-input.
    pub fn block_bytes(&self) -> u64 {
        self.scan.workgroup_size as u64 * self.net as u64 * 4
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if ![4, 8, 16, 32].contains(&self.net) {
            return Err(Error::InvalidArgument(format!(
                "NET must be 4, 8, 16 or 32, not {}",
                self.net
            )));
        }
        let wg = self.scan.workgroup_size;
        if !wg.is_power_of_two() || !(32..=1024).contains(&wg) {
            return Err(Error::InvalidArgument(format!(
                "workgroup size must be a power of two in 32..=1024, not {wg}"
            )));
        }
        Ok(())
    }

    /// Whether `chunk_bytes` may be an encoder's histogram granularity (its
    /// `with_chunk_bytes`, on wgpu and CUDA): a power of two from one block to half the
    /// device's largest binding.
    pub(crate) fn check_chunk_bytes(&self, chunk_bytes: u64, max_binding: u64) -> Result<()> {
        let block = self.block_bytes();
        let max = max_binding / 2;
        if !chunk_bytes.is_power_of_two() || chunk_bytes < block || chunk_bytes > max {
            return Err(Error::InvalidArgument(format!(
                "histogram chunk of {chunk_bytes} bytes: a power of two from one block ({block} bytes) to {max} expected"
            )));
        }
        Ok(())
    }

    /// Histogram granularity on a device: a power of two of at least one block, within
    /// one binding and the segment cap.
    pub(crate) fn chunk_bytes(&self, max_binding: u64) -> u64 {
        let block = self.block_bytes();
        let cap = self.max_segment_bytes.unwrap_or(u64::MAX).min(max_binding);
        let mut chunk = DEFAULT_CHUNK_BYTES;
        while chunk > cap && chunk > block {
            chunk /= 2;
        }
        chunk.max(block)
    }
}

/// Input resident on the GPU, in windows of at most one storage binding.
pub struct GpuInput {
    windows: Vec<Window>,
    n_bytes: u64,
    chunk_bytes: u64,
}

impl GpuInput {
    pub fn len(&self) -> u64 {
        self.n_bytes
    }
    pub fn is_empty(&self) -> bool {
        self.n_bytes == 0
    }
    fn n_chunks(&self) -> usize {
        self.n_bytes.div_ceil(self.chunk_bytes) as usize
    }
    /// Input bytes per histogram chunk.
    pub fn chunk_bytes(&self) -> u64 {
        self.chunk_bytes
    }
    pub(crate) fn windows(&self) -> &[Window] {
        &self.windows
    }
    /// (offset, bytes) of every window.
    pub(crate) fn window_spans(&self) -> Vec<(u64, u64)> {
        self.windows.iter().map(|w| (w.offset, w.n_bytes)).collect()
    }
}

/// The CUVLE encoder on one GPU.
pub struct VleEncoder<'g> {
    pub(crate) gpu: &'g Gpu,
    config: CuvleConfig,
    /// Histogram granularity set by [`Self::with_chunk_bytes`].
    chunk_bytes: Option<u64>,
}

impl<'g> VleEncoder<'g> {
    pub fn new(gpu: &'g Gpu, config: CuvleConfig) -> Result<Self> {
        config.validate()?;
        Ok(VleEncoder {
            gpu,
            config,
            chunk_bytes: None,
        })
    }

    /// Histogram per `chunk_bytes` of input (a power of two of at least one block, within
    /// one binding) instead of the default granularity: frames of [`Self::plan_framed`]
    /// start on chunk boundaries, so set it to the frame granularity.
    pub fn with_chunk_bytes(mut self, chunk_bytes: u64) -> Result<Self> {
        self.config
            .check_chunk_bytes(chunk_bytes, self.gpu.max_binding())?;
        self.chunk_bytes = Some(chunk_bytes);
        Ok(self)
    }

    pub fn config(&self) -> &CuvleConfig {
        &self.config
    }

    /// Words of the block stage in workgroup memory (see shaders/common/bitwriter.wgsl),
    /// 0 for the paper's direct writes. Staging pays from about 4 bits per byte (on the
    /// H200: +7% at 4.5 bits, +14% at 7) and costs below (-11% at 2 bits: fewer words to
    /// write, and the workgroup memory costs occupancy and L1), so the stage is used from
    /// 4 bits per byte on and sized to this input's blocks, within the adapter's room
    /// beside the code table and the scan. A block that outgrows it writes directly.
    /// Words of workgroup memory left for staging output.
    fn stage_room(&self) -> u32 {
        self.gpu
            .limits
            .max_compute_workgroup_storage_size
            .saturating_sub(2 * 1024 + SCAN_WORKGROUP_BYTES)
            / 4
    }

    /// The stage of an output written in place ([`CuvleConfig::host_output`]), if it can
    /// be: the device maps storage buffers, and a stage in the workgroup's memory holds
    /// the longest block the plan's codes can make (every block must be staged, since
    /// only staged blocks hand their end words back).
    fn in_place_stage_words(&self, plan: &Plan) -> Option<u32> {
        if !self.config.host_output
            || !self
                .gpu
                .features
                .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS)
        {
            return None;
        }
        // A block's code from any bit of its first word.
        let longest = (31 + plan.block_bytes * plan.max_len as u64).div_ceil(32);
        let fits = |w: u32| w as u64 >= longest;
        match self.config.stage_words {
            Some(w) => fits(w).then_some(w),
            None => stage_words_steps(self.stage_room()).find(|&w| fits(w)),
        }
    }

    fn stage_words(&self, plan: &Plan) -> u32 {
        if let Some(w) = self.config.stage_words {
            return w;
        }
        let n_bytes: u64 = plan.segments.iter().map(|s| s.n_bytes).sum();
        let code_bits: u64 = plan.segments.iter().map(|s| s.bits).sum();
        if n_bytes == 0 || code_bits < STAGE_MIN_BITS_PER_BYTE * n_bytes {
            return 0;
        }
        let room = self.stage_room();
        // The average block's code, an eighth more for blocks above the average, and the
        // two end words.
        let block_bits = code_bits * plan.block_bytes / n_bytes;
        let words = (block_bits + block_bits / 8) / 32 + 2;
        if words < 1024 {
            return 0;
        }
        let words = stage_words_steps(room)
            .find(|&w| w as u64 >= words)
            .unwrap_or(room & !511);
        if words < 1024 {
            0
        } else {
            words
        }
    }

    /// The kernel's override constants.
    fn kernel_constants(
        &self,
        msb: bool,
        packed: bool,
        pairs: bool,
        stage_words: u32,
        framed: bool,
    ) -> Vec<(&'static str, f64)> {
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        let mut constants = vec![
            ("NET", self.config.net as f64),
            ("MSB_FIRST", flag(msb)),
            ("PACKED", flag(packed)),
            ("PAIRS", flag(pairs)),
            ("STAGED", flag(stage_words > 0)),
            ("STAGE_WORDS", stage_words.max(1) as f64),
        ];
        if framed {
            constants.push(("FRAMED", 1.0));
        }
        constants
    }

    /// Build, in parallel and now, every pipeline the framed kernel may use for codes
    /// in `order` and chunks of up to `n_blocks` blocks, for a caller that would rather
    /// pay the compiles ahead. A cold driver compiles each in about 0.3 s (the H200); the
    /// stream pipeline no longer calls it: the eight compiles at once took a cold run's
    /// peak memory over 512 MiB.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn warm_framed(&self, order: BitOrder, n_blocks: u32) -> Result<()> {
        use rayon::prelude::*;
        let msb = order == BitOrder::MsbFirst;
        let room = self.stage_room();
        let mut variants: Vec<u32> = match self.config.stage_words {
            Some(w) => vec![w],
            None => std::iter::once(0).chain(stage_words_steps(room)).collect(),
        };
        variants.dedup();
        // Frame codes are at most 15 bits: packed, in pairs.
        variants.into_par_iter().try_for_each(|words| {
            let constants = self.kernel_constants(msb, true, true, words, true);
            crate::scan::warm_lookback(self.gpu, &CUVLE, &constants, &self.config.scan, n_blocks)
        })
    }

    /// Input bytes per histogram chunk.
    pub fn chunk_bytes(&self) -> u64 {
        self.chunk_bytes
            .unwrap_or_else(|| self.config.chunk_bytes(self.gpu.max_binding()))
    }

    /// Copy `data` to the GPU.
    pub fn upload(&self, data: &[u8]) -> Result<GpuInput> {
        let chunk = self.chunk_bytes();
        let cap = self
            .config
            .max_segment_bytes
            .unwrap_or(u64::MAX)
            .min(self.gpu.max_binding() - 256);
        let window_bytes = (cap / chunk).max(1) * chunk;
        let windows = self.gpu.upload_windows(data, window_bytes)?;
        Ok(GpuInput {
            windows,
            n_bytes: data.len() as u64,
            chunk_bytes: chunk,
        })
    }

    /// Encode the planned segments into `encoder`: nothing is submitted. The table buffer
    /// comes from [`Self::upload_table`].
    pub fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        input: &GpuInput,
        table: &wgpu::Buffer,
        plan: &Plan,
        profile: bool,
    ) -> Result<Pending> {
        if plan.is_framed() {
            return Err(Error::InvalidArgument(
                "a framed plan is encoded with encode_framed_into".into(),
            ));
        }
        self.record(encoder, input, table, None, plan, profile)
    }

    /// Record `plan`: with one table (`block_frames` None), or with the FRAMED kernel,
    /// `tables` holding every table and `block_frames` each block's table and gap.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        input: &GpuInput,
        tables: &wgpu::Buffer,
        block_frames: Option<&wgpu::Buffer>,
        plan: &Plan,
        profile: bool,
    ) -> Result<Pending> {
        let gpu = self.gpu;
        if plan.segments.iter().map(|s| s.n_bytes).sum::<u64>() != input.len()
            || plan
                .segments
                .iter()
                .any(|s| s.window >= input.windows.len())
        {
            return Err(Error::InvalidArgument(
                "the plan was made for another input".into(),
            ));
        }
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        // In place: every block staged, its end words handed back after its flags.
        let in_place = self.in_place_stage_words(plan);
        let output = match in_place {
            Some(_) => gpu.pooled_buffer(
                plan.output_bytes() + 512,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::MAP_READ,
            ),
            None => {
                let output = gpu.pooled_buffer(plan.output_bytes() + 512, storage);
                encoder.clear_buffer(&output, 0, None);
                output
            }
        };
        let block_words = if in_place.is_some() { 3 } else { 1 };
        let max_blocks = plan.segments.iter().map(|s| s.n_blocks).max().unwrap_or(0) as u64;
        let state = gpu.pooled_buffer(
            (STATE_HEADER as u64 + block_words * max_blocks) * 4,
            storage,
        );
        let log_bytes = match in_place {
            Some(_) => plan.log_words_with_ends() * 4,
            None => plan.log_words() * 4,
        };
        let log = gpu.pooled_buffer(log_bytes, storage);
        let mut profiler = Profiler::new(
            gpu,
            if profile {
                plan.segments.len() as u32 * 3
            } else {
                0
            },
        );
        let msb = plan.order == BitOrder::MsbFirst;
        let stage_words = in_place.unwrap_or_else(|| self.stage_words(plan));
        // The single-table kernel never reads binding 4, but the layout has it.
        let dummy;
        let block_frames = match block_frames {
            Some(b) => b,
            None => {
                dummy = gpu.pooled_buffer(16, wgpu::BufferUsages::STORAGE);
                &dummy
            }
        };
        let mut constants = self.kernel_constants(
            msb,
            plan.packed(),
            plan.pairs(),
            stage_words,
            plan.is_framed(),
        );
        if in_place.is_some() {
            constants.push(("STAGE_ENDS_TO_CALLER", 1.0));
        }
        let mut log_offset = 0u64;
        let mut first_block = 0u32;
        for seg in &plan.segments {
            let word = seg.first_bit / 32;
            let window_word = word & !63; // bind at a 256-byte boundary
            let out_word_base = (word - window_word) as u32;
            let start_bit = (seg.first_bit % 32) as u32;
            let words = (out_word_base as u64 * 32 + start_bit as u64 + seg.bits)
                .div_ceil(32)
                .max(1);
            let params = CuvleParams {
                n_bytes: seg.n_bytes as u32,
                n_blocks: seg.n_blocks,
                start_bit,
                out_word_base,
                first_block,
            };
            first_block += seg.n_blocks;
            let params = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("parvlc.huffman.cuvle.params"),
                    contents: bytemuck::bytes_of(&params),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let window = &input.windows[seg.window];
            encode_lookback(
                gpu,
                encoder,
                profile.then_some(&mut profiler),
                LookbackStage {
                    shader: &CUVLE,
                    label: "cuvle",
                    constants: constants.clone(),
                    bindings: vec![
                        (0, params.as_entire_buffer_binding()),
                        (
                            1,
                            wgpu::BufferBinding {
                                buffer: &window.buffer,
                                offset: seg.window_offset,
                                size: wgpu::BufferSize::new(seg.n_bytes.next_multiple_of(16)),
                            },
                        ),
                        (2, tables.as_entire_buffer_binding()),
                        (
                            3,
                            wgpu::BufferBinding {
                                buffer: &output,
                                offset: window_word * 4,
                                size: wgpu::BufferSize::new(words * 4),
                            },
                        ),
                        (4, block_frames.as_entire_buffer_binding()),
                    ],
                    n_blocks: seg.n_blocks,
                },
                &state,
                &self.config.scan,
            )?;
            let seg_log = (STATE_HEADER as u64 + block_words * seg.n_blocks as u64) * 4;
            encoder.copy_buffer_to_buffer(&state, 0, &log, log_offset, seg_log);
            log_offset += seg_log;
        }
        profiler.resolve(encoder);
        Ok(Pending {
            output,
            log,
            _state: state,
            profiler,
            plan: plan.clone(),
            reads: None,
            in_place_stage_words: in_place,
        })
    }

    /// The code table as the kernel reads it.
    pub fn upload_table(&self, table: &CodeTable) -> wgpu::Buffer {
        self.gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("parvlc.huffman.cuvle.table"),
                contents: bytemuck::cast_slice(&gpu_table_words(table)),
                usage: wgpu::BufferUsages::STORAGE,
            })
    }

    /// Everything in one call: upload, histogram, plan, encode, read back.
    pub async fn encode(
        &self,
        data: &[u8],
        table: &CodeTable,
        order: BitOrder,
        start_bit: u32,
    ) -> Result<Encoded> {
        let input = CuvleInput {
            data,
            table,
            order,
            start_bit,
        };
        GpuStage::run(self, &input).await
    }
}

/// What one cuvle encode codes: the bytes, their code table, the bit order and the bit of
/// the first word the stream starts at.
#[derive(Clone, Copy, Debug)]
pub struct CuvleInput<'a> {
    pub data: &'a [u8],
    pub table: &'a CodeTable,
    pub order: BitOrder,
    pub start_bit: u32,
}

/// An input on the GPU with what it is coded with, owned, since [`GpuStage::encode_into`]
/// sees only the upload: the `Uploaded` of the stages that take a [`CuvleInput`] and plan
/// on the host (pavle, bytestream).
pub struct CodedUpload<I> {
    pub input: I,
    pub table: CodeTable,
    pub order: BitOrder,
    pub start_bit: u32,
}

impl<I> CodedUpload<I> {
    pub(crate) fn new(input: I, coded: &CuvleInput<'_>) -> Self {
        CodedUpload {
            input,
            table: coded.table.clone(),
            order: coded.order,
            start_bit: coded.start_bit,
        }
    }
}

/// An input uploaded, histogrammed on the GPU and planned, with its code table.
pub struct CuvleUploaded {
    pub input: GpuInput,
    pub plan: Plan,
    pub table: wgpu::Buffer,
}

impl GpuStage for VleEncoder<'_> {
    type Input<'a> = CuvleInput<'a>;
    type Uploaded = CuvleUploaded;
    type Pending = Pending;
    type Report = Encoded;
    type Output = BitBuf;

    fn gpu(&self) -> &Gpu {
        self.gpu
    }

    fn label(&self) -> &'static str {
        CUVLE.label
    }

    async fn upload(&self, input: &Self::Input<'_>) -> Result<CuvleUploaded> {
        let uploaded = VleEncoder::upload(self, input.data)?;
        let hist = self.histograms(&uploaded, None).await?;
        let plan = self.plan(&uploaded, &hist, input.table, input.order, input.start_bit)?;
        Ok(CuvleUploaded {
            input: uploaded,
            plan,
            table: self.upload_table(input.table),
        })
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        uploaded: &CuvleUploaded,
    ) -> Result<Pending> {
        VleEncoder::encode_into(
            self,
            encoder,
            &uploaded.input,
            &uploaded.table,
            &uploaded.plan,
            false,
        )
    }

    async fn finish(
        &self,
        _input: &Self::Input<'_>,
        _uploaded: &CuvleUploaded,
        pending: Pending,
    ) -> Result<Encoded> {
        VleEncoder::finish(self, pending).await
    }

    fn output(report: Encoded) -> BitBuf {
        report.stream
    }

    fn cpu(&self, input: &Self::Input<'_>) -> Result<BitBuf> {
        encode_cuvle_cpu(
            input.data,
            input.table,
            input.order,
            input.start_bit,
            &self.config,
        )
    }
}
