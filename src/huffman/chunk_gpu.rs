//! A chunk of a framed stream coded on the GPU: cell histograms (the histogram stage),
//! block CRC32s (the block_crc stage) and, where the config's planner says, the frames
//! with their code lengths, (gzip) DEFLATE headers and code tables (the frame_plan,
//! deflate_head and frame_tables stages) in one submission, the tables left on the GPU;
//! the layout made on the host; every frame coded with its own table in one framed CUVLE pass at
//! the bit its container layout gives it; then the headers and trailers filled in place
//! on all cores (`super::chunk::finish_chunk`). The bytes equal the CPU's
//! ([`super::chunk::encode_chunk_cpu`]). Coded into a vector, a chunk whose encode is
//! written in place is copied from the mapped output straight into its place there, its
//! headers filled there (`super::pipeline::Places`).

use super::chunk::{chunk_from_encoded, ChunkLayout, CodedChunk};
use super::chunk_placed::Placing;
use super::compress::Format;
use super::cuvle::{Encoded, MappedStream, VleEncoder};
use super::frame_plan::frames_from_plan;
use super::pipeline::{Places, StreamConfig};
use crate::gpu::{clock, Gpu};
use crate::Result;

/// Code `data` as one chunk of a framed stream on `gpu`, its frames planned on the GPU or
/// on this thread as `config.planner` says; with `at` (a vector's places and the chunk's
/// number), written into its place there where it can be ([`CodedChunk::written_at`]).
pub(crate) async fn encode_chunk_gpu(
    gpu: &Gpu,
    data: &[u8],
    format: Format,
    config: &StreamConfig,
    at: Option<(&Places, u64)>,
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
    // chunk is one), block_crc, the frame plan's merge and code lengths, (gzip) its
    // frames' headers, and their tables.
    let timeline = log::log_enabled!(log::Level::Trace) && gpu.has_timestamps();
    let mut scan_profiler = timeline.then(|| crate::gpu::Profiler::new(gpu, 6));
    let scan = encoder
        .histograms_with_crcs(&input, block, plan_with, scan_profiler.as_mut())
        .await?;
    let (cells, block_crcs, plan, heads) = (scan.histograms, scan.crcs, scan.plan, scan.heads);
    let t1 = clock();
    let mut t_frames = None;
    let (layout, slots) = if plan_on_gpu {
        let read = frames_from_plan(&plan, &heads, &cells, len, format, frames)?;
        t_frames = clock();
        let layout = ChunkLayout::from_frames(read.frames, read.heads, format, block)?;
        (layout, read.slots)
    } else {
        (
            ChunkLayout::plan(&cells, len, format, frames, block)?,
            Vec::new(),
        )
    };
    let t2 = clock();
    let (plan, uploaded) = match scan.tables {
        // The frames' tables built where the GPU planned them: only the block map goes
        // up, and the tables of the frames coded here.
        Some((tables, n_slots)) if plan_on_gpu => {
            let slotted = layout.slotted_frames(block, frames.cell_bytes, &slots, n_slots)?;
            let plan = encoder.plan_coded(&input, &cells, &slotted.framing(format))?;
            let uploaded =
                encoder.upload_slotted_frames(tables, n_slots, &slotted.host_tables, &plan)?;
            (plan, uploaded)
        }
        _ => {
            let frames_of = layout.gpu_frames(block)?;
            let (tables, framing) = (&frames_of.tables, frames_of.framing(format));
            let plan = encoder.plan_framed(&input, &cells, &framing)?;
            let uploaded = encoder.upload_frames(tables, &plan)?;
            (plan, uploaded)
        }
    };
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
    // Into a vector, with the output written in place: the chunk's length published
    // while the GPU codes it (the layout's), so that its place may be known when its
    // bytes are.
    let placing = match at {
        Some((places, seq)) if pending.written_in_place() => {
            Placing::publish(places, seq, data, &layout, format, block)?
        }
        _ => None,
    };
    let (chunk, timings, t3) = match placing {
        Some(placing) => {
            let placed = |encoded: Encoded, stream: &MappedStream<'_>| {
                let t3 = clock();
                let chunk = placing.finish(
                    &encoded,
                    stream.len(),
                    &block_crcs,
                    |direct, at| {
                        let coded = direct.fill(at, stream.as_written()?)?;
                        stream.place_ends(coded)?;
                        Ok(coded)
                    },
                    || stream.to_vec(gpu),
                )?;
                Ok((chunk, encoded.timings.clone(), t3))
            };
            encoder.finish_placed(pending, placed).await?
        }
        None => {
            let mut encoded = encoder.finish(pending).await?;
            let t3 = clock();
            let chunk = chunk_from_encoded(
                data,
                &layout,
                format,
                block,
                &mut encoded,
                Some(&block_crcs),
            )?;
            (chunk, encoded.timings.clone(), t3)
        }
    };
    let t4 = clock();
    if timeline {
        log::trace!(
            "chunk of {} bytes on the GPU's clock: scan {} encode {}",
            data.len(),
            timeline_passes(&scan.timings),
            timeline_passes(&timings),
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
    Ok(chunk)
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
