//! Tier-1 behind the GPU front end: code-blocks whose coefficients the front end left
//! on the GPU, planned from their descriptors alone, and read back with the blocks that
//! outgrew their planned room coded again.

use super::super::{CodeBlockCoded, CodeBlockInput, Tier1Options};
use super::readback::corrupt;
use super::{
    bypass_word, capacity_for, check_shape, orient_index, BlockDesc, Tier1Batch, Tier1Kernels,
    RESULT_STRIDE, SPLIT_SCRATCH_WORDS,
};
use crate::gpu::{Gpu, PooledBuffer};
use crate::j2k::CodeBlockJob;
use crate::{Error, Result};

impl Tier1Kernels {
    /// Plan tier-1 for code-blocks whose coefficients already lie in `coeffs` in the
    /// layout of [`crate::j2k::CodeBlockBatch::coeffs`] (as [`crate::j2k::dwt_gpu::GpuCoeffs`] leaves
    /// them): only the block descriptors are uploaded. Without the values on the host,
    /// each block's room is planned for `room_planes` bit-planes (a block that outgrows it
    /// is coded again, see [`Tier1Kernels::finish_resident`]) and the three-kernel strategy
    /// runs `max_planes` rounds (a block skips the planes it lacks). Gives `coeffs` back
    /// when the blocks do not fit one dispatch (a buffer over one storage binding).
    pub fn upload_resident(
        &self,
        gpu: &Gpu,
        coeffs: PooledBuffer,
        jobs: &[CodeBlockJob],
        (room_planes, max_planes): (u32, u32),
        opts: &Tier1Options,
    ) -> Result<std::result::Result<Tier1Batch, PooledBuffer>> {
        let bypass_from = bypass_word(opts)?;
        let words = coeffs.size() / 4;
        let mut descs = Vec::with_capacity(jobs.len());
        let mut out_word = 0u64;
        for (i, j) in jobs.iter().enumerate() {
            let (w, h) = (j.width, j.height);
            check_shape(i, w, h)?;
            if (j.offset + w * h) as u64 > words || j.offset > u32::MAX as usize {
                return Err(Error::InvalidArgument(format!(
                    "tier-1: code-block {i} at {} of {w}x{h} lies outside the {words} \
                     resident coefficients",
                    j.offset
                )));
            }
            let cap_words = self
                .config
                .block_capacity
                .unwrap_or_else(|| capacity_for(w * h, room_planes))
                .div_ceil(4);
            descs.push(BlockDesc {
                coeff_offset: j.offset as u32,
                width: w as u32,
                height: h as u32,
                orient: orient_index(j.band),
                out_word: out_word as u32,
                cap_words,
                result: (i * RESULT_STRIDE) as u32,
                pad: 0,
            });
            out_word += cap_words as u64;
        }
        let max_binding = gpu.max_binding().min(u32::MAX as u64 / 2);
        let n = jobs.len() as u64;
        if jobs.is_empty()
            || coeffs.size() > max_binding
            || out_word * 4 > max_binding
            || n * (RESULT_STRIDE as u64) * 4 > max_binding
            || (self.config.splits(jobs.len()) && n * SPLIT_SCRATCH_WORDS * 4 > max_binding)
        {
            return Ok(Err(coeffs));
        }
        let cpi = self.resident_cpi(jobs);
        let at = (0..jobs.len()).map(|j| (0, j)).collect();
        let dispatch = self.make_dispatch(
            gpu,
            descs,
            coeffs,
            out_word,
            bypass_from,
            (cpi, max_planes.min(32)),
        );
        Ok(Ok(Tier1Batch {
            dispatches: vec![dispatch],
            at,
            bypass_from,
        }))
    }

    /// Read a resident batch ([`Tier1Kernels::upload_resident`], encoded and submitted) and
    /// code the blocks that outgrew their room again from their coefficients, read back
    /// for them alone.
    pub async fn finish_resident(
        &self,
        gpu: &Gpu,
        batch: &Tier1Batch,
        jobs: &[CodeBlockJob],
        opts: &Tier1Options,
    ) -> Result<Vec<CodeBlockCoded>> {
        let first = self.finish(gpu, batch).await?;
        if first.iter().all(|r| r.is_ok()) {
            return Ok(first.into_iter().flatten().collect());
        }
        let Some(d) = batch.dispatches.first() else {
            return Err(corrupt("a resident batch without its dispatch".into()));
        };
        let mut coeffs = Vec::with_capacity(jobs.len());
        for (r, j) in first.iter().zip(jobs) {
            coeffs.push(match r {
                Ok(_) => Vec::new(),
                Err(_) => bytemuck::pod_collect_to_vec::<u8, i32>(
                    &gpu.read_buffer(
                        &d.coeffs,
                        j.offset as u64 * 4,
                        (j.width * j.height) as u64 * 4,
                    )
                    .await?,
                ),
            });
        }
        let blocks: Vec<CodeBlockInput<'_>> = jobs
            .iter()
            .zip(&coeffs)
            .map(|(j, c)| CodeBlockInput {
                coeffs: c,
                width: j.width,
                height: j.height,
                band: j.band,
            })
            .collect();
        self.retry_outgrown(gpu, first, &blocks, opts).await
    }
}
