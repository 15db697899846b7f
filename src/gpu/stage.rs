//! The shape every GPU stage family has: upload the host input, record the work into a
//! command encoder (the caller's, so that stages compose into one submission), read the
//! result back asynchronously, and a CPU twin that returns the same output bit for bit.
//! [`GpuStage::encode`] is the one-call path built from those steps.

use super::Gpu;
use crate::Result;

/// A GPU stage and its CPU twin. Stage parameters (a code table, a variant, coding
/// options) live in the implementing value, so the input is only the data.
///
/// The async methods are plain `async fn`: their futures are not `Send`, since wgpu's
/// WebGPU objects on wasm32 are not; native callers block on them or spawn locally.
#[allow(async_fn_in_trait)]
pub trait GpuStage {
    /// The host input.
    type Input<'a>: ?Sized;
    /// The input resident on the GPU, ready to record.
    type Uploaded;
    /// Recorded work whose buffers [`GpuStage::finish`] reads once submitted.
    type Pending;
    /// What [`GpuStage::finish`] returns: the output and what the GPU reported beside it
    /// (timings, fallbacks, block offsets).
    type Report;
    /// What the CPU twin returns, and the part of the report equal to it.
    type Output;

    fn gpu(&self) -> &Gpu;

    /// The label of the command encoder [`GpuStage::run`] makes.
    fn label(&self) -> &'static str;

    /// Check the input and bring it to the GPU. A stage that plans from a GPU pass (the
    /// cuvle histograms) runs and awaits that pass here.
    async fn upload(&self, input: &Self::Input<'_>) -> Result<Self::Uploaded>;

    /// Record the stage into `encoder`; nothing is submitted.
    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        uploaded: &Self::Uploaded,
    ) -> Result<Self::Pending>;

    /// Read back recorded work after its encoder was submitted. The host input and the
    /// upload are those `pending` was recorded from (a stage may need them to name a bad
    /// input or to code again what outgrew its room).
    async fn finish(
        &self,
        input: &Self::Input<'_>,
        uploaded: &Self::Uploaded,
        pending: Self::Pending,
    ) -> Result<Self::Report>;

    /// The output part of a report.
    fn output(report: Self::Report) -> Self::Output;

    /// The CPU twin: the same output from the host input.
    fn cpu(&self, input: &Self::Input<'_>) -> Result<Self::Output>;

    /// Upload, record into a fresh encoder, submit, read back: the full report.
    async fn run(&self, input: &Self::Input<'_>) -> Result<Self::Report> {
        let uploaded = self.upload(input).await?;
        let gpu = self.gpu();
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(self.label()),
            });
        let pending = self.encode_into(&mut encoder, &uploaded)?;
        gpu.queue.submit([encoder.finish()]);
        self.finish(input, &uploaded, pending).await
    }

    /// Everything in one call: what [`GpuStage::cpu`] returns, computed on the GPU.
    async fn encode(&self, input: &Self::Input<'_>) -> Result<Self::Output> {
        Ok(Self::output(self.run(input).await?))
    }
}
