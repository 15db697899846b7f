//! The GPU tier-1 (shaders/j2k/tier1.wgsl) against the CPU twin, byte for byte: data,
//! pass ends, termination flags and bit-planes, for every bypass setting (Part 1's 5,
//! Part 2's 2..=4, and all passes MQ-coded), every band orientation, sizes from 1x1 to
//! 64x64 and the long thin extremes, on flat, sparse, dense, full-range and adversarial
//! content; both shader flavours, two workgroup sizes, both kernel strategies (one
//! kernel, three kernels per bit-plane), and the re-encode of blocks that outgrow their
//! planned output room.
mod common;

use parvlc::j2k::tier1::gpu::{Tier1GpuConfig, Tier1Kernels, Tier1Strategy};
use parvlc::j2k::tier1::{
    encode_code_block, BandOrientation, CodeBlockCoded, CodeBlockInput, Tier1Options,
};
use parvlc::testdata::SplitMix64;

const BANDS: [BandOrientation; 4] = [
    BandOrientation::LL,
    BandOrientation::HL,
    BandOrientation::LH,
    BandOrientation::HH,
];

const SIZES: [(usize, usize); 12] = [
    (64, 64),
    (32, 32),
    (1, 1),
    (17, 5),
    (3, 64),
    (64, 3),
    (63, 63),
    (13, 37),
    (1024, 4),
    (4, 1024),
    (33, 2),
    (7, 9),
];

/// Kinds of content.
#[derive(Clone, Copy, Debug)]
enum Content {
    Zero,
    Flat,
    Sparse,
    /// Two-sided geometric (Laplacian-like) with the given spread in bits.
    Dense(u32),
    /// Magnitudes up to 2^30, with i32::MIN and i32::MAX.
    FullRange,
    /// Every bit set below the top: raw segments of all-one bits (runs of 0xFF).
    AllOnes(u32),
    /// Stripes of large and small magnitudes: long SPP propagation chains.
    Edges,
    /// A checkerboard of 2^13 - 1 and 2^6 - 1: for seven planes the small half sits in
    /// the SPP coding zeros, then all ones (and signs): 0xFF runs inside the SPP part of
    /// raw segments, where the SPP's open pass end is read off the stuffed bytes.
    Checker,
}

fn coefficients(content: Content, w: usize, h: usize, rng: &mut SplitMix64) -> Vec<i32> {
    let n = w * h;
    let sign = |m: i32, coin: u64| if coin == 0 { m } else { -m };
    match content {
        Content::Zero => vec![0; n],
        Content::Flat => vec![sign(1 + rng.below(200) as i32, rng.below(2)); n],
        Content::Sparse => (0..n)
            .map(|_| {
                if rng.below(40) == 0 {
                    let e = rng.below(12);
                    let m = 1 + rng.below(1 << e) as i32;
                    sign(m, rng.below(2))
                } else {
                    0
                }
            })
            .collect(),
        Content::Dense(bits) => (0..n)
            .map(|_| {
                let e = rng.below(bits as u64 + 1) as u32;
                let m = rng.below(1u64 << e) as i32;
                sign(m, rng.below(2))
            })
            .collect(),
        Content::FullRange => (0..n)
            .map(|i| match i % 97 {
                0 => i32::MIN,
                1 => i32::MAX,
                _ => sign(rng.below(1 << 30) as i32, rng.below(2)),
            })
            .collect(),
        Content::AllOnes(bits) => (0..n)
            .map(|i| {
                let m = (1i32 << bits) - 1;
                if i % 5 == 0 {
                    -m
                } else {
                    m
                }
            })
            .collect(),
        Content::Edges => (0..n)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                if (x + 2 * y) % 11 < 2 {
                    sign(1 << 9 | rng.below(512) as i32, rng.below(2))
                } else if (x * 3 + y) % 7 == 0 {
                    sign(rng.below(4) as i32, rng.below(2))
                } else {
                    0
                }
            })
            .collect(),
        Content::Checker => (0..n)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                let m = if (x + y) % 2 == 0 {
                    (1 << 13) - 1
                } else {
                    (1 << 6) - 1
                };
                if i % 7 == 3 {
                    -m
                } else {
                    m
                }
            })
            .collect(),
    }
}

const CONTENTS: [Content; 10] = [
    Content::Zero,
    Content::Flat,
    Content::Sparse,
    Content::Dense(3),
    Content::Dense(10),
    Content::FullRange,
    Content::AllOnes(8),
    Content::AllOnes(13),
    Content::Edges,
    Content::Checker,
];

struct Block {
    coeffs: Vec<i32>,
    width: usize,
    height: usize,
    band: BandOrientation,
    what: String,
}

/// Every size with every content, orientations in turn, plus seeded random extras.
fn blocks(seed: u64) -> Vec<Block> {
    let mut rng = SplitMix64(seed);
    let mut out = Vec::new();
    for (si, &(w, h)) in SIZES.iter().enumerate() {
        for (ci, &content) in CONTENTS.iter().enumerate() {
            let band = BANDS[(si + ci) % 4];
            out.push(Block {
                coeffs: coefficients(content, w, h, &mut rng),
                width: w,
                height: h,
                band,
                what: format!("{w}x{h} {band:?} {content:?}"),
            });
        }
    }
    for i in 0..24 {
        let w = 1 + rng.below(64) as usize;
        let h = 1 + rng.below(64) as usize;
        let content = CONTENTS[rng.below(CONTENTS.len() as u64) as usize];
        let band = BANDS[i % 4];
        out.push(Block {
            coeffs: coefficients(content, w, h, &mut rng),
            width: w,
            height: h,
            band,
            what: format!("random {w}x{h} {band:?} {content:?}"),
        });
    }
    out
}

fn jobs(blocks: &[Block]) -> Vec<CodeBlockInput<'_>> {
    blocks
        .iter()
        .map(|b| CodeBlockInput {
            coeffs: &b.coeffs,
            width: b.width,
            height: b.height,
            band: b.band,
        })
        .collect()
}

fn first_difference(a: &CodeBlockCoded, b: &CodeBlockCoded) -> String {
    if a.num_bitplanes != b.num_bitplanes {
        return format!("bit-planes {} vs {}", a.num_bitplanes, b.num_bitplanes);
    }
    if a.data.len() != b.data.len() {
        return format!("{} bytes vs {}", a.data.len(), b.data.len());
    }
    if let Some(i) = (0..a.data.len()).find(|&i| a.data[i] != b.data[i]) {
        return format!(
            "byte {i}: {:02x} vs {:02x} (of {})",
            a.data[i],
            b.data[i],
            a.data.len()
        );
    }
    for (i, (p, q)) in a.passes.iter().zip(&b.passes).enumerate() {
        if p != q {
            return format!("pass {i}: {p:?} vs {q:?}");
        }
    }
    format!("{} passes vs {}", a.passes.len(), b.passes.len())
}

fn check(gpu: &parvlc::gpu::Gpu, config: Tier1GpuConfig, blocks: &[Block], opts: Tier1Options) {
    let tier1 = Tier1Kernels::with_config(gpu, config).expect("tier-1 pipelines");
    let got = pollster::block_on(tier1.encode_code_blocks(gpu, &jobs(blocks), &opts))
        .expect("GPU tier-1");
    assert_eq!(got.len(), blocks.len());
    let mut bad = Vec::new();
    for (b, g) in blocks.iter().zip(&got) {
        let want =
            encode_code_block(&b.coeffs, b.width, b.height, b.band, &opts).expect("CPU tier-1");
        if &want != g {
            bad.push(format!("{}: {}", b.what, first_difference(g, &want)));
        }
    }
    assert!(
        bad.is_empty(),
        "{opts:?} {config:?}: {} of {} code-blocks differ (GPU vs CPU):\n{}",
        bad.len(),
        blocks.len(),
        bad.join("\n")
    );
}

fn opts(bypass_from: Option<u32>) -> Tier1Options {
    Tier1Options { bypass_from }
}

/// The one-kernel strategy (the default chooses by the dispatch's size).
fn one_kernel() -> Tier1GpuConfig {
    Tier1GpuConfig {
        strategy: Tier1Strategy::OneKernel,
        ..Default::default()
    }
}

#[test]
fn part1_bypass_equals_cpu() {
    check(common::gpu(), one_kernel(), &blocks(1), opts(Some(5)));
}

#[test]
fn part2_early_bypass_equals_cpu() {
    for k in 1..=4 {
        check(
            common::gpu(),
            one_kernel(),
            &blocks(10 + k as u64),
            opts(Some(k)),
        );
    }
}

#[test]
fn all_mq_equals_cpu() {
    check(common::gpu(), one_kernel(), &blocks(2), opts(None));
}

#[test]
fn workgroup_flavour_and_smaller_workgroups_equal_cpu() {
    let small = Tier1GpuConfig {
        workgroup_size: 128,
        ..one_kernel()
    };
    check(
        common::gpu_workgroup_flavour(),
        one_kernel(),
        &blocks(3),
        opts(Some(5)),
    );
    check(common::gpu(), small, &blocks(4), opts(Some(3)));
    check(common::gpu(), small, &blocks(5), opts(None));
}

#[test]
fn blocks_that_outgrow_their_room_are_reencoded() {
    let tight = Tier1GpuConfig {
        block_capacity: Some(8),
        ..one_kernel()
    };
    check(common::gpu(), tight, &blocks(6), opts(Some(5)));
    check(common::gpu(), tight, &blocks(7), opts(None));
}

#[test]
fn three_kernel_strategy_equals_cpu() {
    let three = Tier1GpuConfig {
        strategy: Tier1Strategy::ThreeKernel,
        ..Default::default()
    };
    check(common::gpu(), three, &blocks(20), opts(Some(5)));
    check(common::gpu(), three, &blocks(21), opts(Some(2)));
    check(common::gpu(), three, &blocks(22), opts(None));
    let tight = Tier1GpuConfig {
        block_capacity: Some(8),
        workgroup_size: 128,
        ..three
    };
    check(
        common::gpu_workgroup_flavour(),
        tight,
        &blocks(23),
        opts(Some(4)),
    );
}

/// `Auto` takes one kernel below its threshold and three from it on: both sides forced
/// with a low threshold, each the CPU's bytes; the default threshold as documented.
#[test]
fn auto_strategy_chooses_by_block_count() {
    let auto = Tier1GpuConfig::default();
    assert_eq!(auto.strategy, Tier1Strategy::Auto);
    assert_eq!(auto.auto_split_blocks, 2_700);
    assert!(!auto.splits(2_699) && auto.splits(2_700));
    let blocks = blocks(24);
    let n = blocks.len();
    for threshold in [n as u32 + 1, n as u32] {
        let config = Tier1GpuConfig {
            auto_split_blocks: threshold,
            ..auto
        };
        assert_eq!(config.splits(n), threshold as usize <= n);
        check(common::gpu(), config, &blocks, opts(Some(5)));
    }
    assert!(!one_kernel().splits(1 << 20));
}

#[test]
fn bad_blocks_are_refused() {
    let gpu = common::gpu();
    let tier1 = Tier1Kernels::new(gpu).expect("tier-1");
    let coeffs = vec![0i32; 65 * 64];
    for (w, h, n) in [(65, 64, 65 * 64), (64, 64, 10), (0, 4, 0), (2048, 2, 4096)] {
        let job = CodeBlockInput {
            coeffs: &coeffs[..n],
            width: w,
            height: h,
            band: BandOrientation::LL,
        };
        let r = pollster::block_on(tier1.encode_code_blocks(gpu, &[job], &opts(Some(5))));
        assert!(r.is_err(), "{w}x{h} with {n} coefficients was accepted");
    }
    // Within the standard's limits, but more stripe columns (819 x 2) than the GPU coder
    // keeps state for: a clear error, not a write past its workgroup arrays.
    let job = CodeBlockInput {
        coeffs: &coeffs[..819 * 5],
        width: 819,
        height: 5,
        band: BandOrientation::LL,
    };
    match pollster::block_on(tier1.encode_code_blocks(gpu, &[job], &opts(Some(5)))) {
        Err(e) => assert!(e.to_string().contains("1638 stripe columns"), "{e}"),
        Ok(_) => panic!("819x5 was accepted"),
    }
    let job = CodeBlockInput {
        coeffs: &coeffs[..16],
        width: 4,
        height: 4,
        band: BandOrientation::LL,
    };
    assert!(pollster::block_on(tier1.encode_code_blocks(gpu, &[job], &opts(Some(0)))).is_err());
    assert!(Tier1Kernels::with_config(
        gpu,
        Tier1GpuConfig {
            workgroup_size: 64,
            ..Default::default()
        }
    )
    .is_err());
}

/// The whole encoder with the GPU tier-1 writes the very codestream the CPU tier-1 does
/// (which tests/j2k_openjpeg.rs decodes with OpenJPEG).
#[test]
fn encoder_with_gpu_tier1_writes_the_cpu_codestream() {
    use parvlc::j2k::{encode, EncoderConfig, Image, Placement, Stages};
    use parvlc::Engine;
    let gpu = pollster::block_on(parvlc::gpu::Gpu::new(Default::default())).expect("a GPU");
    let engine = Engine::from(gpu);
    // The front end on the CPU, tier-1 alone on the GPU.
    let tier1_only = Stages::new(Placement::Cpu, Placement::Gpu);
    let rgb = Image::new(150, 97, 3, 8, parvlc::testdata::synthetic_rgb(150, 97, 9)).unwrap();
    let grey_samples: Vec<u16> = parvlc::testdata::synthetic_rgb(70, 45, 3)
        .chunks(3)
        .map(|p| p[1] * 4 + p[0] / 64)
        .collect();
    let grey = Image::new(70, 45, 1, 10, grey_samples).unwrap();
    for image in [&rgb, &grey] {
        for (cblk, bypass_from) in [(64, Some(5)), (32, Some(5)), (64, None), (32, Some(3))] {
            let config = |stages| EncoderConfig {
                levels: 3,
                cblk,
                bypass_from,
                stages,
                ht: false,
            };
            let cpu = pollster::block_on(encode(image, &config(None), &Engine::Cpu)).unwrap();
            let on_gpu =
                pollster::block_on(encode(image, &config(Some(tier1_only)), &engine)).unwrap();
            assert!(
                cpu == on_gpu,
                "{}x{}x{} cblk {cblk} {bypass_from:?}: codestreams differ",
                image.width,
                image.height,
                image.components
            );
        }
    }
}
