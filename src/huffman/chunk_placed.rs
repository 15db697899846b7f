//! A GPU coder's chunk written straight into its place in a stream's output vector
//! (`super::pipeline::Places`), for both GPU coders: its length published while the GPU
//! codes it ([`Placing::publish`]), then ([`Placing::finish`]) its coded bytes copied
//! from the readback into the place, its frames' headers and trailers and the
//! container's pieces around them written there. Saves the writer's copy of the chunk.

use super::chunk::{
    expected_spans, finished, frame_block_offsets, frame_checks, layout_mismatch, write_frames,
    ChunkLayout, CodedChunk, Finished,
};
use super::compress::Format;
use super::cuvle::Encoded;
use super::pipeline::{chunk_pieces, DirectPlace, Piece, Places};
use crate::{Error, Result};

/// How long a coder whose bytes are ready waits for its place to be known (the chunks
/// before it publish their lengths once their encodes are submitted) before it leaves
/// the chunk to the writer's copy. On the H200, never waiting left up to a fifth more CPU
/// time to copies and coded native chunks slower; waiting as long as it took (places
/// taken in order) let one late chunk hold every coder after it; 3 ms was as fast as
/// either or faster (docs/results.md, "Twenty-ninth pass").
pub(super) const PLACE_WAIT: std::time::Duration = std::time::Duration::from_millis(3);

/// A chunk whose length is published among a vector's places, to write into its place
/// once coded.
pub(super) struct Placing<'a> {
    places: &'a Places,
    seq: u64,
    /// Its container's pieces as the layout measured them when the length was published.
    expected: Vec<Piece>,
    data: &'a [u8],
    layout: &'a ChunkLayout,
    format: Format,
    block: u64,
}

impl<'a> Placing<'a> {
    /// Publish chunk `seq` (`data`, laid out as `layout`) among `places`, where its
    /// frames' bytes are one run of its container (a gzip chunk of one member; several
    /// members' headers would fall between them): its container's length as the layout
    /// measures it. None otherwise, and nothing published (its coder publishes it once
    /// the chunk is coded).
    pub(super) fn publish(
        places: &'a Places,
        seq: u64,
        data: &'a [u8],
        layout: &'a ChunkLayout,
        format: Format,
        block: u64,
    ) -> Result<Option<Placing<'a>>> {
        let spans = expected_spans(layout, format, block);
        let mut expected = Vec::with_capacity(3);
        chunk_pieces(
            format,
            &spans,
            layout.output_bytes() as usize,
            &mut expected,
        )?;
        let coded_runs = expected
            .iter()
            .filter(|p| matches!(p, Piece::Coded(_)))
            .count();
        if coded_runs != 1 {
            return Ok(None);
        }
        places.publish(seq, expected.iter().map(Piece::len).sum())?;
        Ok(Some(Placing {
            places,
            seq,
            expected,
            data,
            layout,
            format,
            block,
        }))
    }

    /// The chunk once its encode (`encoded`, its stream `coded_len` bytes, the blocks'
    /// CRC32s `block_crcs`) is done: written into its place where that is known within
    /// [`PLACE_WAIT`] and lies within the vector's room, its coded bytes by `write_coded`
    /// (given the place and where they start in it, it returns them as written there);
    /// else in a vector of its own from `to_vec`, for the writer's copy.
    pub(super) fn finish(
        &self,
        encoded: &Encoded,
        coded_len: usize,
        block_crcs: &[u32],
        write_coded: impl for<'d> FnOnce(&'d mut DirectPlace, usize) -> Result<&'d mut [u8]>,
        to_vec: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<CodedChunk> {
        let (layout, format, block) = (self.layout, self.format, self.block);
        if coded_len as u64 != layout.output_bytes() {
            return Err(layout_mismatch(coded_len, layout));
        }
        let offsets = frame_block_offsets(layout, block, encoded);
        let checks = frame_checks(self.data, layout, block, Some(&offsets), Some(block_crcs))?;
        let len = self.data.len() as u64;
        match self.places.direct(self.seq, PLACE_WAIT) {
            Some(direct) => self.write(direct, checks, write_coded),
            // Its place not known yet, or past the vector's room: for the writer.
            None => {
                let mut out = to_vec()?;
                write_frames(layout, format, block, &checks, &mut out)?;
                Ok(CodedChunk::new(
                    out,
                    layout,
                    finished(format, checks),
                    len,
                    block,
                ))
            }
        }
    }

    /// The chunk written into `direct`: its coded bytes, then its frames' headers and
    /// trailers, and the container's pieces around them (which must measure what the
    /// layout's did when its length was published).
    fn write(
        &self,
        mut direct: DirectPlace,
        checks: Vec<Finished>,
        write_coded: impl for<'d> FnOnce(&'d mut DirectPlace, usize) -> Result<&'d mut [u8]>,
    ) -> Result<CodedChunk> {
        let (format, layout, block) = (self.format, self.layout, self.block);
        let coded_at: usize = self
            .expected
            .iter()
            .take_while(|p| !matches!(p, Piece::Coded(_)))
            .map(Piece::len)
            .sum();
        let coded = write_coded(&mut direct, coded_at)?;
        write_frames(layout, format, block, &checks, coded)?;
        let len = self.data.len() as u64;
        let mut chunk = CodedChunk::new(Vec::new(), layout, finished(format, checks), len, block);
        chunk.written_at = Some(direct.place);
        let mut pieces = Vec::with_capacity(self.expected.len());
        chunk_pieces(format, &chunk.spans, chunk.coded_len(), &mut pieces)?;
        let same_shape = pieces.len() == self.expected.len()
            && pieces
                .iter()
                .zip(&self.expected)
                .all(|(a, b)| a.len() == b.len());
        if !same_shape {
            return Err(Error::InvalidArgument(
                "a chunk's container measured otherwise than its layout said".into(),
            ));
        }
        let mut at = 0;
        for piece in &pieces {
            if let Piece::Made(bytes) = piece {
                direct.fill(at, bytes)?;
            }
            at += piece.len();
        }
        Ok(chunk)
    }
}
