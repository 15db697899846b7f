//! A batch's frames on the CPU cores: every block of every frame, in order, cut into runs
//! of about `RUN_BYTES` of output; each run decoded on one core, two blocks side by side
//! ([`lanes`]) whatever frames they belong to (most frames are one or two blocks); then
//! each frame checked in order: its blocks' ends, its padding, its checksum.

use std::rc::Rc;

use rayon::prelude::*;

use super::{Decoded, Frame, Part};
use crate::huffman::cpu::{Decoder, Reader};
use crate::huffman::lanes::{self, Lane};
use crate::{Error, Result};

/// Output bytes of the blocks one core decodes in a row (at least two blocks): long
/// enough that its two lanes stay paired, short enough for every core to have runs
/// (fewer bytes where the batch is small).
const RUN_BYTES: usize = 256 << 10;

/// A block: its frame (in the batch), its index in the frame and its output bytes.
#[derive(Clone, Copy)]
struct Block {
    frame: usize,
    index: usize,
    len: usize,
}

/// What a run came to: each block's end bit or its error (already naming its frame and
/// block), and the checksum of each frame's bytes in the run, in order.
struct RunDone {
    ends: Vec<Result<u64>>,
    crcs: Vec<(usize, crc32fast::Hasher)>,
}

/// Decodes a batch's frames into one buffer (`out`, reused): one part.
pub(super) fn decode_batch(frames: &[Frame], mut out: Vec<u8>) -> Result<Decoded> {
    let total = frames.iter().map(|f| f.len as usize).sum();
    crate::huffman::stream::size_for_overwrite(&mut out, total);
    let target = crate::huffman::stream::run_target(RUN_BYTES, total);
    let mut runs: Vec<(Vec<Block>, &mut [u8])> = Vec::new();
    let (mut rest, mut blocks, mut run_bytes) = (&mut out[..], Vec::new(), 0usize);
    for (k, f) in frames.iter().enumerate() {
        let size = f.block_symbols as usize;
        for i in 0..f.offsets.len() {
            let len = size.min(f.len as usize - i * size);
            blocks.push(Block {
                frame: k,
                index: i,
                len,
            });
            run_bytes += len;
            if blocks.len() >= 2 && run_bytes >= target {
                let (head, tail) = std::mem::take(&mut rest).split_at_mut(run_bytes);
                runs.push((std::mem::take(&mut blocks), head));
                (rest, run_bytes) = (tail, 0);
            }
        }
    }
    if !blocks.is_empty() {
        runs.push((blocks, rest));
    }
    let done: Vec<RunDone> = runs
        .into_par_iter()
        .map(|(blocks, buf)| decode_run(frames, &blocks, buf))
        .collect();
    let (ends, crcs): (Vec<_>, Vec<_>) = done.into_iter().map(|d| (d.ends, d.crcs)).unzip();
    let mut ends = ends.into_iter().flatten();
    let mut crcs = crcs.into_iter().flatten().peekable();
    let mut parts = Vec::with_capacity(frames.len());
    let mut at = 0usize;
    for (k, f) in frames.iter().enumerate() {
        let stream_bits = f.payload.len() as u64 * 8;
        for i in 0..f.offsets.len() {
            let end = match ends.next() {
                Some(Ok(end)) => end,
                Some(Err(e)) => return Err(e),
                None => return Err(f.corrupt("a block was not decoded")),
            };
            let limit = f.offsets.get(i + 1).copied().unwrap_or(stream_bits);
            if end > limit {
                return Err(f.corrupt(Error::corrupt(
                    "native",
                    format!("block {i} ends at bit {end}, past the next block at {limit}"),
                )));
            }
            let want = f.offsets.get(i + 1).copied().unwrap_or(f.payload_bits);
            if end != want {
                return Err(f.corrupt(format!(
                    "block {i} ends at bit {end}, the next starts at {want}"
                )));
            }
        }
        f.check_padding()?;
        let mut crc: Option<crc32fast::Hasher> = None;
        while let Some((_, c)) = crcs.next_if(|(frame, _)| *frame == k) {
            match &mut crc {
                Some(all) => all.combine(&c),
                None => crc = Some(c),
            }
        }
        let crc = f.check_crc_of(crc.unwrap_or_default())?;
        parts.push((at..at + f.len as usize, crc));
        at += f.len as usize;
    }
    Ok(vec![Part {
        bytes: out,
        frames: parts,
    }])
}

/// Decodes `blocks` (consecutive, in order) into `buf` (their bytes, in order) on this
/// core.
fn decode_run(frames: &[Frame], blocks: &[Block], buf: &mut [u8]) -> RunDone {
    let mut run = Run {
        frames,
        blocks,
        next: 0,
        rest: &mut *buf,
        code: None,
        ends: blocks
            .iter()
            .map(|_| Err(Error::corrupt("native", "a block was not decoded")))
            .collect(),
    };
    lanes::two_lanes(&mut run, Run::start_next, |run, (b, end)| run.ends[b] = end);
    let ends = run.ends;
    // The checksum of each frame's bytes in the run, while they are in cache.
    let mut crcs = Vec::new();
    let mut at = 0usize;
    for group in blocks.chunk_by(|a, b| a.frame == b.frame) {
        let len: usize = group.iter().map(|b| b.len).sum();
        let mut crc = crc32fast::Hasher::new();
        crc.update(buf.get(at..at + len).unwrap_or_default());
        crcs.push((group[0].frame, crc));
        at += len;
    }
    RunDone { ends, crcs }
}

/// A run being decoded: the blocks not yet started and their output.
struct Run<'f, 'o> {
    frames: &'f [Frame],
    blocks: &'f [Block],
    next: usize,
    rest: &'o mut [u8],
    /// The last frame's decoder (or the error its code lengths gave).
    code: Option<(usize, std::result::Result<Rc<Decoder>, String>)>,
    ends: Vec<Result<u64>>,
}

impl<'f, 'o> Run<'f, 'o> {
    /// The next block that starts; each that cannot has its error.
    fn start_next(&mut self) -> Option<BlockDecode<'f, 'o>> {
        while let Some(&b) = self.blocks.get(self.next) {
            let at = self.next;
            self.next += 1;
            let (out, rest) = std::mem::take(&mut self.rest).split_at_mut(b.len);
            self.rest = rest;
            let f = &self.frames[b.frame];
            if self.code.as_ref().is_none_or(|(k, _)| *k != b.frame) {
                let dec = Decoder::from_lengths(&f.lengths)
                    .map(Rc::new)
                    .map_err(|e| format!("bad code lengths: {e}"));
                self.code = Some((b.frame, dec));
            }
            let dec = match &self.code {
                Some((_, Ok(dec))) => dec.clone(),
                Some((_, Err(e))) => {
                    self.ends[at] = Err(f.corrupt(e));
                    continue;
                }
                None => continue,
            };
            let start = f.offsets[b.index];
            if let Some(end) = dec.copy(&f.payload, start, out) {
                self.ends[at] = Ok(end);
                continue;
            }
            match dec.reader(&f.payload, 0, start) {
                Ok(reader) => {
                    return Some(BlockDecode {
                        at,
                        frame: f,
                        index: b.index,
                        dec,
                        reader,
                        out,
                        done: 0,
                    })
                }
                Err(e) => self.ends[at] = Err(block_error(f, b.index, e)),
            }
        }
        None
    }
}

/// One block being decoded.
struct BlockDecode<'f, 'o> {
    /// Its place in the run.
    at: usize,
    frame: &'f Frame,
    index: usize,
    dec: Rc<Decoder>,
    reader: Reader<'f>,
    out: &'o mut [u8],
    /// Symbols decoded.
    done: usize,
}

impl Lane for BlockDecode<'_, '_> {
    type Done = (usize, Result<u64>);

    #[inline(always)]
    fn round(&mut self) -> bool {
        self.dec.round(&mut self.reader, self.out, &mut self.done)
    }

    fn finish(mut self) -> Self::Done {
        let end = self
            .dec
            .decode_rest(&mut self.reader, 0, self.out, self.done)
            .map_err(|e| block_error(self.frame, self.index, e));
        (self.at, end)
    }
}

/// A block's decode error, naming its frame and block.
fn block_error(f: &Frame, index: usize, e: Error) -> Error {
    f.corrupt(match e {
        Error::Corrupt { format, reason } => Error::Corrupt {
            format,
            reason: format!("block {index}: {reason}"),
        },
        e => e,
    })
}

#[cfg(test)]
mod tests {
    use crate::huffman::chunk::encode_chunk_cpu;
    use crate::huffman::compress::Format;
    use crate::huffman::frames::FrameConfig;
    use crate::huffman::pipeline::StreamWriter;
    use crate::huffman::stream::decompress_to;

    /// A native stream of frames of one to four 1 KiB blocks (statistics that change
    /// every few KiB), one frame whose code is every byte in 8 bits (a copy), and a
    /// frame of one byte; with the input and each frame's payload start in the file.
    fn stream() -> (Vec<u8>, Vec<u8>) {
        let mut data = Vec::new();
        for (i, entropy) in [1.5, 6.0, 3.0, 7.5, 2.0, 5.0, 4.0].iter().enumerate() {
            data.extend(crate::testdata::generate(
                1024 * (i + 1),
                *entropy,
                i as u64,
            ));
        }
        // Every byte equally often: its code is every byte in 8 bits.
        data.extend((0..4096u32).map(|i| (i.wrapping_mul(167) % 256) as u8));
        data.push(7);
        let config = FrameConfig {
            cell_bytes: 1024,
            max_frame_bytes: 4096,
            fixed: false,
        };
        let chunk = encode_chunk_cpu(&data, Format::Native, &config, 1024).unwrap();
        let mut w = StreamWriter::new(Vec::new(), Format::Native);
        w.write_chunk(&chunk).unwrap();
        (w.finish().unwrap().1, data)
    }

    #[test]
    fn blocks_pair_across_frames_and_errors_name_theirs() {
        let (file, data) = stream();
        for batch in [1usize, 5000, 1 << 20] {
            let mut out = Vec::new();
            crate::huffman::native::decompress_native_to(&mut &file[..], &mut out, batch).unwrap();
            assert!(out == data, "batch {batch}");
        }
        // A flipped bit anywhere: an error (a checksum, a block's end or a code), and
        // one naming a frame wherever it is in a payload.
        let frames = super::super::read_all_for_tests(&file);
        let blocks: Vec<usize> = frames.iter().map(|f| f.2).collect();
        for n in 1..=4 {
            assert!(blocks.contains(&n), "no frame of {n} blocks: {blocks:?}");
        }
        assert!(
            frames.iter().any(|f| f.3),
            "no frame coded in 8 bits a byte"
        );
        for (k, &(payload_at, payload_len, ..)) in frames.iter().enumerate() {
            for at in [
                payload_at,
                payload_at + payload_len / 2,
                payload_at + payload_len - 1,
            ] {
                let mut bad = file.clone();
                bad[at] ^= 0x08;
                let e = decompress_to(&mut &bad[..], &mut Vec::new())
                    .expect_err("a flipped bit decoded")
                    .to_string();
                assert!(e.contains(&format!("frame {k} ")), "byte {at}: {e}");
            }
        }
    }
}
