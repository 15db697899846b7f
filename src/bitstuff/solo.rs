//! Bit-stuffing with one invocation per segment on the GPU (shaders/bitstuff/solo.wgsl):
//! the serial rule in registers, four output bytes a step, no workgroup memory and no
//! barrier. For batches of many short segments (a tier-1's code-blocks), where vote and
//! fsm, a workgroup per segment, wait on their barriers; a step costs the same whatever
//! the bits, so runs of 0xFF cost what random bits do. Run it with
//! [`Stuffer::Solo`](super::Stuffer) (`encode`, `stuff`). CPU twin:
//! [`super::serial::stuff_batch`].

use super::gpu::{BitstuffConfig, Layout, StageRun};
use crate::gpu::registry::bitstuff::SOLO;

/// The solo pipeline and its override constant.
pub(crate) fn stage(config: &BitstuffConfig) -> StageRun {
    StageRun {
        shader: &SOLO,
        constants: vec![("WG_SIZE", config.workgroup_size as f64)],
        layout: Layout::InvocationPerSegment,
    }
}
