//! The byte-per-bit encoder (`BytestreamEncoder`) against the serial CPU coder and its CPU
//! twin (`encode_bytestream_cpu`), bit for bit, and stage by stage against the CPU stages.
mod common;
use common::{assert_same_bits, serial, table_for};

use parvlc::gpu::Gpu;
use parvlc::huffman::bytestream::{
    bytestream_stages_cpu, encode_bytestream_cpu, BytestreamConfig, BytestreamEncoder,
};
use parvlc::huffman::{cpu, BitOrder, CodeTable, Codebook};
use parvlc::scan::{ScanConfig, ScanStrategy};
use parvlc::testdata::{generate, SplitMix64};
use parvlc::Error;

const ORDERS: [BitOrder; 2] = [BitOrder::MsbFirst, BitOrder::LsbFirst];

/// 64 threads per workgroup (256 symbols), so small inputs already span many workgroups.
fn config(max_segment_bytes: Option<u64>) -> BytestreamConfig {
    BytestreamConfig {
        scan: ScanConfig {
            workgroup_size: 64,
            ..ScanConfig::default()
        },
        max_segment_bytes,
        max_device_bytes: None,
    }
}

/// GPU and CPU twin against `encode_serial`; returns the number of segments the GPU used.
fn check(
    gpu: &Gpu,
    data: &[u8],
    table: &CodeTable,
    order: BitOrder,
    start_bit: u32,
    config: &BytestreamConfig,
    what: &str,
) -> usize {
    let what = format!(
        "{what} [{} bytes, {order:?}, start {start_bit}, {} wg {}, segment {:?}]",
        data.len(),
        config.scan.strategy.name(),
        config.scan.workgroup_size,
        config.max_segment_bytes
    );
    let want = cpu::encode_serial(data, table, order, start_bit).unwrap();
    let twin = encode_bytestream_cpu(data, table, order, start_bit, config)
        .unwrap_or_else(|e| panic!("{what}: CPU twin: {e}"));
    assert_same_bits(&twin, &want, &format!("{what}: CPU twin vs encode_serial"));

    let encoder = BytestreamEncoder::new(gpu, *config).unwrap();
    let input = encoder.upload(data).unwrap();
    let mut enc = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let pending = encoder
        .encode_into(&mut enc, &input, table, order, start_bit, false)
        .unwrap_or_else(|e| panic!("{what}: encode_into: {e}"));
    let segments = pending.segments();
    assert_eq!(pending.total_bits(), want.bits, "{what}: planned bits");
    gpu.queue.submit([enc.finish()]);
    let got = pollster::block_on(encoder.finish(pending))
        .unwrap_or_else(|e| panic!("{what}: GPU encode: {e}"));
    assert_same_bits(&got, &want, &format!("{what}: GPU vs encode_serial"));
    segments
}

#[test]
fn orders_and_start_bits() {
    let _g = serial();
    let gpu = common::gpu();
    let data = generate(6_001, 4.5, 1);
    let table = table_for(&data, 32);
    for order in ORDERS {
        for start in [0u32, 5, 31] {
            check(
                gpu,
                &data,
                &table,
                order,
                start,
                &config(None),
                "order x start",
            );
        }
    }
    // The all-in-one call.
    let encoder = BytestreamEncoder::new(gpu, config(None)).unwrap();
    for order in ORDERS {
        let got = pollster::block_on(encoder.encode(&data, &table, order, 7)).unwrap();
        assert_same_bits(
            &got,
            &cpu::encode_serial(&data, &table, order, 7).unwrap(),
            "encode",
        );
    }
}

#[test]
fn sizes_around_workgroups() {
    let _g = serial();
    let gpu = common::gpu();
    // 64 invocations of 4 symbols: 256 symbols per workgroup; the scan takes 512 per block.
    let sizes = [
        0usize, 1, 2, 3, 4, 5, 7, 13, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2049, 4099,
    ];
    for (i, &n) in sizes.iter().enumerate() {
        let data = generate(n, 6.0, 100 + n as u64);
        let table = table_for(&data, 32);
        let order = ORDERS[i % 2];
        let start = [0u32, 5, 31][i % 3];
        check(gpu, &data, &table, order, start, &config(None), "size");
    }
    // The default shape (256 threads) and configuration.
    let data = generate(70_001, 4.5, 7);
    let table = table_for(&data, 24);
    for order in ORDERS {
        check(
            gpu,
            &data,
            &table,
            order,
            3,
            &BytestreamConfig::default(),
            "default config",
        );
    }
}

#[test]
fn many_segments() {
    let _g = serial();
    let gpu = common::gpu();
    let data = generate(9_001, 5.0, 3);
    let table = table_for(&data, 32);
    for (cap, starts) in [(256u64, [0u32, 31]), (1000, [5, 17]), (3000, [31, 1])] {
        for (order, start) in ORDERS.into_iter().zip(starts) {
            let segments = check(
                gpu,
                &data,
                &table,
                order,
                start,
                &config(Some(cap)),
                "segments",
            );
            // Whole chunks (powers of two) up to the cap; the greedy plan may add a
            // short last chunk to the segment before it.
            let chunk = (1u64 << cap.ilog2()).max(256) as usize;
            let whole = data.len() / chunk / (cap as usize / chunk);
            assert!(
                (whole..=whole + 1).contains(&segments) && segments > 1,
                "cap {cap}: {segments} segments"
            );
        }
    }
    // 32-bit codes: every segment starts on the same phase; a 1-byte cap acts as 256.
    let wide = Codebook::from_lengths(&[32u8; 256])
        .unwrap()
        .table()
        .unwrap();
    let random = generate(3_000, 8.0, 4);
    for order in ORDERS {
        assert!(
            check(
                gpu,
                &random,
                &wide,
                order,
                9,
                &config(Some(1)),
                "segments, 32-bit codes"
            ) > 1
        );
    }
}

#[test]
fn entropies_and_length_limits() {
    let _g = serial();
    let gpu = common::gpu();
    for (i, entropy) in [0.0, 0.5, 2.0, 4.5, 7.0, 8.0].into_iter().enumerate() {
        let data = generate(3_000, entropy, 10 + i as u64);
        for max_len in [32u8, 24, 16, 15] {
            let table = table_for(&data, max_len);
            let order = ORDERS[(i + max_len as usize) % 2];
            check(
                gpu,
                &data,
                &table,
                order,
                (i as u32 * 11 + max_len as u32) % 32,
                &config(None),
                &format!("entropy {entropy} max_len {max_len}"),
            );
        }
    }
}

#[test]
fn adversarial_tables() {
    let _g = serial();
    let gpu = common::gpu();
    let uniform = generate(4_000, 8.0, 22);
    let all32 = Codebook::from_lengths(&[32u8; 256])
        .unwrap()
        .table()
        .unwrap();
    for order in ORDERS {
        for start in [0u32, 5, 31] {
            check(
                gpu,
                &uniform,
                &all32,
                order,
                start,
                &config(None),
                "all 256 at 32 bits",
            );
        }
        check(
            gpu,
            &uniform,
            &all32,
            order,
            13,
            &config(Some(1024)),
            "all 256 at 32 bits, segments",
        );
    }

    // One symbol only: a 1-bit code (from its histogram), and a lone 32-bit code of all ones.
    let ones = vec![0xa7u8; 5_000];
    let one_bit = table_for(&ones, 32);
    assert_eq!(one_bit.lengths[0xa7], 1);
    let mut lone = CodeTable {
        codes: [0; 256],
        lengths: [0; 256],
    };
    lone.lengths[0xa7] = 32;
    lone.codes[0xa7] = u32::MAX;
    for order in ORDERS {
        for start in [0u32, 31] {
            check(
                gpu,
                &ones,
                &one_bit,
                order,
                start,
                &config(None),
                "one symbol, 1-bit code",
            );
            check(
                gpu,
                &ones,
                &one_bit,
                order,
                start,
                &config(Some(512)),
                "one symbol, 1 bit, segments",
            );
            check(
                gpu,
                &ones,
                &lone,
                order,
                start,
                &config(None),
                "one symbol, 32 one bits",
            );
        }
    }

    // Arbitrary bit patterns of every length 1..=32 (a VLE table need not be a prefix code).
    let mut rng = SplitMix64(21);
    let mut t = CodeTable {
        codes: [0; 256],
        lengths: [0; 256],
    };
    for s in 0..256 {
        let len = 1 + (s % 32) as u8;
        t.lengths[s] = len;
        t.codes[s] = (rng.next_u64() as u32) >> (32 - len);
    }
    for order in ORDERS {
        check(
            gpu,
            &uniform,
            &t,
            order,
            19,
            &config(None),
            "random bit patterns",
        );
    }
}

#[test]
fn stage_by_stage() {
    let _g = serial();
    for (gpu, flavour) in [
        (common::gpu(), "default"),
        (common::gpu_workgroup_flavour(), "workgroup"),
    ] {
        let data = generate(2_345, 5.5, 5);
        let table = table_for(&data, 32);
        let encoder = BytestreamEncoder::new(gpu, config(None)).unwrap();
        for (order, start) in ORDERS.into_iter().zip([0u32, 29]) {
            let what = format!("{flavour} flavour, {order:?}, start {start}");
            let want = bytestream_stages_cpu(&data, &table, order, start).unwrap();
            let got = pollster::block_on(encoder.encode_stages(&data, &table, order, start))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(got.lengths, want.lengths, "{what}: lengths");
            assert_eq!(got.prefixes, want.prefixes, "{what}: prefixes");
            assert_eq!(got.bit_bytes, want.bit_bytes, "{what}: bit-bytes");
            assert_same_bits(&got.stream, &want.stream, &format!("{what}: stream"));
            assert_same_bits(
                &want.stream,
                &cpu::encode_serial(&data, &table, order, start).unwrap(),
                &format!("{what}: CPU stages vs encode_serial"),
            );
        }
        // More than one segment is refused, not half-read.
        let multi = BytestreamEncoder::new(gpu, config(Some(256))).unwrap();
        assert!(matches!(
            pollster::block_on(multi.encode_stages(&data, &table, BitOrder::MsbFirst, 0)),
            Err(Error::InvalidArgument(_))
        ));
    }
}

#[test]
fn workgroup_memory_flavour_and_scan_strategies() {
    let _g = serial();
    let gpu = common::gpu_workgroup_flavour();
    let data = generate(7_003, 4.5, 40);
    let table = table_for(&data, 32);
    for (i, order) in ORDERS.into_iter().enumerate() {
        check(
            gpu,
            &data,
            &table,
            order,
            31,
            &config(None),
            "workgroup flavour",
        );
        check(
            gpu,
            &data,
            &table,
            order,
            [5, 0][i],
            &config(Some(2048)),
            "workgroup flavour, segments",
        );
    }
    // The scan's other strategy that needs no waiting, and the forced decoupled fallback.
    let gpu = common::gpu();
    for (strategy, spin) in [
        (ScanStrategy::ReduceThenScan, 64),
        (ScanStrategy::Decoupled, 0),
    ] {
        let mut c = config(Some(4096));
        c.scan.strategy = strategy;
        c.scan.spin_budget = spin;
        for order in ORDERS {
            check(gpu, &data, &table, order, 11, &c, &format!("spin {spin}"));
        }
    }
}

#[test]
fn too_large_and_bad_input() {
    let _g = serial();
    let gpu = common::gpu();
    let data = generate(10_000, 5.0, 70);
    let table = table_for(&data, 32);
    // Output and scratch beyond the configured device memory: a clear error naming the
    // limit, before anything is recorded.
    let need_one_segment = {
        let c = BytestreamConfig {
            max_device_bytes: Some(1_000),
            ..config(None)
        };
        let encoder = BytestreamEncoder::new(gpu, c).unwrap();
        match pollster::block_on(encoder.encode(&data, &table, BitOrder::MsbFirst, 0)) {
            Err(e @ Error::TooLarge(_)) => {
                let msg = e.to_string();
                assert!(msg.contains("1000 bytes"), "{msg}");
                assert!(msg.contains("max_device_bytes"), "{msg}");
                msg
            }
            other => panic!("expected TooLarge, got {other:?}"),
        }
    };
    eprintln!("{need_one_segment}");
    // Smaller segments need less scratch: the same budget then suffices.
    let budget = 32 << 10;
    let whole = BytestreamConfig {
        max_device_bytes: Some(budget),
        ..config(None)
    };
    assert!(matches!(
        pollster::block_on(BytestreamEncoder::new(gpu, whole).unwrap().encode(
            &data,
            &table,
            BitOrder::LsbFirst,
            0
        )),
        Err(Error::TooLarge(_))
    ));
    let segmented = BytestreamConfig {
        max_device_bytes: Some(budget),
        ..config(Some(1024))
    };
    check(
        gpu,
        &data,
        &table,
        BitOrder::LsbFirst,
        0,
        &segmented,
        "within the memory budget",
    );

    // A byte without a code; a bad start bit; a bad workgroup size.
    let encoder = BytestreamEncoder::new(gpu, config(Some(1024))).unwrap();
    let absent = (0..=255u8).find(|b| !data.contains(b)).unwrap();
    for at in [0usize, 5_000, data.len() - 1] {
        let mut bad = data.clone();
        bad[at] = absent;
        assert!(matches!(
            pollster::block_on(encoder.encode(&bad, &table, BitOrder::MsbFirst, 0)),
            Err(Error::InvalidCodeTable(_))
        ));
        assert!(matches!(
            encode_bytestream_cpu(&bad, &table, BitOrder::MsbFirst, 0, &config(None)),
            Err(Error::InvalidCodeTable(_))
        ));
    }
    assert!(matches!(
        pollster::block_on(encoder.encode(&data, &table, BitOrder::MsbFirst, 32)),
        Err(Error::InvalidArgument(_))
    ));
    let mut bad = config(None);
    bad.scan.workgroup_size = 48;
    assert!(matches!(
        BytestreamEncoder::new(gpu, bad),
        Err(Error::InvalidArgument(_))
    ));
    // Still works after the errors.
    check(
        gpu,
        &data,
        &table,
        BitOrder::MsbFirst,
        2,
        &config(None),
        "after errors",
    );
}

#[test]
fn profiled_passes() {
    let _g = serial();
    let gpu = common::gpu();
    let data = generate(5_000, 4.5, 80);
    let table = table_for(&data, 32);
    let encoder = BytestreamEncoder::new(gpu, config(Some(2048))).unwrap();
    let input = encoder.upload(&data).unwrap();
    let mut enc = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let pending = encoder
        .encode_into(&mut enc, &input, &table, BitOrder::MsbFirst, 0, true)
        .unwrap();
    gpu.queue.submit([enc.finish()]);
    let timings = pollster::block_on(pending.timings(gpu)).unwrap();
    if gpu.has_timestamps() {
        let labels: Vec<&str> = timings.passes.iter().map(|(l, _)| *l).collect();
        assert_eq!(
            labels,
            [
                "bytestream_lengths",
                "bytestream_scan",
                "bytestream_scatter",
                "bytestream_pack"
            ]
        );
    }
    let got = pollster::block_on(encoder.finish(pending)).unwrap();
    assert_same_bits(
        &got,
        &cpu::encode_serial(&data, &table, BitOrder::MsbFirst, 0).unwrap(),
        "profiled",
    );
}

/// More workgroups than one dispatch dimension holds (65535 on lavapipe): the lengths and
/// scatter kernels run on a 2-D grid.
#[test]
fn two_dimensional_grid() {
    let _g = serial();
    let gpu = common::gpu();
    let mut c = config(None);
    c.scan.workgroup_size = 32;
    let groups = gpu.limits.max_compute_workgroups_per_dimension as usize;
    let n = (groups + 100) * 32 * 4 + 3;
    let data = generate(n, 2.0, 90);
    let table = table_for(&data, 24);
    check(gpu, &data, &table, BitOrder::LsbFirst, 21, &c, "2-D grid");
}

/// Large inputs, for a real GPU (`cargo test --release --test bytestream -- --ignored
/// --nocapture`): `PARVLC_LARGE_MIB` (default 256,1024) MiB at 4.5 bits/byte, default
/// segments and segments as large as the device allows, against `encode_parallel`, with
/// kernel times.
#[test]
#[ignore]
fn large_inputs() {
    let _g = serial();
    let gpu = common::gpu();
    eprintln!(
        "{}, {:?} flavour, max binding {} bytes, max buffer {} bytes",
        gpu.adapter_name(),
        gpu.flavour(),
        gpu.max_binding(),
        gpu.limits.max_buffer_size
    );
    let sizes = std::env::var("PARVLC_LARGE_MIB").unwrap_or_else(|_| "256,1024".into());
    for mib in sizes.split(',').map(|s| s.trim().parse::<usize>().unwrap()) {
        let data = generate(mib << 20, 4.5, 1);
        let table = table_for(&data, 24);
        let want = cpu::encode_parallel(&data, &table, BitOrder::MsbFirst, 0).unwrap();
        for max_segment_bytes in [None, Some(1u64 << 40)] {
            let c = BytestreamConfig {
                max_segment_bytes,
                ..BytestreamConfig::default()
            };
            let encoder = BytestreamEncoder::new(gpu, c).unwrap();
            let input = encoder.upload(&data).unwrap();
            for run in 0..3 {
                let t = std::time::Instant::now();
                let mut enc = gpu
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
                let pending = encoder
                    .encode_into(&mut enc, &input, &table, BitOrder::MsbFirst, 0, true)
                    .unwrap_or_else(|e| panic!("{mib} MiB: {e}"));
                let segments = pending.segments();
                gpu.queue.submit([enc.finish()]);
                let timings = pollster::block_on(pending.timings(gpu)).unwrap();
                let got = pollster::block_on(encoder.finish(pending))
                    .unwrap_or_else(|e| panic!("{mib} MiB: {e}"));
                let wall = t.elapsed().as_secs_f64();
                assert_same_bits(
                    &got,
                    &want,
                    &format!("{mib} MiB, segment cap {max_segment_bytes:?}"),
                );
                let gbs = |s: f64| data.len() as f64 / s / 1e9;
                let passes: Vec<String> = timings
                    .passes
                    .iter()
                    .map(|(l, s)| format!("{l} {:.3} ms", s * 1e3))
                    .collect();
                eprintln!(
                    "{mib} MiB, cap {max_segment_bytes:?}, run {run}: {segments} segments, exact; \
                     kernels {:.3} ms ({:.1} GB/s), span {:.3} ms, wall with readback {:.1} ms; {}",
                    timings.total() * 1e3,
                    gbs(timings.total()),
                    timings.span * 1e3,
                    wall * 1e3,
                    passes.join(", ")
                );
            }
        }
    }
}
