//! The benchmarks check what they time: the Huffman suite (every GPU path present: wgpu,
//! and CUDA where the feature and a driver are there; the baselines; the CPU rows) and the
//! J2K suite run on tiny inputs with every row checked, and a wrong output fed through
//! each check is an error, never a row.
mod common;

use parvlc::bench::{
    bench_case, check_bits, check_same, run_huffman, BenchOptions, Case, Record, KERNEL_ONLY,
    SCOPE_NVCOMP, WALL,
};
use parvlc::huffman::compress::{compress_cpu, Format};
use parvlc::huffman::cuvle::CuvleConfig;
use parvlc::scan::{ScanConfig, ScanStrategy};
use parvlc::testdata::generate;
use parvlc::Error;

/// Blocks of 1 KiB, so tiny inputs span many of them.
fn small_config() -> CuvleConfig {
    CuvleConfig {
        net: 4,
        scan: ScanConfig {
            workgroup_size: 64,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Options for the suite; `cuda`: with the CUDA rows where there is a device.
fn options(strategies: Vec<ScanStrategy>, baselines: bool, cpu: bool, cuda: bool) -> BenchOptions {
    #[cfg(not(feature = "cuda"))]
    let _ = cuda;
    BenchOptions {
        sizes: vec![20_000],
        entropies: vec![2.0, 7.0],
        strategies,
        config: small_config(),
        runs: 1,
        cpu_max_bytes: if cpu { u64::MAX } else { 0 },
        baselines,
        files: Vec::new(),
        #[cfg(feature = "cuda")]
        cuda: if cuda { cuda_bench() } else { None },
    }
}

/// The CUDA rows, where this build has the feature and a driver is found.
#[cfg(feature = "cuda")]
fn cuda_bench() -> Option<parvlc::bench::CudaBench> {
    common::cuda()?;
    Some(parvlc::bench::CudaBench {
        device: std::sync::Arc::new(parvlc::cuda::CudaGpu::new().expect("CUDA opened once")),
        configs: vec![(small_config(), Default::default())],
    })
}

fn has_cuda(options: &BenchOptions) -> bool {
    #[cfg(feature = "cuda")]
    return options.cuda.is_some();
    #[cfg(not(feature = "cuda"))]
    {
        let _ = options;
        false
    }
}

fn row<'a>(records: &'a [Record], variant: &str, scope: &str) -> Option<&'a Record> {
    records
        .iter()
        .find(|r| r.variant == variant && r.scope == scope)
}

/// Every configuration of the suite runs on tiny inputs, checked, with its scope and what
/// its headline time covers written on the row.
#[test]
fn huffman_suite_runs_every_row_checked() {
    let _serial = common::serial();
    let gpu = common::wgpu_engine()
        .gpu()
        .expect("the wgpu engine has a GPU");
    let strategies = vec![ScanStrategy::Decoupled, ScanStrategy::ReduceThenScan];
    let options = options(strategies.clone(), true, true, true);
    let mut seen = 0;
    let records = run_huffman(Some(gpu), &options, &mut |r| seen += r.len()).expect("bench runs");
    assert_eq!(seen, records.len());
    let cores = format!("cpu-{}-threads", rayon::current_num_threads());
    let mut variants: Vec<String> = strategies
        .iter()
        .map(|s| format!("cuvle-{}", s.name()))
        .collect();
    if has_cuda(&options) {
        variants.extend(
            strategies
                .iter()
                .map(|s| format!("cuvle-cuda-{}", s.name())),
        );
    }
    let want = compress_cpu(
        &generate(20_000, 2.0, 42),
        Format::Native,
        small_config().block_bytes(),
    )
    .unwrap();
    for input in ["synthetic-2b-20000B", "synthetic-7b-20000B"] {
        let rows: Vec<Record> = records
            .iter()
            .filter(|r| r.input == input)
            .cloned()
            .collect();
        let mut expected: Vec<(String, &str)> = Vec::new();
        for v in &variants {
            for scope in ["encode", "compress", SCOPE_NVCOMP, "end-to-end"] {
                expected.push((v.clone(), scope));
            }
        }
        expected.extend([
            ("pavle".to_string(), "encode"),
            ("pavle".to_string(), "kernel"),
            ("bytestream".to_string(), "encode"),
            ("cpu-serial".to_string(), "encode"),
            (cores.clone(), "encode"),
            (cores.clone(), "end-to-end"),
            ("stream".to_string(), "end-to-end (stream)"),
            ("stream".to_string(), "end-to-end (stream, output reused)"),
            ("vld".to_string(), "decode"),
            ("vld-global".to_string(), "decode"),
            ("vld".to_string(), "end-to-end (stream decode)"),
        ]);
        for (v, scope) in &expected {
            let r = row(&rows, v, scope).unwrap_or_else(|| panic!("{input}: no {v} {scope} row"));
            assert!(r.seconds_wall > 0.0, "{r:?}");
            assert!(
                r.input_crc32.is_some() && r.container_bytes.is_some(),
                "{r:?}"
            );
            // The nvCOMP-scope rows: wall clock, timed as the nvCOMP script times its call.
            if *scope == SCOPE_NVCOMP || scope.starts_with("end-to-end") || v.starts_with("cpu") {
                assert_eq!((r.timing.as_str(), r.seconds_gpu), (WALL, None), "{r:?}");
            }
            if *scope == SCOPE_NVCOMP {
                assert_eq!(r.statistic, "best of 1 after 1 warm-up run", "{r:?}");
            }
            if r.seconds_gpu.is_some() {
                assert_eq!(r.timing, KERNEL_ONLY, "{r:?}");
            }
            if gpu.has_timestamps() && !v.starts_with("cpu") && !v.contains("cuda") {
                let kernel_scope = matches!(*scope, "encode" | "kernel" | "compress" | "decode");
                assert_eq!(r.seconds_gpu.is_some(), kernel_scope, "{r:?}");
            }
        }
        assert_eq!(rows.len(), expected.len(), "{input}: {rows:#?}");
    }
    // The container size comes from the checked end-to-end output.
    assert_eq!(
        records[0].container_bytes,
        Some(want.bytes.len() as u64),
        "{:?}",
        records[0]
    );
    let table = parvlc::bench::table(&records[..5]);
    assert!(
        table.contains(SCOPE_NVCOMP) && table.contains("GB/s kernel only"),
        "{table}"
    );
}

/// An input whose reference stream has one bit flipped: every group of rows (the GPU
/// encoders, the baselines, the CPU encoders) reports the mismatch as an error.
#[test]
fn huffman_suite_refuses_a_wrong_output() {
    let _serial = common::serial();
    let gpu = common::wgpu_engine()
        .gpu()
        .expect("the wgpu engine has a GPU");
    let data = generate(20_000, 4.5, 3);
    let wrong = |what: &str| {
        let mut case = Case::new(format!("wrong-{what}"), &data, 4.5, 1).unwrap();
        case.want.bytes[100] ^= 0x10;
        case
    };
    let all = vec![ScanStrategy::Decoupled];
    let groups: [(&str, BenchOptions, bool); 3] = [
        (
            "cuvle-decoupled encode",
            options(all, false, false, false),
            true,
        ),
        ("pavle", options(Vec::new(), true, false, false), true),
        ("cpu-serial", options(Vec::new(), false, true, false), false),
    ];
    for (first, options, on_gpu) in groups {
        let case = wrong(first);
        let e = bench_case(on_gpu.then_some(gpu), &case, &options)
            .expect_err("a wrong output must not become a row");
        match e {
            Error::BenchMismatch(m) => assert!(
                m.contains(first) && m.contains("first difference at byte 100"),
                "{m}"
            ),
            e => panic!("{first}: {e}"),
        }
    }
    // The CUDA rows alone, where present.
    let options = options(vec![ScanStrategy::Decoupled], false, false, true);
    if has_cuda(&options) {
        let case = wrong("cuda");
        match bench_case(None, &case, &options) {
            Err(Error::BenchMismatch(m)) => {
                assert!(m.contains("cuvle-cuda-decoupled encode"), "{m}")
            }
            other => panic!("CUDA rows: {:?}", other.map(|r| r.len())),
        }
    }
}

/// The checks themselves: a stream of other length or other bits, a container that does
/// not decode or decodes to other bytes, a list with an item changed.
#[test]
fn checks_name_what_differs() {
    let data = generate(5000, 3.0, 9);
    let case = Case::new("input".into(), &data, 3.0, 1).unwrap();
    case.check_stream("same", &case.want.clone()).unwrap();
    let mut shorter = case.want.clone();
    shorter.bits -= 1;
    let e = check_bits("short", &shorter, &case.want).unwrap_err();
    assert!(
        matches!(&e, Error::BenchMismatch(m) if m.contains("bits")),
        "{e}"
    );
    let c = compress_cpu(&data, Format::Native, small_config().block_bytes()).unwrap();
    case.check_container("good", &c.bytes).unwrap();
    let mut flipped = c.bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x80;
    let e = case.check_container("flipped", &flipped).unwrap_err();
    assert!(
        matches!(&e, Error::BenchMismatch(m) if m.contains("does not decode")),
        "{e}"
    );
    let other = compress_cpu(&generate(5000, 3.0, 10), Format::Native, 1024).unwrap();
    let e = case
        .check_container("other input", &other.bytes)
        .unwrap_err();
    assert!(
        matches!(&e, Error::BenchMismatch(m) if m.contains("other input")),
        "{e}"
    );
    let e = check_same("list", "item", &[1, 2, 3], &[1, 2, 4]).unwrap_err();
    assert!(
        matches!(&e, Error::BenchMismatch(m) if m.contains("first difference at item 2")),
        "{e}"
    );
    check_same("list", "item", &[1, 2, 3], &[1, 2, 3]).unwrap();
}

/// The J2K suite on a tiny picture: every row is there, each checked (the run fails on a
/// mismatch); and the decode check of the CPU tier-1 refuses a corrupted code-block.
#[test]
fn j2k_suite_runs_every_row_checked() {
    use parvlc::j2k::bench::{check_decodes, run_j2k, J2kBenchOptions};
    use parvlc::j2k::tier1::encode_code_blocks;
    use parvlc::j2k::tier1::gpu::inputs_of;
    use parvlc::j2k::tier1::Tier1Options;
    use parvlc::j2k::{transform_cpu, Image};
    let _serial = common::serial();
    let gpu = std::sync::Arc::new(
        pollster::block_on(parvlc::gpu::Gpu::new(Default::default())).expect("a GPU adapter"),
    );
    let options = J2kBenchOptions {
        sizes: vec![("40x24".into(), 40, 24)],
        runs: 1,
        levels: 2,
        cblk: 32,
        // The warm-up's path too (each GPU row run for a moment before it is timed).
        warm_up_secs: 0.02,
        ..Default::default()
    };
    let records = run_j2k(Some(gpu), &options, &mut |_| {}).expect("bench runs");
    let variants: Vec<&str> = records.iter().map(|r| r.variant.as_str()).collect();
    for v in [
        "gpu-fast",
        "gpu-all-mq",
        "gpu-fast-three-kernel",
        "gpu-all-mq-three-kernel",
        "gpu-tier1-fast",
        "gpu-front-end-gpu-tier1-fast",
        "dwt-gpu",
        "dwt-cpu-all-cores",
        "cpu-all-cores-fast",
        "cpu-all-cores-all-mq",
        "cpu-1-core-fast",
        "ht_cleanup",
        "gpu-front-end-ht_cleanup",
        "ht-cpu-all-cores",
        "cpu-all-cores-ht",
    ] {
        assert!(variants.contains(&v), "no {v} row: {variants:?}");
    }
    for r in &records {
        assert!(r.seconds_wall > 0.0 && r.bytes > 0, "{r:?}");
    }
    let image = Image::new(40, 24, 3, 8, parvlc::testdata::synthetic_rgb(40, 24, 7)).unwrap();
    let batch = transform_cpu(&image, 2, 32);
    let opts = Tier1Options {
        bypass_from: Some(5),
    };
    let mut coded = encode_code_blocks(&inputs_of(&batch), &opts).unwrap();
    check_decodes("good", &batch, &coded, &opts).unwrap();
    let i = coded
        .iter()
        .position(|c| c.data.len() > 4)
        .expect("a coded block");
    coded[i].data[1] ^= 0x5a;
    let e = check_decodes("corrupted", &batch, &coded, &opts).unwrap_err();
    assert!(
        matches!(&e, Error::BenchMismatch(m) if m.contains(&format!("code-block {i}"))),
        "{e}"
    );
}
