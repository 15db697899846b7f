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

    /// One gzip member of `spans` (whose bytes are `bytes` of the chunk, whose index is
    /// `entries`), its index in its header, as pieces.
    fn member_pieces(
        &mut self,
        spans: &[FrameSpan],
        entries: &[IndexEntry],
        bytes: std::ops::Range<usize>,
        pieces: &mut Vec<Piece>,
    ) -> Result<()> {
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
        self.members += 1;
        Ok(())
    }

    /// The pieces of the next chunk (gzip: each of its members with its frame index),
    /// and the chunk counted into the summary and the checksum.
    pub(super) fn chunk_pieces(
        &mut self,
        chunk: &CodedChunk,
        pieces: &mut Vec<Piece>,
    ) -> Result<()> {
        match self.format {
            Format::Native => pieces.push(Piece::Coded(0..chunk.bytes.len())),
            Format::Gzip => {
                let entries = chunk
                    .spans
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
                let mut at = 0usize;
                for group in member_groups(&entries) {
                    let spans = &chunk.spans[group.clone()];
                    let n = spans.iter().map(|s| s.bytes as usize).sum::<usize>();
                    if at + n > chunk.bytes.len() {
                        return Err(Error::InvalidArgument(
                            "a chunk's frames overrun its bytes".into(),
                        ));
                    }
                    self.member_pieces(spans, &entries[group], at..at + n, pieces)?;
                    at += n;
                }
                if at != chunk.bytes.len() {
                    return Err(Error::InvalidArgument(
                        "a chunk's bytes run past its frames".into(),
                    ));
                }
            }
        }
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
            self.member_pieces(&[], &[], 0..0, &mut pieces)?;
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

/// A piece of a written chunk: bytes the writer made (a gzip member's header or
/// trailer) or a range of the chunk's coded bytes.
pub(super) enum Piece {
    Made(Vec<u8>),
    Coded(std::ops::Range<usize>),
}

impl Piece {
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
