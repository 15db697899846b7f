//! The per-chunk histograms (CRCs and frame plan beside them): a pass of its own before the plan.

use crate::gpu::{PooledBuffer, Profiler, Timings};
use crate::huffman::block_crc::{crcs_from_bytes, record_block_crcs};
use crate::huffman::compress::Format;
use crate::huffman::frame_plan::record_frame_plan;
use crate::huffman::frame_tables::TABLE_WORDS;
use crate::huffman::frames::FrameConfig;
use crate::huffman::histogram::{encode_histogram, HistogramPending};
use crate::Result;

use super::{GpuInput, VleEncoder};

/// What a stream's chunk reads back before it codes (see
/// [`VleEncoder::histograms_with_crcs`]): each cell's histogram, each block's CRC32, the
/// frame plan's words (empty unless planned on the GPU), a gzip plan's frame headers
/// (empty without: [`crate::huffman::deflate_head`]) and the passes' times (empty unless
/// profiled).
#[derive(Default)]
pub(crate) struct ChunkScan {
    pub histograms: Vec<[u64; 256]>,
    pub crcs: Vec<u32>,
    pub plan: Vec<u32>,
    pub heads: Vec<u32>,
    /// The plan's frames' code tables, left on the GPU
    /// ([`crate::huffman::frame_plan::PlanPending::tables`]), and their slots.
    pub tables: Option<(PooledBuffer, usize)>,
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

impl VleEncoder<'_> {
    /// Byte histogram of every chunk of the input: the histogram stage
    /// ([`crate::huffman::histogram::HistogramStage`]) recorded into an encoder of its own,
    /// with `profiler`'s timestamps, and read back.
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
    /// ([`crate::huffman::block_crc`]) and, with `plan`, the input's frames planned as its
    /// format and frame config cut them ([`crate::huffman::frame_plan`]; no words without),
    /// in one submission and one readback: what a stream's chunk needs before it codes its
    /// frames, and after, for their checksums. With `profiler`, its passes' times come
    /// back in the same readback.
    pub(crate) async fn histograms_with_crcs(
        &self,
        input: &GpuInput,
        block_bytes: u64,
        plan: Option<(Format, &FrameConfig)>,
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
        plan: Option<(Format, &FrameConfig)>,
    ) -> Result<ChunkScan> {
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(crate::gpu::registry::huffman::HISTOGRAM.label),
            });
        let pending = self.record_histograms(&mut encoder, input, profiler.as_deref_mut())?;
        let crcs = match crc_block {
            Some(block_bytes) => record_block_crcs(
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
            Some((format, frames)) => record_frame_plan(
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
            Some(_) => crcs_from_bytes(&parts.next().unwrap_or_default()),
            None => Vec::new(),
        };
        let (plan, heads, tables) = match plan {
            Some(p) => (
                bytemuck::pod_collect_to_vec(&parts.next().unwrap_or_default()),
                match p.heads {
                    Some(_) => bytemuck::pod_collect_to_vec(&parts.next().unwrap_or_default()),
                    None => Vec::new(),
                },
                Some((p.tables, p.table_words / TABLE_WORDS)),
            ),
            None => (Vec::new(), Vec::new(), None),
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
            tables,
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
}
