//! PAVLE on the GPU (shaders/huffman/pavle.wgsl, shaders/huffman/pavle_compact.wgsl) and
//! its CPU twin: the baseline of the CUVLE paper, A. Balevic's "Parallel variable-length encoding
//! on GPGPUs" (Euro-Par 2009 workshops, LNCS 6043, 2010), built as that paper describes it.
//!
//! Three passes per segment, all recorded into the caller's command encoder:
//!
//! 1. `huffman/pavle` (profiler label `"pavle"`): one workgroup per block-input of
//!    `workgroup_size` thread-inputs of NET words (a grid-stride loop when there are more
//!    blocks than one dispatch holds; no tickets, no persistent workgroups). The code table
//!    is cached in workgroup memory; each invocation encodes its thread-input; a workgroup
//!    scan of the thread bit lengths gives each thread-code's position within the block;
//!    the invocations atomicOr their codes into a zeroed block buffer in workgroup memory;
//!    the buffer is copied out to the block's own slot of an intermediate buffer (slot j at
//!    a fixed stride, the block's worst-case size: "at the position of the block's input"
//!    once codes may be longer than 8 bits), and the block's bit length to a per-block array.
//! 2. `scan/exclusive` (`"pavle_scan"`): the exclusive scan of the block bit lengths gives
//!    every block-code's offset (the device-wide scan of [`crate::scan`], decoupled look-back).
//! 3. `huffman/pavle_compact` (`"pavle_compact"`): one workgroup per block-code shifts its
//!    words into place in the final stream: stores for the words only that block covers,
//!    atomicOr for its first and last word, which it shares with its neighbours.
//!
//! Passes 2 and 3 are the compaction the CUVLE paper charges to PAVLE's total time.
//!
//! # Code-length limits
//!
//! The block buffer holds the block's worst case: a block of `4 * NET * workgroup_size`
//! codes of at most L bits needs `workgroup_size * NET * L / 8` words
//! ([`PavleConfig::buffer_words`]), L being the longest code among the bytes the input
//! holds. Beside it sit the code table (2 KiB) and the workgroup scan (4 KiB in the
//! workgroup-memory flavour, 1 KiB with subgroups); all of it must fit the device's
//! `max_compute_workgroup_storage_size` (16 KiB guaranteed by WebGPU, 48 KiB on NVIDIA):
//!
//! `L <= 2 * (limit - 2048 - scan - 64) / (workgroup_size * NET)`, and at most 32
//! (64 bytes of slack for the odd workgroup variable and alignment).
//!
//! The default (256 invocations, NET 1, as in Balevic's kernel) serves codes of up to 32
//! bits on every device (10 KiB). 256 x NET 4 serves 19 bits (25 with subgroups) under
//! the 16 KiB minimum, 32 bits from 32 KiB on (lavapipe has 32 KiB, the H200 48 KiB);
//! 256 x NET 8 serves 25 (28) bits on lavapipe, 32 on the H200. [`PavleEncoder::max_code_len`] says what this encoder
//! serves on this GPU; a table with a longer code in use is `Error::InvalidCodeTable`,
//! never wrong output.
//!
//! # Sizes
//!
//! The input is uploaded in windows of at most one storage binding, and
//! [`PavleEncoder::upload`] counts the bytes of every 1 MiB chunk on the host (rayon), so that once the code table
//! is known every chunk's exact bit count is too, and segments are planned at record time
//! without a round trip (as cuvle plans them from its GPU histogram). A segment is a run of
//! whole chunks whose output stays below 2^30 bits (the scan's value range) and whose
//! slots (input bytes x L / 8) fit one storage binding; on CPU adapters it also holds at
//! most 8 blocks per workgroup of one dispatch (llvmpipe's loop budget, see
//! [`crate::scan::ScanConfig::max_blocks_per_workgroup`]). Device memory: the input, the
//! output and one segment's slots (at most one binding). Any input size works while the
//! output fits one buffer (`max_buffer_size`), else `Error::TooLarge`.

use wgpu::util::DeviceExt;

use super::cuvle::{check_table, gpu_table_words, CodedUpload, CuvleInput};
use super::histogram::{histogram_cpu, total_histogram};
use super::segments::{group_chunks, Segment, SegmentCaps};
use super::{BitBuf, BitOrder, CodeTable};
use crate::gpu::registry::huffman::{PAVLE, PAVLE_COMPACT};
use crate::gpu::Window;
use crate::gpu::{Flavour, Gpu, GpuStage, PooledBuffer, Profiler, Timings};
use crate::scan::{
    encode_exclusive_scan, read_state, scan_u32_blocks, ScanConfig,
    CPU_ADAPTER_BLOCKS_PER_WORKGROUP, STATE_HEADER, VALUE_MASK,
};
use crate::{Error, Result};

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/huffman/pavle.wgsl `PavleParams`
struct PavleParams {
    n_bytes: u32,
    n_blocks: u32,
    slot_words: u32,
    pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/huffman/pavle_compact.wgsl `CompactParams`
struct CompactParams {
    n_blocks: u32,
    slot_words: u32,
    start_bit: u32,
    out_word_base: u32,
}

/// Workgroup memory of the code table (shaders/huffman/pavle.wgsl `table_code`, `table_len`).
const TABLE_BYTES: u64 = 2 * 256 * 4;
/// Workgroup memory of the workgroup scan: keep in sync with shaders/common/wg_scan.wgsl
/// `WG_SCAN_MAX` and shaders/common/wg_scan_subgroup.wgsl `WG_SCAN_MAX_SUBGROUPS`.
const SCAN_BYTES_WORKGROUP: u64 = 1024 * 4;
const SCAN_BYTES_SUBGROUP: u64 = 256 * 4;
/// Room for alignment and the odd workgroup variable.
const SLACK_BYTES: u64 = 64;
/// Host histogram granularity, unless segments are forced smaller.
const CHUNK_BYTES: u64 = 1 << 20;
/// The kernels index segment bytes in u32.
const SEGMENT_BYTES_MAX: u64 = 1 << 31;
/// Largest bit count one segment may produce: the scan's look-back packs 30-bit values.
const SEGMENT_BITS_MAX: u64 = VALUE_MASK as u64 + 1 - 64;

/// PAVLE tuning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PavleConfig {
    /// Input words per invocation (NET): 1, 2, 4, 8, 16 or 32. Balevic's PAVLE reads one
    /// word, 4 symbols.
    pub net: u32,
    /// Invocations per workgroup: a power of two in 32..=1024.
    pub workgroup_size: u32,
}

impl Default for PavleConfig {
    fn default() -> Self {
        PavleConfig {
            net: 1,
            workgroup_size: 256,
        }
    }
}

impl PavleConfig {
    /// Bytes of one block-input.
    pub fn block_bytes(&self) -> u64 {
        self.workgroup_size as u64 * self.net as u64 * 4
    }

    /// Words of the block buffer (and of a slot) for codes of at most `max_len` bits:
    /// the block's worst case.
    pub fn buffer_words(&self, max_len: u32) -> u32 {
        // 4 * NET * workgroup_size codes of max_len bits.
        (self.block_bytes() * max_len.max(1) as u64).div_ceil(32) as u32
    }

    /// Workgroup memory the encode kernel needs for codes of at most `max_len` bits.
    pub fn workgroup_bytes(&self, max_len: u32, flavour: Flavour) -> u64 {
        let scan = match flavour {
            Flavour::Workgroup => SCAN_BYTES_WORKGROUP,
            Flavour::Subgroup => SCAN_BYTES_SUBGROUP,
        };
        self.buffer_words(max_len) as u64 * 4 + TABLE_BYTES + scan + SLACK_BYTES
    }

    fn validate(&self) -> Result<()> {
        if !self.net.is_power_of_two() || self.net > 32 {
            return Err(Error::InvalidArgument(format!(
                "PAVLE's NET must be 1, 2, 4, 8, 16 or 32, not {}",
                self.net
            )));
        }
        let wg = self.workgroup_size;
        if !wg.is_power_of_two() || !(32..=1024).contains(&wg) {
            return Err(Error::InvalidArgument(format!(
                "workgroup size must be a power of two in 32..=1024, not {wg}"
            )));
        }
        Ok(())
    }
}

/// Longest code among the bytes `histogram` counts (0 when it counts none).
fn longest_code_in_use(table: &CodeTable, histogram: &[u64; 256]) -> u32 {
    (0..256)
        .filter(|&s| histogram[s] > 0)
        .map(|s| table.lengths[s] as u32)
        .max()
        .unwrap_or(0)
}

fn check_start_bit(start_bit: u32) -> Result<()> {
    if start_bit >= 32 {
        return Err(Error::InvalidArgument(format!(
            "start bit {start_bit} must be below 32"
        )));
    }
    Ok(())
}

/// Word `k` of a block-code (LSB-first words `slot`) that starts `shift` bits into its
/// first output word: shaders/huffman/pavle_compact.wgsl `shifted_word`.
fn shifted_word(slot: &[u32], k: usize, shift: u32) -> u32 {
    let mut v = slot.get(k).map_or(0, |&w| w << shift);
    if shift != 0 && k > 0 {
        v |= slot[k - 1] >> (32 - shift);
    }
    v
}

/// The CPU twin of PAVLE, pass for pass: every block-input encoded thread by thread into
/// a zeroed block buffer (each word OR-ed, as the kernel's atomicOr), copied out to its
/// slot at the worst-case stride with its bit length beside it; then the compaction: block
/// offsets by an exclusive scan of the lengths, each block's words shifted into place
/// (first and last word OR-ed, the ones between stored). Equals `cpu::encode_serial`.
pub fn encode_pavle_cpu(
    input: &[u8],
    table: &CodeTable,
    order: BitOrder,
    start_bit: u32,
    config: &PavleConfig,
) -> Result<BitBuf> {
    config.validate()?;
    check_start_bit(start_bit)?;
    let histogram = total_histogram(&histogram_cpu(input, input.len().max(1)));
    check_table(table, &histogram)?;
    let words_table = gpu_table_words(table);
    let slot_words = config.buffer_words(longest_code_in_use(table, &histogram)) as usize;
    let block_bytes = config.block_bytes() as usize;
    let thread_bytes = config.net as usize * 4;

    // Pass 1 (huffman/pavle): block-codes into their slots, lengths beside them.
    let n_blocks = input.len().div_ceil(block_bytes);
    let mut slots = vec![0u32; n_blocks * slot_words];
    let mut block_bits = Vec::with_capacity(n_blocks);
    let mut buffer = vec![0u32; slot_words];
    for (j, block) in input.chunks(block_bytes).enumerate() {
        buffer.fill(0);
        let mut position = 0u32; // the workgroup scan, one thread at a time
        for thread in block.chunks(thread_bytes) {
            // huffman/bitwriter_wg.wgsl: at / put / finish.
            let mut word = (position >> 5) as usize;
            let mut fill = position & 31;
            let mut pending = 0u32;
            for &b in thread {
                let code = words_table[b as usize];
                let len = words_table[256 + b as usize];
                pending |= code << fill;
                let total = fill + len;
                if total >= 32 {
                    buffer[word] |= pending;
                    word += 1;
                    pending = if fill != 0 { code >> (32 - fill) } else { 0 };
                    fill = total - 32;
                } else {
                    fill = total;
                }
                position += len;
            }
            if fill != 0 {
                buffer[word] |= pending;
            }
        }
        let used = position.div_ceil(32) as usize;
        slots[j * slot_words..j * slot_words + used].copy_from_slice(&buffer[..used]);
        block_bits.push(position);
    }

    // Pass 2 (huffman/pavle_compact): offsets by exclusive scan, then shift into place.
    let total_bits = start_bit as u64 + block_bits.iter().map(|&b| b as u64).sum::<u64>();
    let mut out = vec![0u32; total_bits.div_ceil(32) as usize];
    let mut offset = start_bit as u64;
    for (j, &bits) in block_bits.iter().enumerate() {
        if bits == 0 {
            continue;
        }
        let slot = &slots[j * slot_words..j * slot_words + bits.div_ceil(32) as usize];
        let first = (offset >> 5) as usize;
        let shift = (offset & 31) as u32;
        let n_dst = ((offset + bits as u64 - 1) >> 5) as usize - first + 1;
        for k in 0..n_dst {
            let word = crate::bits::stream_word(shifted_word(slot, k, shift), order);
            if k == 0 || k + 1 == n_dst {
                out[first + k] |= word;
            } else {
                out[first + k] = word;
            }
        }
        offset += bits as u64;
    }
    let mut bytes: Vec<u8> = bytemuck::cast_slice(&out).to_vec();
    bytes.truncate(total_bits.div_ceil(8) as usize);
    Ok(BitBuf {
        bytes,
        bits: total_bits,
    })
}

/// Input resident on the GPU, in windows of at most one storage binding, with the byte
/// histogram of every chunk (counted on the host at upload).
pub struct PavleInput {
    windows: Vec<Window>,
    n_bytes: u64,
    chunk_bytes: u64,
    block_bytes: u64,
    histograms: Vec<[u64; 256]>,
}

impl PavleInput {
    pub fn len(&self) -> u64 {
        self.n_bytes
    }
    pub fn is_empty(&self) -> bool {
        self.n_bytes == 0
    }
    /// Byte histogram of the whole input.
    pub fn histogram(&self) -> [u64; 256] {
        total_histogram(&self.histograms)
    }
}

#[derive(Clone, Debug)]
struct Plan {
    segments: Vec<Segment>,
    /// Start bit plus all code bits.
    total_bits: u64,
    slot_words: u32,
    max_len: u32,
}

impl Plan {
    fn max_blocks(&self) -> u64 {
        self.segments
            .iter()
            .map(|s| s.n_blocks as u64)
            .max()
            .unwrap_or(0)
    }
    /// Scan state words of every segment, kept for `finish` to check.
    fn log_words(&self, scan: &ScanConfig) -> u64 {
        self.segments
            .iter()
            .map(|s| STATE_HEADER as u64 + scan_u32_blocks(s.n_blocks, scan) as u64)
            .sum()
    }
}

/// An encode recorded by [`PavleEncoder::encode_into`]: submit the encoder, then read it
/// back with [`PavleEncoder::finish`].
pub struct PavlePending {
    output: PooledBuffer,
    log: PooledBuffer,
    /// The pass's slots, block sizes and offsets and scan state, which the recorded
    /// commands use: held until the pending pass is done with, so that the pool cannot
    /// hand them to other work before the caller submits them.
    _work: [PooledBuffer; 4],
    profiler: Profiler,
    plan: Plan,
}

impl PavlePending {
    /// The output buffer, holding the stream as little-endian u32 words.
    pub fn output(&self) -> &wgpu::Buffer {
        &self.output
    }

    /// Stream bits (start bit included).
    pub fn bits(&self) -> u64 {
        self.plan.total_bits
    }

    /// Segments recorded (each: encode, scan, compact).
    pub fn segments(&self) -> usize {
        self.plan.segments.len()
    }

    /// Kernel times ("pavle", "pavle_scan", "pavle_compact"), after submission; empty
    /// unless profiled.
    /// Reads no output.
    pub async fn timings(&self, gpu: &Gpu) -> Result<Timings> {
        self.profiler.timings(gpu).await
    }
}

/// The PAVLE encoder on one GPU.
pub struct PavleEncoder<'g> {
    gpu: &'g Gpu,
    config: PavleConfig,
    segment_cap: Option<u64>,
}

impl<'g> PavleEncoder<'g> {
    pub fn new(gpu: &'g Gpu, config: PavleConfig) -> Result<Self> {
        config.validate()?;
        let encoder = PavleEncoder {
            gpu,
            config,
            segment_cap: None,
        };
        if encoder.max_code_len() == 0 {
            return Err(Error::InvalidArgument(format!(
                "PAVLE with {} invocations of NET {} needs {} bytes of workgroup memory even \
                 for 1-bit codes; this GPU has {}",
                config.workgroup_size,
                config.net,
                config.workgroup_bytes(1, gpu.flavour()),
                gpu.limits.max_compute_workgroup_storage_size
            )));
        }
        Ok(encoder)
    }

    /// Cap the input bytes one segment covers (tests force many segments with it); the
    /// device's limits always apply. Applies to inputs uploaded afterwards.
    pub fn with_segment_cap(mut self, bytes: u64) -> Self {
        self.segment_cap = Some(bytes.max(1));
        self
    }

    pub fn config(&self) -> &PavleConfig {
        &self.config
    }

    /// The scan of the block lengths: the crate's default (decoupled look-back).
    fn scan_config(&self) -> ScanConfig {
        ScanConfig::default()
    }

    /// Longest code this encoder serves on this GPU: what fits the block buffer in
    /// workgroup memory (see the module documentation); at most 32.
    pub fn max_code_len(&self) -> u32 {
        let limit = self.gpu.limits.max_compute_workgroup_storage_size as u64;
        (1..=32u32)
            .rev()
            .find(|&l| self.config.workgroup_bytes(l, self.gpu.flavour()) <= limit)
            .unwrap_or(0)
    }

    fn chunk_bytes(&self) -> u64 {
        let block = self.config.block_bytes();
        // A chunk's slots (at most 4 bytes per input byte) always fit one binding.
        let cap = self
            .segment_cap
            .unwrap_or(u64::MAX)
            .min(self.gpu.max_binding() / 4)
            .min(SEGMENT_BYTES_MAX);
        let mut chunk = CHUNK_BYTES;
        while chunk > cap && chunk > block {
            chunk /= 2;
        }
        // Power-of-two blocks: a chunk is whole blocks, and 256-byte aligned for binding.
        chunk.max(block).max(256)
    }

    /// Copy `data` to the GPU, and count its bytes per chunk on the host.
    pub fn upload(&self, data: &[u8]) -> Result<PavleInput> {
        let chunk = self.chunk_bytes();
        let cap = self
            .segment_cap
            .unwrap_or(u64::MAX)
            .min(self.gpu.max_binding() - 256)
            .min(SEGMENT_BYTES_MAX);
        let window_bytes = (cap / chunk).max(1) * chunk;
        let windows = self.gpu.upload_windows(data, window_bytes)?;
        Ok(PavleInput {
            windows,
            n_bytes: data.len() as u64,
            chunk_bytes: chunk,
            block_bytes: self.config.block_bytes(),
            histograms: histogram_cpu(data, chunk as usize),
        })
    }

    fn plan(&self, input: &PavleInput, table: &CodeTable, start_bit: u32) -> Result<Plan> {
        check_start_bit(start_bit)?;
        let block = self.config.block_bytes();
        if input.block_bytes != block {
            return Err(Error::InvalidArgument(format!(
                "input uploaded for {}-byte blocks, this encoder has {block}",
                input.block_bytes
            )));
        }
        let histogram = input.histogram();
        check_table(table, &histogram)?;
        let max_len = longest_code_in_use(table, &histogram);
        let served = self.max_code_len();
        if max_len > served {
            return Err(Error::InvalidCodeTable(format!(
                "a {max_len}-bit code is in use, but PAVLE with {} invocations of NET {} \
                 serves codes of at most {served} bits on this GPU: its block buffer would \
                 take {} bytes of workgroup memory, the device has {} (use shorter codes, \
                 or a smaller NET or workgroup size)",
                self.config.workgroup_size,
                self.config.net,
                self.config.workgroup_bytes(max_len, self.gpu.flavour()),
                self.gpu.limits.max_compute_workgroup_storage_size
            )));
        }
        let slot_words = self.config.buffer_words(max_len);
        let max_binding = self.gpu.max_binding();
        // Segment caps: the slots within one binding; on CPU adapters, few enough blocks
        // that no workgroup of one dispatch takes more than the loop budget allows.
        let mut blocks_cap = max_binding / (slot_words as u64 * 4);
        if self.gpu.info.device_type == wgpu::DeviceType::Cpu {
            let groups = self.gpu.limits.max_compute_workgroups_per_dimension.max(1) as u64;
            blocks_cap = blocks_cap.min(groups * CPU_ADAPTER_BLOCKS_PER_WORKGROUP as u64);
        }
        let byte_cap = self
            .segment_cap
            .unwrap_or(u64::MAX)
            .min(blocks_cap.max(1) * block);
        let bits_cap = SEGMENT_BITS_MAX.min((max_binding - 512) * 8);
        let chunk = input.chunk_bytes;
        let windows: Vec<(u64, u64)> = input
            .windows
            .iter()
            .map(|w| (w.offset, w.n_bytes))
            .collect();
        let segments = group_chunks(
            &windows,
            chunk,
            &input.histograms,
            table,
            start_bit,
            SegmentCaps {
                bytes: byte_cap,
                bits: bits_cap,
                block_bytes: block,
            },
        )?;
        // One chunk alone may still need more slots than a binding holds.
        if let Some(s) = segments
            .iter()
            .find(|s| s.n_blocks as u64 * slot_words as u64 * 4 > max_binding)
        {
            return Err(Error::TooLarge(format!(
                "one {chunk}-byte chunk needs {} block slots of {slot_words} words, beyond one binding",
                s.n_blocks
            )));
        }
        let first_bit = start_bit as u64 + segments.iter().map(|s| s.bits).sum::<u64>();
        let output_bytes = first_bit.div_ceil(32) * 4 + 512;
        if output_bytes > self.gpu.limits.max_buffer_size {
            return Err(Error::TooLarge(format!(
                "{output_bytes} output bytes exceed the device's largest buffer ({} bytes)",
                self.gpu.limits.max_buffer_size
            )));
        }
        Ok(Plan {
            segments,
            total_bits: first_bit,
            slot_words,
            max_len,
        })
    }

    /// Record the encode of `input` into `encoder`; nothing is submitted. With `profile`,
    /// the passes carry timestamp writes: "pavle" (encode), "pavle_scan" (scan of the block
    /// lengths) and "pavle_compact" (compaction).
    pub fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        input: &PavleInput,
        table: &CodeTable,
        order: BitOrder,
        start_bit: u32,
        profile: bool,
    ) -> Result<PavlePending> {
        let plan = self.plan(input, table, start_bit)?;
        let gpu = self.gpu;
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let output = gpu.pooled_buffer(plan.total_bits.div_ceil(32) * 4 + 512, storage);
        encoder.clear_buffer(&output, 0, None);
        let max_blocks = plan.max_blocks();
        let slot_words = plan.slot_words as u64;
        let slots = gpu.pooled_buffer(max_blocks * slot_words * 4, storage);
        let block_bits = gpu.pooled_buffer(max_blocks * 4, storage);
        let block_offsets = gpu.pooled_buffer(max_blocks * 4, storage);
        let scan = self.scan_config();
        let state_words = STATE_HEADER as u64 + scan_u32_blocks(max_blocks as u32, &scan) as u64;
        let state = gpu.pooled_buffer(state_words * 4, storage);
        let log = gpu.pooled_buffer(plan.log_words(&scan) * 4, storage);
        // Per segment: encode, scan (up to three passes), compact.
        let mut profiler = Profiler::new(
            gpu,
            if profile {
                plan.segments.len() as u32 * 5
            } else {
                0
            },
        );
        let table_buf = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("parvlc.huffman.pavle.table"),
                contents: bytemuck::cast_slice(&gpu_table_words(table)),
                usage: wgpu::BufferUsages::STORAGE,
            });
        let wg = self.config.workgroup_size;
        let encode = gpu.pipeline(
            &PAVLE,
            "main",
            &[
                ("WG_SIZE", wg as f64),
                ("NET", self.config.net as f64),
                ("WG_BITS_WORDS", plan.slot_words as f64),
            ],
        )?;
        let msb = if order == BitOrder::MsbFirst {
            1.0
        } else {
            0.0
        };
        let compact = gpu.pipeline(
            &PAVLE_COMPACT,
            "compact",
            &[("WG_SIZE", wg as f64), ("MSB_FIRST", msb)],
        )?;
        let max_groups = gpu.limits.max_compute_workgroups_per_dimension.max(1);
        let mut log_offset = 0u64;
        for seg in &plan.segments {
            let slot_bytes = seg.n_blocks as u64 * slot_words * 4;
            let slots_binding = wgpu::BufferBinding {
                buffer: &slots,
                offset: 0,
                size: wgpu::BufferSize::new(slot_bytes),
            };
            let bits_binding = wgpu::BufferBinding {
                buffer: &block_bits,
                offset: 0,
                size: wgpu::BufferSize::new(seg.n_blocks as u64 * 4),
            };
            let offsets_binding = wgpu::BufferBinding {
                buffer: &block_offsets,
                offset: 0,
                size: wgpu::BufferSize::new(seg.n_blocks as u64 * 4),
            };

            // Pass 1: block-codes into their slots.
            let params = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("parvlc.huffman.pavle.params"),
                    contents: bytemuck::bytes_of(&PavleParams {
                        n_bytes: seg.n_bytes as u32,
                        n_blocks: seg.n_blocks,
                        slot_words: plan.slot_words,
                        pad: 0,
                    }),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let window = &input.windows[seg.window];
            let bind = gpu.bind(
                &encode,
                &[
                    (0, params.as_entire_buffer_binding()),
                    (
                        1,
                        wgpu::BufferBinding {
                            buffer: &window.buffer,
                            offset: seg.window_offset,
                            size: wgpu::BufferSize::new(seg.n_bytes.next_multiple_of(16)),
                        },
                    ),
                    (2, table_buf.as_entire_buffer_binding()),
                    (3, slots_binding.clone()),
                    (4, bits_binding.clone()),
                ],
            );
            {
                let timestamp_writes = if profile {
                    profiler.pass("pavle")
                } else {
                    None
                };
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("pavle"),
                    timestamp_writes,
                });
                pass.set_pipeline(&encode.pipeline);
                pass.set_bind_group(0, &bind, &[]);
                // One workgroup per block-input, as many as one dispatch holds; the rest
                // by grid stride (bounded on CPU adapters by the plan).
                pass.dispatch_workgroups(seg.n_blocks.min(max_groups), 1, 1);
            }

            // Pass 2: block offsets, the exclusive scan of the block lengths.
            encode_exclusive_scan(
                gpu,
                encoder,
                profile.then_some(&mut profiler),
                "pavle_scan",
                bits_binding.clone(),
                offsets_binding.clone(),
                seg.n_blocks,
                &state,
                &scan,
            )?;
            let seg_log = (STATE_HEADER as u64 + scan_u32_blocks(seg.n_blocks, &scan) as u64) * 4;
            encoder.copy_buffer_to_buffer(&state, 0, &log, log_offset, seg_log);
            log_offset += seg_log;

            // Pass 3: compaction, each block-code shifted into place.
            let word = seg.first_bit / 32;
            let window_word = word & !63; // bind at a 256-byte boundary
            let out_word_base = (word - window_word) as u32;
            let seg_start_bit = (seg.first_bit % 32) as u32;
            let words = (out_word_base as u64 * 32 + seg_start_bit as u64 + seg.bits)
                .div_ceil(32)
                .max(1);
            let compact_params = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("parvlc.huffman.pavle_compact.params"),
                    contents: bytemuck::bytes_of(&CompactParams {
                        n_blocks: seg.n_blocks,
                        slot_words: plan.slot_words,
                        start_bit: seg_start_bit,
                        out_word_base,
                    }),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let bind = gpu.bind(
                &compact,
                &[
                    (0, compact_params.as_entire_buffer_binding()),
                    (1, slots_binding),
                    (2, bits_binding),
                    (
                        3,
                        wgpu::BufferBinding {
                            buffer: &output,
                            offset: window_word * 4,
                            size: wgpu::BufferSize::new(words * 4),
                        },
                    ),
                    (4, offsets_binding),
                ],
            );
            {
                let timestamp_writes = if profile {
                    profiler.pass("pavle_compact")
                } else {
                    None
                };
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("pavle_compact"),
                    timestamp_writes,
                });
                pass.set_pipeline(&compact.pipeline);
                pass.set_bind_group(0, &bind, &[]);
                pass.dispatch_workgroups(seg.n_blocks.min(max_groups), 1, 1);
            }
        }
        profiler.resolve(encoder);
        Ok(PavlePending {
            output,
            log,
            _work: [slots, block_bits, block_offsets, state],
            profiler,
            plan,
        })
    }

    /// Read back what [`Self::encode_into`] recorded, after its encoder was submitted.
    /// Checks that every block published its offset and that each segment's block lengths
    /// add up to the bit count the host predicted from the histogram.
    pub async fn finish(&self, pending: PavlePending) -> Result<BitBuf> {
        let plan = &pending.plan;
        let mut bytes = self
            .gpu
            .read_buffer(&pending.output, 0, plan.total_bits.div_ceil(32) * 4)
            .await?;
        bytes.truncate(plan.total_bits.div_ceil(8) as usize);
        let scan = self.scan_config();
        let log: Vec<u32> = bytemuck::pod_collect_to_vec(
            &self
                .gpu
                .read_buffer(&pending.log, 0, plan.log_words(&scan) * 4)
                .await?,
        );
        let mut at = 0usize;
        for seg in &plan.segments {
            let n = scan_u32_blocks(seg.n_blocks, &scan) as usize;
            read_state(
                PAVLE.name,
                scan.strategy,
                &log[at..at + STATE_HEADER + n],
                n,
                seg.bits,
            )?;
            at += STATE_HEADER + n;
        }
        self.gpu.check_errors(PAVLE.name)?;
        log::debug!(
            "pavle: {} bits in {} segments, slots of {} words (codes up to {} bits)",
            plan.total_bits,
            plan.segments.len(),
            plan.slot_words,
            plan.max_len
        );
        Ok(BitBuf {
            bytes,
            bits: plan.total_bits,
        })
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
}

impl GpuStage for PavleEncoder<'_> {
    type Input<'a> = CuvleInput<'a>;
    type Uploaded = CodedUpload<PavleInput>;
    type Pending = PavlePending;
    type Report = BitBuf;
    type Output = BitBuf;

    fn gpu(&self) -> &Gpu {
        self.gpu
    }

    fn label(&self) -> &'static str {
        PAVLE.label
    }

    async fn upload(&self, input: &Self::Input<'_>) -> Result<Self::Uploaded> {
        Ok(CodedUpload::new(
            PavleEncoder::upload(self, input.data)?,
            input,
        ))
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        up: &Self::Uploaded,
    ) -> Result<PavlePending> {
        PavleEncoder::encode_into(
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
        pending: PavlePending,
    ) -> Result<BitBuf> {
        PavleEncoder::finish(self, pending).await
    }

    fn output(report: BitBuf) -> BitBuf {
        report
    }

    fn cpu(&self, input: &CuvleInput<'_>) -> Result<BitBuf> {
        encode_pavle_cpu(
            input.data,
            input.table,
            input.order,
            input.start_bit,
            &self.config,
        )
    }
}
