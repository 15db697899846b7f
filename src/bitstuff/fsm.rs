//! Bit-stuffing by state-machine scan on the GPU (shaders/bitstuff_fsm.wgsl): every chunk
//! of raw bits maps the writer's 16 states (bit phase 0-7, current byte after 0xFF) to
//! outgoing ones; one scan composing those maps decides every insertion in O(log n) depth
//! whatever the input, then each invocation emits its bits from its incoming state.
//! CPU twin: [`super::serial::stuff_batch`].

use super::gpu::{
    self, bitstuff_scan_bytes, BitstuffConfig, GpuBatch, GpuStuffed, Pending, StageRun,
};
use super::{RawBits, Termination};
use crate::gpu::{Flavour, Gpu, StageLayout};
use crate::Result;

pub(crate) const LAYOUT: StageLayout = gpu::layout("bitstuff_fsm");

/// Workgroup memory of the fsm stage: raw bits, output, lib/bitstuff_scan.wgsl, and
/// lib/wg_scan.wgsl's buffer.
fn workgroup_bytes(gpu: &Gpu, config: &BitstuffConfig) -> u32 {
    let scan = match gpu.flavour() {
        Flavour::Workgroup => 4 * 1024,
        Flavour::Subgroup => 4 * 256,
    };
    4 * (config.in_words() + config.out_words()) + bitstuff_scan_bytes(gpu, config) + scan + 64
}

/// Record the fsm stage over `batch` into `encoder`; nothing is submitted.
pub fn encode_fsm(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    batch: &GpuBatch,
    config: &BitstuffConfig,
    profile: bool,
) -> Result<Pending> {
    config.validate()?;
    config.check_workgroup_memory(gpu, "fsm", workgroup_bytes(gpu, config))?;
    gpu::encode(
        gpu,
        encoder,
        batch,
        StageRun {
            layout: &LAYOUT,
            label: "fsm",
            constants: vec![
                ("WG_SIZE", config.workgroup_size as f64),
                ("FSM_IN_WORDS", config.in_words() as f64),
                ("FSM_OUT_WORDS", config.out_words() as f64),
                ("FSM_WORDS", config.fsm_words as f64),
            ],
        },
        profile,
    )
}

/// Upload, stuff by state-machine scan, read back.
pub async fn stuff_fsm(
    gpu: &Gpu,
    segments: &[RawBits<'_>],
    term: Termination,
    config: &BitstuffConfig,
) -> Result<GpuStuffed> {
    let batch = GpuBatch::upload(gpu, segments, term, config)?;
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("parvlc.bitstuff_fsm"),
        });
    let pending = encode_fsm(gpu, &mut encoder, &batch, config, false)?;
    gpu.queue.submit([encoder.finish()]);
    gpu::finish(gpu, &batch, pending).await
}
