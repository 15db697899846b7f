//! The HT coder behind the GPU front end: the coefficients stay on the GPU, the front
//! end and the cleanup pass go in one submission, and only the coded bytes come back.

use super::super::cleanup;
use super::{rooms, HtBatch, HtGpu, RESULT_WORDS};
use crate::gpu::registry::j2k::HT_CLEANUP;
use crate::gpu::{PooledBuffer, Profiler, RecordedReads};
use crate::j2k::dwt_gpu::{self, DwtGpu, DwtPlan};
use crate::j2k::tier1::cpu::{MAX_AREA, MAX_SIDE};
use crate::j2k::tier1::CodeBlockCoded;
use crate::j2k::{BlockBytes, CodeBlockJob, Image};
use crate::Result;

/// A resident submission: the front end and this stage recorded and submitted together.
struct Resident {
    batch: HtBatch,
    results: RecordedReads,
    /// Trace level only: the passes' timestamps.
    profiler: Option<Profiler>,
}

impl HtGpu {
    /// Plan the blocks `jobs` whose coefficients already lie in `coeffs` (as the GPU
    /// front end leaves them, [`crate::j2k::dwt_gpu::GpuCoeffs`]): every job in one
    /// dispatch, rooms sized for `bound` bit-planes. Gives `coeffs` back where that does
    /// not fit one storage binding or a job lies outside it.
    fn upload_resident(
        &self,
        coeffs: PooledBuffer,
        jobs: &[CodeBlockJob],
        bound: u32,
    ) -> std::result::Result<HtBatch, PooledBuffer> {
        let gpu = &*self.gpu;
        let max_binding = gpu.max_binding().min(u32::MAX as u64 / 2);
        let words = coeffs.size() / 4;
        let mut blocks = Vec::with_capacity(jobs.len());
        let (mut out_words, mut scratch_words) = (0u64, 0u64);
        for j in jobs {
            let (w, h) = (j.width, j.height);
            let inside = w > 0
                && h > 0
                && w <= MAX_SIDE
                && h <= MAX_SIDE
                && w * h <= MAX_AREA
                && ((j.offset + w * h) as u64) <= words;
            if !inside {
                return Err(coeffs);
            }
            let room = rooms(w, h, bound);
            blocks.push(room.block(j.offset, w, h, out_words, scratch_words));
            out_words += room.out_cap() as u64 / 4;
            scratch_words += room.scratch_words() as u64;
        }
        let n = jobs.len() as u64;
        if jobs.is_empty()
            || coeffs.size() > max_binding
            || out_words * 4 > max_binding
            || scratch_words * 4 > max_binding
            || n * RESULT_WORDS as u64 * 4 > max_binding
        {
            return Err(coeffs);
        }
        let dispatch = self.make_dispatch(
            blocks,
            coeffs,
            out_words,
            scratch_words,
            (0..jobs.len()).collect(),
        );
        Ok(HtBatch {
            jobs: jobs.len(),
            planes: None,
            dispatches: vec![dispatch],
        })
    }

    /// The whole GPU path of `image`: the front end ([`DwtGpu`]) and this stage in one
    /// submission, the coefficients resident between them. `None` where the blocks do
    /// not fit one dispatch; an error where a block could not be coded (see
    /// [`Self::encode_image`], which then codes from the host).
    pub async fn encode_resident(
        &self,
        image: &Image,
        levels: u32,
        cblk: u32,
    ) -> Result<Option<Vec<CodeBlockCoded>>> {
        let _ahead = self.build_resident_ahead();
        let mut plan = DwtPlan::for_image(&self.gpu, image, levels, cblk)?;
        let samples = dwt_gpu::upload_image(&self.gpu, image, &mut plan)?;
        match self.submit_resident(&samples, &plan)? {
            Some(r) => {
                let coded = self.read(&r.batch, Some(r.results)).await?;
                self.log_passes(r.profiler).await;
                Ok(Some(coded))
            }
            None => Ok(None),
        }
    }

    /// The front end and this stage recorded and submitted, the coefficients resident,
    /// with the copy of the blocks' results in the same submission; `None` where the
    /// blocks do not fit one dispatch.
    fn submit_resident(&self, samples: &wgpu::Buffer, plan: &DwtPlan) -> Result<Option<Resident>> {
        let gpu = &*self.gpu;
        let started = crate::gpu::clock();
        let turn = gpu.recording_turn();
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(HT_CLEANUP.label),
            });
        // Each phase's end, for the debug line: a fresh process's first image spends
        // tens of milliseconds here (pipelines, first allocations, the first submission).
        let lap = || started.map(|t| t.elapsed().as_secs_f64() * 1e3);
        // Trace level: the GPU's passes timed (the front end's three, this stage's one),
        // logged once the results are read.
        let mut profiler = (log::log_enabled!(log::Level::Trace) && gpu.has_timestamps())
            .then(|| Profiler::new(gpu, 4));
        // `front`'s work buffers stay alive (out of the pool) until the submission.
        let front =
            DwtGpu::new(gpu)?.encode_into(gpu, &mut encoder, samples, plan, profiler.as_mut())?;
        let front_recorded = lap();
        // Rooms for the most bit-planes an encodable image's blocks have: more would need
        // over 7 guard bits (bit depth, 2 bits of gain, 6 more), which the encoder refuses.
        let bound = (plan.bit_depth + 8).min(cleanup::MAX_BITPLANES);
        let batch = match self.upload_resident(front.coeffs, &plan.jobs, bound) {
            Ok(batch) => batch,
            Err(_) => {
                gpu.queue.submit([encoder.finish()]);
                return Ok(None);
            }
        };
        let planned = lap();
        batch.record(self, &mut encoder, profiler.as_mut())?;
        if let Some(p) = &profiler {
            p.resolve(&mut encoder);
        }
        let results = gpu.record_reads(&mut encoder, &batch.result_ranges());
        let recorded = lap();
        gpu.queue.submit([encoder.finish()]);
        drop(turn);
        if let (Some(front), Some(planned), Some(recorded), Some(done)) =
            (front_recorded, planned, recorded, lap())
        {
            log::debug!(
                "HT on resident coefficients: front end and HT recorded and submitted in {done:.1} ms (front end recorded at {front:.1}, blocks' rooms at {planned:.1}, HT and results recorded at {recorded:.1})"
            );
        }
        Ok(Some(Resident {
            batch,
            results,
            profiler,
        }))
    }

    /// The GPU's passes of a resident submission, at trace level once they are done.
    async fn log_passes(&self, profiler: Option<Profiler>) {
        let Some(p) = profiler else {
            return;
        };
        match p.timings(&self.gpu).await {
            Ok(t) => {
                let passes: Vec<String> = t
                    .passes
                    .iter()
                    .map(|(label, secs)| format!("{label} {:.3} ms", secs * 1e3))
                    .collect();
                log::trace!(
                    "HT on resident coefficients, GPU passes: {}; first begin to last end {:.3} ms",
                    passes.join(", "),
                    t.span * 1e3
                );
            }
            Err(e) => log::trace!("HT on resident coefficients: no GPU times ({e})"),
        }
    }

    /// [`Self::encode_resident`], or where it cannot keep the coefficients on the GPU or
    /// a block fails there, the front end read back and [`Self::encode`] from the host
    /// (the CPU twin's errors for blocks it refuses).
    pub async fn encode_image(
        &self,
        image: &Image,
        levels: u32,
        cblk: u32,
    ) -> Result<Vec<CodeBlockCoded>> {
        let _ahead = self.build_resident_ahead();
        let mut plan = DwtPlan::for_image(&self.gpu, image, levels, cblk)?;
        let samples = self.upload_image(image, &mut plan)?;
        self.encode_samples(&samples, &plan).await
    }

    /// [`Self::encode_image`] of samples already on the GPU, planned by `plan`.
    pub async fn encode_samples(
        &self,
        samples: &wgpu::Buffer,
        plan: &DwtPlan,
    ) -> Result<Vec<CodeBlockCoded>> {
        self.encode_samples_with(
            samples,
            plan,
            // The blocks without their bytes (on the host's fallback they hold them
            // already; `fill` copies them once either way).
            |coded, _| {
                Ok(coded
                    .iter()
                    .map(|c| CodeBlockCoded {
                        data: Vec::new(),
                        passes: c.passes.clone(),
                        num_bitplanes: c.num_bitplanes,
                    })
                    .collect::<Vec<_>>())
            },
            |mut coded, bytes| {
                bytes.fill(&mut coded);
                Ok(coded)
            },
        )
        .await
    }

    /// The samples of `image` on the GPU, `plan` set to read them (timed in the debug
    /// log).
    pub(crate) fn upload_image(&self, image: &Image, plan: &mut DwtPlan) -> Result<PooledBuffer> {
        let t = crate::gpu::clock();
        let samples = dwt_gpu::upload_image(&self.gpu, image, plan)?;
        if let Some(t) = t {
            log::debug!(
                "HT: {} samples' upload written in {:.2} ms",
                image.samples.len(),
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        Ok(samples)
    }

    /// [`Self::encode_samples`] with the coded blocks handed on as [`Self::hand_on`] hands
    /// them: `headers` while their bytes come back, `write` with the bytes where they lie.
    pub(crate) async fn encode_samples_with<P, R>(
        &self,
        samples: &wgpu::Buffer,
        plan: &DwtPlan,
        headers: impl FnOnce(&[CodeBlockCoded], &[usize]) -> Result<P>,
        write: impl FnOnce(P, BlockBytes<'_>) -> Result<R>,
    ) -> Result<R> {
        self.encode_uploaded_with(samples, plan, 0, headers, write)
            .await
    }

    /// [`Self::encode_samples_with`]; where the samples were uploaded (`uploaded` bytes,
    /// else 0), a staging buffer made ahead for the next upload of that size
    /// ([`crate::gpu::Gpu::stage_ahead`]).
    pub(crate) async fn encode_uploaded_with<P, R>(
        &self,
        samples: &wgpu::Buffer,
        plan: &DwtPlan,
        uploaded: u64,
        headers: impl FnOnce(&[CodeBlockCoded], &[usize]) -> Result<P>,
        write: impl FnOnce(P, BlockBytes<'_>) -> Result<R>,
    ) -> Result<R> {
        let _ahead = self.build_resident_ahead();
        // Errors before the blocks are handed on fall back to the host's path; after, they
        // are the caller's.
        match self.submit_resident(samples, plan) {
            Ok(Some(r)) => match self.results(&r.batch, Some(r.results)).await {
                Ok(results) => {
                    self.log_passes(r.profiler).await;
                    return self.hand_on(results, uploaded, headers, write).await;
                }
                Err(e) => log::info!("HT cleanup pass on resident coefficients: {e}"),
            },
            Ok(None) => log::info!("HT cleanup pass: the blocks do not fit one dispatch"),
            Err(e) => log::info!("HT cleanup pass on resident coefficients: {e}"),
        }
        let gpu = &*self.gpu;
        let batch = DwtGpu::new(gpu)?
            .transform_samples(gpu, samples, plan)
            .await?;
        let coded = self.encode(&batch).await?;
        let lens: Vec<usize> = coded.iter().map(|c| c.data.len()).collect();
        let made = headers(&coded, &lens)?;
        write(made, BlockBytes::Owned(&coded))
    }
}
