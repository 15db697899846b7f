//! `parvlc bench bitstuff`: GB/s of raw input for the vote, fsm and solo stages (GPU time from
//! timestamp queries, and wall time) and the serial reference on one core and on all
//! cores, on typical raw SPP/MRP bits (random) and adversarial inputs, in code-block
//! sized segments; the vote's iteration counts; JSON Lines and a table. Every GPU result
//! is checked against the serial reference before it is timed.

use std::time::Instant;

use super::gpu::{finish, BitstuffConfig, GpuBatch, Stuffer};
use super::{stuff_batch, stuff_batch_par, RawBits, Termination};
use crate::gpu::{Gpu, Timings};
use crate::testdata::SplitMix64;
use crate::{Error, Result};

/// What `parvlc bench bitstuff` runs.
#[derive(Clone, Debug)]
pub struct BitstuffBenchOptions {
    /// Raw bytes per input (all segments together).
    pub size: u64,
    /// Segment lengths in bytes, uniform in this range.
    pub segment_bytes: (u64, u64),
    /// Inputs: random, all-ff, alternating, cascade.
    pub inputs: Vec<String>,
    /// GPU variants: vote, fsm, solo.
    pub variants: Vec<String>,
    /// Serial CPU rows (one core, all cores) up to this input size.
    pub cpu_max_bytes: u64,
    pub runs: usize,
    /// Seconds each GPU row runs untimed, back to back, before its timed runs: the GPU's
    /// memory path speeds up only after a fraction of a second of steady work
    /// (docs/results.md, "Seventh pass"), as in a pipeline that keeps it busy.
    pub warm_up_secs: f64,
    pub config: BitstuffConfig,
    pub term: Termination,
}

/// One measurement (one JSON line).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BitstuffRecord {
    pub module: String,
    /// vote, fsm, solo, cpu-1-core, cpu-all-cores.
    pub variant: String,
    /// stuff: the stage alone, segments resident on the GPU (the CPU rows: stuff_batch);
    /// end-to-end: host to host, upload and readback included.
    pub scope: String,
    pub input: String,
    /// Raw input bytes (all segments).
    pub bytes: u64,
    pub segments: u64,
    pub segment_bytes_min: u64,
    pub segment_bytes_max: u64,
    /// Stuffed output bytes.
    pub stuffed_bytes: u64,
    /// GPU time by timestamp queries, best of the runs; None on the CPU or without them.
    pub seconds_gpu: Option<f64>,
    /// Wall time, best of the runs.
    pub seconds_wall: f64,
    pub gbps_gpu: Option<f64>,
    pub gbps_wall: f64,
    /// vote: the most iterations a segment took, and the mean.
    pub vote_iterations_max: Option<u32>,
    pub vote_iterations_mean: Option<f64>,
    /// Against cpu-1-core's wall time (GPU time where there is one).
    pub speedup_vs_cpu_serial: Option<f64>,
    pub adapter: String,
    pub workgroup_size: u32,
}

const INPUTS: [&str; 4] = ["random", "all-ff", "alternating", "cascade"];

/// The raw bytes of an input: random bits (what raw SPP/MRP bits look like), all 0xFF,
/// 0xFF every other byte, or the cascade (each inserted zero makes the next 0xFF).
pub fn bench_input(name: &str, size: u64, seed: u64) -> Result<Vec<u8>> {
    let mut data = vec![0u8; size as usize];
    match name {
        "random" => SplitMix64(seed).fill(&mut data),
        "all-ff" => data.fill(0xFF),
        "alternating" => data.iter_mut().step_by(2).for_each(|b| *b = 0xFF),
        "cascade" => {
            // 11111111 0111111, repeated: stuffs to FF 3F FF 3F ...
            for i in 0..size * 8 {
                if i % 15 != 8 {
                    data[(i / 8) as usize] |= 0x80 >> (i % 8);
                }
            }
        }
        _ => {
            return Err(Error::InvalidArgument(format!(
                "unknown bitstuff bench input `{name}` ({})",
                INPUTS.join(", ")
            )))
        }
    }
    Ok(data)
}

/// Cut `data` into segments of lengths uniform in `range` bytes (the last one shorter),
/// every 8th one a few bits short of whole bytes.
pub fn bench_segments(data: &[u8], range: (u64, u64), seed: u64) -> Vec<RawBits<'_>> {
    let mut rng = SplitMix64(seed);
    let (lo, hi) = (range.0.max(1), range.1.max(range.0.max(1)));
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < data.len() {
        let n = ((lo + rng.below(hi - lo + 1)) as usize).min(data.len() - at);
        let short = if out.len() % 8 == 7 {
            rng.below(8).min(n as u64 * 8 - 1)
        } else {
            0
        };
        out.push(RawBits {
            data: &data[at..at + n],
            bits: n as u64 * 8 - short,
        });
        at += n;
    }
    out
}

/// Best of `runs` after one warm-up run (pipelines, the pool, clocks).
fn best_of(
    runs: usize,
    f: impl FnMut() -> Result<(f64, Option<f64>)>,
) -> Result<(f64, Option<f64>)> {
    crate::bench::best_after_warm_up(runs, 0.0, f)
}

/// Run the suite; `sink` gets each input's records as they are measured.
pub fn run_bitstuff(
    gpu: Option<&Gpu>,
    options: &BitstuffBenchOptions,
    sink: &mut dyn FnMut(&[BitstuffRecord]),
) -> Result<Vec<BitstuffRecord>> {
    options.config.validate()?;
    let mut all = Vec::new();
    let adapter = gpu.map_or("CPU".to_string(), |g| g.adapter_name());
    for (k, input) in options.inputs.iter().enumerate() {
        let data = bench_input(input, options.size, 0xB175 + k as u64)?;
        let segments = bench_segments(&data, options.segment_bytes, 0x5E6 + k as u64);
        let record =
            |variant: &str, scope: &str, wall: f64, gpu_s: Option<f64>, out: u64| BitstuffRecord {
                module: "bitstuff".into(),
                variant: variant.into(),
                scope: scope.into(),
                input: input.clone(),
                bytes: options.size,
                segments: segments.len() as u64,
                segment_bytes_min: options.segment_bytes.0,
                segment_bytes_max: options.segment_bytes.1,
                stuffed_bytes: out,
                seconds_gpu: gpu_s,
                seconds_wall: wall,
                gbps_gpu: gpu_s.map(|s| options.size as f64 / s / 1e9),
                gbps_wall: options.size as f64 / wall / 1e9,
                vote_iterations_max: None,
                vote_iterations_mean: None,
                speedup_vs_cpu_serial: None,
                adapter: adapter.clone(),
                workgroup_size: options.config.workgroup_size,
            };
        let mut records = Vec::new();
        // The reference (also the check of every GPU result).
        let t = Instant::now();
        let want = stuff_batch_par(&segments, options.term)?;
        let par_once = t.elapsed().as_secs_f64();
        let out_bytes = want.bytes.len() as u64;
        if options.size <= options.cpu_max_bytes {
            let (wall, _) = best_of(options.runs.min(3), || {
                let t = Instant::now();
                std::hint::black_box(stuff_batch(&segments, options.term)?);
                Ok((t.elapsed().as_secs_f64(), None))
            })?;
            records.push(record("cpu-1-core", "stuff", wall, None, out_bytes));
            let (wall, _) = best_of(options.runs.min(3), || {
                let t = Instant::now();
                std::hint::black_box(stuff_batch_par(&segments, options.term)?);
                Ok((t.elapsed().as_secs_f64(), None))
            })?;
            records.push(record(
                "cpu-all-cores",
                "stuff",
                wall.min(par_once),
                None,
                out_bytes,
            ));
        }
        if let Some(gpu) = gpu {
            let batch = GpuBatch::upload(gpu, &segments, options.term, &options.config)?;
            for variant in &options.variants {
                let stuffer = Stuffer::from_name(variant)?;
                // Check once, and read the vote's iterations.
                let mut encoder = gpu.device.create_command_encoder(&Default::default());
                let pending = stuffer.encode(gpu, &mut encoder, &batch, &options.config, true)?;
                gpu.queue.submit([encoder.finish()]);
                let got = pollster::block_on(finish(gpu, &batch, pending))?;
                if got.stuffed != want {
                    return Err(Error::BenchMismatch(format!(
                        "bitstuff {variant} differs from the serial reference on {input}"
                    )));
                }
                let warm_up = options.warm_up_secs;
                let (wall, gpu_s) =
                    crate::bench::best_after_warm_up(options.runs, warm_up, || {
                        let t = Instant::now();
                        let mut encoder = gpu.device.create_command_encoder(&Default::default());
                        let pending =
                            stuffer.encode(gpu, &mut encoder, &batch, &options.config, true)?;
                        gpu.queue.submit([encoder.finish()]);
                        gpu.wait_idle()?;
                        let wall = t.elapsed().as_secs_f64();
                        let timings: Timings = pollster::block_on(pending.timings(gpu))?;
                        Ok((wall, gpu.has_timestamps().then(|| timings.total())))
                    })?;
                let mut r = record(variant, "stuff", wall, gpu_s, out_bytes);
                if variant == "vote" {
                    r.vote_iterations_max = Some(got.max_iterations());
                    r.vote_iterations_mean = Some(got.mean_iterations());
                }
                records.push(r);
                let (wall, _) = best_of(options.runs.min(3), || {
                    let t = Instant::now();
                    let result = pollster::block_on(stuffer.stuff(
                        gpu,
                        &segments,
                        options.term,
                        &options.config,
                    ))?;
                    std::hint::black_box(result);
                    Ok((t.elapsed().as_secs_f64(), None))
                })?;
                records.push(record(variant, "end-to-end", wall, None, out_bytes));
            }
        }
        let serial = records
            .iter()
            .find(|r| r.variant == "cpu-1-core")
            .map(|r| r.seconds_wall);
        for r in &mut records {
            r.speedup_vs_cpu_serial = serial.map(|s| s / r.seconds_gpu.unwrap_or(r.seconds_wall));
        }
        sink(&records);
        all.extend(records);
    }
    Ok(all)
}

/// The records of one input as a table.
pub fn bitstuff_table(records: &[BitstuffRecord]) -> String {
    let mut s = String::new();
    if let Some(r) = records.first() {
        s.push_str(&format!(
            "bitstuff, input {}: {} raw bytes in {} segments of {}-{} bytes, {} stuffed bytes, {}\n",
            r.input,
            r.bytes,
            r.segments,
            r.segment_bytes_min,
            r.segment_bytes_max,
            r.stuffed_bytes,
            r.adapter
        ));
    }
    s.push_str(&format!(
        "{:<14} {:<11} {:>9} {:>9} {:>11} {:>11} {:>10} {:>10}\n",
        "variant", "scope", "GPU GB/s", "wall GB/s", "GPU ms", "wall ms", "vs serial", "vote it."
    ));
    let opt = |v: Option<f64>, scale: f64, prec: usize| {
        v.map_or("-".to_string(), |x| format!("{:.*}", prec, x * scale))
    };
    for r in records {
        s.push_str(&format!(
            "{:<14} {:<11} {:>9} {:>9.2} {:>11} {:>11.3} {:>10} {:>10}\n",
            r.variant,
            r.scope,
            opt(r.gbps_gpu, 1.0, 2),
            r.gbps_wall,
            opt(r.seconds_gpu, 1e3, 3),
            r.seconds_wall * 1e3,
            opt(r.speedup_vs_cpu_serial, 1.0, 1),
            match (r.vote_iterations_max, r.vote_iterations_mean) {
                (Some(m), Some(a)) => format!("{m} / {a:.2}"),
                _ => "-".into(),
            }
        ));
    }
    s
}
