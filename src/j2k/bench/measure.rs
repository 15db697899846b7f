//! How `parvlc bench j2k` times and checks each path: the engines and timers of its
//! rows, and the judges of their outputs (the CPU tier-1 decoded back, OpenJPEG's tools).

use std::sync::Mutex;
use std::time::Instant;

use crate::bench::{best_checked, check_same, Run, WarmUp};
use crate::gpu::{Gpu, Profiler};
use crate::j2k::dwt_gpu::{upload_samples, DwtGpu, DwtPlan, PASS_DWT, PASS_GATHER, PASS_RCT};
use crate::j2k::ht::gpu::HtGpu;
use crate::j2k::tier1::decode::decode_code_block;
use crate::j2k::tier1::gpu::{inputs_of, Tier1Kernels};
use crate::j2k::tier1::{CodeBlockCoded, Tier1Options};
use crate::j2k::{
    encode, CodeBlockBatch, CpuTier1, EncoderConfig, Image, Tier1Engine, Tier1Future,
};
use crate::{Engine, Error, Result};

use super::J2kBenchOptions;

/// An engine that keeps a copy of the batch it is given (the code-blocks of a picture,
/// as the encoder builds them) and codes it on the CPU.
pub(super) struct Capture(pub(super) Mutex<Option<CodeBlockBatch>>);

impl Tier1Engine for Capture {
    fn encode_batch<'a>(
        &'a self,
        batch: &'a CodeBlockBatch,
        opts: &'a Tier1Options,
    ) -> Tier1Future<'a> {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(batch.clone());
        }
        CpuTier1.encode_batch(batch, opts)
    }
}

/// Time `f` as [`best_checked`] does, the output unused but for `check`; the best wall time.
pub(super) fn best_wall<T>(
    runs: usize,
    warm_up: WarmUp,
    mut f: impl FnMut() -> Result<T>,
    check: impl FnOnce(T) -> Result<()>,
) -> Result<f64> {
    let b = best_checked(
        runs,
        warm_up,
        || {
            let t = Instant::now();
            let output = f()?;
            Ok(Run {
                wall: t.elapsed().as_secs_f64(),
                gpu: None,
                output,
            })
        },
        check,
    )?;
    Ok(b.wall)
}

/// Best wall time of the whole encoder on `image` and `engine` over `runs`, its output
/// checked against the reference codestream `want` byte for byte; and the codestream's bytes.
pub(super) fn time_encoder(
    what: &str,
    image: &Image,
    config: &EncoderConfig,
    engine: &Engine,
    runs: usize,
    warm_up: WarmUp,
    want: &[u8],
) -> Result<(f64, u64)> {
    let wall = best_wall(
        runs,
        warm_up,
        || pollster::block_on(encode(image, config, engine)),
        |cs| check_same(what, "byte", &cs, want),
    )?;
    Ok((wall, want.len() as u64))
}

pub(super) fn coded_bytes(coded: &[CodeBlockCoded]) -> u64 {
    coded.iter().map(|c| c.data.len() as u64).sum()
}

/// An error unless every code-block of `coded` decodes to its coefficients in `batch`:
/// the check of the CPU tier-1 that every other tier-1 is compared with.
pub fn check_decodes(
    what: &str,
    batch: &CodeBlockBatch,
    coded: &[CodeBlockCoded],
    opts: &Tier1Options,
) -> Result<()> {
    use rayon::prelude::*;
    if coded.len() != batch.jobs.len() {
        return Err(Error::BenchMismatch(format!(
            "{what}: {} code-blocks coded for {} jobs",
            coded.len(),
            batch.jobs.len()
        )));
    }
    let bad = (0..coded.len()).into_par_iter().find_first(|&i| {
        let j = &batch.jobs[i];
        decode_code_block(&coded[i], j.width, j.height, j.band, opts)
            .map_or(true, |c| c != batch.coeffs_of(i))
    });
    match bad {
        None => Ok(()),
        Some(i) => Err(Error::BenchMismatch(format!(
            "{what}: code-block {i} does not decode to its coefficients"
        ))),
    }
}

/// An error unless the front end's `got` is the CPU front end's batch.
pub(super) fn check_batch(what: &str, got: &CodeBlockBatch, want: &CodeBlockBatch) -> Result<()> {
    check_same(what, "code-block job", &got.jobs, &want.jobs)?;
    check_same(what, "coefficient", &got.coeffs, &want.coeffs)
}

/// The GPU tier-1 on a resident batch: the best kernel time (None without timestamp
/// queries) and the best wall time host to host, each path's output checked against the
/// CPU tier-1's `want`; and the coded bytes.
pub(super) fn time_gpu_tier1(
    what: &str,
    gpu: &Gpu,
    tier1: &Tier1Kernels,
    batch: &CodeBlockBatch,
    opts: &Tier1Options,
    options: &J2kBenchOptions,
    want: &[CodeBlockCoded],
) -> Result<(Option<f64>, f64, u64)> {
    let (runs, warm_up) = (options.runs, options.gpu_warm_up());
    let jobs = inputs_of(batch);
    let resident = tier1.upload(gpu, &jobs, opts)?;
    // Warm-up: pipelines built, buffers pooled.
    pollster::block_on(tier1.encode_code_blocks(gpu, &jobs, opts))?;
    // The kernels alone. Blocks that outgrow their planned room come back as `Err` here
    // (the host-to-host path codes them again with more room); the others must match.
    let kernel = best_checked(
        runs,
        warm_up,
        || {
            timed_submission(gpu, "tier1", |encoder, profiler| {
                tier1.encode_into(gpu, &resident, encoder, Some(profiler))
            })
        },
        |()| {
            let got = pollster::block_on(tier1.finish(gpu, &resident))?;
            let outgrown = got.iter().filter(|r| r.is_err()).count();
            if outgrown > 0 {
                log::info!("{what}: {outgrown} code-blocks outgrew their room in the kernel run");
            }
            let bad = got
                .iter()
                .zip(want)
                .position(|(g, w)| g.as_ref().is_ok_and(|g| g != w));
            match bad {
                None if got.len() == want.len() => Ok(()),
                None => Err(Error::BenchMismatch(format!(
                    "{what} kernels: {} code-blocks for {}",
                    got.len(),
                    want.len()
                ))),
                Some(i) => Err(Error::BenchMismatch(format!(
                    "{what} kernels: code-block {i} differs from the CPU tier-1's"
                ))),
            }
        },
    )?;
    let wall = best_wall(
        runs,
        warm_up,
        || pollster::block_on(tier1.encode_code_blocks(gpu, &jobs, opts)),
        |coded| check_same(what, "code-block", &coded, want),
    )?;
    Ok((kernel.gpu, wall, coded_bytes(want)))
}

/// One submission of what `record` puts into a fresh encoder, timed: its wall time to
/// idle, and the GPU time of the profiler pass `pass` (None without timestamp queries).
fn timed_submission(
    gpu: &Gpu,
    pass: &str,
    record: impl FnOnce(&mut wgpu::CommandEncoder, &mut Profiler) -> Result<()>,
) -> Result<Run<()>> {
    let mut profiler = Profiler::new(gpu, 8);
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("parvlc.bench.j2k"),
        });
    let t = Instant::now();
    record(&mut encoder, &mut profiler)?;
    profiler.resolve(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    gpu.wait_idle()?;
    let wall = t.elapsed().as_secs_f64();
    let timings = pollster::block_on(profiler.timings(gpu))?;
    let gpu_s = (!timings.passes.is_empty()).then(|| timings.get(pass));
    Ok(Run {
        wall,
        gpu: gpu_s,
        output: (),
    })
}

/// The GPU HT cleanup stage on the batch: the best kernel time (None without timestamp
/// queries; the blocks uploaded once) and the best wall time host to host (check, upload,
/// dispatch, readback), each checked against the CPU HT coder's `want`.
pub(super) fn time_gpu_ht(
    gpu: &Gpu,
    ht: &HtGpu,
    batch: &CodeBlockBatch,
    options: &J2kBenchOptions,
    want: &[CodeBlockCoded],
) -> Result<(Option<f64>, f64)> {
    let (runs, warm_up) = (options.runs, options.gpu_warm_up());
    let what = "ht_cleanup";
    let resident = ht.prepare(batch)?;
    let kernel = best_checked(
        runs,
        warm_up,
        || {
            timed_submission(gpu, "ht_cleanup", |encoder, profiler| {
                resident.record(ht, encoder, Some(profiler))
            })
        },
        |()| {
            let got = pollster::block_on(ht.read(&resident, None))?;
            check_same(what, "code-block", &got, want)
        },
    )?;
    let wall = best_wall(
        runs,
        warm_up,
        || pollster::block_on(ht.encode(batch)),
        |coded| check_same(what, "code-block", &coded, want),
    )?;
    Ok((kernel.gpu, wall))
}

/// Kernel seconds per profiler pass label.
type PassTimes = Vec<(String, f64)>;

/// The GPU front end on `image`: the best run's kernel seconds per pass (samples
/// resident; None without timestamp queries) and the best wall time host to host (upload,
/// passes, readback of the batch), each path's output checked against the CPU front
/// end's `want`.
pub(super) fn time_gpu_front_end(
    gpu: &Gpu,
    image: &Image,
    levels: u32,
    cblk: u32,
    options: &J2kBenchOptions,
    want: &CodeBlockBatch,
) -> Result<(Option<PassTimes>, f64, u64)> {
    let (runs, warm_up) = (options.runs, options.gpu_warm_up());
    let dwt = DwtGpu::new(gpu)?;
    let plan = DwtPlan::for_image(gpu, image, levels, cblk)?;
    let samples = upload_samples(gpu, image);
    // Warm-up (buffers pooled), and the check of the resident path's output.
    let (coeffs, _) = pollster::block_on(dwt.profile(gpu, &samples, &plan))?;
    check_batch(
        "dwt-gpu (resident)",
        &pollster::block_on(coeffs.read(gpu))?,
        want,
    )?;
    drop(coeffs);
    warm_up.keep_busy(|| pollster::block_on(dwt.profile(gpu, &samples, &plan)).map(drop))?;
    let mut best_passes: Option<PassTimes> = None;
    let mut best_sum = f64::INFINITY;
    for _ in 0..runs.max(1) {
        let (_coeffs, timings) = pollster::block_on(dwt.profile(gpu, &samples, &plan))?;
        if timings.passes.is_empty() {
            continue;
        }
        let passes: Vec<(String, f64)> = [PASS_RCT, PASS_DWT, PASS_GATHER]
            .iter()
            .map(|&l| (l.to_string(), timings.get(l)))
            .collect();
        let sum: f64 = passes.iter().map(|(_, s)| s).sum();
        if sum < best_sum {
            best_sum = sum;
            best_passes = Some(passes);
        }
    }
    let wall = best_wall(
        runs,
        warm_up,
        || pollster::block_on(dwt.transform(gpu, image, levels, cblk)),
        |batch| check_batch("dwt-gpu", &batch, want),
    )?;
    Ok((best_passes, wall, want.coeffs.len() as u64 * 4))
}

/// Whether `opj_decompress` gives back `image` from `codestream`: None where it cannot be
/// run (not on PATH), else an error naming `what` unless the samples are equal.
pub(super) fn opj_decodes(image: &Image, codestream: &[u8], what: &str) -> Option<Result<()>> {
    let dir = std::env::temp_dir().join(format!("parvlc-bench-j2k-dec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let input = dir.join("in.j2k");
    let output = dir.join(if image.components == 1 {
        "out.pgm"
    } else {
        "out.ppm"
    });
    std::fs::write(&input, codestream).ok()?;
    let status = std::process::Command::new("opj_decompress")
        .arg("-i")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    let decoded = std::fs::read(&output);
    let _ = std::fs::remove_dir_all(&dir);
    let mismatch = |why: String| Some(Err(Error::BenchMismatch(format!("{what}: {why}"))));
    if !status.success() {
        return mismatch("opj_decompress refuses its codestream".into());
    }
    let decoded = match decoded
        .map_err(|e| e.to_string())
        .and_then(|d| Image::from_bytes(&d).map_err(|e| e.to_string()))
    {
        Ok(d) => d,
        Err(e) => return mismatch(format!("opj_decompress's output unreadable: {e}")),
    };
    if (decoded.width, decoded.height, decoded.components)
        != (image.width, image.height, image.components)
        || decoded.samples != image.samples
    {
        return mismatch("opj_decompress gives back other samples than the source".into());
    }
    Some(Ok(()))
}

/// `opj_compress -M 1` on all threads: the best wall time and its codestream's bytes, the
/// codestream decoded by `opj_decompress` and compared with the picture; None where it
/// cannot be run.
pub(super) fn opj_compress_seconds(
    image: &Image,
    options: &J2kBenchOptions,
    runs: usize,
) -> Option<Result<(f64, u64)>> {
    let dir = std::env::temp_dir().join(format!("parvlc-bench-j2k-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let ppm = dir.join("in.ppm");
    std::fs::write(&ppm, image.to_pnm()).ok()?;
    let out = dir.join("out.j2k");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cblk = format!("{0},{0}", options.cblk);
    let resolutions = (options.levels + 1).to_string();
    let run = || -> Option<f64> {
        let t = Instant::now();
        let status = std::process::Command::new("opj_compress")
            .arg("-i")
            .arg(&ppm)
            .arg("-o")
            .arg(&out)
            .args(["-M", "1", "-n", &resolutions, "-b", &cblk])
            .args(["-threads", &threads.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .ok()?;
        status.success().then(|| t.elapsed().as_secs_f64())
    };
    let mut best = None::<f64>;
    for _ in 0..runs.max(1) {
        let s = run()?;
        best = Some(best.map_or(s, |b| b.min(s)));
    }
    let codestream = std::fs::read(&out).ok();
    let _ = std::fs::remove_dir_all(&dir);
    let codestream = codestream?;
    let checked = opj_decodes(image, &codestream, "opj_compress")?;
    Some(checked.map(|()| (best.unwrap_or(f64::INFINITY), codestream.len() as u64)))
}
