//! Byte-per-bit Huffman encoding on the GPU (shaders/huffman/bytestream.wgsl), after Rahmani,
//! "A Parallel Huffman Coder on the CUDA Architecture" (2014), and its CPU twin.
//!
//! The paper's GPU steps, for every segment of the input:
//! 1. a device-wide exclusive scan of the per-symbol code lengths gives every symbol the
//!    position of its first output bit (`symbol_lengths`, then the crate's scan/exclusive
//!    through [`crate::scan`]);
//! 2. every symbol writes its code as one byte per bit (0 or 1) into a bit-byte array at
//!    that position (`scatter_bit_bytes`; bytes live four to a u32, so a run's first and
//!    last word are OR-ed, the words between stored);
//! 3. every 8 bit-bytes become one output byte (`pack_bit_bytes`: 32 bit-bytes make one
//!    output word, in either [`BitOrder`]).
//!
//! **Segments.** The scan packs 30-bit values, so one scan covers fewer than 2^30 output
//! bits. [`BytestreamEncoder::upload`] counts the bytes of every chunk of the input on the
//! host (rayon) while it copies them, so [`BytestreamEncoder::encode_into`] knows, for any
//! code table, the exact code bits of every chunk: it plans segments of whole chunks (each
//! within the scan's range, one storage binding and [`BytestreamConfig::max_segment_bytes`])
//! with their global first bit, and records all of them into one command buffer, with no
//! round trip. Each segment's pack ORs its first and last output words (shared with the
//! neighbouring segments) and stores the rest. Any input size works.
//!
//! **Memory.** One scan over the whole input, as in the paper, needs 8 bytes per symbol
//! (the lengths and their prefixes, a u32 each) plus one byte per output bit (8x the
//! output), besides the input and the output. The encoder reuses one segment's scratch for
//! every segment, so the device holds the input, the output, and that scratch for the
//! largest segment: 8 bytes per symbol of it and 8x its output. With the default 64 MiB
//! segments at 4.5 bits/byte that is 512 MiB + 288 MiB (1 GiB of input: 2.4 GiB in all).
//! [`BytestreamConfig::max_device_bytes`] bounds output plus scratch; beyond it, or beyond
//! the device's largest buffer, encoding fails with [`Error::TooLarge`] before anything is
//! recorded.

use wgpu::util::DeviceExt;

use super::cuvle::{check_table, gpu_table_words, CodedUpload, CuvleInput};
use super::histogram::{histogram_cpu, total_histogram};
use super::segments::{group_chunks, Segment, SegmentCaps};
use super::{BitBuf, BitOrder, CodeTable};
use crate::gpu::registry::huffman::BYTESTREAM;
use crate::gpu::Window;
use crate::gpu::{Gpu, GpuStage, PooledBuffer, Profiler, Timings};
use crate::scan::{
    encode_exclusive_scan, exclusive_scan_cpu, read_state, scan_u32_blocks, ScanConfig,
    STATE_HEADER,
};
use crate::{Error, Result};

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/huffman/bytestream.wgsl `BytestreamParams`
struct BytestreamParams {
    n_bytes: u32,
    phase: u32,
    n_words: u32,
    out_word_base: u32,
}

/// Largest code-bit count of one segment: the scan packs 30-bit values.
const SEGMENT_BITS_MAX: u64 = (1 << 30) - 64;
/// Input bytes per segment unless [`BytestreamConfig::max_segment_bytes`] says otherwise.
pub const DEFAULT_SEGMENT_BYTES: u64 = 64 << 20;
/// Histogram granularity on the host (segments are whole chunks), unless segments are
/// forced smaller.
const DEFAULT_CHUNK_BYTES: u64 = 1 << 20;
/// Smallest chunk: segment inputs are bound at chunk offsets.
const MIN_CHUNK_BYTES: u64 = 256;
/// Longest code the tables may hold.
const MAX_CODE_LEN: u64 = 32;

/// Byte-per-bit encoder tuning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BytestreamConfig {
    /// The scan's strategy and shape; `workgroup_size` is also that of the lengths,
    /// scatter and pack kernels.
    pub scan: ScanConfig,
    /// Input bytes one segment covers at most (None: [`DEFAULT_SEGMENT_BYTES`]). Segments
    /// are whole chunks (a power of two from 256 bytes to 1 MiB), so a cap below 256 bytes
    /// acts as 256. Tests force many segments with it; the scan's 2^30-bit range and the
    /// device's binding limit always apply.
    pub max_segment_bytes: Option<u64>,
    /// Device memory one encode may take for its output and its segment scratch (the
    /// uploaded input not counted); None: only the device's buffer limits apply.
    pub max_device_bytes: Option<u64>,
}

impl BytestreamConfig {
    fn validate(&self) -> Result<()> {
        let wg = self.scan.workgroup_size;
        if !wg.is_power_of_two() || !(32..=1024).contains(&wg) {
            return Err(Error::InvalidArgument(format!(
                "workgroup size must be a power of two in 32..=1024, not {wg}"
            )));
        }
        if self.max_segment_bytes == Some(0) {
            return Err(Error::InvalidArgument(
                "max_segment_bytes must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// Per-segment limits: input bytes (a multiple of the chunk) and code bits.
#[derive(Clone, Copy, Debug)]
struct SegmentLimits {
    bytes: u64,
    bits: u64,
}

impl SegmentLimits {
    /// As the shared planner takes them (bytestream has no blocks: n_blocks counts chunks).
    fn caps(&self, chunk: u64) -> SegmentCaps {
        SegmentCaps {
            bytes: self.bytes,
            bits: self.bits,
            block_bytes: chunk,
        }
    }

    /// From the configuration and the largest storage binding (u64::MAX: no device).
    fn new(config: &BytestreamConfig, max_binding: u64) -> SegmentLimits {
        let requested = config
            .max_segment_bytes
            .unwrap_or(DEFAULT_SEGMENT_BYTES)
            .max(MIN_CHUNK_BYTES);
        // The lengths and prefixes bind 4 bytes per symbol; the bit-bytes one byte per bit,
        // up to 63 more for the first word's phase and the last word's rounding.
        let bytes = requested.min((max_binding / 4).saturating_sub(16));
        let bits = SEGMENT_BITS_MAX.min(max_binding.saturating_sub(64));
        SegmentLimits { bytes, bits }
    }

    /// Chunk size: a power of two that fits one segment in bytes, even at 32-bit codes.
    fn chunk_bytes(&self) -> u64 {
        let mut chunk = DEFAULT_CHUNK_BYTES;
        while chunk > MIN_CHUNK_BYTES && (chunk > self.bytes || chunk * MAX_CODE_LEN > self.bits) {
            chunk /= 2;
        }
        chunk
    }
}

impl Segment {
    /// Output words the segment touches (also its bit-byte words / 8).
    fn n_words(&self) -> u64 {
        (self.phase() as u64 + self.bits).div_ceil(32)
    }
    /// Lengths and prefixes entries, rounded to whole input words.
    fn symbol_slots(&self) -> u64 {
        self.n_bytes.next_multiple_of(4)
    }
}

fn slice(buffer: &wgpu::Buffer, offset: u64, size: u64) -> wgpu::BufferBinding<'_> {
    wgpu::BufferBinding {
        buffer,
        offset,
        size: wgpu::BufferSize::new(size),
    }
}

fn check_start_bit(start_bit: u32) -> Result<()> {
    if start_bit >= 32 {
        return Err(Error::InvalidArgument(format!(
            "start bit {start_bit} must be below 32"
        )));
    }
    Ok(())
}

// ---- CPU twin -------------------------------------------------------------------------

/// Step 1, on the CPU (twin of `symbol_lengths`): the code length of every symbol.
pub fn symbol_lengths_cpu(input: &[u8], table: &CodeTable) -> Vec<u32> {
    input
        .iter()
        .map(|&b| table.lengths[b as usize] as u32)
        .collect()
}

/// Step 2, on the CPU (twin of `scatter_bit_bytes`): one byte (0 or 1) per stream bit, the
/// first code at bit-byte `phase`, symbol `i` at `phase + prefixes[i]`; zero before
/// `phase` and after the last code, up to a whole number of 32-bit-byte words.
pub fn scatter_bit_bytes_cpu(
    input: &[u8],
    table: &CodeTable,
    prefixes: &[u32],
    phase: u32,
) -> Vec<u8> {
    let bits: u64 = input
        .iter()
        .map(|&b| table.lengths[b as usize] as u64)
        .sum();
    let n_words = (phase as u64 + bits).div_ceil(32);
    let mut bit_bytes = vec![0u8; n_words as usize * 32];
    for (&b, &prefix) in input.iter().zip(prefixes) {
        let len = table.lengths[b as usize] as u32;
        let code = table.codes[b as usize];
        let at = (phase + prefix) as usize;
        for k in 0..len {
            // First bit first: the code's most significant bit.
            bit_bytes[at + k as usize] = ((code >> (len - 1 - k)) & 1) as u8;
        }
    }
    bit_bytes
}

/// Step 3, on the CPU (twin of `pack_bit_bytes`): every 32 bit-bytes become one output
/// word (little-endian bytes of the stream in `order`).
pub fn pack_bit_bytes_cpu(bit_bytes: &[u8], order: BitOrder) -> Vec<u32> {
    bit_bytes
        .chunks(32)
        .map(|c| {
            let lsb = c
                .iter()
                .enumerate()
                .fold(0u32, |w, (k, &b)| w | (((b & 1) as u32) << k));
            crate::bits::stream_word(lsb, order)
        })
        .collect()
}

/// The intermediate arrays of one segment, as the GPU leaves them (tests compare the GPU
/// with the CPU stage by stage).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BytestreamStages {
    /// Code length per symbol.
    pub lengths: Vec<u32>,
    /// Exclusive prefix of the lengths per symbol.
    pub prefixes: Vec<u32>,
    /// One byte per stream bit, from the segment's first output word on.
    pub bit_bytes: Vec<u8>,
    /// The packed stream.
    pub stream: BitBuf,
}

/// All stages on the CPU for an input that is one segment (the whole input, phase
/// `start_bit`).
pub fn bytestream_stages_cpu(
    input: &[u8],
    table: &CodeTable,
    order: BitOrder,
    start_bit: u32,
) -> Result<BytestreamStages> {
    check_start_bit(start_bit)?;
    check_table(
        table,
        &total_histogram(&histogram_cpu(input, input.len().max(1))),
    )?;
    let lengths = symbol_lengths_cpu(input, table);
    let prefixes = exclusive_scan_cpu(&lengths);
    let bit_bytes = scatter_bit_bytes_cpu(input, table, &prefixes, start_bit);
    let words = pack_bit_bytes_cpu(&bit_bytes, order);
    let bits = start_bit as u64 + lengths.iter().map(|&l| l as u64).sum::<u64>();
    Ok(BytestreamStages {
        lengths,
        prefixes,
        bit_bytes,
        stream: BitBuf::from_words(&words, bits),
    })
}

/// The CPU twin of the whole encoder: the same segments (as [`BytestreamConfig`] without
/// a device's binding limit gives them), each through lengths, scan, bit-bytes and pack,
/// its first and last words OR-ed into the output, the others stored. Equals
/// [`super::cpu::encode_serial`].
pub fn encode_bytestream_cpu(
    input: &[u8],
    table: &CodeTable,
    order: BitOrder,
    start_bit: u32,
    config: &BytestreamConfig,
) -> Result<BitBuf> {
    config.validate()?;
    check_start_bit(start_bit)?;
    let limits = SegmentLimits::new(config, u64::MAX);
    let chunk = limits.chunk_bytes();
    let hist = histogram_cpu(input, chunk as usize);
    check_table(table, &total_histogram(&hist))?;
    let segments = group_chunks(
        &[(0, input.len() as u64)],
        chunk,
        &hist,
        table,
        start_bit,
        limits.caps(chunk),
    )?;
    let total_bits = start_bit as u64 + segments.iter().map(|s| s.bits).sum::<u64>();
    let mut out = vec![0u32; total_bits.div_ceil(32) as usize];
    for seg in &segments {
        let data = &input[seg.window_offset as usize..(seg.window_offset + seg.n_bytes) as usize];
        let lengths = symbol_lengths_cpu(data, table);
        let prefixes = exclusive_scan_cpu(&lengths);
        let bit_bytes = scatter_bit_bytes_cpu(data, table, &prefixes, seg.phase());
        let words = pack_bit_bytes_cpu(&bit_bytes, order);
        let base = (seg.first_bit / 32) as usize;
        let last = words.len() - 1;
        for (w, &word) in words.iter().enumerate() {
            if w == 0 || w == last {
                out[base + w] |= word;
            } else {
                out[base + w] = word;
            }
        }
    }
    Ok(BitBuf::from_words(&out, total_bits))
}

// ---- GPU ------------------------------------------------------------------------------

/// Input resident on the GPU, in windows of at most one storage binding, with the byte
/// histogram of every chunk (taken on the host at upload) for planning segments.
pub struct BytestreamInput {
    windows: Vec<Window>,
    n_bytes: u64,
    chunk_bytes: u64,
    chunk_histograms: Vec<[u64; 256]>,
}

impl BytestreamInput {
    pub fn len(&self) -> u64 {
        self.n_bytes
    }
    pub fn is_empty(&self) -> bool {
        self.n_bytes == 0
    }
    /// Byte histogram of the whole input.
    pub fn histogram(&self) -> [u64; 256] {
        total_histogram(&self.chunk_histograms)
    }
}

/// One recorded encode: read it back with [`BytestreamEncoder::finish`] after the encoder
/// it was recorded into is submitted.
pub struct BytestreamPending {
    output: PooledBuffer,
    log: PooledBuffer,
    profiler: Profiler,
    segments: Vec<Segment>,
    total_bits: u64,
    scratch: Scratch,
}

/// Buffers reused by every segment of one encode.
struct Scratch {
    lengths: PooledBuffer,
    prefixes: PooledBuffer,
    bit_bytes: PooledBuffer,
    state: PooledBuffer,
    table: wgpu::Buffer,
}

impl BytestreamPending {
    /// The output buffer: the stream as little-endian u32 words.
    pub fn output(&self) -> &wgpu::Buffer {
        &self.output
    }
    /// Bits of the stream, start bit included.
    pub fn total_bits(&self) -> u64 {
        self.total_bits
    }
    /// Segments (scans) the input was split into.
    pub fn segments(&self) -> usize {
        self.segments.len()
    }
    /// Kernel times, labelled "bytestream_lengths", "bytestream_scan", "bytestream_scatter"
    /// and "bytestream_pack" (summed over segments; reduce_then_scan adds its "reduce" and
    /// "spine" passes), after submission; empty unless profiled.
    pub async fn timings(&self, gpu: &Gpu) -> Result<Timings> {
        self.profiler.timings(gpu).await
    }
}

/// The byte-per-bit encoder on one GPU.
pub struct BytestreamEncoder<'g> {
    gpu: &'g Gpu,
    config: BytestreamConfig,
    limits: SegmentLimits,
}

impl<'g> BytestreamEncoder<'g> {
    pub fn new(gpu: &'g Gpu, config: BytestreamConfig) -> Result<Self> {
        config.validate()?;
        let limits = SegmentLimits::new(&config, gpu.max_binding());
        Ok(BytestreamEncoder {
            gpu,
            config,
            limits,
        })
    }

    pub fn config(&self) -> &BytestreamConfig {
        &self.config
    }

    /// Copy `data` to the GPU (in windows of at most one storage binding) and count the
    /// bytes of every chunk on the host.
    pub fn upload(&self, data: &[u8]) -> Result<BytestreamInput> {
        let chunk = self.limits.chunk_bytes();
        let window_bytes = ((self.gpu.max_binding() - 256) / chunk).max(1) * chunk;
        let windows = self.gpu.upload_windows(data, window_bytes)?;
        Ok(BytestreamInput {
            windows,
            n_bytes: data.len() as u64,
            chunk_bytes: chunk,
            chunk_histograms: histogram_cpu(data, chunk as usize),
        })
    }

    fn plan(
        &self,
        input: &BytestreamInput,
        table: &CodeTable,
        start_bit: u32,
    ) -> Result<Vec<Segment>> {
        check_start_bit(start_bit)?;
        if input.chunk_bytes != self.limits.chunk_bytes() {
            return Err(Error::InvalidArgument(
                "input uploaded by an encoder with other segment limits".into(),
            ));
        }
        check_table(table, &input.histogram())?;
        let windows: Vec<(u64, u64)> = input
            .windows
            .iter()
            .map(|w| (w.offset, w.n_bytes))
            .collect();
        group_chunks(
            &windows,
            input.chunk_bytes,
            &input.chunk_histograms,
            table,
            start_bit,
            self.limits.caps(input.chunk_bytes),
        )
    }

    /// Workgroups for `items` invocations, as a 2-D grid when one dimension is too small.
    fn grid(&self, items: u64) -> (u32, u32) {
        let groups = items
            .div_ceil(self.config.scan.workgroup_size as u64)
            .max(1);
        let max = self.gpu.limits.max_compute_workgroups_per_dimension.max(1) as u64;
        if groups <= max {
            (groups as u32, 1)
        } else {
            (max as u32, groups.div_ceil(max) as u32)
        }
    }

    /// Record the encode of `input` into `encoder`: nothing is submitted. The stream starts
    /// with `start_bit` (0..32) zero bits. Checks the table, the start bit and the memory
    /// need before recording anything. With `profile`, every pass writes timestamps
    /// ([`BytestreamPending::timings`]).
    pub fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        input: &BytestreamInput,
        table: &CodeTable,
        order: BitOrder,
        start_bit: u32,
        profile: bool,
    ) -> Result<BytestreamPending> {
        let gpu = self.gpu;
        let scan = &self.config.scan;
        let segments = self.plan(input, table, start_bit)?;
        let total_bits = start_bit as u64 + segments.iter().map(|s| s.bits).sum::<u64>();

        // Sizes and pipelines, checked and built before anything is recorded.
        let output_bytes = total_bits.div_ceil(32) * 4 + 256;
        let slots = segments.iter().map(|s| s.symbol_slots()).max().unwrap_or(0);
        let bit_byte_bytes = segments.iter().map(|s| s.n_words()).max().unwrap_or(0) * 32;
        let max_blocks = segments
            .iter()
            .map(|s| scan_u32_blocks(s.n_bytes as u32, scan) as u64)
            .max()
            .unwrap_or(0);
        let state_bytes = (STATE_HEADER as u64 + max_blocks) * 4;
        let scratch_bytes = 2 * slots * 4 + bit_byte_bytes + state_bytes;
        let max_buffer = self.gpu.limits.max_buffer_size;
        if output_bytes > max_buffer {
            return Err(Error::TooLarge(format!(
                "the {total_bits}-bit stream needs a {output_bytes}-byte output buffer; \
                 the device's largest buffer is {max_buffer} bytes"
            )));
        }
        if let Some(limit) = self.config.max_device_bytes {
            let need = output_bytes + scratch_bytes;
            if need > limit {
                return Err(Error::TooLarge(format!(
                    "byte-per-bit encoding needs {need} bytes of device memory ({output_bytes} \
                     of output and {scratch_bytes} of scratch for its largest segment: 8 bytes \
                     per symbol and one byte per output bit), above the limit of {limit} bytes \
                     (BytestreamConfig::max_device_bytes)"
                )));
            }
        }

        let wg = ("WG_SIZE", scan.workgroup_size as f64);
        let msb = order == BitOrder::MsbFirst;
        let lengths_pipe = gpu.pipeline(&BYTESTREAM, "symbol_lengths", &[wg])?;
        let scatter_pipe = gpu.pipeline(&BYTESTREAM, "scatter_bit_bytes", &[wg])?;
        let pack_pipe = gpu.pipeline(
            &BYTESTREAM,
            "pack_bit_bytes",
            &[wg, ("MSB_FIRST", if msb { 1.0 } else { 0.0 })],
        )?;
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let output = gpu.pooled_buffer(output_bytes, storage);
        encoder.clear_buffer(&output, 0, None);
        let scratch = Scratch {
            lengths: gpu.pooled_buffer(slots * 4, storage),
            prefixes: gpu.pooled_buffer(slots * 4, storage),
            bit_bytes: gpu.pooled_buffer(bit_byte_bytes, storage),
            state: gpu.pooled_buffer(state_bytes, storage),
            table: gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("parvlc.huffman.bytestream.table"),
                    contents: bytemuck::cast_slice(&gpu_table_words(table)),
                    usage: wgpu::BufferUsages::STORAGE,
                }),
        };
        let log_bytes = segments
            .iter()
            .map(|s| (STATE_HEADER as u64 + scan_u32_blocks(s.n_bytes as u32, scan) as u64) * 4)
            .sum::<u64>();
        let log = gpu.pooled_buffer(log_bytes, storage);
        let mut profiler = Profiler::new(
            gpu,
            if profile {
                segments.len() as u32 * 6
            } else {
                0
            },
        );

        let align_words = (gpu.limits.min_storage_buffer_offset_alignment as u64 / 4).max(1);
        let mut log_offset = 0u64;
        for seg in &segments {
            let word = seg.first_bit / 32;
            let window_word = word / align_words * align_words;
            let out_word_base = (word - window_word) as u32;
            let n_words = seg.n_words();
            let slots = seg.symbol_slots();
            let params = BytestreamParams {
                n_bytes: seg.n_bytes as u32,
                phase: seg.phase(),
                n_words: n_words as u32,
                out_word_base,
            };
            let params = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("parvlc.huffman.bytestream.params"),
                    contents: bytemuck::bytes_of(&params),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let window = &input.windows[seg.window];
            let bindings = [
                (0, params.as_entire_buffer_binding()),
                (
                    1,
                    slice(
                        &window.buffer,
                        seg.window_offset,
                        slots.next_multiple_of(16),
                    ),
                ),
                (2, scratch.table.as_entire_buffer_binding()),
                (3, slice(&scratch.lengths, 0, slots * 4)),
                (4, slice(&scratch.prefixes, 0, slots * 4)),
                (5, slice(&scratch.bit_bytes, 0, n_words * 32)),
                (
                    6,
                    slice(
                        &output,
                        window_word * 4,
                        (out_word_base as u64 + n_words) * 4,
                    ),
                ),
            ];
            // One layout for the stage: one bind group serves all three entry points.
            let bind = gpu.bind(&lengths_pipe, &bindings);

            encoder.clear_buffer(&scratch.bit_bytes, 0, Some(n_words * 32));
            let input_words = seg.n_bytes.div_ceil(4);
            self.dispatch(
                encoder,
                &mut profiler,
                "bytestream_lengths",
                &lengths_pipe.pipeline,
                &bind,
                input_words,
            );
            encode_exclusive_scan(
                gpu,
                encoder,
                profile.then_some(&mut profiler),
                "bytestream_scan",
                slice(&scratch.lengths, 0, seg.n_bytes * 4),
                slice(&scratch.prefixes, 0, seg.n_bytes * 4),
                seg.n_bytes as u32,
                &scratch.state,
                scan,
            )?;
            let seg_log =
                (STATE_HEADER as u64 + scan_u32_blocks(seg.n_bytes as u32, scan) as u64) * 4;
            encoder.copy_buffer_to_buffer(&scratch.state, 0, &log, log_offset, seg_log);
            log_offset += seg_log;
            self.dispatch(
                encoder,
                &mut profiler,
                "bytestream_scatter",
                &scatter_pipe.pipeline,
                &bind,
                input_words,
            );
            self.dispatch(
                encoder,
                &mut profiler,
                "bytestream_pack",
                &pack_pipe.pipeline,
                &bind,
                n_words,
            );
        }
        profiler.resolve(encoder);
        Ok(BytestreamPending {
            output,
            log,
            profiler,
            segments,
            total_bits,
            scratch,
        })
    }

    fn dispatch(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &mut Profiler,
        label: &'static str,
        pipeline: &wgpu::ComputePipeline,
        bind: &wgpu::BindGroup,
        items: u64,
    ) {
        let timestamp_writes = profiler.pass(label);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bind, &[]);
        let (x, y) = self.grid(items);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Read back what [`Self::encode_into`] recorded, after its encoder was submitted;
    /// checks every segment's scan (complete, no stall, the exact expected total).
    pub async fn finish(&self, pending: BytestreamPending) -> Result<BitBuf> {
        let total = pending.total_bits;
        let mut bytes = self
            .gpu
            .read_buffer(&pending.output, 0, total.div_ceil(32) * 4)
            .await?;
        bytes.truncate(total.div_ceil(8) as usize);
        let scan = &self.config.scan;
        let blocks: Vec<usize> = pending
            .segments
            .iter()
            .map(|s| scan_u32_blocks(s.n_bytes as u32, scan) as usize)
            .collect();
        let log_len = blocks.iter().map(|b| STATE_HEADER + b).sum::<usize>() as u64 * 4;
        let log: Vec<u32> =
            bytemuck::pod_collect_to_vec(&self.gpu.read_buffer(&pending.log, 0, log_len).await?);
        let mut at = 0usize;
        for (seg, &n) in pending.segments.iter().zip(&blocks) {
            read_state(
                BYTESTREAM.name,
                scan.strategy,
                &log[at..at + STATE_HEADER + n],
                n,
                seg.bits,
            )?;
            at += STATE_HEADER + n;
        }
        Ok(BitBuf { bytes, bits: total })
    }

    /// Everything in one call: upload, record, submit, read back ([`GpuStage::encode`]).
    pub async fn encode(
        &self,
        data: &[u8],
        table: &CodeTable,
        order: BitOrder,
        start_bit: u32,
    ) -> Result<BitBuf> {
        let input = CuvleInput {
            data,
            table,
            order,
            start_bit,
        };
        GpuStage::encode(self, &input).await
    }

    /// Encode `data`, which must fit one segment, and read back every stage's array as
    /// well as the stream (for tests and debugging; compare with [`bytestream_stages_cpu`]).
    pub async fn encode_stages(
        &self,
        data: &[u8],
        table: &CodeTable,
        order: BitOrder,
        start_bit: u32,
    ) -> Result<BytestreamStages> {
        let input = self.upload(data)?;
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(BYTESTREAM.label),
            });
        let pending = self.encode_into(&mut encoder, &input, table, order, start_bit, false)?;
        if pending.segments.len() > 1 {
            return Err(Error::InvalidArgument(format!(
                "encode_stages needs an input of one segment, not {}",
                pending.segments.len()
            )));
        }
        self.gpu.queue.submit([encoder.finish()]);
        let (n, words) = match pending.segments.first() {
            Some(s) => (s.n_bytes, s.n_words()),
            None => (0, 0),
        };
        let s = &pending.scratch;
        let lengths =
            bytemuck::pod_collect_to_vec(&self.gpu.read_buffer(&s.lengths, 0, n * 4).await?);
        let prefixes =
            bytemuck::pod_collect_to_vec(&self.gpu.read_buffer(&s.prefixes, 0, n * 4).await?);
        let bit_bytes = self.gpu.read_buffer(&s.bit_bytes, 0, words * 32).await?;
        let stream = self.finish(pending).await?;
        Ok(BytestreamStages {
            lengths,
            prefixes,
            bit_bytes,
            stream,
        })
    }
}

impl GpuStage for BytestreamEncoder<'_> {
    type Input<'a> = CuvleInput<'a>;
    type Uploaded = CodedUpload<BytestreamInput>;
    type Pending = BytestreamPending;
    type Report = BitBuf;
    type Output = BitBuf;

    fn gpu(&self) -> &Gpu {
        self.gpu
    }

    fn label(&self) -> &'static str {
        BYTESTREAM.label
    }

    async fn upload(&self, input: &Self::Input<'_>) -> Result<Self::Uploaded> {
        Ok(CodedUpload::new(
            BytestreamEncoder::upload(self, input.data)?,
            input,
        ))
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        up: &Self::Uploaded,
    ) -> Result<BytestreamPending> {
        BytestreamEncoder::encode_into(
            self,
            encoder,
            &up.input,
            &up.table,
            up.order,
            up.start_bit,
            false,
        )
    }

    async fn finish(
        &self,
        _input: &Self::Input<'_>,
        _uploaded: &Self::Uploaded,
        pending: BytestreamPending,
    ) -> Result<BitBuf> {
        BytestreamEncoder::finish(self, pending).await
    }

    fn output(report: BitBuf) -> BitBuf {
        report
    }

    fn cpu(&self, input: &CuvleInput<'_>) -> Result<BitBuf> {
        encode_bytestream_cpu(
            input.data,
            input.table,
            input.order,
            input.start_bit,
            &self.config,
        )
    }
}
