//! The framed containers: a stream of self-contained, byte-aligned frames, each with its
//! own code, that can be written as the input arrives and decoded in parallel.
//!
//! gzip: a sequence of members (RFC 1952 allows any number; every gunzip reads them as
//! one stream), one per pipeline chunk, or several where a chunk has more than
//! [`super::gzip_index::MAX_MEMBER_FRAMES`] frames. A member's header sets FLG.FEXTRA
//! and carries the frame index (subfield `'P' 'V'`, [`super::gzip_index`]: each frame's
//! input length, DEFLATE bytes and CRC32), so parvlc can decode the frames in parallel.
//! Then every frame is one dynamic-Huffman DEFLATE block (BFINAL = 0) of literals and its
//! end-of-block code, then an empty stored block (3 bits, padding, `00 00 ff ff`: zlib's
//! sync flush) that byte-aligns the next frame. The member ends with an empty final
//! fixed-Huffman block (`03 00`), the CRC32 and ISIZE of its input. An empty input is one
//! member with an empty index.
//!
//! Native v2 (little-endian): frames, then an end record. A data frame is
//! `b"PVLC"`, version `u8` = 2, kind `u8` = 0, 2 reserved zero bytes, `len u32` (input
//! bytes, at least 1), `block_symbols u32`, `payload_bits u32`, `crc32 u32` (of the
//! frame's input bytes), 128 bytes of code lengths (symbol `2i` in the low nibble of byte
//! `i`, `2i + 1` in the high; at most 15 bits), the bit offsets of blocks `1..n` within
//! the payload (`u32` each; block 0 at 0; `n = ceil(len / block_symbols)`), `header_crc32
//! u32` (of the frame's header bytes before it), then the MSB-first payload, padded with
//! zero bits to a byte. The end record is `b"PVLC"`, 2, kind 1, 2 reserved zero bytes,
//! `total_len u64`, `crc32 u32` (of all input), `frames u64`, `header_crc32 u32`. A
//! version-1 file (one whole-file frame, [`super::native`]) still decodes.

use super::compress::Format;
use super::frames::FramePlan;
use super::gzip::{deflate_block_header_with, EOB};
use crate::bits::{BitBuf, LsbWriter};
use crate::{Error, Result};

pub const VERSION_FRAMED: u8 = 2;
pub(crate) const KIND_DATA: u8 = 0;
pub(crate) const KIND_END: u8 = 1;
/// Native frame header bytes before the block offsets.
pub(crate) const NATIVE_FIXED: usize = 24 + 128;
/// Native end record bytes.
pub(crate) const NATIVE_END_LEN: usize = 32;
/// The empty stored block after each frame, once byte-aligned.
const SYNC_MARKER: [u8; 4] = [0, 0, 0xff, 0xff];
/// The empty final fixed-Huffman block: BFINAL = 1, BTYPE = 01, end-of-block (7 zeros).
const GZIP_FINAL_BLOCK: [u8; 2] = [0x03, 0x00];

/// Where a frame's bits lie within its bytes.
#[derive(Clone, Debug)]
pub struct FrameLayout {
    /// Header bits before the first symbol (native: whole bytes).
    pub head_bits: u64,
    pub symbol_bits: u64,
    /// Bytes of the whole frame (header, symbols, trailer, padding).
    pub bytes: u64,
    /// The gzip block header, computed once for layout and writing.
    gzip_head: Option<BitBuf>,
}

impl FrameLayout {
    /// Bit of the frame's first symbol, from the frame's first byte.
    pub fn symbol_start(&self) -> u64 {
        self.head_bits
    }
    pub fn symbol_end(&self) -> u64 {
        self.head_bits + self.symbol_bits
    }
}

/// Native blocks in a frame of `len` bytes.
pub(crate) fn native_blocks(len: u64, block_symbols: u64) -> u64 {
    len.div_ceil(block_symbols.max(1))
}

/// The layout of `frame` in `format`, native blocks of `block_symbols` bytes.
pub fn frame_layout(format: Format, frame: &FramePlan, block_symbols: u64) -> Result<FrameLayout> {
    frame_layout_with(format, frame, block_symbols, None)
}

/// [`frame_layout`] with a gzip frame's header built already (on the GPU:
/// [`super::deflate_head`]); None to build it here.
pub(crate) fn frame_layout_with(
    format: Format,
    frame: &FramePlan,
    block_symbols: u64,
    gzip_head: Option<BitBuf>,
) -> Result<FrameLayout> {
    match format {
        Format::Native => {
            let n = native_blocks(frame.len, block_symbols);
            let head = NATIVE_FIXED as u64 + 4 * n.saturating_sub(1) + 4;
            if frame.symbol_bits > u32::MAX as u64 {
                return Err(Error::TooLarge(format!(
                    "a frame of {} code bits (at most 2^32 - 1)",
                    frame.symbol_bits
                )));
            }
            Ok(FrameLayout {
                head_bits: head * 8,
                symbol_bits: frame.symbol_bits,
                bytes: head + frame.symbol_bits.div_ceil(8),
                gzip_head: None,
            })
        }
        Format::Gzip => {
            let head = match gzip_head {
                Some(head) => head,
                None => deflate_block_header_with(&frame.book, false)?,
            };
            let eob = frame.book.lengths()[EOB] as u64;
            let end = head.bits + frame.symbol_bits + eob + 3;
            Ok(FrameLayout {
                head_bits: head.bits,
                symbol_bits: frame.symbol_bits,
                bytes: end.div_ceil(8) + SYNC_MARKER.len() as u64,
                gzip_head: Some(head),
            })
        }
    }
}

/// What a frame's header says beyond its code: the input's checksum and, for native
/// frames, where each block's code starts (relative to the first symbol).
pub struct FrameFacts<'a> {
    pub crc32: u32,
    pub block_offsets: &'a [u64],
    pub block_symbols: u64,
}

/// Fill a frame's header and trailer into `region` (its `layout.bytes` bytes), whose
/// symbols are already in place and whose other bits are zero.
pub fn finish_frame(
    format: Format,
    frame: &FramePlan,
    layout: &FrameLayout,
    facts: &FrameFacts<'_>,
    region: &mut [u8],
) -> Result<()> {
    if region.len() as u64 != layout.bytes {
        return Err(Error::InvalidArgument(format!(
            "frame region of {} bytes, layout says {}",
            region.len(),
            layout.bytes
        )));
    }
    match format {
        Format::Native => {
            let head = native_frame_header(frame, facts)?;
            if head.len() as u64 * 8 != layout.head_bits {
                return Err(Error::InvalidArgument(
                    "native frame header size differs from its layout".into(),
                ));
            }
            region[..head.len()].copy_from_slice(&head);
        }
        Format::Gzip => {
            let head = layout
                .gzip_head
                .as_ref()
                .ok_or_else(|| Error::InvalidArgument("gzip layout without header".into()))?;
            for (d, s) in region.iter_mut().zip(&head.bytes) {
                *d |= s;
            }
            // End-of-block, then the empty stored block's 3 header bits and padding.
            let end = layout.symbol_end();
            let at = (end / 8) as usize;
            let seed = if end.is_multiple_of(8) {
                vec![]
            } else {
                vec![region[at]]
            };
            let mut w = LsbWriter::resume(seed, end % 8);
            w.code(frame.book.codes()[EOB], frame.book.lengths()[EOB]);
            w.bits(0, 3);
            let tail = w.finish();
            let marker_at = region.len() - SYNC_MARKER.len();
            if at + tail.bytes.len() != marker_at {
                return Err(Error::InvalidArgument(
                    "gzip frame trailer does not end where its layout says".into(),
                ));
            }
            region[at..marker_at].copy_from_slice(&tail.bytes);
            region[marker_at..].copy_from_slice(&SYNC_MARKER);
        }
    }
    Ok(())
}

fn native_frame_header(frame: &FramePlan, facts: &FrameFacts<'_>) -> Result<Vec<u8>> {
    let n = native_blocks(frame.len, facts.block_symbols) as usize;
    if facts.block_offsets.len() != n || facts.block_offsets.first().is_some_and(|&o| o != 0) {
        return Err(Error::InvalidArgument(format!(
            "{} block offsets for a frame of {n} blocks (the first at 0)",
            facts.block_offsets.len()
        )));
    }
    let len = u32::try_from(frame.len)
        .map_err(|_| Error::TooLarge(format!("a frame of {} bytes", frame.len)))?;
    let mut h = Vec::with_capacity(NATIVE_FIXED + 4 * n);
    h.extend_from_slice(super::native::MAGIC);
    h.extend_from_slice(&[VERSION_FRAMED, KIND_DATA, 0, 0]);
    h.extend_from_slice(&len.to_le_bytes());
    h.extend_from_slice(&(facts.block_symbols as u32).to_le_bytes());
    h.extend_from_slice(&(frame.symbol_bits as u32).to_le_bytes());
    h.extend_from_slice(&facts.crc32.to_le_bytes());
    let lengths = frame.book.lengths();
    for pair in lengths.chunks(2) {
        let hi = pair.get(1).copied().unwrap_or(0);
        if pair[0] > 15 || hi > 15 {
            return Err(Error::InvalidCodeTable(
                "a native frame holds codes of at most 15 bits".into(),
            ));
        }
        h.push(pair[0] | (hi << 4));
    }
    for &o in &facts.block_offsets[1.min(n)..] {
        let o = u32::try_from(o)
            .map_err(|_| Error::TooLarge(format!("block offset {o} in a frame")))?;
        h.extend_from_slice(&o.to_le_bytes());
    }
    let crc = crc32fast::hash(&h);
    h.extend_from_slice(&crc.to_le_bytes());
    Ok(h)
}

/// Bytes that end a gzip member of `len` input bytes with checksum `crc32`.
pub fn gzip_member_trailer(len: u64, crc32: u32) -> [u8; 10] {
    let mut t = [0u8; 10];
    t[..2].copy_from_slice(&GZIP_FINAL_BLOCK);
    t[2..6].copy_from_slice(&crc32.to_le_bytes());
    t[6..].copy_from_slice(&(len as u32).to_le_bytes());
    t
}

/// Bytes that end a framed stream of `total_len` input bytes with checksum `crc32`
/// (gzip: none, each member ends itself).
pub fn stream_trailer(format: Format, total_len: u64, crc32: u32, frames: u64) -> Vec<u8> {
    match format {
        Format::Gzip => Vec::new(),
        Format::Native => {
            let mut t = Vec::with_capacity(NATIVE_END_LEN);
            t.extend_from_slice(super::native::MAGIC);
            t.extend_from_slice(&[VERSION_FRAMED, KIND_END, 0, 0]);
            t.extend_from_slice(&total_len.to_le_bytes());
            t.extend_from_slice(&crc32.to_le_bytes());
            t.extend_from_slice(&frames.to_le_bytes());
            let crc = crc32fast::hash(&t);
            t.extend_from_slice(&crc.to_le_bytes());
            t
        }
    }
}
