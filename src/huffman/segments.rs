//! Segments: how an input is split into dispatches. Per-chunk histograms give every
//! chunk's exact code length once the table is known, so the host groups whole chunks
//! into segments under the caller's caps (the look-back's 30-bit values, binding sizes)
//! and knows each segment's global first bit before anything runs: all segments are
//! recorded into one command buffer, with no round trip. Shared by cuvle, pavle and
//! bytestream.

use super::CodeTable;
use crate::{Error, Result};

/// One dispatch's share of the input: whole chunks of one window.
#[derive(Clone, Debug)]
pub(crate) struct Segment {
    pub window: usize,
    /// Offset of the segment within its window (chunk-aligned).
    pub window_offset: u64,
    pub n_bytes: u64,
    /// Blocks of the caller's block size (`SegmentCaps::block_bytes`).
    pub n_blocks: u32,
    /// Code bits of the segment.
    pub bits: u64,
    /// Global bit position of its first code (start bit included).
    pub first_bit: u64,
}

impl Segment {
    /// Bit position of the first code within its output word.
    pub fn phase(&self) -> u32 {
        (self.first_bit % 32) as u32
    }
}

/// What one segment may hold.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SegmentCaps {
    pub bytes: u64,
    pub bits: u64,
    pub block_bytes: u64,
}

/// Group the chunks of each window (`windows`: chunk-aligned (offset, bytes)) into
/// segments of at most `caps.bytes` input bytes and `caps.bits` code bits, in input order;
/// a segment never straddles two windows and holds at least one chunk. A chunk whose code
/// alone exceeds `caps.bits` is an error.
pub(crate) fn group_chunks(
    windows: &[(u64, u64)],
    chunk: u64,
    chunk_histograms: &[[u64; 256]],
    table: &CodeTable,
    start_bit: u32,
    caps: SegmentCaps,
) -> Result<Vec<Segment>> {
    let mut segments = Vec::new();
    let mut first_bit = start_bit as u64;
    for (wi, &(offset, n_bytes)) in windows.iter().enumerate() {
        let first_chunk = (offset / chunk) as usize;
        let n_chunks = n_bytes.div_ceil(chunk) as usize;
        let mut c = 0;
        while c < n_chunks {
            let (mut bytes, mut bits, start) = (0u64, 0u64, c);
            while c < n_chunks {
                let chunk_bytes = chunk.min(n_bytes - c as u64 * chunk);
                let chunk_bits = table.encoded_bits(&chunk_histograms[first_chunk + c]);
                if c > start && (bits + chunk_bits > caps.bits || bytes + chunk_bytes > caps.bytes)
                {
                    break;
                }
                bytes += chunk_bytes;
                bits += chunk_bits;
                c += 1;
            }
            if bits > caps.bits {
                return Err(Error::TooLarge(format!(
                    "one {chunk}-byte chunk needs {bits} code bits; one segment holds at most {}",
                    caps.bits
                )));
            }
            segments.push(Segment {
                window: wi,
                window_offset: start as u64 * chunk,
                n_bytes: bytes,
                n_blocks: bytes.div_ceil(caps.block_bytes) as u32,
                bits,
                first_bit,
            });
            first_bit += bits;
        }
    }
    Ok(segments)
}
