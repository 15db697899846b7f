//! A batch of frames laid out for the vld kernel (and its CPU twin): tasks, groups,
//! where payload and output lie, and what the kernel's reports mean.

use std::ops::Range;

use super::{
    table, BlockError, BlockFault, VldFrame, VldOutput, FRAME_WORD_ALIGN, LAST_BLOCK,
    MAX_FRAME_BITS, OUT_UNIT, PAYLOAD_PART, READ_AHEAD_WORDS, STATUS_INVALID_CODE, STATUS_OVERRUN,
    TABLE_WORDS,
};
use crate::bits::BitOrder;
use crate::{Error, Result};

/// A batch laid out for the kernel, its codes checked: one task per block, groups of
/// blocks of one frame, where each frame's payload and output lie. The tables are
/// written where they go ([`VldPlan::write_tables`]).
pub(crate) struct VldPlan {
    /// Frames, a table each ([`VldPlan::write_tables`]).
    frames: usize,
    /// Per block: first bit, end bit (from its frame's first payload word), first output
    /// byte, symbols | LAST_BLOCK.
    pub(crate) blocks: Vec<[u32; 4]>,
    /// Per group: first block, blocks, table, the frame's first payload word.
    pub(crate) groups: Vec<[u32; 4]>,
    /// First payload word of every frame, and the total with [`READ_AHEAD_WORDS`].
    pub(super) frame_words: Vec<u64>,
    pub(crate) payload_words: u64,
    frame_out: Vec<Range<usize>>,
    pub(crate) out_bytes: u64,
    /// Whether blocks share output words (a block size not a multiple of 4): then the
    /// kernel's output must be zeroed first.
    pub(crate) clear: bool,
    /// Whether blocks share 16-byte output units (a block size not a multiple of 16, so
    /// whenever `clear` holds, and more often): then the CUDA twin's output must be
    /// zeroed first.
    pub(crate) unit_edges: bool,
    /// First block of every frame, then the total.
    pub(super) first_block: Vec<usize>,
}

impl VldPlan {
    pub(crate) fn new(frames: &[VldFrame<'_>], group_blocks: u32) -> Result<VldPlan> {
        let mut plan = VldPlan {
            frames: frames.len(),
            blocks: Vec::new(),
            groups: Vec::new(),
            frame_words: Vec::with_capacity(frames.len()),
            payload_words: 0,
            frame_out: Vec::with_capacity(frames.len()),
            out_bytes: 0,
            clear: false,
            unit_edges: false,
            first_block: Vec::with_capacity(frames.len() + 1),
        };
        for (k, f) in frames.iter().enumerate() {
            let bad = |what: String| Error::corrupt("native", format!("frame {k}: {what}"));
            table::code_counts(f.lengths, &f.other_codes).map_err(|e| bad(e.to_string()))?;
            let n = crate::huffman::framing::native_blocks(f.len, f.block_symbols) as usize;
            if f.block_symbols == 0
                || f.offsets.len() != n
                || f.offsets.windows(2).any(|w| w[1] < w[0])
                || f.offsets.last().is_some_and(|&o| o > f.payload_bits)
                || (f.payload.len() as u64) < f.payload_bits.div_ceil(8)
            {
                return Err(bad(format!(
                    "{} block offsets, {} payload bytes for {} bytes in blocks of {} and {} payload bits",
                    f.offsets.len(),
                    f.payload.len(),
                    f.len,
                    f.block_symbols,
                    f.payload_bits
                )));
            }
            let word = plan.payload_words.next_multiple_of(FRAME_WORD_ALIGN);
            plan.frame_words.push(word);
            plan.payload_words = word + f.payload_bits.div_ceil(32);
            let out = plan.out_bytes;
            plan.frame_out.push(out as usize..(out + f.len) as usize);
            // Each frame from a 16-byte unit: the CUDA twin stores whole units.
            plan.out_bytes += f.len.next_multiple_of(OUT_UNIT);
            plan.clear |= n > 1 && f.block_symbols % 4 != 0;
            plan.unit_edges |= n > 1 && f.block_symbols % OUT_UNIT != 0;
            let first = plan.blocks.len();
            plan.first_block.push(first);
            for (b, &start) in f.offsets.iter().enumerate() {
                let end = f.offsets.get(b + 1).copied().unwrap_or(f.payload_bits);
                let symbols = f.block_symbols.min(f.len - b as u64 * f.block_symbols);
                let last = if b + 1 == n { LAST_BLOCK } else { 0 };
                plan.blocks.push([
                    start as u32,
                    end as u32,
                    (out + b as u64 * f.block_symbols) as u32,
                    symbols as u32 | last,
                ]);
            }
            for g in (0..n).step_by(group_blocks as usize) {
                plan.groups.push([
                    (first + g) as u32,
                    (n - g).min(group_blocks as usize) as u32,
                    k as u32,
                    word as u32,
                ]);
            }
        }
        plan.first_block.push(plan.blocks.len());
        plan.payload_words =
            plan.payload_words.next_multiple_of(FRAME_WORD_ALIGN) + READ_AHEAD_WORDS;
        if plan.payload_words > u32::MAX as u64 || plan.out_bytes > u32::MAX as u64 {
            return Err(Error::TooLarge(format!(
                "a decode batch of {} payload bytes and {} output bytes",
                plan.payload_words * 4,
                plan.out_bytes
            )));
        }
        if frames
            .iter()
            .any(|f| f.block_symbols > u32::MAX as u64 >> 1 || f.payload_bits > MAX_FRAME_BITS)
        {
            return Err(Error::TooLarge(
                "a block of 2^31 symbols or a frame of 2^32 - 96 bits or more".into(),
            ));
        }
        Ok(plan)
    }

    /// Words of the frames' decode tables, one after the other.
    pub(crate) fn table_words(&self) -> usize {
        self.frames * TABLE_WORDS
    }

    /// Writes the decode table of every frame (codes the plan has checked), one after
    /// the other, into `out` (4 x [`VldPlan::table_words`] bytes): the GPU decoder's
    /// straight into its upload.
    pub(crate) fn write_tables(
        &self,
        frames: &[VldFrame<'_>],
        out: wgpu::WriteOnly<'_, [u8]>,
    ) -> Result<()> {
        if frames.len() != self.frames {
            return Err(Error::InvalidArgument(format!(
                "vld: tables of {} frames, planned for {}",
                frames.len(),
                self.frames
            )));
        }
        table::write_tables(frames, out)
    }

    /// The decode tables of every frame, one after the other ([`VldPlan::write_tables`]).
    pub(crate) fn tables(&self, frames: &[VldFrame<'_>]) -> Result<Vec<u32>> {
        let mut tables = vec![0u32; self.table_words()];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut tables[..]);
        self.write_tables(frames, bytes.into())?;
        Ok(tables)
    }

    /// Every frame's payload, one after the other from word boundaries, as the kernel's
    /// `payload` words (each word's first byte in the stream its most significant).
    pub(crate) fn payload(&self, frames: &[VldFrame<'_>]) -> Vec<u32> {
        let mut words = vec![0u32; self.payload_words as usize];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words[..]);
        self.write_payload(frames, bytes.into());
        words
    }

    /// Writes every frame's payload into `out` as [`VldPlan::payload`] lays it out, the
    /// gaps and anything past the last frame zeroed: in parts of [`PAYLOAD_PART`] bytes on
    /// all cores (one core's copy was 6.3 ms of a 64 MiB batch's round trip on the H200).
    pub(crate) fn write_payload(&self, frames: &[VldFrame<'_>], out: wgpu::WriteOnly<'_, [u8]>) {
        use rayon::prelude::*;
        let (parts, mut tail) = out.into_chunks::<PAYLOAD_PART>();
        let parts: Vec<_> = parts.into_iter().enumerate().collect();
        let whole = parts.len() * PAYLOAD_PART;
        parts.into_par_iter().for_each(|(i, part)| {
            self.write_payload_part(frames, i * PAYLOAD_PART, part.into());
        });
        self.write_payload_part(frames, whole, tail.slice(..));
    }

    /// The bytes at `at..at + out.len()` of [`VldPlan::write_payload`]'s layout: both
    /// multiples of 4, as every part's are.
    pub(super) fn write_payload_part(
        &self,
        frames: &[VldFrame<'_>],
        at: usize,
        mut out: wgpu::WriteOnly<'_, [u8]>,
    ) {
        /// Words swapped in a stack buffer, then written out at once.
        const RUN: usize = 4 << 10;
        let end = at + out.len();
        let mut k = self
            .frame_words
            .partition_point(|&w| w as usize * 4 <= at)
            .saturating_sub(1);
        let mut pos = at;
        let mut run = [0u8; RUN];
        while pos < end {
            let (start, bytes, order) = match frames.get(k) {
                Some(f) => (
                    self.frame_words[k] as usize * 4,
                    &f.payload[..f.payload_bits.div_ceil(8) as usize],
                    f.order,
                ),
                None => (end, &[][..], BitOrder::MsbFirst),
            };
            let zeros_end = start.clamp(pos, end);
            out.slice(pos - at..zeros_end - at).fill(0);
            pos = zeros_end;
            let words_end = (start + bytes.len().next_multiple_of(4)).min(end);
            while pos < words_end {
                let n = (words_end - pos).min(RUN);
                let from = pos - start;
                let src = &bytes[from..(from + n).min(bytes.len())];
                let (whole, tail) = src.split_at(src.len() / 4 * 4);
                let (dst, dst_tail) = run[..n].split_at_mut(whole.len());
                let words = dst.chunks_exact_mut(4).zip(whole.chunks_exact(4));
                match order {
                    BitOrder::MsbFirst => {
                        for (d, w) in words {
                            d.copy_from_slice(&[w[3], w[2], w[1], w[0]]);
                        }
                    }
                    // Each byte's bits reversed, so the stream reads MSB-first too, and
                    // its codes (DEFLATE packs a code from its most significant bit) read
                    // as the canonical codes themselves.
                    BitOrder::LsbFirst => {
                        for (d, w) in words {
                            let w = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                            d.copy_from_slice(&w.reverse_bits().to_le_bytes());
                        }
                    }
                }
                // The frame's last word: its bytes from the most significant, zeros after.
                if let Some(d) = dst_tail.get_mut(..4) {
                    let mut word = [0u8; 4];
                    word[..tail.len()].copy_from_slice(tail);
                    let word = match order {
                        BitOrder::MsbFirst => u32::from_be_bytes(word),
                        BitOrder::LsbFirst => u32::from_le_bytes(word).reverse_bits(),
                    };
                    d.copy_from_slice(&word.to_le_bytes());
                }
                out.slice(pos - at..pos - at + n).copy_from_slice(&run[..n]);
                pos += n;
            }
            k += 1;
        }
    }

    /// The errors in the per-block statuses, and the output unless there are any, with
    /// each frame's CRC32 where `block_crcs` gives every block's.
    pub(crate) fn output(
        &self,
        bytes: Vec<u8>,
        status: &[[u32; 2]],
        block_crcs: Option<&[u32]>,
    ) -> VldOutput {
        let mut errors = Vec::new();
        for (frame, w) in self.first_block.windows(2).enumerate() {
            let blocks = self.blocks[w[0]..w[1]].iter().zip(&status[w[0]..w[1]]);
            for (b, (task, &[code, detail])) in blocks.enumerate() {
                let end = task[1] as u64;
                let fault = match code {
                    0 => continue,
                    STATUS_INVALID_CODE => BlockFault::InvalidCode { bit: detail as u64 },
                    STATUS_OVERRUN => BlockFault::Overrun {
                        symbols: detail as u64,
                        end,
                    },
                    _ => BlockFault::WrongEnd {
                        at: detail as u64,
                        end,
                    },
                };
                errors.push(BlockError {
                    frame,
                    block: b,
                    fault,
                });
            }
        }
        let frame_crcs = block_crcs
            .filter(|c| errors.is_empty() && c.len() == self.blocks.len())
            .map(|crcs| self.frame_crcs(crcs));
        VldOutput {
            bytes: if errors.is_empty() { bytes } else { Vec::new() },
            frames: self.frame_out.clone(),
            errors,
            frame_crcs,
        }
    }

    /// Each frame's CRC32 from its blocks' (src/crc.rs), the frames on all cores.
    fn frame_crcs(&self, block_crcs: &[u32]) -> Vec<u32> {
        use rayon::prelude::*;
        self.first_block
            .par_windows(2)
            .map(|w| {
                let blocks = self.blocks[w[0]..w[1]].iter().zip(&block_crcs[w[0]..w[1]]);
                crate::crc::concat(blocks.map(|(task, &crc)| (crc, (task[3] & !LAST_BLOCK) as u64)))
            })
            .collect()
    }
}
