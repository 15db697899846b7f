//! `std::io` adapters over the streaming pipeline (natively): [`CompressWriter`], whose
//! bytes are coded by [`compress_stream`] on a thread of its own (every coder at work while
//! the caller writes), and [`DecompressReader`], whose bytes are decoded ahead on a thread
//! of its own.

use std::io::{Read, Write};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::thread::JoinHandle;
use std::time::Duration;

use super::compress::Format;
use super::pipeline::{compress_stream, StreamConfig, StreamInput, StreamSummary};
use crate::{Engine, Error, Result};

/// Bytes a [`CompressWriter`] gathers before it hands them to its pipeline.
const PIECE: usize = 1 << 20;
/// Pieces in flight each way: what the adapter holds beyond the pipeline's own window.
const PIECES: usize = 4;

fn stopped_early() -> Error {
    Error::InvalidArgument("the compress pipeline's thread stopped early".into())
}

/// A piece received whole from a channel and handed out by reads.
#[derive(Default)]
struct Piece {
    bytes: Vec<u8>,
    at: usize,
}

impl Piece {
    fn is_spent(&self) -> bool {
        self.at == self.bytes.len()
    }

    /// Copy what is left of the piece, as much as `out` holds.
    fn read_into(&mut self, out: &mut [u8]) -> usize {
        let n = out.len().min(self.bytes.len() - self.at);
        out[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        n
    }
}

/// What the pipeline's thread sends back: coded bytes, then how it ended.
enum Coded {
    Bytes(Vec<u8>),
    Done(Result<StreamSummary>),
}

/// A [`Write`] adapter: bytes written are compressed into `W` as a framed stream by the
/// whole pipeline ([`compress_stream`]: `depth` chunks coding at once on a thread of
/// its own), and the coded bytes are written to `W` on the caller's thread, from `write`
/// and `finish`. The bytes are [`compress_stream`]'s. Call [`CompressWriter::finish`]
/// at the end: dropping the adapter stops the pipeline and loses the stream's end.
/// Memory: the pipeline's window and a few MiB of pieces each way.
pub struct CompressWriter<W: Write> {
    /// `None` only once `finish` has taken it.
    out: Option<W>,
    /// Pieces of input to the pipeline; `None` once the input has ended.
    input: Option<SyncSender<Vec<u8>>>,
    coded: Receiver<Coded>,
    piece: Vec<u8>,
    /// How the pipeline ended, once it has said so.
    ended: Option<Result<StreamSummary>>,
    worker: Option<JoinHandle<()>>,
}

impl<W: Write> CompressWriter<W> {
    /// Start the pipeline on `engine` (wgpu or the CPU; the stream has no CUDA path).
    pub fn new(engine: &Engine, format: Format, config: StreamConfig, out: W) -> Result<Self> {
        // The pipeline's thread holds the engine: the GPU is shared, not opened again.
        let engine = match engine {
            Engine::Wgpu(gpu) => Engine::Wgpu(gpu.clone()),
            Engine::Cpu => Engine::Cpu,
            #[cfg(feature = "cuda")]
            Engine::Cuda(..) => {
                return Err(Error::InvalidArgument(
                    "the streaming compressor runs on wgpu or the CPU, not CUDA".into(),
                ))
            }
        };
        // The pipeline checks its config too, but only on its thread: a bad one is an
        // error here, before any byte is taken.
        config.validate()?;
        let (input, pieces) = sync_channel::<Vec<u8>>(PIECES);
        let (coded_tx, coded) = sync_channel::<Coded>(PIECES);
        let worker = std::thread::Builder::new()
            .name("parvlc-compress".into())
            .spawn(move || {
                let mut reader = PieceReader {
                    pieces,
                    current: Piece::default(),
                };
                let mut sink = PieceWriter {
                    tx: coded_tx.clone(),
                };
                let ended = compress_stream(
                    &engine,
                    format,
                    &config,
                    StreamInput::Reader(&mut reader),
                    &mut sink,
                    &mut |_| {},
                );
                let _ = coded_tx.send(Coded::Done(ended));
            })
            .map_err(|e| Error::InvalidArgument(format!("no thread for the pipeline: {e}")))?;
        Ok(CompressWriter {
            out: Some(out),
            input: Some(input),
            coded,
            piece: Vec::with_capacity(PIECE),
            ended: None,
            worker: Some(worker),
        })
    }

    /// Write what the pipeline has coded: all of it with `until_done`, else what is there.
    fn drain(&mut self, until_done: bool) -> Result<()> {
        while self.ended.is_none() {
            let next = if until_done {
                self.coded.recv().ok()
            } else {
                self.coded.try_recv().ok()
            };
            match next {
                Some(Coded::Bytes(b)) => self.put(&b)?,
                Some(Coded::Done(r)) => self.ended = Some(r),
                None if until_done => self.ended = Some(Err(stopped_early())),
                None => break,
            }
        }
        Ok(())
    }

    /// The pipeline's error, once it has ended with one.
    fn pipeline_error(&mut self) -> Option<Error> {
        match self.ended.take() {
            Some(Err(e)) => Some(e),
            other => {
                self.ended = other;
                None
            }
        }
    }

    /// Hand the gathered piece to the pipeline, writing coded bytes while it is full.
    fn send_piece(&mut self) -> Result<()> {
        let mut piece = std::mem::replace(&mut self.piece, Vec::with_capacity(PIECE));
        loop {
            let Some(input) = &self.input else {
                return Err(Error::InvalidArgument("write after the end".into()));
            };
            match input.try_send(piece) {
                Ok(()) => return self.drain(false),
                Err(TrySendError::Full(p)) => {
                    piece = p;
                    // Wait a little for coded bytes, so that the pipeline moves on.
                    match self.coded.recv_timeout(Duration::from_millis(1)) {
                        Ok(Coded::Bytes(b)) => self.put(&b)?,
                        Ok(Coded::Done(r)) => self.ended = Some(r),
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => {
                            self.ended.get_or_insert(Err(stopped_early()));
                        }
                    }
                }
                Err(TrySendError::Disconnected(_)) => {
                    self.drain(true)?;
                    return Err(self.pipeline_error().unwrap_or_else(|| {
                        Error::InvalidArgument("the compress pipeline ended early".into())
                    }));
                }
            }
            if let Some(e) = self.pipeline_error() {
                return Err(e);
            }
        }
    }

    /// End the input, write the rest of the stream; returns the summary and the sink.
    pub fn finish(mut self) -> Result<(StreamSummary, W)> {
        if !self.piece.is_empty() {
            self.send_piece()?;
        }
        self.input = None;
        self.drain(true)?;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
        let summary = self.ended.take().unwrap_or_else(|| Err(stopped_early()))?;
        let mut out = self
            .out
            .take()
            .ok_or_else(|| Error::InvalidArgument("the adapter's sink is gone".into()))?;
        out.flush().map_err(Error::WriteOutput)?;
        Ok((summary, out))
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        match &mut self.out {
            Some(out) => out.write_all(bytes).map_err(Error::WriteOutput),
            None => Err(Error::InvalidArgument("the adapter's sink is gone".into())),
        }
    }
}

impl<W: Write> Write for CompressWriter<W> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let n = (PIECE - self.piece.len()).min(data.len());
        self.piece.extend_from_slice(&data[..n]);
        if self.piece.len() == PIECE {
            self.send_piece().map_err(std::io::Error::other)?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<W: Write> Drop for CompressWriter<W> {
    fn drop(&mut self) {
        // The input ends and coded bytes have nowhere to go: the pipeline stops at its
        // next write, and its thread with it.
        self.input = None;
        let (_, dead) = sync_channel(0);
        drop(std::mem::replace(&mut self.coded, dead));
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

/// The pipeline's input: the pieces the adapter sends, as one reader.
struct PieceReader {
    pieces: Receiver<Vec<u8>>,
    current: Piece,
}

impl Read for PieceReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_spent() {
            match self.pieces.recv() {
                Ok(bytes) => self.current = Piece { bytes, at: 0 },
                // The adapter ended the input (finish) or went away (drop).
                Err(_) => return Ok(0),
            }
        }
        Ok(self.current.read_into(out))
    }
}

/// The pipeline's sink: every write goes back to the adapter as it is.
struct PieceWriter {
    tx: SyncSender<Coded>,
}

impl Write for PieceWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.tx
            .send(Coded::Bytes(data.to_vec()))
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A [`Read`] adapter: decompresses a native or gzip stream from `R` as it is read, on
/// a thread of its own (the decoders push bytes; this hands them out).
pub struct DecompressReader {
    rx: Receiver<std::io::Result<Vec<u8>>>,
    current: Piece,
    done: bool,
}

impl DecompressReader {
    pub fn new<R: std::io::BufRead + Send + 'static>(mut input: R) -> DecompressReader {
        let (tx, rx) = sync_channel::<std::io::Result<Vec<u8>>>(2);
        std::thread::spawn(move || {
            let mut sink = ChannelWriter {
                tx: tx.clone(),
                buf: Vec::new(),
            };
            let result = super::stream::decompress_to(&mut input, &mut sink);
            let result = result.and_then(|d| {
                if d.trailing == super::stream::Trailing::Garbage {
                    Err(Error::corrupt(
                        "gzip",
                        "trailing garbage after the last member",
                    ))
                } else {
                    Ok(())
                }
            });
            let _ = sink.flush_buf();
            if let Err(e) = result {
                let _ = tx.send(Err(std::io::Error::other(e)));
            }
        });
        DecompressReader {
            rx,
            current: Piece::default(),
            done: false,
        }
    }
}

struct ChannelWriter {
    tx: std::sync::mpsc::SyncSender<std::io::Result<Vec<u8>>>,
    buf: Vec<u8>,
}

impl ChannelWriter {
    const BATCH: usize = 1 << 20;
    fn flush_buf(&mut self) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            let b = std::mem::take(&mut self.buf);
            self.tx
                .send(Ok(b))
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
        }
        Ok(())
    }
}

impl Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= Self::BATCH {
            self.flush_buf()?;
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Read for DecompressReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_spent() {
            if self.done {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(Ok(bytes)) => self.current = Piece { bytes, at: 0 },
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => {
                    self.done = true;
                    return Ok(0);
                }
            }
        }
        Ok(self.current.read_into(out))
    }
}
