//! The frame plan of a stream's chunks on the GPU (the frame_plan stage): its two passes'
//! GPU time, and the wall of the histograms with the plan against the histograms alone
//! and against the CPU twin: median milliseconds a chunk, each chunk's GPU plan checked
//! against the twin first.
//!
//!     cargo run --release --example frame_plan_bench [FILE]
//!
//! Without a file: 64 MiB of synthetic data of mixed entropies. `CHUNK_MIB` (4) is the
//! chunk, `ROUNDS` (5) the timed passes over the chunks (after a second of warm-up),
//! `FORMAT` gzip or native.

use std::time::Instant;

use parvlc::gpu::{Gpu, GpuStage};
use parvlc::huffman::compress::Format;
use parvlc::huffman::cuvle::VleEncoder;
use parvlc::huffman::frame_plan::FramePlanStage;
use parvlc::huffman::histogram::HistogramStage;
use parvlc::huffman::pipeline::StreamConfig;
use parvlc::testdata::generate;
use parvlc::{Backend, Engine};

#[path = "support/mod.rs"]
mod support;
use support::{env_or, median};

/// Milliseconds of `stage` on the uploaded `input`: recorded, submitted, read back.
fn time_stage<S: GpuStage>(stage: &S, input: &S::Input<'_>, uploaded: &S::Uploaded) -> f64 {
    let t = Instant::now();
    let mut encoder = stage
        .gpu()
        .device
        .create_command_encoder(&Default::default());
    let pending = stage.encode_into(&mut encoder, uploaded).expect("record");
    stage.gpu().queue.submit([encoder.finish()]);
    pollster::block_on(stage.finish(input, uploaded, pending)).expect("finish");
    t.elapsed().as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = match std::env::args().nth(1) {
        Some(path) => std::fs::read(path)?,
        None => (0..64u64)
            .flat_map(|k| generate(1 << 20, 1.0 + (k % 7) as f64, k))
            .collect(),
    };
    let format = match std::env::var("FORMAT").as_deref() {
        Ok("gzip") => Format::Gzip,
        _ => Format::Native,
    };
    let chunk = env_or("CHUNK_MIB", 4usize) << 20;
    let rounds = env_or("ROUNDS", 5usize).max(1);
    let Engine::Wgpu(gpu) = pollster::block_on(Engine::open(Backend::Wgpu))? else {
        return Err("no GPU".into());
    };
    let gpu: &Gpu = &gpu;
    let config = StreamConfig::for_format(format);
    let encoder = VleEncoder::new(gpu, config.cuvle)?.with_chunk_bytes(config.frames.cell_bytes)?;
    let plan = FramePlanStage(&encoder, format, config.frames);
    let hist = HistogramStage(&encoder);
    let chunks: Vec<&[u8]> = data.chunks(chunk).collect();
    let uploaded = chunks
        .iter()
        .map(|c| pollster::block_on(plan.upload(c)))
        .collect::<parvlc::Result<Vec<_>>>()?;
    for (i, c) in chunks.iter().enumerate() {
        if pollster::block_on(plan.encode(c))? != plan.cpu(c)? {
            return Err(format!("chunk {i}: the GPU's plan differs from the twin's").into());
        }
    }
    // The GPU's memory path is slow until kept busy (docs/results.md, "Seventh pass"):
    // a second of the same work first.
    let warm = Instant::now();
    while warm.elapsed().as_secs_f64() < 1.0 {
        for up in &uploaded {
            pollster::block_on(plan.kernel_seconds(up))?;
        }
    }
    let (mut t_plan, mut t_hist, mut t_cpu) = (Vec::new(), Vec::new(), Vec::new());
    let (mut t_merge, mut t_lengths) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        for (c, up) in chunks.iter().zip(&uploaded) {
            let (merge, lengths) = pollster::block_on(plan.kernel_seconds(up))?;
            t_merge.push(merge * 1e3);
            t_lengths.push(lengths * 1e3);
            t_hist.push(time_stage(&hist, c, up));
            t_plan.push(time_stage(&plan, c, up));
            let t = Instant::now();
            plan.cpu(c)?;
            t_cpu.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    println!(
        "{} chunks of {} MiB, {format:?}, on {}: GPU time merge {:.3} ms, code lengths {:.3} ms; wall histograms {:.3} ms, histograms and plan {:.3} ms, CPU twin (histograms and plan, all cores) {:.3} ms",
        chunks.len(),
        chunk >> 20,
        gpu.adapter_name(),
        median(t_merge),
        median(t_lengths),
        median(t_hist),
        median(t_plan),
        median(t_cpu),
    );
    Ok(())
}
