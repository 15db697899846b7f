//! `parvlc bench j2k`: the GPU tier-1 (fast mode and all passes MQ-coded) against the CPU
//! tier-1 on one core and on all cores, and the whole encoder against OpenJPEG's
//! `opj_compress -M 1` on the same synthetic pictures, in MSamples/s. GPU times from
//! timestamp queries (kernel only, the code-blocks resident), wall times host to host.
//! The front end (level shift + RCT, DWT, gather) on the GPU against its CPU twin (scope
//! `front-end`, rows `dwt...`), and the whole GPU path (GPU front end + GPU tier-1).
//! HTJ2K: the GPU HT cleanup stage (row `ht_cleanup`) against the CPU HT coder on all
//! cores, and the whole encoder with `ht` on the GPU and on the CPU.
//!
//! Every timed path is checked before its row exists (see [`crate::bench`]): the CPU
//! tier-1, the reference, by decoding every code-block back to its coefficients; the CPU
//! encoder's codestream by `opj_decompress` where it is on PATH; the GPU tier-1 (both
//! strategies, kernels and host to host), both front ends and the GPU encoders byte for
//! byte against the CPU twins; `opj_compress`'s codestream by `opj_decompress`.

use std::sync::{Arc, Mutex};

use super::ht::gpu::HtGpu;
use super::ht::HtCpu;
use super::tier1::gpu::{Tier1GpuConfig, Tier1Kernels, Tier1Strategy};
use super::tier1::{encode_code_block, Tier1Options};
use super::{
    encode, encode_placed, max_levels, transform_cpu, CodeBlockBatch, CpuTier1, EncoderConfig,
    Image, Placement, Stages, Tier1Engine,
};
use crate::bench::{check_same, WarmUp};
use crate::gpu::Gpu;
use crate::{testdata, Engine, Error, Result};

mod measure;

pub use measure::check_decodes;
use measure::{
    best_wall, check_batch, coded_bytes, opj_compress_seconds, opj_decodes, time_encoder,
    time_gpu_front_end, time_gpu_ht, time_gpu_tier1, Capture,
};

/// One measurement (one JSON line).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct J2kRecord {
    pub module: String,
    /// tier1 (the code-blocks of a picture), encoder (picture to codestream) or front-end
    /// (picture to the code-block batch: RCT, DWT, gather).
    pub scope: String,
    /// gpu-fast, gpu-all-mq, cpu-1-core, cpu-all-cores, opj_compress, ...
    pub variant: String,
    pub input: String,
    pub samples: u64,
    /// Kernel time by timestamp queries, best of the runs; None where not measured.
    pub seconds_gpu: Option<f64>,
    /// Wall time, best of the runs.
    pub seconds_wall: f64,
    pub msamples_per_s_gpu: Option<f64>,
    pub msamples_per_s_wall: f64,
    /// Coded bytes (tier-1 data, or the codestream).
    pub bytes: u64,
    /// Fast mode over all-MQ (GPU times; wall where no GPU time): on the gpu-fast row.
    pub speedup_fast_vs_all_mq: Option<f64>,
    pub adapter: String,
    /// Front-end rows on the GPU: kernel seconds of each timestamp pass (j2k_rct, j2k_dwt,
    /// j2k_gather) of the run whose sum is `seconds_gpu`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_passes: Option<Vec<(String, f64)>>,
}

/// What to run.
#[derive(Clone, Debug)]
pub struct J2kBenchOptions {
    /// Pictures as (name, width, height).
    pub sizes: Vec<(String, u32, u32)>,
    pub runs: usize,
    pub levels: u32,
    pub cblk: u32,
    /// The fast mode's first raw bit-plane (5: Part 1).
    pub bypass_from: u32,
    /// Also time `opj_compress` where it is on PATH.
    pub openjpeg: bool,
    /// Skip the one-core CPU tier-1 (slow on 4K).
    pub cpu_one_core: bool,
    /// The GPU tier-1's tuning.
    pub gpu_config: Tier1GpuConfig,
    /// Seconds each GPU row runs untimed before its timed runs (0: one run). The GPU's
    /// memory path slows while the CPU rows run and speeds up again under load
    /// (docs/results.md, "Seventh pass" and "Thirty-sixth pass").
    pub warm_up_secs: f64,
}

impl J2kBenchOptions {
    /// How each GPU row warms up before its timed runs.
    fn gpu_warm_up(&self) -> WarmUp {
        if self.warm_up_secs > 0.0 {
            WarmUp::AtLeast(self.warm_up_secs)
        } else {
            WarmUp::Once
        }
    }
}

impl Default for J2kBenchOptions {
    fn default() -> Self {
        J2kBenchOptions {
            sizes: vec![("2K".into(), 2048, 1080), ("4K".into(), 4096, 2160)],
            runs: 5,
            levels: 5,
            cblk: 64,
            bypass_from: 5,
            openjpeg: true,
            cpu_one_core: true,
            gpu_config: Tier1GpuConfig::default(),
            warm_up_secs: 0.0,
        }
    }
}

/// "2K", "4K", or WIDTHxHEIGHT.
pub fn parse_picture_size(s: &str) -> Result<(String, u32, u32)> {
    match s {
        "2K" | "2k" => return Ok(("2K".into(), 2048, 1080)),
        "4K" | "4k" => return Ok(("4K".into(), 4096, 2160)),
        _ => {}
    }
    let bad = || Error::InvalidArgument(format!("picture size {s:?}: use 2K, 4K or WIDTHxHEIGHT"));
    let (w, h) = s.split_once('x').ok_or_else(bad)?;
    let w: u32 = w.parse().map_err(|_| bad())?;
    let h: u32 = h.parse().map_err(|_| bad())?;
    if w == 0 || h == 0 {
        return Err(bad());
    }
    Ok((s.into(), w, h))
}

#[allow(clippy::too_many_arguments)]
fn record(
    scope: &str,
    variant: &str,
    input: &str,
    samples: u64,
    gpu_s: Option<f64>,
    wall_s: f64,
    bytes: u64,
    adapter: &str,
) -> J2kRecord {
    let rate = |s: f64| samples as f64 / s / 1e6;
    J2kRecord {
        module: "j2k".into(),
        scope: scope.into(),
        variant: variant.into(),
        input: input.into(),
        samples,
        seconds_gpu: gpu_s,
        seconds_wall: wall_s,
        msamples_per_s_gpu: gpu_s.map(rate),
        msamples_per_s_wall: rate(wall_s),
        bytes,
        speedup_fast_vs_all_mq: None,
        adapter: adapter.into(),
        gpu_passes: None,
    }
}

/// Run the suite; `report` sees each picture's records as they are measured. Every row's
/// output is checked before the row exists: the CPU tier-1 (the reference) by decoding
/// every code-block, the CPU encoder's codestream by `opj_decompress` where it is on PATH,
/// and every other path against them byte for byte.
pub fn run_j2k(
    gpu: Option<Arc<Gpu>>,
    options: &J2kBenchOptions,
    report: &mut dyn FnMut(&[J2kRecord]),
) -> Result<Vec<J2kRecord>> {
    let mut all = Vec::new();
    let adapter = gpu
        .as_ref()
        .map_or("the CPU".to_string(), |g| g.adapter_name());
    // Tier-1 tuned as asked, on the GPU with the front end on the CPU, then on the GPU.
    let gpu_stages = |front_end| Stages {
        front_end,
        tier1: Placement::Gpu,
        tier1_gpu: options.gpu_config,
    };
    let gpu_engine = gpu.clone().map(Engine::Wgpu);
    let fast = Tier1Options {
        bypass_from: Some(options.bypass_from),
    };
    let all_mq = Tier1Options { bypass_from: None };
    let cpu_runs = options.runs.clamp(1, 2);
    for (name, w, h) in &options.sizes {
        let image = Image::new(*w, *h, 3, 8, testdata::synthetic_rgb(*w, *h, 7))?;
        let samples = image.samples.len() as u64;
        // As the encoder reduces them for small pictures.
        let levels = options.levels.min(max_levels(*w, *h));
        let config = |stages: Option<Stages>| EncoderConfig {
            levels: options.levels,
            cblk: options.cblk,
            bypass_from: Some(options.bypass_from),
            stages,
            ht: false,
        };
        // The picture's code-blocks, as the encoder hands them to tier-1, and the CPU
        // encoder's codestream: the references.
        let capture = Capture(Mutex::new(None));
        let want_cs = pollster::block_on(encode_placed(
            &image,
            &config(None),
            None,
            &capture,
            &mut |_| {},
        ))?;
        let batch = capture
            .0
            .lock()
            .ok()
            .and_then(|mut b| b.take())
            .ok_or_else(|| {
                Error::InvalidArgument("the encoder gave tier-1 no code-blocks".into())
            })?;
        match opj_decodes(&image, &want_cs, "the CPU encoder's codestream") {
            Some(checked) => checked?,
            None => log::warn!(
                "opj_decompress not on PATH: the CPU encoder's codestream is not decoded"
            ),
        }
        let want_fast = pollster::block_on(CpuTier1.encode_batch(&batch, &fast))?;
        check_decodes("CPU tier-1 (fast)", &batch, &want_fast, &fast)?;
        let want_mq = pollster::block_on(CpuTier1.encode_batch(&batch, &all_mq))?;
        check_decodes("CPU tier-1 (all MQ)", &batch, &want_mq, &all_mq)?;
        let mut records = Vec::new();
        if let (Some(g), Some(e)) = (&gpu, &gpu_engine) {
            // The one-kernel strategy, then the paper's three-kernel one (per bit-plane:
            // context modelling, raw passes, MQ passes over all code-blocks).
            let with = |strategy| Tier1GpuConfig {
                strategy,
                ..options.gpu_config
            };
            let strategies = [
                (with(Tier1Strategy::OneKernel), ""),
                (with(Tier1Strategy::ThreeKernel), "-three-kernel"),
            ];
            for (strategy, suffix) in strategies {
                let tier1 = Tier1Kernels::with_config(g, strategy)?;
                let (fast_name, mq_name) =
                    (format!("gpu-fast{suffix}"), format!("gpu-all-mq{suffix}"));
                let (k_fast, w_fast, b_fast) =
                    time_gpu_tier1(&fast_name, g, &tier1, &batch, &fast, options, &want_fast)?;
                let (k_mq, w_mq, b_mq) =
                    time_gpu_tier1(&mq_name, g, &tier1, &batch, &all_mq, options, &want_mq)?;
                let mut r = record(
                    "tier1", &fast_name, name, samples, k_fast, w_fast, b_fast, &adapter,
                );
                r.speedup_fast_vs_all_mq = Some(k_mq.unwrap_or(w_mq) / k_fast.unwrap_or(w_fast));
                records.push(r);
                records.push(record(
                    "tier1", &mq_name, name, samples, k_mq, w_mq, b_mq, &adapter,
                ));
            }
            let (wall, bytes) = time_encoder(
                "encoder gpu-tier1-fast",
                &image,
                &config(Some(gpu_stages(Placement::Cpu))),
                e,
                options.runs,
                options.gpu_warm_up(),
                &want_cs,
            )?;
            records.push(record(
                "encoder",
                "gpu-tier1-fast",
                name,
                samples,
                None,
                wall,
                bytes,
                &adapter,
            ));
            // The whole GPU path: front end and tier-1 on the GPU (fast mode).
            let (wall, bytes) = time_encoder(
                "encoder gpu-front-end-gpu-tier1-fast",
                &image,
                &config(Some(gpu_stages(Placement::Gpu))),
                e,
                options.runs,
                options.gpu_warm_up(),
                &want_cs,
            )?;
            records.push(record(
                "encoder",
                "gpu-front-end-gpu-tier1-fast",
                name,
                samples,
                None,
                wall,
                bytes,
                &adapter,
            ));
            // The front end alone on the GPU (the levels the encoder uses).
            let (passes, wall, bytes) =
                time_gpu_front_end(g, &image, levels, options.cblk, options, &batch)?;
            let gpu_s = passes.as_ref().map(|p| p.iter().map(|(_, s)| s).sum());
            let mut r = record(
                "front-end",
                "dwt-gpu",
                name,
                samples,
                gpu_s,
                wall,
                bytes,
                &adapter,
            );
            r.gpu_passes = passes;
            records.push(r);
        }
        // The front end on the CPU (all cores), the GPU one's twin.
        let wall = best_wall(
            cpu_runs,
            WarmUp::None,
            || Ok(transform_cpu(&image, levels, options.cblk)),
            |got| check_batch("dwt-cpu-all-cores", &got, &batch),
        )?;
        records.push(record(
            "front-end",
            "dwt-cpu-all-cores",
            name,
            samples,
            None,
            wall,
            batch.coeffs.len() as u64 * 4,
            "the CPU",
        ));
        // CPU tier-1: all cores (the encoder's CPU engine) and one core.
        for (variant, opts, want) in [
            ("cpu-all-cores-fast", &fast, &want_fast),
            ("cpu-all-cores-all-mq", &all_mq, &want_mq),
        ] {
            let wall = best_wall(
                cpu_runs,
                WarmUp::None,
                || pollster::block_on(CpuTier1.encode_batch(&batch, opts)),
                |got| check_same(variant, "code-block", &got, want),
            )?;
            records.push(record(
                "tier1",
                variant,
                name,
                samples,
                None,
                wall,
                coded_bytes(want),
                "the CPU",
            ));
        }
        if options.cpu_one_core {
            let wall = best_wall(
                1,
                WarmUp::None,
                || {
                    batch
                        .jobs
                        .iter()
                        .enumerate()
                        .map(|(i, j)| {
                            encode_code_block(batch.coeffs_of(i), j.width, j.height, j.band, &fast)
                        })
                        .collect::<Result<Vec<_>>>()
                },
                |got| check_same("cpu-1-core-fast", "code-block", &got, &want_fast),
            )?;
            records.push(record(
                "tier1",
                "cpu-1-core-fast",
                name,
                samples,
                None,
                wall,
                coded_bytes(&want_fast),
                "the CPU",
            ));
        }
        let (wall, bytes) = time_encoder(
            "encoder cpu-all-cores-fast",
            &image,
            &config(None),
            &Engine::Cpu,
            cpu_runs,
            WarmUp::None,
            &want_cs,
        )?;
        records.push(record(
            "encoder",
            "cpu-all-cores-fast",
            name,
            samples,
            None,
            wall,
            bytes,
            "the CPU",
        ));
        if options.openjpeg {
            match opj_compress_seconds(&image, options, cpu_runs) {
                Some(checked) => {
                    let (s, bytes) = checked?;
                    records.push(record(
                        "encoder",
                        "opj_compress-M1-all-threads",
                        name,
                        samples,
                        None,
                        s,
                        bytes,
                        "the CPU",
                    ))
                }
                None => log::warn!(
                    "opj_compress or opj_decompress not on PATH or failed: no OpenJPEG row"
                ),
            }
        }
        records.extend(ht_rows(
            gpu.as_ref(),
            &image,
            name,
            &batch,
            options,
            &config(None),
            &adapter,
        )?);
        report(&records);
        all.extend(records);
    }
    Ok(all)
}

/// HTJ2K rows: the GPU HT cleanup stage (`ht_cleanup`) against the CPU HT coder on all
/// cores on the picture's batch, and the whole encoder with `ht` on the GPU (front end and
/// HT stage) and on the CPU. The CPU HT codestream is decoded by `opj_decompress` where
/// it is on PATH; the other paths must equal it byte for byte.
fn ht_rows(
    gpu: Option<&Arc<Gpu>>,
    image: &Image,
    name: &str,
    batch: &CodeBlockBatch,
    options: &J2kBenchOptions,
    part1: &EncoderConfig,
    adapter: &str,
) -> Result<Vec<J2kRecord>> {
    let samples = image.samples.len() as u64;
    let cpu_runs = options.runs.clamp(1, 2);
    let config = |stages: Option<Stages>| EncoderConfig {
        ht: true,
        stages,
        ..part1.clone()
    };
    let any = Tier1Options::default();
    let want = pollster::block_on(HtCpu.encode_batch(batch, &any))?;
    let want_cs = pollster::block_on(encode(image, &config(None), &Engine::Cpu))?;
    if let Some(checked) = opj_decodes(image, &want_cs, "the CPU HT encoder's codestream") {
        checked?;
    }
    let mut records = Vec::new();
    if let Some(g) = gpu {
        let ht = HtGpu::new(g.clone())?;
        let (kernel, wall) = time_gpu_ht(g, &ht, batch, options, &want)?;
        records.push(record(
            "tier1",
            "ht_cleanup",
            name,
            samples,
            kernel,
            wall,
            coded_bytes(&want),
            adapter,
        ));
        let stages = Stages::new(Placement::Gpu, Placement::Gpu);
        let (wall, bytes) = time_encoder(
            "encoder gpu-front-end-ht_cleanup",
            image,
            &config(Some(stages)),
            &Engine::Wgpu(g.clone()),
            options.runs,
            options.gpu_warm_up(),
            &want_cs,
        )?;
        records.push(record(
            "encoder",
            "gpu-front-end-ht_cleanup",
            name,
            samples,
            None,
            wall,
            bytes,
            adapter,
        ));
    }
    let wall = best_wall(
        cpu_runs,
        WarmUp::None,
        || pollster::block_on(HtCpu.encode_batch(batch, &any)),
        |got| check_same("ht-cpu-all-cores", "code-block", &got, &want),
    )?;
    records.push(record(
        "tier1",
        "ht-cpu-all-cores",
        name,
        samples,
        None,
        wall,
        coded_bytes(&want),
        "the CPU",
    ));
    let (wall, bytes) = time_encoder(
        "encoder cpu-all-cores-ht",
        image,
        &config(None),
        &Engine::Cpu,
        cpu_runs,
        WarmUp::None,
        &want_cs,
    )?;
    records.push(record(
        "encoder",
        "cpu-all-cores-ht",
        name,
        samples,
        None,
        wall,
        bytes,
        "the CPU",
    ));
    Ok(records)
}

/// The records as a table.
pub fn j2k_table(records: &[J2kRecord]) -> String {
    let mut s = format!(
        "{:<9} {:<6} {:<28} {:>12} {:>12} {:>12} {:>12} {:>9}\n",
        "scope", "input", "variant", "MS/s gpu", "MS/s wall", "ms gpu", "ms wall", "fast/mq"
    );
    let opt = |x: Option<f64>, d: usize| x.map_or("-".into(), |v| format!("{v:.d$}"));
    for r in records {
        s.push_str(&format!(
            "{:<9} {:<6} {:<28} {:>12} {:>12.1} {:>12} {:>12.2} {:>9}\n",
            r.scope,
            r.input,
            r.variant,
            opt(r.msamples_per_s_gpu, 1),
            r.msamples_per_s_wall,
            opt(r.seconds_gpu.map(|x| x * 1e3), 2),
            r.seconds_wall * 1e3,
            opt(r.speedup_fast_vs_all_mq, 2),
        ));
    }
    s
}
