//! CUVLE on CUDA (shaders/cuda/vle_cuvle.cu) with its histogram
//! (shaders/cuda/vle_histogram.cu): the same segment plan, code table layout, scan
//! strategies, state layout and output as [`crate::huffman::cuvle::VleEncoder`], with the
//! NVIDIA-specific parts the wgpu path cannot express: a persistent grid sized by the
//! occupancy API, warp shuffles, 128-bit loads, registers bounded per block count, and
//! warp-cooperative output writes.
//!
//! This file holds the encoder, its launch and read back; the per-chunk histogram
//! (`histograms`), the block CRC32s (`block_crc`), the framed encode's tables and plan (`framed`), a chunk's frames
//! planned on the device (`frame_plan`) and their gzip headers (`deflate_head`) are apart.

use std::sync::Arc;

use cudarc::driver::{
    sys::CUfunction_attribute, CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtr,
    DeviceRepr, LaunchConfig, PushKernelArg,
};

use super::{driver_error, CudaGpu};
use crate::gpu::Timings;
use crate::huffman::compress::{codebook_for, package, Compressed, Format, Stage};
use crate::huffman::cuvle::{
    gpu_table_words, plan_segments, CuvleConfig, DeviceLimits, Encoded, Plan,
};
use crate::huffman::histogram::total_histogram;
use crate::huffman::{BitBuf, BitOrder, CodeTable};
use crate::scan::{ScanStrategy, STATE_HEADER};
use crate::{Error, Result};

mod block_crc;
mod deflate_head;
mod frame_plan;
mod frame_tables;
mod framed;
mod histograms;

#[cfg(test)]
pub(crate) use block_crc::BLOCK_CRC_SOURCE;
#[cfg(test)]
pub(crate) use deflate_head::DEFLATE_HEAD_SOURCE;
#[cfg(test)]
pub(crate) use frame_plan::FRAME_PLAN_SOURCE;
#[cfg(test)]
pub(crate) use frame_tables::FRAME_TABLES_SOURCE;
pub use framed::CudaFramedTables;
#[cfg(test)]
pub(crate) use histograms::HISTOGRAM_SOURCE;

pub(crate) const CUVLE_SOURCE: &str = include_str!("../../shaders/cuda/vle_cuvle.cu");

// keep in sync with shaders/cuda/vle_cuvle.cu `FLAG_*`
const FLAG_MSB_FIRST: u32 = 1;
const FLAG_PACKED: u32 = 2;
const FLAG_PAIRS: u32 = 4;
const FLAG_FRAMED: u32 = 8;

/// keep in sync with shaders/cuda/vle_cuvle.cu `CuvleArgs`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct CuvleArgs {
    n_bytes: u32,
    n_blocks: u32,
    start_bit: u32,
    strategy: u32,
    spin_budget: u32,
    flags: u32,
    max_blocks: u32,
    stage_words: u32,
    first_block: u32,
}
// SAFETY: plain #[repr(C)] u32 fields, the layout of the kernel's struct.
unsafe impl DeviceRepr for CuvleArgs {}

/// How the CUDA kernel writes its thread-codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum CudaWrite {
    /// The paper's: each thread writes its own words to global memory.
    Direct,
    /// Each warp packs its code in shared memory and writes whole words, coalesced.
    Warp,
}

impl CudaWrite {
    pub fn name(self) -> &'static str {
        match self {
            CudaWrite::Direct => "direct",
            CudaWrite::Warp => "warp",
        }
    }
}

impl std::str::FromStr for CudaWrite {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "direct" => Ok(CudaWrite::Direct),
            "warp" => Ok(CudaWrite::Warp),
            _ => Err(Error::InvalidArgument(format!(
                "unknown CUDA write mode `{s}` (direct, warp)"
            ))),
        }
    }
}

/// Tuning of the CUDA path beyond [`CuvleConfig`] (whose NET, block size, scan strategy,
/// spin budget, segment cap and block caps it shares). The grid is the number of blocks
/// that are resident at once (occupancy API x multiprocessors), capped by
/// `CuvleConfig::scan.resident_workgroups` (pass `u32::MAX` for the whole GPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CudaConfig {
    pub write: CudaWrite,
    /// Blocks per multiprocessor, with each thread's registers bounded so that they fit
    /// (`__launch_bounds__`): None, as many as the multiprocessor has threads for (full
    /// occupancy: 8 blocks of 256 threads on an H200, the measured best); Some(n), n. The
    /// launch takes no more than the occupancy API says fit.
    pub blocks_per_sm: Option<u32>,
    /// Warp write: the stage of each warp holds this many code bits per input byte; a
    /// warp whose code is longer writes directly.
    pub stage_bits_per_byte: u32,
}

impl Default for CudaConfig {
    fn default() -> Self {
        CudaConfig {
            write: CudaWrite::Warp,
            blocks_per_sm: None,
            stage_bits_per_byte: 9,
        }
    }
}

/// Input resident on the CUDA device (one buffer, padded to 16 bytes for 128-bit loads).
pub struct CudaInput {
    buffer: CudaSlice<u8>,
    n_bytes: u64,
    chunk_bytes: u64,
}

impl CudaInput {
    pub fn len(&self) -> u64 {
        self.n_bytes
    }
    pub fn is_empty(&self) -> bool {
        self.n_bytes == 0
    }
    fn n_chunks(&self) -> usize {
        self.n_bytes.div_ceil(self.chunk_bytes) as usize
    }
    /// The input as the planners take it: one window (byte offset, bytes), none if empty.
    fn window_spans(&self) -> Vec<(u64, u64)> {
        match self.n_bytes {
            0 => Vec::new(),
            n => vec![(0, n)],
        }
    }
}

/// An encode in flight: read it back with [`CudaVleEncoder::finish`].
pub struct CudaPending {
    output: CudaSlice<u32>,
    log: CudaSlice<u32>,
    plan: Plan,
    events: Option<(CudaEvent, CudaEvent)>,
}

impl CudaPending {
    /// Kernel time of the encode by CUDA events (waits for it); None unless profiled.
    pub fn seconds(&self) -> Result<Option<f64>> {
        match &self.events {
            None => Ok(None),
            Some((start, end)) => {
                let ms = start
                    .elapsed_ms(end)
                    .map_err(driver_error("reading CUDA events"))?;
                Ok(Some(ms as f64 / 1e3))
            }
        }
    }
}

/// The encoder's result, with the CUDA-specific launch shape.
pub type CudaEncoded = Encoded;

/// CUVLE on one CUDA device.
pub struct CudaVleEncoder<'c> {
    cuda: &'c CudaGpu,
    config: CuvleConfig,
    tuning: CudaConfig,
    /// Histogram granularity, where not the config's ([`Self::with_chunk_bytes`]).
    chunk_bytes: Option<u64>,
    /// Where its copies and kernels run, in order: the device's stream unless given one
    /// ([`Self::with_stream`]).
    stream: Arc<CudaStream>,
}

/// The launch shape of the encoder for one configuration.
struct Kernels {
    main: CudaFunction,
    reduce: CudaFunction,
    spine: CudaFunction,
    /// Blocks per multiprocessor the main kernel runs with.
    per_sm: u32,
    stage_words: u32,
    shared_bytes: u32,
}

impl<'c> CudaVleEncoder<'c> {
    pub fn new(cuda: &'c CudaGpu, config: CuvleConfig) -> Result<Self> {
        Self::with_tuning(cuda, config, CudaConfig::default())
    }

    pub fn with_tuning(cuda: &'c CudaGpu, config: CuvleConfig, tuning: CudaConfig) -> Result<Self> {
        config.validate()?;
        if tuning.blocks_per_sm == Some(0) {
            return Err(Error::InvalidArgument(
                "blocks per SM must be at least 1".into(),
            ));
        }
        if !(1..=32).contains(&tuning.stage_bits_per_byte) {
            return Err(Error::InvalidArgument(format!(
                "stage bits per byte must be in 1..=32, not {}",
                tuning.stage_bits_per_byte
            )));
        }
        Ok(CudaVleEncoder {
            cuda,
            config,
            tuning,
            chunk_bytes: None,
            stream: cuda.stream.clone(),
        })
    }

    /// Run on `stream` instead of the device's own, so that encoders on several threads
    /// copy and code side by side, each waiting for its own work only. Everything the
    /// encoder makes (input, tables, pending encodes) belongs to that stream.
    pub fn with_stream(mut self, stream: Arc<CudaStream>) -> Self {
        self.stream = stream;
        self
    }

    /// Histogram per `chunk_bytes` of input (a power of two of at least one block)
    /// instead of the default granularity: frames of [`Self::plan_framed`] start on chunk
    /// boundaries, so set it to the frame granularity.
    pub fn with_chunk_bytes(mut self, chunk_bytes: u64) -> Result<Self> {
        self.config
            .check_chunk_bytes(chunk_bytes, self.limits().max_binding)?;
        self.chunk_bytes = Some(chunk_bytes);
        Ok(self)
    }

    pub fn config(&self) -> &CuvleConfig {
        &self.config
    }

    pub fn tuning(&self) -> &CudaConfig {
        &self.tuning
    }

    fn limits(&self) -> DeviceLimits {
        // No binding limit: one segment may span any range of the one input buffer.
        DeviceLimits {
            max_binding: 1 << 40,
            max_buffer: self.cuda.total_memory(),
        }
    }

    /// Copy `data` to the device, through pinned pieces from the `CudaGpu`'s pool.
    pub fn upload(&self, data: &[u8]) -> Result<CudaInput> {
        let stream = &self.stream;
        let padded = (data.len() as u64).next_multiple_of(16).max(16) as usize;
        // SAFETY: every byte is written below before a kernel reads it: the data, then
        // the padding (128-bit loads read it) zeroed.
        let mut buffer =
            unsafe { stream.alloc::<u8>(padded) }.map_err(driver_error("allocating the input"))?;
        if !data.is_empty() {
            self.cuda
                .upload_staged(stream, data, &mut buffer.slice_mut(..data.len()))?;
        }
        stream
            .memset_zeros(&mut buffer.slice_mut(data.len()..))
            .map_err(driver_error("zeroing the input's padding"))?;
        Ok(CudaInput {
            buffer,
            n_bytes: data.len() as u64,
            chunk_bytes: self
                .chunk_bytes
                .unwrap_or_else(|| self.config.chunk_bytes(self.limits().max_binding)),
        })
    }

    /// Plan the segments of an encode from per-chunk histograms (the wgpu path's plan).
    pub fn plan(
        &self,
        input: &CudaInput,
        chunk_histograms: &[[u64; 256]],
        table: &CodeTable,
        order: BitOrder,
        start_bit: u32,
    ) -> Result<Plan> {
        plan_segments(
            &input.window_spans(),
            input.chunk_bytes,
            chunk_histograms,
            table,
            order,
            start_bit,
            &self.config,
            self.limits(),
        )
    }

    /// The code table as the kernel reads it (shaders/huffman/cuvle.wgsl's layout).
    pub fn upload_table(&self, table: &CodeTable) -> Result<CudaSlice<u32>> {
        self.stream
            .clone_htod(&gpu_table_words(table)[..])
            .map_err(driver_error("copying the code table"))
    }

    fn kernels(&self) -> Result<Kernels> {
        let wg = self.config.scan.workgroup_size;
        let warp = self.tuning.write == CudaWrite::Warp;
        let blocks_per_sm = self
            .tuning
            .blocks_per_sm
            .unwrap_or(self.cuda.max_threads_per_sm() / wg)
            .max(1);
        let module = self.cuda.module(
            "vle_cuvle",
            CUVLE_SOURCE,
            &[
                ("WG_SIZE", wg),
                ("NET", self.config.net),
                ("WARP_WRITE", warp as u32),
                ("MIN_BLOCKS", blocks_per_sm),
            ],
        )?;
        let load = |name: &str| {
            module
                .load_function(name)
                .map_err(driver_error("loading a vle_cuvle kernel"))
        };
        let main = load("cuvle_main")?;
        let stage_words = if warp {
            self.config.net * 4 * self.tuning.stage_bits_per_byte + 2
        } else {
            0
        };
        let shared_bytes = (wg / 32) * stage_words * 4;
        if shared_bytes > 48 << 10 {
            main.set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared_bytes as i32,
            )
            .map_err(driver_error("raising the shared memory limit"))?;
        }
        let fits = main
            .occupancy_max_active_blocks_per_multiprocessor(wg, shared_bytes as usize, None)
            .map_err(driver_error("occupancy"))?;
        if fits == 0 {
            return Err(Error::Cuda(format!(
                "no block of {wg} threads with {shared_bytes} bytes of shared memory fits a multiprocessor"
            )));
        }
        let per_sm = blocks_per_sm.min(fits);
        Ok(Kernels {
            reduce: load("cuvle_reduce")?,
            spine: load("cuvle_spine")?,
            main,
            per_sm,
            stage_words,
            shared_bytes,
        })
    }

    /// Blocks resident at once on the whole device with this configuration.
    pub fn resident_blocks(&self) -> Result<u32> {
        Ok(self.kernels()?.per_sm * self.cuda.sm_count())
    }

    /// Blocks to launch for `n_blocks` block-inputs, and the block-inputs each may take.
    fn grid(&self, resident: u32, n_blocks: u32) -> (u32, u32) {
        let resident = resident
            .min(self.config.scan.resident_workgroups.max(1))
            .max(1);
        match self.config.scan.max_blocks_per_workgroup {
            None => (n_blocks.min(resident).max(1), u32::MAX),
            Some(cap) => {
                let max_grid = i32::MAX as u32;
                let cap = cap.max(1).max(n_blocks.div_ceil(max_grid));
                let groups = n_blocks
                    .div_ceil(cap)
                    .max(n_blocks.min(resident))
                    .min(max_grid)
                    .max(1);
                (groups, cap)
            }
        }
    }

    /// Launch the planned segments on the stream (nothing waits); a framed plan is
    /// launched by [`Self::encode_framed`]. `profile` brackets the kernels with CUDA
    /// events.
    pub fn encode_planned(
        &self,
        input: &CudaInput,
        table: &CudaSlice<u32>,
        plan: &Plan,
        profile: bool,
    ) -> Result<CudaPending> {
        if plan.is_framed() {
            return Err(Error::InvalidArgument(
                "a framed plan is encoded with encode_framed".into(),
            ));
        }
        self.launch(input, table, None, plan, profile)
    }

    /// Clear the output, then per segment clear the scan state, launch (reduce_then_scan:
    /// reduce, spine, main) and keep the state in a log: with one table, or (FRAMED)
    /// every frame's table in `tables` and each block's table and gap in `block_frames`.
    fn launch(
        &self,
        input: &CudaInput,
        table: &CudaSlice<u32>,
        block_frames: Option<&CudaSlice<u32>>,
        plan: &Plan,
        profile: bool,
    ) -> Result<CudaPending> {
        let stream = &self.stream;
        let kernels = self.kernels()?;
        let wg = self.config.scan.workgroup_size;
        let output = stream
            .alloc_zeros::<u32>((plan.output_bytes() / 4 + 128) as usize)
            .map_err(driver_error("allocating the output"))?;
        let max_blocks = plan.segments.iter().map(|s| s.n_blocks).max().unwrap_or(0) as usize;
        let mut state = stream
            .alloc_zeros::<u32>(STATE_HEADER + max_blocks)
            .map_err(driver_error("allocating the scan state"))?;
        let mut log = stream
            .alloc_zeros::<u32>(plan.log_words().max(1) as usize)
            .map_err(driver_error("allocating the scan log"))?;
        let events = if profile {
            Some(self.cuda.timing_events()?)
        } else {
            None
        };
        if let Some((start, _)) = &events {
            start
                .record(stream)
                .map_err(driver_error("recording an event"))?;
        }
        let strategy = self.config.scan.strategy;
        let mut flags = 0;
        if plan.order == BitOrder::MsbFirst {
            flags |= FLAG_MSB_FIRST;
        }
        if plan.packed() {
            flags |= FLAG_PACKED;
        }
        if plan.pairs() {
            flags |= FLAG_PAIRS;
        }
        if block_frames.is_some() {
            flags |= FLAG_FRAMED;
        }
        // The single-table kernel never reads the block map: a null pointer.
        let frames_guard = block_frames.map(|b| b.device_ptr(stream));
        let frames_ptr = frames_guard.as_ref().map_or(0, |(p, _)| *p);
        let resident = kernels.per_sm * self.cuda.sm_count();
        let mut at = 0usize;
        let mut first_block = 0u32;
        for seg in &plan.segments {
            let n_state = STATE_HEADER + seg.n_blocks as usize;
            stream
                .memset_zeros(&mut state.slice_mut(..n_state))
                .map_err(driver_error("clearing the scan state"))?;
            if seg.n_blocks > 0 {
                let (grid, max_blocks) = self.grid(resident, seg.n_blocks);
                let args = CuvleArgs {
                    n_bytes: seg.n_bytes as u32,
                    n_blocks: seg.n_blocks,
                    start_bit: (seg.first_bit % 32) as u32,
                    strategy: match strategy {
                        ScanStrategy::Chained => 0,
                        ScanStrategy::Decoupled => 1,
                        ScanStrategy::ReduceThenScan => 2,
                    },
                    spin_budget: self.config.scan.spin_budget,
                    flags,
                    max_blocks,
                    stage_words: kernels.stage_words,
                    first_block,
                };
                let (input_base, _in) = input.buffer.device_ptr(stream);
                let (table_ptr, _table) = table.device_ptr(stream);
                let (output_base, _out) = output.device_ptr(stream);
                let (state_ptr, _state) = state.device_ptr(stream);
                let input_ptr = input_base + seg.window_offset;
                let output_ptr = output_base + (seg.first_bit / 32) * 4;
                let block = (wg, 1, 1);
                if strategy == ScanStrategy::ReduceThenScan {
                    let mut launch = stream.launch_builder(&kernels.reduce);
                    launch
                        .arg(&args)
                        .arg(&input_ptr)
                        .arg(&table_ptr)
                        .arg(&frames_ptr)
                        .arg(&state_ptr);
                    // SAFETY: reads the segment's input (within the padded buffer), the
                    // table(s) and (framed) the block map, which covers every block;
                    // writes one state word per block-input.
                    unsafe {
                        launch.launch(LaunchConfig {
                            grid_dim: (seg.n_blocks.min(resident.max(1)), 1, 1),
                            block_dim: block,
                            shared_mem_bytes: 0,
                        })
                    }
                    .map_err(driver_error("launching cuvle_reduce"))?;
                    let mut launch = stream.launch_builder(&kernels.spine);
                    launch.arg(&seg.n_blocks).arg(&state_ptr);
                    // SAFETY: one block scans the segment's state words in place.
                    unsafe {
                        launch.launch(LaunchConfig {
                            grid_dim: (1, 1, 1),
                            block_dim: block,
                            shared_mem_bytes: 0,
                        })
                    }
                    .map_err(driver_error("launching cuvle_spine"))?;
                }
                let mut launch = stream.launch_builder(&kernels.main);
                launch
                    .arg(&args)
                    .arg(&input_ptr)
                    .arg(&table_ptr)
                    .arg(&frames_ptr)
                    .arg(&output_ptr)
                    .arg(&state_ptr);
                // SAFETY: reads the segment's input, the table(s) and (framed) the block
                // map, which covers every block of the plan; writes the segment's
                // output words (the plan sized the output for every segment's bits) and
                // the segment's state words.
                unsafe {
                    launch.launch(LaunchConfig {
                        grid_dim: (grid, 1, 1),
                        block_dim: block,
                        shared_mem_bytes: kernels.shared_bytes,
                    })
                }
                .map_err(driver_error("launching cuvle_main"))?;
            }
            stream
                .memcpy_dtod(
                    &state.slice(..n_state),
                    &mut log.slice_mut(at..at + n_state),
                )
                .map_err(driver_error("copying the scan state"))?;
            at += n_state;
            first_block += seg.n_blocks;
        }
        drop(frames_guard);
        if let Some((_, end)) = &events {
            end.record(stream)
                .map_err(driver_error("recording an event"))?;
        }
        Ok(CudaPending {
            output,
            log,
            plan: plan.clone(),
            events,
        })
    }

    /// Wait for an encode and read it back, checking every segment's scan.
    pub fn finish(&self, pending: CudaPending) -> Result<Encoded> {
        let mut encoded = self.finish_scan(&pending)?;
        encoded.stream.bytes = self.download_vec(&pending)?;
        Ok(encoded)
    }

    /// An encode's stream ([`Self::download`]) in a vector of its own. (Reusing the
    /// vectors a stream's writer is done with measured no faster on the H200 and held
    /// 20 MiB more at the CLI's peak: docs/results.md, "Forty-fifth pass".)
    pub(crate) fn download_vec(&self, pending: &CudaPending) -> Result<Vec<u8>> {
        let mut bytes = vec![0u8; pending.plan.total_bits.div_ceil(8) as usize];
        // SAFETY: the download writes bytes of the device's stream only.
        self.download(pending, unsafe { super::staged::as_uninit(&mut bytes) })?;
        Ok(bytes)
    }

    /// Wait for an encode's kernels and read its scan back, checked: everything
    /// [`Self::finish`] returns but the stream's bytes (none yet; [`Self::download`]
    /// copies them where the caller wants them).
    pub(crate) fn finish_scan(&self, pending: &CudaPending) -> Result<Encoded> {
        let stream = &self.stream;
        let plan = &pending.plan;
        let log_words = plan.log_words() as usize;
        // A copy of nothing is skipped: the driver refuses zero-byte copies.
        let log: Vec<u32> = if log_words == 0 {
            Vec::new()
        } else {
            stream
                .clone_dtoh(&pending.log.slice(..log_words))
                .map_err(driver_error("reading the scan log back"))?
        };
        // Errors of the kernels surface here at the latest.
        stream
            .synchronize()
            .map_err(driver_error("synchronizing the stream"))?;
        let scan = plan.read_log(&log, self.config.scan.strategy, false)?;
        let (block_offsets, fallbacks) = (scan.block_offsets, scan.fallbacks);
        let frame_offsets = plan.frame_offsets(&block_offsets)?;
        let mut timings = Timings::default();
        if let Some(s) = pending.seconds()? {
            timings.passes.push(("cuvle", s));
            timings.span = s;
        }
        Ok(Encoded {
            stream: BitBuf {
                bytes: Vec::new(),
                bits: plan.total_bits,
            },
            block_offsets,
            frame_offsets,
            block_bytes: plan.block_bytes,
            fallbacks,
            segments: plan.segments.len(),
            timings,
            written_in_place: false,
        })
    }

    /// Copy an encode's stream, its `total_bits` rounded up to bytes, into `dest` (as
    /// long), through pinned pieces; waits for it.
    pub(crate) fn download(
        &self,
        pending: &CudaPending,
        dest: &mut [std::mem::MaybeUninit<u8>],
    ) -> Result<()> {
        let plan = &pending.plan;
        if dest.len() as u64 != plan.total_bits.div_ceil(8) {
            return Err(Error::InvalidArgument(format!(
                "an encode of {} bits read into {} bytes",
                plan.total_bits,
                dest.len()
            )));
        }
        let words = (plan.output_bytes() / 4) as usize;
        if words > 0 {
            self.cuda
                .download_staged(&self.stream, &pending.output.slice(..words), dest)?;
        }
        Ok(())
    }

    /// Everything in one call: upload, histogram, plan, encode, read back.
    pub fn encode(
        &self,
        data: &[u8],
        table: &CodeTable,
        order: BitOrder,
        start_bit: u32,
    ) -> Result<Encoded> {
        let input = self.upload(data)?;
        let (hist, _) = self.histograms(&input)?;
        let plan = self.plan(&input, &hist, table, order, start_bit)?;
        let table = self.upload_table(table)?;
        let pending = self.encode_planned(&input, &table, &plan, false)?;
        self.finish(pending)
    }
}

/// Compress on a CUDA device: the pipeline of [`crate::huffman::compress::compress_gpu`]
/// (histogram on the device, codebook on the CPU, plan, encode, container) with the CUDA
/// kernels. Kernel times come from CUDA events.
pub fn compress_cuda(
    cuda: &CudaGpu,
    data: &[u8],
    format: Format,
    config: &CuvleConfig,
    tuning: &CudaConfig,
    progress: &mut dyn FnMut(Stage),
) -> Result<Compressed> {
    let encoder = CudaVleEncoder::with_tuning(cuda, *config, *tuning)?;
    progress(Stage::Upload);
    let input = encoder.upload(data)?;
    progress(Stage::Histogram);
    let (chunks, histogram_seconds) = encoder.histograms(&input)?;
    let histogram = total_histogram(&chunks);
    let (book, order, header) = codebook_for(format, &histogram)?;
    let table = book.table()?;
    let start_bit = header.as_ref().map_or(0, |h| (h.bits % 8) as u32);
    let plan = encoder.plan(&input, &chunks, &table, order, start_bit)?;
    progress(Stage::Encode);
    let table_buf = encoder.upload_table(&table)?;
    let pending = encoder.encode_planned(&input, &table_buf, &plan, true)?;
    // The checksum of the original runs on the CPU while the GPU encodes.
    let crc = crc32fast::hash(data);
    progress(Stage::Readback);
    let encoded = encoder.finish(pending)?;
    let mut timings = Timings::default();
    if !data.is_empty() {
        timings.passes.push(("histogram", histogram_seconds));
        timings.span += histogram_seconds;
    }
    progress(Stage::Container);
    package(
        data.len() as u64,
        crc,
        book,
        header,
        histogram,
        &encoded,
        timings,
    )
}
