//! A chunk of a framed stream coded on the GPU: cell histograms (the histogram stage),
//! block CRC32s (the block_crc stage) and, where the config's planner says, the frames
//! with their code lengths (the frame_plan stage) in one submission; codes and headers
//! made on the host; every frame coded with its own table in one framed CUVLE pass at
//! the bit its container layout gives it; then the headers and trailers filled in place
//! on all cores ([`super::chunk::finish_chunk`]). The bytes equal the CPU's
//! ([`super::chunk::encode_chunk_cpu`]).

use super::chunk::{bit_order, finish_chunk, ChunkLayout, CodedChunk};
use super::compress::Format;
use super::cuvle::VleEncoder;
use super::frame_plan::frames_from_plan;
use super::framed::{FrameSpec, Framing};
use super::pipeline::StreamConfig;
use super::CodeTable;
use crate::gpu::{clock, Gpu};
use crate::{Error, Result};

/// Code `data` as one chunk of a framed stream on `gpu`, its frames planned on the GPU or
/// on this thread as `config.planner` says.
pub async fn encode_chunk_gpu(
    gpu: &Gpu,
    data: &[u8],
    format: Format,
    config: &StreamConfig,
) -> Result<CodedChunk> {
    let (frames, cuvle) = (&config.frames, &config.cuvle);
    let plan_on_gpu = config.planner.on_gpu(frames);
    let block = cuvle.block_bytes();
    frames.validate(block)?;
    if data.is_empty() {
        return super::chunk::encode_chunk_cpu(data, format, frames, block);
    }
    let t0 = clock();
    let encoder = VleEncoder::new(gpu, *cuvle)?.with_chunk_bytes(frames.cell_bytes)?;
    let input = encoder.upload(data)?;
    let t_up = clock();
    let len = data.len() as u64;
    let plan_with = plan_on_gpu.then_some((format, frames));
    // Trace level: the GPU's passes timed, on its clock, for a timeline of the chunks
    // (scripts/gpu_timeline.py). The scan's passes: the histogram (one a window; a
    // chunk is one), block_crc, and the frame plan's merge and code lengths.
    let timeline = log::log_enabled!(log::Level::Trace) && gpu.has_timestamps();
    let mut scan_profiler = timeline.then(|| crate::gpu::Profiler::new(gpu, 4));
    let scan = encoder
        .histograms_with_crcs(&input, block, plan_with, scan_profiler.as_mut())
        .await?;
    let (cells, block_crcs, plan) = (scan.histograms, scan.crcs, scan.plan);
    let t1 = clock();
    let mut t_frames = None;
    let layout = if plan_on_gpu {
        let planned = frames_from_plan(&plan, &cells, len, format, frames)?;
        t_frames = clock();
        ChunkLayout::from_frames(planned, format, block)?
    } else {
        ChunkLayout::plan(&cells, len, format, frames, block)?
    };
    let t2 = clock();
    let (gaps, tail_bits) = layout.gaps();
    let to_u32 = |v: u64, what: &str| {
        u32::try_from(v).map_err(|_| Error::TooLarge(format!("{what} of {v}")))
    };
    let tables: Vec<CodeTable> = layout.frames.iter().map(|f| f.table.clone()).collect();
    let specs = layout
        .frames
        .iter()
        .zip(&gaps)
        .enumerate()
        .map(|(k, (f, &gap))| {
            Ok(FrameSpec {
                first_block: to_u32(f.start / block, "first block")?,
                table: k as u32,
                gap_bits: to_u32(gap, "frame gap")?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let framing = Framing {
        tables: &tables,
        frames: &specs,
        order: bit_order(format),
        start_bit: 0,
        tail_bits: to_u32(tail_bits, "tail")?,
    };
    let plan = encoder.plan_framed(&input, &cells, &framing)?;
    let uploaded = encoder.upload_frames(&tables, &plan)?;
    let t_tables = clock();
    let mut command = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("parvlc.huffman.chunk"),
        });
    let mut pending =
        encoder.encode_framed_into(&mut command, &input, &uploaded, &plan, timeline)?;
    encoder.record_readback(&mut command, &mut pending);
    let finished_command = command.finish();
    let t_rec = clock();
    gpu.queue.submit([finished_command]);
    let t_sub = clock();
    let encoded = encoder.finish(pending).await?;
    let t3 = clock();
    let mut out = encoded.stream.bytes;
    if out.len() as u64 != layout.output_bytes() {
        return Err(Error::Gpu {
            stage: crate::gpu::registry::huffman::CUVLE.name,
            message: format!(
                "framed output of {} bytes, the layout needs {}",
                out.len(),
                layout.output_bytes()
            ),
        });
    }
    // Native headers and gzip indexes list each block's start relative to the frame's
    // first symbol.
    let blocks_per_frame: Vec<(usize, usize)> = layout
        .frames
        .iter()
        .map(|f| {
            let first = (f.start / block) as usize;
            (first, f.end().div_ceil(block) as usize)
        })
        .collect();
    let offsets = &encoded.block_offsets;
    let frame_first = &encoded.frame_offsets;
    let gpu_offsets = |i: usize| -> Vec<u64> {
        let (a, b) = blocks_per_frame[i];
        offsets
            .get(a..b)
            .unwrap_or(&[])
            .iter()
            .map(|&o| o - frame_first[i])
            .collect()
    };
    let finished = finish_chunk(
        data,
        &layout,
        format,
        block,
        &mut out,
        Some(&gpu_offsets),
        Some(&block_crcs),
    )?;
    let t4 = clock();
    if timeline {
        log::trace!(
            "chunk of {} bytes on the GPU's clock: scan {} encode {}",
            data.len(),
            timeline_passes(&scan.timings),
            timeline_passes(&encoded.timings),
        );
    }
    if let (Some(t0), Some(tu), Some(t1), Some(t2), Some(tr), Some(ts), Some(t3), Some(t4)) =
        (t0, t_up, t1, t2, t_rec, t_sub, t3, t4)
    {
        let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
        log::debug!(
            "chunk of {} bytes, {} frames: upload {:.1} ms, histograms {:.1} ms, plan {:.1} ms, \
             encode (record, submit) {:.1} ms, readback {:.1} ms, headers+crc {:.1} ms \
             (the submit call {:.2} ms; the GPU's plan read {:.2} ms, the frames' layout {:.2} ms, \
             the encode's plan and tables {:.2} ms)",
            data.len(),
            layout.frames.len(),
            ms(t0, tu),
            ms(tu, t1),
            ms(t1, t2),
            ms(t2, ts),
            ms(ts, t3),
            ms(t3, t4),
            ms(tr, ts),
            t_frames.map_or(0.0, |t| ms(t1, t)),
            t_frames.map_or(0.0, |t| ms(t, t2)),
            t_tables.map_or(0.0, |t| ms(t2, t)),
        );
    }
    Ok(CodedChunk::new(
        out,
        &layout,
        finished,
        data.len() as u64,
        block,
    ))
}

/// A submission's passes for the trace log: its begin and end on the GPU's clock (us),
/// then each pass's label and time (us).
fn timeline_passes(t: &crate::gpu::Timings) -> String {
    let passes: Vec<String> = t
        .passes
        .iter()
        .map(|(label, secs)| format!("{label}={:.1}", secs * 1e6))
        .collect();
    format!(
        "[{:.1}..{:.1}] {}",
        t.begin * 1e6,
        t.end * 1e6,
        passes.join(",")
    )
}
