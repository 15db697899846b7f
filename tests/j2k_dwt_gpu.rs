//! The JPEG 2000 front end on the GPU (shaders/j2k/dwt.wgsl: level shift + RCT, the 5/3
//! DWT over all levels, the gather into code-blocks) equals its CPU twin
//! (`j2k::transform_cpu`) i32 for i32: grey and RGB, 8 and 16 bits, sizes from 1x1 to
//! 257x130 (odd and even, lines of one sample), 0 to 5 levels (more than the image
//! allows too), code-blocks of 64 and 32, noise and full-range extremes. The device-
//! resident entry point leaves the same coefficients in its buffer and times its passes;
//! a codestream made with the GPU front end (alone, and with the GPU tier-1 coding the
//! coefficients where they lie, both strategies, with and without re-coded blocks) is
//! byte-identical to the CPU one and
//! `opj_decompress` gives back the source; bad input gets clear errors.

mod common;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use common::cli::opj_decompress;
use common::j2k_images::{make, Content};

use parvlc::gpu::{Gpu, GpuOptions, Profiler};
use parvlc::j2k::dwt_gpu::{self, DwtGpu, DwtPlan};
use parvlc::j2k::{self, EncoderConfig, Image, Placement, Stages};
use parvlc::Engine;

fn gpu() -> Arc<Gpu> {
    static GPU: OnceLock<Arc<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| {
        let _ = env_logger::builder().is_test(true).try_init();
        match pollster::block_on(Gpu::new(GpuOptions::default())) {
            Ok(g) => Arc::new(g),
            Err(e) => panic!(
                "tests need a GPU adapter (lavapipe: apt-get install mesa-vulkan-drivers): {e}"
            ),
        }
    })
    .clone()
}

/// Uniform noise over the full range, or (`extremes`) 0 and max in a checkerboard with
/// green opposite red and blue: the largest RCT and wavelet amplitudes.
fn image(w: u32, h: u32, comps: u32, depth: u32, extremes: bool, seed: u64) -> Image {
    let content = if extremes {
        Content::Checker
    } else {
        Content::Noise
    };
    make(w, h, comps, depth, content, seed)
}

fn first_difference(a: &[i32], b: &[i32]) -> Option<(usize, i32, i32)> {
    a.iter()
        .zip(b)
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| (i, *x, *y))
}

#[test]
fn gpu_coefficients_equal_the_cpu_twin_across_the_matrix() {
    let gpu = gpu();
    let dwt = DwtGpu::new(&gpu).unwrap();
    let mut runs = 0;
    let sizes = [
        (1, 1),
        (2, 1),
        (1, 7),
        (3, 5),
        (67, 33),
        (129, 65),
        (257, 130),
    ];
    for (si, &(w, h)) in sizes.iter().enumerate() {
        for comps in [1, 3] {
            for depth in [8, 16] {
                for levels in 0..=5 {
                    for cblk in [64, 32] {
                        // The largest sizes with every level but one block size each,
                        // to keep the run short on a software rasteriser.
                        if w > 100 && cblk == 32 && levels % 2 == 1 {
                            continue;
                        }
                        let extremes = (si + levels as usize).is_multiple_of(3);
                        let seed = (si as u64) << 16 | (comps as u64) << 8 | depth as u64;
                        let img = image(w, h, comps, depth, extremes, seed + levels as u64);
                        let want = j2k::transform_cpu(&img, levels, cblk);
                        let got =
                            pollster::block_on(dwt.transform(&gpu, &img, levels, cblk)).unwrap();
                        let name = format!(
                            "{w}x{h}x{comps} {depth}-bit, {levels} levels, cblk {cblk}, extremes {extremes}"
                        );
                        assert_eq!(got.jobs, want.jobs, "{name}");
                        assert_eq!(got.coeffs.len(), want.coeffs.len(), "{name}");
                        assert!(
                            got.coeffs == want.coeffs,
                            "{name}: first difference (index, gpu, cpu) {:?}",
                            first_difference(&got.coeffs, &want.coeffs)
                        );
                        runs += 1;
                    }
                }
            }
        }
    }
    assert!(runs > 250, "{runs} runs");
}

#[test]
fn more_levels_than_the_image_allows_still_match() {
    // The CPU twin takes the levels as given; sides reach one sample and pass through.
    let gpu = gpu();
    let dwt = DwtGpu::new(&gpu).unwrap();
    for (w, h, levels) in [(1, 1, 5), (2, 1, 4), (1, 7, 5), (3, 5, 5), (5, 2, 8)] {
        let img = image(w, h, 3, 8, false, 7 + w as u64);
        let want = j2k::transform_cpu(&img, levels, 64);
        let got = pollster::block_on(dwt.transform(&gpu, &img, levels, 64)).unwrap();
        assert_eq!(got.coeffs, want.coeffs, "{w}x{h} levels {levels}");
    }
}

#[test]
fn device_entry_point_leaves_the_batch_in_its_buffer_and_times_its_passes() {
    let gpu = gpu();
    let dwt = DwtGpu::new(&gpu).unwrap();
    let img = image(90, 47, 3, 12, false, 99);
    let plan = DwtPlan::new(&gpu, 90, 47, 3, 12, 3, 32).unwrap();
    let samples = dwt_gpu::upload_samples(&gpu, &img);
    let mut profiler = Profiler::new(&gpu, 8);
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let out = dwt
        .encode_into(&gpu, &mut encoder, &samples, &plan, Some(&mut profiler))
        .unwrap();
    profiler.resolve(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    let got = pollster::block_on(out.read(&gpu)).unwrap();
    let want = j2k::transform_cpu(&img, 3, 32);
    assert_eq!(got.jobs, want.jobs);
    assert_eq!(got.coeffs, want.coeffs);
    assert_eq!(out.bytes(), 90 * 47 * 3 * 4);
    let timings = pollster::block_on(profiler.timings(&gpu)).unwrap();
    if gpu.has_timestamps() {
        let labels: Vec<&str> = timings.passes.iter().map(|(l, _)| *l).collect();
        assert_eq!(
            labels,
            vec![dwt_gpu::PASS_RCT, dwt_gpu::PASS_DWT, dwt_gpu::PASS_GATHER]
        );
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    let gpu = gpu();
    let dwt = DwtGpu::new(&gpu).unwrap();
    let err = |r: parvlc::Result<DwtPlan>| r.unwrap_err().to_string();
    assert!(err(DwtPlan::new(&gpu, 0, 4, 1, 8, 1, 64)).contains("zero-sized"));
    assert!(err(DwtPlan::new(&gpu, 4, 4, 2, 8, 1, 64)).contains("2 components"));
    assert!(err(DwtPlan::new(&gpu, 4, 4, 1, 17, 1, 64)).contains("bit depth 17"));
    assert!(err(DwtPlan::new(&gpu, 4, 4, 1, 8, 33, 64)).contains("33 DWT levels"));
    assert!(err(DwtPlan::new(&gpu, 4, 4, 1, 8, 1, 48)).contains("code-block size 48"));
    // One binding too small for the planes: refused, naming the sizes.
    let e = err(DwtPlan::with_binding_limit(1000, 16, 16, 1, 8, 1, 64));
    assert!(e.contains("1024 bytes") && e.contains("allows 1000"), "{e}");
    assert!(DwtPlan::with_binding_limit(1024, 16, 16, 1, 8, 1, 64).is_ok());
    // A samples buffer shorter than the image.
    let small = image(4, 4, 1, 8, false, 1);
    let samples = dwt_gpu::upload_samples(&gpu, &small);
    let plan = DwtPlan::new(&gpu, 400, 400, 3, 8, 1, 64).unwrap();
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let e = dwt
        .encode_into(&gpu, &mut encoder, &samples, &plan, None)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("samples buffer"), "{e}");
    // An image whose samples do not match its geometry (the fields are public).
    let mut short = small.clone();
    short.samples.pop();
    let e = pollster::block_on(dwt.transform(&gpu, &short, 1, 64))
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs 16 samples"), "{e}");
}

#[test]
fn codestreams_with_the_gpu_front_end_equal_the_cpu_ones_and_decode_in_openjpeg() {
    let engine = Engine::Wgpu(gpu());
    let dir: PathBuf =
        std::env::temp_dir().join(format!("parvlc-j2k-dwt-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (w, h, comps, depth, levels, cblk) in [
        (67, 33, 3, 8, 5, 64),
        (129, 65, 1, 16, 5, 32),
        (1, 1, 3, 8, 5, 64),
        (3, 5, 1, 8, 5, 32),
        (40, 21, 3, 16, 2, 32),
    ] {
        let img = image(w, h, comps, depth, w == 40, 5 * w as u64 + h as u64);
        let config = |stages| EncoderConfig {
            levels,
            cblk,
            stages,
            ..Default::default()
        };
        let cpu = pollster::block_on(j2k::encode(&img, &config(None), &Engine::Cpu)).unwrap();
        // The GPU front end alone, tier-1 on the CPU.
        let front_end_only = Stages::new(Placement::Gpu, Placement::Cpu);
        let via_gpu =
            pollster::block_on(j2k::encode(&img, &config(Some(front_end_only)), &engine)).unwrap();
        // The whole GPU path, the engine's default: front end and tier-1 on the GPU,
        // tier-2 on the CPU.
        let whole = pollster::block_on(j2k::encode(&img, &config(None), &engine)).unwrap();
        let name = format!("{w}x{h}x{comps}-{depth}-l{levels}-c{cblk}");
        assert!(cpu == via_gpu, "{name}: the codestreams differ");
        assert!(
            cpu == whole,
            "{name}: the whole GPU path's codestream differs"
        );
        let ext = if comps == 1 { "pgm" } else { "ppm" };
        let input = dir.join(format!("{name}.j2k"));
        let output = dir.join(format!("{name}.{ext}"));
        std::fs::write(&input, &via_gpu).unwrap();
        let (o, log) = opj_decompress(&dir, &input, &output);
        assert!(o.status.success(), "{name}: opj_decompress failed:\n{log}");
        let decoded = Image::from_bytes(&std::fs::read(&output).unwrap()).unwrap();
        assert_eq!(
            (
                decoded.width,
                decoded.height,
                decoded.components,
                decoded.bit_depth
            ),
            (w, h, comps, depth),
            "{name}"
        );
        assert!(
            decoded.samples == img.samples,
            "{name}: opj_decompress output differs from the source"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The whole GPU path leaves the front end's coefficients on the GPU for tier-1
/// (`Tier1GpuEngine::encode_image`), its tier-1 tuned through `Stages`: the codestream equals the CPU one for both strategies, and
/// with a room of 8 bytes per block every block outgrows it and is coded again from
/// coefficients read back for it alone (the resident retry path).
#[test]
fn the_resident_whole_gpu_path_writes_the_cpu_codestream() {
    use parvlc::j2k::tier1::gpu::{Tier1GpuConfig, Tier1Strategy};
    // Its own GPU: no other test's buffers in its pool.
    let engine = Engine::from(pollster::block_on(Gpu::new(GpuOptions::default())).expect("a GPU"));
    let three = Tier1GpuConfig {
        strategy: Tier1Strategy::ThreeKernel,
        ..Default::default()
    };
    let tight = |c: Tier1GpuConfig| Tier1GpuConfig {
        block_capacity: Some(8),
        ..c
    };
    for (w, h, comps, depth, levels, cblk, bypass) in [
        (67, 33, 3, 8, 5, 64, Some(5)),
        (40, 21, 3, 16, 2, 32, None),
        (1, 1, 3, 8, 5, 64, Some(5)),
        (50, 70, 1, 12, 3, 32, Some(3)),
    ] {
        let img = image(w, h, comps, depth, w == 40, 7 * w as u64 + h as u64);
        let config = |stages| EncoderConfig {
            levels,
            cblk,
            bypass_from: bypass,
            stages,
            ht: false,
        };
        let cpu = pollster::block_on(j2k::encode(&img, &config(None), &Engine::Cpu)).unwrap();
        let one = Tier1GpuConfig {
            strategy: Tier1Strategy::OneKernel,
            ..three
        };
        for t1 in [one, three, tight(one), tight(three)] {
            let stages = Stages {
                tier1_gpu: t1,
                ..Stages::new(Placement::Gpu, Placement::Gpu)
            };
            let whole =
                pollster::block_on(j2k::encode(&img, &config(Some(stages)), &engine)).unwrap();
            assert!(
                cpu == whole,
                "{w}x{h}x{comps}-{depth} l{levels} c{cblk} {bypass:?} {t1:?}: codestreams differ"
            );
        }
    }
}
