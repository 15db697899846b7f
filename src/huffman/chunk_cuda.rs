//! A chunk of a framed stream coded on a CUDA device: the chunk copied up through pinned
//! pieces, its cell histograms and, where the config's planner says (as for the wgpu
//! coder), its frames, their code lengths and gzip headers planned on the device
//! (shaders/cuda/vle_histogram.cu, frame_plan.cu, deflate_head.cu: the wgpu stages'
//! twins, read by their readers), else on this coder's core (the CPU engine's plan:
//! [`ChunkLayout::plan`]); each frame's table built beside its plan (on this core where it
//! was planned here, or its code is too deep), every frame coded with
//! its own table in one framed pass of the CUDA kernel (shaders/cuda/vle_cuvle.cu,
//! `FLAG_FRAMED`) at the bit its container layout gives it, read back through pinned
//! pieces, then the headers and trailers filled in on the cores, each frame's CRC32
//! folded from its blocks' (shaders/cuda/block_crc.cu, the wgpu `block_crc` stage's twin;
//! [`super::chunk::chunk_from_encoded`]). Coded into a vector, a chunk is read back
//! straight into its place there where that is known in time (`super::chunk_placed`). The bytes equal the CPU's and the wgpu coder's.

use super::chunk::{chunk_from_encoded, encode_chunk_cpu, ChunkLayout, CodedChunk};
use super::chunk_placed::Placing;
use super::compress::Format;
use super::frame_plan::frames_from_plan;
use super::frame_tables::TABLE_WORDS;
use super::pipeline::{Places, StreamConfig};
use crate::cuda::{CudaConfig, CudaGpu, CudaVleEncoder};
use crate::gpu::clock;
use crate::Result;

/// Code `data` as one chunk of a framed stream on `cuda`, its kernel tuned as `tuning`;
/// with `at` (a vector's places and the chunk's number), read back into its place there
/// where it can be ([`CodedChunk::written_at`]).
pub(crate) fn encode_chunk_cuda(
    cuda: &CudaGpu,
    tuning: &CudaConfig,
    data: &[u8],
    format: Format,
    config: &StreamConfig,
    at: Option<(&Places, u64)>,
) -> Result<CodedChunk> {
    let (frames, cuvle) = (&config.frames, &config.cuvle);
    let block = cuvle.block_bytes();
    frames.validate(block)?;
    if data.is_empty() {
        return encode_chunk_cpu(data, format, frames, block);
    }
    let len = data.len() as u64;
    let t0 = clock();
    // A stream of the chunk's own: the coders' copies and kernels side by side, each
    // coder waiting for its own chunk only.
    let encoder = CudaVleEncoder::with_tuning(cuda, *cuvle, *tuning)?
        .with_chunk_bytes(frames.cell_bytes)?
        .with_stream(cuda.new_stream()?);
    let input = encoder.upload(data)?;
    // Every block's CRC32, read back with the plan: a frame's checksum is its blocks'
    // folded together, no core's pass over the chunk.
    let crcs = encoder.launch_block_crcs(&input, block)?;
    let t_up = clock();
    // The cells' histograms, then the frames planned on the device (read back as
    // lengths) or on this core, as the config's planner says.
    let on_device = config.planner.on_gpu(frames);
    let (cells, t1, layout, built) = if on_device {
        let planned = encoder.frame_plan(&input, format, frames, crcs.as_ref())?;
        let t1 = clock();
        let read = frames_from_plan(
            &planned.words,
            &planned.heads,
            &planned.cells,
            len,
            format,
            frames,
        )?;
        let layout = ChunkLayout::from_frames(read.frames, read.heads, format, block)?;
        (
            planned.cells,
            t1,
            layout,
            Some((planned.tables, read.slots, planned.block_crcs)),
        )
    } else {
        let (cells, _) = encoder.histograms(&input)?;
        let t1 = clock();
        let layout = ChunkLayout::plan(&cells, len, format, frames, block)?;
        (cells, t1, layout, None)
    };
    let (plan, tables, block_crcs) = match built {
        // The frames' tables built where they were planned: only the block map goes up,
        // and the tables of the frames coded here. The block CRC32s came with the plan.
        Some((tables, slots, block_crcs)) => {
            let n_slots = tables.len() / TABLE_WORDS;
            let slotted = layout.slotted_frames(block, frames.cell_bytes, &slots, n_slots)?;
            let plan = encoder.plan_coded(&input, &cells, &slotted.framing(format))?;
            let tables = encoder.upload_slotted_frames(tables, &slotted.host_tables, &plan)?;
            (plan, tables, block_crcs)
        }
        None => {
            let coded = layout.gpu_frames(block)?;
            let plan = encoder.plan_framed(&input, &cells, &coded.framing(format))?;
            let tables = encoder.upload_frames(&coded.tables, &plan)?;
            let block_crcs = match &crcs {
                Some(crcs) => encoder.read_block_crcs(crcs)?,
                None => Vec::new(),
            };
            (plan, tables, block_crcs)
        }
    };
    let t2 = clock();
    let pending = encoder.encode_framed(&input, &tables, &plan, false)?;
    // Into a vector: the chunk's length published while the device codes it (the
    // layout's), so that its place may be known when its bytes are.
    let placing = match at {
        Some((places, seq)) => Placing::publish(places, seq, data, &layout, format, block)?,
        None => None,
    };
    // Where the readback's copy falls: with the encode, or after it, into the place.
    let (encode_part, finish_part) = match placing {
        Some(_) => ("encode", "readback and headers"),
        None => ("encode and readback", "headers+crc"),
    };
    let (chunk, t3) = match placing {
        Some(placing) => {
            let encoded = encoder.finish_scan(&pending)?;
            let t3 = clock();
            let n = encoded.stream.bits.div_ceil(8) as usize;
            let chunk = placing.finish(
                &encoded,
                n,
                &block_crcs,
                // Read back straight into its place.
                |direct, at| {
                    encoder.download(&pending, direct.unwritten(at, n)?)?;
                    // SAFETY: the download wrote every byte of the range.
                    unsafe { direct.assume_written(at, n) }
                },
                || encoder.download_vec(&pending),
            )?;
            (chunk, t3)
        }
        None => {
            let mut encoded = encoder.finish(pending)?;
            let t3 = clock();
            let chunk = chunk_from_encoded(
                data,
                &layout,
                format,
                block,
                &mut encoded,
                Some(&block_crcs),
            )?;
            (chunk, t3)
        }
    };
    if let (Some(t0), Some(t_up), Some(t1), Some(t2), Some(t3), Some(t4)) =
        (t0, t_up, t1, t2, t3, clock())
    {
        let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
        let (device, host) = match on_device {
            true => ("histograms and plan", "codes and tables"),
            false => ("histograms", "plan and tables"),
        };
        log::debug!(
            "chunk of {} bytes, {} frames on CUDA: upload {:.1} ms, {device} {:.1} ms, \
             {host} {:.1} ms, {encode_part} {:.1} ms, {finish_part} {:.1} ms",
            data.len(),
            layout.frames.len(),
            ms(t0, t_up),
            ms(t_up, t1),
            ms(t1, t2),
            ms(t2, t3),
            ms(t3, t4),
        );
    }
    Ok(chunk)
}
