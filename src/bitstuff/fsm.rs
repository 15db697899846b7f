//! Bit-stuffing by state-machine scan on the GPU (shaders/bitstuff/fsm.wgsl): every chunk
//! of raw bits maps the writer's 16 states (bit phase 0-7, current byte after 0xFF) to
//! outgoing ones; one scan composing those maps decides every insertion in O(log n) depth
//! whatever the input, then each invocation emits its bits from its incoming state.
//! CPU twin: [`super::serial::stuff_batch`].

use super::gpu::{BitstuffConfig, GpuBatch, GpuStuffed, Layout, Pending, StageRun, Stuffer};
use super::{RawBits, Termination};
use crate::gpu::registry::bitstuff::FSM;
use crate::gpu::Gpu;
use crate::Result;

/// The fsm pipeline and its override constants.
pub(crate) fn stage(config: &BitstuffConfig) -> StageRun {
    StageRun {
        shader: &FSM,
        label: "fsm",
        constants: vec![
            ("WG_SIZE", config.workgroup_size as f64),
            ("FSM_IN_WORDS", config.in_words() as f64),
            ("FSM_OUT_WORDS", config.out_words() as f64),
            ("FSM_WORDS", config.fsm_words as f64),
        ],
        layout: Layout::WorkgroupPerSegment,
    }
}

/// Record the fsm stage over `batch` into `encoder`; nothing is submitted.
pub fn encode_fsm(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    batch: &GpuBatch,
    config: &BitstuffConfig,
    profile: bool,
) -> Result<Pending> {
    Stuffer::Fsm.encode(gpu, encoder, batch, config, profile)
}

/// Upload, stuff with the fsm stage, read back.
pub async fn stuff_fsm(
    gpu: &Gpu,
    segments: &[RawBits<'_>],
    term: Termination,
    config: &BitstuffConfig,
) -> Result<GpuStuffed> {
    Stuffer::Fsm.stuff(gpu, segments, term, config).await
}
