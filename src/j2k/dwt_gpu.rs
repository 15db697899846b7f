//! The encoder's front end on the GPU (shaders/j2k/dwt.wgsl): DC level shift + RCT, the
//! reversible 5/3 DWT over all levels, and the gather of every code-block into the batch.
//! The CPU twin is [`super::transform_cpu`] (rct.rs, dwt.rs and the gather): the GPU's
//! coefficients equal its [`CodeBlockBatch::coeffs`] i32 for i32.
//!
//! Passes, in one command encoder: `rct` (samples -> planes A), per level `columns`
//! (A -> B) and `rows` (B -> A), then `gather` (A -> the coefficient buffer). Profiler
//! pass labels: [`PASS_RCT`], [`PASS_DWT`] (all levels in one pass), [`PASS_GATHER`].
//!
//! Buffer layouts. Samples: the image's u16 samples as [`Image::samples`] has them
//! (interleaved by component), two per 32-bit word, the first in the low half
//! ([`upload_samples`] writes that); or, where the plan says a byte a sample, four a
//! word (the encoder's own upload of an image of at most 8 bits). Coefficients: i32,
//! exactly `CodeBlockBatch.coeffs`: the code-blocks in `jobs` order (the layout's packet
//! order), each `width * height` row-major at its job's `offset`. Every buffer is one
//! storage binding: images whose planes (components * width * height * 4 bytes) exceed
//! the adapter's binding limit are refused with an error (4K RGB needs 99.5 MB; the
//! default limit is 128 MiB, NVIDIA's 2 GiB).

use wgpu::util::DeviceExt;

use super::image::largest_sample;
use super::partition::{self, Layout};
use super::{band_orientation, CodeBlockBatch, CodeBlockJob, Image};
use crate::gpu::registry::j2k::DWT;
use crate::gpu::{Gpu, GpuStage, PipelineKey, PooledBuffer, Profiler, Timings};
use crate::{Error, Result};

/// Profiler label of the level shift + RCT pass.
pub const PASS_RCT: &str = "j2k_rct";
/// Profiler label of the DWT pass (every level's column and row dispatches).
pub const PASS_DWT: &str = "j2k_dwt";
/// Profiler label of the gather into the code-block batch.
pub const PASS_GATHER: &str = "j2k_gather";

const WG_SIZE: u32 = 256;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/j2k/dwt.wgsl `Params`
struct DwtParams {
    region_w: u32,
    region_h: u32,
    stride: u32,
    plane: u32,
    components: u32,
    grid_x: u32,
    bit_depth: u32,
    n_blocks: u32,
    sample_bytes: u32,
    pad: [u32; 3],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/j2k/dwt.wgsl `Block`
struct GpuBlock {
    offset: u32,
    x0: u32,
    y0: u32,
    width: u32,
    height: u32,
    component: u32,
    pad0: u32,
    pad1: u32,
}

/// What the front end computes for one image geometry: the code-block layout and jobs.
#[derive(Clone, Debug)]
pub struct DwtPlan {
    pub width: u32,
    pub height: u32,
    pub components: u32,
    pub bit_depth: u32,
    pub levels: u32,
    pub cblk: u32,
    pub layout: Layout,
    /// The batch's jobs (what [`CodeBlockBatch::jobs`] holds).
    pub jobs: Vec<CodeBlockJob>,
    /// Bytes a sample takes in the samples buffer: 2, the layout of [`upload_samples`]
    /// and [`GpuImage`]; 1 where the encoder uploads an image of at most 8 bits itself
    /// (half the copy and the transfer).
    pub sample_bytes: u32,
}

impl DwtPlan {
    /// Plan `levels` levels (as given: [`super::encode`] reduces them for small images)
    /// and `cblk` x `cblk` code-blocks for an image of this geometry, checking that it fits
    /// the adapter's storage bindings.
    pub fn new(
        gpu: &Gpu,
        width: u32,
        height: u32,
        components: u32,
        bit_depth: u32,
        levels: u32,
        cblk: u32,
    ) -> Result<DwtPlan> {
        let limit = gpu.max_binding().min(u32::MAX as u64);
        Self::with_binding_limit(limit, width, height, components, bit_depth, levels, cblk)
    }

    /// [`DwtPlan::new`] for `image`'s geometry, checking that it holds as many samples as
    /// that geometry needs.
    pub fn for_image(gpu: &Gpu, image: &Image, levels: u32, cblk: u32) -> Result<DwtPlan> {
        let plan = Self::new(
            gpu,
            image.width,
            image.height,
            image.components,
            image.bit_depth,
            levels,
            cblk,
        )?;
        let expected = plan.n_coeffs();
        if image.samples.len() as u64 != expected {
            return Err(Error::InvalidArgument(format!(
                "j2k_dwt: a {}x{}x{} image needs {expected} samples, not {}",
                image.width,
                image.height,
                image.components,
                image.samples.len()
            )));
        }
        Ok(plan)
    }

    /// [`DwtPlan::new`] against a binding limit of `limit` bytes (tests prove the
    /// too-large error with it).
    pub fn with_binding_limit(
        limit: u64,
        width: u32,
        height: u32,
        components: u32,
        bit_depth: u32,
        levels: u32,
        cblk: u32,
    ) -> Result<DwtPlan> {
        if width == 0 || height == 0 {
            return Err(Error::InvalidArgument(format!(
                "j2k_dwt: zero-sized image {width}x{height}"
            )));
        }
        if components != 1 && components != 3 {
            return Err(Error::InvalidArgument(format!(
                "j2k_dwt: {components} components; only grey (1) and RGB (3)"
            )));
        }
        if !(1..=16).contains(&bit_depth) {
            return Err(Error::InvalidArgument(format!(
                "j2k_dwt: bit depth {bit_depth}; 1 to 16"
            )));
        }
        if levels > 32 {
            return Err(Error::InvalidArgument(format!(
                "j2k_dwt: {levels} DWT levels; JPEG 2000 allows at most 32"
            )));
        }
        if !cblk.is_power_of_two() || !(4..=64).contains(&cblk) {
            return Err(Error::InvalidArgument(format!(
                "j2k_dwt: code-block size {cblk}; a power of two from 4 to 64"
            )));
        }
        let bytes = width as u64 * height as u64 * components as u64 * 4;
        if bytes > limit {
            return Err(Error::TooLarge(format!(
                "j2k_dwt: a {width}x{height} image of {components} component(s) needs {bytes} \
                 bytes of coefficients in one storage binding; this adapter allows {limit}: \
                 use the CPU front end"
            )));
        }
        let layout = partition::layout(
            width as usize,
            height as usize,
            components,
            levels,
            cblk as usize,
        );
        let mut jobs = Vec::with_capacity(layout.blocks.len());
        let mut offset = 0;
        for (i, b) in layout.blocks.iter().enumerate() {
            jobs.push(CodeBlockJob {
                offset,
                width: b.width,
                height: b.height,
                band: band_orientation(layout.orientation(i)),
            });
            offset += b.width * b.height;
        }
        Ok(DwtPlan {
            width,
            height,
            components,
            bit_depth,
            levels,
            cblk,
            layout,
            jobs,
            sample_bytes: 2,
        })
    }

    /// Pixels of one component.
    pub fn plane(&self) -> u64 {
        self.width as u64 * self.height as u64
    }

    /// Coefficients of the whole batch (every sample of every component).
    pub fn n_coeffs(&self) -> u64 {
        self.plane() * self.components as u64
    }

    /// Bytes of samples the front end reads ([`Self::sample_bytes`] each, whole words).
    pub fn samples_bytes(&self) -> u64 {
        (self.n_coeffs() * self.sample_bytes as u64).next_multiple_of(4)
    }
}

/// The front end's output on the GPU: the batch coefficients in `coeffs` (layout in the
/// module docs), with the buffers the encoded passes use. Keep it alive until the command
/// encoder it was encoded into has been submitted.
pub struct GpuCoeffs {
    pub coeffs: PooledBuffer,
    pub plan: DwtPlan,
    _work: Vec<PooledBuffer>,
    _blocks: wgpu::Buffer,
}

impl GpuCoeffs {
    /// Bytes of coefficients at the start of `coeffs`.
    pub fn bytes(&self) -> u64 {
        self.plan.n_coeffs() * 4
    }

    /// Read the coefficients back as the host batch (after the work was submitted).
    pub async fn read(&self, gpu: &Gpu) -> Result<CodeBlockBatch> {
        let bytes = gpu.read_buffer(&self.coeffs, 0, self.bytes()).await?;
        Ok(CodeBlockBatch {
            coeffs: bytemuck::pod_collect_to_vec(&bytes),
            jobs: self.plan.jobs.clone(),
        })
    }
}

/// An image whose samples are already in a GPU buffer (a renderer's output, an earlier
/// stage's), for [`crate::j2k::encode_gpu_image`]: `samples` holds them in the layout
/// [`upload_samples`] writes (u16 samples interleaved by component, row-major, two per
/// 32-bit word, the first in the low half; the last word zero-padded), and has STORAGE
/// usage. The encoder reads it and leaves it as it was.
#[derive(Clone, Copy, Debug)]
pub struct GpuImage<'a> {
    pub samples: &'a wgpu::Buffer,
    pub width: u32,
    pub height: u32,
    /// 1 (grey) or 3 (RGB, which the encoder transforms by the RCT).
    pub components: u32,
    /// Bits per sample, 1 to 16; samples must be below 2^bit_depth.
    pub bit_depth: u32,
}

impl GpuImage<'_> {
    /// The front end's plan for this image, checking that its buffer holds every sample
    /// and can be bound as storage.
    pub fn plan(&self, gpu: &Gpu, levels: u32, cblk: u32) -> Result<DwtPlan> {
        let plan = DwtPlan::new(
            gpu,
            self.width,
            self.height,
            self.components,
            self.bit_depth,
            levels,
            cblk,
        )?;
        if !self.samples.usage().contains(wgpu::BufferUsages::STORAGE) {
            return Err(Error::InvalidArgument(
                "a GPU image's samples buffer needs STORAGE usage".into(),
            ));
        }
        if self.samples.size() < plan.samples_bytes() {
            return Err(Error::InvalidArgument(format!(
                "a {}x{}x{} image needs {} bytes of samples; its buffer holds {}",
                self.width,
                self.height,
                self.components,
                plan.samples_bytes(),
                self.samples.size()
            )));
        }
        Ok(plan)
    }
}

/// Copy `image`'s samples to a GPU buffer in the layout [`DwtGpu::encode_into`] reads
/// with a plan of [`DwtPlan::new`] or [`DwtPlan::for_image`]: u16 samples, two a word.
pub fn upload_samples(gpu: &Gpu, image: &Image) -> PooledBuffer {
    let (buffer, written, _) = write_samples(gpu, image, 2);
    written.submit(gpu, &buffer);
    buffer
}

/// `image`'s samples on the GPU as the encoder's own paths send them, `plan` set to read
/// them: a byte a sample for images of at most 8 bits, where [`upload_samples`] sends two.
/// The samples' values are checked against the bit depth on the way (an error before
/// anything is submitted), so the caller need not have read them first
/// ([`Image::validate_shape`]).
pub(crate) fn upload_image(gpu: &Gpu, image: &Image, plan: &mut DwtPlan) -> Result<PooledBuffer> {
    plan.sample_bytes = if image.bit_depth <= 8 { 1 } else { 2 };
    let (buffer, written, largest) = write_samples(gpu, image, plan.sample_bytes as usize);
    image.check_largest_sample(largest)?;
    written.submit(gpu, &buffer);
    Ok(buffer)
}

/// Samples written for the GPU, not yet submitted.
enum Written {
    /// Into a staging buffer of the pool: its copy still to record.
    Staged(crate::gpu::StagedUpload),
    /// Into wgpu's own staging (`Queue::write_buffer_with`): it lands at the next
    /// submission.
    Queued,
}

impl Written {
    /// Send the samples on to `buffer`: whether they went through the pool's staging.
    fn submit(self, gpu: &Gpu, buffer: &wgpu::Buffer) -> bool {
        match self {
            Written::Staged(mut staged) => {
                let mut encoder =
                    gpu.device
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("parvlc.j2k.samples"),
                        });
                staged.copy_to(&mut encoder, buffer, 0);
                gpu.queue.submit([encoder.finish()]);
                true
            }
            Written::Queued => false,
        }
    }
}

/// The samples at `sample_bytes` bytes each (little-endian, whole words, zeros after)
/// written for a new buffer, and the largest sample (read on the way).
fn write_samples(gpu: &Gpu, image: &Image, sample_bytes: usize) -> (PooledBuffer, Written, u16) {
    use std::sync::atomic::{AtomicU16, Ordering};
    let samples = &image.samples[..];
    let data_len = samples.len() * sample_bytes;
    let len = data_len.next_multiple_of(4).max(4) as u64;
    let buffer = gpu.pooled_buffer(
        len,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    );
    let wide: &[u8] = bytemuck::cast_slice(samples);
    let largest = AtomicU16::new(0);
    // Bytes `offset..` of the upload into `dst`: the samples (narrowed to bytes at one a
    // sample, which the caller checks they fit by the largest), then zeros. A piece
    // starts on a sample.
    let fill = |offset: usize, mut dst: wgpu::WriteOnly<'_, [u8]>| {
        let data = data_len.saturating_sub(offset).min(dst.len());
        let (mut head, mut zeros) = dst.slice(..).split_at(data);
        zeros.fill(0);
        let first = offset / sample_bytes;
        let these = &samples[first..first + data / sample_bytes];
        if sample_bytes == 2 {
            head.copy_from_slice(&wide[offset..offset + data]);
            largest.fetch_max(largest_sample(these), Ordering::Relaxed);
            return;
        }
        let mut narrow = [0u8; 4096];
        let (mut at, mut most) = (0, 0);
        for run in these.chunks(narrow.len()) {
            for (n, &s) in narrow.iter_mut().zip(run) {
                *n = s as u8;
                most = most.max(s);
            }
            head.slice(at..at + run.len())
                .copy_from_slice(&narrow[..run.len()]);
            at += run.len();
        }
        largest.fetch_max(most, Ordering::Relaxed);
    };
    // Through a staging buffer kept mapped where the pool has one idle (written on all
    // cores, no new mapping to fault in: a 4K picture's upload took 5.4-6.5 ms through
    // `write_buffer` on the H200 with the same bytes warm); else into wgpu's own new
    // staging, on all cores too.
    if let Some(staged) = gpu.idle_staged_upload(len) {
        if staged.fill(&fill).is_ok() {
            return (buffer, Written::Staged(staged), largest.into_inner());
        }
    }
    if let Some(mut view) =
        wgpu::BufferSize::new(len).and_then(|size| gpu.queue.write_buffer_with(&buffer, 0, size))
    {
        crate::gpu::fill_pieces(view.slice(..), &fill);
    }
    (buffer, Written::Queued, largest.into_inner())
}

/// The GPU front end. Its pipelines live in the [`Gpu`]'s cache, built by [`DwtGpu::new`].
#[derive(Clone, Copy, Debug)]
pub struct DwtGpu {
    _built: (),
}

fn binding(buffer: &wgpu::Buffer, bytes: u64) -> wgpu::BufferBinding<'_> {
    wgpu::BufferBinding {
        buffer,
        offset: 0,
        size: wgpu::BufferSize::new(bytes.max(4)),
    }
}

impl DwtGpu {
    /// Build the stage's pipelines (once per [`Gpu`]).
    pub fn new(gpu: &Gpu) -> Result<DwtGpu> {
        for (stage, entry, constants) in Self::pipelines() {
            gpu.pipeline(stage, entry, &constants)?;
        }
        Ok(DwtGpu { _built: () })
    }

    /// The stage's pipelines, for [`Gpu::build_ahead`].
    pub(crate) fn pipelines() -> Vec<PipelineKey> {
        ["rct", "columns", "rows", "gather"]
            .map(|entry| (&DWT, entry, Self::constants().to_vec()))
            .to_vec()
    }

    /// The pipelines of a whole GPU path from this front end on, for
    /// [`Gpu::build_ahead`]: the front end's, `tier1`'s (the block coder's), and the
    /// gather that reads the coded bytes back.
    pub(crate) fn whole_path_pipelines(tier1: Vec<PipelineKey>) -> Vec<PipelineKey> {
        let mut wanted = Self::pipelines();
        wanted.extend(tier1);
        wanted.push(crate::gpu::gather::pipeline());
        wanted
    }

    fn constants() -> [(&'static str, f64); 1] {
        [("WG_SIZE", WG_SIZE as f64)]
    }

    /// Encode the whole front end for `plan` into `encoder`: `samples` (layout in the
    /// module docs, at least `components * width * height` u16s) in, the batch
    /// coefficients out. Nothing runs until the encoder is submitted; with a profiler,
    /// the passes are timed as [`PASS_RCT`], [`PASS_DWT`] and [`PASS_GATHER`].
    pub fn encode_into(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        samples: &wgpu::Buffer,
        plan: &DwtPlan,
        mut profiler: Option<&mut Profiler>,
    ) -> Result<GpuCoeffs> {
        if samples.size() < plan.samples_bytes() {
            return Err(Error::InvalidArgument(format!(
                "j2k_dwt: the samples buffer holds {} bytes; a {}x{}x{} image needs {}",
                samples.size(),
                plan.width,
                plan.height,
                plan.components,
                plan.samples_bytes()
            )));
        }
        let constants = Self::constants();
        // Entry points by index: 0 rct, 1 columns, 2 rows, 3 gather.
        let rct = gpu.pipeline(&DWT, "rct", &constants)?;
        let columns = gpu.pipeline(&DWT, "columns", &constants)?;
        let rows = gpu.pipeline(&DWT, "rows", &constants)?;
        let gather = gpu.pipeline(&DWT, "gather", &constants)?;

        let storage = wgpu::BufferUsages::STORAGE;
        let coeff_bytes = plan.n_coeffs() * 4;
        let planes_a = gpu.pooled_buffer(coeff_bytes, storage);
        let planes_b = gpu.pooled_buffer(coeff_bytes, storage);
        let coeffs = gpu.pooled_buffer(coeff_bytes, storage | wgpu::BufferUsages::COPY_SRC);
        let blocks: Vec<GpuBlock> = plan
            .layout
            .blocks
            .iter()
            .zip(&plan.jobs)
            .map(|(b, j)| GpuBlock {
                offset: j.offset as u32,
                x0: b.x0 as u32,
                y0: b.y0 as u32,
                width: b.width as u32,
                height: b.height as u32,
                component: b.component,
                pad0: 0,
                pad1: 0,
            })
            .collect();
        let blocks_buffer = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("parvlc.j2k.dwt.blocks"),
                contents: bytemuck::cast_slice(&blocks),
                usage: storage,
            });

        // One uniform slot per dispatch, at the adapter's offset alignment.
        let max_groups = gpu.limits.max_compute_workgroups_per_dimension.max(1);
        let grid = |invocations: u64| -> (u32, u32) {
            let groups = invocations.div_ceil(WG_SIZE as u64).max(1);
            let gx = groups.min(max_groups as u64);
            (gx as u32, groups.div_ceil(gx) as u32)
        };
        let base = DwtParams {
            region_w: plan.width,
            region_h: plan.height,
            stride: plan.width,
            plane: plan.plane() as u32,
            components: plan.components,
            grid_x: 0,
            bit_depth: plan.bit_depth,
            n_blocks: blocks.len() as u32,
            sample_bytes: plan.sample_bytes,
            pad: [0; 3],
        };
        struct Dispatch {
            pipe: usize,
            params: DwtParams,
            groups: (u32, u32),
        }
        let pipes = [rct, columns, rows, gather];
        let mut dispatches = Vec::new();
        let (gx, gy) = grid(plan.plane());
        dispatches.push(Dispatch {
            pipe: 0,
            params: DwtParams {
                grid_x: gx * WG_SIZE,
                ..base
            },
            groups: (gx, gy),
        });
        let (mut w, mut h) = (plan.width, plan.height);
        for _ in 0..plan.levels {
            let c = plan.components as u64;
            for (pipe, invocations) in [
                (1, w as u64 * h.div_ceil(2) as u64 * c),
                (2, w.div_ceil(2) as u64 * h as u64 * c),
            ] {
                let (gx, gy) = grid(invocations);
                dispatches.push(Dispatch {
                    pipe,
                    params: DwtParams {
                        region_w: w,
                        region_h: h,
                        grid_x: gx * WG_SIZE,
                        ..base
                    },
                    groups: (gx, gy),
                });
            }
            (w, h) = (w.div_ceil(2), h.div_ceil(2));
        }
        let bx = (blocks.len() as u32).clamp(1, max_groups);
        dispatches.push(Dispatch {
            pipe: 3,
            params: base,
            groups: (bx, (blocks.len() as u32).div_ceil(bx).max(1)),
        });

        let slot = (std::mem::size_of::<DwtParams>() as u64)
            .next_multiple_of(gpu.limits.min_uniform_buffer_offset_alignment.max(16) as u64);
        let params_buffer = gpu.pooled_buffer(
            slot * dispatches.len() as u64,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        let mut params_bytes = vec![0u8; (slot * dispatches.len() as u64) as usize];
        for (i, d) in dispatches.iter().enumerate() {
            let at = i * slot as usize;
            params_bytes[at..at + std::mem::size_of::<DwtParams>()]
                .copy_from_slice(bytemuck::bytes_of(&d.params));
        }
        gpu.queue.write_buffer(&params_buffer, 0, &params_bytes);

        let samples_bytes = plan.samples_bytes();
        let n_blocks_bytes = (blocks.len() * std::mem::size_of::<GpuBlock>()) as u64;
        let last = dispatches.len() - 1;
        let binds: Vec<wgpu::BindGroup> = dispatches
            .iter()
            .enumerate()
            .map(|(i, d)| {
                // rct writes A; columns read A, write B; rows read B, write A; gather
                // reads A.
                let (src, dst) = match i {
                    0 => (&planes_b, &planes_a),
                    _ if i == last => (&planes_a, &coeffs),
                    _ if i % 2 == 1 => (&planes_a, &planes_b),
                    _ => (&planes_b, &planes_a),
                };
                gpu.bind(
                    &pipes[d.pipe],
                    &[
                        (
                            0,
                            wgpu::BufferBinding {
                                buffer: &params_buffer,
                                offset: i as u64 * slot,
                                size: wgpu::BufferSize::new(
                                    std::mem::size_of::<DwtParams>() as u64,
                                ),
                            },
                        ),
                        (1, binding(samples, samples_bytes)),
                        (2, binding(src, coeff_bytes)),
                        (3, binding(dst, coeff_bytes)),
                        (4, binding(&blocks_buffer, n_blocks_bytes)),
                    ],
                )
            })
            .collect();
        // One timed compute pass per label: rct | every level's dispatches | gather.
        for (label, range) in [
            (PASS_RCT, 0..1),
            (PASS_DWT, 1..last),
            (PASS_GATHER, last..last + 1),
        ] {
            if range.is_empty() {
                continue;
            }
            let timestamp_writes = profiler.as_deref_mut().and_then(|p| p.pass(label));
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(DWT.label),
                timestamp_writes,
            });
            for i in range {
                let d = &dispatches[i];
                pass.set_pipeline(&pipes[d.pipe].pipeline);
                pass.set_bind_group(0, &binds[i], &[]);
                pass.dispatch_workgroups(d.groups.0, d.groups.1, 1);
            }
        }
        Ok(GpuCoeffs {
            coeffs,
            plan: plan.clone(),
            _work: vec![planes_a, planes_b, params_buffer],
            _blocks: blocks_buffer,
        })
    }

    /// One timed run for the bench: the front end on `samples` already resident, submitted
    /// and waited for, with the kernel time of each pass ([`PASS_RCT`], [`PASS_DWT`],
    /// [`PASS_GATHER`]; empty without timestamp queries).
    pub async fn profile(
        &self,
        gpu: &Gpu,
        samples: &wgpu::Buffer,
        plan: &DwtPlan,
    ) -> Result<(GpuCoeffs, Timings)> {
        let mut profiler = Profiler::new(gpu, 3);
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(DWT.label),
            });
        let out = self.encode_into(gpu, &mut encoder, samples, plan, Some(&mut profiler))?;
        profiler.resolve(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        gpu.wait_idle()?;
        let timings = profiler.timings(gpu).await?;
        Ok((out, timings))
    }

    /// The front end of samples already on the GPU (laid out as [`upload_samples`]
    /// writes them), read back as the host batch.
    pub async fn transform_samples(
        &self,
        gpu: &Gpu,
        samples: &wgpu::Buffer,
        plan: &DwtPlan,
    ) -> Result<CodeBlockBatch> {
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(DWT.label),
            });
        let out = self.encode_into(gpu, &mut encoder, samples, plan, None)?;
        gpu.queue.submit([encoder.finish()]);
        out.read(gpu).await
    }

    /// The whole front end for one host image: upload, transform, read back. Equal to
    /// [`super::transform_cpu`]`(image, levels, cblk)`.
    pub async fn transform(
        &self,
        gpu: &Gpu,
        image: &Image,
        levels: u32,
        cblk: u32,
    ) -> Result<CodeBlockBatch> {
        let stage = DwtStage {
            gpu,
            dwt: *self,
            levels,
            cblk,
        };
        GpuStage::encode(&stage, image).await
    }
}

/// The front end on one GPU for `levels` levels and `cblk` x `cblk` code-blocks: an image
/// in, the batch of code-block coefficients out (twin: [`super::transform_cpu`]).
pub struct DwtStage<'g> {
    pub gpu: &'g Gpu,
    pub dwt: DwtGpu,
    pub levels: u32,
    pub cblk: u32,
}

/// An image's samples on the GPU with the plan of its transform.
pub struct DwtUploaded {
    pub plan: DwtPlan,
    pub samples: PooledBuffer,
}

impl GpuStage for DwtStage<'_> {
    type Input<'a> = Image;
    type Uploaded = DwtUploaded;
    type Pending = GpuCoeffs;
    type Report = CodeBlockBatch;
    type Output = CodeBlockBatch;

    fn gpu(&self) -> &Gpu {
        self.gpu
    }

    fn label(&self) -> &'static str {
        DWT.label
    }

    async fn upload(&self, image: &Self::Input<'_>) -> Result<DwtUploaded> {
        let mut plan = DwtPlan::for_image(self.gpu, image, self.levels, self.cblk)?;
        let samples = upload_image(self.gpu, image, &mut plan)?;
        Ok(DwtUploaded { plan, samples })
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        uploaded: &DwtUploaded,
    ) -> Result<GpuCoeffs> {
        self.dwt
            .encode_into(self.gpu, encoder, &uploaded.samples, &uploaded.plan, None)
    }

    async fn finish(
        &self,
        _image: &Self::Input<'_>,
        _uploaded: &DwtUploaded,
        coeffs: GpuCoeffs,
    ) -> Result<CodeBlockBatch> {
        self.gpu.check_errors(DWT.name)?;
        coeffs.read(self.gpu).await
    }

    fn output(report: CodeBlockBatch) -> CodeBlockBatch {
        report
    }

    fn cpu(&self, image: &Self::Input<'_>) -> Result<CodeBlockBatch> {
        Ok(super::transform_cpu(image, self.levels, self.cblk))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_land_whole_through_staging_and_through_write_buffer() {
        let gpu = pollster::block_on(Gpu::new(crate::gpu::GpuOptions {
            pipeline_cache: None,
            ..Default::default()
        }))
        .expect("a wgpu adapter (lavapipe: mesa-vulkan-drivers)");
        let dwt = DwtGpu::new(&gpu).unwrap();
        // Sample counts of every remainder by 4, past the parallel threshold (written in
        // pieces, narrowed in runs) and not; 8 bits go a byte a sample, 12 two, and the
        // public layout two always. The front end's coefficients (no DWT level: the
        // level shift and RCT of each sample) prove what it read.
        let mut rng = crate::testdata::SplitMix64(5);
        for (w, h, comps, depth) in [
            (1, 1, 1, 8),
            (3, 1, 1, 8),
            (5, 3, 3, 8),
            (7, 1, 1, 12),
            (725, 487, 3, 8),
            (725, 487, 3, 12),
        ] {
            let samples = (0..w * h * comps)
                .map(|_| rng.below(1 << depth) as u16)
                .collect();
            let image = Image::new(w, h, comps, depth, samples).unwrap();
            let want = crate::j2k::transform_cpu(&image, 0, 64);
            for (sample_bytes, staged) in [(1, false), (1, true), (2, false), (2, true)] {
                if sample_bytes == 1 && depth > 8 {
                    continue;
                }
                let mut plan = DwtPlan::for_image(&gpu, &image, 0, 64).unwrap();
                plan.sample_bytes = sample_bytes;
                let len = plan.samples_bytes().max(4);
                // None idle, or one of the upload's size class, which it takes.
                gpu.wait_idle().unwrap();
                gpu.trim_pool();
                if staged {
                    pollster::block_on(gpu.prewarm_staging(len, 1)).unwrap();
                }
                let (samples, written, largest) =
                    write_samples(&gpu, &image, sample_bytes as usize);
                assert_eq!(largest, *image.samples.iter().max().unwrap());
                let was_staged = written.submit(&gpu, &samples);
                let what = format!(
                    "{w}x{h}x{comps} {depth} bits, {sample_bytes} a sample, staged {staged}"
                );
                assert_eq!(was_staged, staged, "{what}");
                let mut encoder = gpu.device.create_command_encoder(&Default::default());
                let out = dwt
                    .encode_into(&gpu, &mut encoder, &samples, &plan, None)
                    .unwrap();
                gpu.queue.submit([encoder.finish()]);
                let got = pollster::block_on(out.read(&gpu)).unwrap();
                assert!(got.coeffs == want.coeffs, "{what}");
            }
        }
    }
}
