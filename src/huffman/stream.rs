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

use rayon::prelude::*;

use super::compress::{detect_format, Format};
#[cfg(not(target_arch = "wasm32"))]
use super::framed_decode::Opening;
use super::framed_decode::{DecodeGpu, GpuSource};
use super::inflate_gpu;
use super::native::{self, read_full};
use super::{gzip_index, inflate_frame};
use crate::{Error, Result};

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
    let flushed = jobs.flush();
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

/// The member loop on the web, where there are no threads: each job decoded and written
/// as the reader makes it.
#[cfg(target_arch = "wasm32")]
fn gzip_members<R: BufRead>(
    head: &[u8],
    input: &mut Counted<R>,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
    _gpu: GpuSource<'_>,
    _file: Option<FileFrames<'_, R>>,
) -> Result<Decompressed> {
    let (spare_in_tx, spare_in) = std::sync::mpsc::sync_channel::<Vec<u8>>(1);
    let mut jobs = Jobs {
        sink: Box::new(move |job| {
            let out = match job {
                Job::Frames(batch) => {
                    let mut out = Vec::new();
                    batch.decode(&mut out)?;
                    let _ = spare_in_tx.try_send(batch.data);
                    out
                }
                Job::Bytes(b) => b,
            };
            output.write_all(&out).map_err(Error::WriteOutput)
        }),
        buf: Vec::new(),
        spares: spare_in,
        frames: None,
        batch_bytes,
    };
    let read = read_members(head, input, &mut jobs, None);
    let flushed = jobs.flush();
    drop(jobs);
    let done = read?;
    flushed?;
    Ok(done)
}

/// Output bytes of a gzip batch on a GPU at most. On the H200 (4 GiB of system files,
/// docs/results.md, "Ninth pass"), 16 MiB decoded in 1.15-1.23 s at 321-336 MiB of peak
/// memory (wgpu) against 1.21-1.24 s at 590-591 MiB with 32 MiB, and 1.28-1.29 s with 8
/// MiB.
const GZIP_GPU_BATCH_BYTES: usize = 16 << 20;

/// The member loop, with decoder threads (indexed frames on all cores, or on `gpu`) and
/// a writer thread behind them. `head` holds the first bytes of the first member, already
/// read.
#[cfg(not(target_arch = "wasm32"))]
fn gzip_members<R: BufRead>(
    head: &[u8],
    input: &mut Counted<R>,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
    gpu: GpuSource<'_>,
    file: Option<FileFrames<'_, R>>,
) -> Result<Decompressed> {
    let batch_bytes = match gpu.shaped_for_gpu() {
        true => batch_bytes.min(GZIP_GPU_BATCH_BYTES),
        false => batch_bytes,
    };
    // Two decoders take the jobs in turn (a member is one batch, and one decoder alone
    // waits on each batch's slowest run) and the writer puts them back in order.
    const DECODERS: usize = 2;
    // Buffers handed back for reuse (no fresh pages to fault in): compressed batches
    // from the decoders to the reader, output from the writer to the decoders. One per
    // decoder is enough, and more would hold memory nobody asks for (an unindexed
    // member's output is never taken back).
    let (spare_in_tx, spare_in) = std::sync::mpsc::sync_channel::<Vec<u8>>(DECODERS);
    let (spare_out_tx, spare_out) = std::sync::mpsc::sync_channel::<Vec<u8>>(DECODERS);
    let spare_out = std::sync::Mutex::new(spare_out);
    let file_of_frames = file.as_ref().map(|f| f.file);
    let decode = |job: Job| match job {
        Job::Frames(mut batch) => {
            if let Some(file) = file_of_frames {
                let t = crate::gpu::clock();
                batch.read_frames(file)?;
                if let (Some(t), Some(now)) = (t, crate::gpu::clock()) {
                    log::debug!(
                        "gzip batch of {} bytes read at its offsets in {:.1} ms",
                        batch.used,
                        (now - t).as_secs_f64() * 1e3
                    );
                }
            }
            let mut out = spare_out
                .lock()
                .ok()
                .and_then(|rx| rx.try_recv().ok())
                .unwrap_or_default();
            let now = gpu.now(batch.out_len);
            if now.is_none() && gpu.shaped_for_gpu() {
                log::debug!(
                    "a gzip batch of {} bytes on the CPU cores: no GPU open",
                    batch.used
                );
            }
            let decoded = batch.decode_on(now, &mut out);
            let _ = spare_in_tx.try_send(batch.data);
            decoded.map(|()| out)
        }
        Job::Bytes(b) => Ok(b),
    };
    let write = |out: Vec<u8>| {
        output.write_all(&out).map_err(Error::WriteOutput)?;
        let _ = spare_out_tx.try_send(out);
        Ok(())
    };
    let stopped = || corrupt("the gzip decoders stopped".into());
    // Jobs from the oldest one not yet written: one being written, one waiting for the
    // writer, one per decoder, one waiting for a decoder.
    let (written, read) = crate::ordered::work_in_order(
        DECODERS,
        None,
        DECODERS + 3,
        decode,
        write,
        stopped,
        |send| {
            let mut jobs = Jobs {
                sink: Box::new(send),
                buf: Vec::new(),
                spares: spare_in,
                frames: None,
                batch_bytes,
            };
            let read = read_members(head, input, &mut jobs, file.as_ref());
            let flushed = jobs.flush();
            read.and_then(|done| flushed.map(|()| done))
        },
    );
    // A decode or write error explains a reader that stopped early: report it first.
    written?;
    read
}

/// The reader's side of [`gzip_members`]: members parsed and read, their work sent on.
fn read_members<R: BufRead>(
    head: &[u8],
    input: &mut Counted<R>,
    jobs: &mut Jobs<'_>,
    file: Option<&FileFrames<'_, R>>,
) -> Result<Decompressed> {
    let mut buf = vec![0u8; 64 << 10];
    let mut next = [0u8; 2];
    let mut head = head;
    let mut members = 0u64;
    let mut unindexed = 0u64;
    let mut bytes_out = 0u64;
    loop {
        members += 1;
        let at = input.count - head.len() as u64;
        let header =
            gzip_index::read_member_header(head, input, members).map_err(|e| stashed(input, e))?;
        bytes_out += match header.index {
            Some(index) => indexed_member(index, input, jobs, file, members, at)?,
            None => {
                unindexed += 1;
                gzip_member(&header.raw, input, jobs, &mut buf, members, at)?
            }
        };
        let end = input.count;
        let done = |trailing| -> Result<Decompressed> {
            Ok(Decompressed {
                format: Format::Gzip,
                bytes_out,
                data_end: end,
                members,
                unindexed_members: unindexed,
                trailing,
            })
        };
        if read_full(input, &mut next[..1])? == 0 {
            return done(Trailing::None);
        }
        if next[0] == 0 {
            return done(if skip_zeros(input)? {
                Trailing::Zeros
            } else {
                Trailing::Garbage
            });
        }
        if read_full(input, &mut next[1..])? == 0 {
            // gzip reads a second magic byte after a nonzero one and fails without it.
            return Err(corrupt(format!(
                "unexpected end of file: one byte ({:#04x}) after member {members}, at byte {end}",
                next[0]
            )));
        }
        match next {
            [0x1f, 0x8b] => head = &next,
            // Old gzip, pack, compress (LZW), LZH: gzip reads these as members.
            [0x1f, 0x9e | 0x1e | 0x9d | 0xa0] => {
                return Err(corrupt(format!(
                    "member {} at byte {end} is in a format gzip reads and parvlc does not \
                     (magic {:02x?}: old gzip, pack, compress or LZH)",
                    members + 1,
                    next
                )))
            }
            _ => return done(Trailing::Garbage),
        }
    }
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

/// A read error kept by [`Counted`] wins over what the parser made of the short read.
fn stashed<R>(input: &mut Counted<R>, e: Error) -> Error {
    input.failed.take().map_or(e, Error::ReadInput)
}

/// Work for the decoder thread, in output order.
enum Job {
    /// Indexed frames to decode on all cores.
    Frames(FrameBatch),
    /// Output already decoded (an unindexed member, through flate2).
    Bytes(Vec<u8>),
}

/// Frames of one or more members, read and not yet decoded: their index entries and
/// bytes. Batches span members (a member is one pipeline chunk, 4 MiB by default: too
/// little work for a GPU's round trip).
struct FrameBatch {
    /// Per member with frames here: its number, the index within it of its first frame
    /// here, and where that frame is in `entries`.
    members: Vec<(u64, usize, usize)>,
    entries: Vec<gzip_index::IndexEntry>,
    /// The frames' bytes, `used` of them (the rest left from the buffer's last use).
    data: Vec<u8>,
    used: usize,
    /// Output bytes of the frames.
    out_len: u64,
    /// Frames' bytes still to read from the file: its offset, where they go in `data`.
    reads: Vec<(u64, std::ops::Range<usize>)>,
}

impl FrameBatch {
    /// Output bytes of a run of frames decoded on one core (two lanes), at least two
    /// frames: long enough that its lanes stay paired (frames differ in length, and a
    /// lane left without a frame decodes alone), short enough for every core to have
    /// runs (fewer bytes where the batch is small).
    const RUN_BYTES: usize = 1 << 20;

    /// [`FrameBatch::decode`] on `gpu` where there is one ([`FrameBatch::decode_gpu`]).
    #[cfg(not(target_arch = "wasm32"))]
    fn decode_on(&self, gpu: Option<DecodeGpu<'_>>, out: &mut Vec<u8>) -> Result<()> {
        match gpu {
            Some(gpu) => pollster::block_on(self.decode_gpu(gpu, out)),
            None => self.decode(out),
        }
    }

    /// [`FrameBatch::decode`] on `gpu` where every frame lists its blocks (index version
    /// 2), else on the CPU.
    async fn decode_gpu(&self, gpu: DecodeGpu<'_>, out: &mut Vec<u8>) -> Result<()> {
        if !inflate_gpu::takes(&self.entries) {
            return self.decode(out);
        }
        let frames = self.frames()?;
        let name = |i: usize, reason: String| self.named(i, reason);
        inflate_gpu::decode_frames(gpu, &frames, out, &name).await
    }

    /// Reads the frames' bytes that the reader skipped from `file`, in parts on all
    /// cores.
    #[cfg(not(target_arch = "wasm32"))]
    fn read_frames(&mut self, file: &std::fs::File) -> Result<()> {
        /// Bytes one task reads.
        const PART: usize = 1 << 20;
        let mut parts: Vec<(u64, &mut [u8])> = Vec::new();
        let mut rest = &mut self.data[..];
        let mut at = 0usize;
        for (offset, range) in &self.reads {
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(range.start - at);
            let (span, tail) = tail.split_at_mut(range.len());
            rest = tail;
            at = range.end;
            let mut off = *offset;
            for part in span.chunks_mut(PART) {
                let n = part.len() as u64;
                parts.push((off, part));
                off += n;
            }
        }
        parts.into_par_iter().try_for_each(|(offset, part)| {
            let got = super::pipeline::read_full_at(file, part, offset)?;
            if got < part.len() {
                return Err(corrupt(format!(
                    "the file ends at byte {}, before the frames the reader found there (did it \
                     shrink?)",
                    offset + got as u64
                )));
            }
            Ok(())
        })?;
        self.reads.clear();
        Ok(())
    }

    /// Each frame's entry and bytes.
    fn frames(&self) -> Result<Vec<(&gzip_index::IndexEntry, &[u8])>> {
        let mut data = &self.data[..self.used];
        self.entries
            .iter()
            .map(|e| {
                let (d, r) = data
                    .split_at_checked(e.bytes as usize)
                    .ok_or_else(|| corrupt("a frame batch is shorter than its index".into()))?;
                data = r;
                Ok((e, d))
            })
            .collect()
    }

    /// The error of frame `i` of the batch.
    fn named(&self, i: usize, reason: String) -> Error {
        let k = self.members.partition_point(|m| m.2 <= i).saturating_sub(1);
        let (member, first, at) = self.members.get(k).copied().unwrap_or_default();
        corrupt(format!(
            "member {member} frame {}: {reason}",
            first + i - at
        ))
    }

    /// Decodes every frame into `out` (resized), runs of frames in parallel, each frame
    /// checked against its entry.
    fn decode(&self, out: &mut Vec<u8>) -> Result<()> {
        let total = self.entries.iter().map(|e| e.len as usize).sum();
        size_for_overwrite(out, total);
        let frames = self.frames()?;
        let mut runs: Vec<Vec<(&[u8], &mut [u8])>> = Vec::new();
        let mut rest = &mut out[..];
        let (mut run_bytes, target) = (0, run_target(Self::RUN_BYTES, total));
        for (e, d) in frames {
            let (o, r) = std::mem::take(&mut rest).split_at_mut(e.len as usize);
            rest = r;
            match runs.last_mut() {
                Some(run) if run.len() < 2 || run_bytes < target => run.push((d, o)),
                _ => {
                    runs.push(vec![(d, o)]);
                    run_bytes = 0;
                }
            }
            run_bytes += e.len as usize;
        }
        let firsts: Vec<usize> = runs
            .iter()
            .scan(0, |at, run| {
                let first = *at;
                *at += run.len();
                Some(first)
            })
            .collect();
        runs.into_par_iter()
            .zip(firsts)
            .try_for_each(|(mut run, first)| {
                let results = inflate_frame::decode_frames(&mut run);
                for (i, (result, (_, o))) in results.into_iter().zip(&run).enumerate() {
                    let named = |reason: String| self.named(first + i, reason);
                    result
                        .and_then(|span| span.check(self.entries[first + i].code.as_ref()))
                        .map_err(|e| match e {
                            Error::Corrupt { reason, .. } => named(reason),
                            e => e,
                        })?;
                    let expected = self.entries[first + i].crc32;
                    let computed = crc32fast::hash(o);
                    if computed != expected {
                        return Err(named(format!(
                            "checksum mismatch (index {expected:08x}, computed {computed:08x})"
                        )));
                    }
                }
                Ok(())
            })
    }
}

/// The reader's end of the decoder's queue: indexed frames gathered into batches of
/// about `batch_bytes` of output, and a [`Write`] for flate2's output, sent on in
/// batches, each kind sent before the other is taken, so the jobs stay in order.
struct Jobs<'a> {
    /// Where a job goes: to the decoder thread, or (on the web, without threads)
    /// decoded and written on the spot.
    sink: Box<dyn FnMut(Job) -> Result<()> + 'a>,
    buf: Vec<u8>,
    spares: std::sync::mpsc::Receiver<Vec<u8>>,
    /// Frames read and not yet sent.
    frames: Option<FrameBatch>,
    batch_bytes: usize,
}

impl Jobs<'_> {
    const BATCH: usize = 1 << 20;

    fn send_bytes(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            let b = std::mem::take(&mut self.buf);
            (self.sink)(Job::Bytes(b))?;
        }
        Ok(())
    }

    fn send_frames(&mut self) -> Result<()> {
        if let Some(mut batch) = self.frames.take() {
            batch.data.truncate(batch.used);
            (self.sink)(Job::Frames(batch))?;
        }
        Ok(())
    }

    /// The batch the next frames go into (output before them sent on first).
    fn batch(&mut self) -> Result<&mut FrameBatch> {
        self.send_bytes()?;
        let spares = &self.spares;
        Ok(self.frames.get_or_insert_with(|| FrameBatch {
            members: Vec::new(),
            entries: Vec::new(),
            data: spares.try_recv().unwrap_or_default(),
            used: 0,
            out_len: 0,
            reads: Vec::new(),
        }))
    }

    fn flush(&mut self) -> Result<()> {
        self.send_frames()?;
        self.send_bytes()
    }
}

impl Write for Jobs<'_> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.send_frames().map_err(std::io::Error::other)?;
        self.buf.extend_from_slice(data);
        if self.buf.len() >= Self::BATCH {
            self.send_bytes().map_err(std::io::Error::other)?;
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Reads `n` bytes (fewer where the input ends first) into `buf` from `at`, growing it
/// as they arrive (a step at a time, where it is shorter): returns how many were read.
fn read_growing(input: &mut impl Read, buf: &mut Vec<u8>, at: usize, n: usize) -> Result<usize> {
    const STEP: usize = 4 << 20;
    let mut got = 0;
    while got < n {
        let want = (n - got).min(STEP);
        if buf.len() < at + got + want {
            buf.resize(at + got + want, 0);
        }
        let read = read_full(input, &mut buf[at + got..at + got + want])?;
        got += read;
        if read < want {
            break;
        }
    }
    Ok(got)
}

/// Reads an indexed member's frames (its header read) into the jobs' batches, then its
/// trailer, checked against the index; returns its length.
fn indexed_member<R: BufRead>(
    index: Vec<gzip_index::IndexEntry>,
    input: &mut Counted<R>,
    jobs: &mut Jobs<'_>,
    file: Option<&FileFrames<'_, R>>,
    member: u64,
    at: u64,
) -> Result<u64> {
    let mut crc = crc32fast::Hasher::new();
    let mut len = 0u64;
    for e in &index {
        crc.combine(&crc32fast::Hasher::new_with_initial_len(
            e.crc32,
            e.len as u64,
        ));
        len += e.len as u64;
    }
    // Frames until the batch holds about `batch_bytes` of output: one read each time.
    let batch_bytes = jobs.batch_bytes as u64;
    let mut first = 0;
    while first < index.len() {
        let batch = jobs.batch()?;
        let (mut end, mut in_len) = (first, 0usize);
        while end < index.len() && (batch.out_len == 0 || batch.out_len < batch_bytes) {
            batch.out_len += index[end].len as u64;
            in_len += index[end].bytes as usize;
            end += 1;
        }
        let from = batch.used;
        // The buffer grows only by bytes the input holds: an index's sizes are untrusted.
        let (got, offset) = match file {
            // Skipped here, read by the decoder at their offset.
            Some(f) => {
                let offset = f.start + input.count;
                let got = (f.skip)(&mut input.inner, in_len as u64)? as usize;
                input.count += got as u64;
                if got == in_len && batch.data.len() < from + in_len {
                    batch.data.resize(from + in_len, 0);
                }
                (got, Some(offset))
            }
            None => (read_growing(input, &mut batch.data, from, in_len)?, None),
        };
        if got < in_len {
            let mut short = first;
            let mut at_frame = 0usize;
            while at_frame + index[short].bytes as usize <= got {
                at_frame += index[short].bytes as usize;
                short += 1;
            }
            return Err(corrupt(format!(
                "member {member} at byte {at}: frame {short} is {} bytes, the index says {} \
                 (the file is truncated)",
                got - at_frame,
                index[short].bytes
            )));
        }
        if let Some(offset) = offset {
            batch.reads.push((offset, from..from + in_len));
        }
        batch.used += in_len;
        batch.members.push((member, first, batch.entries.len()));
        batch.entries.extend_from_slice(&index[first..end]);
        if batch.out_len >= batch_bytes {
            jobs.send_frames()?;
        }
        first = end;
    }
    let mut trailer = [0u8; 10];
    let got = read_full(input, &mut trailer)?;
    if got < trailer.len() {
        return Err(corrupt(format!(
            "member {member} at byte {at}: it ends inside its trailer (the file is truncated)"
        )));
    }
    if trailer[..2] != [0x03, 0x00] {
        return Err(corrupt(format!(
            "member {member} at byte {at}: its frames are not followed by the final block \
             (a wrong index?)"
        )));
    }
    let stored = u32::from_le_bytes([trailer[2], trailer[3], trailer[4], trailer[5]]);
    let isize = u32::from_le_bytes([trailer[6], trailer[7], trailer[8], trailer[9]]);
    let computed = crc.finalize();
    if stored != computed || isize != len as u32 {
        return Err(corrupt(format!(
            "member {member} at byte {at}: trailer says crc32 {stored:08x} and {isize} bytes, \
             its frames {computed:08x} and {len}"
        )));
    }
    Ok(len)
}

/// Decodes one gzip member (CRC32 and ISIZE checked by flate2) into `output`; returns
/// its length. `head` holds the member's bytes already read. flate2's `bufread` decoder
/// consumes exactly the member's bytes, so the input is left at whatever follows.
fn gzip_member<R: BufRead>(
    head: &[u8],
    input: &mut Counted<R>,
    output: &mut impl Write,
    buf: &mut [u8],
    member: u64,
    at: u64,
) -> Result<u64> {
    let mut dec = flate2::bufread::GzDecoder::new(head.chain(&mut *input));
    let mut n = 0u64;
    loop {
        match dec.read(buf) {
            Ok(0) => return Ok(n),
            Ok(k) => {
                output
                    .write_all(buf.get(..k).unwrap_or(buf))
                    .map_err(Error::WriteOutput)?;
                n += k as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                drop(dec);
                return Err(match input.failed.take() {
                    Some(io) => Error::ReadInput(io),
                    None => corrupt(format!("member {member} at byte {at}: {e}")),
                });
            }
        }
    }
}

/// Skips zero bytes; true if the input ends with them, false at a nonzero byte.
fn skip_zeros<R: BufRead>(input: &mut Counted<R>) -> Result<bool> {
    loop {
        let buf = input.fill_buf().map_err(Error::ReadInput)?;
        if buf.is_empty() {
            return Ok(true);
        }
        let zeros = buf.iter().take_while(|&&b| b == 0).count();
        let all = zeros == buf.len();
        input.consume(zeros);
        if !all {
            return Ok(false);
        }
    }
}

/// The input, counting the bytes consumed (offsets for messages) and keeping the error
/// of a failed read, which flate2 would otherwise report as if the data were corrupt.
struct Counted<R> {
    inner: R,
    count: u64,
    failed: Option<std::io::Error>,
}

impl<R> Counted<R> {
    fn stash(&mut self, e: std::io::Error) -> std::io::Error {
        let copy = std::io::Error::new(e.kind(), e.to_string());
        if e.kind() != std::io::ErrorKind::Interrupted {
            self.failed = Some(e);
        }
        copy
    }
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.count += n as u64;
                Ok(n)
            }
            Err(e) => Err(self.stash(e)),
        }
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        // Two steps: the borrow of a successful fill_buf may not outlive the error path.
        if let Err(e) = self.inner.fill_buf() {
            return Err(self.stash(e));
        }
        self.inner.fill_buf()
    }
    fn consume(&mut self, n: usize) {
        self.count += n as u64;
        self.inner.consume(n);
    }
}
