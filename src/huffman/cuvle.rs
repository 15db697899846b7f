//! CUVLE on the GPU (shaders/huffman/cuvle.wgsl) and its CPU twin.
//!
//! Flow: upload the input in windows no larger than one storage binding; histogram per
//! chunk; once the code table is known, every chunk's exact code length follows, so the
//! encoder plans segments (each below 2^30 output bits, the look-back's value range, and
//! within one binding) with their global bit offsets on the host and encodes them all in
//! one command buffer, with no round trip between segments.

use wgpu::util::DeviceExt;

use super::block_ends::{place_block_ends, BlockEnds};
use super::histogram::{encode_histogram, total_histogram, HistogramPending};
pub(crate) use super::segments::Segment;
use super::segments::{group_chunks, SegmentCaps};
use super::{BitBuf, BitOrder, CodeTable};
use crate::gpu::registry::huffman::CUVLE;
use crate::gpu::Window;
use crate::gpu::{Gpu, GpuStage, PooledBuffer, Profiler, RecordedReads, Timings};
use crate::scan::{
    encode_lookback, read_state, LookbackStage, ScanConfig, ScanStrategy, STATE_HEADER,
};
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

/// Longest code for which the kernel emits two symbols per put (`PAIRS`).
const PAIRS_MAX_LEN: u32 = 16;
/// Longest code the kernel's packed table holds (shaders/huffman/cuvle.wgsl `PACKED`).
const PACKED_MAX_LEN: u32 = 27;
/// Largest bit count one segment may produce: the look-back packs 30-bit values.
const SEGMENT_BITS_MAX: u64 = (1 << 30) - 64;
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
}

/// The GPU's view of a code table: codes bit-reversed (first bit in bit 0), then lengths.
pub(crate) fn gpu_table_words(table: &CodeTable) -> [u32; 512] {
    let mut words = [0u32; 512];
    for s in 0..256 {
        let len = table.lengths[s] as u32;
        words[s] = reversed_code(table.codes[s], len);
        words[256 + s] = len;
    }
    words
}

fn reversed_code(code: u32, len: u32) -> u32 {
    // `reverse_bits() >> (32 - len)`, 0 for no code, written without the branch: once
    // per symbol of every frame's table.
    (((code.reverse_bits() as u64) << len.min(32)) >> 32) as u32
}

/// Check a code table against a table of byte counts: every byte present needs a code.
pub fn check_table(table: &CodeTable, histogram: &[u64; 256]) -> Result<()> {
    // One pass without early exits, which vectorizes (every frame's table is checked);
    // the symbol at fault is looked for only when there is one.
    let bad = (table.lengths.iter().zip(&table.codes).zip(histogram)).fold(
        false,
        |bad, ((&l, &c), &n)| {
            let fits = (l == 0) | (l >= 32) | (c >> (l & 31) == 0);
            bad | ((n > 0) & (l == 0)) | (l > 32) | !fits
        },
    );
    if !bad {
        return Ok(());
    }
    if let Some(s) = (0..256).find(|&s| histogram[s] > 0 && table.lengths[s] == 0) {
        return Err(Error::InvalidCodeTable(format!(
            "byte 0x{s:02x} occurs in the input but has no code"
        )));
    }
    if let Some(s) = (0..256).find(|&s| table.lengths[s] > 32) {
        return Err(Error::InvalidCodeTable(format!(
            "code of byte 0x{s:02x} is {} bits; at most 32",
            table.lengths[s]
        )));
    }
    if let Some(s) = (0..256).find(|&s| {
        table.lengths[s] > 0 && table.lengths[s] < 32 && table.codes[s] >> table.lengths[s] != 0
    }) {
        return Err(Error::InvalidCodeTable(format!(
            "code of byte 0x{s:02x} has bits above its length"
        )));
    }
    Ok(())
}

/// The CPU twin of huffman/cuvle: the same blocks, thread-inputs, scan and word writes
/// (first and last word OR-ed, the ones between stored), run one invocation at a time.
/// It mirrors the direct path; the staged path packs the same words in workgroup memory
/// first, so its output is the same.
pub fn encode_cuvle_cpu(
    input: &[u8],
    table: &CodeTable,
    order: BitOrder,
    start_bit: u32,
    config: &CuvleConfig,
) -> Result<BitBuf> {
    config.validate()?;
    let hist = super::histogram::histogram_cpu(input, input.len().max(1));
    check_table(table, &total_histogram(&hist))?;
    let total_bits = start_bit as u64 + table.encoded_bits(&total_histogram(&hist));
    let mut out = vec![0u32; total_bits.div_ceil(32) as usize + 1];
    code_blocks(
        &mut out,
        input,
        &gpu_table_words(table),
        order,
        start_bit as u64,
        config,
        &mut Vec::new(),
    );
    Ok(BitBuf::from_words(&out, total_bits))
}

/// Code `input` block after block into the zeroed words `out` from bit `first_bit` on, as
/// the kernel does with `words_table` (the GPU's view of a table); pushes every block's
/// first bit to `block_offsets` and returns the bit after the last code.
pub(crate) fn code_blocks(
    out: &mut [u32],
    input: &[u8],
    words_table: &[u32; 512],
    order: BitOrder,
    first_bit: u64,
    config: &CuvleConfig,
    block_offsets: &mut Vec<u64>,
) -> u64 {
    let thread_bytes = config.net as usize * 4;
    let block_bytes = config.block_bytes() as usize;
    let bits_of = |chunk: &[u8]| {
        chunk
            .iter()
            .map(|&b| words_table[256 + b as usize])
            .sum::<u32>()
    };
    let stream_word = |x: u32| crate::bits::stream_word(x, order);
    let mut block_base = first_bit;
    for block in input.chunks(block_bytes) {
        block_offsets.push(block_base);
        let mut offset = block_base;
        for thread in block.chunks(thread_bytes) {
            // bitwriter_at / put / flush / finish, as in shaders/common/bitwriter.wgsl: the
            // first full word is held back and OR-ed at the end, like the partial last one.
            let first_word = (offset >> 5) as usize;
            let mut word = first_word;
            let mut fill = (offset & 31) as u32;
            let mut pending = 0u32;
            let mut head = None;
            for &b in thread {
                let code = words_table[b as usize];
                let len = words_table[256 + b as usize];
                pending |= code.checked_shl(fill).unwrap_or(0);
                let total = fill + len;
                if total >= 32 {
                    match head {
                        None => head = Some(pending),
                        Some(_) => out[word] = stream_word(pending),
                    }
                    word += 1;
                    pending = if fill != 0 { code >> (32 - fill) } else { 0 };
                    fill = total - 32;
                } else {
                    fill = total;
                }
            }
            if let Some(h) = head {
                out[first_word] |= stream_word(h);
            }
            if fill != 0 {
                out[word] |= stream_word(pending);
            }
            offset += bits_of(thread) as u64;
        }
        block_base = offset;
    }
    block_base
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

/// Where every segment goes, from the per-chunk histograms and the code table(s).
#[derive(Clone, Debug)]
pub struct Plan {
    pub(crate) segments: Vec<Segment>,
    pub(crate) order: BitOrder,
    /// Longest code of every table used.
    pub(crate) max_len: u32,
    /// Start bit plus all code bits (framed: plus every gap and the tail bits).
    pub total_bits: u64,
    pub(crate) block_bytes: u64,
    /// The frames, in order: one, table 0 and no gap, for a single-table plan.
    pub(crate) frames: Vec<PlannedFrame>,
    /// Framed (`VleEncoder::plan_framed`, coded by the FRAMED kernel): the code lengths of
    /// every table it was planned with, to check the tables uploaded against.
    pub(crate) framed: Option<std::sync::Arc<[[u8; 256]]>>,
}

/// A frame as planned: where it starts in the input and in the stream.
#[derive(Clone, Debug)]
pub(crate) struct PlannedFrame {
    pub first_block: u64,
    pub table: u32,
    pub gap_bits: u32,
    /// Global bit of its first code (after its gap).
    pub first_bit: u64,
}

impl Plan {
    /// Whether this plan codes frames, each with its own table (`VleEncoder::plan_framed`).
    pub fn is_framed(&self) -> bool {
        self.framed.is_some()
    }
    pub fn segments(&self) -> usize {
        self.segments.len()
    }
    /// The first block of every segment (dispatch), in order.
    pub fn segment_starts(&self) -> Vec<u64> {
        let mut at = 0u64;
        self.segments
            .iter()
            .map(|s| {
                at += s.n_blocks as u64;
                at - s.n_blocks as u64
            })
            .collect()
    }
    pub(crate) fn n_blocks(&self) -> u64 {
        self.segments.iter().map(|s| s.n_blocks as u64).sum()
    }
    pub(crate) fn output_bytes(&self) -> u64 {
        self.total_bits.div_ceil(32) * 4
    }
    /// Whether the kernel may use its packed table (codes of at most 27 bits).
    pub(crate) fn packed(&self) -> bool {
        self.max_len <= PACKED_MAX_LEN
    }
    /// Whether the kernel may put two symbols at once (codes of at most 16 bits).
    pub(crate) fn pairs(&self) -> bool {
        self.max_len <= PAIRS_MAX_LEN
    }
    /// Words of the look-back log of every segment (state header and one word per block).
    pub(crate) fn log_words(&self) -> u64 {
        self.segments.len() as u64 * STATE_HEADER as u64 + self.n_blocks()
    }

    /// [`Self::log_words`] with two end words a block after each segment's flags (an
    /// output written in place, `STAGE_ENDS_TO_CALLER`).
    fn log_words_with_ends(&self) -> u64 {
        self.log_words() + 2 * self.n_blocks()
    }

    /// Block offsets (the bit of each block's first code: its gap skipped) and fallbacks
    /// from the look-back log of every segment, each checked (complete chain, total equal
    /// to the segment's planned bits). `with_ends`: the log has each block's end words
    /// after its segment's flags ([`Self::log_words_with_ends`]), read with the block's
    /// code span (it ends where the next block's share, its gap then its code, begins;
    /// the last of a segment at the segment's planned end).
    pub(crate) fn read_log(
        &self,
        log: &[u32],
        strategy: ScanStrategy,
        with_ends: bool,
    ) -> Result<ScanLog> {
        let truncated = || Error::Gpu {
            stage: CUVLE.name,
            message: "scan log truncated".into(),
        };
        let mut read = ScanLog {
            block_offsets: Vec::with_capacity(self.n_blocks() as usize),
            ..ScanLog::default()
        };
        let mut at = 0usize;
        let mut frames = self.frames.iter().peekable();
        for seg in &self.segments {
            let n = seg.n_blocks as usize;
            let words = log.get(at..at + STATE_HEADER + n).ok_or_else(truncated)?;
            let report = read_state(CUVLE.name, strategy, words, n, seg.bits)?;
            read.fallbacks += report.fallbacks as u64;
            let ends = match with_ends {
                true => log
                    .get(at + STATE_HEADER + n..at + STATE_HEADER + 3 * n)
                    .ok_or_else(truncated)?,
                false => &[],
            };
            let prefixes = &report.block_prefixes;
            for (k, &p) in prefixes.iter().enumerate() {
                let block = read.block_offsets.len() as u64;
                let gap = match frames.next_if(|f| f.first_block == block) {
                    Some(f) => f.gap_bits as u64,
                    None => 0,
                };
                let start = seg.first_bit + p as u64 + gap;
                read.block_offsets.push(start);
                if with_ends {
                    let end = seg.first_bit + prefixes.get(k + 1).map_or(seg.bits, |&q| q as u64);
                    read.ends.push(BlockEnds {
                        start,
                        end,
                        words: [ends[2 * k], ends[2 * k + 1]],
                    });
                }
            }
            at += STATE_HEADER + if with_ends { 3 * n } else { n };
        }
        Ok(read)
    }

    /// The bit of every frame's first code: its first block's offset, checked against the
    /// plan (a frame with no blocks, of an empty input, is where the plan put it).
    pub(crate) fn frame_offsets(&self, block_offsets: &[u64]) -> Result<Vec<u64>> {
        self.frames
            .iter()
            .enumerate()
            .map(|(k, f)| match block_offsets.get(f.first_block as usize) {
                Some(&at) if at != f.first_bit => Err(Error::Gpu {
                    stage: CUVLE.name,
                    message: format!(
                        "frame {k} starts at bit {at}, planned at bit {}",
                        f.first_bit
                    ),
                }),
                _ => Ok(f.first_bit),
            })
            .collect()
    }
}

/// What the planner needs to know of a device.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DeviceLimits {
    /// Largest range of one buffer that one dispatch may bind, in bytes.
    pub max_binding: u64,
    /// Largest buffer, in bytes.
    pub max_buffer: u64,
}

impl CuvleConfig {
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

/// Plan the segments of an encode: the input lies in `windows` (byte offset in the input,
/// bytes; each starts on a chunk boundary), `chunk_histograms` holds one histogram per
/// `chunk` bytes of the input. Segments stay within a window, below 2^30 output bits (the
/// look-back's value range) and within one binding and the segment cap, and carry their
/// global bit offsets, so all of them can be encoded with no round trip.
#[allow(clippy::too_many_arguments)]
pub(crate) fn plan_segments(
    windows: &[(u64, u64)],
    chunk: u64,
    chunk_histograms: &[[u64; 256]],
    table: &CodeTable,
    order: BitOrder,
    start_bit: u32,
    config: &CuvleConfig,
    limits: DeviceLimits,
) -> Result<Plan> {
    if start_bit >= 32 {
        return Err(Error::InvalidArgument(format!(
            "start bit {start_bit} must be below 32"
        )));
    }
    let n_bytes: u64 = windows.iter().map(|w| w.1).sum();
    if chunk_histograms.len() as u64 != n_bytes.div_ceil(chunk) {
        return Err(Error::InvalidArgument(
            "one histogram per input chunk expected".into(),
        ));
    }
    check_table(table, &total_histogram(chunk_histograms))?;
    let block = config.block_bytes();
    let segments = group_chunks(
        windows,
        chunk,
        chunk_histograms,
        table,
        start_bit,
        segment_caps(config, limits),
    )?;
    let total_bits = start_bit as u64 + segments.iter().map(|s| s.bits).sum::<u64>();
    check_output(total_bits, limits)?;
    Ok(Plan {
        segments,
        order,
        max_len: table.max_len(),
        total_bits,
        block_bytes: block,
        frames: vec![PlannedFrame {
            first_block: 0,
            table: 0,
            gap_bits: 0,
            first_bit: start_bit as u64,
        }],
        framed: None,
    })
}

/// What one segment may hold: the configured cap on input bytes, and bits below the
/// look-back's range and within one binding.
pub(crate) fn segment_caps(config: &CuvleConfig, limits: DeviceLimits) -> SegmentCaps {
    let bits_cap = SEGMENT_BITS_MAX.min(limits.max_binding.saturating_sub(512).saturating_mul(8));
    // 64 bits of headroom below the look-back's range, as the shader's positions add
    // the start bit and the word base.
    SegmentCaps {
        bytes: config.max_segment_bytes.unwrap_or(u64::MAX),
        bits: bits_cap.saturating_sub(64),
        block_bytes: config.block_bytes(),
    }
}

/// Whether an output of `total_bits` fits one buffer of the device.
pub(crate) fn check_output(total_bits: u64, limits: DeviceLimits) -> Result<()> {
    let output_bytes = total_bits.div_ceil(32) * 4 + 512;
    if output_bytes > limits.max_buffer {
        return Err(Error::TooLarge(format!(
            "{output_bytes} output bytes exceed the device's largest buffer"
        )));
    }
    Ok(())
}

/// The encoder's result.
#[derive(Clone, Debug)]
pub struct Encoded {
    pub stream: BitBuf,
    /// Global bit offset of every block-input's code (start bit included; framed: the
    /// gap before the block skipped).
    pub block_offsets: Vec<u64>,
    /// Global bit offset of every frame's first code (its first block's offset; for an
    /// empty input, where it would be). A single-table encode is one frame.
    pub frame_offsets: Vec<u64>,
    /// Input bytes per block.
    pub block_bytes: u64,
    /// Decoupled fallbacks taken, summed over segments.
    pub fallbacks: u64,
    pub segments: usize,
    pub timings: Timings,
    /// The output was written where the host read it ([`CuvleConfig::host_output`]).
    pub written_in_place: bool,
}

/// What a look-back log says ([`Plan::read_log`]).
#[derive(Default)]
pub(crate) struct ScanLog {
    pub block_offsets: Vec<u64>,
    /// Decoupled fallbacks taken, summed over segments.
    pub fallbacks: u64,
    /// Every block's code span and end words, where the log has them.
    pub ends: Vec<BlockEnds>,
}

/// An encode's output where the kernel wrote it ([`VleEncoder::finish_placed`]): its
/// words as mapped, every block's end words still to be placed.
pub(crate) struct MappedStream<'a> {
    words: &'a [u8],
    ends: &'a [BlockEnds],
    stage_words: u64,
    /// The stream's length in bytes.
    bytes: usize,
}

impl MappedStream<'_> {
    /// The stream's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes
    }

    /// The stream's bytes, as [`VleEncoder::finish`] returns them, in a vector of their
    /// own ([`Gpu::copy_out`]'s).
    pub(crate) fn to_vec(&self, gpu: &Gpu) -> Result<Vec<u8>> {
        let mut bytes = gpu.copy_out(self.as_written()?);
        self.place_ends(&mut bytes)?;
        Ok(bytes)
    }

    /// The stream's [`Self::len`] bytes as the kernel left them: every block's end words
    /// still to be placed ([`Self::place_ends`]).
    pub(crate) fn as_written(&self) -> Result<&[u8]> {
        self.words.get(..self.bytes).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "a stream of {} bytes, {} mapped",
                self.bytes,
                self.words.len()
            ))
        })
    }

    /// Place every block's end words into `dest`, a copy of [`Self::as_written`].
    pub(crate) fn place_ends(&self, dest: &mut [u8]) -> Result<()> {
        if dest.len() != self.bytes {
            return Err(Error::InvalidArgument(format!(
                "a stream of {} bytes placed in {} bytes",
                self.bytes,
                dest.len()
            )));
        }
        place_block_ends(dest, self.ends, self.stage_words, CUVLE.name)
    }
}

/// GPU resources of one encode in flight: read them back with [`VleEncoder::finish`].
pub struct Pending {
    output: PooledBuffer,
    log: PooledBuffer,
    /// The look-back state, out of the pool until the encode is read back: another
    /// thread's encode recorded meanwhile must not get the same buffer.
    _state: PooledBuffer,
    profiler: Profiler,
    plan: Plan,
    /// Output and log copied for the host by [`VleEncoder::record_readback`], in the
    /// encode's own submission (the log alone when the output is written in place).
    reads: Option<RecordedReads>,
    /// Written in place ([`CuvleConfig::host_output`]), every block staged in this many
    /// words.
    in_place_stage_words: Option<u32>,
}

impl Pending {
    /// What [`VleEncoder::finish`] reads by a copy: the output (unless written in place:
    /// then it is mapped itself), the block log, and the kernel times when profiled (in
    /// the same copy, so a profiled encode waits no longer).
    fn readback_ranges(&self) -> Vec<(&wgpu::Buffer, u64, u64)> {
        let mut ranges = match self.in_place_stage_words {
            Some(_) => vec![(&*self.log, 0, self.plan.log_words_with_ends() * 4)],
            None => vec![
                (&*self.output, 0, self.plan.output_bytes()),
                (&*self.log, 0, self.plan.log_words() * 4),
            ],
        };
        ranges.extend(self.profiler.resolved_range());
        ranges
    }

    /// The output is written where the host reads it ([`CuvleConfig::host_output`], and
    /// the plan's blocks could be staged): `VleEncoder::finish_placed` takes it.
    pub fn written_in_place(&self) -> bool {
        self.in_place_stage_words.is_some()
    }

    /// The output buffer, holding the stream as little-endian u32 words.
    pub fn output(&self) -> &wgpu::Buffer {
        &self.output
    }

    /// Kernel times of this encode (after submission; empty unless profiled).
    pub async fn timings(&self, gpu: &Gpu) -> Result<Timings> {
        self.profiler.timings(gpu).await
    }
}

/// What a stream's chunk reads back before it codes (see
/// [`VleEncoder::histograms_with_crcs`]): each cell's histogram, each block's CRC32, the
/// frame plan's words (empty unless planned on the GPU), a gzip plan's frame headers
/// (empty without: [`super::deflate_head`]) and the passes' times (empty unless
/// profiled).
#[derive(Default)]
pub(crate) struct ChunkScan {
    pub histograms: Vec<[u64; 256]>,
    pub crcs: Vec<u32>,
    pub plan: Vec<u32>,
    pub heads: Vec<u32>,
    pub timings: Timings,
}

/// Per-chunk histograms from the histogram stage's u32 counts, as read back.
fn histograms_from_words(bytes: &[u8]) -> Vec<[u64; 256]> {
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(bytes);
    words
        .chunks_exact(256)
        .map(|c| {
            let mut h = [0u64; 256];
            for (d, &s) in h.iter_mut().zip(c) {
                *d = s as u64;
            }
            h
        })
        .collect()
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
        let block = self.config.block_bytes();
        let max = self.gpu.max_binding() / 2;
        if !chunk_bytes.is_power_of_two() || chunk_bytes < block || chunk_bytes > max {
            return Err(Error::InvalidArgument(format!(
                "histogram chunk of {chunk_bytes} bytes: a power of two from one block ({block} bytes) to {max} expected"
            )));
        }
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
        let windows = self.gpu.upload_windows(data, window_bytes);
        Ok(GpuInput {
            windows,
            n_bytes: data.len() as u64,
            chunk_bytes: chunk,
        })
    }

    /// Byte histogram of every chunk of the input: the histogram stage
    /// ([`super::histogram::HistogramStage`]) recorded into an encoder of its own, with `profiler`'s
    /// timestamps, and read back.
    pub async fn histograms(
        &self,
        input: &GpuInput,
        profiler: Option<&mut Profiler>,
    ) -> Result<Vec<[u64; 256]>> {
        Ok(self
            .histograms_with(input, profiler, None, None)
            .await?
            .histograms)
    }

    /// [`Self::histograms`], the CRC32 of every `block_bytes` block of the input
    /// ([`super::block_crc`]) and, with `plan`, the input's frames planned as its format
    /// and frame config cut them ([`super::frame_plan`]; no words without), in one
    /// submission and one readback: what a stream's chunk needs before it codes its
    /// frames, and after, for their checksums. With `profiler`, its passes' times come
    /// back in the same readback.
    pub(crate) async fn histograms_with_crcs(
        &self,
        input: &GpuInput,
        block_bytes: u64,
        plan: Option<(super::compress::Format, &super::frames::FrameConfig)>,
        profiler: Option<&mut Profiler>,
    ) -> Result<ChunkScan> {
        self.histograms_with(input, profiler, Some(block_bytes), plan)
            .await
    }

    /// The histograms, with `crc_block` the block CRC32s and with `plan` the frame plan's
    /// words (each empty without), recorded into one encoder with their readback: one
    /// submit and one wait, not one of each.
    async fn histograms_with(
        &self,
        input: &GpuInput,
        mut profiler: Option<&mut Profiler>,
        crc_block: Option<u64>,
        plan: Option<(super::compress::Format, &super::frames::FrameConfig)>,
    ) -> Result<ChunkScan> {
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(crate::gpu::registry::huffman::HISTOGRAM.label),
            });
        let pending = self.record_histograms(&mut encoder, input, profiler.as_deref_mut())?;
        let crcs = match crc_block {
            Some(block_bytes) => super::block_crc::record_block_crcs(
                self.gpu,
                &mut encoder,
                input,
                block_bytes,
                self.config.scan.workgroup_size,
                profiler.as_deref_mut(),
            )?,
            None => None,
        };
        let plan = match plan {
            Some((format, frames)) => super::frame_plan::record_frame_plan(
                self.gpu,
                &mut encoder,
                &pending,
                input.len(),
                format,
                frames,
                profiler.as_deref_mut(),
            )?,
            None => None,
        };
        if let Some(p) = profiler.as_deref() {
            p.resolve(&mut encoder);
        }
        // No counts: no input, so no blocks either.
        let Some(hist) = &pending.counts else {
            return Ok(ChunkScan::default());
        };
        let mut ranges = vec![(hist.buffer(), 0, pending.n_chunks as u64 * 1024)];
        if let Some((crcs, n_blocks)) = &crcs {
            ranges.push((crcs.buffer(), 0, *n_blocks as u64 * 4));
        }
        if let Some(p) = &plan {
            ranges.push((p.buffer.buffer(), 0, p.read_words as u64 * 4));
            if let Some(heads) = &p.heads {
                ranges.push((heads.buffer(), 0, p.head_words as u64 * 4));
            }
        }
        let times = profiler.as_deref().and_then(|p| p.resolved_range());
        ranges.extend(times);
        let reads = self.gpu.record_reads(&mut encoder, &ranges);
        let command = encoder.finish();
        let t_submit = crate::gpu::clock();
        self.gpu.queue.submit([command]);
        if let Some(t) = t_submit {
            log::debug!(
                "scan submitted in {:.2} ms",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        let mut parts = self.gpu.read_recorded(reads).await?.into_iter();
        // The parts come in the order their ranges went in.
        let histograms = histograms_from_words(&parts.next().unwrap_or_default());
        let crcs = match crcs {
            Some(_) => super::block_crc::crcs_from_bytes(&parts.next().unwrap_or_default()),
            None => Vec::new(),
        };
        let (plan, heads) = match plan {
            Some(p) => (
                bytemuck::pod_collect_to_vec(&parts.next().unwrap_or_default()),
                match p.heads {
                    Some(_) => bytemuck::pod_collect_to_vec(&parts.next().unwrap_or_default()),
                    None => Vec::new(),
                },
            ),
            None => (Vec::new(), Vec::new()),
        };
        let timings = match profiler {
            Some(p) if p.resolved_range().is_some() => {
                p.timings_from(self.gpu, &parts.next().unwrap_or_default())
            }
            _ => Timings::default(),
        };
        Ok(ChunkScan {
            histograms,
            crcs,
            plan,
            heads,
            timings,
        })
    }

    /// Record the per-chunk histograms of `input` into `encoder`; nothing is submitted.
    pub(crate) fn record_histograms(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        input: &GpuInput,
        profiler: Option<&mut Profiler>,
    ) -> Result<HistogramPending> {
        let n_chunks = input.n_chunks();
        if n_chunks == 0 {
            return Ok(HistogramPending {
                counts: None,
                n_chunks,
            });
        }
        let hist = self.gpu.pooled_buffer(
            n_chunks as u64 * 1024,
            wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        );
        encoder.clear_buffer(&hist, 0, None);
        let mut profiler = profiler;
        for w in &input.windows {
            encode_histogram(
                self.gpu,
                encoder,
                profiler.as_deref_mut(),
                &w.buffer,
                w.n_bytes as u32,
                input.chunk_bytes as u32,
                (w.offset / input.chunk_bytes) as u32,
                &hist,
                self.config.scan.workgroup_size,
            )?;
        }
        Ok(HistogramPending {
            counts: Some(hist),
            n_chunks,
        })
    }

    /// Read back what [`Self::record_histograms`] recorded, once submitted.
    pub(crate) async fn read_histograms(
        &self,
        pending: HistogramPending,
    ) -> Result<Vec<[u64; 256]>> {
        let Some(hist) = pending.counts else {
            return Ok(Vec::new());
        };
        let bytes = self
            .gpu
            .read_buffer(&hist, 0, pending.n_chunks as u64 * 1024)
            .await?;
        Ok(histograms_from_words(&bytes))
    }

    /// Plan the segments of an encode from per-chunk histograms.
    pub fn plan(
        &self,
        input: &GpuInput,
        chunk_histograms: &[[u64; 256]],
        table: &CodeTable,
        order: BitOrder,
        start_bit: u32,
    ) -> Result<Plan> {
        if chunk_histograms.len() != input.n_chunks() {
            return Err(Error::InvalidArgument(
                "one histogram per input chunk expected".into(),
            ));
        }
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

    pub(crate) fn limits(&self) -> DeviceLimits {
        DeviceLimits {
            max_binding: self.gpu.max_binding(),
            max_buffer: self.gpu.limits.max_buffer_size,
        }
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

    /// Record the copies that [`Self::finish`] reads into `encoder`, after the encode:
    /// the readback then needs no submission of its own, and waits for this one alone.
    pub fn record_readback(&self, encoder: &mut wgpu::CommandEncoder, pending: &mut Pending) {
        pending.reads = Some(self.gpu.record_reads(encoder, &pending.readback_ranges()));
    }

    /// Read back what [`Self::encode_into`] produced, after its encoder was submitted.
    pub async fn finish(&self, mut pending: Pending) -> Result<Encoded> {
        // The output where the kernel wrote it, copied out of the mapping; or output and
        // log in one copy and one wait.
        if pending.written_in_place() {
            let copied = |encoded: Encoded, stream: &MappedStream<'_>| {
                let bytes = stream.to_vec(self.gpu)?;
                Ok(Encoded {
                    stream: BitBuf {
                        bytes,
                        ..encoded.stream
                    },
                    ..encoded
                })
            };
            return self.finish_placed(pending, copied).await;
        }
        let (mut bytes, scan, timings) = self.read_log(&mut pending).await?;
        bytes.truncate(pending.plan.total_bits.div_ceil(8) as usize);
        self.encoded(&pending, bytes, scan, timings)
    }

    /// [`Self::finish`] for an encode written in place ([`Pending::written_in_place`]),
    /// its output not copied for the host: `place` gets the encode (its stream's bytes
    /// empty, its bit count, offsets and times set) and the mapped output, to copy where
    /// the caller wants the stream ([`MappedStream::to_vec`], or a place of its own:
    /// [`MappedStream::as_written`], then [`MappedStream::place_ends`]). Unmapped after.
    pub(crate) async fn finish_placed<T>(
        &self,
        mut pending: Pending,
        place: impl FnOnce(Encoded, &MappedStream<'_>) -> Result<T>,
    ) -> Result<T> {
        let Some(stage_words) = pending.in_place_stage_words else {
            return Err(Error::InvalidArgument(
                "finish_placed: the encode's output was not written in place".into(),
            ));
        };
        let len = pending.plan.output_bytes();
        if len > 0 {
            self.gpu
                .map_polled(&pending.output, len, wgpu::MapMode::Read)
                .await?;
        }
        // Unmapped however `place` ends, a panic included: the buffer goes back to the
        // pool, where a mapped one would fail its next use.
        struct Unmap<'b>(&'b wgpu::Buffer);
        impl Drop for Unmap<'_> {
            fn drop(&mut self) {
                self.0.unmap();
            }
        }
        let output = pending.output.buffer().clone();
        let _unmap = (len > 0).then(|| Unmap(&output));
        let placed = async {
            let (_, mut scan, timings) = self.read_log(&mut pending).await?;
            let ends = std::mem::take(&mut scan.ends);
            let mapped = match len {
                0 => None,
                _ => Some(
                    pending
                        .output
                        .slice(..len)
                        .get_mapped_range()
                        .map_err(|e| Error::Readback(e.to_string()))?,
                ),
            };
            let stream = MappedStream {
                words: mapped.as_deref().unwrap_or(&[]),
                ends: &ends,
                stage_words: stage_words as u64,
                bytes: pending.plan.total_bits.div_ceil(8) as usize,
            };
            let encoded = self.encoded(&pending, Vec::new(), scan, timings)?;
            place(encoded, &stream)
        }
        .await;
        placed
    }

    /// The encode's log and kernel times read back, with its output's bytes (empty where
    /// the output was written in place: it is mapped, not copied).
    async fn read_log(&self, pending: &mut Pending) -> Result<(Vec<u8>, ScanLog, Timings)> {
        let mut parts = match pending.reads.take() {
            Some(reads) => self.gpu.read_recorded(reads).await?,
            None => self.gpu.read_buffers(&pending.readback_ranges()).await?,
        };
        if pending.in_place_stage_words.is_some() {
            parts.insert(0, Vec::new());
        }
        // The parts come in the order of the ranges: output, log, times.
        let timings = match pending.profiler.resolved_range() {
            Some(_) => pending
                .profiler
                .timings_from(self.gpu, &parts.pop().unwrap_or_default()),
            None => Timings::default(),
        };
        let log: Vec<u32> = bytemuck::pod_collect_to_vec(&parts.pop().unwrap_or_default());
        let bytes = parts.pop().unwrap_or_default();
        let in_place = pending.in_place_stage_words.is_some();
        let scan = pending
            .plan
            .read_log(&log, self.config.scan.strategy, in_place)?;
        Ok((bytes, scan, timings))
    }

    /// The encode read back: its stream's `bytes` with the log's offsets.
    fn encoded(
        &self,
        pending: &Pending,
        bytes: Vec<u8>,
        scan: ScanLog,
        timings: Timings,
    ) -> Result<Encoded> {
        let plan = &pending.plan;
        let frame_offsets = plan.frame_offsets(&scan.block_offsets)?;
        Ok(Encoded {
            stream: BitBuf {
                bytes,
                bits: plan.total_bits,
            },
            block_offsets: scan.block_offsets,
            frame_offsets,
            block_bytes: plan.block_bytes,
            fallbacks: scan.fallbacks,
            segments: plan.segments.len(),
            timings,
            written_in_place: pending.in_place_stage_words.is_some(),
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
