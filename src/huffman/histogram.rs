//! Byte histograms per input chunk, on the GPU (shaders/huffman/histogram.wgsl) and its CPU twin.
//! Per-chunk counts give the exact code length of every chunk once the code table is
//! known, which is what lets the encoder plan its segments without a round trip.

use wgpu::util::DeviceExt;

use super::cuvle::{GpuInput, VleEncoder};
use crate::gpu::registry::huffman::HISTOGRAM;
use crate::gpu::{Gpu, GpuStage, PooledBuffer, Profiler};
use crate::Result;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/huffman/histogram.wgsl `HistogramParams`
pub(crate) struct HistogramParams {
    pub n_bytes: u32,
    pub words_per_workgroup: u32,
    pub words_per_chunk: u32,
    pub hist_base: u32,
}

/// Histogram of each `chunk_bytes` chunk of `input`: the CPU twin of huffman/histogram.
pub fn histogram_cpu(input: &[u8], chunk_bytes: usize) -> Vec<[u64; 256]> {
    use rayon::prelude::*;
    input
        .par_chunks(chunk_bytes.max(1))
        .map(|chunk| {
            // Four tables, so that runs of one byte do not serialize on one counter.
            let mut h = [[0u64; 256]; 4];
            let mut quads = chunk.chunks_exact(4);
            for q in &mut quads {
                h[0][q[0] as usize] += 1;
                h[1][q[1] as usize] += 1;
                h[2][q[2] as usize] += 1;
                h[3][q[3] as usize] += 1;
            }
            for &b in quads.remainder() {
                h[0][b as usize] += 1;
            }
            let mut out = [0u64; 256];
            for (s, o) in out.iter_mut().enumerate() {
                *o = h[0][s] + h[1][s] + h[2][s] + h[3][s];
            }
            out
        })
        .collect()
}

/// Sum per-chunk histograms.
pub fn total_histogram(chunks: &[[u64; 256]]) -> [u64; 256] {
    let mut total = [0u64; 256];
    for h in chunks {
        for (t, &c) in total.iter_mut().zip(h.iter()) {
            *t += c;
        }
    }
    total
}

/// Encode the histogram of one input window (`n_bytes` bytes of `input` from its start,
/// padded to 16 bytes; a chunk-aligned start) into `histogram` from chunk `first_chunk`
/// on. `chunk_bytes` is a power of two of at least 512. The histogram words must be
/// zeroed first.
#[allow(clippy::too_many_arguments)]
pub(crate) fn encode_histogram(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    profiler: Option<&mut Profiler>,
    input: &wgpu::Buffer,
    n_bytes: u32,
    chunk_bytes: u32,
    first_chunk: u32,
    histogram: &wgpu::Buffer,
    workgroup_size: u32,
) -> Result<()> {
    if n_bytes == 0 {
        return Ok(());
    }
    let n_words = n_bytes.div_ceil(4);
    let words_per_chunk = chunk_bytes / 4;
    // Enough workgroups to fill a large GPU, few enough for one dispatch; a power of two
    // that divides the chunk, so no workgroup straddles two chunks. Small chunks leave
    // more workgroups than one dispatch holds: then one dispatch per run of chunks.
    let max_groups = gpu.limits.max_compute_workgroups_per_dimension.min(8192);
    let mut words_per_workgroup = (workgroup_size * 16).min(words_per_chunk);
    while n_words.div_ceil(words_per_workgroup) > max_groups
        && words_per_chunk.is_multiple_of(2 * words_per_workgroup)
    {
        words_per_workgroup *= 2;
    }
    let chunks_per_dispatch =
        (max_groups as u64 * words_per_workgroup as u64 / words_per_chunk as u64).max(1);
    let dispatch_words = chunks_per_dispatch * words_per_chunk as u64;
    let built = gpu.pipeline(&HISTOGRAM, "main", &[("WG_SIZE", workgroup_size as f64)])?;
    let mut binds = Vec::new();
    let mut first_word = 0u64;
    while first_word < n_words as u64 {
        let words = dispatch_words.min(n_words as u64 - first_word);
        let bytes = (n_bytes as u64 - first_word * 4).min(words * 4);
        let params = HistogramParams {
            n_bytes: bytes as u32,
            words_per_workgroup,
            words_per_chunk,
            hist_base: (first_chunk + (first_word / words_per_chunk as u64) as u32) * 256,
        };
        let params = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("parvlc.huffman.histogram.params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let bind = gpu.bind(
            &built,
            &[
                (0, params.as_entire_buffer_binding()),
                (
                    1,
                    wgpu::BufferBinding {
                        buffer: input,
                        offset: first_word * 4,
                        size: wgpu::BufferSize::new(bytes.next_multiple_of(16)),
                    },
                ),
                (2, histogram.as_entire_buffer_binding()),
            ],
        );
        binds.push((bind, (words as u32).div_ceil(words_per_workgroup)));
        first_word += words;
    }
    let timestamp_writes = profiler.and_then(|p| p.pass("histogram"));
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(HISTOGRAM.label),
        timestamp_writes,
    });
    pass.set_pipeline(&built.pipeline);
    for (bind, groups) in &binds {
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups(*groups, 1, 1);
    }
    Ok(())
}

/// The per-chunk histogram as a [`GpuStage`]: the input uploaded in `VleEncoder`'s
/// windows and chunks, whose chunk size the CPU twin uses too.
pub struct HistogramStage<'e, 'g>(pub &'e VleEncoder<'g>);

/// Recorded histograms, read back by [`GpuStage::finish`]; no buffer for an empty input.
pub struct HistogramPending {
    pub(crate) counts: Option<PooledBuffer>,
    pub(crate) n_chunks: usize,
}

impl GpuStage for HistogramStage<'_, '_> {
    type Input<'a> = [u8];
    type Uploaded = GpuInput;
    type Pending = HistogramPending;
    type Report = Vec<[u64; 256]>;
    type Output = Vec<[u64; 256]>;

    fn gpu(&self) -> &Gpu {
        GpuStage::gpu(self.0)
    }

    fn label(&self) -> &'static str {
        HISTOGRAM.label
    }

    async fn upload(&self, input: &Self::Input<'_>) -> Result<GpuInput> {
        VleEncoder::upload(self.0, input)
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        uploaded: &GpuInput,
    ) -> Result<HistogramPending> {
        self.0.record_histograms(encoder, uploaded, None)
    }

    async fn finish(
        &self,
        _input: &Self::Input<'_>,
        _uploaded: &GpuInput,
        pending: HistogramPending,
    ) -> Result<Vec<[u64; 256]>> {
        self.0.read_histograms(pending).await
    }

    fn output(report: Vec<[u64; 256]>) -> Vec<[u64; 256]> {
        report
    }

    fn cpu(&self, input: &[u8]) -> Result<Vec<[u64; 256]>> {
        Ok(histogram_cpu(input, self.0.chunk_bytes() as usize))
    }
}
