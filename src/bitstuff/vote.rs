//! Bit-stuffing by vote on the GPU (shaders/bitstuff_vote.wgsl, core in
//! shaders/lib/bitstuff_wg.wgsl): the EBCOT fast-mode paper's Algorithm 2, a segmented
//! scan over runs of 0xFF repeated until no invocation changes its vote, 4 output bytes
//! per invocation. It counts its iterations per segment: 1-3 on random bits, but a
//! cascade (every insertion making a new 0xFF) needs one per 0xFF. CPU twin:
//! [`super::serial::stuff_batch`].

use super::gpu::{
    self, bitstuff_scan_bytes, BitstuffConfig, GpuBatch, GpuStuffed, Pending, StageRun,
};
use super::{RawBits, Termination};
use crate::gpu::{Flavour, Gpu, StageLayout};
use crate::Result;

pub(crate) const LAYOUT: StageLayout = gpu::layout("bitstuff_vote");

/// Workgroup memory of the vote stage: raw bits, output, lib/bitstuff_scan.wgsl, and
/// lib/wg_scan.wgsl's buffer.
fn workgroup_bytes(gpu: &Gpu, config: &BitstuffConfig) -> u32 {
    let scan = match gpu.flavour() {
        Flavour::Workgroup => 4 * 1024,
        Flavour::Subgroup => 4 * 256,
    };
    4 * (config.in_words() + config.out_words()) + bitstuff_scan_bytes(gpu, config) + scan + 64
}

/// Record the vote stage over `batch` into `encoder`; nothing is submitted.
pub fn encode_vote(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    batch: &GpuBatch,
    config: &BitstuffConfig,
    profile: bool,
) -> Result<Pending> {
    config.validate()?;
    config.check_workgroup_memory(gpu, "vote", workgroup_bytes(gpu, config))?;
    gpu::encode(
        gpu,
        encoder,
        batch,
        StageRun {
            layout: &LAYOUT,
            label: "vote",
            constants: vec![
                ("WG_SIZE", config.workgroup_size as f64),
                ("BS_IN_WORDS", config.in_words() as f64),
                ("BS_OUT_WORDS", config.out_words() as f64),
            ],
        },
        profile,
    )
}

/// Upload, stuff by vote, read back.
pub async fn stuff_vote(
    gpu: &Gpu,
    segments: &[RawBits<'_>],
    term: Termination,
    config: &BitstuffConfig,
) -> Result<GpuStuffed> {
    let batch = GpuBatch::upload(gpu, segments, term, config)?;
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("parvlc.bitstuff_vote"),
        });
    let pending = encode_vote(gpu, &mut encoder, &batch, config, false)?;
    gpu.queue.submit([encoder.finish()]);
    gpu::finish(gpu, &batch, pending).await
}
