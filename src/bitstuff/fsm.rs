//! Bit-stuffing by state-machine scan on the GPU (shaders/bitstuff/fsm.wgsl): every chunk
//! of raw bits maps the writer's 16 states (bit phase 0-7, current byte after 0xFF) to
//! outgoing ones; one scan composing those maps decides every insertion in O(log n) depth
//! whatever the input, then each invocation emits its bits from its incoming state.
//! CPU twin: [`super::serial::stuff_batch`].

use super::gpu::{BitstuffConfig, Layout, StageRun};
use crate::gpu::registry::bitstuff::FSM;

/// The fsm pipeline and its override constants.
pub(crate) fn stage(config: &BitstuffConfig) -> StageRun {
    StageRun {
        shader: &FSM,
        constants: vec![
            ("WG_SIZE", config.workgroup_size as f64),
            ("FSM_IN_WORDS", config.in_words() as f64),
            ("FSM_OUT_WORDS", config.out_words() as f64),
            ("FSM_WORDS", config.fsm_words as f64),
        ],
        layout: Layout::WorkgroupPerSegment,
    }
}
