//! The streaming compressor: input read in chunks, each chunk cut into frames with their
//! own codes and coded on the engine, container bytes written in order. Reading, coding
//! and writing run on their own threads, `depth` chunks coding at once, so the disk, the
//! host cores and the GPU work side by side; memory is bounded by the pipeline, not the
//! input (about `4 * depth` chunks of input and output in flight).

#[cfg(not(target_arch = "wasm32"))]
use std::{
    borrow::Cow,
    io::Read,
    io::Write,
    sync::atomic::{AtomicBool, AtomicU64, Ordering},
    sync::mpsc::{sync_channel, Receiver},
    sync::Mutex,
};

use super::chunk::{encode_chunk_cpu, CodedChunk};
use super::compress::Format;
use super::cuvle::CuvleConfig;
use super::frames::FrameConfig;
#[cfg(not(target_arch = "wasm32"))]
use super::native::read_full;
use crate::{Engine, Error, Result};

#[cfg(not(target_arch = "wasm32"))]
mod place;
mod places;
mod writer;

pub(crate) use places::{DirectPlace, Places};
pub use writer::StreamWriter;
pub(crate) use writer::{chunk_pieces, Piece};

/// How a stream is cut and how deep the pipeline runs. A stream holds about
/// `4 * depth` chunks of input and output in flight: the default's 12 chunks of 8 MiB
/// (the library's fastest shape for bytes in memory) come to some 400 MiB; the CLI's
/// compress runs 8 of 4 MiB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamConfig {
    /// Input bytes per chunk: the unit of reading, coding and writing.
    pub chunk_bytes: usize,
    /// Chunks coding at once.
    pub depth: usize,
    pub frames: FrameConfig,
    pub cuvle: CuvleConfig,
    /// Where a GPU coder plans a chunk's frames (the CPU engine plans on its cores).
    pub planner: FramePlanner,
}

/// Where a GPU coder plans a chunk's frames and builds their code lengths: on the GPU
/// (the frame_plan stage, in the histograms' submission) or on the coder's core (the
/// CPU twin). The two give the same frames; they cost different things.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FramePlanner {
    /// Where it measured faster on the H200 (docs/results.md, "Eighteenth pass" and
    /// "Nineteenth pass"): frames of at most [`GPU_PLANNED_FRAME_BYTES`] on the GPU (less
    /// CPU, and a faster compress once the block CRC32s were cheap), larger ones on the
    /// host (a region of 1 MiB is a serial chain four times as long, and the GPU's serial
    /// pass a chunk made compress slower).
    #[default]
    Auto,
    Gpu,
    Host,
}

/// The largest frame [`FramePlanner::Auto`] plans on the GPU: a region's merge decisions
/// are a serial chain there, and 16 cells took the pass from 0.10 to 0.03 ms a 4 MiB
/// chunk on the H200 against 64 (1 MiB), for 0.001-0.02% more bytes.
pub const GPU_PLANNED_FRAME_BYTES: u64 = 256 << 10;

impl FramePlanner {
    /// Whether frames cut by `frames` are planned on the GPU.
    pub fn on_gpu(self, frames: &FrameConfig) -> bool {
        match self {
            FramePlanner::Auto => frames.max_frame_bytes <= GPU_PLANNED_FRAME_BYTES,
            FramePlanner::Gpu => true,
            FramePlanner::Host => false,
        }
    }
}

/// Threads per workgroup of a stream's CUVLE pass. A native frame's blocks are the
/// pass's block-inputs (workgroup size x NET words), and a GPU decodes a block serially:
/// blocks of 8 KiB decoded 4 GiB in 1.06-1.08 s on the H200 against 1.47 s with 16 KiB,
/// for 0.03% more bytes, and compress took as long (its host side bounds it, not the
/// pass's 338 GB/s against 392 at 256 threads; docs/results.md, "Seventh pass"). Blocks
/// of 4 KiB, once the decoder's host side was leaner: 0.78-0.85 s against 0.87-0.94 s
/// with 8 KiB, for 0.065% more bytes ("Eighth pass").
pub const STREAM_WORKGROUP_SIZE: u32 = 64;

impl Default for StreamConfig {
    fn default() -> Self {
        let mut cuvle = CuvleConfig::default();
        cuvle.scan.workgroup_size = STREAM_WORKGROUP_SIZE;
        cuvle.host_output = true;
        StreamConfig {
            // 8 MiB: once coders wrote their chunks into compress_to_vec's vector
            // themselves, the library's GiB of system files ran 8-20% faster than with
            // 4 MiB at 12 coders on the H200, and 12 or 16 MiB slower again
            // (docs/results.md, "Twenty-ninth pass").
            chunk_bytes: 8 << 20,
            // 12: the library's GiB of system files 3-8% faster than at 10 on the H200,
            // 16 slower again (docs/results.md, "Twenty-second pass").
            depth: 12,
            frames: FrameConfig::default(),
            cuvle,
            planner: FramePlanner::default(),
        }
    }
}

impl StreamConfig {
    /// The default shape with the frames that code `format` fastest (the CLI's shape):
    /// today the same for both, frames of at most [`GPU_PLANNED_FRAME_BYTES`] planned
    /// on the GPU (native's went from 1 MiB planned on the host to that, on the H200:
    /// the CLI's 4 GiB with a fifth less CPU, the library's GiB 5% faster, for 0.02% more
    /// bytes; docs/results.md, "Nineteenth pass").
    pub fn for_format(_format: Format) -> StreamConfig {
        let mut config = StreamConfig::default();
        config.frames.max_frame_bytes = GPU_PLANNED_FRAME_BYTES;
        config
    }

    pub(crate) fn validate(&self) -> Result<()> {
        self.cuvle.validate()?;
        self.frames.validate(self.cuvle.block_bytes())?;
        if self.depth == 0 || self.chunk_bytes == 0 {
            return Err(Error::InvalidArgument(
                "a stream needs chunks of at least one byte and a depth of at least 1".into(),
            ));
        }
        if !(self.chunk_bytes as u64).is_multiple_of(self.frames.cell_bytes) {
            return Err(Error::InvalidArgument(format!(
                "chunks of {} bytes: use a multiple of the {}-byte frame cell",
                self.chunk_bytes, self.frames.cell_bytes
            )));
        }
        Ok(())
    }
}

/// What a compressed stream came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamSummary {
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub frames: u64,
    pub chunks: u64,
    pub crc32: u32,
    /// Chunks that their GPU coder wrote into [`compress_to_vec`]'s vector itself, from
    /// the encode's mapped output (the others were copied there by the writer).
    pub chunks_in_place: u64,
}

/// Code one chunk of a stream on `engine`: frames, their codes and their bytes.
pub async fn encode_chunk(
    engine: &Engine,
    data: &[u8],
    format: Format,
    config: &StreamConfig,
) -> Result<CodedChunk> {
    encode_chunk_at(engine, data, format, config, None).await
}

/// [`encode_chunk`] as chunk `seq` of a stream into a vector (`at`): a GPU coder whose
/// encode is written in place publishes the chunk's length and writes the chunk into its
/// place where that is known in time ([`CodedChunk::written_at`]).
async fn encode_chunk_at(
    engine: &Engine,
    data: &[u8],
    format: Format,
    config: &StreamConfig,
    at: Option<(&Places, u64)>,
) -> Result<CodedChunk> {
    let block = config.cuvle.block_bytes();
    match engine {
        Engine::Cpu => encode_chunk_cpu(data, format, &config.frames, block),
        Engine::Wgpu(gpu) => {
            super::chunk_gpu::encode_chunk_gpu(gpu, data, format, config, at).await
        }
        #[cfg(feature = "cuda")]
        Engine::Cuda(cuda, tuning) => {
            super::chunk_cuda::encode_chunk_cuda(cuda, tuning, data, format, config, at)
        }
    }
}

/// Where a stream's input comes from.
#[cfg(not(target_arch = "wasm32"))]
pub enum StreamInput<'a> {
    /// Any reader (a pipe, standard input): one thread reads it in order.
    Reader(&'a mut (dyn Read + Send)),
    /// A regular file, from its current position to its end: two threads read its
    /// chunks at their offsets, in parallel (the position is not moved).
    File(&'a std::fs::File),
    /// Bytes already in memory: each coder takes its chunk straight from them (no reader
    /// thread, no copy before the upload).
    Bytes(&'a [u8]),
}

/// Reader threads of a file input.
#[cfg(not(target_arch = "wasm32"))]
const FILE_READERS: usize = 2;

/// Reads chunk `seq` of `file` (positional, so readers need no lock).
#[cfg(not(target_arch = "wasm32"))]
fn read_chunk_at(
    file: &std::fs::File,
    start: u64,
    seq: u64,
    chunk: usize,
    mut buf: Vec<u8>,
) -> Result<Vec<u8>> {
    // A coder's buffer from its last chunk: no fresh pages to fault in.
    buf.resize(chunk, 0);
    let got = read_full_at(file, &mut buf, start + seq * chunk as u64)?;
    buf.truncate(got);
    Ok(buf)
}

/// Reads `file` from byte `at` until `buf` is full or the file ends; returns how many
/// bytes were read. Positional: the file's position is not used (on unix, not moved).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn read_full_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> Result<usize> {
    fill_at(file, buf, at).map_err(Error::ReadInput)
}

/// [`read_full_at`] with the I/O error as it is, for callers that name the file.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn fill_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match read_at(file, &mut buf[got..], at + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(unix)]
pub(crate) fn read_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(windows)]
pub(crate) fn read_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}

/// Compress `input` into `output` as a framed stream on `engine`, overlapping reading,
/// coding and writing. `progress` hears the input bytes done after each chunk. Blocks
/// (it runs the engine's futures to completion): call it from a thread of your own.
#[cfg(not(target_arch = "wasm32"))]
pub fn compress_stream<'i>(
    engine: &Engine,
    format: Format,
    config: &StreamConfig,
    input: StreamInput<'i>,
    output: &mut (dyn Write + Send),
    progress: &mut dyn FnMut(u64),
) -> Result<StreamSummary> {
    run_stream(
        engine,
        format,
        config,
        input,
        StreamOutput::Writer(output),
        progress,
    )
}

/// Where a stream's coded chunks go.
#[cfg(not(target_arch = "wasm32"))]
enum StreamOutput<'o> {
    /// Written in order by the writer thread.
    Writer(&'o mut (dyn Write + Send)),
    /// Appended to a vector: placed in order, copied by threads of their own.
    Vec(&'o mut Vec<u8>),
}

#[cfg(not(target_arch = "wasm32"))]
fn run_stream<'i>(
    engine: &Engine,
    format: Format,
    config: &StreamConfig,
    input: StreamInput<'i>,
    mut output: StreamOutput<'_>,
    progress: &mut dyn FnMut(u64),
) -> Result<StreamSummary> {
    config.validate()?;
    let depth = config.depth;
    let chunk = config.chunk_bytes;
    // Readers -> coders: one chunk waiting, so reading runs ahead of coding by one.
    // (Bytes in memory need no reader: the coders take their chunks from them.)
    let (to_coders, from_reader) = sync_channel::<Result<(u64, Vec<u8>)>>(1);
    let from_reader = Mutex::new(from_reader);
    // Coders -> readers: input buffers to reuse (no fresh pages to fault in).
    let (spares_tx, spares_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let spares = Mutex::new(spares_rx);
    let stop = AtomicBool::new(false);
    // Positional reads and bytes in memory: the next chunk to claim.
    let next_seq = AtomicU64::new(0);
    // At most 2 * depth chunks from the oldest one not yet written.
    let window = crate::ordered::Window::new(0, 2 * depth);
    // Into a vector: each chunk's place there, in order, for coders to write their own.
    let places = match &mut output {
        // SAFETY: the vector's buffer moves only when the writer grows it, for a chunk
        // whose place lies past the capacity it has now, which `Places::direct` hands no
        // coder, once every chunk before it (so every place handed out) has come in; it
        // is freed only after the scope below has joined every coder. Nothing else
        // touches its spare capacity while the run lasts.
        StreamOutput::Vec(out) => Some(unsafe { Places::new(out) }),
        StreamOutput::Writer(_) => None,
    };
    std::thread::scope(|s| {
        let (stop, next_seq, spares, window) = (&stop, &next_seq, &spares, &window);
        let places = places.as_ref();
        let (to_writer, from_coders) = sync_channel::<Result<(u64, CodedChunk)>>(1);
        let spare = move || -> Vec<u8> {
            let reused = spares.lock().ok().and_then(|rx| rx.try_recv().ok());
            reused.unwrap_or_default()
        };
        let in_memory = match &input {
            StreamInput::Bytes(data) => Some(*data),
            _ => None,
        };
        match input {
            StreamInput::File(f) => {
                // Standard input redirected from a file starts where its reader left it.
                let start = {
                    use std::io::Seek;
                    let mut f = f;
                    f.stream_position().map_err(Error::ReadInput)?
                };
                // Two readers claim chunks in turn: reads from the page cache run at
                // twice one thread's copy speed, and out of order is fine downstream.
                for _ in 0..FILE_READERS {
                    let to_coders = to_coders.clone();
                    s.spawn(move || {
                        while !stop.load(Ordering::Relaxed) {
                            let seq = next_seq.fetch_add(1, Ordering::Relaxed);
                            if !window.admit(seq) {
                                return;
                            }
                            let t = std::time::Instant::now();
                            let read = read_chunk_at(f, start, seq, chunk, spare());
                            log::debug!(
                                "chunk {seq} read in {:.1} ms",
                                t.elapsed().as_secs_f64() * 1e3
                            );
                            // Past the end (chunk 0 of an empty file is coded: it is empty).
                            if matches!(&read, Ok(b) if b.is_empty() && seq > 0) {
                                return;
                            }
                            let last = !matches!(&read, Ok(b) if b.len() == chunk);
                            if to_coders.send(read.map(|b| (seq, b))).is_err() || last {
                                return;
                            }
                        }
                    });
                }
                drop(to_coders);
            }
            StreamInput::Bytes(_) => drop(to_coders),
            StreamInput::Reader(reader) => {
                s.spawn(move || {
                    let mut seq = 0u64;
                    while !stop.load(Ordering::Relaxed) && window.admit(seq) {
                        let mut buf = spare();
                        buf.resize(chunk, 0);
                        let got = match read_full(reader, &mut buf) {
                            Ok(n) => n,
                            Err(e) => {
                                let _ = to_coders.send(Err(e));
                                return;
                            }
                        };
                        if got == 0 && seq > 0 {
                            return;
                        }
                        buf.truncate(got);
                        if to_coders.send(Ok((seq, buf))).is_err() || got < chunk {
                            return;
                        }
                        seq += 1;
                    }
                });
            }
        }
        let from_reader = &from_reader;
        // The next chunk for a coder: its own slice of bytes in memory, else the
        // readers' next buffer. None: the input is done (or the sink has stopped).
        let next_chunk = move || -> Option<Result<(u64, Cow<'i, [u8]>)>> {
            match in_memory {
                Some(data) => {
                    let seq = next_seq.fetch_add(1, Ordering::Relaxed);
                    let start = usize::try_from(seq).ok()?.checked_mul(chunk)?;
                    // Chunk 0 of empty bytes is coded (it is empty), as from a file.
                    if (start >= data.len() && seq > 0) || !window.admit(seq) {
                        return None;
                    }
                    let end = data.len().min(start.saturating_add(chunk));
                    Some(Ok((seq, Cow::Borrowed(&data[start.min(end)..end]))))
                }
                None => {
                    let next = from_reader.lock().ok()?.recv().ok()?;
                    Some(next.map(|(seq, d)| (seq, Cow::Owned(d))))
                }
            }
        };
        for _ in 0..depth {
            let to_writer = to_writer.clone();
            let spares_tx = spares_tx.clone();
            s.spawn(move || {
                let code = || loop {
                    // Pipelines are built as chunks first need them, not every variant
                    // ahead: building the eight at once on a cold machine took the peak to
                    // 548-571 MiB, against 498-501 without, to save 0.15-0.3 s of that
                    // first run (the H200, 4 GiB; docs/results.md, "Eighth pass").
                    let Some(next) = next_chunk() else { return };
                    let coded = next.and_then(|(seq, data)| {
                        let at = places.map(|p| (p, seq));
                        let c =
                            pollster::block_on(encode_chunk_at(engine, &data, format, config, at));
                        if let Cow::Owned(buffer) = data {
                            let _ = spares_tx.send(buffer);
                        }
                        // Its length, unless its coder wrote it in its place (published,
                        // and measured against it there): later chunks' places may then
                        // be known before the writer gets to this one.
                        let c = match (places, c) {
                            (Some(p), Ok(c)) if c.written_at.is_none() => {
                                publish_length(p, seq, format, &c).map(|_| c)
                            }
                            (_, c) => c,
                        };
                        c.map(|c| (seq, c))
                    });
                    let failed = coded.is_err();
                    if to_writer.send(coded).is_err() || failed {
                        return;
                    }
                };
                // A GPU coder's host work (planning its frames, their headers and
                // checksums, the readback's copy) on a thread of its own; the CPU
                // engine's coding is that work, in the shared pool.
                let own = (!matches!(engine, Engine::Cpu)).then_some(1);
                crate::ordered::in_own_pool(own, code)
            });
        }
        drop(spares_tx);
        drop(to_writer);
        // Written chunks' bytes go back to the readbacks that fill the next ones.
        let recycle = |bytes: Vec<u8>| {
            if let Engine::Wgpu(gpu) = engine {
                gpu.recycle_host_vec(bytes);
            }
        };
        let result = match output {
            StreamOutput::Writer(out) => write_in_order(
                from_coders,
                window,
                StreamWriter::new(out, format),
                progress,
                &recycle,
            ),
            StreamOutput::Vec(out) => match places {
                Some(places) => place::place_in_order(
                    from_coders,
                    window,
                    format,
                    places,
                    out,
                    progress,
                    &recycle,
                ),
                None => Err(Error::InvalidArgument(
                    "a vector's stream without places".into(),
                )),
            },
        };
        // On an error the coders have stopped: stop the reader and take what it queued,
        // so that it is not left waiting to send.
        stop.store(true, Ordering::Relaxed);
        if let Ok(rx) = from_reader.lock() {
            while rx.recv().is_ok() {}
        }
        result
    })
}

/// Publish a coded chunk's length in the vector among `places` (its container's pieces
/// included).
#[cfg(not(target_arch = "wasm32"))]
fn publish_length(places: &Places, seq: u64, format: Format, chunk: &CodedChunk) -> Result<()> {
    let mut pieces = Vec::with_capacity(3);
    chunk_pieces(format, &chunk.spans, chunk.coded_len(), &mut pieces)?;
    places.publish(seq, pieces.iter().map(Piece::len).sum())
}

/// The error of a writer left with a gap in its chunks.
#[cfg(not(target_arch = "wasm32"))]
fn lost_chunk() -> Error {
    Error::InvalidArgument("the pipeline lost a chunk (a coder stopped early)".into())
}

/// Most chunks one write takes: the window moves on after each write, so a batch as
/// large as the window would stall the coders while it is written.
#[cfg(not(target_arch = "wasm32"))]
const WRITE_BATCH: usize = 8;

/// The writer's side: chunks arrive in any order and are written in sequence, the
/// chunks that are next in order when the writer is free (up to [`WRITE_BATCH`]) in one
/// write.
#[cfg(not(target_arch = "wasm32"))]
fn write_in_order<W: Write>(
    from_coders: Receiver<Result<(u64, CodedChunk)>>,
    window: &crate::ordered::Window,
    mut writer: StreamWriter<W>,
    progress: &mut dyn FnMut(u64),
    recycle: &dyn Fn(Vec<u8>),
) -> Result<StreamSummary> {
    crate::ordered::in_order_batches(
        from_coders,
        0,
        window,
        WRITE_BATCH,
        lost_chunk,
        |first, chunks| {
            let t = std::time::Instant::now();
            writer.write_chunks(&chunks)?;
            log::debug!(
                "chunks {first}..{}: {} bytes written in {:.1} ms",
                first + chunks.len() as u64,
                chunks.iter().map(|c| c.bytes.len()).sum::<usize>(),
                t.elapsed().as_secs_f64() * 1e3
            );
            progress(writer.summary.bytes_in);
            for chunk in chunks {
                recycle(chunk.bytes);
            }
            Ok(())
        },
    )?;
    writer.finish().map(|(s, _)| s)
}

/// Compress `data` in memory as a framed stream, appended to `out`, through the whole
/// pipeline ([`compress_stream`]): `depth` chunks coding at once, each coder taking its
/// chunk straight from `data` and, on a GPU, copying the chunk from the mapped output
/// into its place in `out` itself; chunks that cannot be placed so are copied there by
/// threads of their own while the next ones code. `out` first gets room for any output
/// of `data` (its pages are touched only as they are written). On an error `out` holds
/// what it held before (its capacity may have grown). Blocks, as `compress_stream`.
#[cfg(not(target_arch = "wasm32"))]
pub fn compress_to_vec(
    engine: &Engine,
    format: Format,
    config: &StreamConfig,
    data: &[u8],
    out: &mut Vec<u8>,
    progress: &mut dyn FnMut(u64),
) -> Result<StreamSummary> {
    let room = output_room(data.len(), config);
    compress_to_vec_in_room(engine, format, config, data, out, room, progress)
}

/// More than a stream of `len` input bytes can come to: a frame's code never takes more
/// than 8 bits a byte on average but for gzip's end-of-block code, and its headers,
/// index entries and the container's pieces take less than a sixteenth of a frame of at
/// least a cell (16 KiB), plus a member's header and trailer a chunk.
#[cfg(not(target_arch = "wasm32"))]
fn output_room(len: usize, config: &StreamConfig) -> usize {
    let chunks = len.div_ceil(config.chunk_bytes.max(1));
    len + len / 8 + chunks * 64 + (64 << 10)
}

/// [`compress_to_vec`] with room for `room` more bytes made in `out` first, whatever
/// the input: chunks placed past the vector's capacity as the run finds it are copied
/// there by the writer, which grows the vector (for tests of that path).
#[doc(hidden)]
#[cfg(not(target_arch = "wasm32"))]
pub fn compress_to_vec_in_room(
    engine: &Engine,
    format: Format,
    config: &StreamConfig,
    data: &[u8],
    out: &mut Vec<u8>,
    room: usize,
    progress: &mut dyn FnMut(u64),
) -> Result<StreamSummary> {
    config.validate()?;
    out.try_reserve(room)
        .map_err(|e| Error::TooLarge(format!("room for {room} bytes of output: {e}")))?;
    run_stream(
        engine,
        format,
        config,
        StreamInput::Bytes(data),
        StreamOutput::Vec(out),
        progress,
    )
}

#[cfg(not(target_arch = "wasm32"))]
pub use super::adapters::{CompressWriter, DecompressReader};

/// Compress `data` in memory as a framed stream (the one-shot call over the pipeline's
/// chunks).
pub async fn compress_framed(
    engine: &Engine,
    data: &[u8],
    format: Format,
    config: &StreamConfig,
) -> Result<(Vec<u8>, StreamSummary)> {
    config.validate()?;
    let mut writer = StreamWriter::new(Vec::with_capacity(data.len() / 2 + 64), format);
    for chunk in data.chunks(config.chunk_bytes) {
        writer.write_chunk(&encode_chunk(engine, chunk, format, config).await?)?;
    }
    let (summary, bytes) = writer.finish()?;
    Ok((bytes, summary))
}
