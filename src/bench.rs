//! The benchmark behind `parvlc bench`: GPU time from timestamp queries, wall time, and
//! the CPU baselines, measured in the same run, printed as tables and written as JSON Lines.

use std::time::Instant;

use crate::gpu::{Gpu, Profiler};
use crate::huffman::compress::{compress_cpu, Format, NATIVE_MAX_CODE_LEN};
use crate::huffman::cuvle::{CuvleConfig, VleEncoder};
use crate::huffman::histogram::total_histogram;
use crate::huffman::{cpu, BitOrder, Codebook};
use crate::scan::ScanStrategy;
use crate::{testdata, Result};

/// One measurement (one JSON line).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Record {
    pub module: &'static str,
    pub variant: String,
    pub input: String,
    pub bytes: u64,
    pub entropy_bits: f64,
    /// Kernel time by timestamp queries (best of the runs); null on the CPU.
    pub seconds_gpu: Option<f64>,
    /// Wall time (best of the runs).
    pub seconds_wall: f64,
    pub ratio: f64,
    pub adapter: String,
    /// What the wall time covers.
    pub scope: &'static str,
}

impl Record {
    pub fn gbps_gpu(&self) -> Option<f64> {
        self.seconds_gpu.map(|s| self.bytes as f64 / s / 1e9)
    }
    pub fn gbps_wall(&self) -> f64 {
        self.bytes as f64 / self.seconds_wall / 1e9
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub sizes: Vec<u64>,
    pub entropies: Vec<f64>,
    pub strategies: Vec<ScanStrategy>,
    pub config: CuvleConfig,
    pub runs: usize,
    /// Skip the CPU baselines above this size (they take seconds per GiB).
    pub cpu_max_bytes: u64,
    pub files: Vec<std::path::PathBuf>,
}

fn best<T>(
    runs: usize,
    mut f: impl FnMut() -> Result<(f64, Option<f64>, T)>,
) -> Result<(f64, Option<f64>, T)> {
    // Warm-up: pipelines, the pool, and GPU clocks, which fall while the CPU baselines run.
    let warm = Instant::now();
    let mut out = f()?;
    while warm.elapsed().as_secs_f64() < 0.3 {
        out = f()?;
    }
    let (mut wall, mut gpu) = (f64::INFINITY, None::<f64>);
    for _ in 0..runs.max(1) {
        let (w, g, t) = f()?;
        wall = wall.min(w);
        gpu = match (gpu, g) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (None, b) => b,
            (a, None) => a,
        };
        out.2 = t;
    }
    Ok((wall, gpu, out.2))
}

/// Run the Huffman benchmark; `sink` receives each record as it is measured.
pub fn run_huffman(
    gpu: Option<&Gpu>,
    options: &BenchOptions,
    sink: &mut dyn FnMut(&Record),
) -> Result<Vec<Record>> {
    let mut records = Vec::new();
    let adapter = gpu.map_or("cpu".to_string(), |g| g.adapter_name());
    let mut inputs: Vec<(String, f64, Vec<u8>)> = Vec::new();
    for &e in &options.entropies {
        for &size in &options.sizes {
            inputs.push((format!("synthetic-{e}b-{}", human(size)), e, Vec::new()));
        }
    }
    for path in &options.files {
        let data = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
        let hist = crate::huffman::gzip::histogram(&data);
        inputs.push((path.display().to_string(), testdata::entropy(&hist), data));
    }
    let synthetic = options.entropies.len() * options.sizes.len();
    for (i, (name, entropy, file_data)) in inputs.into_iter().enumerate() {
        let data = if i < synthetic {
            let size = options.sizes[i % options.sizes.len()];
            testdata::generate(size as usize, entropy, 42 + i as u64)
        } else {
            file_data
        };
        let bytes = data.len() as u64;
        let hist = crate::huffman::gzip::histogram(&data);
        let book = Codebook::from_frequencies(&hist, NATIVE_MAX_CODE_LEN)?;
        let table = book.table()?;
        let payload_bits = table.encoded_bits(&hist);
        let ratio = if payload_bits == 0 {
            0.0
        } else {
            bytes as f64 * 8.0 / payload_bits as f64
        };
        let mut push = |variant: String, scope: &'static str, wall: f64, gpu_s: Option<f64>| {
            let r = Record {
                module: "huffman",
                variant,
                input: name.clone(),
                bytes,
                entropy_bits: entropy,
                seconds_gpu: gpu_s,
                seconds_wall: wall,
                ratio,
                adapter: adapter.clone(),
                scope,
            };
            sink(&r);
            records.push(r);
        };
        if let Some(gpu) = gpu {
            for &strategy in &options.strategies {
                // One failing variant (a chained stall, say) is reported, not fatal.
                let result = (|| -> Result<()> {
                    let mut config = options.config;
                    config.scan.strategy = strategy;
                    let enc = VleEncoder::new(gpu, config)?;
                    let input = enc.upload(&data)?;
                    gpu.wait_idle()?;
                    let chunks = pollster::block_on(enc.histograms(&input, None))?;
                    let plan = enc.plan(&input, &chunks, &table, BitOrder::MsbFirst, 0)?;
                    let table_buf = enc.upload_table(&table);
                    // Encode kernel alone, input and table resident.
                    let (wall, kernel, _) = best(options.runs, || {
                        let t = Instant::now();
                        let mut ce = gpu.device.create_command_encoder(&Default::default());
                        let pending = enc.encode_into(&mut ce, &input, &table_buf, &plan, true)?;
                        gpu.queue.submit([ce.finish()]);
                        gpu.wait_idle()?;
                        let wall = t.elapsed().as_secs_f64();
                        let timings = pollster::block_on(pending.timings(gpu))?;
                        Ok((wall, (timings.span > 0.0).then_some(timings.span), ()))
                    })?;
                    push(format!("cuvle-{}", strategy.name()), "encode", wall, kernel);
                    // Full compress with the input resident: histogram, its readback, the
                    // codebook on the CPU, plan, encode; the stream stays on the GPU.
                    let (wall, kernels, _) = best(options.runs, || {
                        let t = Instant::now();
                        let mut prof = Profiler::new(gpu, 16);
                        let chunks = pollster::block_on(enc.histograms(&input, Some(&mut prof)))?;
                        let book = Codebook::from_frequencies(
                            &total_histogram(&chunks),
                            NATIVE_MAX_CODE_LEN,
                        )?;
                        let table = book.table()?;
                        let plan = enc.plan(&input, &chunks, &table, BitOrder::MsbFirst, 0)?;
                        let table_buf = enc.upload_table(&table);
                        let mut ce = gpu.device.create_command_encoder(&Default::default());
                        let pending = enc.encode_into(&mut ce, &input, &table_buf, &plan, true)?;
                        gpu.queue.submit([ce.finish()]);
                        gpu.wait_idle()?;
                        let wall = t.elapsed().as_secs_f64();
                        let h = pollster::block_on(prof.timings(gpu))?;
                        let e = pollster::block_on(pending.timings(gpu))?;
                        Ok((wall, (e.span > 0.0).then_some(h.span + e.span), ()))
                    })?;
                    push(
                        format!("cuvle-{}", strategy.name()),
                        "compress",
                        wall,
                        kernels,
                    );
                    // End to end, host to host, native container included.
                    let (wall, _, _) = best(options.runs.min(2), || {
                        let t = Instant::now();
                        let c = pollster::block_on(crate::huffman::compress::compress_gpu(
                            gpu,
                            &data,
                            Format::Native,
                            &config,
                            &mut |_| {},
                        ))?;
                        Ok((t.elapsed().as_secs_f64(), None, c.bytes.len()))
                    })?;
                    push(
                        format!("cuvle-{}", strategy.name()),
                        "end-to-end",
                        wall,
                        None,
                    );
                    Ok(())
                })();
                if let Err(e) = result {
                    eprintln!("{name}: cuvle-{}: {e}", strategy.name());
                }
            }
        }
        if bytes <= options.cpu_max_bytes {
            let runs = if bytes > (64 << 20) { 1 } else { options.runs };
            let (wall, _, _) = best(runs, || {
                let t = Instant::now();
                cpu::encode_serial(&data, &table, BitOrder::MsbFirst, 0)?;
                Ok((t.elapsed().as_secs_f64(), None, ()))
            })?;
            push("cpu-serial".into(), "encode", wall, None);
            let (wall, _, _) = best(runs, || {
                let t = Instant::now();
                cpu::encode_parallel(&data, &table, BitOrder::MsbFirst, 0)?;
                Ok((t.elapsed().as_secs_f64(), None, ()))
            })?;
            push(
                format!("cpu-{}-threads", rayon::current_num_threads()),
                "encode",
                wall,
                None,
            );
            let (wall, _, _) = best(runs.min(2), || {
                let t = Instant::now();
                compress_cpu(&data, Format::Native, options.config.block_bytes())?;
                Ok((t.elapsed().as_secs_f64(), None, ()))
            })?;
            push(
                format!("cpu-{}-threads", rayon::current_num_threads()),
                "end-to-end",
                wall,
                None,
            );
        }
    }
    Ok(records)
}

/// "1 MiB", "256 MiB", "1 GiB".
pub fn human(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{}GiB", bytes >> 30)
    } else if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{}MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{}KiB", bytes >> 10)
    } else {
        format!("{bytes}B")
    }
}

/// A table of records: one row per (input, variant, scope).
pub fn table(records: &[Record]) -> String {
    let mut s = format!(
        "{:<26} {:<28} {:<11} {:>12} {:>12} {:>7}\n",
        "input", "variant", "scope", "GB/s (GPU)", "GB/s (wall)", "ratio"
    );
    for r in records {
        s.push_str(&format!(
            "{:<26} {:<28} {:<11} {:>12} {:>12.2} {:>7.3}\n",
            r.input,
            r.variant,
            r.scope,
            r.gbps_gpu().map_or("-".into(), |g| format!("{g:.2}")),
            r.gbps_wall(),
            r.ratio
        ));
    }
    s
}
