//! The benchmark behind `parvlc bench`: every encoder on the same inputs in one run, GPU
//! time from timestamp queries, wall time, and the CPU baselines, printed as one table per
//! input (the shape of the CUVLE paper's Tables I and II), written as JSON Lines, and
//! plotted (throughput against entropy and against size).

use std::time::Instant;

use crate::gpu::{Gpu, Profiler, Timings};
use crate::huffman::bytestream::{BytestreamConfig, BytestreamEncoder};
use crate::huffman::compress::{compress_cpu, compress_gpu, Format, NATIVE_MAX_CODE_LEN};
use crate::huffman::cuvle::{CuvleConfig, VleEncoder};
use crate::huffman::histogram::total_histogram;
use crate::huffman::pavle::{PavleConfig, PavleEncoder};
use crate::huffman::{cpu, BitOrder, CodeTable, Codebook};
use crate::scan::ScanStrategy;
use crate::{testdata, Result};

/// One measurement (one JSON line).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Record {
    pub module: String,
    /// Encoder: cuvle-decoupled, pavle, bytestream, cpu-serial, ...
    pub variant: String,
    /// What the times cover: encode (the encoder's kernels, input and table resident),
    /// kernel (pavle without its compaction), compress (histogram, codebook and encode,
    /// input resident), end-to-end (host to host, container included).
    pub scope: String,
    pub input: String,
    pub bytes: u64,
    pub entropy_bits: f64,
    /// GPU time by timestamp queries, best of the runs; None on the CPU.
    pub seconds_gpu: Option<f64>,
    /// Wall time, best of the runs.
    pub seconds_wall: f64,
    /// Input bytes over payload bytes.
    pub ratio: f64,
    pub adapter: String,
    /// Against the serial CPU encoder (its wall time), on the GPU time where there is one.
    pub speedup_vs_cpu_serial: Option<f64>,
    /// Against pavle total (kernel + compaction, GPU time).
    pub speedup_vs_pavle_total: Option<f64>,
}

impl Record {
    /// The time the speedups use: GPU time where measured, else wall.
    pub fn seconds(&self) -> f64 {
        self.seconds_gpu.unwrap_or(self.seconds_wall)
    }
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
    /// Skip the CPU baselines above this size.
    pub cpu_max_bytes: u64,
    /// Also run the papers' GPU baselines (pavle, bytestream).
    pub baselines: bool,
    pub files: Vec<std::path::PathBuf>,
    /// The CUDA path beside the wgpu one (`--backend wgpu,cuda`): its device and the
    /// configurations to measure (several: a tuning sweep, each its own row).
    #[cfg(feature = "cuda")]
    pub cuda: Option<CudaBench>,
}

/// The CUDA rows of a benchmark: rows `cuvle-cuda-<strategy>`, or, for several
/// configurations (a tuning sweep, encode scope only),
/// `cuvle-cuda-<strategy>-wg<threads>-net<NET>-<write>-bpsm<blocks per SM>`.
#[cfg(feature = "cuda")]
#[derive(Clone, Debug)]
pub struct CudaBench {
    pub device: std::sync::Arc<crate::cuda::CudaGpu>,
    /// Each configuration's NET, block size, resident cap and scan settings, with its
    /// CUDA tuning; the strategy comes from `BenchOptions::strategies`.
    pub configs: Vec<(CuvleConfig, crate::cuda::CudaConfig)>,
}

/// Best wall time and best GPU time over `runs` runs, after a warm-up of at least 0.3 s
/// (pipelines, the pool, and GPU clocks, which fall while the CPU baselines run).
fn best(runs: usize, f: impl FnMut() -> Result<(f64, Option<f64>)>) -> Result<(f64, Option<f64>)> {
    best_after_warm_up(runs, 0.3, f)
}

/// Best wall time and best GPU time over `runs` runs, after warm-up runs (at least one)
/// lasting at least `warm_up_secs`.
pub(crate) fn best_after_warm_up(
    runs: usize,
    warm_up_secs: f64,
    mut f: impl FnMut() -> Result<(f64, Option<f64>)>,
) -> Result<(f64, Option<f64>)> {
    let warm = Instant::now();
    f()?;
    while warm.elapsed().as_secs_f64() < warm_up_secs {
        f()?;
    }
    let (mut wall, mut gpu) = (f64::INFINITY, None::<f64>);
    for _ in 0..runs.max(1) {
        let (w, g) = f()?;
        wall = wall.min(w);
        gpu = match (gpu, g) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    Ok((wall, gpu))
}

/// Time one GPU job: `record` encodes into the encoder and returns something to read the
/// timings from once the work is done.
fn time_gpu<P>(
    gpu: &Gpu,
    record: impl Fn(&mut wgpu::CommandEncoder) -> Result<P>,
    timings: impl Fn(&P) -> Result<Timings>,
) -> Result<(f64, Timings)> {
    let t = Instant::now();
    let mut ce = gpu.device.create_command_encoder(&Default::default());
    let pending = record(&mut ce)?;
    gpu.queue.submit([ce.finish()]);
    gpu.wait_idle()?;
    let wall = t.elapsed().as_secs_f64();
    Ok((wall, timings(&pending)?))
}

fn positive(s: f64) -> Option<f64> {
    (s > 0.0).then_some(s)
}

/// The synthetic inputs, named as `--dump` writes them.
pub fn synthetic_inputs(options: &BenchOptions) -> Vec<(String, f64, u64, u64)> {
    let mut v = Vec::new();
    for (i, &e) in options.entropies.iter().enumerate() {
        for (j, &size) in options.sizes.iter().enumerate() {
            v.push((
                format!("synthetic-{e}b-{}", human(size)),
                e,
                size,
                42 + (i * options.sizes.len() + j) as u64,
            ));
        }
    }
    v
}

/// Run the Huffman benchmark; `sink` receives each input's records as they are complete.
pub fn run_huffman(
    gpu: Option<&Gpu>,
    options: &BenchOptions,
    sink: &mut dyn FnMut(&[Record]),
) -> Result<Vec<Record>> {
    let mut all = Vec::new();
    #[allow(unused_mut)]
    let mut adapter = gpu.map_or("cpu".to_string(), |g| g.adapter_name());
    #[cfg(feature = "cuda")]
    if let Some(c) = &options.cuda {
        adapter = match gpu {
            Some(g) => format!("{} / {}", g.adapter_name(), c.device.adapter_name()),
            None => c.device.adapter_name(),
        };
    }
    let mut inputs: Vec<(String, f64, Vec<u8>)> = Vec::new();
    let synthetic = synthetic_inputs(options);
    for (name, e, _, _) in &synthetic {
        inputs.push((name.clone(), *e, Vec::new()));
    }
    for path in &options.files {
        let data = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
        let hist = crate::huffman::gzip::histogram(&data);
        inputs.push((path.display().to_string(), testdata::entropy(&hist), data));
    }
    for (i, (name, entropy, file_data)) in inputs.into_iter().enumerate() {
        let data = match synthetic.get(i) {
            Some(&(_, e, size, seed)) => testdata::generate(size as usize, e, seed),
            None => file_data,
        };
        let bytes = data.len() as u64;
        let hist = crate::huffman::gzip::histogram(&data);
        let table = Codebook::from_frequencies(&hist, NATIVE_MAX_CODE_LEN)?.table()?;
        let payload_bits = table.encoded_bits(&hist);
        let ratio = if payload_bits == 0 {
            0.0
        } else {
            bytes as f64 * 8.0 / payload_bits as f64
        };
        let mut records: Vec<Record> = Vec::new();
        let mut push = |variant: String, scope: &'static str, wall: f64, gpu_s: Option<f64>| {
            records.push(Record {
                module: "huffman".into(),
                variant,
                scope: scope.into(),
                input: name.clone(),
                bytes,
                entropy_bits: entropy,
                seconds_gpu: gpu_s,
                seconds_wall: wall,
                ratio,
                adapter: adapter.clone(),
                speedup_vs_cpu_serial: None,
                speedup_vs_pavle_total: None,
            })
        };
        if let Some(gpu) = gpu {
            for &strategy in &options.strategies {
                let mut config = options.config;
                config.scan.strategy = strategy;
                // One failing variant (a chained stall, say) is reported, not fatal.
                if let Err(e) = bench_cuvle(gpu, &data, &table, &config, options.runs, &mut push) {
                    eprintln!("{name}: cuvle-{}: {e}", strategy.name());
                }
            }
        }
        #[cfg(feature = "cuda")]
        if let Some(cuda) = &options.cuda {
            for &strategy in &options.strategies {
                for (config, tuning) in &cuda.configs {
                    let mut config = *config;
                    config.scan.strategy = strategy;
                    let mut variant = format!("cuvle-cuda-{}", strategy.name());
                    if cuda.configs.len() > 1 {
                        variant = format!(
                            "{variant}-wg{}-net{}-{}-bpsm{}",
                            config.scan.workgroup_size,
                            config.net,
                            tuning.write.name(),
                            tuning
                                .blocks_per_sm
                                .map_or("full".to_string(), |b| b.to_string())
                        );
                    }
                    let r = bench_cuvle_cuda(
                        &cuda.device,
                        &data,
                        &table,
                        &config,
                        tuning,
                        options.runs,
                        cuda.configs.len() > 1,
                        &mut |scope, wall, gpu_s| push(variant.clone(), scope, wall, gpu_s),
                    );
                    if let Err(e) = r {
                        eprintln!("{name}: {variant}: {e}");
                    }
                }
            }
        }
        if let Some(gpu) = gpu {
            if options.baselines {
                if let Err(e) = bench_baselines(gpu, &data, &table, options.runs, &mut push) {
                    eprintln!("{name}: baselines: {e}");
                }
            }
        }
        if bytes <= options.cpu_max_bytes {
            let runs = if bytes > (64 << 20) { 1 } else { options.runs };
            let (wall, _) = best(runs, || {
                let t = Instant::now();
                cpu::encode_serial(&data, &table, BitOrder::MsbFirst, 0)?;
                Ok((t.elapsed().as_secs_f64(), None))
            })?;
            push("cpu-serial".into(), "encode", wall, None);
            let cores = format!("cpu-{}-threads", rayon::current_num_threads());
            let (wall, _) = best(runs, || {
                let t = Instant::now();
                cpu::encode_parallel(&data, &table, BitOrder::MsbFirst, 0)?;
                Ok((t.elapsed().as_secs_f64(), None))
            })?;
            push(cores.clone(), "encode", wall, None);
            let (wall, _) = best(runs.min(2), || {
                let t = Instant::now();
                compress_cpu(&data, Format::Native, options.config.block_bytes())?;
                Ok((t.elapsed().as_secs_f64(), None))
            })?;
            push(cores, "end-to-end", wall, None);
        }
        add_speedups(&mut records);
        sink(&records);
        all.extend(records);
    }
    Ok(all)
}

/// Fill in the speedup columns of one input's records.
fn add_speedups(records: &mut [Record]) {
    let serial = records
        .iter()
        .find(|r| r.variant == "cpu-serial")
        .map(|r| r.seconds_wall);
    let pavle = records
        .iter()
        .find(|r| r.variant == "pavle" && r.scope == "encode")
        .and_then(|r| r.seconds_gpu);
    for r in records.iter_mut() {
        if r.scope == "encode" || r.scope == "kernel" {
            r.speedup_vs_cpu_serial = serial.map(|s| s / r.seconds());
            r.speedup_vs_pavle_total = pavle.map(|p| p / r.seconds());
        }
    }
}

fn bench_cuvle(
    gpu: &Gpu,
    data: &[u8],
    table: &CodeTable,
    config: &CuvleConfig,
    runs: usize,
    push: &mut dyn FnMut(String, &'static str, f64, Option<f64>),
) -> Result<()> {
    let variant = format!("cuvle-{}", config.scan.strategy.name());
    let enc = VleEncoder::new(gpu, *config)?;
    let input = enc.upload(data)?;
    gpu.wait_idle()?;
    let chunks = pollster::block_on(enc.histograms(&input, None))?;
    let plan = enc.plan(&input, &chunks, table, BitOrder::MsbFirst, 0)?;
    let table_buf = enc.upload_table(table);
    // The encoder alone, input and table resident.
    let (wall, kernel) = best(runs, || {
        let (wall, t) = time_gpu(
            gpu,
            |ce| enc.encode_into(ce, &input, &table_buf, &plan, true),
            |p| pollster::block_on(p.timings(gpu)),
        )?;
        Ok((wall, positive(t.span)))
    })?;
    push(variant.clone(), "encode", wall, kernel);
    // Compress with the input resident: histogram, its readback, the codebook on the
    // CPU, plan, encode; the stream stays on the GPU (as nvCOMP's does).
    let (wall, kernels) = best(runs, || {
        let t = Instant::now();
        let mut prof = Profiler::new(gpu, 16);
        let chunks = pollster::block_on(enc.histograms(&input, Some(&mut prof)))?;
        let table =
            Codebook::from_frequencies(&total_histogram(&chunks), NATIVE_MAX_CODE_LEN)?.table()?;
        let plan = enc.plan(&input, &chunks, &table, BitOrder::MsbFirst, 0)?;
        let table_buf = enc.upload_table(&table);
        let mut ce = gpu.device.create_command_encoder(&Default::default());
        let pending = enc.encode_into(&mut ce, &input, &table_buf, &plan, true)?;
        gpu.queue.submit([ce.finish()]);
        gpu.wait_idle()?;
        let wall = t.elapsed().as_secs_f64();
        let h = pollster::block_on(prof.timings(gpu))?;
        let e = pollster::block_on(pending.timings(gpu))?;
        Ok((wall, positive(e.span).map(|s| s + h.span)))
    })?;
    push(variant.clone(), "compress", wall, kernels);
    // End to end, host to host, native container included.
    let (wall, _) = best(runs.min(2), || {
        let t = Instant::now();
        pollster::block_on(compress_gpu(gpu, data, Format::Native, config, &mut |_| {}))?;
        Ok((t.elapsed().as_secs_f64(), None))
    })?;
    push(variant, "end-to-end", wall, None);
    Ok(())
}

/// The CUDA path on the same input, in the scopes of [`bench_cuvle`] (a tuning sweep,
/// `encode_only`, measures the encode scope alone); kernel times by CUDA events.
#[cfg(feature = "cuda")]
#[allow(clippy::too_many_arguments)]
fn bench_cuvle_cuda(
    cuda: &crate::cuda::CudaGpu,
    data: &[u8],
    table: &CodeTable,
    config: &CuvleConfig,
    tuning: &crate::cuda::CudaConfig,
    runs: usize,
    encode_only: bool,
    push: &mut dyn FnMut(&'static str, f64, Option<f64>),
) -> Result<()> {
    use crate::cuda::{compress_cuda, CudaVleEncoder};
    let enc = CudaVleEncoder::with_tuning(cuda, *config, *tuning)?;
    let input = enc.upload(data)?;
    let (chunks, _) = enc.histograms(&input)?;
    let plan = enc.plan(&input, &chunks, table, BitOrder::MsbFirst, 0)?;
    let table_buf = enc.upload_table(table)?;
    // The encoder alone, input and table resident.
    let (wall, kernel) = best(runs, || {
        let t = Instant::now();
        let pending = enc.encode_planned(&input, &table_buf, &plan, true)?;
        cuda.synchronize()?;
        let wall = t.elapsed().as_secs_f64();
        Ok((wall, pending.seconds()?.and_then(positive)))
    })?;
    push("encode", wall, kernel);
    if encode_only {
        return Ok(());
    }
    // Compress with the input resident: histogram, its readback, the codebook on the
    // CPU, plan, encode; the stream stays on the GPU.
    let (wall, kernels) = best(runs, || {
        let t = Instant::now();
        let (chunks, histogram_s) = enc.histograms(&input)?;
        let table =
            Codebook::from_frequencies(&total_histogram(&chunks), NATIVE_MAX_CODE_LEN)?.table()?;
        let plan = enc.plan(&input, &chunks, &table, BitOrder::MsbFirst, 0)?;
        let table_buf = enc.upload_table(&table)?;
        let pending = enc.encode_planned(&input, &table_buf, &plan, true)?;
        cuda.synchronize()?;
        let wall = t.elapsed().as_secs_f64();
        Ok((
            wall,
            pending
                .seconds()?
                .and_then(positive)
                .map(|s| s + histogram_s),
        ))
    })?;
    push("compress", wall, kernels);
    // End to end, host to host, native container included.
    let (wall, _) = best(runs.min(2), || {
        let t = Instant::now();
        compress_cuda(cuda, data, Format::Native, config, tuning, &mut |_| {})?;
        Ok((t.elapsed().as_secs_f64(), None))
    })?;
    push("end-to-end", wall, None);
    Ok(())
}

/// The papers' GPU baselines on the same input: pavle (kernel alone, and total with its
/// compaction) and the byte-per-bit encoder. Each is reported, not fatal, when it fails
/// (bytestream needs about 8x the output in memory).
fn bench_baselines(
    gpu: &Gpu,
    data: &[u8],
    table: &CodeTable,
    runs: usize,
    push: &mut dyn FnMut(String, &'static str, f64, Option<f64>),
) -> Result<()> {
    let pavle = (|| -> Result<()> {
        let enc = PavleEncoder::new(gpu, PavleConfig::default())?;
        let input = enc.upload(data)?;
        let mut kernel_best: Option<f64> = None;
        let (wall, total) = best(runs, || {
            let (wall, t) = time_gpu(
                gpu,
                |ce| enc.encode_into(ce, &input, table, BitOrder::MsbFirst, 0, true),
                |p| pollster::block_on(p.timings(gpu)),
            )?;
            let kernel = t.get("pavle");
            kernel_best = Some(kernel_best.map_or(kernel, |k: f64| k.min(kernel)));
            Ok((wall, positive(t.span)))
        })?;
        push("pavle".into(), "encode", wall, total);
        push(
            "pavle".into(),
            "kernel",
            wall,
            kernel_best.and_then(positive),
        );
        Ok(())
    })();
    if let Err(e) = pavle {
        eprintln!("pavle: {e}");
    }
    let bytestream = (|| -> Result<()> {
        let enc = BytestreamEncoder::new(gpu, BytestreamConfig::default())?;
        let input = enc.upload(data)?;
        let (wall, kernels) = best(runs, || {
            let (wall, t) = time_gpu(
                gpu,
                |ce| enc.encode_into(ce, &input, table, BitOrder::MsbFirst, 0, true),
                |p| pollster::block_on(p.timings(gpu)),
            )?;
            Ok((wall, positive(t.span)))
        })?;
        push("bytestream".into(), "encode", wall, kernels);
        Ok(())
    })();
    if let Err(e) = bytestream {
        eprintln!("bytestream: {e}");
    }
    Ok(())
}

/// "1MiB", "256MiB", "1GiB".
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

fn cell(x: Option<f64>, digits: usize) -> String {
    x.map_or("-".into(), |v| format!("{v:.digits$}"))
}

/// One input's records as a table.
pub fn table(records: &[Record]) -> String {
    let Some(first) = records.first() else {
        return String::new();
    };
    let mut s = format!(
        "{} ({} bytes, {:.2} bits/byte, ratio {:.3})\n",
        first.input, first.bytes, first.entropy_bits, first.ratio
    );
    s.push_str(&format!(
        "  {:<26} {:<11} {:>11} {:>11} {:>11} {:>11}\n",
        "variant", "scope", "GB/s GPU", "GB/s wall", "x serial", "x pavle"
    ));
    for r in records {
        s.push_str(&format!(
            "  {:<26} {:<11} {:>11} {:>11.2} {:>11} {:>11}\n",
            r.variant,
            r.scope,
            cell(r.gbps_gpu(), 2),
            r.gbps_wall(),
            cell(r.speedup_vs_cpu_serial, 1),
            cell(r.speedup_vs_pavle_total, 2)
        ));
    }
    s
}

/// Records from a JSON Lines file written by `--json`.
pub fn read_records(path: &std::path::Path) -> Result<Vec<Record>> {
    let text = std::fs::read_to_string(path).map_err(|e| crate::Error::io(path, e))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| {
                crate::Error::InvalidArgument(format!("{}:{}: {e}", path.display(), i + 1))
            })
        })
        .collect()
}

/// Throughput against entropy (at the largest size) and against size (at the entropy
/// nearest 4.5), one line per encoder, as an SVG file.
pub fn plot(records: &[Record], path: &std::path::Path) -> Result<()> {
    use plotters::prelude::*;
    let err = |e: String| crate::Error::InvalidArgument(format!("plot {}: {e}", path.display()));
    let rows: Vec<&Record> = records
        .iter()
        .filter(|r| r.scope == "encode" && r.input.starts_with("synthetic"))
        .collect();
    if rows.is_empty() {
        return Err(err("no synthetic encode records to plot".into()));
    }
    let mut variants: Vec<&str> = Vec::new();
    for r in &rows {
        if !variants.contains(&r.variant.as_str()) {
            variants.push(&r.variant);
        }
    }
    let largest = rows.iter().map(|r| r.bytes).max().unwrap_or(0);
    let mid = rows
        .iter()
        .map(|r| r.entropy_bits)
        .min_by(|a, b| (a - 4.5).abs().total_cmp(&(b - 4.5).abs()))
        .unwrap_or(4.5);
    let gbps = |r: &Record| r.bytes as f64 / r.seconds() / 1e9;
    let top = rows.iter().map(|r| gbps(r)).fold(0.0f64, f64::max) * 1.3;
    // Room below the lowest line for the legend.
    let bottom = rows.iter().map(|r| gbps(r)).fold(f64::INFINITY, f64::min) / 60.0;
    let y_range = bottom.min(top / 10.0)..top;
    // Sizes on a log2 axis, labelled in KiB/MiB/GiB.
    let log2 = |b: u64| (b.max(1) as f64).log2();
    let smallest = rows.iter().map(|r| r.bytes).min().unwrap_or(1);
    let root = SVGBackend::new(path, (1100, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (left, right) = root.split_horizontally(550);
    let adapter = rows[0].adapter.clone();
    let mut entropy_chart = ChartBuilder::on(&left)
        .caption(
            format!("GB/s vs entropy, {} ({})", human(largest), adapter),
            ("sans-serif", 15),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(52)
        .build_cartesian_2d(0f64..8.5f64, y_range.clone().log_scale())
        .map_err(|e| err(e.to_string()))?;
    entropy_chart
        .configure_mesh()
        .x_desc("entropy, bits per byte")
        .y_desc("GB/s of input")
        .draw()
        .map_err(|e| err(e.to_string()))?;
    let mut size_chart = ChartBuilder::on(&right)
        .caption(format!("GB/s vs size, {mid} bits/byte"), ("sans-serif", 15))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(52)
        .build_cartesian_2d(
            (log2(smallest) - 0.5)..(log2(largest) + 0.5),
            y_range.log_scale(),
        )
        .map_err(|e| err(e.to_string()))?;
    size_chart
        .configure_mesh()
        .x_desc("input bytes")
        .y_desc("GB/s of input")
        .x_label_formatter(&|v| {
            if (v - v.round()).abs() < 0.01 {
                human(2f64.powf(v.round()) as u64)
            } else {
                String::new()
            }
        })
        .draw()
        .map_err(|e| err(e.to_string()))?;
    for (i, v) in variants.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let mut by_entropy: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.variant == *v && r.bytes == largest)
            .map(|r| (r.entropy_bits, gbps(r)))
            .collect();
        by_entropy.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut by_size: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.variant == *v && r.entropy_bits == mid)
            .map(|r| (log2(r.bytes), gbps(r)))
            .collect();
        by_size.sort_by(|a, b| a.0.total_cmp(&b.0));
        entropy_chart
            .draw_series(LineSeries::new(by_entropy.clone(), color.stroke_width(2)))
            .map_err(|e| err(e.to_string()))?
            .label(v.to_string())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
        entropy_chart
            .draw_series(
                by_entropy
                    .iter()
                    .map(|&p| Circle::new(p, 3, color.filled())),
            )
            .map_err(|e| err(e.to_string()))?;
        size_chart
            .draw_series(LineSeries::new(by_size.clone(), color.stroke_width(2)))
            .map_err(|e| err(e.to_string()))?;
        size_chart
            .draw_series(by_size.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| err(e.to_string()))?;
    }
    entropy_chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerLeft)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// H.264 CAVLC (`parvlc bench cavlc`)
// ---------------------------------------------------------------------------------------

/// What `parvlc bench cavlc` runs.
#[derive(Clone, Debug)]
pub struct CavlcBenchOptions {
    /// Frame sizes in pixels.
    pub sizes: Vec<(u32, u32)>,
    pub qps: Vec<u8>,
    pub variants: Vec<crate::cavlc::GpuVariant>,
    /// Macroblock rows per slice; None: one slice.
    pub slice_rows: Option<u32>,
    pub runs: usize,
    /// The CPU encoder on one core and on all cores.
    pub cpu_rows: bool,
    pub config: crate::cavlc::CavlcConfig,
}

/// One CAVLC measurement (one JSON line).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CavlcRecord {
    pub module: String,
    /// cavlcu, recompute, su, cpu-1-core, cpu-all-cores.
    pub variant: String,
    /// cavlc (the block codes alone), cavlc+pack (slice data in the GPU's memory), or
    /// end-to-end (frame upload, coding, packing, slices back on the host; the CPU rows
    /// are end-to-end).
    pub scope: String,
    /// e.g. 1080p-qp27.
    pub input: String,
    pub width: u32,
    pub height: u32,
    pub qp: u8,
    pub macroblocks: u64,
    /// slice_data() bits of the frame.
    pub bits: u64,
    /// GPU time per frame by timestamp queries (sum of the passes), best of the runs.
    pub seconds_gpu: Option<f64>,
    /// Wall time per frame, best of the runs.
    pub seconds_wall: f64,
    /// Frames per second on the GPU time where there is one, else on the wall time.
    pub frames_per_s: f64,
    /// su's time over this one's, same scope (GPU time where measured).
    pub speedup_vs_su: Option<f64>,
    pub adapter: String,
    /// Where the frames came from.
    pub source: String,
}

impl CavlcRecord {
    pub fn seconds(&self) -> f64 {
        self.seconds_gpu.unwrap_or(self.seconds_wall)
    }
}

/// `1080p`, `2160p`, `720p`, or `WIDTHxHEIGHT`.
pub fn parse_frame_size(s: &str) -> Result<(u32, u32)> {
    match s {
        "720p" => return Ok((1280, 720)),
        "1080p" => return Ok((1920, 1080)),
        "2160p" | "4k" => return Ok((3840, 2160)),
        _ => {}
    }
    let bad = || {
        crate::Error::InvalidArgument(format!(
            "frame size `{s}`: use 720p, 1080p, 2160p or WIDTHxHEIGHT"
        ))
    };
    let (w, h) = s.split_once('x').ok_or_else(bad)?;
    let (w, h) = (
        w.parse::<u32>().map_err(|_| bad())?,
        h.parse::<u32>().map_err(|_| bad())?,
    );
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(bad());
    }
    Ok((w, h))
}

fn size_name(w: u32, h: u32) -> String {
    match (w, h) {
        (1280, 720) => "720p".into(),
        (1920, 1080) => "1080p".into(),
        (3840, 2160) => "2160p".into(),
        _ => format!("{w}x{h}"),
    }
}

/// A deterministic natural-looking 8-bit 4:2:0 picture: smooth gradients, fine texture
/// (hashed value noise at two scales), and hard edges (discs, bars, a checkerboard
/// patch). Returns the Y, U and V planes (chroma `ceil(w/2) x ceil(h/2)`).
pub fn synthetic_picture(width: u32, height: u32, seed: u64) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let hash = |x: i64, y: i64, salt: u64| -> f64 {
        let mut z = (x as u64)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add((y as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f))
            .wrapping_add(seed.wrapping_mul(0x1656_67b1_9e37_79f9) ^ salt);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    // Value noise: bilinear between hashed lattice points `cell` apart.
    let noise = |x: f64, y: f64, cell: f64, salt: u64| -> f64 {
        let (gx, gy) = (x / cell, y / cell);
        let (ix, iy) = (gx.floor() as i64, gy.floor() as i64);
        let (fx, fy) = (gx - ix as f64, gy - iy as f64);
        let a = hash(ix, iy, salt) * (1.0 - fx) + hash(ix + 1, iy, salt) * fx;
        let b = hash(ix, iy + 1, salt) * (1.0 - fx) + hash(ix + 1, iy + 1, salt) * fx;
        a * (1.0 - fy) + b * fy - 0.5
    };
    let (w, h) = (width as f64, height as f64);
    let luma = |x: f64, y: f64| -> f64 {
        let mut v = 110.0 + 70.0 * (x / w) - 40.0 * (y / h) + 25.0 * ((x + 2.0 * y) / 180.0).sin();
        v += 28.0 * noise(x, y, 24.0, 1) + 10.0 * noise(x, y, 3.0, 2);
        // Edges: discs, bars, a checkerboard.
        for k in 0..6 {
            let cx = w * (0.1 + 0.15 * k as f64);
            let cy = h * (0.3 + 0.08 * (k % 3) as f64);
            let r = h * (0.05 + 0.02 * k as f64);
            if (x - cx).powi(2) + (y - cy).powi(2) < r * r {
                v += if k % 2 == 0 { 55.0 } else { -50.0 };
            }
        }
        if (y / h) > 0.75 && ((x / 37.0) as i64) % 3 == 0 {
            v -= 45.0;
        }
        if x > w * 0.7 && y > h * 0.6 && (((x / 12.0) as i64 + (y / 12.0) as i64) % 2 == 0) {
            v += 60.0;
        }
        v
    };
    let (cw, ch) = (width.div_ceil(2), height.div_ceil(2));
    let mut y = Vec::with_capacity((width * height) as usize);
    for j in 0..height {
        for i in 0..width {
            y.push(luma(i as f64, j as f64).clamp(0.0, 255.0) as u8);
        }
    }
    let mut u = Vec::with_capacity((cw * ch) as usize);
    let mut v = Vec::with_capacity((cw * ch) as usize);
    for j in 0..ch {
        for i in 0..cw {
            let (x, yy) = (2.0 * i as f64, 2.0 * j as f64);
            let l = luma(x, yy);
            u.push(
                (128.0 + 0.25 * (l - 128.0) - 30.0 * (x / w) + 12.0 * noise(x, yy, 16.0, 3))
                    .clamp(0.0, 255.0) as u8,
            );
            v.push(
                (128.0 - 0.2 * (l - 128.0) + 25.0 * (yy / h) + 12.0 * noise(x, yy, 16.0, 4))
                    .clamp(0.0, 255.0) as u8,
            );
        }
    }
    (y, u, v)
}

/// The frame the benchmark codes for a size and QP, and where it came from.
pub fn cavlc_bench_frame(
    width: u32,
    height: u32,
    qp: u8,
    slice_rows: Option<u32>,
) -> Result<(crate::cavlc::frame::Frame, String)> {
    // A natural-looking picture through the H.264 encoder's CPU stages (prediction,
    // transform, quantization), so the levels have real statistics for this QP.
    let (y, u, v) = synthetic_picture(width, height, 1);
    let picture = crate::h264::Picture {
        width,
        height,
        y,
        u,
        v,
    };
    let config = crate::h264::EncoderConfig {
        qp,
        slice_rows,
        cavlc: crate::h264::CavlcEngine::Cpu,
    };
    let (frame, _recon) = crate::h264::encode_picture_levels(&picture, &config)?;
    Ok((
        frame,
        format!("synthetic picture through h264::encode_picture_levels at QP {qp}"),
    ))
}

/// Run the CAVLC benchmark; `sink` receives each frame's records as they are complete.
pub fn run_cavlc(
    gpu: Option<&Gpu>,
    options: &CavlcBenchOptions,
    sink: &mut dyn FnMut(&[CavlcRecord]),
) -> Result<Vec<CavlcRecord>> {
    use crate::cavlc::multicore::encode_frame_cpu;
    use crate::cavlc::{CavlcGpu, GpuVariant};
    let adapter = gpu.map_or("cpu".to_string(), |g| g.adapter_name());
    let encoder = match gpu {
        Some(g) if !options.variants.is_empty() => Some(CavlcGpu::with_config(g, options.config)?),
        _ => None,
    };
    let mut all = Vec::new();
    for &(width, height) in &options.sizes {
        for &qp in &options.qps {
            let (frame, source) = cavlc_bench_frame(width, height, qp, options.slice_rows)?;
            let want = encode_frame_cpu(&frame, true)?;
            let bits: u64 = want.iter().map(|s| s.1).sum();
            let input = format!("{}-qp{qp}", size_name(width, height));
            let mut records: Vec<CavlcRecord> = Vec::new();
            let mut push = |variant: &str, scope: &str, wall: f64, gpu_s: Option<f64>| {
                let s = gpu_s.unwrap_or(wall);
                records.push(CavlcRecord {
                    module: "cavlc".into(),
                    variant: variant.into(),
                    scope: scope.into(),
                    input: input.clone(),
                    width,
                    height,
                    qp,
                    macroblocks: frame.mb_count() as u64,
                    bits,
                    seconds_gpu: gpu_s,
                    seconds_wall: wall,
                    frames_per_s: 1.0 / s,
                    speedup_vs_su: None,
                    adapter: adapter.clone(),
                    source: source.clone(),
                });
            };
            if let (Some(g), Some(enc)) = (gpu, &encoder) {
                let resident = enc.upload(g, &frame)?;
                for &variant in &options.variants {
                    // Checked once against the CPU encoder before it is timed.
                    let got = pollster::block_on(enc.encode_frame(g, &frame, variant))?;
                    if got != want {
                        return Err(crate::Error::Gpu {
                            stage: "cavlc",
                            message: format!(
                                "{} output differs from the CPU encoder on {input}",
                                variant.name()
                            ),
                        });
                    }
                    for (scope, pack) in [("cavlc", false), ("cavlc+pack", true)] {
                        let (wall, gpu_s) = best(options.runs, || {
                            let (wall, t) = time_gpu(
                                g,
                                |ce| enc.encode_into(g, ce, &resident, variant, pack, true),
                                |p| pollster::block_on(p.timings(g)),
                            )?;
                            Ok((wall, positive(t.total())))
                        })?;
                        push(variant.name(), scope, wall, gpu_s);
                    }
                    let (wall, _) = best(options.runs, || {
                        let t = Instant::now();
                        pollster::block_on(enc.encode_frame(g, &frame, variant))?;
                        Ok((t.elapsed().as_secs_f64(), None))
                    })?;
                    push(variant.name(), "end-to-end", wall, None);
                }
                let _ = GpuVariant::ALL;
            }
            if options.cpu_rows {
                for (name, parallel) in [("cpu-1-core", false), ("cpu-all-cores", true)] {
                    let (wall, _) = best(options.runs.min(5), || {
                        let t = Instant::now();
                        encode_frame_cpu(&frame, parallel)?;
                        Ok((t.elapsed().as_secs_f64(), None))
                    })?;
                    push(name, "end-to-end", wall, None);
                }
            }
            let su: Vec<(String, f64)> = records
                .iter()
                .filter(|r| r.variant == "su")
                .map(|r| (r.scope.clone(), r.seconds()))
                .collect();
            for r in records.iter_mut() {
                if let Some((_, s)) = su.iter().find(|(scope, _)| *scope == r.scope) {
                    r.speedup_vs_su = Some(s / r.seconds());
                }
            }
            sink(&records);
            all.extend(records);
        }
    }
    Ok(all)
}

/// One frame's records as a table.
pub fn cavlc_table(records: &[CavlcRecord]) -> String {
    let Some(first) = records.first() else {
        return String::new();
    };
    let mut out = format!(
        "{} ({}x{}, {} macroblocks, {} bits of slice data; {})\n{:<14} {:<11} {:>10} {:>10} {:>10} {:>8}\n",
        first.input,
        first.width,
        first.height,
        first.macroblocks,
        first.bits,
        first.source,
        "variant",
        "scope",
        "GPU ms",
        "wall ms",
        "frames/s",
        "x su"
    );
    for r in records {
        out.push_str(&format!(
            "{:<14} {:<11} {:>10} {:>10.3} {:>10.1} {:>8}\n",
            r.variant,
            r.scope,
            r.seconds_gpu
                .map_or("-".into(), |s| format!("{:.3}", s * 1e3)),
            r.seconds_wall * 1e3,
            r.frames_per_s,
            r.speedup_vs_su.map_or("-".into(), |x| format!("{x:.2}")),
        ));
    }
    out
}
