//! The GPU HT cleanup pass (shaders/j2k/ht_cleanup.wgsl) against its CPU twin, byte for
//! byte: every block of many shapes and contents (zero, flat, noise, sparse, spikes,
//! checkerboards, every sample at the largest magnitude, full 30-bit range), the same
//! errors for blocks the coder refuses, the blocks of the GPU front end coded where they
//! lie (coefficients resident), and whole HTJ2K codestreams of the GPU path equal
//! to the CPU path's and decoded exactly by OpenJPEG, OpenJPH and Grok. Inputs stay
//! small: CI runs this on lavapipe.

mod common;

use common::j2k_images::{make, Content};
use common::j2k_judges::{decode, Judge};
use common::rng::Rng;
use parvlc::j2k::ht::encode_code_block;
use parvlc::j2k::ht::gpu::HtGpu;
use parvlc::j2k::tier1::BandOrientation;
use parvlc::j2k::{self, CodeBlockBatch, CodeBlockJob, EncoderConfig, Image, Placement, Stages};
use parvlc::Engine;

fn ht_gpu() -> HtGpu {
    let gpu = common::wgpu_engine().gpu().expect("a wgpu engine").clone();
    HtGpu::new(gpu).expect("the HT cleanup pipeline")
}

#[derive(Clone, Copy, Debug)]
enum Block {
    Zero,
    Flat(i32),
    /// Uniform magnitudes below 2^bits, random signs.
    Noise(u32),
    /// Zeros with one spike of the given value in the middle.
    Spike(i32),
    /// Zeros with a rare sample of 2^bits - 1: long MEL runs.
    Sparse(u32),
    /// Every sample at 2^bits - 1 (sign alternating with `neg`).
    AllMax(u32, bool),
    /// A checkerboard of 2^bits - 1 and 0.
    Checker(u32),
    /// Two-sided geometric: small values mostly, a few large (natural subbands).
    Laplace(u32),
}

fn coefficients(kind: Block, w: usize, h: usize, rng: &mut Rng) -> Vec<i32> {
    let n = w * h;
    let signed = |m: u32, rng: &mut Rng| {
        if rng.next() & 1 == 0 {
            m as i32
        } else {
            -(m as i32)
        }
    };
    (0..n)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            match kind {
                Block::Zero => 0,
                Block::Flat(v) => v,
                Block::Noise(bits) => {
                    let m = rng.next() & ((1u32 << bits) - 1);
                    signed(m, rng)
                }
                Block::Spike(v) => (i == n / 2) as i32 * v,
                Block::Sparse(bits) => {
                    if rng.next().is_multiple_of(61) {
                        signed((1 << bits) - 1, rng)
                    } else {
                        0
                    }
                }
                Block::AllMax(bits, neg) => {
                    let m = ((1u32 << bits) - 1) as i32;
                    if neg && (x + y) % 2 == 1 {
                        -m
                    } else {
                        m
                    }
                }
                Block::Checker(bits) => ((x + y) % 2 == 0) as i32 * ((1 << bits) - 1),
                Block::Laplace(bits) => {
                    let r = rng.next();
                    let m = (r >> (32 - bits)) >> (r.trailing_zeros().min(bits));
                    signed(m, rng)
                }
            }
        })
        .collect()
}

fn batch_of(blocks: &[(Vec<i32>, usize, usize)]) -> CodeBlockBatch {
    let mut batch = CodeBlockBatch::default();
    for (c, w, h) in blocks {
        batch.jobs.push(CodeBlockJob {
            offset: batch.coeffs.len(),
            width: *w,
            height: *h,
            band: BandOrientation::HH,
        });
        batch.coeffs.extend_from_slice(c);
    }
    batch
}

const SIZES: [(usize, usize); 13] = [
    (64, 64),
    (32, 32),
    (1, 1),
    (2, 1),
    (1, 3),
    (17, 5),
    (3, 64),
    (64, 3),
    (63, 63),
    (13, 37),
    (1024, 4),
    (7, 9),
    // The most quad pairs a block has (13 rounds of 64 in a workgroup).
    (5, 819),
];

#[test]
fn every_block_equals_the_cpu_twin() {
    every_block_equals_the_cpu_twin_on(ht_gpu(), "subgroup flavour");
}

/// The workgroup-memory flavour (its scan differs), with naga's runtime checks, as a
/// browser runs it; and blocks sharing workgroups, as a batch larger than the device's
/// grid dimension runs.
#[test]
fn every_block_equals_the_cpu_twin_in_the_workgroup_flavour_and_on_a_small_grid() {
    let gpu = common::gpu_workgroup_flavour_shared().clone();
    let ht = HtGpu::new(gpu).expect("the HT cleanup pipeline");
    every_block_equals_the_cpu_twin_on(ht, "workgroup flavour");
    // Two or three blocks a workgroup: more would spend lavapipe's 65535 loop iterations
    // an invocation (the blocks' results then say so; see the next test).
    every_block_equals_the_cpu_twin_on(ht_gpu().with_max_workgroups(97), "97 workgroups");
}

/// Where lavapipe's loop count runs out (one workgroup coding every block of a large
/// batch), the blocks it cuts short or never reaches are an error, never empty or wrong
/// blocks: the GPU front end's blocks have no host count of bit-planes to catch them.
#[test]
fn blocks_a_device_cuts_short_are_errors() {
    let mut rng = Rng(5);
    let blocks: Vec<_> = (0..12)
        .map(|_| (coefficients(Block::Noise(30), 64, 64, &mut rng), 64, 64))
        .collect();
    let batch = batch_of(&blocks);
    match pollster::block_on(ht_gpu().with_max_workgroups(1).encode(&batch)) {
        // A device without lavapipe's cap codes them all, exactly.
        Ok(got) => {
            for ((c, w, h), g) in blocks.iter().zip(&got) {
                assert_eq!(*g, encode_code_block(c, *w, *h).unwrap());
            }
        }
        Err(e) => assert!(
            e.to_string().contains("stopped the coding loops early"),
            "{e}"
        ),
    }
}

fn every_block_equals_the_cpu_twin_on(ht: HtGpu, what: &str) {
    let kinds = [
        Block::Zero,
        Block::Flat(1),
        Block::Flat(-7),
        Block::Noise(1),
        Block::Noise(8),
        Block::Noise(16),
        Block::Noise(30),
        Block::Spike(1),
        Block::Spike(-1000),
        Block::Spike((1 << 30) - 1),
        Block::Sparse(12),
        Block::AllMax(8, false),
        Block::AllMax(30, true),
        Block::Checker(12),
        Block::Laplace(9),
        Block::Laplace(20),
    ];
    let mut rng = Rng(17);
    let mut blocks = Vec::new();
    for (s, &(w, h)) in SIZES.iter().enumerate() {
        for (k, &kind) in kinds.iter().enumerate() {
            // The largest shapes with every kind would be slow on a software device:
            // they get every other kind.
            if w * h > 1500 && (s + k) % 2 == 1 {
                continue;
            }
            blocks.push((coefficients(kind, w, h, &mut rng), w, h, kind));
        }
    }
    let plain: Vec<_> = blocks
        .iter()
        .map(|(c, w, h, _)| (c.clone(), *w, *h))
        .collect();
    let batch = batch_of(&plain);
    let got = pollster::block_on(ht.encode(&batch)).unwrap();
    assert_eq!(got.len(), blocks.len());
    let mut coded = 0;
    for ((c, w, h, kind), g) in blocks.iter().zip(&got) {
        let want = encode_code_block(c, *w, *h).unwrap();
        assert_eq!(*g, want, "{w}x{h} {kind:?}, {what}");
        coded += !want.data.is_empty() as usize;
    }
    // Not all trivially empty.
    assert!(coded > blocks.len() / 2, "{coded} of {}", blocks.len());
}

#[test]
fn refused_blocks_give_the_cpu_twins_errors() {
    let gpu = ht_gpu();
    for (c, w, h) in [
        (vec![1 << 30], 1, 1),
        (vec![i32::MIN, 0], 2, 1),
        (vec![0; 5000], 100, 50),
        (vec![0; 2048], 2048, 1),
    ] {
        let want = encode_code_block(&c, w, h).unwrap_err().to_string();
        // With a good block before it: the whole batch is refused.
        let batch = batch_of(&[(vec![3, -2, 0, 1], 2, 2), (c, w, h)]);
        let got = pollster::block_on(gpu.encode(&batch))
            .unwrap_err()
            .to_string();
        assert_eq!(got, want, "{w}x{h}");
    }
    // A job past the batch's coefficients is named, not a panic.
    let mut batch = batch_of(&[(vec![1; 4], 2, 2)]);
    batch.jobs[0].offset = 2;
    let e = pollster::block_on(gpu.encode(&batch))
        .unwrap_err()
        .to_string();
    assert!(e.contains("outside the batch"), "{e}");
    // An empty batch and an all-zero batch need no dispatch.
    assert!(pollster::block_on(gpu.encode(&CodeBlockBatch::default()))
        .unwrap()
        .is_empty());
    let zeros = pollster::block_on(gpu.encode(&batch_of(&[(vec![0; 16], 4, 4)]))).unwrap();
    assert!(zeros[0].data.is_empty() && zeros[0].passes.is_empty());
}

fn encode(img: &Image, levels: u32, cblk: u32, engine: &Engine, stages: Option<Stages>) -> Vec<u8> {
    let config = EncoderConfig {
        levels,
        cblk,
        ht: true,
        stages,
        ..Default::default()
    };
    pollster::block_on(j2k::encode(img, &config, engine))
        .unwrap_or_else(|e| panic!("{}x{}: {e}", img.width, img.height))
}

fn adversarial(w: u32, h: u32, comps: u32, depth: u32, spike: bool) -> Image {
    let max = (1u32 << depth) - 1;
    let n = w * h * comps;
    let samples = (0..n)
        .map(|i| if spike { (i == n / 2) as u32 * max } else { max } as u16)
        .collect();
    Image::new(w, h, comps, depth, samples).unwrap()
}

#[test]
fn resident_blocks_from_the_gpu_front_end_equal_the_cpu_twin() {
    // The GPU front end's coefficients coded where they lie, bit-planes found on the GPU
    // (all-zero blocks included): every block as the CPU codes the CPU front end's.
    let ht = ht_gpu();
    for (img, levels, cblk) in [
        (make(33, 65, 3, 8, Content::Natural, 1), 2, 32),
        (make(100, 70, 1, 12, Content::Noise, 2), 5, 64),
        (make(64, 40, 1, 8, Content::Flat, 3), 3, 32),
        (adversarial(40, 30, 3, 12, false), 3, 64),
        (adversarial(40, 30, 1, 8, true), 2, 32),
        (make(1, 1, 1, 8, Content::Checker, 4), 0, 64),
    ] {
        let got = pollster::block_on(ht.encode_resident(&img, levels, cblk))
            .unwrap()
            .expect("the blocks fit one dispatch");
        let batch = j2k::transform_cpu(&img, levels, cblk);
        assert_eq!(got.len(), batch.jobs.len());
        let mut empty = 0;
        for (i, (g, j)) in got.iter().zip(&batch.jobs).enumerate() {
            let want = encode_code_block(batch.coeffs_of(i), j.width, j.height).unwrap();
            assert_eq!(*g, want, "{}x{} block {i}", img.width, img.height);
            empty += want.data.is_empty() as usize;
        }
        eprintln!(
            "{}x{}x{}: {} blocks, {empty} all zero",
            img.width,
            img.height,
            img.components,
            got.len()
        );
    }
}

#[test]
fn gpu_codestreams_equal_the_cpu_path_and_decode_exactly() {
    let dir = common::cli::scratch("j2k-ht-gpu", "codestreams");
    let wgpu = common::wgpu_engine();
    let mut cases = Vec::new();
    for (i, (w, h)) in [(1, 1), (17, 5), (33, 65), (100, 70)]
        .into_iter()
        .enumerate()
    {
        for (j, content) in [
            Content::Flat,
            Content::Noise,
            Content::Natural,
            Content::Checker,
        ]
        .into_iter()
        .enumerate()
        {
            let comps = if (i + j) % 2 == 0 { 1 } else { 3 };
            let depth = if j % 2 == 0 { 8 } else { 12 };
            let (levels, cblk) = [(0, 64), (2, 32), (5, 64), (3, 32)][(i + j) % 4];
            cases.push((
                make(w, h, comps, depth, content, 7 + i as u64),
                levels,
                cblk,
            ));
        }
    }
    cases.push((adversarial(40, 30, 1, 8, false), 2, 32));
    cases.push((adversarial(40, 30, 3, 12, true), 3, 64));
    cases.push((adversarial(1, 1, 1, 8, false), 0, 64));
    for (img, levels, cblk) in &cases {
        let name = format!(
            "{}x{}-c{}-d{}-l{levels}-b{cblk}",
            img.width, img.height, img.components, img.bit_depth
        );
        let cpu = encode(img, *levels, *cblk, &Engine::Cpu, None);
        // The default placement on a wgpu engine: both stages on the GPU.
        let gpu = encode(img, *levels, *cblk, wgpu, None);
        assert!(gpu == cpu, "{name}: the GPU path's codestream differs");
        // The CPU front end with the GPU HT coder, and the GPU front end with the CPU's.
        let apart = Some(Stages::new(Placement::Cpu, Placement::Gpu));
        assert!(encode(img, *levels, *cblk, wgpu, apart) == cpu, "{name}");
        let cpu_t1 = Some(Stages::new(Placement::Gpu, Placement::Cpu));
        assert!(encode(img, *levels, *cblk, wgpu, cpu_t1) == cpu, "{name}");
        for judge in Judge::ALL {
            let back = decode(judge, &dir, &name, &gpu, img.components);
            assert!(
                back == *img,
                "{name}: {} decodes other samples",
                judge.tool()
            );
        }
    }
}

#[test]
fn samples_over_the_bit_depth_are_errors_on_every_gpu_path() {
    // The GPU front end checks the samples as it uploads them (a byte a sample for 8 bits,
    // two for 12): the same error as the CPU's, and nothing coded.
    let wgpu = common::wgpu_engine();
    for (depth, bad) in [(8u32, 256u16), (12, 4096)] {
        let mut img = make(37, 29, 3, depth, Content::Natural, 9);
        let at = img.samples.len() - 5;
        img.samples[at] = bad;
        let want = format!(
            "sample {at} is {bad} but a {depth}-bit image allows at most {}",
            bad - 1
        );
        for ht in [false, true] {
            for tier1 in [Placement::Gpu, Placement::Cpu] {
                let config = EncoderConfig {
                    levels: 3,
                    cblk: 32,
                    ht,
                    stages: Some(Stages::new(Placement::Gpu, tier1)),
                    ..Default::default()
                };
                let e = pollster::block_on(j2k::encode(&img, &config, wgpu))
                    .expect_err("a sample over the bit depth")
                    .to_string();
                assert!(e.contains(&want), "ht {ht}, tier-1 {tier1:?}: {e}");
            }
        }
        let e = pollster::block_on(j2k::encode(&img, &EncoderConfig::default(), &Engine::Cpu))
            .expect_err("a sample over the bit depth")
            .to_string();
        assert!(e.contains(&want), "the CPU: {e}");
    }
}
