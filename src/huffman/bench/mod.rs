//! The Huffman benchmark behind `parvlc bench`: every encoder on the same inputs in one
//! run, printed as one table per input (the shape of the CUVLE paper's Tables I and II),
//! written as JSON Lines, and plotted (throughput against entropy and against size).
//!
//! Every timed configuration is checked before its row exists (see [`crate::bench`]): the
//! streams of the GPU encoders (each strategy, wgpu and CUDA, each tuning, the baselines)
//! and of the CPU encoders bit for bit against the CPU encoder's
//! ([`cpu::encode_parallel`]), the native containers of the end-to-end rows decoded and
//! compared with the input.
//!
//! Scopes (a [`Record`]'s `scope`); `timing` says what its headline time covers:
//! - `encode`: the encoder's passes, with input, code table and plan resident on the GPU.
//!   Kernel only: GPU timestamps (CUDA events on CUDA) from the first pass's start to the
//!   last pass's end. The CPU rows: the encode in host memory, wall.
//! - `kernel`: pavle's encode kernel alone, without its scan and compaction (kernel only).
//! - `compress`: histogram, its readback, the codebook on the CPU, plan, table upload and
//!   encode, the input resident. Kernel only: the histogram's and the encode's kernel
//!   times added, without the host work and the waits between them.
//! - [`SCOPE_NVCOMP`]: the work of `compress`, timed as `scripts/nvcomp_bench.py` times
//!   nvCOMP's compress: wall clock around the whole call, from the input resident on the
//!   GPU to the compressed stream complete in GPU memory (the device idle), no timestamp
//!   queries; one warm-up run, then `runs` runs, the best kept.
//! - `end-to-end`: host to host: upload, histogram, codebook, encode, CRC-32, readback and
//!   the native container (wall).
//! - `end-to-end (stream)`: host memory to host memory through the streaming pipeline
//!   (`huffman::pipeline::compress_to_vec`: chunks, a code per frame, native v2), wall,
//!   into a fresh vector each run; `end-to-end (stream, output reused)` the same into a
//!   vector whose pages an earlier run touched.
//! - `decode`: row `vld`, the GPU decoder's kernel on the input's native v2 frames, payload
//!   and tables resident (kernel only; bytes are output bytes).
//! - `end-to-end (stream decode)`: row `vld`, host memory to host memory through the
//!   streaming decoder on the GPU (`huffman::stream::decompress_to_on`), wall.

mod gpu;
mod plot;

use std::cell::Cell;
use std::sync::Arc;
use std::time::Instant;

pub use plot::plot_svg;

use crate::bench::{best_checked, check_bits, check_same, Best, Run, WARM_UP};
use crate::gpu::Gpu;
use crate::huffman::compress::{compress_cpu, decompress, Format, NATIVE_MAX_CODE_LEN};
use crate::huffman::cuvle::CuvleConfig;
use crate::huffman::{cpu, BitBuf, BitOrder, CodeTable, Codebook};
use crate::scan::ScanStrategy;
use crate::{testdata, Error, Result};

/// The scope of the rows timed like nvCOMP's compress (module docs).
pub const SCOPE_NVCOMP: &str = "compress (nvCOMP scope)";

/// `timing` of a row whose headline is kernel time alone.
pub const KERNEL_ONLY: &str = "kernel only";

/// `timing` of a row whose headline is wall-clock time.
pub const WALL: &str = "wall";

/// One measurement (one JSON line).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Record {
    pub module: String,
    /// Encoder: cuvle-decoupled, pavle, bytestream, cpu-serial, ...
    pub variant: String,
    /// What the times cover: encode, kernel, compress, [`SCOPE_NVCOMP`], end-to-end
    /// (module docs).
    pub scope: String,
    /// What the headline time ([`Record::seconds`], the one the speedups use) measures:
    /// [`KERNEL_ONLY`] (GPU timestamps or CUDA events around the kernels) or [`WALL`].
    #[serde(default)]
    pub timing: String,
    /// How the times were taken, e.g. "best of 5 after 1 warm-up run".
    #[serde(default)]
    pub statistic: String,
    pub input: String,
    /// CRC-32 of the input's bytes: joins these rows with other tools' rows on the same
    /// bytes (`scripts/nvcomp_bench.py` writes the same checksum).
    #[serde(default)]
    pub input_crc32: Option<u32>,
    pub bytes: u64,
    pub entropy_bits: f64,
    /// GPU time by timestamp queries, best of the runs; None on the CPU.
    pub seconds_gpu: Option<f64>,
    /// Wall time, best of the runs.
    pub seconds_wall: f64,
    /// Input bytes over payload bytes.
    pub ratio: f64,
    /// Bytes of the input's native container (from the end-to-end run that was checked),
    /// header and block offsets included: what compares with another tool's output size.
    #[serde(default)]
    pub container_bytes: Option<u64>,
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

/// One input as its rows see it: the bytes, the code table of their histogram, and the
/// reference stream every encoder's output is checked against.
pub struct Case<'a> {
    pub name: String,
    pub data: &'a [u8],
    pub entropy_bits: f64,
    pub table: CodeTable,
    /// The CPU encoder's stream of `data` with `table` (MSB first, from bit 0).
    pub want: BitBuf,
    /// Input bytes over payload bytes.
    pub ratio: f64,
    pub crc32: u32,
    /// Timed runs per configuration.
    pub runs: usize,
    /// Bytes of the native container, from the first end-to-end output checked.
    container: Cell<Option<u64>>,
}

impl<'a> Case<'a> {
    /// The code table and the reference stream of `data`.
    pub fn new(name: String, data: &'a [u8], entropy_bits: f64, runs: usize) -> Result<Case<'a>> {
        let hist = crate::huffman::gzip::histogram(data);
        let table = Codebook::from_frequencies(&hist, NATIVE_MAX_CODE_LEN)?.table()?;
        let payload_bits = table.encoded_bits(&hist);
        let ratio = if payload_bits == 0 {
            0.0
        } else {
            data.len() as f64 * 8.0 / payload_bits as f64
        };
        let want = cpu::encode_parallel(data, &table, BitOrder::MsbFirst, 0)?;
        Ok(Case {
            name,
            data,
            entropy_bits,
            table,
            want,
            ratio,
            crc32: crc32fast::hash(data),
            runs,
            container: Cell::new(None),
        })
    }

    /// An error unless `got` is the reference stream bit for bit.
    pub fn check_stream(&self, what: &str, got: &BitBuf) -> Result<()> {
        check_bits(&format!("{what} on {}", self.name), got, &self.want)
    }

    /// An error unless the container `bytes` decodes to the input.
    pub fn check_container(&self, what: &str, bytes: &[u8]) -> Result<()> {
        let what = format!("{what} on {}", self.name);
        let back = decompress(bytes).map_err(|e| {
            Error::BenchMismatch(format!("{what}: its output does not decode: {e}"))
        })?;
        check_same(&what, "byte", &back, self.data)?;
        if self.container.get().is_none() {
            self.container.set(Some(bytes.len() as u64));
        }
        Ok(())
    }
}

/// Where the GPU rows put their measurements: variant, scope, times.
pub(crate) type Push<'p> = &'p mut dyn FnMut(String, &'static str, Best);

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

/// A failed configuration: a wrong output ends the run; anything else (a chained stall on
/// an adapter without forward progress, say) is reported and the run goes on.
fn reported(input: &str, variant: &str, e: Error) -> Result<()> {
    match e {
        Error::BenchMismatch(_) => Err(e),
        e => {
            eprintln!("{input}: {variant}: {e}");
            Ok(())
        }
    }
}

/// The name of what the rows run on.
fn adapter_name(gpu: Option<&Arc<Gpu>>, options: &BenchOptions) -> String {
    #[cfg(feature = "cuda")]
    if let Some(c) = &options.cuda {
        return match gpu {
            Some(g) => format!("{} / {}", g.adapter_name(), c.device.adapter_name()),
            None => c.device.adapter_name(),
        };
    }
    let _ = options;
    gpu.map_or("cpu".to_string(), |g| g.adapter_name())
}

/// Run the Huffman benchmark; `sink` receives each input's records as they are complete.
pub fn run_huffman(
    gpu: Option<&Arc<Gpu>>,
    options: &BenchOptions,
    sink: &mut dyn FnMut(&[Record]),
) -> Result<Vec<Record>> {
    let mut all = Vec::new();
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
        let case = Case::new(name, &data, entropy, options.runs)?;
        let records = bench_case(gpu, &case, options)?;
        sink(&records);
        all.extend(records);
    }
    Ok(all)
}

/// Every row of one input: each configuration checked, then timed.
pub fn bench_case(
    gpu: Option<&Arc<Gpu>>,
    case: &Case,
    options: &BenchOptions,
) -> Result<Vec<Record>> {
    let adapter = adapter_name(gpu, options);
    let name = case.name.as_str();
    let mut records: Vec<Record> = Vec::new();
    let mut push = |variant: String, scope: &'static str, b: Best| {
        records.push(Record {
            module: "huffman".into(),
            variant,
            scope: scope.into(),
            timing: if b.gpu.is_some() { KERNEL_ONLY } else { WALL }.into(),
            statistic: b.statistic,
            input: case.name.clone(),
            input_crc32: Some(case.crc32),
            bytes: case.data.len() as u64,
            entropy_bits: case.entropy_bits,
            seconds_gpu: b.gpu,
            seconds_wall: b.wall,
            ratio: case.ratio,
            container_bytes: None,
            adapter: adapter.clone(),
            speedup_vs_cpu_serial: None,
            speedup_vs_pavle_total: None,
        })
    };
    if let Some(g) = gpu {
        for &strategy in &options.strategies {
            let mut config = options.config;
            config.scan.strategy = strategy;
            if let Err(e) = gpu::bench_cuvle(g, case, &config, &mut push) {
                reported(name, &format!("cuvle-{}", strategy.name()), e)?;
            }
        }
        if let Err(e) = gpu::bench_stream(g, case, &options.config, &mut push) {
            reported(name, "stream", e)?;
        }
        if let Err(e) = gpu::bench_vld(g, case, &options.config, &mut push) {
            reported(name, "vld", e)?;
        }
    }
    #[cfg(feature = "cuda")]
    if let Some(cuda) = &options.cuda {
        for &strategy in &options.strategies {
            for (config, tuning) in &cuda.configs {
                let mut config = *config;
                config.scan.strategy = strategy;
                let mut variant = format!("cuvle-cuda-{}", strategy.name());
                let sweep = cuda.configs.len() > 1;
                if sweep {
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
                let r = gpu::bench_cuvle_cuda(
                    &cuda.device,
                    case,
                    &config,
                    tuning,
                    sweep,
                    &mut |scope, b| push(variant.clone(), scope, b),
                );
                if let Err(e) = r {
                    reported(name, &variant, e)?;
                }
            }
        }
    }
    #[cfg(feature = "cuda")]
    if let Some(cuda) = &options.cuda {
        let r = gpu::bench_vld_cuda(&cuda.device, case, &options.config, &mut |scope, b| {
            push("vld-cuda".into(), scope, b)
        });
        if let Err(e) = r {
            reported(name, "vld-cuda", e)?;
        }
    }
    if let Some(g) = gpu {
        if options.baselines {
            gpu::bench_baselines(g, case, &mut push)?;
        }
    }
    if case.data.len() as u64 <= options.cpu_max_bytes {
        bench_cpu(case, options.config.block_bytes(), &mut push)?;
    }
    add_speedups(&mut records);
    for r in records.iter_mut() {
        r.container_bytes = case.container.get();
    }
    Ok(records)
}

/// The CPU rows: the serial and the all-core encoder, and the CPU compress end to end
/// (native, `block_bytes` per block).
fn bench_cpu(case: &Case, block_bytes: u64, push: Push) -> Result<()> {
    let runs = if case.data.len() > (64 << 20) {
        1
    } else {
        case.runs
    };
    type Encoder = fn(&[u8], &CodeTable, BitOrder, u32) -> Result<BitBuf>;
    let cores = format!("cpu-{}-threads", rayon::current_num_threads());
    let encoders: [(String, Encoder); 2] = [
        ("cpu-serial".into(), cpu::encode_serial),
        (cores.clone(), cpu::encode_parallel),
    ];
    for (variant, encode) in encoders {
        let b = best_checked(
            runs,
            WARM_UP,
            || {
                let t = Instant::now();
                let output = encode(case.data, &case.table, BitOrder::MsbFirst, 0)?;
                Ok(Run {
                    wall: t.elapsed().as_secs_f64(),
                    gpu: None,
                    output,
                })
            },
            |got| case.check_stream(&variant, &got),
        )?;
        push(variant, "encode", b);
    }
    let b = best_checked(
        runs.min(2),
        WARM_UP,
        || {
            let t = Instant::now();
            let output = compress_cpu(case.data, Format::Native, block_bytes)?;
            Ok(Run {
                wall: t.elapsed().as_secs_f64(),
                gpu: None,
                output: output.bytes,
            })
        },
        |bytes| case.check_container(&format!("{cores} end-to-end"), &bytes),
    )?;
    push(cores, "end-to-end", b);
    Ok(())
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

/// One input's records as a table. "GB/s kernel only" is on the kernel times (GPU
/// timestamps, CUDA events), "GB/s wall" on the wall times; the speedups use the first
/// where there is one.
pub fn table(records: &[Record]) -> String {
    let Some(first) = records.first() else {
        return String::new();
    };
    let mut s = format!(
        "{} ({} bytes, {:.2} bits/byte, ratio {:.3}{}); every row's output checked\n",
        first.input,
        first.bytes,
        first.entropy_bits,
        first.ratio,
        first
            .container_bytes
            .map_or(String::new(), |c| format!(", native container {c} bytes"))
    );
    s.push_str(&format!(
        "  {:<26} {:<23} {:>16} {:>10} {:>9} {:>8}  {}\n",
        "variant", "scope", "GB/s kernel only", "GB/s wall", "x serial", "x pavle", "statistic"
    ));
    for r in records {
        s.push_str(&format!(
            "  {:<26} {:<23} {:>16} {:>10.2} {:>9} {:>8}  {}\n",
            r.variant,
            r.scope,
            cell(r.gbps_gpu(), 2),
            r.gbps_wall(),
            cell(r.speedup_vs_cpu_serial, 1),
            cell(r.speedup_vs_pavle_total, 2),
            r.statistic
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
