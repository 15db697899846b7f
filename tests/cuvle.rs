//! CUVLE on every GPU path present (wgpu's `VleEncoder`; CUDA's `CudaVleEncoder` in both
//! write modes, where the `cuda` feature and a driver are there) against the serial CPU
//! coder and the CPU twin (`encode_cuvle_cpu`), bit for bit, along every axis of its
//! configuration.
mod common;
use common::{same_bits, serial, table_for};

use common::Vle;
use parvlc::huffman::cuvle::{encode_cuvle_cpu, CuvleConfig, Encoded};
use parvlc::huffman::{cpu, BitOrder, CodeTable, Codebook};
use parvlc::scan::{ScanConfig, ScanStrategy};
use parvlc::testdata::{generate, SplitMix64};
use parvlc::{Backend, Error};

const ORDERS: [BitOrder; 2] = [BitOrder::MsbFirst, BitOrder::LsbFirst];

/// A small configuration: `workgroup_size` threads of `net` words, so small inputs
/// already have many blocks.
fn config(strategy: ScanStrategy, workgroup_size: u32, net: u32) -> CuvleConfig {
    CuvleConfig {
        net,
        scan: ScanConfig {
            strategy,
            workgroup_size,
            ..ScanConfig::default()
        },
        max_segment_bytes: None,
        stage_words: None,
        host_output: false,
    }
}

/// lavapipe cuts every loop of a shader invocation after 65535 iterations in all, so a
/// chained workgroup that spins long gives up: src documents that chained then fails
/// with an error, never with wrong output. On a software adapter a chained error is
/// therefore accepted (and printed); wrong output never is, and on a hardware adapter
/// nothing but the exact result is.
fn chained_may_fail(gpu: &dyn Vle, strategy: ScanStrategy) -> bool {
    strategy == ScanStrategy::Chained && gpu.software()
}

/// Encode on the GPU and check it against both CPU coders, the block offsets and the
/// fallback count; returns the GPU result for further checks (None: a chained error
/// accepted on a software adapter).
fn try_check(
    gpu: &dyn Vle,
    data: &[u8],
    table: &CodeTable,
    order: BitOrder,
    start_bit: u32,
    config: &CuvleConfig,
    what: &str,
) -> Result<Option<Encoded>, String> {
    let what = format!(
        "{what} on {} [{} bytes, {:?}, start {start_bit}, {} wg {} net {} spin {} resident {} max_segment {:?}]",
        gpu.name(),
        data.len(),
        order,
        config.scan.strategy.name(),
        config.scan.workgroup_size,
        config.net,
        config.scan.spin_budget,
        config.scan.resident_workgroups,
        config.max_segment_bytes,
    );
    let want = cpu::encode_serial(data, table, order, start_bit)
        .map_err(|e| format!("{what}: encode_serial: {e}"))?;
    let twin = encode_cuvle_cpu(data, table, order, start_bit, config)
        .map_err(|e| format!("{what}: encode_cuvle_cpu: {e}"))?;
    same_bits(&twin, &want, &format!("{what}: CPU twin vs encode_serial"))?;

    gpu.accepts(config)
        .map_err(|e| format!("{what}: new: {e}"))?;
    let got = match gpu.encode(data, table, order, start_bit, config) {
        Ok(got) => got,
        Err(e @ (Error::ScanStalled { .. } | Error::Gpu { .. }))
            if chained_may_fail(gpu, config.scan.strategy) =>
        {
            eprintln!("{what}: accepted chained error on a software adapter: {e}");
            return Ok(None);
        }
        Err(e) => return Err(format!("{what}: GPU encode failed: {e}")),
    };
    same_bits(&got.stream, &want, &format!("{what}: GPU vs encode_serial"))?;

    let block = config.block_bytes();
    if got.block_bytes != block {
        return Err(format!(
            "{what}: block_bytes {} != {block}",
            got.block_bytes
        ));
    }
    let mut expected = Vec::new();
    let mut at = start_bit as u64;
    for chunk in data.chunks(block as usize) {
        expected.push(at);
        at += chunk
            .iter()
            .map(|&b| table.lengths[b as usize] as u64)
            .sum::<u64>();
    }
    assert_eq!(
        at, want.bits,
        "{what}: block code lengths add up to the stream"
    );
    if got.block_offsets.len() != expected.len() {
        return Err(format!(
            "{what}: {} block offsets for {} blocks",
            got.block_offsets.len(),
            expected.len()
        ));
    }
    if let Some(b) = (0..expected.len()).find(|&b| got.block_offsets[b] != expected[b]) {
        return Err(format!(
            "{what}: offset of block {b} of {} is {}, expected {}",
            expected.len(),
            got.block_offsets[b],
            expected[b]
        ));
    }
    if config.scan.strategy != ScanStrategy::Decoupled && got.fallbacks != 0 {
        return Err(format!(
            "{what}: {} fallbacks; only the decoupled strategy falls back",
            got.fallbacks
        ));
    }
    if !data.is_empty() && got.segments == 0 {
        return Err(format!("{what}: 0 segments"));
    }
    Ok(Some(got))
}

fn check(
    gpu: &dyn Vle,
    data: &[u8],
    table: &CodeTable,
    order: BitOrder,
    start_bit: u32,
    config: &CuvleConfig,
    what: &str,
) -> Option<Encoded> {
    try_check(gpu, data, table, order, start_bit, config, what).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_strategy_order_and_start_bit() {
    let _g = serial();
    for gpu in common::vles() {
        let data = generate(40_000, 4.5, 1); // 40 blocks of 1 KiB
        let table = table_for(&data, 32);
        for strategy in ScanStrategy::ALL {
            let config = config(strategy, 64, 4);
            for order in ORDERS {
                for start in [0u32, 5, 31] {
                    check(
                        gpu,
                        &data,
                        &table,
                        order,
                        start,
                        &config,
                        "strategy x order x start",
                    );
                }
            }
        }
    }
}

#[test]
fn sizes_around_blocks() {
    let _g = serial();
    for gpu in common::vles() {
        for (k, (wg, net)) in [(64u32, 4u32), (256, 16)].into_iter().enumerate() {
            let config = config(ScanStrategy::Decoupled, wg, net);
            let block = config.block_bytes() as usize;
            let mut sizes = vec![0usize, 1, 3, 4, 5, 15, 16, 17, 63, 4095];
            sizes.extend([
                block - 1,
                block,
                block + 1,
                2 * block,
                3 * block,
                4 * block + 7,
            ]);
            if k == 0 {
                sizes.extend([64 * block, 100 * block + 13]);
            }
            for (i, &n) in sizes.iter().enumerate() {
                let data = generate(n, 6.0, 100 + n as u64);
                let table = table_for(&data, 32);
                let order = ORDERS[i % 2];
                let start = [0u32, 5, 31][i % 3];
                check(gpu, &data, &table, order, start, &config, "size");
            }
        }
    }
}

/// Bytes of every other size, with one fixed table: the whole code length range.
#[test]
fn many_small_sizes() {
    let _g = serial();
    for gpu in common::vles() {
        let lengths: Vec<u8> = (0..256).map(|s| 9 + (s % 24) as u8).collect();
        let table = Codebook::from_lengths(&lengths).unwrap().table().unwrap();
        let config = config(ScanStrategy::Decoupled, 64, 4);
        let mut rng = SplitMix64(9);
        for n in (0..70).chain([255, 256, 257, 1023, 1025, 2047, 2049]) {
            let mut data = vec![0u8; n];
            rng.fill(&mut data);
            let order = ORDERS[n % 2];
            let start = (n as u32 * 7) % 32;
            check(gpu, &data, &table, order, start, &config, "small size");
        }
    }
}

#[test]
fn many_segments() {
    let _g = serial();
    for gpu in common::vles() {
        let data = generate(30_011, 5.0, 3);
        let table = table_for(&data, 32);
        for strategy in ScanStrategy::ALL {
            for (i, order) in ORDERS.into_iter().enumerate() {
                let config = CuvleConfig {
                    max_segment_bytes: Some(2048),
                    stage_words: None,
                    ..config(strategy, 64, 4)
                };
                let what = "segments";
                if let Some(got) = check(gpu, &data, &table, order, [5u32, 31][i], &config, what) {
                    assert!(
                        got.segments >= data.len().div_ceil(2048),
                        "{} segments",
                        got.segments
                    );
                }
            }
        }
        // Caps that are not a multiple of the block, or smaller than one block.
        for cap in [3000u64, 1024, 100, 1] {
            let config = CuvleConfig {
                max_segment_bytes: Some(cap),
                stage_words: None,
                ..config(ScanStrategy::Decoupled, 64, 4)
            };
            for order in ORDERS {
                let got = check(gpu, &data, &table, order, 31, &config, "segment cap").unwrap();
                assert!(got.segments > 1, "cap {cap}: {} segments", got.segments);
            }
        }
        // Whole-word codes: every segment starts on the same phase; odd codes: every phase.
        let wide = Codebook::from_lengths(&[32u8; 256])
            .unwrap()
            .table()
            .unwrap();
        let random = generate(20_000, 8.0, 4);
        let config = CuvleConfig {
            max_segment_bytes: Some(4096),
            stage_words: None,
            ..config(ScanStrategy::Decoupled, 64, 8)
        };
        for order in ORDERS {
            for start in [0u32, 17] {
                let got = check(
                    gpu,
                    &random,
                    &wide,
                    order,
                    start,
                    &config,
                    "segments, 32-bit codes",
                )
                .unwrap();
                assert!(got.segments > 1);
            }
        }
    }
}

/// The output written where the host reads it (`host_output`): every block staged, its
/// end words placed by the host; across entropies, code lengths up to 32 bits, bit
/// orders, start bits and segments. Where the adapter maps storage it must be taken.
#[test]
fn an_output_written_in_place() {
    let _g = serial();
    let gpu = common::gpu();
    let maps = gpu
        .features
        .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);
    for (i, entropy) in [0.0, 2.0, 4.5, 8.0].into_iter().enumerate() {
        let data = generate(20_000 + 777 * i, entropy, 40 + i as u64);
        for (max_len, cap) in [(32u8, None), (15, Some(3000u64)), (24, Some(1024))] {
            let table = table_for(&data, max_len);
            let config = CuvleConfig {
                max_segment_bytes: cap,
                host_output: true,
                ..config(ScanStrategy::Decoupled, 64, 4)
            };
            for (k, order) in ORDERS.into_iter().enumerate() {
                let what = format!("in place, entropy {entropy} max_len {max_len}");
                let start = (i as u32 * 13 + k as u32 * 7) % 32;
                let got = check(gpu, &data, &table, order, start, &config, &what).unwrap();
                assert_eq!(got.written_in_place, maps, "{what}: written in place");
            }
        }
    }
}

#[test]
fn entropies_and_length_limits() {
    let _g = serial();
    for gpu in common::vles() {
        let config = config(ScanStrategy::Decoupled, 64, 8);
        for (i, entropy) in [0.0, 0.5, 2.0, 4.5, 7.0, 8.0].into_iter().enumerate() {
            let data = generate(30_000, entropy, 10 + i as u64);
            // 16 and 15 take the kernel's two-symbols-per-put path (PAIRS), 24 and 32 not.
            for max_len in [32u8, 24, 16, 15] {
                let table = table_for(&data, max_len);
                for order in ORDERS {
                    check(
                        gpu,
                        &data,
                        &table,
                        order,
                        (i as u32 * 11) % 32,
                        &config,
                        &format!("entropy {entropy} max_len {max_len}"),
                    );
                }
            }
        }
    }
}

/// Code lengths from Fibonacci weights over 60 symbols: the length limit binds.
fn fibonacci_table(max_len: u8) -> (CodeTable, Vec<u8>) {
    let mut fib = vec![1u64, 1];
    while fib.len() < 60 {
        let k = fib.len();
        fib.push(fib[k - 1] + fib[k - 2]);
    }
    let mut freqs = vec![0u64; 256];
    let symbols: Vec<u8> = (0..60).map(|i| (i * 4 + 3) as u8).collect();
    for (&s, &f) in symbols.iter().zip(&fib) {
        freqs[s as usize] = f;
    }
    let book = Codebook::from_frequencies(&freqs, max_len).unwrap();
    assert_eq!(book.max_len(), max_len as u32, "the limit binds");
    (book.table().unwrap(), symbols)
}

#[test]
fn adversarial_tables() {
    let _g = serial();
    for gpu in common::vles() {
        let mut rng = SplitMix64(21);
        let config = config(ScanStrategy::Decoupled, 64, 4);
        let multi = CuvleConfig {
            max_segment_bytes: Some(2048),
            stage_words: None,
            ..config
        };
        let uniform = generate(20_000, 8.0, 22);

        let all32 = Codebook::from_lengths(&[32u8; 256])
            .unwrap()
            .table()
            .unwrap();
        let all8 = Codebook::from_lengths(&[8u8; 256])
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
                    &config,
                    "all 256 at 32 bits",
                );
                check(
                    gpu,
                    &uniform,
                    &all8,
                    order,
                    start,
                    &config,
                    "all 256 at 8 bits",
                );
            }
            check(
                gpu,
                &uniform,
                &all32,
                order,
                13,
                &multi,
                "all 256 at 32 bits, segments",
            );
        }

        // One symbol only: a 1-bit code (from its histogram), or a lone 32-bit code.
        let ones = vec![0xa7u8; 20_000];
        let one_bit = table_for(&ones, 32);
        assert_eq!(one_bit.lengths[0xa7], 1);
        let mut lengths = [0u8; 256];
        lengths[0xa7] = 32;
        let lone32 = Codebook::from_lengths(&lengths).unwrap().table().unwrap();
        let all_ones_32 = {
            // The lone code all ones, so every bit written is visible.
            let mut t = lone32.clone();
            t.codes[0xa7] = u32::MAX;
            t
        };
        let all_ff = vec![0xffu8; 20_000];
        for order in ORDERS {
            for start in [0u32, 31] {
                check(
                    gpu,
                    &ones,
                    &one_bit,
                    order,
                    start,
                    &config,
                    "one symbol, 1-bit code",
                );
                check(
                    gpu,
                    &ones,
                    &one_bit,
                    order,
                    start,
                    &multi,
                    "one symbol, 1-bit code, segments",
                );
                check(
                    gpu,
                    &ones,
                    &lone32,
                    order,
                    start,
                    &config,
                    "one symbol, lone 32-bit code",
                );
                check(
                    gpu,
                    &ones,
                    &all_ones_32,
                    order,
                    start,
                    &config,
                    "one symbol, 32 one bits",
                );
                check(
                    gpu,
                    &all_ff,
                    &all32,
                    order,
                    start,
                    &config,
                    "0xff at 32 bits",
                );
            }
        }

        // Length-limited Fibonacci-skewed codes, the longest codes frequent in the data.
        for max_len in [32u8, 24] {
            let (table, symbols) = fibonacci_table(max_len);
            let data: Vec<u8> = (0..25_000)
                .map(|_| symbols[rng.below(symbols.len() as u64) as usize])
                .collect();
            for order in ORDERS {
                for start in [0u32, 9, 31] {
                    check(
                        gpu,
                        &data,
                        &table,
                        order,
                        start,
                        &config,
                        &format!("Fibonacci, max {max_len}"),
                    );
                }
                check(
                    gpu,
                    &data,
                    &table,
                    order,
                    3,
                    &multi,
                    &format!("Fibonacci, max {max_len}, segments"),
                );
            }
        }

        // Arbitrary bit patterns of every length 1..=32 (a VLE table need not be a prefix
        // code): every code value and length combination at every phase.
        for seed in 0..3u64 {
            let mut t = CodeTable {
                codes: [0; 256],
                lengths: [0; 256],
            };
            for s in 0..256 {
                let len = 1 + ((s as u64 + seed * 7) % 32) as u8;
                let mask = if len == 32 {
                    u32::MAX
                } else {
                    (1u32 << len) - 1
                };
                t.lengths[s] = len;
                t.codes[s] = rng.next_u64() as u32 & mask;
            }
            for order in ORDERS {
                check(
                    gpu,
                    &uniform,
                    &t,
                    order,
                    (seed as u32 * 13) % 32,
                    &config,
                    "random bit patterns",
                );
            }
        }
    }
}

#[test]
fn net_and_workgroup_sizes() {
    let _g = serial();
    for gpu in common::vles() {
        let mut k = 0u64;
        for wg in [64u32, 256] {
            for net in [4u32, 8, 16, 32] {
                k += 1;
                let config = config(ScanStrategy::Decoupled, wg, net);
                // Three and a half blocks, so every block position and a partial one occur.
                let n = (config.block_bytes() * 7 / 2) as usize + 3;
                let data = generate(n, 5.5, 30 + k);
                let table = table_for(&data, 32);
                let order = ORDERS[k as usize % 2];
                check(
                    gpu,
                    &data,
                    &table,
                    order,
                    (k as u32 * 5) % 32,
                    &config,
                    "net x workgroup size",
                );
            }
        }
        // The edges of the workgroup size range.
        for wg in [32u32, 1024] {
            let config = config(ScanStrategy::Decoupled, wg, 4);
            let n = (config.block_bytes() * 5 / 2) as usize + 1;
            let data = generate(n, 3.0, wg as u64);
            let table = table_for(&data, 32);
            for order in ORDERS {
                check(gpu, &data, &table, order, 7, &config, "workgroup size edge");
            }
        }
    }
}

#[test]
fn workgroup_memory_flavour() {
    let _g = serial();
    if !common::enabled(Backend::Wgpu) {
        return;
    }
    let gpu = common::gpu_workgroup_flavour();
    let data = generate(40_003, 4.5, 40);
    let table = table_for(&data, 32);
    let all32 = Codebook::from_lengths(&[32u8; 256])
        .unwrap()
        .table()
        .unwrap();
    for strategy in ScanStrategy::ALL {
        for (i, order) in ORDERS.into_iter().enumerate() {
            let config = config(strategy, [64u32, 256][i], [4u32, 16][i]);
            check(gpu, &data, &table, order, 31, &config, "workgroup flavour");
            let multi = CuvleConfig {
                max_segment_bytes: Some(8192),
                stage_words: None,
                ..config
            };
            check(
                gpu,
                &data,
                &all32,
                order,
                5,
                &multi,
                "workgroup flavour, segments",
            );
        }
    }
    for order in ORDERS {
        let config = config(ScanStrategy::Decoupled, 64, 4);
        let config = CuvleConfig {
            scan: ScanConfig {
                spin_budget: 0,
                ..config.scan
            },
            ..config
        };
        let got = check(
            gpu,
            &data,
            &table,
            order,
            0,
            &config,
            "workgroup flavour, spin 0",
        )
        .unwrap();
        assert!(got.fallbacks > 0, "spin_budget 0 took no fallback");
    }
}

#[test]
fn decoupled_fallback_is_exact() {
    let _g = serial();
    let mut targets: Vec<(&dyn Vle, &str)> = Vec::new();
    if common::enabled(Backend::Wgpu) {
        targets.push((common::gpu(), "default"));
        targets.push((common::gpu_workgroup_flavour(), "workgroup"));
    }
    targets.extend(common::cuda_vles().into_iter().map(|v| (v, "cuda")));
    for (gpu, name) in targets {
        for (wg, net) in [(64u32, 4u32), (256, 8)] {
            let base = config(ScanStrategy::Decoupled, wg, net);
            let config = CuvleConfig {
                scan: ScanConfig {
                    spin_budget: 0,
                    ..base.scan
                },
                ..base
            };
            // 48 blocks and a partial one.
            let n = config.block_bytes() as usize * 48 + 999;
            let data = generate(n, 6.5, 50 + wg as u64);
            let table = table_for(&data, 32);
            for (i, order) in ORDERS.into_iter().enumerate() {
                let what = format!("{name} flavour, spin 0");
                let got = check(gpu, &data, &table, order, [0u32, 31][i], &config, &what).unwrap();
                assert!(got.fallbacks > 0, "{what}: no fallback taken");
            }
            // The fallbacks of every segment are summed.
            let multi = CuvleConfig {
                max_segment_bytes: Some(config.block_bytes() * 4),
                ..config
            };
            let got = check(
                gpu,
                &data,
                &table,
                BitOrder::LsbFirst,
                3,
                &multi,
                "spin 0, segments",
            )
            .unwrap();
            assert!(got.segments > 1);
            assert!(got.fallbacks > 0, "spin 0 over segments: no fallback taken");
        }
    }
}

/// Blocks for the one-resident-workgroup test: 6 MB in 512-byte blocks, far more than
/// one shader invocation can loop over under lavapipe's 65535-iteration budget (at the
/// time of writing about 1300 to 3500 blocks, depending on the shader).
const BLOCKS: usize = 12_000;

/// One resident workgroup takes every block in turn: the persistent loop must not
/// depend on how many blocks one workgroup handles. (On lavapipe this reaches gallivm's
/// limit of 65535 loop iterations per shader invocation, shared by every loop; after it
/// every loop exits early.)
#[test]
fn one_resident_workgroup_takes_every_block() {
    let _g = serial();
    for gpu in common::vles() {
        let mut failures = Vec::new();
        for strategy in ScanStrategy::ALL {
            let base = config(strategy, 32, 4);
            let config = CuvleConfig {
                scan: ScanConfig {
                    resident_workgroups: 1,
                    ..base.scan
                },
                ..base
            };
            // BLOCKS blocks of 512 bytes, one workgroup.
            let data = generate(config.block_bytes() as usize * BLOCKS - 5, 5.0, 60);
            let table = table_for(&data, 32);
            let what = "one resident workgroup";
            if let Err(e) = try_check(gpu, &data, &table, BitOrder::MsbFirst, 3, &config, what) {
                failures.push(e);
            }
        }
        assert!(
            failures.is_empty(),
            "{} of 3 strategies failed:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}

#[test]
fn seeded_random_combinations() {
    let _g = serial();
    let mut targets: Vec<(&dyn Vle, bool)> = Vec::new();
    if common::enabled(Backend::Wgpu) {
        targets.push((common::gpu(), true));
    }
    targets.extend(common::cuda_vles().into_iter().map(|v| (v, false)));
    for (target, is_wgpu) in targets {
        let mut rng = SplitMix64(0xC0FFEE);
        for round in 0..40 {
            let strategy = ScanStrategy::ALL[rng.below(3) as usize];
            let wg = [32u32, 64, 128, 256][rng.below(4) as usize];
            let net = [4u32, 8, 16, 32][rng.below(4) as usize];
            let mut config = config(strategy, wg, net);
            if strategy == ScanStrategy::Decoupled && rng.below(3) == 0 {
                config.scan.spin_budget = 0;
            }
            config.scan.resident_workgroups = [1024u32, 3, 17][rng.below(3) as usize];
            let block = config.block_bytes();
            let n = match rng.below(4) {
                0 => rng.below(block * 2) as usize,
                1 => (block * (1 + rng.below(8))) as usize,
                _ => rng.below(120_000) as usize,
            };
            // spin_budget 0 costs O(blocks^2); its long runs have their own test
            // (decoupled_fallback_is_exact).
            let n = if config.scan.spin_budget == 0 {
                n.min(block as usize * 64)
            } else {
                n
            };
            if rng.below(3) == 0 {
                config.max_segment_bytes = Some(block * (1 + rng.below(4)));
            }
            let entropy = [0.0, 0.3, 1.5, 4.0, 6.5, 8.0][rng.below(6) as usize];
            let data = generate(n, entropy, rng.next_u64());
            let table = table_for(&data, [32u8, 24, 16][rng.below(3) as usize]);
            let order = ORDERS[rng.below(2) as usize];
            let start = rng.below(32) as u32;
            // A quarter of the wgpu rounds take the workgroup-memory flavour.
            let gpu: &dyn Vle = if rng.below(4) == 0 && is_wgpu {
                common::gpu_workgroup_flavour()
            } else {
                target
            };
            check(
                gpu,
                &data,
                &table,
                order,
                start,
                &config,
                &format!("random round {round}"),
            );
        }
    }
}

fn assert_invalid_table(
    gpu: &dyn Vle,
    data: &[u8],
    table: &CodeTable,
    config: &CuvleConfig,
    what: &str,
) {
    gpu.accepts(config).unwrap();
    for order in ORDERS {
        match gpu.encode(data, table, order, 0, config) {
            Err(Error::InvalidCodeTable(_)) => {}
            Err(e) => panic!("{what}: expected InvalidCodeTable, got {e:?}"),
            Ok(e) => panic!(
                "{what}: expected InvalidCodeTable, got {} bits",
                e.stream.bits
            ),
        }
        assert!(
            matches!(
                encode_cuvle_cpu(data, table, order, 0, config),
                Err(Error::InvalidCodeTable(_))
            ),
            "{what}: CPU twin accepted the table"
        );
    }
}

#[test]
fn invalid_tables_and_arguments() {
    let _g = serial();
    for gpu in common::vles() {
        let config = config(ScanStrategy::Decoupled, 64, 4);
        let multi = CuvleConfig {
            max_segment_bytes: Some(2048),
            stage_words: None,
            ..config
        };
        let data = generate(10_001, 5.0, 70);
        let table = table_for(&data, 32);
        let absent = (0..=255u8)
            .find(|b| !data.contains(b))
            .expect("a byte absent from the data");

        // A byte without a code: first, in the middle, the last byte of an odd tail, and in a
        // later segment.
        for at in [0usize, 5_000, data.len() - 1, 9_000] {
            let mut bad = data.clone();
            bad[at] = absent;
            let what = format!("byte 0x{absent:02x} without a code at {at}");
            assert!(cpu::encode_serial(&bad, &table, BitOrder::MsbFirst, 0).is_err());
            assert_invalid_table(gpu, &bad, &table, &config, &what);
            assert_invalid_table(gpu, &bad, &table, &multi, &format!("{what}, segments"));
        }
        // An empty table for a one-byte input.
        let empty = CodeTable {
            codes: [0; 256],
            lengths: [0; 256],
        };
        assert_invalid_table(gpu, &[7], &empty, &config, "empty table");
        // A code longer than 32 bits; a code with bits above its length.
        let mut long = table.clone();
        long.lengths[data[0] as usize] = 33;
        assert_invalid_table(gpu, &data, &long, &config, "33-bit code");
        let mut wide = table.clone();
        let s = (0..256)
            .filter(|&s| table.lengths[s] > 0)
            .min_by_key(|&s| table.lengths[s])
            .unwrap();
        wide.codes[s] |= 1 << wide.lengths[s];
        assert_invalid_table(gpu, &data, &wide, &config, "code wider than its length");

        // Bad arguments are errors, not output.
        gpu.accepts(&config).unwrap();
        for start in [32u32, 33, u32::MAX] {
            assert!(
                matches!(
                    gpu.encode(&data, &table, BitOrder::MsbFirst, start, &config),
                    Err(Error::InvalidArgument(_))
                ),
                "start bit {start}"
            );
        }
        for net in [0u32, 3, 12, 64] {
            assert!(
                matches!(
                    gpu.accepts(&CuvleConfig { net, ..config }),
                    Err(Error::InvalidArgument(_))
                ),
                "NET {net}"
            );
        }
        for wg in [0u32, 16, 48, 2048] {
            let bad = CuvleConfig {
                scan: ScanConfig {
                    workgroup_size: wg,
                    ..config.scan
                },
                ..config
            };
            assert!(
                matches!(gpu.accepts(&bad), Err(Error::InvalidArgument(_))),
                "workgroup size {wg}"
            );
        }
        // The encoder still works after the errors.
        check(
            gpu,
            &data,
            &table,
            BitOrder::LsbFirst,
            1,
            &config,
            "after errors",
        );
    }
}

/// The default configuration, as `parvlc` runs it (the smoke test this file replaces).
#[test]
fn default_config() {
    let _g = serial();
    for gpu in common::vles() {
        let data = generate(100_000, 4.5, 1);
        let table = table_for(&data, 32);
        for order in ORDERS {
            check(
                gpu,
                &data,
                &table,
                order,
                5,
                &CuvleConfig::default(),
                "default config",
            );
        }
    }
}

/// Chained with one workgroup that takes every block in ticket order: each predecessor
/// has always published, so no workgroup waits on another, and chained must be exact on
/// every adapter, software ones included (no error is accepted here).
#[test]
fn chained_single_workgroup_is_exact_everywhere() {
    let _guard = serial();
    for gpu in common::vles() {
        let mut cfg = config(ScanStrategy::Chained, 64, 4);
        cfg.scan.resident_workgroups = 1;
        cfg.scan.max_blocks_per_workgroup = Some(u32::MAX);
        let data = parvlc::testdata::generate(64 * 1024 + 77, 4.5, 31);
        let table = table_for(&data, 24);
        for order in [BitOrder::MsbFirst, BitOrder::LsbFirst] {
            let want = cpu::encode_serial(&data, &table, order, 3).unwrap();
            let got = gpu
                .encode(&data, &table, order, 3, &cfg)
                .unwrap_or_else(|e| {
                    panic!("chained, one workgroup, {order:?} on {}: {e}", gpu.name())
                });
            assert_eq!(
                got.stream,
                want,
                "chained, one workgroup, {order:?} on {}",
                gpu.name()
            );
        }
    }
}

/// The two-symbols-per-put path (codes of at most 16 bits) with every strategy, many
/// segments and a Fibonacci table that reaches exactly 16 bits.
#[test]
fn pairs_path_with_every_strategy_and_segments() {
    let _g = serial();
    for gpu in common::vles() {
        let (table, data) = fibonacci_table(16);
        assert_eq!(table.max_len(), 16);
        for strategy in ScanStrategy::ALL {
            let mut cfg = config(strategy, 64, 8);
            cfg.max_segment_bytes = Some(4096);
            for order in ORDERS {
                check(gpu, &data, &table, order, 7, &cfg, "fibonacci 16, segments");
            }
        }
        let data = generate(100_003, 6.0, 99);
        let table = table_for(&data, 16);
        for order in ORDERS {
            check(
                gpu,
                &data,
                &table,
                order,
                0,
                &config(ScanStrategy::Decoupled, 256, 16),
                "entropy 6, limit 16, default shape",
            );
        }
    }
}

/// Without a driver (CI), opening CUDA is an error that says what is missing; with one,
/// the device is described.
#[cfg(feature = "cuda")]
#[test]
fn cuda_open_reports_what_is_missing() {
    match parvlc::cuda::CudaGpu::new() {
        Ok(c) => {
            assert!(c.sm_count() > 0);
            eprintln!("CUDA device: {}", c.adapter_name());
        }
        Err(e) => {
            let m = e.to_string();
            assert!(
                m.starts_with("CUDA: ")
                    && (m.contains("no CUDA driver")
                        || m.contains("device")
                        || m.contains("NVRTC")),
                "{m}"
            );
            assert!(
                std::env::var("PARVLC_REQUIRE_CUDA").as_deref() != Ok("1"),
                "PARVLC_REQUIRE_CUDA=1: {m}"
            );
        }
    }
}

/// The warp writer's stage overflows (a stage of 1 code bit per input byte: every warp
/// with longer codes) and those warps fall back to direct writes beside warps that fit;
/// other block counts per SM and block sizes; both bit orders.
#[cfg(feature = "cuda")]
#[test]
fn cuda_stage_overflow_and_launch_shapes() {
    use common::CudaVle;
    use parvlc::cuda::{CudaConfig, CudaWrite};
    let _g = serial();
    let Some(gpu) = common::cuda() else {
        return;
    };
    let tiny = CudaVle {
        gpu,
        tuning: CudaConfig {
            write: CudaWrite::Warp,
            stage_bits_per_byte: 1,
            ..Default::default()
        },
    };
    // Runs of one symbol (1-bit codes: the stage fits) between random bytes (it does not).
    let mut data = generate(300_000, 8.0, 90);
    for chunk in data.chunks_mut(20_000).step_by(2) {
        chunk.fill(0x41);
    }
    let table = table_for(&data, 32);
    for (wg, net) in [(64u32, 4u32), (256, 16), (128, 32)] {
        for order in ORDERS {
            check(
                &tiny,
                &data,
                &table,
                order,
                13,
                &config(ScanStrategy::Decoupled, wg, net),
                "tiny stage",
            );
        }
    }
    for (write, blocks) in [
        (CudaWrite::Warp, 1u32),
        (CudaWrite::Direct, 2),
        (CudaWrite::Warp, 3),
    ] {
        let shaped = CudaVle {
            gpu,
            tuning: CudaConfig {
                write,
                blocks_per_sm: Some(blocks),
                ..Default::default()
            },
        };
        for (strategy, wg) in [
            (ScanStrategy::Decoupled, 1024u32),
            (ScanStrategy::Chained, 512),
            (ScanStrategy::ReduceThenScan, 32),
        ] {
            let cfg = CuvleConfig {
                scan: ScanConfig {
                    resident_workgroups: u32::MAX,
                    ..config(strategy, wg, 8).scan
                },
                ..config(strategy, wg, 8)
            };
            check(
                &shaped,
                &data,
                &table,
                BitOrder::MsbFirst,
                0,
                &cfg,
                "launch shape",
            );
        }
    }
}

/// An input that needs several segments on its own (over 2^30 code bits: 160 MiB of
/// random bytes at 8 bits each), in 16 MiB histogram chunks, on the whole GPU.
#[cfg(feature = "cuda")]
#[test]
fn cuda_large_input_spans_segments() {
    use common::CudaVle;
    let _g = serial();
    let Some(gpu) = common::cuda() else {
        return;
    };
    let data = generate(160 << 20, 8.0, 91);
    let table = table_for(&data, 16);
    for write in [
        parvlc::cuda::CudaWrite::Warp,
        parvlc::cuda::CudaWrite::Direct,
    ] {
        let vle = CudaVle {
            gpu,
            tuning: parvlc::cuda::CudaConfig {
                write,
                ..Default::default()
            },
        };
        let cfg = CuvleConfig {
            scan: ScanConfig {
                resident_workgroups: u32::MAX,
                ..ScanConfig::default()
            },
            ..CuvleConfig::default()
        };
        let got = check(&vle, &data, &table, BitOrder::LsbFirst, 3, &cfg, "160 MiB").unwrap();
        assert!(got.segments > 1, "{} segments", got.segments);
    }
}

/// The block stage (staged writes, coalesced copy-out) and the paper's direct writes: the
/// stage off, a stage that some blocks outgrow (both paths in one encode), and the
/// adapter's default, all bit-exact.
#[test]
fn staged_and_direct_writes() {
    let _g = serial();
    let gpu = common::gpu();
    let data = generate(200_003, 6.5, 41);
    let table = table_for(&data, 16);
    for stage_words in [Some(0), Some(1024), None] {
        let mut cfg = config(ScanStrategy::Decoupled, 256, 16);
        cfg.stage_words = stage_words;
        for order in ORDERS {
            for start_bit in [0, 13] {
                check(
                    gpu,
                    &data,
                    &table,
                    order,
                    start_bit,
                    &cfg,
                    &format!("stage {stage_words:?}"),
                );
            }
        }
    }
}

/// The stream's pipeline warm-up builds every framed variant, a few at a time, each once:
/// a second warm-up builds nothing.
#[test]
fn warming_the_framed_variants_builds_each_once() {
    use parvlc::gpu::{Gpu, GpuOptions};
    use parvlc::huffman::cuvle::VleEncoder;
    let gpu = pollster::block_on(Gpu::new(GpuOptions {
        pipeline_cache: None,
        ..Default::default()
    }))
    .expect("a wgpu adapter (lavapipe: mesa-vulkan-drivers)");
    let encoder = VleEncoder::new(&gpu, CuvleConfig::default()).unwrap();
    encoder.warm_framed(BitOrder::LsbFirst, 1024).unwrap();
    let built = gpu.pipelines_created();
    // No staging and at least one staged size.
    assert!(built >= 2, "{built} pipelines built");
    encoder.warm_framed(BitOrder::LsbFirst, 1024).unwrap();
    assert_eq!(gpu.pipelines_created(), built);
    // The other bit order is other pipelines.
    encoder.warm_framed(BitOrder::MsbFirst, 1024).unwrap();
    assert_eq!(gpu.pipelines_created(), 2 * built);
}

/// A forced stage beside blocks that outgrow it: low-entropy blocks are staged, the
/// others written directly, in one dispatch; in both flavours, with every strategy and
/// the fallback forced (the staged copy-out leaves the stage zero for the next block,
/// and the look-back hands out the next ticket in the same barrier).
#[test]
fn staged_blocks_in_both_flavours_every_strategy_and_fallback() {
    let _g = serial();
    if !common::enabled(Backend::Wgpu) {
        return;
    }
    // 64 invocations of 16 words: 4 KiB blocks; a stage of 1024 words holds a block of
    // under 8 code bits per byte.
    let block = 4096;
    let mut rng = SplitMix64(0x57A6ED);
    let mut data = Vec::new();
    for k in 0..40u64 {
        let entropy = if rng.below(2) == 0 { 2.5 } else { 8.0 };
        data.extend(generate(block, entropy, 1000 + k));
    }
    data.extend(generate(1234, 2.5, 77));
    let table = table_for(&data, 24);
    let staged_blocks = data
        .chunks(block)
        .filter(|c| {
            c.iter()
                .map(|&b| table.lengths[b as usize] as usize)
                .sum::<usize>()
                < 1000 * 32
        })
        .count();
    let direct_blocks = data.chunks(block).count() - staged_blocks;
    assert!(
        staged_blocks > 5 && direct_blocks > 5,
        "{staged_blocks} staged, {direct_blocks} direct"
    );
    let gpus: [&dyn Vle; 2] = [common::gpu(), common::gpu_workgroup_flavour()];
    for (flavour, gpu) in ["subgroup", "workgroup"].into_iter().zip(gpus) {
        for strategy in ScanStrategy::ALL {
            for (order, start_bit) in ORDERS.into_iter().zip([13u32, 0]) {
                let mut cfg = config(strategy, 64, 16);
                cfg.stage_words = Some(1024);
                let what = format!("{flavour} flavour, staged and direct blocks");
                check(gpu, &data, &table, order, start_bit, &cfg, &what);
                if strategy == ScanStrategy::Decoupled {
                    cfg.scan.spin_budget = 0;
                    let got = check(gpu, &data, &table, order, start_bit, &cfg, &what).unwrap();
                    assert!(got.fallbacks > 0, "{what}: spin_budget 0 took no fallback");
                }
            }
        }
    }
}

/// A plan from histograms of another input (one chunk short, one too many) is an error
/// that says so, not a plan.
#[test]
fn a_plan_from_the_wrong_number_of_histograms_is_an_error() {
    use parvlc::huffman::cuvle::VleEncoder;
    let _g = serial();
    if !common::enabled(Backend::Wgpu) {
        return;
    }
    let gpu = common::gpu();
    let encoder = VleEncoder::new(gpu, CuvleConfig::default()).unwrap();
    let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 13) as u8).collect();
    let input = encoder.upload(&data).unwrap();
    let chunks = pollster::block_on(encoder.histograms(&input, None)).unwrap();
    let table = table_for(&data, 12);
    assert!(encoder
        .plan(&input, &chunks, &table, BitOrder::MsbFirst, 0)
        .is_ok());
    let mut longer = chunks.clone();
    longer.push([0; 256]);
    for wrong in [&chunks[..chunks.len() - 1], &longer[..]] {
        match encoder.plan(&input, wrong, &table, BitOrder::MsbFirst, 0) {
            Err(Error::InvalidArgument(m)) => {
                assert!(m.contains("one histogram per input chunk"), "{m}")
            }
            other => panic!("{} histograms: {:?}", wrong.len(), other.err()),
        }
    }
}
