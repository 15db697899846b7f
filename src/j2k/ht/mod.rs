//! HTJ2K (JPEG 2000 Part 15, ITU-T T.814 | ISO/IEC 15444-15): the high-throughput
//! block coder, reversible, on the CPU and the GPU. Each code-block is one HT cleanup pass coding
//! every bit-plane ([`cleanup`]): its MEL ([`mel`]), VLC ([`vlc`], tables in
//! [`vlc_tables`]) and MagSgn streams merged into one codeword segment ([`streams`]).
//! No SigProp or MagRef pass: an encoder may leave them out, and lossless coding needs
//! none. This is the CPU twin of the GPU stage [`gpu`] (shaders/j2k/ht_cleanup.wgsl),
//! which equals it byte for byte.
//!
//! In the codestream ([`crate::j2k::codestream`]) an HT code-block is signalled by the
//! code-block style bit 0x40, the CAP marker with Part 15's bit and Ccap15, and bit 14
//! of Rsiz. In its packet header a block has one pass and one segment, and "missing
//! MSBs" of Mb - 1: the cleanup pass then codes down to bit-plane 0, its magnitudes
//! carry their own exponents.

pub mod cleanup;
pub mod gpu;
pub mod mel;
pub mod streams;
pub mod vlc;
pub mod vlc_tables;

pub use cleanup::encode as encode_code_block;

use super::tier1::CodeBlockCoded;
use super::{tier2, CodeBlockBatch, Tier1Engine, Tier1Future};
use crate::{Error, Result};

/// The code-block style bit of COD/COC that says "HT code-blocks".
pub const CBLK_STYLE_HT: u8 = 0x40;

/// The HT block coder over a whole batch, on all cores.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct HtCpu;

impl Tier1Engine for HtCpu {
    fn encode_batch<'a>(
        &'a self,
        batch: &'a CodeBlockBatch,
        _opts: &'a super::tier1::Tier1Options,
    ) -> Tier1Future<'a> {
        Box::pin(async move {
            batch.code_on_all_cores(|coeffs, j| encode_code_block(coeffs, j.width, j.height))
        })
    }

    fn is_ht(&self) -> bool {
        true
    }
}

/// The tier-2 view of an HT-coded block in a band of `mb` magnitude bit-planes: one
/// pass, one segment, missing MSBs Mb - 1 (the cleanup pass's bit-plane is
/// Mb - 1 - missing MSBs = 0); a block without data is not included. `data_len`: the
/// block's bytes (its pass must end there).
pub fn block_header(c: &CodeBlockCoded, data_len: usize, mb: u32) -> Result<tier2::BlockHeader> {
    let bad = |reason: String| Error::corrupt("HT block coder output", reason);
    if mb == 0 || c.num_bitplanes > mb {
        return Err(bad(format!(
            "{} bit-planes in a band of Mb = {mb}",
            c.num_bitplanes
        )));
    }
    match c.passes.as_slice() {
        [] if data_len == 0 && c.num_bitplanes == 0 => Ok(tier2::BlockHeader {
            passes: 0,
            zero_bitplanes: mb - 1,
            segments: vec![],
        }),
        [p] if p.terminated && p.end as usize == data_len && data_len >= 2 => {
            Ok(tier2::BlockHeader {
                passes: 1,
                zero_bitplanes: mb - 1,
                segments: vec![(1, p.end)],
            })
        }
        _ => Err(bad(format!(
            "{} passes over {data_len} bytes for {} bit-planes",
            c.passes.len(),
            c.num_bitplanes
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::j2k::tier1::PassInfo;

    #[test]
    fn block_headers_say_one_pass_down_to_bit_plane_0() {
        let c = encode_code_block(&[5, -3, 0, 1], 2, 2).unwrap();
        assert_eq!(c.num_bitplanes, 3);
        let h = block_header(&c, c.data.len(), 9).unwrap();
        assert_eq!(h.passes, 1);
        assert_eq!(h.zero_bitplanes, 8);
        assert_eq!(h.segments, vec![(1, c.data.len() as u32)]);
        let empty = block_header(&CodeBlockCoded::default(), 0, 9).unwrap();
        assert_eq!((empty.passes, empty.segments.len()), (0, 0));
        // More bit-planes than the band has, or passes that do not match the data.
        assert!(block_header(&c, c.data.len(), 2).is_err());
        let mut two = c.clone();
        two.passes.push(PassInfo {
            end: two.data.len() as u32,
            terminated: true,
        });
        assert!(block_header(&two, two.data.len(), 9).is_err());
        assert!(block_header(&c, c.data.len() - 1, 9).is_err());
        assert!(block_header(&CodeBlockCoded::default(), 2, 9).is_err());
    }
}
