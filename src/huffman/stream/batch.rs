//! The gzip decoders' jobs: indexed frames gathered into batches, and flate2's output, in order.

use std::io::Write;

use rayon::prelude::*;

use super::{corrupt, run_target, size_for_overwrite};
use crate::huffman::framed_decode::DecodeGpu;
use crate::huffman::{gzip_index, inflate_frame, inflate_gpu};
use crate::{Error, Result};

/// Work for the decoder thread, in output order.
pub(super) enum Job {
    /// Indexed frames to decode on all cores.
    Frames(FrameBatch),
    /// Output already decoded (an unindexed member, through flate2).
    Bytes(Vec<u8>),
}

/// Frames of one or more members, read and not yet decoded: their index entries and
/// bytes. Batches span members (a member is one pipeline chunk, 4 MiB by default: too
/// little work for a GPU's round trip).
pub(super) struct FrameBatch {
    /// Per member with frames here: its number, the index within it of its first frame
    /// here, and where that frame is in `entries`.
    pub(super) members: Vec<(u64, usize, usize)>,
    pub(super) entries: Vec<gzip_index::IndexEntry>,
    /// The frames' bytes, `used` of them (the rest left from the buffer's last use).
    pub(super) data: Vec<u8>,
    pub(super) used: usize,
    /// Output bytes of the frames.
    pub(super) out_len: u64,
    /// Frames' bytes still to read from the file: its offset, where they go in `data`.
    pub(super) reads: Vec<(u64, std::ops::Range<usize>)>,
}

impl FrameBatch {
    /// Output bytes of a run of frames decoded on one core (two lanes), at least two
    /// frames: long enough that its lanes stay paired (frames differ in length, and a
    /// lane left without a frame decodes alone), short enough for every core to have
    /// runs (fewer bytes where the batch is small).
    const RUN_BYTES: usize = 1 << 20;

    /// [`FrameBatch::decode`] on `gpu` where there is one ([`FrameBatch::decode_gpu`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn decode_on(&self, gpu: Option<DecodeGpu<'_>>, out: &mut Vec<u8>) -> Result<()> {
        match gpu {
            Some(gpu) => pollster::block_on(self.decode_gpu(gpu, out)),
            None => self.decode(out),
        }
    }

    /// [`FrameBatch::decode`] on `gpu` where every frame lists its blocks (index version
    /// 2), else on the CPU.
    pub(super) async fn decode_gpu(&self, gpu: DecodeGpu<'_>, out: &mut Vec<u8>) -> Result<()> {
        if !inflate_gpu::takes(&self.entries) {
            return self.decode(out);
        }
        let frames = self.frames()?;
        let name = |i: usize, reason: String| self.named(i, reason);
        inflate_gpu::decode_frames(gpu, &frames, out, &name).await
    }

    /// Reads the frames' bytes that the reader skipped from `file`, in parts on all
    /// cores.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn read_frames(&mut self, file: &std::fs::File) -> Result<()> {
        /// Bytes one task reads.
        const PART: usize = 1 << 20;
        let mut parts: Vec<(u64, &mut [u8])> = Vec::new();
        let mut rest = &mut self.data[..];
        let mut at = 0usize;
        for (offset, range) in &self.reads {
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(range.start - at);
            let (span, tail) = tail.split_at_mut(range.len());
            rest = tail;
            at = range.end;
            let mut off = *offset;
            for part in span.chunks_mut(PART) {
                let n = part.len() as u64;
                parts.push((off, part));
                off += n;
            }
        }
        parts.into_par_iter().try_for_each(|(offset, part)| {
            let got = crate::huffman::pipeline::read_full_at(file, part, offset)?;
            if got < part.len() {
                return Err(corrupt(format!(
                    "the file ends at byte {}, before the frames the reader found there (did it \
                     shrink?)",
                    offset + got as u64
                )));
            }
            Ok(())
        })?;
        self.reads.clear();
        Ok(())
    }

    /// Each frame's entry and bytes.
    fn frames(&self) -> Result<Vec<(&gzip_index::IndexEntry, &[u8])>> {
        let mut data = &self.data[..self.used];
        self.entries
            .iter()
            .map(|e| {
                let (d, r) = data
                    .split_at_checked(e.bytes as usize)
                    .ok_or_else(|| corrupt("a frame batch is shorter than its index".into()))?;
                data = r;
                Ok((e, d))
            })
            .collect()
    }

    /// The error of frame `i` of the batch.
    fn named(&self, i: usize, reason: String) -> Error {
        let k = self.members.partition_point(|m| m.2 <= i).saturating_sub(1);
        let (member, first, at) = self.members.get(k).copied().unwrap_or_default();
        corrupt(format!(
            "member {member} frame {}: {reason}",
            first + i - at
        ))
    }

    /// Decodes every frame into `out` (resized), runs of frames in parallel, each frame
    /// checked against its entry.
    pub(super) fn decode(&self, out: &mut Vec<u8>) -> Result<()> {
        let total = self.entries.iter().map(|e| e.len as usize).sum();
        size_for_overwrite(out, total);
        let frames = self.frames()?;
        let mut runs: Vec<Vec<(&[u8], &mut [u8])>> = Vec::new();
        let mut rest = &mut out[..];
        let (mut run_bytes, target) = (0, run_target(Self::RUN_BYTES, total));
        for (e, d) in frames {
            let (o, r) = std::mem::take(&mut rest).split_at_mut(e.len as usize);
            rest = r;
            match runs.last_mut() {
                Some(run) if run.len() < 2 || run_bytes < target => run.push((d, o)),
                _ => {
                    runs.push(vec![(d, o)]);
                    run_bytes = 0;
                }
            }
            run_bytes += e.len as usize;
        }
        let firsts: Vec<usize> = runs
            .iter()
            .scan(0, |at, run| {
                let first = *at;
                *at += run.len();
                Some(first)
            })
            .collect();
        runs.into_par_iter()
            .zip(firsts)
            .try_for_each(|(mut run, first)| {
                let results = inflate_frame::decode_frames(&mut run);
                for (i, (result, (_, o))) in results.into_iter().zip(&run).enumerate() {
                    let named = |reason: String| self.named(first + i, reason);
                    result
                        .and_then(|span| span.check(self.entries[first + i].code.as_ref()))
                        .map_err(|e| match e {
                            Error::Corrupt { reason, .. } => named(reason),
                            e => e,
                        })?;
                    let expected = self.entries[first + i].crc32;
                    let computed = crc32fast::hash(o);
                    if computed != expected {
                        return Err(named(format!(
                            "checksum mismatch (index {expected:08x}, computed {computed:08x})"
                        )));
                    }
                }
                Ok(())
            })
    }
}

/// The reader's end of the decoder's queue: indexed frames gathered into batches of
/// about `batch_bytes` of output, and a [`Write`] for flate2's output, sent on in
/// batches, each kind sent before the other is taken, so the jobs stay in order.
pub(super) struct Jobs<'a> {
    /// Where a job goes: to the decoder thread, or (on the web, without threads)
    /// decoded and written on the spot.
    pub(super) sink: Box<dyn FnMut(Job) -> Result<()> + 'a>,
    pub(super) buf: Vec<u8>,
    pub(super) spares: std::sync::mpsc::Receiver<Vec<u8>>,
    /// Frames read and not yet sent.
    pub(super) frames: Option<FrameBatch>,
    pub(super) batch_bytes: usize,
}

impl Jobs<'_> {
    const BATCH: usize = 1 << 20;

    fn send_bytes(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            let b = std::mem::take(&mut self.buf);
            (self.sink)(Job::Bytes(b))?;
        }
        Ok(())
    }

    pub(super) fn send_frames(&mut self) -> Result<()> {
        if let Some(mut batch) = self.frames.take() {
            batch.data.truncate(batch.used);
            (self.sink)(Job::Frames(batch))?;
        }
        Ok(())
    }

    /// The batch the next frames go into (output before them sent on first).
    pub(super) fn batch(&mut self) -> Result<&mut FrameBatch> {
        self.send_bytes()?;
        let spares = &self.spares;
        Ok(self.frames.get_or_insert_with(|| FrameBatch {
            members: Vec::new(),
            entries: Vec::new(),
            data: spares.try_recv().unwrap_or_default(),
            used: 0,
            out_len: 0,
            reads: Vec::new(),
        }))
    }

    /// Send what is batched, frames then bytes: the end of the input. Named apart from
    /// `Write::flush`, which leaves the batch to fill.
    pub(super) fn send_all(&mut self) -> Result<()> {
        self.send_frames()?;
        self.send_bytes()
    }
}

impl Write for Jobs<'_> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.send_frames().map_err(std::io::Error::other)?;
        self.buf.extend_from_slice(data);
        if self.buf.len() >= Self::BATCH {
            self.send_bytes().map_err(std::io::Error::other)?;
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
