//! Every GPU stage through the one trait, [`GpuStage`]: one check written once and run
//! for each stage family on seeded inputs (the GPU's `encode` equals the CPU twin's `cpu`
//! bit for bit), and two stages recorded into one caller-owned command encoder and
//! submitted once (`encode_into` composes).
mod common;

use std::fmt::Debug;

use common::j2k_images::{make, Content};
use common::serial;
use parvlc::bitstuff::{BitstuffConfig, BitstuffStage, RawBits, Stuffer, Termination};
use parvlc::cavlc::testframes::RandomFrame;
use parvlc::cavlc::{CavlcGpu, GpuVariant};
use parvlc::gpu::gather::{GatherInput, GatherStage};
use parvlc::gpu::{Gpu, GpuStage};
use parvlc::huffman::block_crc::BlockCrcStage;
use parvlc::huffman::bytestream::{BytestreamConfig, BytestreamEncoder};
use parvlc::huffman::compress::Format;
use parvlc::huffman::cuvle::{CuvleConfig, CuvleInput, VleEncoder};
use parvlc::huffman::frame_plan::FramePlanStage;
use parvlc::huffman::framed::{FrameSpec, FramedInput, FramedStage, Framing};
use parvlc::huffman::frames::FrameConfig;
use parvlc::huffman::histogram::HistogramStage;
use parvlc::huffman::pavle::{PavleConfig, PavleEncoder};
use parvlc::huffman::vld::{VldDecoder, VldFrame, VldTables};
use parvlc::huffman::BitOrder;
use parvlc::j2k::dwt_gpu::{DwtGpu, DwtStage};
use parvlc::j2k::ht::gpu::HtGpu;
use parvlc::j2k::tier1::gpu::Tier1Kernels;
use parvlc::j2k::tier1::{BandOrientation, CodeBlockInput, Tier1Options};
use parvlc::scan::{ScanConfig, ScanStage};
use parvlc::testdata::{self, SplitMix64};

/// The one check: GPU == CPU twin on `input`.
fn check<S>(what: &str, stage: &S, input: &S::Input<'_>)
where
    S: GpuStage,
    S::Output: PartialEq + Debug,
{
    let gpu = pollster::block_on(stage.encode(input))
        .unwrap_or_else(|e| panic!("{what}: GPU encode failed: {e}"));
    let cpu = stage
        .cpu(input)
        .unwrap_or_else(|e| panic!("{what}: CPU twin failed: {e}"));
    assert!(gpu == cpu, "{what}: GPU and CPU twin differ");
}

fn cuvle_data(seed: u64) -> Vec<u8> {
    let len = 1 + SplitMix64(seed).below(20_000) as usize;
    testdata::generate(len, 1.0 + (seed % 7) as f64, seed)
}

fn segments(seed: u64) -> Vec<Vec<u8>> {
    let mut rng = SplitMix64(seed);
    (0..1 + rng.below(40))
        .map(|_| {
            let n = rng.below(200) as usize;
            // Runs of 0xFF so that stuffing has work to do.
            (0..n)
                .map(|_| match rng.below(4) {
                    0 | 1 => 0xFF,
                    _ => rng.next_u64() as u8,
                })
                .collect()
        })
        .collect()
}

fn views(segs: &[Vec<u8>]) -> Vec<RawBits<'_>> {
    segs.iter().map(|s| RawBits::bytes(s)).collect()
}

/// Code-blocks of seeded sizes, bands and magnitudes.
fn blocks(seed: u64) -> Vec<(Vec<i32>, usize, usize, BandOrientation)> {
    let mut rng = SplitMix64(seed);
    let bands = [
        BandOrientation::LL,
        BandOrientation::HL,
        BandOrientation::LH,
        BandOrientation::HH,
    ];
    (0..1 + rng.below(6))
        .map(|_| {
            let (w, h) = (1 + rng.below(32) as usize, 1 + rng.below(32) as usize);
            let bits = 1 + rng.below(12) as u32;
            let coeffs = (0..w * h)
                .map(|_| (rng.below(1 << bits) as i32) - (1 << (bits - 1)))
                .collect();
            (coeffs, w, h, bands[rng.below(4) as usize])
        })
        .collect()
}

fn block_inputs(b: &[(Vec<i32>, usize, usize, BandOrientation)]) -> Vec<CodeBlockInput<'_>> {
    b.iter()
        .map(|(coeffs, width, height, band)| CodeBlockInput {
            coeffs,
            width: *width,
            height: *height,
            band: *band,
        })
        .collect()
}

fn gpu() -> &'static Gpu {
    common::gpu()
}

/// The blocks as one tier-1 batch, coefficients back to back.
fn block_batch(b: &[(Vec<i32>, usize, usize, BandOrientation)]) -> parvlc::j2k::CodeBlockBatch {
    let mut batch = parvlc::j2k::CodeBlockBatch::default();
    for (coeffs, width, height, band) in b {
        batch.jobs.push(parvlc::j2k::CodeBlockJob {
            offset: batch.coeffs.len(),
            width: *width,
            height: *height,
            band: *band,
        });
        batch.coeffs.extend_from_slice(coeffs);
    }
    batch
}

#[test]
fn cuvle_equals_its_twin() {
    let _s = serial();
    let encoder = VleEncoder::new(gpu(), CuvleConfig::default()).unwrap();
    for seed in 0..3 {
        let data = cuvle_data(seed);
        let table = common::table_for(&data, 16);
        for order in [BitOrder::MsbFirst, BitOrder::LsbFirst] {
            let input = CuvleInput {
                data: &data,
                table: &table,
                order,
                start_bit: (seed * 11 % 32) as u32,
            };
            check(&format!("cuvle seed {seed} {order:?}"), &encoder, &input);
        }
    }
}

/// Blocks of 1 KiB in windows of 2 KiB: an input of a few KiB is uploaded in many.
fn small_windows() -> CuvleConfig {
    CuvleConfig {
        net: 4,
        max_segment_bytes: Some(2048),
        scan: ScanConfig {
            workgroup_size: 64,
            ..ScanConfig::default()
        },
        ..CuvleConfig::default()
    }
}

#[test]
fn histogram_equals_its_twin() {
    let _s = serial();
    // The default chunks, and 2 KiB chunks in 2 KiB windows: many of each.
    for config in [CuvleConfig::default(), small_windows()] {
        let encoder = VleEncoder::new(gpu(), config).unwrap();
        for seed in 0..3 {
            check(
                &format!("histogram seed {seed}"),
                &HistogramStage(&encoder),
                &cuvle_data(seed)[..],
            );
        }
        check("histogram of nothing", &HistogramStage(&encoder), &[][..]);
    }
}

/// The gather stage: seeded spans of seeded lengths (empty ones among them, spans that
/// overlap and repeat, more spans than a workgroup's invocations and spans longer than a
/// workgroup), spans of no words, and a source of no words.
#[test]
fn gather_equals_its_twin() {
    let _s = serial();
    for seed in 0..4u64 {
        let mut rng = SplitMix64(seed);
        let source: Vec<u32> = (0..1 + rng.below(5000))
            .map(|_| rng.next_u64() as u32)
            .collect();
        let spans: Vec<(u32, u32)> = (0..rng.below(300))
            .map(|_| {
                let at = rng.below(source.len() as u64);
                let words = rng.below((source.len() as u64 - at).min(400) + 1);
                (at as u32, words as u32)
            })
            .collect();
        check(
            &format!("gather seed {seed}, {} spans", spans.len()),
            &GatherStage(gpu()),
            &GatherInput {
                source: &source,
                spans: &spans,
            },
        );
    }
    let source = [7u32, 8, 9];
    check(
        "gather of empty spans",
        &GatherStage(gpu()),
        &GatherInput {
            source: &source,
            spans: &[(0, 0), (3, 0)],
        },
    );
    check(
        "gather from nothing",
        &GatherStage(gpu()),
        &GatherInput {
            source: &[],
            spans: &[],
        },
    );
    let past = GatherInput {
        source: &source,
        spans: &[(2, 2)],
    };
    assert!(pollster::block_on(GatherStage(gpu()).encode(&past)).is_err());
    assert!(GatherStage(gpu()).cpu(&past).is_err());
}

/// Bytes of one value per run, the `i`th value `fib(i)` times: a plain Huffman code of
/// them is `runs - 1` bits deep, past the frames' 15-bit limit from 17 runs on.
fn fibonacci_bytes(runs: usize) -> Vec<u8> {
    let (mut a, mut b) = (1usize, 1usize);
    let mut out = Vec::new();
    for v in 0..runs {
        out.extend(std::iter::repeat_n(v as u8 * 7, a));
        (a, b) = (b, a + b);
    }
    out
}

/// The frame plan (cells merged into frames, each frame's code lengths) in both flavours
/// of its reductions: seeded data of mixed entropies in regions of several cells, a last
/// cell cut short, every cell a frame (`fixed`), one-symbol frames, counts that tie, and
/// frames whose plain code is too deep (the host builds those: a GPU length past 15 bits
/// would differ from the twin's).
/// The frame plan's cases: inputs with the merged and the fixed configuration, and one
/// input whose single frame is too deep, with its configuration.
struct FramePlanCases {
    inputs: Vec<(String, Vec<u8>)>,
    config: FrameConfig,
    fixed: FrameConfig,
    deep: Vec<u8>,
    big: FrameConfig,
}

fn frame_plan_cases() -> FramePlanCases {
    let cell = 4096u64;
    let config = FrameConfig {
        cell_bytes: cell,
        max_frame_bytes: 4 * cell,
        fixed: false,
    };
    let fixed = FrameConfig {
        fixed: true,
        ..config
    };
    let mut mixed = Vec::new();
    for k in 0..12u64 {
        mixed.extend(testdata::generate(
            2500 + 1000 * k as usize,
            1.0 + (k % 7) as f64,
            k,
        ));
    }
    // Counts that tie: every byte value as often, and counts of powers of two, whose
    // nodes weigh as much as leaves (the twin takes the leaf first).
    let uniform: Vec<u8> = (0..4 * cell as usize).map(|i| i as u8).collect();
    let powers: Vec<u8> = (0..=255u8)
        .flat_map(|s| std::iter::repeat_n(s, 1 << (s % 6)))
        .collect();
    let mut inputs = vec![
        ("mixed".to_string(), mixed),
        ("one byte".into(), vec![9u8; 3 * cell as usize + 5]),
        ("three bytes".into(), vec![1, 2, 3]),
        ("every byte as often".into(), uniform),
        ("counts of powers of two".into(), powers),
    ];
    for seed in 0..3 {
        inputs.push((format!("seed {seed}"), cuvle_data(seed)));
    }
    // One frame of 21 runs: 20 bits deep as plain Huffman.
    let deep = fibonacci_bytes(21);
    let big = FrameConfig {
        cell_bytes: 1 << 15,
        max_frame_bytes: 1 << 15,
        fixed: false,
    };
    assert!(deep.len() < 1 << 15);
    FramePlanCases {
        inputs,
        config,
        fixed,
        deep,
        big,
    }
}

/// The frame plan (cells merged into frames, each frame's code lengths) in both flavours
/// of its reductions: seeded data of mixed entropies in regions of several cells, a last
/// cell cut short, every cell a frame (`fixed`), one-symbol frames, counts that tie, and
/// frames whose plain code is too deep (the host builds those: a GPU length past 15 bits
/// would differ from the twin's).
#[test]
fn frame_plan_equals_its_twin() {
    let _s = serial();
    let cases = frame_plan_cases();
    for (gpu, flavour) in [
        (gpu(), "subgroup"),
        (common::gpu_workgroup_flavour(), "workgroup"),
    ] {
        let encoder = VleEncoder::new(gpu, small_windows())
            .unwrap()
            .with_chunk_bytes(cases.config.cell_bytes)
            .unwrap();
        for (name, data) in &cases.inputs {
            for format in [Format::Native, Format::Gzip] {
                for (how, frames) in [("merged", cases.config), ("fixed", cases.fixed)] {
                    check(
                        &format!("frame plan of {name}, {format:?}, {how}, {flavour}"),
                        &FramePlanStage(&encoder, format, frames),
                        &data[..],
                    );
                }
            }
        }
        let encoder = VleEncoder::new(gpu, small_windows())
            .unwrap()
            .with_chunk_bytes(cases.big.cell_bytes)
            .unwrap();
        for format in [Format::Native, Format::Gzip] {
            check(
                &format!("frame plan of a too-deep code, {format:?}, {flavour}"),
                &FramePlanStage(&encoder, format, cases.big),
                &cases.deep[..],
            );
        }
    }
}

/// The CUDA twin (shaders/cuda/frame_plan.cu) on the same cases, as the CUDA stream coder
/// reads its plan. Runs where a CUDA driver and NVRTC are (PARVLC_REQUIRE_CUDA=1 makes
/// their absence a failure).
#[cfg(feature = "cuda")]
#[test]
fn frame_plan_cuda_equals_its_twin() {
    use parvlc::cuda::CudaVleEncoder;
    use parvlc::huffman::frame_plan::plan_summaries_cpu;
    let _s = serial();
    let Some(cuda) = common::cuda() else {
        return;
    };
    let cases = frame_plan_cases();
    let mut runs: Vec<(String, &[u8], FrameConfig)> = Vec::new();
    for (name, data) in &cases.inputs {
        runs.push((format!("{name}, merged"), data, cases.config));
        runs.push((format!("{name}, fixed"), data, cases.fixed));
    }
    runs.push(("a too-deep code".into(), &cases.deep, cases.big));
    for (what, data, frames) in runs {
        let encoder = CudaVleEncoder::new(cuda, small_windows())
            .unwrap()
            .with_chunk_bytes(frames.cell_bytes)
            .unwrap();
        let input = encoder.upload(data).unwrap();
        for format in [Format::Native, Format::Gzip] {
            let got = encoder
                .frame_plan_summaries(&input, format, &frames)
                .unwrap_or_else(|e| panic!("{what}, {format:?}: {e}"));
            let want = plan_summaries_cpu(data, format, &frames).unwrap();
            assert!(got == want, "{what}, {format:?}: CUDA and CPU twin differ");
        }
    }
}

/// Code lengths of a complete code: `unused` symbols, then `counts` (length, symbols of
/// it), arranged so that no two neighbours are equal (each one a code-length symbol of its
/// own, none folded into a repeat): the most numerous length but the last placed, the
/// longer on a tie.
fn arranged_code(counts: &[(u8, u64)], unused: usize) -> Vec<u8> {
    let kraft: u64 = counts.iter().map(|&(l, n)| n << (15 - l)).sum();
    assert_eq!(kraft, 1 << 15);
    let mut counts = counts.to_vec();
    let mut lengths = vec![0u8; unused];
    let mut last = 0;
    while counts.iter().any(|c| c.1 > 0) {
        let (l, n) = counts
            .iter_mut()
            .filter(|c| c.1 > 0 && c.0 != last)
            .max_by_key(|c| (c.1, c.0))
            .expect("a length other than the last remains");
        lengths.push(*l);
        *n -= 1;
        last = *l;
    }
    assert_eq!(lengths.len(), 257);
    lengths
}

/// A code whose DEFLATE header's code-length code is deeper than 7 bits as plain Huffman,
/// so that the header's builders take package-merge: lengths whose counts grow like
/// Fibonacci's numbers.
fn deep_code_length_code() -> Vec<u8> {
    arranged_code(
        &[
            (2, 2),
            (4, 3),
            (5, 5),
            (6, 2),
            (7, 13),
            (8, 2),
            (10, 1),
            (11, 2),
            (13, 89),
            (15, 92),
        ],
        46,
    )
}

/// A code whose code-length code, by package-merge, depends on the tie rule: a leaf weighs
/// as much as a package, and taking the leaf first (as code_lengths.rs does) gives other
/// lengths than taking the package.
fn code_length_code_with_a_tie() -> Vec<u8> {
    arranged_code(
        &[
            (3, 4),
            (5, 1),
            (6, 8),
            (7, 8),
            (8, 55),
            (9, 4),
            (10, 34),
            (11, 4),
            (12, 89),
            (13, 3),
            (14, 8),
            (15, 28),
        ],
        11,
    )
}

/// The header stages' cases (below): literal/length code lengths, the last one past 15
/// bits.
fn deflate_head_sets() -> Vec<Vec<u8>> {
    use parvlc::huffman::gzip::literal_frequencies;
    use parvlc::huffman::Codebook;
    let code_of = |data: &[u8]| {
        let mut hist = [0u64; 256];
        for &b in data {
            hist[b as usize] += 1;
        }
        Codebook::from_frequencies(&literal_frequencies(&hist), 15)
            .unwrap()
            .lengths()
            .to_vec()
    };
    let mut sets: Vec<Vec<u8>> = (0..16u64)
        .map(|k| code_of(&testdata::generate(5000, 0.5 * k as f64, k)))
        .collect();
    sets.push(code_of(&[7u8; 100]));
    sets.push(code_of(&(0..=255u8).collect::<Vec<_>>()));
    sets.push(code_of(
        &(0..=255u8)
            .flat_map(|s| std::iter::repeat_n(s, 1 << (s % 6)))
            .collect::<Vec<_>>(),
    ));
    sets.push(code_of(&fibonacci_bytes(16)));
    sets.push(deep_code_length_code());
    sets.push(code_length_code_with_a_tie());
    let mut too_deep = vec![0u8; 257];
    too_deep[..18].copy_from_slice(&[
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 17,
    ]);
    sets.push(too_deep);
    sets
}

/// DEFLATE block headers from code lengths as the frame plan lays them out: codes of
/// seeded data of every entropy, of one byte value (long runs of unused symbols), of all
/// 256 values alike (one long repeat), of counts in powers of two, of Fibonacci counts
/// (15-bit codes), code-length codes past 7 bits (package-merge, one with a tie between a
/// leaf and a package) and a code past 15 bits (no GPU header: the host builds it).
#[test]
fn deflate_head_equals_its_twin() {
    use parvlc::huffman::deflate_head::DeflateHeadStage;
    let _s = serial();
    let sets = deflate_head_sets();
    for (gpu, flavour) in [
        (gpu(), "subgroup"),
        (common::gpu_workgroup_flavour(), "workgroup"),
    ] {
        let stage = DeflateHeadStage(gpu);
        let heads = pollster::block_on(stage.encode(&sets[..])).unwrap();
        assert!(
            heads[..sets.len() - 1].iter().all(Option::is_some),
            "{flavour}"
        );
        assert!(heads[sets.len() - 1].is_none(), "{flavour}");
        check_sets(&format!("DEFLATE headers, {flavour}"), &stage, &sets);
    }
}

/// A stage of code-length sets against its twin on all of `sets` at once, then on each
/// alone.
fn check_sets<S>(what: &str, stage: &S, sets: &[Vec<u8>])
where
    S: for<'a> GpuStage<Input<'a> = [Vec<u8>]>,
    S::Output: PartialEq + Debug,
{
    check(what, stage, sets);
    for (k, set) in sets.iter().enumerate() {
        check(
            &format!("{what}: set {k} alone"),
            stage,
            std::slice::from_ref(set),
        );
    }
}

/// The frames' code tables from code lengths as the frame plan lays them out (the
/// header stages' cases: codes of every entropy, incomplete one-symbol codes, 15-bit
/// codes by the hundred), word for word the CPU's canonical codes; none for the code past
/// 15 bits (the host builds its table).
#[test]
fn frame_tables_equal_their_twin() {
    use parvlc::huffman::frame_tables::FrameTablesStage;
    let _s = serial();
    let sets = deflate_head_sets();
    for (gpu, flavour) in [
        (gpu(), "subgroup"),
        (common::gpu_workgroup_flavour(), "workgroup"),
    ] {
        let stage = FrameTablesStage(gpu);
        let tables = pollster::block_on(stage.encode(&sets[..])).unwrap();
        assert!(
            tables[..sets.len() - 1].iter().all(Option::is_some),
            "{flavour}"
        );
        assert!(tables[sets.len() - 1].is_none(), "{flavour}");
        check_sets(&format!("frame tables, {flavour}"), &stage, &sets);
    }
}

/// The CUDA twin (shaders/cuda/frame_tables.cu) on the same cases, all at once and each
/// alone. Runs where a CUDA driver and NVRTC are (PARVLC_REQUIRE_CUDA=1 makes their
/// absence a failure).
#[cfg(feature = "cuda")]
#[test]
fn frame_tables_cuda_equal_their_twin() {
    use parvlc::cuda::CudaVleEncoder;
    use parvlc::huffman::frame_tables::frame_tables_cpu;
    let _s = serial();
    let Some(cuda) = common::cuda() else {
        return;
    };
    let encoder = CudaVleEncoder::new(cuda, small_windows()).unwrap();
    let sets = deflate_head_sets();
    let want = frame_tables_cpu(&sets).unwrap();
    assert!(want[..sets.len() - 1].iter().all(Option::is_some));
    assert!(want[sets.len() - 1].is_none());
    check_cuda_sets(&sets, &want, |s| encoder.frame_tables(s));
}

/// The CUDA twin (shaders/cuda/deflate_head.cu) on the same cases, all at once and each
/// alone: the CPU twin's headers bit for bit, none for the code past 15 bits. Runs where
/// a CUDA driver and NVRTC are (PARVLC_REQUIRE_CUDA=1 makes their absence a failure).
#[cfg(feature = "cuda")]
#[test]
fn deflate_head_cuda_equals_its_twin() {
    use parvlc::cuda::CudaVleEncoder;
    use parvlc::huffman::deflate_head::deflate_heads_cpu;
    let _s = serial();
    let Some(cuda) = common::cuda() else {
        return;
    };
    let encoder = CudaVleEncoder::new(cuda, small_windows()).unwrap();
    let sets = deflate_head_sets();
    let want = deflate_heads_cpu(&sets).unwrap();
    assert!(want[..sets.len() - 1].iter().all(Option::is_some));
    assert!(want[sets.len() - 1].is_none());
    check_cuda_sets(&sets, &want, |s| encoder.deflate_heads(s));
}

/// A CUDA stage of code-length sets (`run`) against its twin's results (`want`) on all
/// of `sets` at once, then on each alone.
#[cfg(feature = "cuda")]
fn check_cuda_sets<T: PartialEq>(
    sets: &[Vec<u8>],
    want: &[T],
    run: impl Fn(&[Vec<u8>]) -> parvlc::Result<Vec<T>>,
) {
    assert!(run(sets).unwrap() == want, "all sets at once");
    for (k, set) in sets.iter().enumerate() {
        let got = run(std::slice::from_ref(set)).unwrap();
        assert!(got[..] == want[k..k + 1], "set {k} alone");
    }
}

/// Block CRC32s: blocks that do and do not divide the input or a word, an input of fewer
/// bytes than a word, and one of several windows (2 KiB windows, 1 KiB blocks).
#[test]
fn block_crc_equals_its_twin() {
    let _s = serial();
    let encoder = VleEncoder::new(gpu(), CuvleConfig::default()).unwrap();
    for seed in 0..3 {
        let data = cuvle_data(seed);
        for block in [4u64, 512, 1028, 4096] {
            check(
                &format!("block CRC32s seed {seed}, blocks of {block}"),
                &BlockCrcStage(&encoder, block),
                &data[..],
            );
        }
    }
    check(
        "block CRC32s of 3 bytes",
        &BlockCrcStage(&encoder, 4096),
        &[1u8, 2, 3][..],
    );
    check(
        "block CRC32s of nothing",
        &BlockCrcStage(&encoder, 4096),
        &[][..],
    );
    let encoder = VleEncoder::new(gpu(), small_windows()).unwrap();
    let data = testdata::generate(20_001, 5.0, 9);
    check(
        "block CRC32s in windows",
        &BlockCrcStage(&encoder, 1024),
        &data[..],
    );
}

/// The CUDA twin (shaders/cuda/block_crc.cu) on the wgpu stage's cases, and on blocks of
/// 4 KiB (the stream coder's: whole 16-byte runs a lane) with inputs that end at every
/// alignment around a block and a 16-byte load. Runs where a CUDA driver and NVRTC are
/// (PARVLC_REQUIRE_CUDA=1 makes their absence a failure).
#[cfg(feature = "cuda")]
#[test]
fn block_crc_cuda_equals_its_twin() {
    use parvlc::cuda::CudaVleEncoder;
    use parvlc::huffman::block_crc::block_crcs_cpu;
    let _s = serial();
    let Some(cuda) = common::cuda() else {
        return;
    };
    let encoder = CudaVleEncoder::new(cuda, CuvleConfig::default()).unwrap();
    let run = |data: &[u8], block: u64| {
        let input = encoder.upload(data).unwrap();
        let got = encoder.block_crcs(&input, block).unwrap();
        assert!(
            got == block_crcs_cpu(data, block as usize),
            "{} bytes in blocks of {block}",
            data.len()
        );
    };
    for seed in 0..3 {
        let data = cuvle_data(seed);
        for block in [4u64, 12, 512, 1028, 4096] {
            run(&data, block);
        }
    }
    run(&[1, 2, 3], 4096);
    run(&[], 4096);
    let data = testdata::generate(3 * 4096 + 64, 5.0, 11);
    for len in (4096 - 20..4096 + 20).chain(3 * 4096 - 17..3 * 4096 + 64) {
        run(&data[..len], 4096);
    }
    run(&vec![0u8; 5 << 20], 4096);
}

/// A frame for the VLD stage: data of seeded length and entropy, coded with its own code
/// of at most 15 bits in blocks of a seeded size (multiples of 4 if `owned`: every block
/// then owns its output words, and of 16 but for 20, whose blocks share the CUDA twin's
/// 16-byte units; blocks of 1, 3 and 5 bytes put several in one unit); one bit flipped if
/// `damage`. Every third seed is shaped
/// as a gzip frame's literals: LSB-first, after some header bits, its code made with an
/// end-of-block symbol that no block decodes.
struct VldCase {
    lengths: [u8; 256],
    other_codes: [u8; 16],
    order: BitOrder,
    len: u64,
    block_symbols: u64,
    payload_bits: u64,
    offsets: Vec<u64>,
    payload: Vec<u8>,
}

fn vld_case(seed: u64, damage: bool, owned: bool) -> VldCase {
    let mut rng = SplitMix64(seed);
    let len = 1 + rng.below(5000) as usize;
    let data = testdata::generate(len, rng.below(9) as f64, seed);
    let block_symbols = if owned {
        [64u64, 20, 320, 16384][rng.below(4) as usize]
    } else {
        [1u64, 3, 5, 16, 333, 16384][rng.below(6) as usize]
    };
    let gzip_like = seed % 3 == 2;
    let mut freqs = common::histogram(&data).to_vec();
    if gzip_like {
        freqs.push(1 + rng.below(len as u64));
    }
    let book = parvlc::huffman::Codebook::from_frequencies(&freqs, 15).unwrap();
    let mut lengths = [0u8; 256];
    lengths.copy_from_slice(&book.lengths()[..256]);
    let mut other_codes = [0u8; 16];
    for &l in &book.lengths()[256..] {
        other_codes[l as usize] += 1;
    }
    let order = if gzip_like {
        BitOrder::LsbFirst
    } else {
        BitOrder::MsbFirst
    };
    let (mut payload, mut offsets) = (Vec::new(), Vec::new());
    let mut bits = if gzip_like { rng.below(80) } else { 0 };
    payload.resize(bits.div_ceil(8) as usize, 0);
    for (i, &b) in data.iter().enumerate() {
        if (i as u64).is_multiple_of(block_symbols) {
            offsets.push(bits);
        }
        let (code, l) = (book.codes()[b as usize], lengths[b as usize]);
        for k in (0..l).rev() {
            if bits.is_multiple_of(8) {
                payload.push(0);
            }
            let bit = ((code >> k) & 1) as u8;
            *payload.last_mut().unwrap() |= match order {
                BitOrder::MsbFirst => bit << (7 - bits % 8),
                BitOrder::LsbFirst => bit << (bits % 8),
            };
            bits += 1;
        }
    }
    if damage {
        let at = offsets[0] + rng.below(bits - offsets[0]);
        payload[at as usize / 8] ^= match order {
            BitOrder::MsbFirst => 0x80 >> (at % 8),
            BitOrder::LsbFirst => 1 << (at % 8),
        };
    }
    VldCase {
        lengths,
        other_codes,
        order,
        len: len as u64,
        block_symbols,
        payload_bits: bits,
        offsets,
        payload,
    }
}

/// The VLD cases: a few frames per seed, and in each seed's second round one of them
/// damaged, so that the errors (frame, block, what) are compared too.
fn vld_rounds() -> Vec<(String, Vec<VldCase>)> {
    let mut rounds = Vec::new();
    for seed in 0..6 {
        for damage in [false, true] {
            let cases: Vec<VldCase> = (0..1 + seed % 3)
                .map(|k| vld_case(seed * 10 + k, damage && k == seed % 2, seed % 2 == 1))
                .collect();
            rounds.push((format!("vld seed {seed} damage {damage}"), cases));
        }
    }
    rounds
}

fn vld_frames(cases: &[VldCase]) -> Vec<VldFrame<'_>> {
    cases
        .iter()
        .map(|c| VldFrame {
            lengths: &c.lengths,
            other_codes: c.other_codes,
            order: c.order,
            len: c.len,
            block_symbols: c.block_symbols,
            payload_bits: c.payload_bits,
            offsets: &c.offsets,
            payload: &c.payload,
        })
        .collect()
}

/// Both entry points (tables in workgroup memory, tables read from storage).
#[test]
fn vld_equals_its_twin() {
    let _s = serial();
    for tables in [VldTables::Workgroup, VldTables::Global] {
        let decoder = VldDecoder::new(gpu()).with_tables(tables);
        let mut faulty = 0;
        for (what, cases) in vld_rounds() {
            let frames = vld_frames(&cases);
            check(&format!("{what}, {tables:?}"), &decoder, &frames[..]);
            let twin = decoder.cpu(&frames[..]).unwrap();
            faulty += usize::from(!twin.errors.is_empty());
            // The frames' CRC32s (folded from the blocks') are the frames' own.
            if twin.errors.is_empty() {
                let crcs = twin.frame_crcs.expect("frame CRC32s");
                for (r, crc) in twin.frames.iter().zip(crcs) {
                    assert_eq!(crc32fast::hash(&twin.bytes[r.clone()]), crc, "{what}");
                }
            }
        }
        assert!(faulty > 0, "no damaged case reached the kernel's checks");
    }
}

/// The CUDA twin (shaders/cuda/vld.cu) on the same cases: the CPU twin's output and
/// faults exactly. Runs where a CUDA driver and NVRTC are (PARVLC_REQUIRE_CUDA=1 makes
/// their absence a failure).
#[cfg(feature = "cuda")]
#[test]
fn vld_cuda_equals_its_twin() {
    let _s = serial();
    let Some(cuda) = common::cuda() else {
        return;
    };
    let decoder = parvlc::cuda::CudaVldDecoder::new(cuda);
    let mut faulty = 0;
    for (what, cases) in vld_rounds() {
        let frames = vld_frames(&cases);
        let want = parvlc::huffman::vld::decode_cpu(&frames).unwrap();
        let got = decoder.decode(&frames).unwrap();
        assert!(
            got == want,
            "{what}: CUDA {:?} against CPU {:?}",
            got.errors,
            want.errors
        );
        faulty += usize::from(!want.errors.is_empty());
    }
    assert!(faulty > 0, "no damaged case reached the kernel's checks");
}

#[test]
fn framed_equals_its_twin() {
    let _s = serial();
    // 1 KiB blocks and histogram chunks: frames of 1 to 3 blocks, each with its own table.
    let config = CuvleConfig {
        net: 4,
        scan: ScanConfig {
            workgroup_size: 64,
            ..ScanConfig::default()
        },
        ..CuvleConfig::default()
    };
    let block = config.block_bytes();
    let encoder = VleEncoder::new(gpu(), config)
        .unwrap()
        .with_chunk_bytes(block)
        .unwrap();
    for seed in 0..3 {
        let data = cuvle_data(seed + 20);
        let mut rng = SplitMix64(seed);
        let (mut frames, mut tables) = (Vec::new(), Vec::new());
        let mut b = 0;
        while b < data.len().div_ceil(block as usize) {
            let len = 1 + rng.below(3) as usize;
            let bytes = &data[b * block as usize..((b + len) * block as usize).min(data.len())];
            frames.push(FrameSpec {
                first_block: b as u32,
                table: tables.len() as u32,
                gap_bits: rng.below(600) as u32,
            });
            tables.push(common::table_for(bytes, 16));
            b += len;
        }
        for order in [BitOrder::MsbFirst, BitOrder::LsbFirst] {
            let input = FramedInput {
                data: &data,
                framing: Framing {
                    tables: &tables,
                    frames: &frames,
                    order,
                    start_bit: (seed * 11 % 32) as u32,
                    tail_bits: rng.below(100) as u32,
                },
            };
            check(
                &format!("framed seed {seed} {order:?}"),
                &FramedStage(&encoder),
                &input,
            );
        }
    }
}

/// A seeded input with its table, in both bit orders from a seeded start bit, through a
/// stage that takes a [`CuvleInput`].
fn check_coded<S>(what: &str, stage: &S)
where
    S: for<'a> GpuStage<Input<'a> = CuvleInput<'a>>,
    S::Output: PartialEq + Debug,
{
    for seed in 0..3 {
        let data = cuvle_data(seed + 10);
        let table = common::table_for(&data, 16);
        for order in [BitOrder::MsbFirst, BitOrder::LsbFirst] {
            let input = CuvleInput {
                data: &data,
                table: &table,
                order,
                start_bit: (seed * 13 % 32) as u32,
            };
            check(&format!("{what} seed {seed} {order:?}"), stage, &input);
        }
    }
}

#[test]
fn pavle_equals_its_twin() {
    let _s = serial();
    let pavle = || PavleEncoder::new(gpu(), PavleConfig::default()).unwrap();
    check_coded("pavle", &pavle());
    check_coded(
        "pavle in 16 KiB segments",
        &pavle().with_segment_cap(16 << 10),
    );
}

#[test]
fn bytestream_equals_its_twin() {
    let _s = serial();
    for max_segment_bytes in [None, Some(4096)] {
        let config = BytestreamConfig {
            scan: ScanConfig {
                workgroup_size: 64,
                ..ScanConfig::default()
            },
            max_segment_bytes,
            ..BytestreamConfig::default()
        };
        check_coded(
            &format!("bytestream, segments of {max_segment_bytes:?} bytes"),
            &BytestreamEncoder::new(gpu(), config).unwrap(),
        );
    }
}

#[test]
fn scan_equals_its_twin() {
    let _s = serial();
    let stage = ScanStage {
        gpu: gpu(),
        config: ScanConfig::default(),
    };
    for seed in 0..3 {
        let mut rng = SplitMix64(seed);
        let values: Vec<u32> = (0..rng.below(30_000))
            .map(|_| rng.below(1000) as u32)
            .collect();
        check(&format!("scan seed {seed}"), &stage, &values[..]);
    }
}

#[test]
fn cavlc_variants_equal_their_twin() {
    let _s = serial();
    let engine = CavlcGpu::new(gpu()).unwrap();
    for seed in 0..2 {
        let frame = RandomFrame::new(4 + seed as u32, 3).generate(seed);
        for variant in GpuVariant::ALL {
            check(
                &format!("cavlc {} seed {seed}", variant.name()),
                &engine.stage(gpu(), variant),
                &frame,
            );
        }
    }
}

#[test]
fn bitstuff_stages_equal_their_twin() {
    let _s = serial();
    for seed in 0..3 {
        let segs = segments(seed);
        for stuffer in Stuffer::ALL {
            for term in [Termination::Plain, Termination::Predictable] {
                let stage = BitstuffStage {
                    gpu: gpu(),
                    stuffer,
                    term,
                    config: BitstuffConfig::default(),
                };
                check(
                    &format!("bitstuff {stuffer:?} {term:?} seed {seed}"),
                    &stage,
                    &views(&segs)[..],
                );
            }
        }
    }
}

#[test]
fn ht_cleanup_equals_its_twin() {
    let _s = serial();
    let stage = HtGpu::new(common::wgpu_engine().gpu().unwrap().clone()).unwrap();
    for seed in 0..3 {
        check(
            &format!("ht_cleanup seed {seed}"),
            &stage,
            &block_batch(&blocks(seed)),
        );
    }
}

#[test]
fn tier1_equals_its_twin() {
    let _s = serial();
    let kernels = Tier1Kernels::new(gpu()).unwrap();
    for seed in 0..3 {
        let b = blocks(seed);
        for opts in [Tier1Options::PART1_BYPASS, Tier1Options::default()] {
            check(
                &format!("tier1 {opts:?} seed {seed}"),
                &kernels.stage(gpu(), opts),
                &block_inputs(&b)[..],
            );
        }
    }
}

#[test]
fn dwt_equals_its_twin() {
    let _s = serial();
    let dwt = DwtGpu::new(gpu()).unwrap();
    for (seed, (w, h, comps, levels)) in [(17, 9, 1, 2), (40, 33, 3, 3), (64, 64, 3, 5)]
        .into_iter()
        .enumerate()
    {
        let image = make(w, h, comps, 8, Content::Noise, seed as u64);
        let stage = DwtStage {
            gpu: gpu(),
            dwt,
            levels,
            cblk: 32,
        };
        check(&format!("dwt {w}x{h}x{comps} seed {seed}"), &stage, &image);
    }
}

/// Upload a stage's input and record it into `encoder`.
fn record<S: GpuStage>(
    stage: &S,
    encoder: &mut wgpu::CommandEncoder,
    input: &S::Input<'_>,
) -> (S::Uploaded, S::Pending) {
    let uploaded = pollster::block_on(stage.upload(input)).unwrap();
    let pending = stage.encode_into(encoder, &uploaded).unwrap();
    (uploaded, pending)
}

#[test]
fn two_stages_in_one_submission() {
    let _s = serial();
    let gpu = gpu();
    let vle = VleEncoder::new(gpu, CuvleConfig::default()).unwrap();
    let data = cuvle_data(5);
    let table = common::table_for(&data, 16);
    let cuvle_input = CuvleInput {
        data: &data,
        table: &table,
        order: BitOrder::MsbFirst,
        start_bit: 3,
    };
    let stuff = BitstuffStage {
        gpu,
        stuffer: Stuffer::Fsm,
        term: Termination::Plain,
        config: BitstuffConfig::default(),
    };
    let segs = segments(5);
    let raw = views(&segs);

    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let (cu_up, cu_pending) = record(&vle, &mut encoder, &cuvle_input);
    let (bs_up, bs_pending) = record(&stuff, &mut encoder, &raw[..]);
    gpu.queue.submit([encoder.finish()]);

    let coded = pollster::block_on(GpuStage::finish(&vle, &cuvle_input, &cu_up, cu_pending))
        .unwrap()
        .stream;
    let stuffed = pollster::block_on(GpuStage::finish(&stuff, &raw[..], &bs_up, bs_pending))
        .unwrap()
        .stuffed;
    assert!(coded == GpuStage::cpu(&vle, &cuvle_input).unwrap(), "cuvle");
    assert!(stuffed == stuff.cpu(&raw[..]).unwrap(), "bit-stuffing");
}
