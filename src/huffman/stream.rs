//! Streaming decompression: compressed bytes from a reader, the original written out as
//! it is decoded, in memory bounded whatever the sizes (a native batch and its payload
//! bytes; for gzip, a batch of indexed frames, or flate2's window).
//!
//! gzip members that carry our frame index ([`super::gzip_index`]) are decoded frame
//! by frame on all cores, in batches; any other member (from gzip, pigz, zlib) goes
//! through flate2 on one core, and [`Decompressed::unindexed_members`] says how many did.
//!
//! gzip input follows GNU gzip's rules (gzip 1.12, `get_method`) for what comes after a
//! member: another member (`1f 8b`) is decoded; zero bytes up to the end are ignored;
//! anything else is trailing garbage, reported in [`Decompressed::trailing`] for the
//! caller to warn about (gzip writes the output, warns and exits with status 2); a lone
//! nonzero byte, or a member in a format gzip reads and we do not, is an error.

use std::io::{BufRead, Read, Write};

use super::compress::{detect_format, Format};
#[cfg(not(target_arch = "wasm32"))]
use super::framed_decode::Opening;
use super::framed_decode::{DecodeGpu, GpuSource};
use super::native::{self, read_full};
use crate::{Error, Result};

mod batch;
mod counted;
mod members;

use batch::{Job, Jobs};
use counted::Counted;
use members::{gzip_members, read_members, GZIP_GPU_BATCH_BYTES};

/// What followed the last gzip member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trailing {
    /// Nothing: the input ended with the member.
    None,
    /// Only zero bytes (ignored, as gzip does).
    Zeros,
    /// Bytes that start no member: gzip decodes the members, warns and exits with 2.
    Garbage,
}

/// What a streaming decompression did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decompressed {
    pub format: Format,
    /// Bytes written to the output.
    pub bytes_out: u64,
    /// Input offset where the compressed data ended (trailing data starts there).
    pub data_end: u64,
    /// gzip members decoded (1 for a native file).
    pub members: u64,
    /// gzip members without our frame index, decoded on one core (0 for native).
    pub unindexed_members: u64,
    pub trailing: Trailing,
}

/// Decompresses a native or gzip stream from `input` into `output` as it goes. On an
/// error the output holds a prefix that must be discarded: the checksums come last.
pub fn decompress_to(
    input: &mut impl BufRead,
    output: &mut (impl Write + Send),
) -> Result<Decompressed> {
    decompress_to_batched(input, output, native::DEFAULT_BATCH_BYTES)
}

/// [`decompress_to`], decoding native files `batch_bytes` of output at a time.
pub fn decompress_to_batched(
    input: &mut impl BufRead,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<Decompressed> {
    decompress_to_on(&crate::Engine::Cpu, input, output, batch_bytes)
}

/// [`decompress_to_batched`] on `engine`: native framed (v2) files decode on its GPU,
/// wgpu's (shaders/huffman/vld.wgsl) or CUDA's (shaders/cuda/vld.cu), everything else on
/// the CPU cores (gzip, native v1).
pub fn decompress_to_on(
    engine: &crate::Engine,
    input: &mut impl BufRead,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<Decompressed> {
    decompress_to_from(DecodeGpu::of(engine).into(), input, output, batch_bytes)
}

/// When a GPU opened beside a stream ([`decompress_file_opening`],
/// [`decompress_to_opening`]) starts opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenGpu {
    /// At once; the stream's first batches decode on the CPU cores meanwhile.
    Now,
    /// Once this many bytes of output have decoded on the CPU cores in batches a GPU
    /// could have taken: a shorter stream never opens a driver (opening and closing one
    /// takes about a quarter of a second on the H200).
    After(u64),
}

/// [`decompress_to_on`] the engine that `open` returns, opened on another thread beside
/// the stream (`when` says from when; [`decompress_file_opening`] for a regular file):
/// for a pipe.
#[cfg(not(target_arch = "wasm32"))]
pub fn decompress_to_opening(
    open: impl FnOnce() -> crate::Engine + Send,
    when: OpenGpu,
    input: &mut impl BufRead,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<Decompressed> {
    while_opening(open, when, |gpu| {
        decompress_to_from(gpu, input, output, batch_bytes)
    })
}

/// `run` on the GPU of the engine that `open` returns on another thread meanwhile, from
/// `when` on; returns once both are done (the engine dropped then). An opening that has
/// not started when `run` is done never starts.
#[cfg(not(target_arch = "wasm32"))]
fn while_opening<T>(
    open: impl FnOnce() -> crate::Engine + Send,
    when: OpenGpu,
    run: impl FnOnce(GpuSource<'_>) -> Result<T>,
) -> Result<T> {
    let (start, started) = std::sync::mpsc::channel();
    let opening = Opening::new(
        match when {
            OpenGpu::Now => 0,
            OpenGpu::After(bytes) => bytes.max(1),
        },
        start,
    );
    let opening = &opening;
    std::thread::scope(|s| {
        s.spawn(move || {
            if started.recv().is_ok() {
                let _ = opening.engine.set(open());
            }
        });
        let done = run(GpuSource::Opening(opening));
        opening.never();
        done
    })
}

fn decompress_to_from(
    gpu: GpuSource<'_>,
    input: &mut impl BufRead,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<Decompressed> {
    let (mut input, head, got) = sniff(input)?;
    let head = &head[..got];
    match detect_format(head) {
        Some(Format::Native) => {
            let bytes_out = native::decompress_native_with(
                gpu,
                &mut head.chain(&mut input),
                output,
                batch_bytes,
            )?;
            Ok(Decompressed {
                format: Format::Native,
                bytes_out,
                data_end: input.count,
                members: 1,
                unindexed_members: 0,
                trailing: Trailing::None,
            })
        }
        Some(Format::Gzip) => gzip_members(head, &mut input, output, batch_bytes, gpu, None),
        None => Err(not_compressed(head)),
    }
}

/// Decompresses `data` (native or gzip, in memory) on `engine` without blocking: a
/// native framed (v2) file, and our gzip's members whose index lists blocks, decode on
/// its GPU a batch at a time, each batch's GPU work awaited (in a browser, readbacks
/// await its buffer mapping); anything else, or any file on the CPU engine, as
/// [`super::compress::decompress`] decodes it. The web's GPU
/// decode; natively, [`decompress_to_on`] overlaps batches on threads.
pub async fn decompress_async(engine: &crate::Engine, data: &[u8]) -> Result<Vec<u8>> {
    match DecodeGpu::of(engine) {
        Some(gpu) if detect_format(data) == Some(Format::Gzip) => gzip_async(gpu, data).await,
        Some(gpu) if native::is_framed(data) => {
            let mut out = Vec::with_capacity(data.len().saturating_mul(2));
            super::framed_decode::decode_frames_async(
                &mut &data[5..],
                &mut out,
                native::DEFAULT_BATCH_BYTES,
                gpu,
            )
            .await?;
            Ok(out)
        }
        _ => super::compress::decompress(data),
    }
}

/// [`decompress_async`] of gzip: the members read into batches as the threaded decoder
/// reads them, then each batch decoded in turn, indexed frames on the GPU.
async fn gzip_async(gpu: DecodeGpu<'_>, data: &[u8]) -> Result<Vec<u8>> {
    let (mut input, head, got) = sniff(data)?;
    let mut batches = Vec::new();
    let (_spare_tx, spares) = std::sync::mpsc::sync_channel(1);
    let mut jobs = Jobs {
        sink: Box::new(|job| {
            batches.push(job);
            Ok(())
        }),
        buf: Vec::new(),
        spares,
        frames: None,
        batch_bytes: GZIP_GPU_BATCH_BYTES,
    };
    let read = read_members(&head[..got], &mut input, &mut jobs, None);
    let flushed = jobs.send_all();
    drop(jobs);
    let done = read?;
    flushed?;
    super::compress::refuse_garbage(&done)?;
    let mut out = Vec::with_capacity(done.bytes_out as usize);
    let mut part = Vec::new();
    for job in batches {
        match job {
            Job::Bytes(b) => out.extend_from_slice(&b),
            Job::Frames(batch) => {
                batch.decode_gpu(gpu, &mut part).await?;
                out.extend_from_slice(&part);
            }
        }
    }
    Ok(out)
}

/// [`decompress_to_on`] of a regular file, from its position: a native framed (v2) file
/// has its headers walked on one thread and its payloads read at their offsets on all
/// cores (one thread copying every payload was the decoder's floor); any other format is
/// read in order, as from a reader. [`Decompressed::data_end`] counts from the position.
#[cfg(not(target_arch = "wasm32"))]
pub fn decompress_file_on(
    engine: &crate::Engine,
    file: &std::fs::File,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<Decompressed> {
    decompress_file_from(DecodeGpu::of(engine).into(), file, output, batch_bytes)
}

/// [`decompress_file_on`] the engine that `open` returns, opened on another thread beside
/// the stream (from `when` on): the batches ready before it is open decode on the CPU
/// cores, the others on its GPU. Opening a GPU takes 150-180 ms on the H200 (its driver's
/// instance and device), a fifth of a 4 GiB decompress, which waited for it before
/// reading a byte (docs/results.md, "Thirty-second pass"). Returns once the stream is
/// decoded and the engine open (if its opening started); the engine is dropped then.
#[cfg(not(target_arch = "wasm32"))]
pub fn decompress_file_opening(
    open: impl FnOnce() -> crate::Engine + Send,
    when: OpenGpu,
    file: &std::fs::File,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<Decompressed> {
    while_opening(open, when, |gpu| {
        decompress_file_from(gpu, file, output, batch_bytes)
    })
}

#[cfg(not(target_arch = "wasm32"))]
fn decompress_file_from(
    gpu: GpuSource<'_>,
    file: &std::fs::File,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<Decompressed> {
    use std::io::Seek;
    let start = (&*file).stream_position().map_err(Error::ReadInput)?;
    let mut head = [0u8; 5];
    let got = super::pipeline::read_full_at(file, &mut head, start)?;
    if native::is_framed(&head[..got]) {
        let (bytes_out, data_end) =
            super::framed_decode::decode_file_frames(file, start, output, batch_bytes, gpu)?;
        return Ok(Decompressed {
            format: Format::Native,
            bytes_out,
            data_end,
            members: 1,
            unindexed_members: 0,
            trailing: Trailing::None,
        });
    }
    if detect_format(&head[..got]) == Some(Format::Gzip) {
        // Headers and trailers read by one thread, indexed frames skipped there and read
        // by the decoders at their offsets, on all cores.
        let (mut input, head, got) = sniff(super::framed_decode::FileRecords::new(file, start)?)?;
        let frames = FileFrames {
            file,
            start,
            skip: super::framed_decode::FileRecords::skip,
        };
        return gzip_members(
            &head[..got],
            &mut input,
            output,
            batch_bytes,
            gpu,
            Some(frames),
        );
    }
    // Where positional reads move the position (Windows), back to where it was.
    (&*file)
        .seek(std::io::SeekFrom::Start(start))
        .map_err(Error::ReadInput)?;
    // Native v1 (the CPU's alone) or not a compressed stream.
    let mut input = std::io::BufReader::with_capacity(256 << 10, file);
    decompress_to_on(&crate::Engine::Cpu, &mut input, output, batch_bytes)
}

/// Where a gzip stream that is a regular file has its indexed frames read: the reader
/// skips them (`skip`), and the decoders read each batch's at their offsets in `file`
/// (the stream from byte `start`), on all cores.
struct FileFrames<'f, R> {
    // Read by the decoder threads (none on the web).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    file: &'f std::fs::File,
    start: u64,
    skip: fn(&mut R, u64) -> Result<u64>,
}

/// What `parvlc info` reports about a compressed stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Description {
    /// A native file's header summary ([`native::info_native`]'s text).
    Native(String),
    /// A gzip stream, decoded into a counter (its output never held).
    Gzip(Decompressed),
}

/// Describes the compressed stream `input`, `file_len` bytes long: a native file from its
/// header alone; gzip by decoding every member into a byte counter.
pub fn describe(input: &mut impl BufRead, file_len: u64) -> Result<Description> {
    let (mut input, head, got) = sniff(input)?;
    let head = &head[..got];
    match detect_format(head) {
        Some(Format::Native) => Ok(Description::Native(native::info_native_header(
            &mut head.chain(&mut input),
            file_len,
        )?)),
        Some(Format::Gzip) => Ok(Description::Gzip(gzip_members(
            head,
            &mut input,
            &mut std::io::sink(),
            native::DEFAULT_BATCH_BYTES,
            GpuSource::Open(None),
            None,
        )?)),
        None => Err(not_compressed(head)),
    }
}

/// `input` counted from its start, and its first (up to) 4 bytes, which name the format.
fn sniff<R: BufRead>(input: R) -> Result<(Counted<R>, [u8; 4], usize)> {
    let mut input = Counted {
        inner: input,
        count: 0,
        failed: None,
    };
    let mut head = [0u8; 4];
    let got = read_full(&mut input, &mut head)?;
    Ok((input, head, got))
}

/// The error for input that is neither format, naming its first bytes.
pub(crate) fn not_compressed(head: &[u8]) -> Error {
    Error::BadMagic {
        format: "parvlc native or gzip",
        reason: format!("starts with {:02x?}", &head[..head.len().min(4)]),
    }
}

fn corrupt(reason: String) -> Error {
    Error::corrupt("gzip", reason)
}

/// `buf` made `len` bytes long for a caller that overwrites all of them: a reused
/// buffer keeps its old bytes (no serial memset of a whole batch), a fresh one is
/// allocated zeroed (its pages faulted in by the parallel decoders, not here).
pub(crate) fn size_for_overwrite(buf: &mut Vec<u8>, len: usize) {
    if buf.is_empty() {
        *buf = vec![0u8; len];
    } else if buf.len() >= len {
        buf.truncate(len);
    } else {
        buf.resize(len, 0);
    }
}

/// Bytes of a run of frames or blocks that one core decodes (two lanes side by side): at
/// most `most`, and a share of `total` that leaves about four runs for every core (the
/// batch's last runs end unevenly).
pub(crate) fn run_target(most: usize, total: usize) -> usize {
    most.min(total.div_ceil(4 * rayon::current_num_threads().max(1)))
}
