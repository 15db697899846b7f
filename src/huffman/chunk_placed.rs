//! A GPU coder's chunk written straight into its place in a stream's output vector
//! (`super::pipeline::Places`), for both GPU coders: its length published while the GPU
//! codes it, then its coded bytes copied from the readback into the place, its frames'
//! headers and trailers and the container's pieces around them written there. Saves the
//! writer's copy of the chunk.

use super::chunk::{expected_spans, finished, write_frames, ChunkLayout, CodedChunk, Finished};
use super::compress::Format;
use super::pipeline::{chunk_pieces, DirectPlace, Piece, Places};
use crate::{Error, Result};

/// How long a coder whose bytes are ready waits for its place to be known (the chunks
/// before it publish their lengths once their encodes are submitted) before it leaves
/// the chunk to the writer's copy. On the H200, never waiting left up to a fifth more CPU
/// time to copies and coded native chunks slower; waiting as long as it took (places
/// taken in order) let one late chunk hold every coder after it; 3 ms was as fast as
/// either or faster (docs/results.md, "Twenty-ninth pass").
pub(super) const PLACE_WAIT: std::time::Duration = std::time::Duration::from_millis(3);

/// Publish chunk `seq`'s length among `places`, for a chunk laid out as `layout`, where
/// its frames' bytes are one run of its container (a gzip chunk of one member; several
/// members' headers would fall between them): its container's pieces as the layout
/// measures them. None otherwise, and nothing published (its coder publishes it once the
/// chunk is coded).
pub(super) fn publish_length(
    places: &Places,
    seq: u64,
    layout: &ChunkLayout,
    format: Format,
    block: u64,
) -> Result<Option<Vec<Piece>>> {
    let spans = expected_spans(layout, format, block);
    let mut pieces = Vec::with_capacity(3);
    chunk_pieces(format, &spans, layout.output_bytes() as usize, &mut pieces)?;
    if pieces
        .iter()
        .filter(|p| matches!(p, Piece::Coded(_)))
        .count()
        != 1
    {
        return Ok(None);
    }
    places.publish(seq, pieces.iter().map(Piece::len).sum())?;
    Ok(Some(pieces))
}

/// A chunk whose length [`publish_length`] published as `expected`, to write into its
/// place.
pub(super) struct Placed<'a> {
    pub expected: &'a [Piece],
    pub format: Format,
    pub layout: &'a ChunkLayout,
    /// Input bytes of the chunk.
    pub len: u64,
    pub block: u64,
}

impl Placed<'_> {
    /// The chunk written into `direct`: its coded bytes by `write_coded` (given the place
    /// and where they start in it, it returns them as written there), then its frames'
    /// headers and trailers, and the container's pieces around them (which must measure
    /// what the layout's `expected` did when its length was published).
    pub(super) fn write(
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
        let mut chunk = CodedChunk::new(
            Vec::new(),
            layout,
            finished(format, checks),
            self.len,
            block,
        );
        chunk.written_at = Some(direct.place);
        let mut pieces = Vec::with_capacity(self.expected.len());
        chunk_pieces(format, &chunk.spans, chunk.coded_len(), &mut pieces)?;
        let same_shape = pieces.len() == self.expected.len()
            && pieces
                .iter()
                .zip(self.expected)
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
