//! The framed stream's container writer: chunks in order (gzip: each chunk as members
//! with their frame index), the stream's trailer, the checksums combined; every chunk as
//! pieces that a sink takes in vectored writes, or that `place.rs` copies into a vector.

use std::io::{IoSlice, Write};

use super::StreamSummary;
use crate::huffman::chunk::{CodedChunk, FrameSpan};
use crate::huffman::compress::Format;
use crate::huffman::framing::{gzip_member_trailer, stream_trailer};
use crate::huffman::gzip_index::{member_groups, member_header, IndexEntry};
use crate::{Error, Result};

/// Writes a framed stream: chunks in order (gzip: each as members with their frame
/// index), then the trailer; checksums combined.
pub struct StreamWriter<W: Write> {
    out: W,
    format: Format,
    pub(super) summary: StreamSummary,
    crc: crc32fast::Hasher,
    /// gzip members written.
    members: u64,
}

impl<W: Write> StreamWriter<W> {
    pub fn new(out: W, format: Format) -> Self {
        StreamWriter {
            out,
            format,
            summary: StreamSummary::default(),
            crc: crc32fast::Hasher::new(),
            members: 0,
        }
    }

    /// The pieces of the next chunk (gzip: each of its members with its frame index),
    /// and the chunk counted into the summary and the checksum.
    pub(super) fn chunk_pieces(
        &mut self,
        chunk: &CodedChunk,
        pieces: &mut Vec<Piece>,
    ) -> Result<()> {
        self.members += chunk_pieces(self.format, &chunk.spans, chunk.coded_len(), pieces)?;
        self.crc.combine(&chunk.crc);
        self.summary.bytes_in += chunk.len;
        self.summary.frames += chunk.frames;
        self.summary.chunks += 1;
        Ok(())
    }

    /// Append the next chunk.
    pub fn write_chunk(&mut self, chunk: &CodedChunk) -> Result<()> {
        self.write_chunks(std::slice::from_ref(chunk))
    }

    /// Append the next chunks, in order, in one vectored write.
    pub fn write_chunks(&mut self, chunks: &[CodedChunk]) -> Result<()> {
        let mut pieces = Vec::with_capacity(chunks.len() * 3);
        let mut of_chunk = Vec::with_capacity(chunks.len());
        for chunk in chunks {
            let first = pieces.len();
            self.chunk_pieces(chunk, &mut pieces)?;
            of_chunk.push(first..pieces.len());
        }
        let mut slices: Vec<IoSlice<'_>> = chunks
            .iter()
            .zip(of_chunk)
            .flat_map(|(chunk, range)| {
                pieces[range]
                    .iter()
                    .map(|p| IoSlice::new(p.bytes(&chunk.bytes)))
            })
            .collect();
        let len = slices.iter().map(|s| s.len() as u64).sum::<u64>();
        write_all_vectored(&mut self.out, &mut slices).map_err(Error::WriteOutput)?;
        self.summary.bytes_out += len;
        Ok(())
    }

    /// The stream's last bytes (an empty member where a gzip stream has none, then the
    /// trailer), counted as written.
    pub(super) fn tail(&mut self) -> Result<Vec<u8>> {
        let mut tail = Vec::new();
        if self.format == Format::Gzip && self.members == 0 {
            let mut pieces = Vec::new();
            self.members += member_pieces(&[], &[], 0..0, &mut pieces)?;
            for p in &pieces {
                tail.extend_from_slice(p.bytes(&[]));
            }
        }
        self.summary.crc32 = self.crc.clone().finalize();
        let s = self.summary;
        tail.extend_from_slice(&stream_trailer(self.format, s.bytes_in, s.crc32, s.frames));
        self.summary.bytes_out += tail.len() as u64;
        Ok(tail)
    }

    /// Write the trailer and flush; returns the summary and the sink.
    pub fn finish(mut self) -> Result<(StreamSummary, W)> {
        let tail = self.tail()?;
        self.out.write_all(&tail).map_err(Error::WriteOutput)?;
        self.out.flush().map_err(Error::WriteOutput)?;
        Ok((self.summary, self.out))
    }
}

/// The pieces of a chunk of frames `spans` whose bytes are `coded_len` long, as the
/// container lays them out (gzip: each group of frames a member, its index in the
/// member's header); returns the members made.
pub(crate) fn chunk_pieces(
    format: Format,
    spans: &[FrameSpan],
    coded_len: usize,
    pieces: &mut Vec<Piece>,
) -> Result<u64> {
    if format == Format::Native {
        pieces.push(Piece::Coded(0..coded_len));
        return Ok(0);
    }
    let entries = spans
        .iter()
        .map(|s| {
            let too_large = || Error::TooLarge(format!("a frame of {} bytes", s.len));
            Ok(IndexEntry {
                len: u32::try_from(s.len).map_err(|_| too_large())?,
                bytes: u32::try_from(s.bytes).map_err(|_| too_large())?,
                crc32: s.crc.clone().finalize(),
                code: s.code.clone(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let (mut at, mut members) = (0usize, 0u64);
    for group in member_groups(&entries) {
        let n = spans[group.clone()]
            .iter()
            .map(|s| s.bytes as usize)
            .sum::<usize>();
        if at + n > coded_len {
            return Err(Error::InvalidArgument(
                "a chunk's frames overrun its bytes".into(),
            ));
        }
        members += member_pieces(&spans[group.clone()], &entries[group], at..at + n, pieces)?;
        at += n;
    }
    if at != coded_len {
        return Err(Error::InvalidArgument(
            "a chunk's bytes run past its frames".into(),
        ));
    }
    Ok(members)
}

/// One gzip member of `spans` (whose bytes are `bytes` of the chunk, whose index is
/// `entries`), its index in its header, as pieces; returns the members made (one).
fn member_pieces(
    spans: &[FrameSpan],
    entries: &[IndexEntry],
    bytes: std::ops::Range<usize>,
    pieces: &mut Vec<Piece>,
) -> Result<u64> {
    let mut crc = crc32fast::Hasher::new();
    let mut len = 0u64;
    for s in spans {
        crc.combine(&s.crc);
        len += s.len;
    }
    pieces.push(Piece::Made(member_header(entries)?));
    pieces.push(Piece::Coded(bytes));
    pieces.push(Piece::Made(
        gzip_member_trailer(len, crc.finalize()).to_vec(),
    ));
    Ok(1)
}

/// A piece of a written chunk: bytes the writer made (a gzip member's header or
/// trailer) or a range of the chunk's coded bytes.
pub(crate) enum Piece {
    Made(Vec<u8>),
    Coded(std::ops::Range<usize>),
}

impl Piece {
    pub(crate) fn len(&self) -> usize {
        match self {
            Piece::Made(bytes) => bytes.len(),
            Piece::Coded(range) => range.len(),
        }
    }

    pub(super) fn bytes<'a>(&'a self, coded: &'a [u8]) -> &'a [u8] {
        match self {
            Piece::Made(bytes) => bytes,
            Piece::Coded(range) => &coded[range.clone()],
        }
    }
}

/// Write every byte of `slices` with vectored writes (`Write::write_all_vectored` is not
/// stable).
fn write_all_vectored(out: &mut impl Write, mut slices: &mut [IoSlice<'_>]) -> std::io::Result<()> {
    IoSlice::advance_slices(&mut slices, 0);
    while !slices.is_empty() {
        match out.write_vectored(slices) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
