//! The encoder's GPU tier-1 ([`Tier1GpuEngine`]): it owns the GPU and a kernel driver
//! ([`Tier1Kernels`]), and codes a whole image from the front end on, its pipelines built
//! ahead side by side.

use super::{Tier1GpuConfig, Tier1Kernels, TIER1};
use crate::gpu::{BuildingAhead, Gpu, PipelineKey};
use crate::j2k::tier1::{CodeBlockCoded, CodeBlockInput, Tier1Options};
use crate::j2k::CodeBlockBatch;
use crate::Result;

/// The GPU tier-1 as the encoder runs it: a whole image's code-blocks in one upload and
/// one submission, or the whole image from the front end on ([`Tier1GpuEngine::encode_image`]).
pub struct Tier1GpuEngine {
    gpu: std::sync::Arc<Gpu>,
    tier1: Tier1Kernels,
}

impl Tier1GpuEngine {
    pub fn new(gpu: std::sync::Arc<Gpu>) -> Result<Tier1GpuEngine> {
        Self::with_config(gpu, Tier1GpuConfig::default())
    }

    pub fn with_config(gpu: std::sync::Arc<Gpu>, config: Tier1GpuConfig) -> Result<Tier1GpuEngine> {
        let tier1 = Tier1Kernels::with_config(&gpu, config)?;
        Ok(Tier1GpuEngine { gpu, tier1 })
    }

    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The GPU this engine codes on (shared with the front end it can take blocks from).
    pub fn gpu_arc(&self) -> &std::sync::Arc<Gpu> {
        &self.gpu
    }

    /// Every pipeline the whole GPU path of `plan` runs (front end, tier-1, the gather of
    /// the coded bytes), built side by side.
    fn build_ahead(&self, plan: &crate::j2k::dwt_gpu::DwtPlan) -> BuildingAhead {
        self.gpu.build_ahead(self.resident_pipelines(plan))
    }

    /// The pipelines of [`Tier1GpuEngine::build_ahead`].
    pub(crate) fn resident_pipelines(
        &self,
        plan: &crate::j2k::dwt_gpu::DwtPlan,
    ) -> Vec<PipelineKey> {
        crate::j2k::dwt_gpu::DwtGpu::whole_path_pipelines(self.tier1.pipelines_for(&plan.jobs))
    }

    /// The whole GPU path for one image: the front end ([`crate::j2k::dwt_gpu::DwtGpu`]) and
    /// tier-1 in one submission, the coefficients staying on the GPU; the same blocks as
    /// [`crate::j2k::transform_cpu`] then [`Tier1Kernels::encode_code_blocks`]. Where the blocks do
    /// not fit one dispatch, the coefficients are read back and coded that way.
    pub async fn encode_image(
        &self,
        image: &crate::j2k::Image,
        levels: u32,
        cblk: u32,
        opts: &Tier1Options,
    ) -> Result<Vec<CodeBlockCoded>> {
        use crate::j2k::dwt_gpu::{upload_image, DwtPlan};
        let started = crate::gpu::clock();
        let mut plan = DwtPlan::for_image(&self.gpu, image, levels, cblk)?;
        // Built while the samples go up (on a first run, driver compiles).
        let _ahead = self.build_ahead(&plan);
        let samples = upload_image(&self.gpu, image, &mut plan)?;
        if let Some(a) = started {
            log::debug!(
                "tier-1: image planned and uploaded in {:.1} ms",
                a.elapsed().as_secs_f64() * 1e3
            );
        }
        self.encode_samples(&samples, &plan, opts).await
    }

    /// [`Self::encode_image`] for samples already on the GPU (the layout of
    /// [`crate::j2k::dwt_gpu::upload_samples`]), planned by `plan`.
    pub async fn encode_samples(
        &self,
        samples: &wgpu::Buffer,
        plan: &crate::j2k::dwt_gpu::DwtPlan,
        opts: &Tier1Options,
    ) -> Result<Vec<CodeBlockCoded>> {
        use crate::j2k::dwt_gpu::DwtGpu;
        let _ahead = self.build_ahead(plan);
        let gpu = &*self.gpu;
        let turn = gpu.recording_turn();
        let started = crate::gpu::clock();
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(crate::gpu::registry::j2k::DWT.label),
            });
        // `front`'s work buffers stay alive (out of the pool) until the submission.
        let front = DwtGpu::new(gpu)?.encode_into(gpu, &mut encoder, samples, plan, None)?;
        let front_recorded = crate::gpu::clock();
        // Room for the usual magnitudes (RCT chroma 1 bit, HH gain 2 bits): blocks beyond
        // it are coded again. Rounds: a block with more bit-planes than bit depth + 8
        // would need more than 7 guard bits, which the encoder refuses anyway.
        let planes = (plan.bit_depth + 3, plan.bit_depth + 8);
        let batch = match self
            .tier1
            .upload_resident(gpu, front.coeffs, &plan.jobs, planes, opts)?
        {
            Ok(batch) => batch,
            Err(coeffs) => {
                gpu.queue.submit([encoder.finish()]);
                drop(turn);
                let bytes = gpu.read_buffer(&coeffs, 0, plan.n_coeffs() * 4).await?;
                let host = CodeBlockBatch {
                    coeffs: bytemuck::pod_collect_to_vec(&bytes),
                    jobs: plan.jobs.clone(),
                };
                return self
                    .tier1
                    .encode_code_blocks(gpu, &inputs_of(&host), opts)
                    .await;
            }
        };
        let planned = crate::gpu::clock();
        self.tier1.encode_into(gpu, &batch, &mut encoder, None)?;
        let recorded = crate::gpu::clock();
        gpu.queue.submit([encoder.finish()]);
        drop(turn);
        gpu.check_errors(TIER1.name)?;
        if let (Some(a), Some(b), Some(c), Some(d)) = (started, front_recorded, planned, recorded) {
            let ms =
                |from: std::time::Instant, to: std::time::Instant| (to - from).as_secs_f64() * 1e3;
            log::debug!(
                "tier-1 of {} code-blocks: record and submit {:.1} ms (front end recorded {:.1}, blocks planned {:.1}, tier-1 recorded {:.1}, submitted {:.1})",
                plan.jobs.len(),
                a.elapsed().as_secs_f64() * 1e3,
                ms(a, b),
                ms(b, c),
                ms(c, d),
                d.elapsed().as_secs_f64() * 1e3
            );
        }
        self.tier1
            .finish_resident(gpu, &batch, &plan.jobs, opts)
            .await
    }
}

/// The code-blocks of an encoder batch as tier-1 inputs.
pub fn inputs_of(batch: &CodeBlockBatch) -> Vec<CodeBlockInput<'_>> {
    batch
        .jobs
        .iter()
        .enumerate()
        .map(|(i, j)| CodeBlockInput {
            coeffs: batch.coeffs_of(i),
            width: j.width,
            height: j.height,
            band: j.band,
        })
        .collect()
}

impl crate::j2k::Tier1Engine for Tier1GpuEngine {
    fn gpu_tier1(&self) -> Option<&Tier1GpuEngine> {
        Some(self)
    }

    fn encode_batch<'a>(
        &'a self,
        batch: &'a CodeBlockBatch,
        opts: &'a Tier1Options,
    ) -> crate::j2k::Tier1Future<'a> {
        Box::pin(async move {
            self.tier1
                .encode_code_blocks(&self.gpu, &inputs_of(batch), opts)
                .await
        })
    }
}
