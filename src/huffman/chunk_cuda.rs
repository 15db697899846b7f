//! A chunk of a framed stream coded on a CUDA device: the chunk's cell histograms and its
//! frames planned on this coder's core (the CPU engine's plan: [`ChunkLayout::plan`]),
//! every frame coded with its own table in one framed pass of the CUDA kernel
//! (shaders/cuda/vle_cuvle.cu, `FLAG_FRAMED`) at the bit its container layout gives it,
//! then the headers, trailers and checksums filled in on the cores
//! ([`super::chunk::chunk_from_encoded`]). The bytes equal the CPU's and the wgpu coder's.

use super::chunk::{chunk_from_encoded, encode_chunk_cpu, ChunkLayout, CodedChunk};
use super::compress::Format;
use super::histogram::histogram_cpu;
use super::pipeline::StreamConfig;
use crate::cuda::{CudaConfig, CudaGpu, CudaVleEncoder};
use crate::Result;

/// Code `data` as one chunk of a framed stream on `cuda`, its kernel tuned as `tuning`.
pub(crate) fn encode_chunk_cuda(
    cuda: &CudaGpu,
    tuning: &CudaConfig,
    data: &[u8],
    format: Format,
    config: &StreamConfig,
) -> Result<CodedChunk> {
    let (frames, cuvle) = (&config.frames, &config.cuvle);
    let block = cuvle.block_bytes();
    frames.validate(block)?;
    if data.is_empty() {
        return encode_chunk_cpu(data, format, frames, block);
    }
    let len = data.len() as u64;
    let cells = histogram_cpu(data, frames.cell_bytes as usize);
    let layout = ChunkLayout::plan(&cells, len, format, frames, block)?;
    let coded = layout.gpu_frames(block)?;
    // A stream of the chunk's own: the coders' copies and kernels side by side, each
    // coder waiting for its own chunk only.
    let encoder = CudaVleEncoder::with_tuning(cuda, *cuvle, *tuning)?
        .with_chunk_bytes(frames.cell_bytes)?
        .with_stream(cuda.new_stream()?);
    let input = encoder.upload(data)?;
    let plan = encoder.plan_framed(&input, &cells, &coded.framing(format))?;
    let tables = encoder.upload_frames(&coded.tables, &plan)?;
    let pending = encoder.encode_framed(&input, &tables, &plan, false)?;
    let mut encoded = encoder.finish(pending)?;
    chunk_from_encoded(data, &layout, format, block, &mut encoded, None)
}
