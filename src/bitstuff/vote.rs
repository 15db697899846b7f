//! Bit-stuffing by vote on the GPU (shaders/bitstuff/vote.wgsl, core in
//! shaders/common/bitstuff_wg.wgsl): the EBCOT fast-mode paper's Algorithm 2, a segmented
//! scan over runs of 0xFF repeated until no invocation changes its vote, 4 output bytes
//! per invocation. It counts its iterations per segment: 1-3 on random bits, but a
//! cascade (every insertion making a new 0xFF) needs one per 0xFF. CPU twin:
//! [`super::serial::stuff_batch`].

use super::gpu::{BitstuffConfig, GpuBatch, GpuStuffed, Layout, Pending, StageRun, Stuffer};
use super::{RawBits, Termination};
use crate::gpu::registry::bitstuff::VOTE;
use crate::gpu::Gpu;
use crate::Result;

/// The vote pipeline and its override constants.
pub(crate) fn stage(config: &BitstuffConfig) -> StageRun {
    StageRun {
        shader: &VOTE,
        label: "vote",
        constants: vec![
            ("WG_SIZE", config.workgroup_size as f64),
            ("BS_IN_WORDS", config.in_words() as f64),
            ("BS_OUT_WORDS", config.out_words() as f64),
        ],
        layout: Layout::WorkgroupPerSegment,
    }
}

/// Record the vote stage over `batch` into `encoder`; nothing is submitted.
pub fn encode_vote(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    batch: &GpuBatch,
    config: &BitstuffConfig,
    profile: bool,
) -> Result<Pending> {
    Stuffer::Vote.encode(gpu, encoder, batch, config, profile)
}

/// Upload, stuff with the vote stage, read back.
pub async fn stuff_vote(
    gpu: &Gpu,
    segments: &[RawBits<'_>],
    term: Termination,
    config: &BitstuffConfig,
) -> Result<GpuStuffed> {
    Stuffer::Vote.stuff(gpu, segments, term, config).await
}
