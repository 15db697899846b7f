//! An encode in flight and its readback (copied, or mapped in place): the finish side, apart.

use crate::gpu::registry::huffman::CUVLE;
use crate::gpu::{Gpu, PooledBuffer, Profiler, RecordedReads, Timings};
use crate::huffman::block_ends::{place_block_ends, BlockEnds};
use crate::huffman::BitBuf;
use crate::{Error, Result};

use super::plan::{Plan, ScanLog};
use super::VleEncoder;

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
    ///
    /// [`CuvleConfig::host_output`]: super::CuvleConfig::host_output
    pub written_in_place: bool,
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
    pub(super) output: PooledBuffer,
    pub(super) log: PooledBuffer,
    /// The look-back state, out of the pool until the encode is read back: another
    /// thread's encode recorded meanwhile must not get the same buffer.
    pub(super) _state: PooledBuffer,
    pub(super) profiler: Profiler,
    pub(super) plan: Plan,
    /// Output and log copied for the host by [`VleEncoder::record_readback`], in the
    /// encode's own submission (the log alone when the output is written in place).
    pub(super) reads: Option<RecordedReads>,
    /// Written in place ([`CuvleConfig::host_output`]), every block staged in this many
    /// words.
    ///
    /// [`CuvleConfig::host_output`]: super::CuvleConfig::host_output
    pub(super) in_place_stage_words: Option<u32>,
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
    ///
    /// [`CuvleConfig::host_output`]: super::CuvleConfig::host_output
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

impl VleEncoder<'_> {
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
}
