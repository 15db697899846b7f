//! JPEG 2000 raw-segment bit-stuffing (ISO/IEC 15444-1 D.6, the bypass coder of the
//! selective arithmetic coding bypass style): the raw SPP/MRP bits of a code-block go to
//! the bitstream MSB-first, and after every 0xFF byte the next byte carries a 0 in its MSB
//! and 7 data bits, so that no marker code (0xFF followed by 0x90..0xFF) can appear.
//!
//! Termination is OpenJPEG's (`opj_mqc_bypass_flush_enc`), which its decoder
//! (`opj_mqc_raw_decode`, reading 1 bits past a segment's end) accepts:
//! - a segment of 0 bits writes nothing;
//! - a partial last byte is padded with the alternating bits 0, 1, 0, ... (the padding
//!   starts with a 0, so the padded byte is never 0xFF);
//! - with nothing pending after a final 0xFF, that 0xFF is dropped (the decoder reads
//!   1 bits past the end anyway); under [`Termination::Predictable`] (ERTERM) a stuffed
//!   byte 0x2A is written instead;
//! - with nothing pending after a final 0xFF 0x7F, both are dropped
//!   ([`Termination::Plain`] only): the decoder reads them as 15 one bits, as it would
//!   read nothing.
//!
//! So a terminated segment never ends on 0xFF. A segment is assumed to follow a byte that
//! is not 0xFF (in a codestream it follows a terminated MQ segment, which never ends on
//! 0xFF), so its first byte carries 8 data bits.
//!
//! Four implementations over many segments at once, byte for byte the same:
//! - [`serial`]: the reference, also an incremental [`RawWriter`] for a CPU tier-1;
//! - [`vote`] (shaders/bitstuff/vote.wgsl, core in shaders/common/bitstuff_wg.wgsl): the
//!   EBCOT fast-mode paper's Algorithm 2, a segmented scan over runs of 0xFF repeated
//!   until no invocation changes its vote;
//! - [`fsm`] (shaders/bitstuff/fsm.wgsl): every chunk's effect as a function of its
//!   incoming state (bit phase 0-7, whether the current byte follows 0xFF), composed by
//!   one scan, so the depth is O(log n) whatever the input;
//! - [`solo`] (shaders/bitstuff/solo.wgsl): one invocation per segment, the serial rule
//!   in registers, for batches of many short segments.

#[cfg(all(feature = "bench", not(target_arch = "wasm32")))]
pub mod bench;
pub mod fsm;
pub mod gpu;
pub mod serial;
pub mod solo;
pub mod vote;

pub use gpu::{
    BitstuffConfig, BitstuffStage, GpuBatch, GpuStuffed, Pending, Stuffer, DEFAULT_MAX_SEGMENT_BITS,
};
pub use serial::{stuff, stuff_batch, stuff_batch_par, unstuff, RawWriter};

use crate::{Error, Result};

/// How a raw segment is terminated (OpenJPEG's `erterm` flag).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The BYPASS flush: a final 0xFF, or 0xFF 0x7F, with nothing pending is dropped.
    #[default]
    Plain,
    /// Predictable termination (code-block style PTERM, ERTERM): a final 0xFF is kept
    /// and followed by 0x2A; nothing is dropped.
    Predictable,
}

/// One segment's unstuffed raw bits: the first `bits` bits of `data`, MSB-first.
#[derive(Clone, Copy, Debug)]
pub struct RawBits<'a> {
    pub data: &'a [u8],
    pub bits: u64,
}

impl<'a> RawBits<'a> {
    /// All bits of `data`.
    pub fn bytes(data: &'a [u8]) -> Self {
        RawBits {
            data,
            bits: data.len() as u64 * 8,
        }
    }

    /// Check that the data holds the bit count and that the segment is at most
    /// `max_bits` long; `index` names the segment in the error.
    pub fn check(&self, index: usize, max_bits: u64) -> Result<()> {
        if self.bits > self.data.len() as u64 * 8 {
            return Err(Error::InvalidArgument(format!(
                "raw segment {index}: bit count {} exceeds its data ({} bytes = {} bits)",
                self.bits,
                self.data.len(),
                self.data.len() as u64 * 8
            )));
        }
        if self.bits > max_bits {
            return Err(Error::InvalidArgument(format!(
                "raw segment {index}: {} bits exceed the maximum of {max_bits} bits per segment",
                self.bits
            )));
        }
        Ok(())
    }
}

/// The stuffed, terminated bytes of every segment of a batch, concatenated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stuffed {
    pub bytes: Vec<u8>,
    /// Segment i is `bytes[offsets[i]..offsets[i + 1]]`; one more entry than segments.
    pub offsets: Vec<usize>,
}

impl Stuffed {
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Segment `i`'s bytes.
    pub fn segment(&self, i: usize) -> &[u8] {
        &self.bytes[self.offsets[i]..self.offsets[i + 1]]
    }
    /// Every segment's length in bytes.
    pub fn lengths(&self) -> Vec<usize> {
        self.offsets.windows(2).map(|w| w[1] - w[0]).collect()
    }
}

/// Most bytes `bits` raw bits can become: every byte but the last holds at least 7 data
/// bits (Predictable's extra 0x2A included).
pub fn max_stuffed_bytes(bits: u64) -> u64 {
    bits.div_ceil(7)
}
