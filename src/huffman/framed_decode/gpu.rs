//! A batch of native v2 frames on a GPU, wgpu's or CUDA's ([`crate::huffman::vld`]):
//! runs of frames that fit one dispatch, each frame's padding checked on the CPU cores and
//! its checksum against the one the GPU took.

use std::ops::Range;

use rayon::prelude::*;

use super::{decode_batch, DecodeGpu, Decoded, Frame, Part};
use crate::huffman::vld::{VldDecoder, VldFrame, VldOutput};
use crate::huffman::Codebook;
use crate::Result;

/// The VLD decoder of a [`DecodeGpu`]: the two take the same plan and give the same
/// output, each within its own device's limits.
pub(crate) enum Decoder<'g> {
    Wgpu(VldDecoder<'g>),
    #[cfg(feature = "cuda")]
    Cuda(crate::cuda::CudaVldDecoder<'g>),
}

/// Frames of a batch that decode in one dispatch, or (one frame too large for a
/// dispatch, or of blocks too long for one GPU thread each) on the CPU.
pub(crate) enum Run {
    Gpu(Range<usize>),
    Cpu(Range<usize>),
}

impl<'g> Decoder<'g> {
    pub(crate) fn of(gpu: DecodeGpu<'g>) -> Self {
        match gpu {
            DecodeGpu::Wgpu(g) => Decoder::Wgpu(VldDecoder::new(g)),
            #[cfg(feature = "cuda")]
            DecodeGpu::Cuda(c) => Decoder::Cuda(crate::cuda::CudaVldDecoder::new(c)),
        }
    }

    fn takes_blocks_of(&self, block_symbols: u64) -> bool {
        match self {
            Decoder::Wgpu(d) => d.takes_blocks_of(block_symbols),
            #[cfg(feature = "cuda")]
            Decoder::Cuda(d) => d.takes_blocks_of(block_symbols),
        }
    }

    fn fits(&self, frames: u64, blocks: u64, payload_bytes: u64, out_bytes: u64) -> bool {
        match self {
            Decoder::Wgpu(d) => d.fits(frames, blocks, payload_bytes, out_bytes),
            #[cfg(feature = "cuda")]
            Decoder::Cuda(d) => d.fits(frames, blocks, payload_bytes, out_bytes),
        }
    }

    pub(crate) async fn decode(&self, frames: &[VldFrame<'_>]) -> Result<VldOutput> {
        match self {
            Decoder::Wgpu(d) => Ok(d.decode(frames).await?.output),
            #[cfg(feature = "cuda")]
            Decoder::Cuda(d) => d.decode(frames),
        }
    }

    /// `frames` cut into runs that fit one dispatch each, in order.
    pub(crate) fn runs(&self, frames: &[VldFrame<'_>]) -> Vec<Run> {
        let mut runs = Vec::new();
        let mut start = 0;
        while start < frames.len() {
            let mut end = start;
            let (mut blocks, mut payload, mut out) = (0u64, 0u64, 0u64);
            while end < frames.len() {
                let f = &frames[end];
                if !self.takes_blocks_of(f.block_symbols) {
                    break;
                }
                let (b, p, o) = (
                    f.offsets.len() as u64,
                    payload + f.payload_bits.div_ceil(32) * 4,
                    out + f.len.next_multiple_of(4),
                );
                if !self.fits((end - start + 1) as u64, blocks + b, p, o) {
                    break;
                }
                (blocks, payload, out) = (blocks + b, p, o);
                end += 1;
            }
            if end == start {
                runs.push(Run::Cpu(start..start + 1));
                end = start + 1;
            } else {
                runs.push(Run::Gpu(start..end));
            }
            start = end;
        }
        runs
    }
}

/// A batch on the GPU, in runs that fit one dispatch; a frame too large for one alone, or
/// of blocks too long for one GPU thread each, decodes on the CPU.
pub(super) async fn decode_batch_gpu(gpu: DecodeGpu<'_>, frames: &[Frame]) -> Result<Decoded> {
    let dec = Decoder::of(gpu);
    let views: Vec<VldFrame<'_>> = frames.iter().map(Frame::view).collect();
    let mut parts = Vec::new();
    for run in dec.runs(&views) {
        match run {
            Run::Cpu(r) => parts.extend(decode_batch(&frames[r], Vec::new())?),
            Run::Gpu(r) => parts.push(decode_run_gpu(&dec, &frames[r.clone()], &views[r]).await?),
        }
    }
    Ok(parts)
}

/// Frames decoded in one dispatch, then checked: every block's end (on the GPU), the
/// padding (on the CPU cores) and each frame's CRC32 (folded from the blocks' that the
/// decoder takes on the GPU).
async fn decode_run_gpu(
    dec: &Decoder<'_>,
    frames: &[Frame],
    views: &[VldFrame<'_>],
) -> Result<Part> {
    // No clock on the web (`clock` is None there).
    let t0 = crate::gpu::clock();
    frames.par_iter().try_for_each(|f| {
        Codebook::from_lengths(&f.lengths)
            .map_err(|e| f.corrupt(format!("bad code lengths: {e}")))?;
        f.check_padding()
    })?;
    let t1 = crate::gpu::clock();
    let out = dec.decode(views).await?;
    let t2 = crate::gpu::clock();
    if let Some(e) = out.errors.first() {
        return Err(frames[e.frame].corrupt(format!("block {} {}", e.block, e.fault)));
    }
    let crcs = match &out.frame_crcs {
        // Taken on the GPU.
        Some(crcs) => frames
            .iter()
            .zip(crcs)
            .map(|(f, &crc)| f.check_crc_of(crc32fast::Hasher::new_with_initial_len(crc, f.len)))
            .collect::<Result<Vec<_>>>()?,
        None => frames
            .par_iter()
            .zip(out.frames.par_iter())
            .map(|(f, range)| f.check_crc(&out.bytes[range.clone()]))
            .collect::<Result<Vec<_>>>()?,
    };
    if let (Some(t0), Some(t1), Some(t2), Some(t3)) = (t0, t1, t2, crate::gpu::clock()) {
        let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
        log::debug!(
            "vld run of {} frames, {} bytes: codes checked {:.1} ms, GPU round trip {:.1} ms, \
             CRCs {:.1} ms",
            frames.len(),
            out.bytes.len(),
            ms(t0, t1),
            ms(t1, t2),
            ms(t2, t3)
        );
    }
    Ok(Part {
        frames: out.frames.iter().cloned().zip(crcs).collect(),
        bytes: out.bytes,
    })
}
