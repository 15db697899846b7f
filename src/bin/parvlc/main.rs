//! The parvlc command line: one file per subcommand, every output through [`output`].

mod bench;
mod demo;
mod h264;
mod huffman;
mod j2k;
mod output;
mod progress;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use parvlc::{Backend, Engine, Result};

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

#[derive(Subcommand)]
enum Command {
    /// Compress a file (native format, or gzip that any gunzip reads).
    Compress(huffman::CompressArgs),
    /// Decompress a native file or any gzip file.
    Decompress(huffman::DecompressArgs),
    /// Describe a compressed file.
    Info(huffman::InfoArgs),
    /// Encode a PGM/PPM (P5/P6) or PNG image losslessly into a JPEG 2000 codestream
    /// (reversible 5/3, one tile, one layer, LRCP, selective arithmetic coding bypass);
    /// several images (a sequence) into a folder, some at once.
    J2k(j2k::J2kArgs),
    /// Compress generated data of several entropies, verify the round trip, print speeds.
    Demo(demo::DemoArgs),
    /// Encode a Y4M (8-bit 4:2:0) file as an intra-only H.264 Baseline Annex B stream.
    H264(h264::H264Args),
    /// Plot results written by `bench --json` (throughput against entropy and size).
    Plot(bench::PlotArgs),
    /// Benchmark every encoder on the same inputs: GPU and wall times, ratio, speedups.
    /// `parvlc bench` is the Huffman suite; `parvlc bench cavlc` the H.264 CAVLC one;
    /// `parvlc bench j2k` the JPEG 2000 one; `parvlc bench bitstuff` JPEG 2000 raw-segment
    /// bit-stuffing.
    #[command(args_conflicts_with_subcommands = true)]
    Bench(bench::BenchArgs),
}

/// Exit status of a run that succeeded with a warning (gzip's: trailing garbage ignored).
const WARNING: u8 = 2;

fn main() -> ExitCode {
    quiet_headless_vulkan();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format_timestamp_millis()
        .init();
    let started = std::time::Instant::now();
    // The first line of a debug log: its timestamp is where the process's own work starts.
    log::debug!("parvlc {} started", env!("CARGO_PKG_VERSION"));
    let cli = Cli::parse();
    let ok = |()| ExitCode::SUCCESS;
    let result = match cli.command {
        Command::Compress(a) => huffman::compress(a).map(ok),
        Command::Decompress(a) => huffman::decompress(a),
        Command::Info(a) => huffman::info(a),
        Command::J2k(a) => j2k::encode(a).map(ok),
        Command::Demo(a) => demo::demo(a).map(ok),
        Command::H264(a) => h264::encode(a).map(ok),
        Command::Plot(a) => bench::plot(a).map(ok),
        Command::Bench(a) => bench::run(a).map(ok),
    };
    // Everything the subcommand held (the GPU device and its buffers) is gone by now.
    log::debug!("done after {:.1} ms", started.elapsed().as_secs_f64() * 1e3);
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("parvlc: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Mesa's device-select Vulkan layer asks a Wayland compositor for the default GPU, and
/// libwayland prints "XDG_RUNTIME_DIR is invalid or not set" where there is none (a
/// headless machine). A compute-only program has no use for that answer: skip the layer
/// there. Called first, while the process has one thread.
fn quiet_headless_vulkan() {
    let unset = |k| std::env::var_os(k).is_none();
    if unset("XDG_RUNTIME_DIR") && unset("WAYLAND_DISPLAY") && unset("NODEVICE_SELECT") {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
}

/// `--backend`: where a codec runs, the same flag on every codec subcommand (compress and
/// bench, which take a list there, have it in their tuning flags).
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct BackendArg {
    /// Where to run: wgpu (any GPU; the CPU, with a warning, when there is no adapter),
    /// cuda (NVIDIA; builds with the `cuda` feature; Huffman only) or cpu.
    #[arg(long, default_value = "wgpu")]
    pub backend: Backend,
}

/// Open `backend` for a subcommand, with the one fallback policy of the CLI: wgpu without
/// an adapter runs on the CPU after one warning; CUDA without a driver (or without the
/// feature) is an error.
pub fn open_engine(backend: Backend) -> Result<Engine> {
    let t = std::time::Instant::now();
    let opened = pollster::block_on(Engine::open(backend));
    log::debug!(
        "{backend:?} opened in {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    match opened {
        Err(e) if backend == Backend::Wgpu => {
            eprintln!("parvlc: warning: {e}; using the CPU path");
            Ok(Engine::Cpu)
        }
        opened => opened,
    }
}
