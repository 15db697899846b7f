//! Bit-stuffing by vote on the GPU (shaders/bitstuff/vote.wgsl, core in
//! shaders/common/bitstuff_wg.wgsl): the EBCOT fast-mode paper's Algorithm 2, a segmented
//! scan over runs of 0xFF repeated until no invocation changes its vote, 4 output bytes
//! per invocation. It counts its iterations per segment: 1-3 on random bits, but a
//! cascade (every insertion making a new 0xFF) needs one per 0xFF. CPU twin:
//! [`super::serial::stuff_batch`].

use super::gpu::{BitstuffConfig, Layout, StageRun};
use crate::gpu::registry::bitstuff::VOTE;

/// The vote pipeline and its override constants.
pub(crate) fn stage(config: &BitstuffConfig) -> StageRun {
    StageRun {
        shader: &VOTE,
        constants: vec![
            ("WG_SIZE", config.workgroup_size as f64),
            ("BS_IN_WORDS", config.in_words() as f64),
            ("BS_OUT_WORDS", config.out_words() as f64),
        ],
        layout: Layout::WorkgroupPerSegment,
    }
}
