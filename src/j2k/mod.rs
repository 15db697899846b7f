//! JPEG 2000 Part 1 lossless encoding in fast mode (selective arithmetic coding bypass).
//!
//! The pipeline: image -> components (DC level shift, RCT for RGB) -> reversible 5/3 DWT
//! -> code-blocks (one flat batch for the whole image) -> tier-1 (the CPU reference, or the
//! GPU tier-1 that codes the whole batch at once) -> tier-2 (packets) -> codestream. One
//! tile, one quality layer, LRCP, maximum precincts. [`encode`] runs the front end and
//! tier-1 where its [`Engine`] does; [`Stages`] places them apart.
//!
//! `bypass_from: Some(5)` is Part 1's bypass style (code-block style 0x01), `None` codes
//! every pass with the MQ coder (style 0). Other values are Part 2's variable bypass
//! point, which the COD style byte cannot say: Part 1 decoders such as OpenJPEG will not
//! decode those streams correctly.
//!
//! `ht: true` codes the code-blocks with the HTJ2K block coder instead (Part 15, see
//! [`ht`]): tier-1 placed on the GPU runs [`ht::gpu::HtGpu`], on the CPU `ht::HtCpu`,
//! with the same bytes.

mod assemble;
#[cfg(all(feature = "bench", not(target_arch = "wasm32")))]
pub mod bench;
pub mod codestream;
pub mod dwt;
pub mod dwt_gpu;
pub mod ht;
pub mod image;
pub mod jph;
pub mod mq;
pub mod partition;
#[cfg(not(target_arch = "wasm32"))]
pub mod raw;
pub mod rct;
pub mod texture_samples;
pub mod tier1;
pub mod tier2;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rayon::prelude::*;

pub(crate) use assemble::BlockBytes;
use assemble::{codestream_of, tier2_headers, ImageGeometry};
pub use dwt_gpu::GpuImage;
pub use image::Image;
use tier1::gpu::Tier1GpuConfig;
use tier1::{BandOrientation, CodeBlockCoded, Tier1Options};

use crate::gpu::Gpu;
use crate::{Engine, Error, Result};

/// One code-block of the batch: `width * height` coefficients (row-major) at `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeBlockJob {
    pub offset: usize,
    pub width: usize,
    pub height: usize,
    pub band: BandOrientation,
}

/// Every code-block of an image, coefficients back to back (one upload for a GPU).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeBlockBatch {
    pub coeffs: Vec<i32>,
    pub jobs: Vec<CodeBlockJob>,
}

impl CodeBlockBatch {
    /// The coefficients of job `i`.
    pub fn coeffs_of(&self, i: usize) -> &[i32] {
        let j = &self.jobs[i];
        &self.coeffs[j.offset..j.offset + j.width * j.height]
    }

    /// `code` over every job (its coefficients and shape) on all cores, in job order: the
    /// CPU block coders' loop.
    pub(crate) fn code_on_all_cores(
        &self,
        code: impl Fn(&[i32], &CodeBlockJob) -> Result<CodeBlockCoded> + Sync,
    ) -> Result<Vec<CodeBlockCoded>> {
        (0..self.jobs.len())
            .into_par_iter()
            .map(|i| code(self.coeffs_of(i), &self.jobs[i]))
            .collect()
    }
}

/// The future a [`Tier1Engine`] returns.
pub(crate) type Tier1Future<'a> = Pin<Box<dyn Future<Output = Result<Vec<CodeBlockCoded>>> + 'a>>;

/// Tier-1 over a whole image's code-blocks: one [`CodeBlockCoded`] per job, in order,
/// each exactly what [`tier1::encode_code_block`] returns for that job. The encoder
/// builds one from its [`Stages`]; the bench adds one that keeps a copy of the batch.
pub(crate) trait Tier1Engine {
    /// The GPU tier-1 behind this engine, if it is one: with the GPU front end on the same
    /// GPU, the encoder then leaves the coefficients on the GPU for it.
    fn gpu_tier1(&self) -> Option<&tier1::gpu::Tier1GpuEngine> {
        None
    }
    /// Whether this engine is an HT block coder (else Part 1's EBCOT).
    fn is_ht(&self) -> bool {
        false
    }
    /// The GPU HT stage behind this engine, if it is one: with the GPU front end on the
    /// same GPU, the coefficients then stay on the GPU for it.
    fn ht_gpu(&self) -> Option<&ht::gpu::HtGpu> {
        None
    }
    fn encode_batch<'a>(
        &'a self,
        batch: &'a CodeBlockBatch,
        opts: &'a Tier1Options,
    ) -> Tier1Future<'a>;
}

/// The CPU reference, on all cores.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CpuTier1;

impl Tier1Engine for CpuTier1 {
    fn encode_batch<'a>(
        &'a self,
        batch: &'a CodeBlockBatch,
        opts: &'a Tier1Options,
    ) -> Tier1Future<'a> {
        Box::pin(async move {
            batch.code_on_all_cores(|coeffs, j| {
                tier1::encode_code_block(coeffs, j.width, j.height, j.band, opts)
            })
        })
    }
}

/// Where one stage of the encoder runs (see [`Stages`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Cpu,
    /// The engine's GPU.
    Gpu,
}

/// Where the front end and tier-1 run, each on its own: a lower-level choice than the
/// engine, for callers that prove or time one stage alone (the tests, the bench). A GPU
/// stage runs on the engine's GPU, so it needs a wgpu engine. Without it
/// ([`EncoderConfig::stages`] `None`, the default) both run where the engine does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stages {
    /// Level shift, RCT, DWT and the gather into one batch of code-blocks: [`transform_cpu`]
    /// or [`dwt_gpu::DwtGpu`]. With tier-1 also on the GPU the coefficients stay there
    /// ([`tier1::gpu::Tier1GpuEngine::encode_image`]); else they are read back.
    pub front_end: Placement,
    /// Tier-1: the CPU reference on all cores, or the GPU tier-1 on the whole batch.
    pub tier1: Placement,
    /// The GPU tier-1's tuning, where it runs.
    pub tier1_gpu: Tier1GpuConfig,
}

impl Stages {
    /// `front_end` and `tier1` placed so, the GPU tier-1 tuned by default.
    pub fn new(front_end: Placement, tier1: Placement) -> Stages {
        Stages {
            front_end,
            tier1,
            tier1_gpu: Tier1GpuConfig::default(),
        }
    }
}

/// How to encode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncoderConfig {
    /// DWT levels (default 5); reduced to floor(log2(min(width, height))), the most
    /// OpenJPEG accepts, on smaller images.
    pub levels: u32,
    /// Code-block width and height: 64 (default) or 32 (or another power of two from 4).
    pub cblk: u32,
    /// Bit-plane from which SPP and MRP are coded raw: Some(5) (default) is Part 1's
    /// bypass style; None codes every pass with the MQ coder.
    pub bypass_from: Option<u32>,
    /// Where each stage runs, if not both where the engine does (the default, `None`).
    pub stages: Option<Stages>,
    /// Code the blocks with the HTJ2K block coder (Part 15; `bypass_from` is then
    /// unused). Tier-1 runs where it is placed, as Part 1's does: on the GPU the HT
    /// cleanup stage ([`ht::gpu::HtGpu`]), on the CPU `ht::HtCpu`, the same bytes.
    pub ht: bool,
}

impl Default for EncoderConfig {
    fn default() -> Self {
        EncoderConfig {
            levels: 5,
            cblk: 64,
            bypass_from: Some(5),
            stages: None,
            ht: false,
        }
    }
}

impl EncoderConfig {
    /// An error naming the first parameter out of range.
    pub fn validate(&self) -> Result<()> {
        if self.levels > 32 {
            return Err(Error::InvalidArgument(format!(
                "{} DWT levels: JPEG 2000 allows at most 32",
                self.levels
            )));
        }
        if !self.cblk.is_power_of_two() || !(4..=64).contains(&self.cblk) {
            return Err(Error::InvalidArgument(format!(
                "code-block size {}: use 64 or 32 (a power of two from 4 to 64)",
                self.cblk
            )));
        }
        if self.bypass_from.is_some_and(|k| k < 2) {
            return Err(Error::InvalidArgument(
                "bypass from bit-plane 0 or 1: the first bit-plane has only a cleanup pass; use 2 or more (5 is Part 1's)".into(),
            ));
        }
        Ok(())
    }
}

/// Pipeline steps, for progress reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Transform,
    Tier1,
    Tier2,
}

/// Most decomposition levels for a `width` x `height` tile that OpenJPEG accepts: it
/// needs `2^levels <= min(width, height)`.
pub fn max_levels(width: u32, height: u32) -> u32 {
    31 - width.min(height).max(1).leading_zeros()
}

/// Encode `image` losslessly into a JPEG 2000 codestream (.j2k) on `engine`: front end
/// and tier-1 on its GPU, or on the CPU (unless [`EncoderConfig::stages`] places them).
/// There is no CUDA path: `Engine::Cuda` is an error.
pub async fn encode(image: &Image, config: &EncoderConfig, engine: &Engine) -> Result<Vec<u8>> {
    encode_with_progress(image, config, engine, &mut |_| {}).await
}

/// [`encode`], calling `progress` as each step starts.
pub async fn encode_with_progress(
    image: &Image,
    config: &EncoderConfig,
    engine: &Engine,
    progress: &mut dyn FnMut(Stage),
) -> Result<Vec<u8>> {
    config.validate()?;
    let gpu = engine.wgpu_or_cpu("the JPEG 2000 encoder")?;
    let stages = config.stages.unwrap_or_else(|| {
        let here = match gpu {
            Some(_) => Placement::Gpu,
            None => Placement::Cpu,
        };
        Stages::new(here, here)
    });
    let place = |p: Placement, stage: &str| match (p, gpu) {
        (Placement::Cpu, _) => Ok(None),
        (Placement::Gpu, Some(g)) => Ok(Some(g)),
        (Placement::Gpu, None) => Err(Error::InvalidArgument(format!(
            "the JPEG 2000 {stage} on the GPU needs a wgpu engine, not {}",
            engine.name()
        ))),
    };
    let front_end = place(stages.front_end, "front end")?;
    let tier1: Box<dyn Tier1Engine> = match (place(stages.tier1, "tier-1")?, config.ht) {
        (Some(g), false) => Box::new(tier1::gpu::Tier1GpuEngine::with_config(
            g.clone(),
            stages.tier1_gpu,
        )?),
        (None, false) => Box::new(CpuTier1),
        (Some(g), true) => Box::new(ht::gpu::HtGpu::new(g.clone())?),
        (None, true) => Box::new(ht::HtCpu),
    };
    encode_placed(image, config, front_end, &*tier1, progress).await
}

/// Encode an image whose samples are already on `engine`'s GPU ([`GpuImage`]: a
/// renderer's output, say), with no copy through the host: the front end reads them where
/// they are and tier-1 codes the coefficients where the front end leaves them; only the
/// coded bytes come back. The same codestream as [`encode`] of the same samples from the
/// host. Both stages run on that GPU: a wgpu engine, and [`EncoderConfig::stages`] `None`
/// or both [`Placement::Gpu`]; anything else is an error.
pub async fn encode_gpu_image(
    engine: &Engine,
    image: &GpuImage<'_>,
    config: &EncoderConfig,
) -> Result<Vec<u8>> {
    config.validate()?;
    let Some(gpu) = engine.gpu() else {
        return Err(Error::InvalidArgument(format!(
            "a GPU image is encoded on its wgpu engine, not {}",
            engine.name()
        )));
    };
    let stages = config
        .stages
        .unwrap_or_else(|| Stages::new(Placement::Gpu, Placement::Gpu));
    if stages.front_end != Placement::Gpu || stages.tier1 != Placement::Gpu {
        return Err(Error::InvalidArgument(
            "a GPU image needs the front end and tier-1 on the GPU".into(),
        ));
    }
    let levels = config.levels.min(max_levels(image.width, image.height));
    let plan = image.plan(gpu, levels, config.cblk)?;
    let geometry = ImageGeometry {
        width: image.width,
        height: image.height,
        components: image.components,
        bit_depth: image.bit_depth,
    };
    let coded = if config.ht {
        return ht::gpu::HtGpu::new(gpu.clone())?
            .encode_samples_with(
                image.samples,
                &plan,
                |coded, lens| tier2_headers(&geometry, config, levels, &plan.layout, coded, lens),
                |headers, bytes| headers.write(&plan.layout, &bytes),
            )
            .await;
    } else {
        let opts = Tier1Options {
            bypass_from: config.bypass_from,
        };
        tier1::gpu::Tier1GpuEngine::with_config(gpu.clone(), stages.tier1_gpu)?
            .encode_samples(image.samples, &plan, &opts)
            .await?
    };
    codestream_of(&geometry, config, levels, &plan.layout, coded)
}

/// The encoder with its stages placed: the front end on `front_end`'s GPU or the CPU,
/// tier-1 by `tier1`.
pub(crate) async fn encode_placed(
    image: &Image,
    config: &EncoderConfig,
    front_end: Option<&Arc<Gpu>>,
    tier1: &dyn Tier1Engine,
    progress: &mut dyn FnMut(Stage),
) -> Result<Vec<u8>> {
    config.validate()?;
    // Re-check the image: its fields are public. The GPU front end checks the samples'
    // values as it uploads them (they are read once, not twice).
    let t = crate::gpu::clock();
    match front_end {
        Some(_) => image.validate_shape()?,
        None => image.validate()?,
    }
    if let Some(t) = t {
        log::debug!("image checked in {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
    }
    let levels = config.levels.min(max_levels(image.width, image.height));
    if levels < config.levels {
        log::info!(
            "{}x{} image: {} DWT levels instead of {} (OpenJPEG needs 2^levels <= the smaller side)",
            image.width,
            image.height,
            levels,
            config.levels
        );
    }
    let (w, h) = (image.width as usize, image.height as usize);

    let started = crate::gpu::clock();
    progress(Stage::Transform);
    let opts = Tier1Options {
        bypass_from: config.bypass_from,
    };
    // An HT configuration with a Part 1 engine (the bench's capture) codes on the CPU.
    let tier1: &dyn Tier1Engine = if config.ht && !tier1.is_ht() {
        &ht::HtCpu
    } else {
        tier1
    };
    if !config.ht && tier1.is_ht() {
        return Err(Error::InvalidArgument(
            "an HT block coder for a Part 1 configuration: set ht".into(),
        ));
    }
    // The GPU HT stage on the front end's GPU: coefficients resident between them.
    let ht_resident = match (front_end, tier1.ht_gpu()) {
        (Some(gpu), Some(h)) if Arc::ptr_eq(h.gpu_arc(), gpu) => Some(h),
        _ => None,
    };
    let geometry = ImageGeometry {
        width: image.width,
        height: image.height,
        components: image.components,
        bit_depth: image.bit_depth,
    };
    if let (Some(gpu), Some(h)) = (front_end, ht_resident) {
        // The coded blocks' bytes go from where the readback maps them straight into the
        // codestream; tier-2's headers are made while they come back.
        progress(Stage::Tier1);
        // Built while the picture is planned and goes up (on a first run, driver compiles).
        let _ahead = h.build_resident_ahead();
        let t = crate::gpu::clock();
        let mut plan = dwt_gpu::DwtPlan::for_image(gpu, image, levels, config.cblk)?;
        if let Some(t) = t {
            log::debug!(
                "HT: {} blocks planned in {:.2} ms",
                plan.jobs.len(),
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        let samples = h.upload_image(image, &mut plan)?;
        let layout = &plan.layout;
        let written = h
            .encode_uploaded_with(
                &samples,
                &plan,
                samples.size(),
                |coded, lens| {
                    progress(Stage::Tier2);
                    tier2_headers(&geometry, config, levels, layout, coded, lens)
                },
                |headers, bytes| headers.write(layout, &bytes),
            )
            .await;
        if let Some(a) = started {
            log::debug!(
                "front end, tier-1, tier-2 and codestream {:.1} ms",
                a.elapsed().as_secs_f64() * 1e3
            );
        }
        return written;
    }
    let layout = partition::layout(w, h, image.components, levels, config.cblk as usize);
    let coded = match (front_end, tier1.gpu_tier1()) {
        (Some(gpu), Some(t)) if Arc::ptr_eq(t.gpu_arc(), gpu) => {
            // The whole GPU path: both stages in one submission, coefficients resident.
            progress(Stage::Tier1);
            t.encode_image(image, levels, config.cblk, &opts).await?
        }
        _ => {
            let batch = match front_end {
                None => transform_cpu(image, levels, config.cblk),
                Some(gpu) => {
                    dwt_gpu::DwtGpu::new(gpu)?
                        .transform(gpu, image, levels, config.cblk)
                        .await?
                }
            };
            progress(Stage::Tier1);
            tier1.encode_batch(&batch, &opts).await?
        }
    };
    let tier1_done = crate::gpu::clock();
    progress(Stage::Tier2);
    let written = codestream_of(&geometry, config, levels, &layout, coded);
    if let (Some(a), Some(b)) = (started, tier1_done) {
        log::debug!(
            "front end and tier-1 {:.1} ms, tier-2 and codestream {:.1} ms",
            (b - a).as_secs_f64() * 1e3,
            b.elapsed().as_secs_f64() * 1e3
        );
    }
    written
}

fn band_orientation(o: dwt::Orientation) -> BandOrientation {
    match o {
        dwt::Orientation::LL => BandOrientation::LL,
        dwt::Orientation::HL => BandOrientation::HL,
        dwt::Orientation::LH => BandOrientation::LH,
        dwt::Orientation::HH => BandOrientation::HH,
    }
}

/// The front end on the CPU (the twin of [`dwt_gpu`]): level shift and RCT, `levels`
/// levels of the 5/3 DWT (as given, not reduced), and every code-block of the layout for
/// `cblk` x `cblk` blocks gathered into one batch.
pub fn transform_cpu(image: &Image, levels: u32, cblk: u32) -> CodeBlockBatch {
    let (w, h) = (image.width as usize, image.height as usize);
    let mut planes = rct::forward(image);
    planes
        .par_iter_mut()
        .for_each(|p| dwt::forward_2d(p, w, h, levels));
    let layout = partition::layout(w, h, image.components, levels, cblk as usize);
    gather(&layout, &planes, w)
}

/// Copy every code-block's coefficients out of the transformed planes, in layout order.
fn gather(layout: &partition::Layout, planes: &[Vec<i32>], stride: usize) -> CodeBlockBatch {
    let mut batch = CodeBlockBatch::default();
    for (i, b) in layout.blocks.iter().enumerate() {
        let offset = batch.coeffs.len();
        let plane = &planes[b.component as usize];
        for y in b.y0..b.y0 + b.height {
            batch
                .coeffs
                .extend_from_slice(&plane[y * stride + b.x0..y * stride + b.x0 + b.width]);
        }
        batch.jobs.push(CodeBlockJob {
            offset,
            width: b.width,
            height: b.height,
            band: band_orientation(layout.orientation(i)),
        });
    }
    batch
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole GPU path builds its pipelines ahead, side by side: every pipeline a
    /// picture's encode builds is one it asked for ahead (a list that had drifted from
    /// what the path records would compile the rest one after the other again), for HT
    /// and for Part 1 with either tier-1 strategy; and the codestream is the CPU's.
    #[test]
    fn the_gpu_path_builds_only_the_pipelines_it_built_ahead() {
        use crate::gpu::{Gpu, GpuOptions};
        use tier1::gpu::{Tier1GpuConfig, Tier1Strategy};
        let mut rng = crate::testdata::SplitMix64(5);
        let samples: Vec<u16> = (0..3 * 200 * 136).map(|_| rng.below(256) as u16).collect();
        let image = Image::new(200, 136, 3, 8, samples).unwrap();
        for (ht, strategy) in [
            (true, Tier1Strategy::Auto),
            (false, Tier1Strategy::OneKernel),
            (false, Tier1Strategy::ThreeKernel),
        ] {
            let gpu = Arc::new(
                pollster::block_on(Gpu::new(GpuOptions {
                    pipeline_cache: None,
                    ..Default::default()
                }))
                .expect("a wgpu adapter (lavapipe: mesa-vulkan-drivers)"),
            );
            let stages = Stages {
                tier1_gpu: Tier1GpuConfig {
                    strategy,
                    ..Tier1GpuConfig::default()
                },
                ..Stages::new(Placement::Gpu, Placement::Gpu)
            };
            let config = EncoderConfig {
                ht,
                stages: Some(stages),
                ..EncoderConfig::default()
            };
            let levels = config.levels.min(max_levels(image.width, image.height));
            let plan = dwt_gpu::DwtPlan::for_image(&gpu, &image, levels, config.cblk).unwrap();
            let ahead: std::collections::HashSet<String> = match ht {
                true => ht::gpu::HtGpu::new(gpu.clone())
                    .unwrap()
                    .resident_pipelines(),
                false => tier1::gpu::Tier1GpuEngine::with_config(gpu.clone(), stages.tier1_gpu)
                    .unwrap()
                    .resident_pipelines(&plan),
            }
            .into_iter()
            .map(|(stage, entry, constants)| format!("{}.{entry} {constants:?}", stage.name))
            .collect();
            let engine = Engine::Wgpu(gpu.clone());
            let got = pollster::block_on(encode(&image, &config, &engine)).unwrap();
            let on_cpu = EncoderConfig {
                stages: None,
                ..config.clone()
            };
            let want = pollster::block_on(encode(&image, &on_cpu, &Engine::Cpu)).unwrap();
            assert!(
                got == want,
                "ht {ht}, {strategy:?}: not the CPU's codestream"
            );
            assert_eq!(
                gpu.pipelines_created(),
                ahead.len() as u64,
                "ht {ht}, {strategy:?}: built ahead {ahead:?}"
            );
        }
    }

    #[test]
    fn max_levels_follows_the_smaller_side() {
        assert_eq!(max_levels(1, 1), 0);
        assert_eq!(max_levels(3, 5), 1);
        assert_eq!(max_levels(67, 33), 5);
        assert_eq!(max_levels(64, 1000), 6);
    }

    #[test]
    fn bad_images_and_configs_are_clear_errors() {
        let run = |img: &Image, config: &EncoderConfig| {
            pollster::block_on(encode(img, config, &Engine::Cpu))
                .unwrap_err()
                .to_string()
        };
        let ok = Image::new(4, 4, 1, 8, vec![0; 16]).unwrap();
        let mut zero = ok.clone();
        (zero.width, zero.samples) = (0, vec![]);
        assert!(run(&zero, &EncoderConfig::default()).contains("zero-sized"));
        let mut short = ok.clone();
        short.samples.pop();
        assert!(run(&short, &EncoderConfig::default()).contains("needs 16 samples"));
        let mut deep = ok.clone();
        deep.samples[3] = 256;
        assert!(run(&deep, &EncoderConfig::default()).contains("at most 255"));
        let two = Image {
            components: 2,
            samples: vec![0; 32],
            ..ok.clone()
        };
        assert!(run(&two, &EncoderConfig::default()).contains("only grey (1) and RGB (3)"));
        for (config, want) in [
            (
                EncoderConfig {
                    cblk: 48,
                    ..Default::default()
                },
                "code-block size 48",
            ),
            (
                EncoderConfig {
                    cblk: 128,
                    ..Default::default()
                },
                "code-block size 128",
            ),
            (
                EncoderConfig {
                    bypass_from: Some(1),
                    ..Default::default()
                },
                "bypass from",
            ),
            (
                EncoderConfig {
                    levels: 33,
                    ..Default::default()
                },
                "at most 32",
            ),
        ] {
            assert!(run(&ok, &config).contains(want), "{config:?}");
        }
        assert!(pollster::block_on(encode(&ok, &EncoderConfig::default(), &Engine::Cpu)).is_ok());
    }

    #[test]
    fn a_gpu_stage_needs_the_wgpu_engine() {
        let img = Image::new(
            9,
            7,
            3,
            8,
            (0..189).map(|i| (i * 37 % 256) as u16).collect(),
        )
        .unwrap();
        let config = |stages| EncoderConfig {
            stages,
            ..Default::default()
        };
        for (front_end, tier1, stage) in [
            (Placement::Gpu, Placement::Cpu, "front end"),
            (Placement::Cpu, Placement::Gpu, "tier-1"),
            (Placement::Gpu, Placement::Gpu, "front end"),
        ] {
            let stages = Some(Stages::new(front_end, tier1));
            let e = pollster::block_on(encode(&img, &config(stages), &Engine::Cpu))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("JPEG 2000 {stage} on the GPU needs a wgpu engine")),
                "{e}"
            );
        }
        // Both placed on the CPU: the engine's own path, the same codestream.
        let cpu = Some(Stages::new(Placement::Cpu, Placement::Cpu));
        assert_eq!(
            pollster::block_on(encode(&img, &config(cpu), &Engine::Cpu)).unwrap(),
            pollster::block_on(encode(&img, &config(None), &Engine::Cpu)).unwrap()
        );
    }

    #[test]
    fn ht_tier1_placed_on_the_gpu_needs_a_wgpu_engine() {
        let img = Image::new(9, 7, 1, 8, (0..63).map(|i| (i * 37 % 256) as u16).collect()).unwrap();
        let config = |stages| EncoderConfig {
            stages,
            ht: true,
            ..Default::default()
        };
        let e = pollster::block_on(encode(
            &img,
            &config(Some(Stages::new(Placement::Cpu, Placement::Gpu))),
            &Engine::Cpu,
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("JPEG 2000 tier-1 on the GPU needs a wgpu engine"),
            "{e}"
        );
        let cpu = Some(Stages::new(Placement::Cpu, Placement::Cpu));
        let ht = pollster::block_on(encode(&img, &config(cpu), &Engine::Cpu)).unwrap();
        assert_eq!(
            ht,
            pollster::block_on(encode(&img, &config(None), &Engine::Cpu)).unwrap()
        );
        // Not the Part 1 codestream.
        let part1 = pollster::block_on(encode(&img, &EncoderConfig::default(), &Engine::Cpu));
        assert_ne!(ht, part1.unwrap());
    }

    #[test]
    fn part2_bypass_points_keep_tier1_and_tier2_in_step() {
        // No Part 1 decoder can judge these streams, but tier-2's segment rule must agree
        // with tier-1's terminations for every bypass point (else encode errors).
        let samples: Vec<u16> = (0..40 * 30 * 3)
            .map(|i| ((i * 7919) % 65536) as u16)
            .collect();
        let img = Image::new(40, 30, 3, 16, samples).unwrap();
        let mut sizes = Vec::new();
        for k in [2, 3, 4, 5, 9, 30] {
            let config = EncoderConfig {
                bypass_from: Some(k),
                ..Default::default()
            };
            let cs = pollster::block_on(encode(&img, &config, &Engine::Cpu)).unwrap();
            assert_eq!(&cs[..2], &[0xFF, 0x4F]);
            assert_eq!(&cs[cs.len() - 2..], &[0xFF, 0xD9]);
            sizes.push(cs.len());
        }
        // Raw coding from bit-plane 2 gives a different stream than Part 1's plane 5.
        assert_ne!(sizes[0], sizes[3]);
    }
}
