//! A batch of native v2 frames on a wgpu GPU ([`crate::huffman::vld`]): runs of frames
//! that fit one dispatch, then each frame's padding and checksum on the CPU cores.

use rayon::prelude::*;

use super::{Decoded, Frame, Part};
use crate::huffman::Codebook;
use crate::Result;

/// A batch on the GPU, in runs that fit one dispatch; a frame too large for one alone, or
/// of blocks too long for one GPU thread each, decodes on the CPU.
pub(super) fn decode_batch_gpu(gpu: &crate::gpu::Gpu, frames: &[Frame]) -> Result<Decoded> {
    let dec = crate::huffman::vld::VldDecoder::new(gpu);
    let mut parts = Vec::new();
    let mut start = 0;
    while start < frames.len() {
        let mut end = start;
        let (mut blocks, mut payload, mut out) = (0u64, 0u64, 0u64);
        while end < frames.len() {
            let f = &frames[end];
            if !dec.takes_blocks_of(f.block_symbols) {
                break;
            }
            let (b, p, o) = (
                f.offsets.len() as u64,
                payload + f.payload_bits.div_ceil(32) * 4,
                out + f.len.next_multiple_of(4),
            );
            if !dec.fits((end - start + 1) as u64, blocks + b, p, o) {
                break;
            }
            (blocks, payload, out) = (blocks + b, p, o);
            end += 1;
        }
        if end == start {
            let (bytes, crc) = frames[start].decode()?;
            parts.push(Part {
                frames: vec![(0..bytes.len(), crc)],
                bytes,
            });
            end = start + 1;
        } else {
            parts.push(decode_run_gpu(&dec, &frames[start..end])?);
        }
        start = end;
    }
    Ok(parts)
}

/// Frames decoded in one dispatch, then checked: every block's end (on the GPU), the
/// padding and each frame's CRC32 (on the CPU cores, for now).
fn decode_run_gpu(dec: &crate::huffman::vld::VldDecoder<'_>, frames: &[Frame]) -> Result<Part> {
    let t0 = std::time::Instant::now();
    for f in frames {
        Codebook::from_lengths(&f.lengths)
            .map_err(|e| f.corrupt(format!("bad code lengths: {e}")))?;
        f.check_padding()?;
    }
    let views: Vec<crate::huffman::vld::VldFrame<'_>> = frames.iter().map(Frame::view).collect();
    let t1 = std::time::Instant::now();
    let out = pollster::block_on(dec.decode(&views))?.output;
    let t2 = std::time::Instant::now();
    if let Some(e) = out.errors.first() {
        return Err(frames[e.frame].corrupt(format!("block {} {}", e.block, e.fault)));
    }
    let crcs = frames
        .par_iter()
        .zip(out.frames.par_iter())
        .map(|(f, range)| f.check_crc(&out.bytes[range.clone()]))
        .collect::<Result<Vec<_>>>()?;
    let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
    log::debug!(
        "vld run of {} frames, {} bytes: codes checked {:.1} ms, GPU round trip {:.1} ms, \
         CRCs {:.1} ms",
        frames.len(),
        out.bytes.len(),
        ms(t0, t1),
        ms(t1, t2),
        ms(t2, std::time::Instant::now())
    );
    Ok(Part {
        frames: out.frames.iter().cloned().zip(crcs).collect(),
        bytes: out.bytes,
    })
}
