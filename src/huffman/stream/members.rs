//! The gzip member readers: the member loops, each member's frames or flate2 stream, its trailer.

use std::io::{BufRead, Read, Write};

use super::batch::{Job, Jobs};
use super::counted::Counted;
use super::{corrupt, Decompressed, FileFrames, Trailing};
use crate::huffman::compress::Format;
use crate::huffman::framed_decode::GpuSource;
use crate::huffman::gzip_index;
use crate::huffman::native::read_full;
use crate::{Error, Result};

/// The member loop on the web, where there are no threads: each job decoded and written
/// as the reader makes it.
#[cfg(target_arch = "wasm32")]
pub(super) fn gzip_members<R: BufRead>(
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
    let flushed = jobs.send_all();
    drop(jobs);
    let done = read?;
    flushed?;
    Ok(done)
}

/// Output bytes of a gzip batch on a GPU at most. On the H200 (4 GiB of system files,
/// docs/results.md, "Ninth pass"), 16 MiB decoded in 1.15-1.23 s at 321-336 MiB of peak
/// memory (wgpu) against 1.21-1.24 s at 590-591 MiB with 32 MiB, and 1.28-1.29 s with 8
/// MiB.
pub(super) const GZIP_GPU_BATCH_BYTES: usize = 16 << 20;

/// The member loop, with decoder threads (indexed frames on all cores, or on `gpu`) and
/// a writer thread behind them. `head` holds the first bytes of the first member, already
/// read.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn gzip_members<R: BufRead>(
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
            let flushed = jobs.send_all();
            read.and_then(|done| flushed.map(|()| done))
        },
    );
    // A decode or write error explains a reader that stopped early: report it first.
    written?;
    read
}

/// The reader's side of [`gzip_members`]: members parsed and read, their work sent on.
pub(super) fn read_members<R: BufRead>(
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

/// A read error kept by [`Counted`] wins over what the parser made of the short read.
fn stashed<R>(input: &mut Counted<R>, e: Error) -> Error {
    input.failed.take().map_or(e, Error::ReadInput)
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
