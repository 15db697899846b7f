//! EBCOT tier-1: coefficient bit modelling and entropy coding of one code-block
//! (ISO/IEC 15444-1 Annexes C and D) with the selective arithmetic coding bypass style
//! ("fast mode"). [`encode_code_block`] is the CPU reference; [`decode_code_block`]
//! proves it by round trip.
//!
//! Code-block style: bypass only (`0x01`, or `0x00` with `bypass_from: None`); no
//! context reset, no termination on each pass, no vertically causal contexts, no
//! predictable termination, no segmentation symbols.

pub mod cpu;
pub mod decode;
pub mod gpu;
pub mod model;

pub use decode::decode_code_block;

use crate::Result;

/// Orientation of the subband a code-block belongs to; it selects the zero coding
/// contexts (Table D.1). HL is horizontally high-pass (vertically low-pass), LH
/// vertically high-pass; a resolution level's bands come in the order HL, LH, HH.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BandOrientation {
    LL,
    HL,
    LH,
    HH,
}

/// Tier-1 coding options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tier1Options {
    /// Selective arithmetic coding bypass: `Some(k)` codes the SPP and MRP of the k-th
    /// coded bit-plane (counting the most significant as 1) and below raw. Part 1's
    /// bypass style is `Some(5)` (raw from pass index 10 on); Part 2 also allows 2..=4.
    /// `None`: every pass is MQ-coded (code-block style 0).
    pub bypass_from: Option<u32>,
}

impl Tier1Options {
    /// JPEG 2000 Part 1's selective arithmetic coding bypass (code-block style 0x01).
    pub const PART1_BYPASS: Tier1Options = Tier1Options {
        bypass_from: Some(5),
    };
}

/// Where one coding pass ends in the code-block's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PassInfo {
    /// Bytes of data up to and including this pass. For a terminated pass this is the
    /// exact end of its codeword segment; for the others it is OpenJPEG's truncation
    /// estimate (never beyond a later pass's end, never just after a 0xFF).
    pub end: u32,
    /// Whether this pass ends a codeword segment (tier-2 signals one length per
    /// segment).
    pub terminated: bool,
}

/// One coded code-block.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CodeBlockCoded {
    /// All codeword segments, back to back.
    pub data: Vec<u8>,
    /// Magnitude bit-planes coded: floor(log2(max |c|)) + 1, 0 if all coefficients are
    /// zero (then there are no passes and no data).
    pub num_bitplanes: u32,
    /// 3 * num_bitplanes - 2 passes: the first plane's cleanup, then SPP, MRP, cleanup
    /// for each further plane.
    pub passes: Vec<PassInfo>,
}

/// Encodes one code-block. `coeffs` are `width * height` signed integers in row-major
/// order (e.g. after the reversible 5/3 DWT); sizes follow the standard (sides up to
/// 1024, area up to 4096).
pub fn encode_code_block(
    coeffs: &[i32],
    width: usize,
    height: usize,
    band: BandOrientation,
    opts: &Tier1Options,
) -> Result<CodeBlockCoded> {
    cpu::encode(coeffs, width, height, band, opts)
}

/// One code-block to encode: its coefficients (row-major), size and band orientation.
#[derive(Clone, Copy, Debug)]
pub struct CodeBlockInput<'a> {
    pub coeffs: &'a [i32],
    pub width: usize,
    pub height: usize,
    pub band: BandOrientation,
}

/// Encodes many code-blocks on one core, in order (the "CPU tier-1, one core" baseline).
pub fn encode_code_blocks_serial(
    blocks: &[CodeBlockInput<'_>],
    opts: &Tier1Options,
) -> Result<Vec<CodeBlockCoded>> {
    blocks
        .iter()
        .map(|b| encode_code_block(b.coeffs, b.width, b.height, b.band, opts))
        .collect()
}

/// Encodes many code-blocks on all cores (rayon), one code-block per task; the result is
/// in input order and equal to [`encode_code_blocks_serial`]'s.
pub fn encode_code_blocks(
    blocks: &[CodeBlockInput<'_>],
    opts: &Tier1Options,
) -> Result<Vec<CodeBlockCoded>> {
    use rayon::prelude::*;
    blocks
        .par_iter()
        .map(|b| encode_code_block(b.coeffs, b.width, b.height, b.band, opts))
        .collect()
}
