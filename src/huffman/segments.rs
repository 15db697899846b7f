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
    /// Bits of the segment: its codes, and the gaps before its frames (framed coding).
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
    let chunk_bits: Vec<u64> = chunk_histograms
        .iter()
        .map(|h| table.encoded_bits(h))
        .collect();
    group_units(windows, chunk, &chunk_bits, |_| true, start_bit, caps)
}

/// Group chunks as [`group_chunks`] does, from the bits of every chunk (`chunk_bits`,
/// indexed over the whole input), keeping units whole where they fit: a unit is the run
/// of chunks from one where `unit_starts` holds to the next (a frame of framed coding).
/// A unit larger than one segment, or across two windows, is cut between chunks.
pub(crate) fn group_units(
    windows: &[(u64, u64)],
    chunk: u64,
    chunk_bits: &[u64],
    unit_starts: impl Fn(usize) -> bool,
    start_bit: u32,
    caps: SegmentCaps,
) -> Result<Vec<Segment>> {
    let mut segments = Vec::new();
    let mut first_bit = start_bit as u64;
    for (wi, &(offset, n_bytes)) in windows.iter().enumerate() {
        let first_chunk = (offset / chunk) as usize;
        let n_chunks = n_bytes.div_ceil(chunk) as usize;
        let bytes_of = |c: usize| chunk.min(n_bytes - c as u64 * chunk);
        // The open segment: (first chunk, bytes, bits).
        let mut open = (0usize, 0u64, 0u64);
        let mut close = |open: &mut (usize, u64, u64), next: usize| {
            if open.1 > 0 {
                segments.push(Segment {
                    window: wi,
                    window_offset: open.0 as u64 * chunk,
                    n_bytes: open.1,
                    n_blocks: open.1.div_ceil(caps.block_bytes) as u32,
                    bits: open.2,
                    first_bit,
                });
                first_bit += open.2;
            }
            *open = (next, 0, 0);
        };
        let fits = |open: &(usize, u64, u64), bytes: u64, bits: u64| {
            open.2 + bits <= caps.bits && open.1 + bytes <= caps.bytes
        };
        let mut c = 0;
        while c < n_chunks {
            let end = (c + 1..n_chunks)
                .find(|&e| unit_starts(first_chunk + e))
                .unwrap_or(n_chunks);
            let bytes: u64 = (c..end).map(bytes_of).sum();
            let bits: u64 = (c..end).map(|k| chunk_bits[first_chunk + k]).sum();
            if !fits(&open, bytes, bits) {
                close(&mut open, c);
            }
            if fits(&open, bytes, bits) {
                open.1 += bytes;
                open.2 += bits;
                c = end;
                continue;
            }
            // Too large for one segment: cut between its chunks.
            for k in c..end {
                let (bytes, bits) = (bytes_of(k), chunk_bits[first_chunk + k]);
                if open.1 > 0 && !fits(&open, bytes, bits) {
                    close(&mut open, k);
                }
                if bits > caps.bits {
                    return Err(Error::TooLarge(format!(
                        "one {chunk}-byte chunk needs {bits} code bits; one segment holds at most {}",
                        caps.bits
                    )));
                }
                open.1 += bytes;
                open.2 += bits;
            }
            c = end;
        }
        close(&mut open, n_chunks);
    }
    Ok(segments)
}
