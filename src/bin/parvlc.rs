//! The parvlc command line: compress, decompress, info, demo, bench, h264.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use parvlc::bench::{self, BenchOptions};
use parvlc::gpu::{Gpu, GpuOptions};
use parvlc::h264::{self, CavlcEngine};
use parvlc::huffman::compress::{decompress, detect_format, Compressed, Format};
use parvlc::huffman::cuvle::CuvleConfig;
use parvlc::huffman::native;
use parvlc::scan::{ScanConfig, ScanStrategy};
use parvlc::{Backend, Engine, Error, Result};

#[derive(Parser)]
#[command(
    name = "parvlc",
    version,
    about = "Parallel variable-length coding on any GPU"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
struct Tuning {
    /// Run on the CPU even when a GPU adapter is present (the same as --backend cpu).
    #[arg(long)]
    cpu: bool,
    /// Where to run: wgpu (any GPU; the CPU, with a warning, when there is no adapter),
    /// cuda (NVIDIA; builds with the `cuda` feature) or cpu. `bench` takes a list, e.g.
    /// wgpu,cuda, and measures them side by side.
    #[arg(long, value_delimiter = ',', default_value = "wgpu")]
    backend: Vec<Backend>,
    /// Inter-workgroup scan: chained, decoupled or reduce_then_scan.
    #[arg(long, default_value = "decoupled")]
    strategy: ScanStrategy,
    /// Input words per GPU invocation (4, 8, 16, 32). `bench` takes a list for CUDA.
    #[arg(long, value_delimiter = ',', default_value = "16")]
    net: Vec<u32>,
    /// Threads per workgroup. `bench` takes a list for CUDA.
    #[arg(long, value_delimiter = ',', default_value = "256")]
    workgroup_size: Vec<u32>,
    /// Persistent workgroups launched (default: 1024 on wgpu; on CUDA, as many as are
    /// resident at once, from the occupancy API).
    #[arg(long)]
    resident: Option<u32>,
    /// wgpu: words of the block stage in workgroup memory (0: the paper's direct writes;
    /// default: as much as the adapter allows).
    #[arg(long)]
    stage_words: Option<u32>,
    /// CUDA: how threads write their codes: warp (warp-cooperative, coalesced) or direct
    /// (the paper's). `bench` takes a list.
    #[cfg(feature = "cuda")]
    #[arg(long, value_delimiter = ',', default_value = "warp")]
    cuda_write: Vec<parvlc::cuda::CudaWrite>,
    /// CUDA: blocks per multiprocessor, registers bounded to fit (default: as many as the
    /// multiprocessor has threads for). `bench` takes a list.
    #[cfg(feature = "cuda")]
    #[arg(long, value_delimiter = ',')]
    blocks_per_sm: Vec<u32>,
}

impl Tuning {
    /// The configuration on `backend` (the first of each list).
    fn config(&self, backend: Backend) -> CuvleConfig {
        self.config_with(backend, self.net[0], self.workgroup_size[0])
    }

    fn config_with(&self, backend: Backend, net: u32, workgroup_size: u32) -> CuvleConfig {
        let resident = self.resident.unwrap_or(match backend {
            Backend::Cuda => u32::MAX,
            _ => ScanConfig::default().resident_workgroups,
        });
        CuvleConfig {
            net,
            scan: ScanConfig {
                strategy: self.strategy,
                resident_workgroups: resident,
                workgroup_size,
                ..ScanConfig::default()
            },
            max_segment_bytes: None,
            stage_words: self.stage_words,
        }
    }

    /// The one backend of compress and demo.
    fn backend(&self) -> Result<Backend> {
        if self.cpu {
            return Ok(Backend::Cpu);
        }
        match self.backend[..] {
            [b] => Ok(b),
            _ => Err(Error::InvalidArgument(
                "give one --backend here (lists are for bench)".into(),
            )),
        }
    }

    fn single(&self) -> Result<()> {
        let lists = [self.net.len(), self.workgroup_size.len()];
        #[cfg(feature = "cuda")]
        let lists = [
            lists[0],
            lists[1],
            self.cuda_write.len(),
            self.blocks_per_sm.len().max(1),
        ];
        if lists.iter().any(|&n| n != 1) {
            return Err(Error::InvalidArgument(
                "give one value of each tuning flag here (lists are for bench)".into(),
            ));
        }
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn cuda_configs(&self) -> Vec<(CuvleConfig, parvlc::cuda::CudaConfig)> {
        let blocks: Vec<Option<u32>> = if self.blocks_per_sm.is_empty() {
            vec![None]
        } else {
            self.blocks_per_sm.iter().map(|&b| Some(b)).collect()
        };
        let mut configs = Vec::new();
        for &wg in &self.workgroup_size {
            for &net in &self.net {
                for &write in &self.cuda_write {
                    for &blocks_per_sm in &blocks {
                        configs.push((
                            self.config_with(Backend::Cuda, net, wg),
                            parvlc::cuda::CudaConfig {
                                write,
                                blocks_per_sm,
                                ..Default::default()
                            },
                        ));
                    }
                }
            }
        }
        configs
    }
}

#[derive(Subcommand)]
enum Command {
    /// Compress a file (native format, or gzip that any gunzip reads).
    Compress {
        input: PathBuf,
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[arg(short, long, default_value = "native")]
        format: Format,
        /// Overwrite an existing output file.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        tuning: Tuning,
    },
    /// Decompress a native file or any gzip file.
    Decompress {
        input: PathBuf,
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[arg(long)]
        force: bool,
    },
    /// Describe a compressed file.
    Info { file: PathBuf },
    /// Encode a PGM/PPM (P5/P6) or PNG image losslessly into a JPEG 2000 codestream
    /// (reversible 5/3, one tile, one layer, LRCP, selective arithmetic coding bypass).
    J2k {
        input: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        /// DWT levels (reduced on images too small for them, as OpenJPEG requires).
        #[arg(long, default_value_t = 5)]
        levels: u32,
        /// Code-block width and height: 64 or 32.
        #[arg(long, default_value_t = 64)]
        cblk: u32,
        /// Bit-plane from which SPP and MRP are coded raw: 5 is JPEG 2000 Part 1's bypass
        /// style; `none` codes every pass with the MQ coder. Other values are Part 2's
        /// variable bypass point, which Part 1 decoders (OpenJPEG) do not decode correctly.
        #[arg(long, default_value = "5")]
        bypass_from: BypassFrom,
        /// Run tier-1 on the CPU.
        #[arg(long)]
        cpu: bool,
        /// Overwrite an existing output file.
        #[arg(long)]
        force: bool,
    },
    /// Compress generated data of several entropies, verify the round trip, print speeds.
    Demo {
        /// Bytes per sample.
        #[arg(long, default_value_t = 64 << 20)]
        size: u64,
        #[command(flatten)]
        tuning: Tuning,
    },
    /// Encode a Y4M (8-bit 4:2:0) file as an intra-only H.264 Baseline Annex B stream.
    H264 {
        input: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        /// Quantization parameter, 0 (finest) ..= 51.
        #[arg(long, default_value_t = 26, value_parser = clap::value_parser!(u8).range(0..=51))]
        qp: u8,
        /// CAVLC engine: cavlcu, recompute, su (GPU) or cpu. A GPU engine falls back to
        /// cpu, with a message, when there is no GPU adapter.
        #[arg(long, default_value = "cavlcu")]
        cavlc: CavlcEngine,
        /// Macroblock rows per slice (default: one slice per picture).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        slice_rows: Option<u32>,
        /// Also write the reconstruction (what decoders output) as raw yuv420p frames.
        #[arg(long)]
        recon: Option<PathBuf>,
        /// Overwrite existing output files.
        #[arg(long)]
        force: bool,
    },
    /// Plot results written by `bench --json` (throughput against entropy and size).
    Plot {
        results: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Benchmark every encoder on the same inputs: GPU and wall times, ratio, speedups.
    /// `parvlc bench` is the Huffman suite; `parvlc bench cavlc` the H.264 CAVLC one;
    /// `parvlc bench j2k` the JPEG 2000 one; `parvlc bench bitstuff` JPEG 2000 raw-segment
    /// bit-stuffing.
    #[command(args_conflicts_with_subcommands = true)]
    Bench {
        #[command(subcommand)]
        module: Option<Box<BenchModule>>,
        /// Input sizes in bytes (comma separated).
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "262144,1048576,16777216,268435456,1073741824"
        )]
        sizes: Vec<u64>,
        /// Entropies in bits per byte.
        #[arg(long, value_delimiter = ',', default_value = "0.5,2,4.5,7,8")]
        entropies: Vec<f64>,
        /// Scan strategies for cuvle.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "decoupled,reduce_then_scan,chained"
        )]
        strategies: Vec<ScanStrategy>,
        /// Skip the papers' GPU baselines (pavle, bytestream).
        #[arg(long)]
        no_baselines: bool,
        /// Timed runs per measurement (best is kept).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Largest input the CPU baselines run on.
        #[arg(long, default_value_t = 1 << 30)]
        cpu_max: u64,
        /// Write JSON Lines here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Draw throughput against entropy and size into this SVG file.
        #[arg(long)]
        plot: Option<PathBuf>,
        /// Write the synthetic inputs to this folder (for other tools) and exit.
        #[arg(long)]
        dump: Option<PathBuf>,
        /// Real files to add to the inputs.
        files: Vec<PathBuf>,
        #[command(flatten)]
        tuning: Tuning,
    },
}

/// Benchmark suites other than Huffman's.
#[derive(Subcommand)]
enum BenchModule {
    /// H.264 CAVLC: cavlcu, recompute and su on the GPU (CAVLC alone and with packing),
    /// the CPU encoder on one core and on all cores, on frames of the given sizes and QPs.
    Cavlc {
        /// Frame sizes: 1080p, 2160p, 720p, or WIDTHxHEIGHT in pixels.
        #[arg(long, value_delimiter = ',', default_value = "1080p,2160p")]
        sizes: Vec<String>,
        /// QPs of the frames.
        #[arg(long, value_delimiter = ',', default_value = "22,27,32,37")]
        qps: Vec<u8>,
        /// GPU variants.
        #[arg(long, value_delimiter = ',', default_value = "cavlcu,recompute,su")]
        variants: Vec<parvlc::cavlc::GpuVariant>,
        /// Macroblock rows per slice (default: one slice per frame).
        #[arg(long)]
        slice_rows: Option<u32>,
        /// Timed runs per measurement (best is kept).
        #[arg(long, default_value_t = 20)]
        runs: usize,
        /// Skip the CPU encoder rows.
        #[arg(long)]
        no_cpu: bool,
        /// The CPU rows alone (no GPU needed).
        #[arg(long)]
        cpu: bool,
        /// cavlcu macroblocks per workgroup (REG_SIZE, 1..=16).
        #[arg(long, default_value_t = 8)]
        reg_size: u32,
        /// cavlcu polls of a neighbour before recomputing it.
        #[arg(long, default_value_t = 64)]
        spin_budget: u32,
        /// Write JSON Lines here.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// JPEG 2000: the GPU tier-1 in fast mode and all-MQ, the CPU tier-1 on one core and
    /// all cores, the whole encoder, and opj_compress -M 1 where it is on PATH, in
    /// MSamples/s on synthetic RGB pictures.
    J2k {
        /// Pictures: 2K (2048x1080), 4K (4096x2160) or WIDTHxHEIGHT.
        #[arg(long, value_delimiter = ',', default_value = "2K,4K")]
        sizes: Vec<String>,
        /// Timed runs per measurement (best is kept; CPU rows run at most twice).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// DWT levels.
        #[arg(long, default_value_t = 5)]
        levels: u32,
        /// Code-block size (64 or 32).
        #[arg(long, default_value_t = 64)]
        cblk: u32,
        /// First raw bit-plane of the fast mode (5: Part 1).
        #[arg(long, default_value_t = 5)]
        bypass_from: u32,
        /// Skip the one-core CPU tier-1.
        #[arg(long)]
        no_one_core: bool,
        /// GPU tier-1 invocations per workgroup (one workgroup per code-block): 128 or 256.
        #[arg(long, default_value_t = 256)]
        workgroup_size: u32,
        /// Skip opj_compress.
        #[arg(long)]
        no_openjpeg: bool,
        /// The CPU rows alone (no GPU).
        #[arg(long)]
        cpu: bool,
        /// Write JSON Lines here.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// JPEG 2000 raw-segment bit-stuffing: vote and fsm on the GPU, the serial reference
    /// on one core and on all cores, on random bits and adversarial inputs cut into
    /// code-block sized segments; GB/s of raw input and the vote's iteration counts.
    Bitstuff {
        /// Raw bytes per input, all segments together.
        #[arg(long, default_value_t = 256 << 20)]
        size: u64,
        /// Segment lengths in bytes, MIN-MAX (uniform).
        #[arg(long, default_value = "1024-4096")]
        segment: String,
        /// Inputs: random (what raw SPP/MRP bits look like), all-ff, alternating (0xFF
        /// every other byte), cascade (each inserted zero makes the next 0xFF).
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "random,all-ff,alternating,cascade"
        )]
        inputs: Vec<String>,
        /// GPU variants.
        #[arg(long, value_delimiter = ',', default_value = "vote,fsm")]
        variants: Vec<String>,
        /// Timed runs per measurement (best is kept).
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// Largest input the CPU rows run on.
        #[arg(long, default_value_t = 1 << 30)]
        cpu_max: u64,
        /// The CPU rows alone (no GPU needed).
        #[arg(long)]
        cpu: bool,
        /// Threads per workgroup (one workgroup per segment).
        #[arg(long, default_value_t = 256)]
        workgroup_size: u32,
        /// fsm: raw words per invocation per round.
        #[arg(long, default_value_t = 1)]
        fsm_words: u32,
        /// Longest segment the GPU stages take, in bits (sizes their workgroup memory).
        #[arg(long, default_value_t = parvlc::bitstuff::DEFAULT_MAX_SEGMENT_BITS)]
        max_segment_bits: u32,
        /// Predictable (ERTERM) termination instead of the plain BYPASS flush.
        #[arg(long)]
        predictable: bool,
        /// Write JSON Lines here.
        #[arg(long)]
        json: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parvlc: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The GPU, or a one-line warning and None (the CPU path).
fn open_gpu(cpu: bool) -> Option<Gpu> {
    if cpu {
        return None;
    }
    match pollster::block_on(Gpu::new(GpuOptions::default())) {
        Ok(g) => Some(g),
        Err(e) => {
            eprintln!("parvlc: warning: {e}; using the CPU path");
            None
        }
    }
}

/// The backend of compress and demo: wgpu falls back to the CPU with one warning when
/// there is no adapter; CUDA without a driver (or without the feature) is an error.
fn open_engine(tuning: &Tuning) -> Result<Engine> {
    tuning.single()?;
    match tuning.backend()? {
        Backend::Wgpu => Ok(match open_gpu(false) {
            Some(g) => Engine::Wgpu(Box::new(g)),
            None => Engine::Cpu,
        }),
        Backend::Cpu => Ok(Engine::Cpu),
        Backend::Cuda => {
            #[allow(unused_mut)]
            let mut engine = pollster::block_on(Engine::open(Backend::Cuda))?;
            #[cfg(feature = "cuda")]
            if let Engine::Cuda(_, cuda_tuning) = &mut engine {
                *cuda_tuning = tuning.cuda_configs()[0].1;
            }
            Ok(engine)
        }
    }
}

/// The error for an I/O failure on `path`.
fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.into(),
        source,
    }
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(io_error(path))
}

/// Refuse to replace an existing `path` unless `--force`; checked before any work starts.
fn refuse_existing(path: &Path, force: bool) -> Result<()> {
    if path.exists() && !force {
        return Err(Error::OutputExists(path.into()));
    }
    Ok(())
}

/// Write `data` to `path` all or nothing: a temporary file beside it, synced, renamed.
fn write_atomically(path: &Path, data: &[u8], force: bool) -> Result<()> {
    let mut file = AtomicFile::create(path, force)?;
    file.write(data)?;
    file.commit()
}

const PROGRESS_THRESHOLD: u64 = 64 << 20;

/// A bar of `len` steps drawn by `template`, or None when the job is too small to need one.
fn progress_bar(show: bool, len: u64, template: &str) -> Option<indicatif::ProgressBar> {
    show.then(|| {
        let bar = indicatif::ProgressBar::new(len);
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    })
}

/// Run `job`, showing the stages it reports on a bar of `stages` steps when `show`.
fn with_stage_bar<S: std::fmt::Debug, T>(
    show: bool,
    stages: u64,
    job: impl FnOnce(&mut dyn FnMut(S)) -> T,
) -> T {
    let bar = progress_bar(show, stages, "{spinner} [{bar:20}] {msg} ({elapsed})");
    if let Some(b) = &bar {
        b.enable_steady_tick(std::time::Duration::from_millis(100));
    }
    let out = job(&mut |stage: S| {
        if let Some(b) = &bar {
            b.set_message(format!("{stage:?}"));
            b.inc(1);
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    out
}

fn compress_any(
    engine: &Engine,
    data: &[u8],
    format: Format,
    config: &CuvleConfig,
) -> Result<Compressed> {
    with_stage_bar(data.len() as u64 > PROGRESS_THRESHOLD, 5, |progress| {
        pollster::block_on(engine.compress(data, format, config, progress))
    })
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Compress {
            input,
            output,
            format,
            force,
            tuning,
        } => {
            let data = read(&input)?;
            let output = output.unwrap_or_else(|| {
                let ext = if format == Format::Gzip { "gz" } else { "pvlc" };
                PathBuf::from(format!("{}.{ext}", input.display()))
            });
            refuse_existing(&output, force)?;
            let engine = open_engine(&tuning)?;
            let t = Instant::now();
            let c = compress_any(&engine, &data, format, &tuning.config(engine.backend()))?;
            write_atomically(&output, &c.bytes, force)?;
            eprintln!(
                "{} -> {}: {} -> {} bytes (ratio {:.3}) in {:.3} s on {}",
                input.display(),
                output.display(),
                data.len(),
                c.bytes.len(),
                data.len() as f64 / c.bytes.len().max(1) as f64,
                t.elapsed().as_secs_f64(),
                engine.name()
            );
            Ok(())
        }
        Command::Decompress {
            input,
            output,
            force,
        } => {
            let data = read(&input)?;
            let output = match output {
                Some(o) => o,
                None => default_decompressed_name(&input)?,
            };
            refuse_existing(&output, force)?;
            let plain = decompress(&data).map_err(|e| annotate(&input, e))?;
            write_atomically(&output, &plain, force)
        }
        Command::Info { file } => {
            let data = read(&file)?;
            match detect_format(&data) {
                Some(Format::Native) => println!(
                    "{}",
                    native::info_native(&data).map_err(|e| annotate(&file, e))?
                ),
                Some(Format::Gzip) => {
                    let plain = decompress(&data).map_err(|e| annotate(&file, e))?;
                    println!(
                        "gzip: {} bytes compressed, {} bytes original (ratio {:.3})",
                        data.len(),
                        plain.len(),
                        plain.len() as f64 / data.len().max(1) as f64
                    );
                }
                None => {
                    return Err(Error::BadMagic {
                        format: "parvlc native or gzip",
                        reason: format!("{} has neither magic", file.display()),
                    })
                }
            }
            Ok(())
        }
        Command::J2k {
            input,
            output,
            levels,
            cblk,
            bypass_from,
            cpu,
            force,
        } => j2k_encode(&input, &output, levels, cblk, bypass_from.0, cpu, force),
        Command::Demo { size, tuning } => demo(size, &tuning),
        Command::H264 {
            input,
            output,
            qp,
            cavlc,
            slice_rows,
            recon,
            force,
        } => encode_h264(
            &input,
            &output,
            recon.as_deref(),
            h264::EncoderConfig {
                qp,
                slice_rows,
                cavlc,
            },
            force,
        ),
        Command::Plot { results, output } => bench::plot(&bench::read_records(&results)?, &output),
        Command::Bench {
            module: Some(module),
            ..
        } => bench_module(*module),
        Command::Bench {
            module: None,
            sizes,
            entropies,
            strategies,
            no_baselines,
            runs,
            cpu_max,
            json,
            plot,
            dump,
            files,
            tuning,
        } => {
            let backends = if tuning.cpu {
                vec![Backend::Cpu]
            } else {
                tuning.backend.clone()
            };
            // The GPU rows run on the first configuration; CUDA rows on every one listed.
            let options = BenchOptions {
                sizes,
                entropies,
                strategies,
                config: tuning.config(Backend::Wgpu),
                runs,
                cpu_max_bytes: cpu_max,
                baselines: !no_baselines,
                files,
                #[cfg(feature = "cuda")]
                cuda: None,
            };
            if let Some(dir) = dump {
                std::fs::create_dir_all(&dir).map_err(io_error(&dir))?;
                for (name, entropy, size, seed) in bench::synthetic_inputs(&options) {
                    let path = dir.join(format!("{name}.bin"));
                    write_atomically(
                        &path,
                        &parvlc::testdata::generate(size as usize, entropy, seed),
                        true,
                    )?;
                    println!("{}", path.display());
                }
                return Ok(());
            }
            let gpu = if backends.contains(&Backend::Wgpu) {
                open_gpu(false)
            } else {
                None
            };
            #[allow(unused_mut)]
            let mut options = options;
            if backends.contains(&Backend::Cuda) {
                #[cfg(feature = "cuda")]
                {
                    options.cuda = Some(bench::CudaBench {
                        device: std::sync::Arc::new(parvlc::cuda::CudaGpu::new()?),
                        configs: tuning.cuda_configs(),
                    });
                }
                #[cfg(not(feature = "cuda"))]
                return Err(pollster::block_on(Engine::open(Backend::Cuda))
                    .err()
                    .unwrap_or_else(|| Error::Cuda("unavailable".into())));
            }
            let records = report_rows(json.as_deref(), bench::table, |sink| {
                bench::run_huffman(gpu.as_ref(), &options, sink)
            })?;
            if let Some(p) = plot {
                bench::plot(&records, &p)?;
                eprintln!("plot: {}", p.display());
            }
            measured(records.len(), records.first().map(|r| r.adapter.as_str()));
            Ok(())
        }
    }
}

/// `--bypass-from`: a bit-plane number or `none`.
#[derive(Clone, Copy, Debug)]
struct BypassFrom(Option<u32>);

impl std::str::FromStr for BypassFrom {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        if s.eq_ignore_ascii_case("none") {
            return Ok(BypassFrom(None));
        }
        s.parse()
            .map(|k| BypassFrom(Some(k)))
            .map_err(|_| format!("`{s}`: give a bit-plane number (5 for Part 1) or none"))
    }
}

/// Images with more samples than this show progress.
const J2K_PROGRESS_SAMPLES: u64 = 4 << 20;

/// The tier-1 engine of `parvlc j2k`: the GPU unless --cpu or no adapter (then the CPU,
/// after one warning).
/// Tier-1 engine and front end: both on the GPU unless `--cpu` or no adapter.
fn j2k_engine(
    cpu: bool,
) -> Result<(
    std::sync::Arc<dyn parvlc::j2k::Tier1Engine>,
    parvlc::j2k::FrontEnd,
)> {
    match open_gpu(cpu) {
        Some(gpu) => {
            let gpu = std::sync::Arc::new(gpu);
            Ok((
                std::sync::Arc::new(parvlc::j2k::tier1_gpu::GpuTier1::new(gpu.clone())?),
                parvlc::j2k::FrontEnd::Gpu(gpu),
            ))
        }
        None => Ok((
            std::sync::Arc::new(parvlc::j2k::CpuTier1),
            parvlc::j2k::FrontEnd::Cpu,
        )),
    }
}

fn j2k_encode(
    input: &Path,
    output: &Path,
    levels: u32,
    cblk: u32,
    bypass_from: Option<u32>,
    cpu: bool,
    force: bool,
) -> Result<()> {
    use parvlc::j2k::{self, EncoderConfig, Image};
    refuse_existing(output, force)?;
    if cblk != 64 && cblk != 32 {
        return Err(Error::InvalidArgument(format!(
            "--cblk {cblk}: use 64 or 32"
        )));
    }
    if bypass_from.is_some_and(|k| k != 5) {
        log::warn!(
            "--bypass-from {}: a Part 2 bypass point; Part 1 decoders (OpenJPEG) will not decode this stream correctly",
            bypass_from.unwrap_or(5)
        );
    }
    let image = Image::read(input)?;
    let (engine, front_end) = j2k_engine(cpu)?;
    let config = EncoderConfig {
        levels,
        cblk,
        bypass_from,
        engine,
        front_end,
    };
    let samples = image.samples.len() as u64;
    let t = Instant::now();
    let cs = with_stage_bar(samples > J2K_PROGRESS_SAMPLES, 3, |progress| {
        pollster::block_on(j2k::encode_with_progress(&image, &config, progress))
    })?;
    write_atomically(output, &cs, force)?;
    let raw = samples * image.bit_depth.div_ceil(8) as u64;
    eprintln!(
        "{} -> {}: {}x{}, {} component(s), {} bits, {} -> {} bytes (ratio {:.3}) in {:.3} s, tier-1 on {}",
        input.display(),
        output.display(),
        image.width,
        image.height,
        image.components,
        image.bit_depth,
        raw,
        cs.len(),
        raw as f64 / cs.len().max(1) as f64,
        t.elapsed().as_secs_f64(),
        config.engine.name()
    );
    Ok(())
}

fn bench_module(module: BenchModule) -> Result<()> {
    match module {
        BenchModule::Cavlc {
            sizes,
            qps,
            variants,
            slice_rows,
            runs,
            no_cpu,
            cpu,
            reg_size,
            spin_budget,
            json,
        } => {
            let options = bench::CavlcBenchOptions {
                sizes: sizes
                    .iter()
                    .map(|s| bench::parse_frame_size(s))
                    .collect::<Result<_>>()?,
                qps,
                variants: if cpu { Vec::new() } else { variants },
                slice_rows,
                runs,
                cpu_rows: !no_cpu,
                config: parvlc::cavlc::CavlcConfig {
                    reg_size,
                    spin_budget,
                    ..Default::default()
                },
            };
            let gpu = (!options.variants.is_empty())
                .then(|| bench_gpu("cavlc"))
                .transpose()?;
            let records = report_rows(json.as_deref(), bench::cavlc_table, |sink| {
                bench::run_cavlc(gpu.as_ref(), &options, sink)
            })?;
            measured(records.len(), records.first().map(|r| r.adapter.as_str()));
            Ok(())
        }
        BenchModule::J2k {
            sizes,
            runs,
            levels,
            cblk,
            bypass_from,
            no_one_core,
            workgroup_size,
            no_openjpeg,
            cpu,
            json,
        } => {
            use parvlc::j2k::bench::{j2k_table, parse_picture_size, run_j2k, J2kBenchOptions};
            let options = J2kBenchOptions {
                sizes: sizes
                    .iter()
                    .map(|s| parse_picture_size(s))
                    .collect::<Result<_>>()?,
                runs,
                levels,
                cblk,
                bypass_from,
                openjpeg: !no_openjpeg,
                cpu_one_core: !no_one_core,
                gpu_config: parvlc::j2k::tier1_gpu::Tier1GpuConfig {
                    workgroup_size,
                    ..Default::default()
                },
            };
            let gpu = open_gpu(cpu).map(std::sync::Arc::new);
            let records = report_rows(json.as_deref(), j2k_table, |sink| {
                run_j2k(gpu, &options, sink)
            })?;
            measured(records.len(), records.first().map(|r| r.adapter.as_str()));
            Ok(())
        }
        BenchModule::Bitstuff {
            size,
            segment,
            inputs,
            variants,
            runs,
            cpu_max,
            cpu,
            workgroup_size,
            fsm_words,
            max_segment_bits,
            predictable,
            json,
        } => {
            use parvlc::bitstuff::bench::{bitstuff_table, run_bitstuff, BitstuffBenchOptions};
            let bad_range = || {
                Error::InvalidArgument(format!(
                    "--segment wants MIN-MAX in bytes (e.g. 1024-4096), not `{segment}`"
                ))
            };
            let (lo, hi) = segment.split_once('-').ok_or_else(bad_range)?;
            let lo: u64 = lo.trim().parse().map_err(|_| bad_range())?;
            let hi: u64 = hi.trim().parse().map_err(|_| bad_range())?;
            if lo == 0 || lo > hi {
                return Err(bad_range());
            }
            let options = BitstuffBenchOptions {
                size,
                segment_bytes: (lo, hi),
                inputs,
                variants: if cpu { Vec::new() } else { variants },
                cpu_max_bytes: cpu_max,
                runs,
                config: parvlc::bitstuff::BitstuffConfig {
                    workgroup_size,
                    max_segment_bits,
                    fsm_words,
                    max_dispatch_bytes: None,
                },
                term: if predictable {
                    parvlc::bitstuff::Termination::Predictable
                } else {
                    parvlc::bitstuff::Termination::Plain
                },
            };
            let gpu = (!options.variants.is_empty())
                .then(|| bench_gpu("bitstuff"))
                .transpose()?;
            let records = report_rows(json.as_deref(), bitstuff_table, |sink| {
                run_bitstuff(gpu.as_ref(), &options, sink)
            })?;
            measured(records.len(), records.first().map(|r| r.adapter.as_str()));
            Ok(())
        }
    }
}

/// The GPU a benchmark's GPU rows need, or an error saying how to run without one.
fn bench_gpu(module: &str) -> Result<Gpu> {
    pollster::block_on(Gpu::new(GpuOptions::default())).map_err(|e| {
        Error::InvalidArgument(format!(
            "bench {module} needs a GPU ({e}); --cpu runs the CPU rows alone"
        ))
    })
}

/// Run a benchmark whose `run` hands each batch of records to a sink: print every batch as
/// a `table`, and append it as JSON lines to `json` when given.
fn report_rows<R: serde::Serialize>(
    json: Option<&Path>,
    table: fn(&[R]) -> String,
    run: impl FnOnce(&mut dyn FnMut(&[R])) -> Result<Vec<R>>,
) -> Result<Vec<R>> {
    let mut json_out = match json {
        Some(p) => Some(std::fs::File::create(p).map_err(io_error(p))?),
        None => None,
    };
    run(&mut |records| {
        println!("{}", table(records));
        if let Some(f) = json_out.as_mut() {
            for r in records {
                if let Ok(line) = serde_json::to_string(r) {
                    let _ = writeln!(f, "{line}");
                }
            }
        }
    })
}

/// The closing line of a benchmark: how many rows, measured on which adapter.
fn measured(rows: usize, adapter: Option<&str>) {
    eprintln!("{rows} measurements on {}", adapter.unwrap_or("the CPU"));
}

fn annotate(path: &Path, e: Error) -> Error {
    match e {
        Error::Corrupt { format, reason } => Error::Corrupt {
            format,
            reason: format!("{}: {reason}", path.display()),
        },
        other => other,
    }
}

fn default_decompressed_name(input: &Path) -> Result<PathBuf> {
    let s = input.to_string_lossy();
    for ext in [".pvlc", ".gz"] {
        if let Some(stem) = s.strip_suffix(ext) {
            if !stem.is_empty() {
                return Ok(PathBuf::from(stem));
            }
        }
    }
    Err(Error::InvalidArgument(format!(
        "cannot derive an output name from {s} (no .pvlc or .gz): give -o"
    )))
}

fn demo(size: u64, tuning: &Tuning) -> Result<()> {
    let engine = open_engine(tuning)?;
    let config = tuning.config(engine.backend());
    println!(
        "parvlc demo on {}: {} per sample, native format, {} scan",
        engine.name(),
        bench::human(size),
        tuning.strategy.name()
    );
    println!(
        "{:>8} {:>9} {:>12} {:>12} {:>12}  round trip",
        "entropy", "ratio", "GB/s wall", "GB/s kernel", "segments"
    );
    for (i, entropy) in [0.5, 2.0, 4.5, 7.0, 8.0].into_iter().enumerate() {
        let data = parvlc::testdata::generate(size as usize, entropy, 7 + i as u64);
        let _ = compress_any(&engine, &data, Format::Native, &config)?; // warm-up
        let t = Instant::now();
        let c = compress_any(&engine, &data, Format::Native, &config)?;
        let wall = t.elapsed().as_secs_f64();
        let back = decompress(&c.bytes)?;
        let ok = back == data;
        let kernel = c.timings.total();
        println!(
            "{:>8.1} {:>9.3} {:>12.2} {:>12} {:>12}  {}",
            entropy,
            data.len() as f64 / c.bytes.len() as f64,
            data.len() as f64 / wall / 1e9,
            if kernel > 0.0 {
                format!("{:.2}", data.len() as f64 / kernel / 1e9)
            } else {
                "-".into()
            },
            c.segments,
            if ok { "ok" } else { "MISMATCH" }
        );
        if !ok {
            return Err(Error::Gpu {
                stage: "demo",
                message: "round trip mismatch".into(),
            });
        }
    }
    Ok(())
}

/// A file written in place of `path` through a temporary file beside it, renamed into
/// place by [`AtomicFile::commit`]; dropped uncommitted, it leaves nothing behind.
struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<std::io::BufWriter<std::fs::File>>,
}

impl AtomicFile {
    fn create(path: &Path, force: bool) -> Result<AtomicFile> {
        refuse_existing(path, force)?;
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.parvlc-{}.tmp", std::process::id()));
        let file = std::fs::File::create(&tmp).map_err(io_error(&tmp))?;
        Ok(AtomicFile {
            path: path.into(),
            tmp,
            file: Some(std::io::BufWriter::with_capacity(1 << 20, file)),
        })
    }

    fn write(&mut self, data: &[u8]) -> Result<()> {
        match self.file.as_mut() {
            Some(f) => f.write_all(data).map_err(io_error(&self.tmp)),
            None => Ok(()),
        }
    }

    fn commit(mut self) -> Result<()> {
        let result = (|| {
            if let Some(f) = self.file.take() {
                let f = f
                    .into_inner()
                    .map_err(|e| io_error(&self.tmp)(e.into_error()))?;
                f.sync_all().map_err(io_error(&self.tmp))?;
            }
            std::fs::rename(&self.tmp, &self.path).map_err(io_error(&self.path))
        })();
        // A failed sync or rename must not leave the temporary file behind either.
        if result.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        result
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

fn encode_h264(
    input: &Path,
    output: &Path,
    recon: Option<&Path>,
    mut config: h264::EncoderConfig,
    force: bool,
) -> Result<()> {
    for p in std::iter::once(output).chain(recon) {
        refuse_existing(p, force)?;
    }
    let mut reader = h264::y4m::Y4mReader::open(input)?;
    let header = reader.header().clone();
    let gpu = if config.cavlc.is_gpu() {
        let gpu = open_gpu(false);
        if gpu.is_none() {
            log::info!("no GPU adapter: CAVLC runs on the CPU reference");
            config.cavlc = CavlcEngine::Cpu;
        }
        gpu
    } else {
        None
    };
    let mut encoder = h264::Encoder::new(
        header.width,
        header.height,
        header.fps_f64(),
        config,
        gpu.as_ref(),
    )?;
    let mut out = AtomicFile::create(output, force)?;
    let mut recon_out = recon.map(|p| AtomicFile::create(p, force)).transpose()?;

    let total = std::fs::metadata(input).map(|m| m.len()).unwrap_or(0);
    let frames_estimate = total / (header.frame_bytes() as u64 + 6).max(1);
    let bar = progress_bar(
        total > PROGRESS_THRESHOLD,
        frames_estimate,
        "{spinner} [{bar:20}] {pos}/{len} frames ({elapsed})",
    );
    let t = Instant::now();
    let mut bytes = 0u64;
    while let Some(picture) = reader.read_frame()? {
        let coded = pollster::block_on(encoder.encode(&picture))?;
        out.write(&coded.bytes)?;
        bytes += coded.bytes.len() as u64;
        if let Some(r) = recon_out.as_mut() {
            r.write(&coded.recon.to_yuv420p())?;
        }
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let frames = reader.frames_read();
    if frames == 0 {
        return Err(Error::InvalidArgument(format!(
            "{}: the Y4M file holds no frames",
            input.display()
        )));
    }
    out.commit()?;
    if let Some(r) = recon_out {
        r.commit()?;
    }
    eprintln!(
        "{} -> {}: {frames} frames {}x{}, QP {}, CAVLC {}: {bytes} bytes in {:.3} s",
        input.display(),
        output.display(),
        header.width,
        header.height,
        config.qp,
        config.cavlc,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
