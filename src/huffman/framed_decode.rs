//! Decoding native v2 streams ([`super::framing`]): frames read in batches, the frames
//! of a batch decoded in parallel (and each frame's blocks too) on the CPU cores or on a
//! GPU ([`super::vld`]), checked and written in order. Memory: one batch of output and
//! its payloads, whatever the stream's length. From a regular file the reader walks the
//! headers only and a batch's payloads are read at their offsets, in parallel: one thread
//! copying every payload was the decoder's floor.

use std::io::{Read, Write};

use super::framing::VERSION_FRAMED;
use super::native::read_full;
use crate::{Error, Result};
#[cfg(not(target_arch = "wasm32"))]
use file::read_payloads;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use file::FileRecords;
use gpu::decode_batch_gpu;
pub(crate) use gpu::{Decoder, Run};
use runs::decode_batch;

#[cfg(not(target_arch = "wasm32"))]
mod file;
mod gpu;
mod records;
mod runs;

pub(crate) use records::Frame;
// A stream's first record read on its own: only by the benchmark's reader and the tests.
#[cfg(any(test, all(feature = "bench", not(target_arch = "wasm32"))))]
use records::expect_record;
use records::{frame_error, read_past, End, Record, Walk};

/// The GPU a native v2 stream decodes on: wgpu's VLD kernel or its CUDA twin, the same
/// plan, output and per-block faults ([`super::vld`]).
#[derive(Clone, Copy)]
pub(crate) enum DecodeGpu<'g> {
    Wgpu(&'g crate::gpu::Gpu),
    #[cfg(feature = "cuda")]
    Cuda(&'g crate::cuda::CudaGpu),
}

impl<'g> DecodeGpu<'g> {
    /// The GPU of `engine`, `None` for the CPU.
    pub(crate) fn of(engine: &'g crate::Engine) -> Option<DecodeGpu<'g>> {
        match engine {
            crate::Engine::Wgpu(g) => Some(DecodeGpu::Wgpu(g)),
            #[cfg(feature = "cuda")]
            crate::Engine::Cuda(c, _) => Some(DecodeGpu::Cuda(c)),
            crate::Engine::Cpu => None,
        }
    }
}

/// Where a stream's batches decode: on the GPU given (the CPU cores without one), or on
/// the GPU of an engine that another thread is opening or will open ([`Opening`]). Then
/// the batches are shaped for the GPU from the start, and each one that a decoder takes
/// before the engine is open decodes on the CPU cores instead of waiting (opening a GPU
/// takes 150-180 ms on the H200, a fifth of a 4 GiB decompress; docs/results.md,
/// "Thirty-second pass").
#[derive(Clone, Copy)]
// On the web nothing reads it: one batch at a time goes to the GPU given.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
pub(crate) enum GpuSource<'g> {
    Open(Option<DecodeGpu<'g>>),
    #[cfg(not(target_arch = "wasm32"))]
    Opening(&'g Opening),
}

/// An engine opened on another thread beside a stream, once the stream has decoded
/// `start_after` bytes on the CPU cores in batches a GPU could have taken: a short stream
/// never opens a driver.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) struct Opening {
    pub(crate) engine: std::sync::OnceLock<crate::Engine>,
    start_after: u64,
    decoded: std::sync::atomic::AtomicU64,
    /// Taken (and sent on) to start the opening; dropped unsent, it stops the opener.
    start: std::sync::Mutex<Option<std::sync::mpsc::Sender<()>>>,
}

#[cfg(not(target_arch = "wasm32"))]
impl Opening {
    pub(crate) fn new(start_after: u64, start: std::sync::mpsc::Sender<()>) -> Opening {
        let opening = Opening {
            engine: std::sync::OnceLock::new(),
            start_after,
            decoded: 0.into(),
            start: std::sync::Mutex::new(Some(start)),
        };
        if start_after == 0 {
            opening.start_now();
        }
        opening
    }

    fn start_now(&self) {
        let start = self.start.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(start) = start {
            log::debug!("the GPU starts opening");
            let _ = start.send(());
        }
    }

    /// The stream is done: an opening not yet started never will.
    pub(crate) fn never(&self) {
        drop(self.start.lock().unwrap_or_else(|e| e.into_inner()).take());
    }

    fn is_open(&self) -> bool {
        self.engine.get().and_then(DecodeGpu::of).is_some()
    }

    /// The engine's GPU once it is open; before that `None`, and `out_bytes` more counted
    /// towards starting the opening.
    fn now(&self, out_bytes: u64) -> Option<DecodeGpu<'_>> {
        if let Some(engine) = self.engine.get() {
            return DecodeGpu::of(engine);
        }
        use std::sync::atomic::Ordering::Relaxed;
        if self.decoded.fetch_add(out_bytes, Relaxed) + out_bytes >= self.start_after {
            self.start_now();
        }
        None
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl<'g> GpuSource<'g> {
    /// Whether batches are shaped for a GPU (its batch size and decoder threads).
    pub(crate) fn shaped_for_gpu(self) -> bool {
        match self {
            GpuSource::Open(gpu) => gpu.is_some(),
            GpuSource::Opening(_) => true,
        }
    }

    /// Whether a GPU is open (the next batch decodes on it).
    pub(crate) fn is_open(self) -> bool {
        match self {
            GpuSource::Open(gpu) => gpu.is_some(),
            GpuSource::Opening(opening) => opening.is_open(),
        }
    }

    /// The GPU the next batch (of `out_bytes` of output) decodes on, `None` for the CPU
    /// cores: an opening engine's once it is open (and is a GPU).
    pub(crate) fn now(self, out_bytes: u64) -> Option<DecodeGpu<'g>> {
        match self {
            GpuSource::Open(gpu) => gpu,
            GpuSource::Opening(opening) => opening.now(out_bytes),
        }
    }
}

impl<'g> From<Option<DecodeGpu<'g>>> for GpuSource<'g> {
    fn from(gpu: Option<DecodeGpu<'g>>) -> Self {
        GpuSource::Open(gpu)
    }
}

/// Batches decoding on the GPU at once (a decoder thread each), of at most
/// [`GPU_BATCH_BYTES`]: each decoder holds its batch's payload, staging, readback and
/// output at once, and does its host work (payload reads, codes checked, plan, tables,
/// payload words, the CPU's CRC32s) in a pool of [`GPU_DECODER_THREADS`] of its own
/// ([`crate::ordered::in_own_pool`]). Measured on the H200, 4 GiB native to /dev/null,
/// alternating in one call (docs/results.md, "Twelfth pass"): two decoders of 32 MiB in
/// rayon's shared pool 0.84-0.92 s at 425-430 MiB of peak, three 0.79-0.82 s at 500-532
/// MiB; with pools of their own, six of 16 MiB with two threads each 0.82-0.85 s at
/// 471-484 MiB and a third less CPU time, three of 32 MiB with four 0.80-0.86 s at
/// 497-500 MiB, two of 32 MiB with four 0.97-1.05 s. A second call, against the build
/// before: 0.80-0.83 s against 0.81-0.82 s, 2.2-2.4 s of user CPU against 3.6-3.9, at
/// 471-491 MiB against 425-430: the same wall for less CPU. (In rayon's shared pool, the eighth
/// pass had three of 16 MiB at 0.95-1.01 s and four at 0.96-0.99 s: a batch of 16 MiB is
/// some 2,000 blocks, too few lanes to hide the kernel's serial chains, unless several
/// are in flight.)
///
/// CUDA takes as many: its copies and kernels all go through the device's one stream,
/// so batches do not overlap there, but each batch's host work overlaps another batch's
/// round trip only with several threads.
///
/// Five since the nineteenth pass: with the block CRC32s a workgroup a block, five
/// decoded the same 4 GiB in 0.80-0.82 s at 462-463 MiB against six's 0.76-0.83 s at
/// 484-486 MiB (and six had peaked at 544 MiB once), four in 0.83-0.89 s at 428-444 MiB,
/// alternating in one call: the same wall, further under issue 13's 512 MiB.
#[cfg(not(target_arch = "wasm32"))]
const GPU_DECODERS: usize = 5;

/// Threads of each GPU decoder's own pool (see [`GPU_DECODERS`]).
#[cfg(not(target_arch = "wasm32"))]
const GPU_DECODER_THREADS: usize = 2;

/// Output bytes of a GPU batch at most (see [`GPU_DECODERS`]).
#[cfg(not(target_arch = "wasm32"))]
const GPU_BATCH_BYTES: usize = 16 << 20;

/// The same without threads ([`decode_frames_async`]): one batch in flight, so a larger
/// one keeps more of the kernel's lanes busy (the size the threaded decoder had before
/// it had six batches in flight).
const ASYNC_GPU_BATCH_BYTES: usize = 32 << 20;

/// Decodes a native v2 stream from `r`, positioned after the first frame's magic and
/// version, into `w`, about `batch_bytes` of output at a time, on `gpu` (the VLD kernel)
/// or, without one, on the CPU cores. Returns the bytes written. On an error what was
/// written must be discarded (the end record is checked last).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn decode_frames(
    r: &mut impl Read,
    w: &mut (impl Write + Send),
    batch_bytes: usize,
    gpu: GpuSource<'_>,
) -> Result<u64> {
    decode_walk(Walk::new(r, None), None, w, batch_bytes, gpu)
}

/// [`decode_frames`] of the native v2 stream that starts at byte `start` of the regular
/// file `file` (its first magic and version checked by the caller): this thread walks
/// the headers, seeking past the payloads, and each batch's payloads are read at their
/// offsets on all cores. Returns the bytes written and the bytes of the stream.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn decode_file_frames(
    file: &std::fs::File,
    start: u64,
    w: &mut (impl Write + Send),
    batch_bytes: usize,
    gpu: GpuSource<'_>,
) -> Result<(u64, u64)> {
    let mut r = FileRecords::new(file, start + 5)?;
    let walk = Walk::new(&mut r, Some(FileRecords::skip));
    let out = decode_walk(walk, Some((file, start)), w, batch_bytes, gpu)?;
    Ok((out, r.position() - start))
}

/// [`decode_frames`] from `walk`; with `file` (and where its stream starts), the
/// payloads that the walk skipped are read from it a batch at a time.
#[cfg(not(target_arch = "wasm32"))]
fn decode_walk<R: Read>(
    mut walk: Walk<'_, R>,
    file: Option<(&std::fs::File, u64)>,
    w: &mut (impl Write + Send),
    batch_bytes: usize,
    gpu: GpuSource<'_>,
) -> Result<u64> {
    // Three stages on their own threads: this one walks the frame headers into
    // batches; decoders read a batch's payloads from a file (at their offsets, on all
    // cores) and decode it (on the CPU one, on all cores; on the GPU several, each batch
    // a round trip of upload, kernel and readback that the others overlap); one writes
    // them in order and combines the checksums. The walk of a file of small frames is
    // 0.2 s of a 4 GiB decode on the H200, so it runs beside the payload reads, not
    // before each batch's (docs/results.md, "Eighth pass").
    let (decoders, own_threads, batch_bytes) = match gpu.shaped_for_gpu() {
        true => (
            GPU_DECODERS,
            Some(GPU_DECODER_THREADS),
            batch_bytes.min(GPU_BATCH_BYTES),
        ),
        false => (1, None, batch_bytes),
    };
    // Output buffers of CPU batches handed back by the writer for reuse (no fresh pages
    // to fault in), one per decoder while no GPU is open: with five decoding on the CPU
    // and one kept, the others mapped fresh pages (the GPU routes return freed batches to
    // the system) and `--backend wgpu` without an adapter took 1.01-1.05 s for 4 GiB
    // against the CPU route's 0.78. Once a GPU is open none are kept: five left from the
    // opening beside the GPU's own buffers took the peak from 460-511 to 537-552 MiB
    // (docs/results.md, "Thirty-third pass").
    let (spare_tx, spare) = std::sync::mpsc::sync_channel::<Vec<u8>>(decoders);
    let spare = std::sync::Mutex::new(spare);
    // Payload buffers of decoded batches, for the next batch's reads.
    let (spare_in_tx, spare_in) = std::sync::mpsc::sync_channel::<Vec<u8>>(decoders);
    let spare_in = std::sync::Mutex::new(spare_in);
    let decode = |mut frames: Vec<Frame>| {
        if let Some((file, start)) = file {
            let buf = spare_in.lock().ok().and_then(|rx| rx.try_recv().ok());
            read_payloads(&mut frames, file, start, buf.unwrap_or_default())?;
        }
        let on = gpu.now(frames.iter().map(|f| f.len).sum());
        if on.is_some() {
            // The GPU is open: CPU batches' outputs kept for reuse are not needed again.
            if let Ok(rx) = spare.lock() {
                while rx.try_recv().is_ok() {}
            }
        }
        let decoded = match on {
            Some(gpu) => pollster::block_on(decode_batch_gpu(gpu, &frames)),
            None => {
                let decode = || {
                    let reuse = spare.lock().ok().and_then(|rx| rx.try_recv().ok());
                    decode_batch(&frames, reuse.unwrap_or_default())
                };
                if gpu.shaped_for_gpu() {
                    log::debug!(
                        "a batch of {} frames on the CPU cores: no GPU open",
                        frames.len()
                    );
                    // On all cores: this decoder's own pool is sized for a GPU batch's
                    // host work.
                    crate::ordered::in_shared_pool(decode)
                } else {
                    decode()
                }
            }
        };
        let buf = frames
            .into_iter()
            .find_map(|f| f.payload.into_batch_buffer());
        if let Some(buf) = buf {
            let _ = spare_in_tx.try_send(buf);
        }
        decoded.map(|d| (d, on))
    };
    let mut crc = crc32fast::Hasher::new();
    let write = |(decoded, on): (Decoded, Option<DecodeGpu<'_>>)| -> Result<()> {
        for part in decoded {
            part.write_to(w, &mut crc)?;
            // Its pages go to the next batch decoded the same way: the CPU decoder's, or
            // the GPU's readbacks (whose sizes a CPU batch's output does not have).
            match on {
                Some(DecodeGpu::Wgpu(gpu)) => gpu.recycle_host_vec(part.bytes),
                #[cfg(feature = "cuda")]
                Some(DecodeGpu::Cuda(cuda)) => cuda.recycle_host_vec(part.bytes),
                None if !gpu.is_open() => {
                    let _ = spare_tx.try_send(part.bytes);
                }
                None => {}
            }
        }
        Ok(())
    };
    let stopped = || Error::corrupt("native", "the frame decoders stopped");
    // Batches from the oldest one not yet written: one being written, one per decoder,
    // one waiting for a decoder. Into a file the writer is the slowest stage (the
    // kernel's copy into the file's pages), so the window stays full: with one more
    // waiting for the writer, a 4 GiB decode into a file on tmpfs peaked at 508-513 MiB
    // on the H200, over issue 13's 512, and at 488-489 MiB without, as fast
    // (docs/results.md, "Forty-sixth pass").
    let (written, read) = crate::ordered::work_in_order(
        decoders,
        own_threads,
        decoders + 2,
        decode,
        write,
        stopped,
        |to_decoders| read_frames(&mut walk, batch_bytes, to_decoders),
    );
    // A write or decode error explains a reader that stopped early: report it first.
    written?;
    let (end, index, file_at, out_at) = read?;
    check_end(walk.r, &end, crc, index, file_at)?;
    Ok(out_at)
}

/// [`decode_frames`] on the web, where there are no threads: each batch decoded and
/// written as it is read.
#[cfg(target_arch = "wasm32")]
pub(crate) fn decode_frames(
    r: &mut impl Read,
    w: &mut (impl Write + Send),
    batch_bytes: usize,
    _gpu: GpuSource<'_>,
) -> Result<u64> {
    let mut crc = crc32fast::Hasher::new();
    let mut walk = Walk::new(r, None);
    let (end, index, file_at, out_at) = read_frames(&mut walk, batch_bytes, &mut |frames| {
        for part in decode_batch(&frames, Vec::new())? {
            part.write_to(w, &mut crc)?;
        }
        Ok(())
    })?;
    check_end(r, &end, crc, index, file_at)?;
    Ok(out_at)
}

/// The end record's checksum against the frames', and nothing after the record.
fn check_end(
    r: &mut impl Read,
    end: &End,
    crc: crc32fast::Hasher,
    index: u64,
    file_at: u64,
) -> Result<()> {
    let computed = crc.finalize();
    if computed != end.crc32 {
        return Err(Error::Checksum {
            expected: end.crc32,
            computed,
        });
    }
    let mut extra = [0u8; 1];
    if read_full(r, &mut extra)? != 0 {
        return Err(frame_error(
            index,
            file_at + super::framing::NATIVE_END_LEN as u64,
            "data after the end record",
        ));
    }
    Ok(())
}

/// The reader's side: frames in batches of about `batch_bytes` of output to the decoder,
/// until the end record, which it returns with the frame count, its file offset and the
/// output length. Stops early (Ok) if the decoder has gone.
fn read_frames<R: Read>(
    walk: &mut Walk<'_, R>,
    batch_bytes: usize,
    to_decoder: &mut dyn FnMut(Vec<Frame>) -> Result<()>,
) -> Result<(End, u64, u64, u64)> {
    loop {
        let (batch, end) = next_batch(walk, batch_bytes)?;
        if !batch.is_empty() {
            to_decoder(batch)?;
        }
        if let Some(end) = end {
            return Ok((end, walk.index, walk.file_at, walk.out_at));
        }
    }
}

/// The next frames, up to about `batch_bytes` of output, and the end record where the
/// walk reached it.
fn next_batch<R: Read>(
    walk: &mut Walk<'_, R>,
    batch_bytes: usize,
) -> Result<(Vec<Frame>, Option<End>)> {
    let mut batch: Vec<Frame> = Vec::new();
    let mut batch_len = 0u64;
    loop {
        match walk.next()? {
            Record::Data(f) => {
                batch_len += f.len;
                batch.push(*f);
                if batch_len >= batch_bytes as u64 {
                    return Ok((batch, None));
                }
            }
            Record::End(end) => return Ok((batch, Some(end))),
        }
    }
}

/// [`decode_frames`] on `gpu` without threads: each batch read, decoded and written in
/// turn, its GPU work awaited (on the web, the browser's buffer mapping), so nothing
/// blocks. Natively [`decode_frames`] overlaps the batches on threads instead.
pub(crate) async fn decode_frames_async(
    r: &mut impl Read,
    w: &mut impl Write,
    batch_bytes: usize,
    gpu: DecodeGpu<'_>,
) -> Result<u64> {
    let batch_bytes = batch_bytes.min(ASYNC_GPU_BATCH_BYTES);
    let mut crc = crc32fast::Hasher::new();
    let mut walk = Walk::new(r, None);
    loop {
        let (batch, end) = next_batch(&mut walk, batch_bytes)?;
        if !batch.is_empty() {
            for part in decode_batch_gpu(gpu, &batch).await? {
                part.write_to(w, &mut crc)?;
            }
        }
        if let Some(end) = end {
            let (index, file_at, out_at) = (walk.index, walk.file_at, walk.out_at);
            check_end(walk.r, &end, crc, index, file_at)?;
            return Ok(out_at);
        }
    }
}

/// Decoded frames: their bytes, and each frame's range in them with its checksum.
struct Part {
    bytes: Vec<u8>,
    frames: Vec<(std::ops::Range<usize>, crc32fast::Hasher)>,
}

impl Part {
    /// Writes the frames' bytes to `w` and adds their checksums to `crc`. Frames that
    /// touch (the CPU's) go out in one write; the GPU's are padded apart.
    fn write_to(&self, w: &mut impl Write, crc: &mut crc32fast::Hasher) -> Result<()> {
        let mut run = 0..0;
        for (range, frame_crc) in &self.frames {
            if range.start != run.end {
                w.write_all(&self.bytes[run]).map_err(Error::WriteOutput)?;
                run = range.start..range.start;
            }
            run.end = range.end;
            crc.combine(frame_crc);
        }
        w.write_all(&self.bytes[run]).map_err(Error::WriteOutput)
    }
}

/// A batch's frames, decoded, in order.
type Decoded = Vec<Part>;

/// Every data frame of a native v2 stream in memory, read and checked as the decoder
/// reads them (the benchmark decodes them again and again).
#[cfg(all(feature = "bench", not(target_arch = "wasm32")))]
pub(crate) fn read_all_frames(file: &[u8]) -> Result<Vec<Frame>> {
    let mut r = file;
    expect_record(&mut r, 0, 0)?;
    let mut walk = Walk::new(&mut r, None);
    let mut frames = Vec::new();
    loop {
        match walk.next()? {
            Record::Data(f) => frames.push(*f),
            Record::End(_) => return Ok(frames),
        }
    }
}

/// `parvlc info` of a native v2 stream (positioned after its first magic and version):
/// frame headers read, payloads skipped.
pub(crate) fn describe_frames(r: &mut impl Read, file_len: u64) -> Result<String> {
    let mut walk = Walk::new(r, Some(read_past));
    let (mut min_len, mut max_len, mut longest) = (u64::MAX, 0u64, 0u8);
    loop {
        match walk.next()? {
            Record::Data(f) => {
                min_len = min_len.min(f.len);
                max_len = max_len.max(f.len);
                longest = longest.max(f.lengths.iter().copied().max().unwrap_or(0));
            }
            Record::End(end) => {
                let (index, out_at) = (walk.index, walk.out_at);
                let ratio = file_len as f64 / out_at.max(1) as f64;
                return Ok(format!(
                    "format:        parvlc native v{VERSION_FRAMED} (framed)\n\
                     original size: {out_at} bytes (crc32 {:08x})\n\
                     file size:     {file_len} bytes ({ratio:.4} of original)\n\
                     frames:        {index}, {} to {} bytes, a code each (longest {longest} bits)\n",
                    end.crc32,
                    if index == 0 { 0 } else { min_len },
                    max_len
                ));
            }
        }
    }
}

/// Where each data frame's payload lies in a native v2 file (first byte, bytes), its
/// blocks, and whether its code is every byte in 8 bits.
#[cfg(test)]
fn read_all_for_tests(file: &[u8]) -> Vec<(usize, usize, usize, bool)> {
    let mut r = file;
    let mut frames = Vec::new();
    let mut walk = Walk::new(&mut r, Some(read_past));
    expect_record(walk.r, 0, 0).unwrap();
    loop {
        match walk.next().unwrap() {
            Record::Data(f) => frames.push((
                (f.file_at as usize) + super::framing::NATIVE_FIXED + 4 * f.offsets.len(),
                f.payload_bits.div_ceil(8) as usize,
                f.offsets.len(),
                f.lengths.iter().all(|&l| l == 8),
            )),
            Record::End(_) => return frames,
        }
    }
}
