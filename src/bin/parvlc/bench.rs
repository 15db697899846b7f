//! `bench` (one suite per codec) and `plot`.

use std::io::Write;
use std::path::{Path, PathBuf};

use parvlc::bench::{self, BenchOptions};
use parvlc::gpu::Gpu;
use parvlc::scan::ScanStrategy;
use parvlc::{Backend, Error, Result};

use crate::huffman::Tuning;
use crate::output::write_file;
use crate::{open_engine, BackendArg};

#[derive(clap::Args)]
pub struct PlotArgs {
    results: PathBuf,
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(clap::Args)]
pub struct BenchArgs {
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
    /// wgpu: every stage in its workgroup-memory flavour (as browsers run them), not the
    /// subgroup one the adapter allows.
    #[arg(long)]
    workgroup_flavour: bool,
    #[command(flatten)]
    tuning: Tuning,
}

#[derive(clap::Subcommand)]
pub enum BenchModule {
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
        /// `--backend cpu`: the CPU rows alone (no GPU needed).
        #[command(flatten)]
        backend: BackendArg,
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
    /// all cores, the HTJ2K block coder on the GPU (ht_cleanup) and on all cores, the whole
    /// encoder, and opj_compress -M 1 where it is on PATH, in MSamples/s on synthetic RGB
    /// pictures.
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
        /// Seconds each GPU row runs back to back, untimed, before its timed runs (the
        /// GPU's memory path is faster once kept busy: docs/results.md, "Seventh pass").
        #[arg(long, default_value_t = 0.0)]
        warm_up: f64,
        /// `--backend cpu`: the CPU rows alone (no GPU needed).
        #[command(flatten)]
        backend: BackendArg,
        /// Write JSON Lines here.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// JPEG 2000 raw-segment bit-stuffing: vote, fsm and solo on the GPU, the serial reference
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
        #[arg(long, value_delimiter = ',', default_value = "vote,fsm,solo")]
        variants: Vec<String>,
        /// Timed runs per measurement (best is kept).
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// Seconds each GPU row runs back to back, untimed, before its timed runs (the
        /// GPU's memory path is faster once kept busy: docs/results.md, "Seventh pass").
        #[arg(long, default_value_t = 0.0)]
        warm_up: f64,
        /// Largest input the CPU rows run on.
        #[arg(long, default_value_t = 1 << 30)]
        cpu_max: u64,
        /// `--backend cpu`: the CPU rows alone (no GPU needed).
        #[command(flatten)]
        backend: BackendArg,
        /// Threads per workgroup (vote and fsm: a workgroup per segment; solo: an invocation).
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

pub fn plot(a: PlotArgs) -> Result<()> {
    write_file(
        &a.output,
        bench::plot_svg(&bench::read_records(&a.results)?)?.as_bytes(),
        true,
    )
}

/// `parvlc bench`: the Huffman suite, or the suite of the module named.
pub fn run(a: BenchArgs) -> Result<()> {
    let BenchArgs {
        module,
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
        workgroup_flavour,
        tuning,
    } = a;
    if let Some(module) = module {
        return bench_module(*module);
    }
    let backends = tuning.backend.clone();
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
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        for (name, entropy, size, seed) in bench::synthetic_inputs(&options) {
            let path = dir.join(format!("{name}.bin"));
            write_file(
                &path,
                &parvlc::testdata::generate(size as usize, entropy, seed),
                true,
            )?;
            println!("{}", path.display());
        }
        return Ok(());
    }
    let gpu = if backends.contains(&Backend::Wgpu) && workgroup_flavour {
        let options = parvlc::gpu::GpuOptions {
            allow_subgroups: false,
            ..Default::default()
        };
        Some(std::sync::Arc::new(pollster::block_on(Gpu::new(options))?))
    } else if backends.contains(&Backend::Wgpu) {
        open_engine(Backend::Wgpu)?.gpu().cloned()
    } else {
        None
    };
    #[allow(unused_mut)]
    let mut options = options;
    if backends.contains(&Backend::Cuda) {
        // An error where this build has no CUDA or no driver is found.
        #[allow(unused_variables)]
        let engine = open_engine(Backend::Cuda)?;
        #[cfg(feature = "cuda")]
        if let parvlc::Engine::Cuda(device, _) = engine {
            options.cuda = Some(bench::CudaBench {
                device: std::sync::Arc::from(device),
                configs: tuning.cuda_configs(),
            });
        }
    }
    if let Some(gpu) = &gpu {
        eprintln!("wgpu: {}, {:?} flavour", gpu.adapter_name(), gpu.flavour());
    }
    let records = report_rows(json.as_deref(), bench::table, |sink| {
        bench::run_huffman(gpu.as_ref(), &options, sink)
    })?;
    if let Some(p) = plot {
        write_file(&p, bench::plot_svg(&records)?.as_bytes(), true)?;
        eprintln!("plot: {}", p.display());
    }
    measured(records.len(), records.first().map(|r| r.adapter.as_str()));
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
            backend,
            reg_size,
            spin_budget,
            json,
        } => {
            let gpu = bench_gpu("bench cavlc", backend)?;
            let options = bench::CavlcBenchOptions {
                sizes: sizes
                    .iter()
                    .map(|s| bench::parse_frame_size(s))
                    .collect::<Result<_>>()?,
                qps,
                variants: if gpu.is_some() { variants } else { Vec::new() },
                slice_rows,
                runs,
                cpu_rows: !no_cpu,
                config: parvlc::cavlc::CavlcConfig {
                    reg_size,
                    spin_budget,
                    ..Default::default()
                },
            };
            let records = report_rows(json.as_deref(), bench::cavlc_table, |sink| {
                bench::run_cavlc(gpu.as_deref(), &options, sink)
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
            warm_up,
            backend,
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
                gpu_config: parvlc::j2k::tier1::gpu::Tier1GpuConfig {
                    workgroup_size,
                    ..Default::default()
                },
                warm_up_secs: warm_up,
            };
            let gpu = bench_gpu("bench j2k", backend)?;
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
            warm_up,
            cpu_max,
            backend,
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
            let gpu = bench_gpu("bench bitstuff", backend)?;
            let options = BitstuffBenchOptions {
                size,
                segment_bytes: (lo, hi),
                inputs,
                variants: if gpu.is_some() { variants } else { Vec::new() },
                cpu_max_bytes: cpu_max,
                runs,
                warm_up_secs: warm_up,
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
            let records = report_rows(json.as_deref(), bitstuff_table, |sink| {
                run_bitstuff(gpu.as_deref(), &options, sink)
            })?;
            measured(records.len(), records.first().map(|r| r.adapter.as_str()));
            Ok(())
        }
    }
}

/// The GPU of a suite's GPU rows, opened by `--backend` as every subcommand does (no
/// adapter: the CPU rows alone, after a warning); `None` for the CPU. The suites other than
/// Huffman's have no CUDA rows: `--backend cuda` is an error there.
fn bench_gpu(suite: &str, backend: BackendArg) -> Result<Option<std::sync::Arc<Gpu>>> {
    let engine = open_engine(backend.backend)?;
    Ok(engine.wgpu_or_cpu(suite)?.cloned())
}

/// Run a benchmark whose `run` hands each batch of records to a sink: print every batch as
/// a `table`, and append it as JSON lines to `json` when given.
fn report_rows<R: serde::Serialize>(
    json: Option<&Path>,
    table: fn(&[R]) -> String,
    run: impl FnOnce(&mut dyn FnMut(&[R])) -> Result<Vec<R>>,
) -> Result<Vec<R>> {
    // A log, written as the rows come so that a run cut short keeps what it measured.
    let mut json_out = match json {
        Some(p) => Some(crate::output::open_log(p)?),
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
