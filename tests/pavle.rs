//! PAVLE on the GPU (`PavleEncoder`) against the serial CPU coder and its CPU twin
//! (`encode_pavle_cpu`), bit for bit: bit orders, start bits, sizes around blocks,
//! entropies, length limits, segments, adversarial tables, both shader flavours, and the
//! tables PAVLE cannot serve.
mod common;
use common::{assert_same_bits, serial, table_for};

use parvlc::gpu::Gpu;
use parvlc::huffman::pavle::{encode_pavle_cpu, PavleConfig, PavleEncoder};
use parvlc::huffman::{cpu, BitOrder, CodeTable, Codebook};
use parvlc::testdata::{generate, SplitMix64};
use parvlc::Error;

const ORDERS: [BitOrder; 2] = [BitOrder::MsbFirst, BitOrder::LsbFirst];
const STARTS: [u32; 3] = [0, 5, 31];

fn config(workgroup_size: u32, net: u32) -> PavleConfig {
    PavleConfig {
        net,
        workgroup_size,
    }
}

/// A complete code whose longest code is `max_len` bits: symbols 0..max_len get lengths
/// 1, 2, ..., max_len - 1, max_len, max_len.
fn staircase(max_len: u8) -> CodeTable {
    let mut lengths = [0u8; 256];
    for (s, l) in lengths.iter_mut().enumerate().take(max_len as usize) {
        *l = s as u8 + 1;
    }
    lengths[max_len as usize] = max_len;
    Codebook::from_lengths(&lengths).unwrap().table().unwrap()
}

/// Encode on the GPU (through `encode_into` + `finish`) and check it against
/// `encode_serial`, and the CPU twin too; returns the segments recorded.
#[allow(clippy::too_many_arguments)]
fn check(
    gpu: &Gpu,
    data: &[u8],
    table: &CodeTable,
    order: BitOrder,
    start_bit: u32,
    config: &PavleConfig,
    segment_cap: Option<u64>,
    what: &str,
) -> usize {
    let what = format!(
        "{what} [{} bytes, {order:?}, start {start_bit}, wg {} net {}, cap {segment_cap:?}]",
        data.len(),
        config.workgroup_size,
        config.net,
    );
    let want = cpu::encode_serial(data, table, order, start_bit)
        .unwrap_or_else(|e| panic!("{what}: encode_serial: {e}"));
    let twin = encode_pavle_cpu(data, table, order, start_bit, config)
        .unwrap_or_else(|e| panic!("{what}: encode_pavle_cpu: {e}"));
    assert_same_bits(&twin, &want, &format!("{what}: CPU twin vs encode_serial"));

    let mut encoder = PavleEncoder::new(gpu, *config).unwrap();
    if let Some(cap) = segment_cap {
        encoder = encoder.with_segment_cap(cap);
    }
    let input = encoder.upload(data).unwrap();
    let mut commands = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let pending = encoder
        .encode_into(&mut commands, &input, table, order, start_bit, false)
        .unwrap_or_else(|e| panic!("{what}: encode_into: {e}"));
    gpu.queue.submit([commands.finish()]);
    let segments = pending.segments();
    assert_eq!(pending.bits(), want.bits, "{what}: planned bits");
    let got = pollster::block_on(encoder.finish(pending))
        .unwrap_or_else(|e| panic!("{what}: GPU encode failed: {e}"));
    assert_same_bits(&got, &want, &format!("{what}: GPU vs encode_serial"));
    segments
}

#[test]
fn orders_and_start_bits() {
    let _g = serial();
    let gpu = common::gpu();
    let data = generate(20_000, 4.5, 1);
    let table = table_for(&data, 32);
    for config in [PavleConfig::default(), config(32, 1)] {
        for order in ORDERS {
            for start in STARTS {
                check(gpu, &data, &table, order, start, &config, None, "orders");
            }
        }
    }
}

#[test]
fn sizes_around_blocks() {
    let _g = serial();
    let gpu = common::gpu();
    let mut k = 0usize;
    for config in [config(32, 1), config(64, 4), PavleConfig::default()] {
        let block = config.block_bytes() as usize;
        let sizes = [
            0,
            1,
            3,
            4,
            5,
            17,
            127,
            block - 1,
            block,
            block + 1,
            2 * block,
            3 * block + 7,
            21 * block + 13,
        ];
        for n in sizes {
            k += 1;
            let data = generate(n, 6.0, 100 + n as u64);
            let table = table_for(&data, 32);
            let order = ORDERS[k % 2];
            let start = STARTS[k % 3];
            check(gpu, &data, &table, order, start, &config, None, "size");
        }
    }
}

#[test]
fn entropies_and_length_limits() {
    let _g = serial();
    let gpu = common::gpu();
    let config = config(64, 2);
    for (i, entropy) in [0.0, 0.5, 2.0, 4.5, 7.0, 8.0].into_iter().enumerate() {
        let data = generate(9_000 + i, entropy, 10 + i as u64);
        for (j, max_len) in [32u8, 24, 16, 15].into_iter().enumerate() {
            let table = table_for(&data, max_len);
            let order = ORDERS[(i + j) % 2];
            let start = STARTS[(i + j) % 3];
            check(
                gpu,
                &data,
                &table,
                order,
                start,
                &config,
                None,
                &format!("entropy {entropy} max_len {max_len}"),
            );
        }
    }
}

#[test]
fn segments() {
    let _g = serial();
    let gpu = common::gpu();
    let data = generate(30_011, 5.0, 3);
    let table = table_for(&data, 32);
    let all32 = Codebook::from_lengths(&[32u8; 256])
        .unwrap()
        .table()
        .unwrap();
    let uniform = generate(12_345, 8.0, 4);
    let config = config(32, 1);
    // Caps that are a multiple of the chunk, not one, and below one block.
    for (i, cap) in [2048u64, 1000, 1].into_iter().enumerate() {
        let order = ORDERS[i % 2];
        let segs = check(
            gpu,
            &data,
            &table,
            order,
            STARTS[i],
            &config,
            Some(cap),
            "segments",
        );
        assert!(segs > 1, "cap {cap}: {segs} segments");
        let segs = check(
            gpu,
            &uniform,
            &all32,
            ORDERS[1 - i % 2],
            17,
            &config,
            Some(cap),
            "segments, 32-bit codes",
        );
        assert!(segs > 1, "cap {cap}, 32-bit codes: {segs} segments");
    }
}

/// More block-inputs than one dispatch has workgroups: the grid-stride loop takes the rest
/// (on lavapipe at most a few blocks per workgroup, within its loop budget).
#[test]
fn more_blocks_than_one_dispatch() {
    let _g = serial();
    let gpu = common::gpu();
    let config = config(32, 1);
    let max_groups = gpu.limits.max_compute_workgroups_per_dimension as usize;
    let n = config.block_bytes() as usize * (max_groups + 1000) + 77;
    let data = generate(n, 3.0, 90);
    let table = table_for(&data, 16);
    let segs = check(
        gpu,
        &data,
        &table,
        BitOrder::MsbFirst,
        13,
        &config,
        None,
        "grid stride",
    );
    assert_eq!(segs, 1);
}

#[test]
fn adversarial_tables() {
    let _g = serial();
    let gpu = common::gpu();
    let uniform = generate(6_000, 8.0, 22);
    let all32 = Codebook::from_lengths(&[32u8; 256])
        .unwrap()
        .table()
        .unwrap();
    let all8 = Codebook::from_lengths(&[8u8; 256])
        .unwrap()
        .table()
        .unwrap();
    // One symbol only: a 1-bit code (from its histogram), or a lone 32-bit code of all ones.
    let ones = vec![0xa7u8; 6_001];
    let one_bit = table_for(&ones, 32);
    assert_eq!(one_bit.lengths[0xa7], 1);
    let mut lengths = [0u8; 256];
    lengths[0xa7] = 32;
    let mut lone32 = Codebook::from_lengths(&lengths).unwrap().table().unwrap();
    lone32.codes[0xa7] = u32::MAX;
    for config in [PavleConfig::default(), config(64, 4)] {
        let encoder = PavleEncoder::new(gpu, config).unwrap();
        let serves_32 = encoder.max_code_len() >= 32;
        for order in ORDERS {
            for start in STARTS {
                if serves_32 {
                    check(
                        gpu,
                        &uniform,
                        &all32,
                        order,
                        start,
                        &config,
                        None,
                        "all 256 at 32 bits",
                    );
                } else {
                    assert_unserved(&encoder, &uniform, &all32, "all 256 at 32 bits");
                }
                check(
                    gpu,
                    &uniform,
                    &all8,
                    order,
                    start,
                    &config,
                    None,
                    "all 256 at 8 bits",
                );
                check(
                    gpu,
                    &ones,
                    &one_bit,
                    order,
                    start,
                    &config,
                    None,
                    "one symbol, 1-bit code",
                );
                if serves_32 {
                    check(
                        gpu,
                        &ones,
                        &lone32,
                        order,
                        start,
                        &config,
                        None,
                        "one symbol, 32 one bits",
                    );
                }
            }
        }
    }
}

#[test]
fn workgroup_memory_flavour() {
    let _g = serial();
    let gpu = common::gpu_workgroup_flavour();
    let data = generate(20_003, 4.5, 40);
    for (i, config) in [PavleConfig::default(), config(64, 4), config(32, 8)]
        .into_iter()
        .enumerate()
    {
        for (j, max_len) in [32u8, 15].into_iter().enumerate() {
            let table = table_for(&data, max_len);
            let order = ORDERS[(i + j) % 2];
            check(
                gpu,
                &data,
                &table,
                order,
                STARTS[(i + j) % 3],
                &config,
                None,
                "workgroup flavour",
            );
        }
    }
    let config = config(32, 1);
    let table = table_for(&data, 24);
    let segs = check(
        gpu,
        &data,
        &table,
        BitOrder::LsbFirst,
        31,
        &config,
        Some(4096),
        "workgroup flavour, segments",
    );
    assert!(segs > 1);
}

fn assert_unserved(encoder: &PavleEncoder<'_>, data: &[u8], table: &CodeTable, what: &str) {
    for order in ORDERS {
        match pollster::block_on(encoder.encode(data, table, order, 0)) {
            Err(Error::InvalidCodeTable(m)) => {
                assert!(m.contains("workgroup memory"), "{what}: message {m:?}")
            }
            Err(e) => panic!("{what}: expected InvalidCodeTable, got {e:?}"),
            Ok(b) => panic!("{what}: expected InvalidCodeTable, got {} bits", b.bits),
        }
    }
}

/// A configuration whose block buffer cannot hold 32-bit codes on this GPU refuses such
/// a table with a clear error, and serves the longest code it claims to.
#[test]
fn tables_it_cannot_serve() {
    let _g = serial();
    for gpu in [common::gpu(), common::gpu_workgroup_flavour()] {
        let limit = gpu.limits.max_compute_workgroup_storage_size;
        let found = [(256u32, 8u32), (512, 8), (1024, 8), (1024, 16), (1024, 32)]
            .into_iter()
            .map(|(wg, net)| config(wg, net))
            .find_map(|c| {
                let encoder = PavleEncoder::new(gpu, c).ok()?;
                let served = encoder.max_code_len();
                (2..32).contains(&served).then_some((c, encoder, served))
            });
        let Some((config, encoder, served)) = found else {
            panic!("no configuration limited below 32 bits with {limit} bytes of workgroup memory");
        };
        assert!(config.workgroup_bytes(served, gpu.flavour()) <= limit as u64);
        assert!(config.workgroup_bytes(served + 1, gpu.flavour()) > limit as u64);
        // Symbols 0..=served + 1 with a staircase code: the longest, served + 1 bits, in use.
        let mut rng = SplitMix64(5);
        let too_long = staircase(served as u8 + 1);
        let data: Vec<u8> = (0..3 * config.block_bytes() as usize + 5)
            .map(|_| rng.below(served as u64 + 2) as u8)
            .collect();
        assert_unserved(&encoder, &data, &too_long, "code one bit too long");
        // Without the longest symbol in the input the same table is served.
        let short: Vec<u8> = data.iter().map(|&b| b % (served as u8)).collect();
        for order in ORDERS {
            let want = cpu::encode_serial(&short, &too_long, order, 3).unwrap();
            let got = pollster::block_on(encoder.encode(&short, &too_long, order, 3)).unwrap();
            assert_same_bits(&got, &want, "longest code not in use");
        }
        // The longest code it claims to serve.
        let at_limit = staircase(served as u8);
        let data: Vec<u8> = data.iter().map(|&b| b % (served as u8 + 1)).collect();
        check(
            gpu,
            &data,
            &at_limit,
            BitOrder::MsbFirst,
            31,
            &config,
            None,
            "code at the limit",
        );
        // The CPU twin has no workgroup memory, and agrees with encode_serial.
        let data: Vec<u8> = (0..2000)
            .map(|_| rng.below(served as u64 + 2) as u8)
            .collect();
        for order in ORDERS {
            assert_same_bits(
                &encode_pavle_cpu(&data, &too_long, order, 9, &config).unwrap(),
                &cpu::encode_serial(&data, &too_long, order, 9).unwrap(),
                "CPU twin, long codes",
            );
        }
    }
}

#[test]
fn invalid_tables_and_arguments() {
    let _g = serial();
    let gpu = common::gpu();
    let config = config(32, 1);
    let data = generate(5_001, 5.0, 70);
    let table = table_for(&data, 32);
    let encoder = PavleEncoder::new(gpu, config).unwrap();
    let absent = (0..=255u8).find(|b| !data.contains(b)).unwrap();
    for at in [0usize, 2_500, data.len() - 1] {
        let mut bad = data.clone();
        bad[at] = absent;
        for order in ORDERS {
            assert!(matches!(
                pollster::block_on(encoder.encode(&bad, &table, order, 0)),
                Err(Error::InvalidCodeTable(_))
            ));
            assert!(matches!(
                encode_pavle_cpu(&bad, &table, order, 0, &config),
                Err(Error::InvalidCodeTable(_))
            ));
        }
    }
    let mut long = table.clone();
    long.lengths[data[0] as usize] = 33;
    assert!(matches!(
        pollster::block_on(encoder.encode(&data, &long, BitOrder::MsbFirst, 0)),
        Err(Error::InvalidCodeTable(_))
    ));
    for start in [32u32, u32::MAX] {
        assert!(matches!(
            pollster::block_on(encoder.encode(&data, &table, BitOrder::MsbFirst, start)),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            encode_pavle_cpu(&data, &table, BitOrder::MsbFirst, start, &config),
            Err(Error::InvalidArgument(_))
        ));
    }
    for (wg, net) in [
        (256u32, 0u32),
        (256, 3),
        (256, 64),
        (16, 1),
        (48, 1),
        (2048, 1),
    ] {
        assert!(
            matches!(
                PavleEncoder::new(
                    gpu,
                    PavleConfig {
                        net,
                        workgroup_size: wg
                    }
                ),
                Err(Error::InvalidArgument(_))
            ),
            "wg {wg} net {net}"
        );
    }
    // An input uploaded for another block size.
    let other = PavleEncoder::new(gpu, PavleConfig::default()).unwrap();
    let input = other.upload(&data).unwrap();
    let mut commands = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    assert!(matches!(
        encoder.encode_into(&mut commands, &input, &table, BitOrder::MsbFirst, 0, false),
        Err(Error::InvalidArgument(_))
    ));
    // Still works after the errors.
    check(
        gpu,
        &data,
        &table,
        BitOrder::LsbFirst,
        1,
        &config,
        None,
        "after errors",
    );
}

/// `encode_into` with profiling: the passes are labelled, and the result is exact.
#[test]
fn profiled_encode_into() {
    let _g = serial();
    let gpu = common::gpu();
    let data = generate(50_000, 4.5, 80);
    let table = table_for(&data, 16);
    let encoder = PavleEncoder::new(gpu, PavleConfig::default())
        .unwrap()
        .with_segment_cap(16 << 10);
    let input = encoder.upload(&data).unwrap();
    assert_eq!(input.len(), data.len() as u64);
    for order in ORDERS {
        let mut commands = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        let pending = encoder
            .encode_into(&mut commands, &input, &table, order, 7, true)
            .unwrap();
        gpu.queue.submit([commands.finish()]);
        assert!(pending.segments() > 1);
        let timings = pollster::block_on(pending.timings(gpu)).unwrap();
        if gpu.has_timestamps() {
            let labels: Vec<&str> = timings.passes.iter().map(|(l, _)| *l).collect();
            assert_eq!(
                labels,
                ["pavle", "pavle_scan", "pavle_compact"],
                "{order:?}"
            );
        }
        let got = pollster::block_on(encoder.finish(pending)).unwrap();
        assert_same_bits(
            &got,
            &cpu::encode_serial(&data, &table, order, 7).unwrap(),
            "profiled",
        );
    }
}

#[test]
fn seeded_random_combinations() {
    let _g = serial();
    let mut rng = SplitMix64(0x9A71E);
    for round in 0..16 {
        let wg = [32u32, 64, 128, 256][rng.below(4) as usize];
        let net = [1u32, 2, 4, 8][rng.below(4) as usize];
        let config = config(wg, net);
        let block = config.block_bytes();
        let n = match rng.below(3) {
            0 => rng.below(block * 2) as usize,
            1 => (block * (1 + rng.below(6))) as usize,
            _ => rng.below(40_000) as usize,
        };
        let cap = (rng.below(3) == 0).then(|| block * (1 + rng.below(4)));
        let entropy = [0.0, 0.3, 1.5, 4.0, 6.5, 8.0][rng.below(6) as usize];
        let data = generate(n, entropy, rng.next_u64());
        let table = table_for(&data, [32u8, 24, 16, 15][rng.below(4) as usize]);
        let order = ORDERS[rng.below(2) as usize];
        let start = rng.below(32) as u32;
        let gpu = if rng.below(4) == 0 {
            common::gpu_workgroup_flavour()
        } else {
            common::gpu()
        };
        check(
            gpu,
            &data,
            &table,
            order,
            start,
            &config,
            cap,
            &format!("random round {round}"),
        );
    }
}

/// The CPU twin alone, on more shapes than the GPU tests can afford on lavapipe.
#[test]
fn cpu_twin_matches_serial() {
    let mut rng = SplitMix64(77);
    for round in 0..60 {
        let config = config(
            [32u32, 64, 256, 1024][rng.below(4) as usize],
            [1u32, 2, 4, 8, 16, 32][rng.below(6) as usize],
        );
        let n = rng.below(3 * config.block_bytes() + 100) as usize;
        let data = generate(n, rng.below(9) as f64, round);
        let (table, data) = if rng.below(4) == 0 {
            (staircase(32), data.iter().map(|&b| b % 33).collect())
        } else {
            let max_len = [32u8, 24, 16, 15][rng.below(4) as usize];
            (table_for(&data, max_len), data)
        };
        let order = ORDERS[rng.below(2) as usize];
        let start = rng.below(32) as u32;
        assert_same_bits(
            &encode_pavle_cpu(&data, &table, order, start, &config).unwrap(),
            &cpu::encode_serial(&data, &table, order, start).unwrap(),
            &format!("twin round {round}"),
        );
    }
}
