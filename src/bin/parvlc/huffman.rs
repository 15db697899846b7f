//! `compress`, `decompress`, `info` and `demo`: the Huffman coder.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use parvlc::huffman::compress::{Compressed, Format};
use parvlc::huffman::cuvle::CuvleConfig;
use parvlc::huffman::pipeline::{compress_stream, StreamConfig, StreamInput};
use parvlc::huffman::stream::{self, Description, Trailing};
use parvlc::scan::{ScanConfig, ScanStrategy};
use parvlc::{Backend, Engine, Error, Result};

use crate::output::OutputFile;
use crate::progress::{progress_bar, with_stage_bar, PROGRESS_THRESHOLD};

/// The compress pipeline's depth by default: fewer coders than the library's
/// `StreamConfig::default()`, to keep the process under 512 MiB. On the H200, 4 GiB from
/// standard input peaked at 452-466 MiB in four of six native runs at depth 10 and at
/// 575-578 MiB in the other two; at 8, at 423-448 MiB in all twelve runs (native and
/// gzip), native as fast (0.63-0.67 s), gzip 0.66-0.76 s against 0.65-0.69
/// (docs/results.md, "Twentieth pass").
const COMPRESS_DEPTH: u32 = 8;

/// The compress pipeline's chunks by default: half the library's, for the same reason
/// (the library's 8 MiB gain where coders place chunks in a vector, not in a stream).
const COMPRESS_CHUNK: &str = "4M";

#[derive(clap::Args)]
pub struct CompressArgs {
    /// The file to compress, or `-` for standard input (then standard output by default).
    input: PathBuf,
    /// The output file, or `-` for standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Input bytes per chunk of the pipeline (K, M and G suffixes).
    #[arg(long, default_value = COMPRESS_CHUNK, value_parser = parse_size)]
    chunk_size: usize,
    /// Chunks coded at once (two fewer than the library's default, which took the
    /// process past 512 MiB at times).
    #[arg(long, default_value_t = COMPRESS_DEPTH, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: u32,
    #[arg(short, long, default_value = "native")]
    format: Format,
    /// Overwrite an existing output file.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    tuning: Tuning,
}

#[derive(clap::Args)]
pub struct DecompressArgs {
    /// The file to decompress, or `-` for standard input (then standard output by default).
    input: PathBuf,
    /// The output file, or `-` for standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Output bytes decoded per batch of native frames or of our gzip's indexed frames
    /// (K, M and G suffixes; on a GPU, batches of 16 MiB at most, several in flight).
    #[arg(long, default_value = "32M", value_parser = parse_size)]
    chunk_size: usize,
    /// Overwrite an existing output file.
    #[arg(long)]
    force: bool,
    /// Where native framed files and parvlc's gzip (members whose frame index lists
    /// blocks) decode. auto: a GPU (wgpu) for a file of at least 160 MiB per CPU core
    /// (`PARVLC_GPU_DECODE_FROM` bytes) and for a pipe once it has decoded that much, the
    /// CPU cores otherwise and where there is no GPU (a CPU rasterizer is none); cpu: all
    /// cores; wgpu: any adapter (the CPU, with a warning, when there is none); cuda:
    /// NVIDIA (builds with the `cuda` feature; the CPU, with a warning, when the driver
    /// is there and no device opens). While a GPU opens, the stream's first batches
    /// decode on the CPU cores. Other gzip members and native v1 files decode on the CPU.
    #[arg(long, default_value = "auto")]
    backend: DecodeOn,
}

/// Where `decompress` decodes: `auto`, or one backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeOn {
    Auto,
    Only(Backend),
}

impl std::str::FromStr for DecodeOn {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(DecodeOn::Auto),
            _ => s.parse().map(DecodeOn::Only).map_err(|_| {
                Error::InvalidArgument(format!("unknown backend `{s}` (auto, wgpu, cuda, cpu)"))
            }),
        }
    }
}

/// Compressed bytes per CPU core from which `decompress --backend auto` decodes a file
/// on a GPU, and output bytes per core after which it opens one for a pipe (2.5 GiB on
/// 16 cores). The cores decode about 0.3-0.4 GB/s each, and a GPU costs a quarter of a
/// second to open and close: on the H200's 16-core host the GPU route was 0.12-0.20 s
/// slower for 1 and 2 GiB and as fast or a little faster for 4 GiB, with half the CPU
/// time (docs/results.md, "Thirty-third pass"). Fewer cores reach that point sooner.
const GPU_DECODE_FROM_PER_CORE: u64 = 160 << 20;

/// `PARVLC_GPU_DECODE_FROM` (a size, as `--chunk-size` takes it), or
/// [`GPU_DECODE_FROM_PER_CORE`] times the cores.
fn gpu_decode_from() -> Result<u64> {
    match std::env::var("PARVLC_GPU_DECODE_FROM") {
        Ok(v) => parse_size(&v)
            .map(|n| n as u64)
            .map_err(|e| Error::InvalidArgument(format!("PARVLC_GPU_DECODE_FROM={v:?}: {e}"))),
        Err(_) => Ok(GPU_DECODE_FROM_PER_CORE * rayon::current_num_threads() as u64),
    }
}

#[derive(clap::Args)]
pub struct InfoArgs {
    file: PathBuf,
}

#[derive(clap::Args, Clone)]
pub struct Tuning {
    /// Where to run: wgpu (any GPU; the CPU, with a warning, when there is no adapter),
    /// cuda (NVIDIA; builds with the `cuda` feature) or cpu. `bench` takes a list, e.g.
    /// wgpu,cuda, and measures them side by side.
    #[arg(long, value_delimiter = ',', default_value = "wgpu")]
    pub backend: Vec<Backend>,
    /// Inter-workgroup scan: chained, decoupled or reduce_then_scan.
    #[arg(long, default_value = "decoupled")]
    pub strategy: ScanStrategy,
    /// Input words per GPU invocation (4, 8, 16, 32). `bench` takes a list for CUDA.
    #[arg(long, value_delimiter = ',', default_value = "16")]
    net: Vec<u32>,
    /// Threads per workgroup (default 256; a stream's compress, 64: its native blocks
    /// are a workgroup's input, and blocks of 4 KiB decode faster on a GPU). `bench` takes
    /// a list for CUDA.
    #[arg(long, value_delimiter = ',')]
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
    pub fn config(&self, backend: Backend) -> CuvleConfig {
        let default = CuvleConfig::default().scan.workgroup_size;
        self.config_with(backend, self.net[0], self.workgroup_sizes(default)[0])
    }

    /// The configuration of a streamed compress on `backend`: the library's
    /// [`StreamConfig`] default shape unless the flags say otherwise.
    pub fn stream_config(&self, backend: Backend) -> CuvleConfig {
        let default = StreamConfig::default().cuvle;
        CuvleConfig {
            host_output: default.host_output,
            ..self.config_with(
                backend,
                self.net[0],
                self.workgroup_sizes(default.scan.workgroup_size)[0],
            )
        }
    }

    /// `--workgroup-size`, or `default` where it is not given.
    fn workgroup_sizes(&self, default: u32) -> Vec<u32> {
        if self.workgroup_size.is_empty() {
            vec![default]
        } else {
            self.workgroup_size.clone()
        }
    }

    pub fn config_with(&self, backend: Backend, net: u32, workgroup_size: u32) -> CuvleConfig {
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
            host_output: false,
        }
    }

    /// The one backend of compress and demo.
    fn backend(&self) -> Result<Backend> {
        match self.backend[..] {
            [b] => Ok(b),
            _ => Err(Error::InvalidArgument(
                "give one --backend here (lists are for bench)".into(),
            )),
        }
    }

    fn single(&self) -> Result<()> {
        let lists = [self.net.len(), self.workgroup_size.len().max(1)];
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
    pub fn cuda_configs(&self) -> Vec<(CuvleConfig, parvlc::cuda::CudaConfig)> {
        let blocks: Vec<Option<u32>> = if self.blocks_per_sm.is_empty() {
            vec![None]
        } else {
            self.blocks_per_sm.iter().map(|&b| Some(b)).collect()
        };
        let mut configs = Vec::new();
        for wg in self.workgroup_sizes(CuvleConfig::default().scan.workgroup_size) {
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

/// A size in bytes with an optional K, M or G suffix (powers of two).
fn parse_size(s: &str) -> std::result::Result<usize, String> {
    let (digits, unit) = match s.strip_suffix(['K', 'k']) {
        Some(d) => (d, 1 << 10),
        None => match s.strip_suffix(['M', 'm']) {
            Some(d) => (d, 1 << 20),
            None => match s.strip_suffix(['G', 'g']) {
                Some(d) => (d, 1 << 30),
                None => (s, 1),
            },
        },
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`{s}`: give a positive size such as 4194304, 512K, 32M or 2G"))
}

/// `-`: standard input or output, as gzip takes it.
fn is_stdio(p: &Path) -> bool {
    p.as_os_str() == "-"
}

/// Where a command's output goes: a file committed at the end, or standard output.
enum Sink {
    File(OutputFile),
    Stdout(std::io::Stdout),
}

impl Sink {
    /// `output`, or standard output for `-` (also the default when the input is `-`).
    fn open(output: &Path, force: bool) -> Result<Sink> {
        if is_stdio(output) {
            Ok(Sink::Stdout(std::io::stdout()))
        } else {
            Ok(Sink::File(OutputFile::create(output, force)?))
        }
    }

    fn writer(&mut self) -> &mut (dyn std::io::Write + Send) {
        match self {
            Sink::File(f) => f,
            Sink::Stdout(s) => s,
        }
    }

    fn commit(self) -> Result<()> {
        match self {
            Sink::File(f) => f.commit(),
            Sink::Stdout(mut s) => {
                use std::io::Write;
                s.flush().map_err(|e| Error::io("<stdout>", e))
            }
        }
    }
}

fn display(p: &Path) -> String {
    if is_stdio(p) {
        "<stdin>".into()
    } else {
        p.display().to_string()
    }
}

pub fn compress(a: CompressArgs) -> Result<()> {
    let output = a.output.clone().unwrap_or_else(|| {
        if is_stdio(&a.input) {
            return PathBuf::from("-");
        }
        let ext = if a.format == Format::Gzip {
            "gz"
        } else {
            "pvlc"
        };
        PathBuf::from(format!("{}.{ext}", a.input.display()))
    });
    let mut out = Sink::open(&output, a.force)?;
    let engine = open_engine(&a.tuning)?;
    let t = Instant::now();
    let (bytes_in, bytes_out) = {
        let config = StreamConfig {
            chunk_bytes: a.chunk_size,
            depth: a.depth as usize,
            cuvle: a.tuning.stream_config(engine.backend()),
            ..StreamConfig::for_format(a.format)
        };
        // Standard input redirected from a regular file is read as that file.
        let file = if is_stdio(&a.input) {
            stdin_file()
        } else {
            Some(File::open(&a.input).map_err(|e| Error::io(&a.input, e))?)
        };
        let meta = file.as_ref().and_then(|f| f.metadata().ok());
        let size = meta.as_ref().map_or(0, |m| m.len());
        // Positional reads need a regular file; a fifo or a device is read in order.
        let regular = meta.is_some_and(|m| m.is_file());
        let mut stdin = std::io::stdin();
        let mut other = file.as_ref().filter(|_| !regular);
        let input = match (&file, &mut other) {
            (Some(f), None) => StreamInput::File(f),
            (_, Some(f)) => StreamInput::Reader(f),
            (None, None) => StreamInput::Reader(&mut stdin),
        };
        let bar = progress_bar(
            size > PROGRESS_THRESHOLD,
            size,
            "{spinner} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        );
        let summary = compress_stream(
            &engine,
            a.format,
            &config,
            input,
            out.writer(),
            &mut |done| {
                if let Some(b) = &bar {
                    b.set_position(done);
                }
            },
        )
        .map_err(|e| annotate(&a.input, Some(&output), e));
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        let summary = summary?;
        (summary.bytes_in, summary.bytes_out)
    };
    out.commit()?;
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "{} -> {}: {} -> {} bytes (ratio {:.3}) in {:.3} s ({:.2} GB/s) on {}",
        display(&a.input),
        if is_stdio(&output) {
            "<stdout>".into()
        } else {
            output.display().to_string()
        },
        bytes_in,
        bytes_out,
        bytes_in as f64 / bytes_out.max(1) as f64,
        secs,
        bytes_in as f64 / secs.max(1e-9) / 1e9,
        engine.name()
    );
    Ok(())
}

pub fn decompress(a: DecompressArgs) -> Result<ExitCode> {
    let output = match a.output {
        Some(o) => o,
        None if is_stdio(&a.input) => PathBuf::from("-"),
        None => default_decompressed_name(&a.input)?,
    };
    let mut out = Sink::open(&output, a.force)?;
    // Written as decoded; a corrupt input is an error before the commit, and dropping
    // `out` removes what was written.
    // A regular file (standard input redirected from one included) has its native
    // frames' payloads and our gzip's indexed frames read at their offsets, in parallel;
    // a pipe or a device, in order.
    let file = if is_stdio(&a.input) {
        stdin_file()
    } else {
        let file = File::open(&a.input).map_err(|e| Error::io(&a.input, e))?;
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        Some(file).filter(|_| regular)
    };
    let len = file
        .as_ref()
        .and_then(|f| f.metadata().ok())
        .map(|m| m.len());
    let bar = progress_bar(
        len.is_some_and(|n| n > PROGRESS_THRESHOLD),
        0,
        "{spinner} {bytes} written ({bytes_per_sec}, {elapsed})",
    );
    let mut written = Counted {
        inner: out.writer(),
        bar: bar.as_ref(),
    };
    let done = match &file {
        Some(f) => {
            let head = peek(f).map_err(|e| Error::io(&a.input, e))?;
            let len = len.unwrap_or(0);
            match opening(a.backend, &head, Some(len))? {
                Some((open, when)) => {
                    stream::decompress_file_opening(open, when, f, &mut written, a.chunk_size)
                }
                None => stream::decompress_file_on(&Engine::Cpu, f, &mut written, a.chunk_size),
            }
        }
        None if is_stdio(&a.input) => {
            widen_stdin_pipe();
            let mut input = BufReader::with_capacity(256 << 10, std::io::stdin());
            let head = input.fill_buf().map_err(Error::ReadInput)?;
            let open = opening(a.backend, head, None)?;
            decode_stream(open, &mut input, &mut written, a.chunk_size)
        }
        None => {
            let mut input = open_input(&a.input)?;
            let head = input.fill_buf().map_err(|e| Error::io(&a.input, e))?;
            let open = opening(a.backend, head, None)?;
            decode_stream(open, &mut input, &mut written, a.chunk_size)
        }
    }
    .map_err(|e| annotate(&a.input, Some(&output), e));
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let done = done?;
    out.commit()?;
    if done.unindexed_members > 0 {
        eprintln!(
            "parvlc: {}: {} of {} gzip member(s) without parvlc's frame index, decoded on \
             one core",
            display(&a.input),
            done.unindexed_members,
            done.members
        );
    }
    Ok(trailing_status(&a.input, done.trailing))
}

/// A decompress's output, counted on its progress bar (a regular file's input of more
/// than [`PROGRESS_THRESHOLD`], where standard error is a terminal).
struct Counted<'a> {
    inner: &'a mut (dyn std::io::Write + Send),
    bar: Option<&'a indicatif::ProgressBar>,
}

impl std::io::Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        if let Some(b) = self.bar {
            b.inc(n as u64);
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Freed allocations of a megabyte or more go back to the system at once (glibc keeps
/// them for reuse once one of their size has been freed): a decompress's batches come
/// and go in sizes that differ between the CPU cores' output and the GPU's readbacks,
/// and the GPU decoder's peak with the first batches on the CPU went from 494-596 MiB
/// to 471-504 (4 GiB, H200, docs/results.md, "Thirty-second pass").
fn return_freed_batches() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of the allocator; called before the decoders'
    // threads start (by `opening`: the CPU path alone, measured without it, keeps glibc's
    // default).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

/// The first bytes of `file` from its position, which is left where it was.
fn peek(file: &File) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file;
    let start = f.stream_position()?;
    let mut head = Vec::with_capacity(5);
    f.take(5).read_to_end(&mut head)?;
    f.seek(SeekFrom::Start(start))?;
    Ok(head)
}

/// For a stream a GPU decodes (starting with `head`; `file_len` for a regular file),
/// the engine's opening, to run on another thread beside the stream from when it says,
/// after what would fail at once has failed here (a later failure of an asked-for
/// backend: a warning, then the CPU). `None`: the CPU cores decode it (`--backend cpu`,
/// `auto` and a small file, native v1, anything else), and no GPU is opened.
#[allow(clippy::type_complexity)]
fn opening(
    on: DecodeOn,
    head: &[u8],
    file_len: Option<u64>,
) -> Result<Option<(impl FnOnce() -> Engine + Send, stream::OpenGpu)>> {
    if on == DecodeOn::Only(Backend::Cpu) || !gpu_decodes(head) {
        return Ok(None);
    }
    let when = match (on, file_len) {
        (DecodeOn::Only(backend), _) => {
            Engine::probe(backend)?;
            stream::OpenGpu::Now
        }
        (DecodeOn::Auto, Some(len)) if len >= gpu_decode_from()? => stream::OpenGpu::Now,
        (DecodeOn::Auto, Some(_)) => return Ok(None),
        (DecodeOn::Auto, None) => stream::OpenGpu::After(gpu_decode_from()?),
    };
    return_freed_batches();
    let open = move || match on {
        DecodeOn::Only(backend) => crate::open_engine(backend).unwrap_or_else(|e| {
            eprintln!("parvlc: warning: {e}; decoding on the CPU");
            Engine::Cpu
        }),
        DecodeOn::Auto => match pollster::block_on(Engine::open(Backend::Wgpu)) {
            Ok(Engine::Wgpu(gpu)) if gpu.is_software() => {
                log::debug!("{} is no GPU: decoding on the CPU", gpu.adapter_name());
                Engine::Cpu
            }
            Ok(engine) => engine,
            Err(e) => {
                log::debug!("{e}: decoding on the CPU");
                Engine::Cpu
            }
        },
    };
    Ok(Some((open, when)))
}

/// A stream read in order (a pipe, a device) decoded on the GPU that `open` opens beside
/// it, or on the CPU cores.
fn decode_stream(
    open: Option<(impl FnOnce() -> Engine + Send, stream::OpenGpu)>,
    input: &mut impl BufRead,
    output: &mut (impl std::io::Write + Send),
    batch_bytes: usize,
) -> Result<stream::Decompressed> {
    match open {
        Some((open, when)) => stream::decompress_to_opening(open, when, input, output, batch_bytes),
        None => stream::decompress_to_on(&Engine::Cpu, input, output, batch_bytes),
    }
}

/// Whether a stream that starts with `head` may decode on a GPU (native framed, gzip).
fn gpu_decodes(head: &[u8]) -> bool {
    head.len() < 5 || parvlc::huffman::native::is_framed(head) || head.starts_with(&[0x1f, 0x8b])
}

pub fn info(a: InfoArgs) -> Result<ExitCode> {
    let file = a.file;
    let mut input = open_input(&file)?;
    let len = input
        .get_ref()
        .metadata()
        .map_err(|e| Error::io(&file, e))?
        .len();
    match stream::describe(&mut input, len).map_err(|e| annotate(&file, None, e))? {
        Description::Native(text) => {
            println!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Description::Gzip(done) => {
            println!(
                "gzip: {} bytes compressed, {} bytes original (ratio {:.3})",
                len,
                done.bytes_out,
                done.bytes_out as f64 / len.max(1) as f64
            );
            Ok(trailing_status(&file, done.trailing))
        }
    }
}

/// gzip's convention for data after the last member that starts no member: the members'
/// output stands, one warning, exit status 2.
fn trailing_status(input: &Path, trailing: Trailing) -> ExitCode {
    if trailing == Trailing::Garbage {
        eprintln!(
            "parvlc: {}: decompression OK, trailing garbage ignored",
            input.display()
        );
        return ExitCode::from(crate::WARNING);
    }
    ExitCode::SUCCESS
}

fn open_input(path: &Path) -> Result<BufReader<File>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    Ok(BufReader::with_capacity(256 << 10, file))
}

/// Standard input as a file of its own, where it is one (`< file`): chunks are then read
/// at their offsets in parallel rather than in order.
#[cfg(unix)]
fn stdin_file() -> Option<File> {
    use std::os::fd::AsFd;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let file = File::from(fd);
    if file.metadata().ok()?.is_file() {
        return Some(file);
    }
    widen_stdin_pipe();
    None
}

/// Standard input read from a pipe: ask for a 1 MiB pipe buffer (Linux; the default
/// 64 KiB one wakes the reader every 64 KiB, and a 4 GiB input through `cat` ran at 1.5
/// GB/s). Where it is not a pipe, or the system refuses, nothing changes.
fn widen_stdin_pipe() {
    #[cfg(target_os = "linux")]
    // SAFETY: fcntl on our own standard input; F_SETPIPE_SZ takes an int and only
    // resizes a pipe's buffer (EBADF or EINVAL otherwise, which we ignore).
    unsafe {
        libc::fcntl(libc::STDIN_FILENO, libc::F_SETPIPE_SZ, 1 << 20);
    }
}

#[cfg(not(unix))]
fn stdin_file() -> Option<File> {
    None
}

#[cfg(not(unix))]
fn widen_stdin_pipe() {}

/// The backend of compress and demo, opened by [`crate::open_engine`]; CUDA with the
/// tuning flags.
pub fn open_engine(tuning: &Tuning) -> Result<Engine> {
    tuning.single()?;
    #[allow(unused_mut)]
    let mut engine = crate::open_engine(tuning.backend()?)?;
    #[cfg(feature = "cuda")]
    if let Engine::Cuda(_, cuda_tuning) = &mut engine {
        *cuda_tuning = tuning.cuda_configs()[0].1;
    }
    Ok(engine)
}

pub fn compress_any(
    engine: &Engine,
    data: &[u8],
    format: Format,
    config: &CuvleConfig,
) -> Result<Compressed> {
    with_stage_bar(data.len() as u64 > PROGRESS_THRESHOLD, 5, |progress| {
        pollster::block_on(parvlc::huffman::compress(
            engine, data, format, config, progress,
        ))
    })
}

/// Names the files in a library error: the input in corrupt-data and read errors, the
/// output in write errors.
fn annotate(input: &Path, output: Option<&Path>, e: Error) -> Error {
    match e {
        Error::Corrupt { format, reason } => Error::Corrupt {
            format,
            reason: format!("{}: {reason}", input.display()),
        },
        Error::ReadInput(e) => Error::io(input, e),
        Error::WriteOutput(e) => Error::io(output.unwrap_or(input), e),
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

#[cfg(test)]
mod tests {
    use clap::Parser;

    /// The CLI's pipeline is its own, holding less than the library's (memory): 4 MiB
    /// chunks, 8 at once.
    #[test]
    fn compress_defaults_hold_less_than_the_librarys() {
        let cli = crate::Cli::try_parse_from(["parvlc", "compress", "x"]).expect("parses");
        let crate::Command::Compress(a) = cli.command else {
            panic!("not compress")
        };
        let library = parvlc::huffman::pipeline::StreamConfig::default();
        assert_eq!((a.chunk_size, a.depth), (4 << 20, super::COMPRESS_DEPTH));
        assert!(a.chunk_size <= library.chunk_bytes && (a.depth as usize) < library.depth);
    }

    /// Sizes in bytes, K, M or G; nothing else, and never zero or past usize.
    #[test]
    fn sizes_take_k_m_and_g() {
        use super::parse_size;
        assert_eq!(parse_size("4194304"), Ok(4 << 20));
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("32m"), Ok(32 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        for bad in [
            "0",
            "0K",
            "",
            "G",
            "1T",
            "1.5G",
            "-1",
            "99999999999999999999G",
        ] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    /// `--backend` of decompress: auto (the default) or one backend.
    #[test]
    fn decompress_backend_is_auto_by_default() {
        let parse = |args: &[&str]| match crate::Cli::try_parse_from(args).map(|c| c.command) {
            Ok(crate::Command::Decompress(a)) => Ok(a.backend),
            Ok(_) => panic!("not decompress"),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(
            parse(&["parvlc", "decompress", "x"]),
            Ok(super::DecodeOn::Auto)
        );
        assert_eq!(
            parse(&["parvlc", "decompress", "--backend", "wgpu", "x"]),
            Ok(super::DecodeOn::Only(parvlc::Backend::Wgpu))
        );
        let e = parse(&["parvlc", "decompress", "--backend", "gpu", "x"]).unwrap_err();
        assert!(e.contains("auto, wgpu, cuda, cpu"), "{e}");
    }
}
