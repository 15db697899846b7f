//! The host's plan of an encode (segments, frames, log): arithmetic apart from the recording.

use crate::gpu::registry::huffman::CUVLE;
use crate::huffman::block_ends::BlockEnds;
use crate::huffman::histogram::total_histogram;
use crate::huffman::segments::{group_chunks, SegmentCaps};
use crate::huffman::{BitOrder, CodeTable};
use crate::scan::{read_state, ScanStrategy, STATE_HEADER};
use crate::{Error, Result};

use super::{check_table, CuvleConfig, GpuInput, Segment, VleEncoder};

/// Longest code for which the kernel emits two symbols per put (`PAIRS`).
const PAIRS_MAX_LEN: u32 = 16;
/// Longest code the kernel's packed table holds (shaders/huffman/cuvle.wgsl `PACKED`).
const PACKED_MAX_LEN: u32 = 27;
/// Largest bit count one segment may produce: the look-back packs 30-bit values.
const SEGMENT_BITS_MAX: u64 = (1 << 30) - 64;

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
    /// Framed (`VleEncoder::plan_framed`, coded by the FRAMED kernel): the codes it was
    /// planned with, to check the tables uploaded against.
    pub(crate) framed: Option<FramedCodes>,
}

/// The codes a framed plan was made with.
#[derive(Clone, Debug)]
pub(crate) enum FramedCodes {
    /// Tables the host uploads: each table's code lengths.
    Tables(std::sync::Arc<[[u8; 256]]>),
    /// Tables a frame plan built on the device, one a slot (a cell), this many slots.
    Slots(u32),
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
    pub(super) fn log_words_with_ends(&self) -> u64 {
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

/// What a look-back log says ([`Plan::read_log`]).
#[derive(Default)]
pub(crate) struct ScanLog {
    pub block_offsets: Vec<u64>,
    /// Decoupled fallbacks taken, summed over segments.
    pub fallbacks: u64,
    /// Every block's code span and end words, where the log has them.
    pub ends: Vec<BlockEnds>,
}

impl VleEncoder<'_> {
    /// Plan the segments of an encode from per-chunk histograms (one per chunk of the
    /// input, or an error).
    pub fn plan(
        &self,
        input: &GpuInput,
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

    pub(crate) fn limits(&self) -> DeviceLimits {
        DeviceLimits {
            max_binding: self.gpu.max_binding(),
            max_buffer: self.gpu.limits.max_buffer_size,
        }
    }
}
