//! The GPU frame's layout that the CAVLC stages share ([`super::cavlcu`], [`super::su`],
//! [`super::pack`], driven by [`super::gpu`]): block slots, the params uniform and the
//! buffers a stage binds. A leaf: it imports no other stage.

/// Block slots per macroblock, in bitstream order: [`SLOT_LUMA_DC`], 16 luma blocks by
/// luma4x4BlkIdx from [`SLOT_LUMA`], Cb and Cr DC from [`SLOT_CHROMA_DC`], 8 chroma AC
/// blocks (Cb 0..3, Cr 0..3) from [`SLOT_CHROMA_AC`]. Keep in sync with
/// shaders/cavlc/frame.wgsl.
pub const MB_SLOTS: usize = 27;
pub const SLOT_LUMA_DC: usize = 0;
pub const SLOT_LUMA: usize = 1;
pub const SLOT_CHROMA_DC: usize = 17;
pub const SLOT_CHROMA_AC: usize = 19;
/// Words each slot owns: a block's code is at most 16 (coeff_token) + 3 + 16 * 28
/// (levels) bits when TotalCoeff is 16, less otherwise, below 512.
pub const SLOT_WORDS: usize = 16;

/// Bits a macroblock may take at most: its header (under 128) and 27 full slots.
pub(crate) const MB_MAX_BITS: u64 = 128 + (MB_SLOTS * SLOT_WORDS * 32) as u64;

/// keep in sync with shaders/cavlc/frame.wgsl `CavlcParams`
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct CavlcParams {
    pub width_mbs: u32,
    pub n_mbs: u32,
    pub n_groups: u32,
    /// Macroblocks of each picture: a frame may hold several pictures back to back, whose
    /// macroblocks never neighbour another picture's.
    pub picture_mbs: u32,
}

/// The buffers a stage binds.
pub(crate) struct FrameBuffers<'a> {
    pub n_mbs: u32,
    pub n_groups: u32,
    pub params: &'a wgpu::Buffer,
    pub headers: wgpu::BufferBinding<'a>,
    pub levels: wgpu::BufferBinding<'a>,
    pub tables: &'a wgpu::Buffer,
    pub enc_words: &'a wgpu::Buffer,
    pub enc_lens: &'a wgpu::Buffer,
    pub state: &'a wgpu::Buffer,
    pub status: &'a wgpu::Buffer,
}
