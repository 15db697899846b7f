//! A regular file's native v2 stream: the walk reads its frame headers at its own offset
//! and skips the payloads, which are read a batch at a time at their offsets, on all
//! cores (one thread copying every payload was the decoder's floor).

use std::io::{BufRead, Read};

use rayon::prelude::*;

use super::records::{truncated, Frame, Payload};
use crate::huffman::framing::NATIVE_FIXED;
use crate::{Error, Result};

impl Frame {
    /// Reads the payload, which the walk skipped, from `file` (its stream from byte
    /// `start`) into `part`, its length: the same check as [`read_record`]'s.
    fn read_payload(&self, file: &std::fs::File, start: u64, part: &mut [u8]) -> Result<()> {
        let at = start + self.file_at + (NATIVE_FIXED + 4 * self.offsets.len()) as u64;
        let got = crate::huffman::pipeline::read_full_at(file, part, at)?;
        if got < part.len() {
            let want = part.len() as u64;
            return Err(truncated(self.index, self.file_at, got as u64, want));
        }
        Ok(())
    }
}

/// Reads a batch's payloads, which the walk skipped, from `file` (its stream from byte
/// `start`) into `buf` (a decoded batch's, reused), each frame its part, at their offsets
/// on all cores.
pub(super) fn read_payloads(
    frames: &mut [Frame],
    file: &std::fs::File,
    start: u64,
    mut buf: Vec<u8>,
) -> Result<()> {
    let lens: Vec<usize> = frames
        .iter()
        .map(|f| f.payload_bits.div_ceil(8) as usize)
        .collect();
    // The walk found the file long enough: what is allocated, the file holds.
    crate::huffman::stream::size_for_overwrite(&mut buf, lens.iter().sum());
    let mut parts = Vec::with_capacity(frames.len());
    let mut rest = &mut buf[..];
    for &n in &lens {
        let n = n.min(rest.len());
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(n);
        parts.push(part);
        rest = tail;
    }
    frames
        .par_iter()
        .zip(parts)
        .try_for_each(|(f, part)| f.read_payload(file, start, part))?;
    let buf = std::sync::Arc::new(buf);
    let mut at = 0;
    for (f, n) in frames.iter_mut().zip(lens) {
        f.payload = Payload::Batch(buf.clone(), at..at + n);
        at += n;
    }
    Ok(())
}

/// Bytes of header a file walk reads at once: a frame the encoder writes (1 MiB, blocks
/// of 16 KiB) has about 420.
const HEADER_READ: usize = 4 << 10;

/// A regular file read by the walk at its own offset (positional reads, so that the
/// payload readers need no lock and the file's position is not used): headers through a
/// small buffer, payloads skipped. Also the reader of a gzip file's members, whose
/// indexed frames are skipped the same way.
pub(crate) struct FileRecords<'f> {
    file: &'f std::fs::File,
    buf: Vec<u8>,
    /// Bytes of `buf` read from the file, and those handed out.
    held: usize,
    at: usize,
    /// The file offset just past `buf[..held]`, and the file's length.
    pos: u64,
    len: u64,
}

impl<'f> FileRecords<'f> {
    pub(crate) fn new(file: &'f std::fs::File, pos: u64) -> Result<Self> {
        let len = file.metadata().map_err(Error::ReadInput)?.len();
        Ok(FileRecords {
            file,
            buf: vec![0u8; HEADER_READ],
            held: 0,
            at: 0,
            pos,
            len,
        })
    }

    /// The file offset of the next byte the walk reads.
    pub(crate) fn position(&self) -> u64 {
        self.pos - (self.held - self.at) as u64
    }

    /// [`Skip`] by moving the offset: the file's length says how many bytes are there.
    pub(crate) fn skip(&mut self, n: u64) -> Result<u64> {
        let held = (self.held - self.at) as u64;
        if n <= held {
            self.at += n as usize;
            return Ok(n);
        }
        self.at = self.held;
        let mut past = self.len.saturating_sub(self.pos).min(n - held);
        if past < n - held {
            // A file that grew since the walk started is read as far as it now goes.
            self.len = self.file.metadata().map_err(Error::ReadInput)?.len();
            past = self.len.saturating_sub(self.pos).min(n - held);
        }
        self.pos += past;
        Ok(held + past)
    }
}

impl Read for FileRecords<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let held = self.fill_buf()?;
        let n = out.len().min(held.len());
        out[..n].copy_from_slice(&held[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for FileRecords<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.at == self.held {
            self.held = crate::huffman::pipeline::read_at(self.file, &mut self.buf, self.pos)?;
            self.at = 0;
            self.pos += self.held as u64;
        }
        Ok(&self.buf[self.at..self.held])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.held);
    }
}
