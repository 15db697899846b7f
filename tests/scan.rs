//! Device-wide exclusive scan (`parvlc::scan::exclusive_scan`) against its CPU twin,
//! for every strategy, at the sizes where blocks begin and end.
mod common;
use common::serial;

use parvlc::gpu::Gpu;
use parvlc::scan::{exclusive_scan, exclusive_scan_cpu, ScanConfig, ScanReport, ScanStrategy};
use parvlc::testdata::SplitMix64;
use parvlc::Error;

/// Elements per invocation in shaders/scan/exclusive.wgsl (one block = workgroup_size * 8).
const ITEMS: usize = 8;
const LIMIT: u64 = 1 << 30;

/// `n` random values whose total stays below 2^30: each below (2^30 - 1) / n + 1, with
/// a sprinkling of zeros and of the per-value maximum.
fn random_values(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = SplitMix64(seed);
    let cap = ((LIMIT - 1) / n.max(1) as u64).min(u32::MAX as u64);
    (0..n)
        .map(|_| match rng.below(16) {
            0 => 0,
            1 => cap as u32,
            _ => rng.below(cap + 1) as u32,
        })
        .collect()
}

fn config(strategy: ScanStrategy, workgroup_size: u32) -> ScanConfig {
    ScanConfig {
        strategy,
        workgroup_size,
        ..ScanConfig::default()
    }
}

/// lavapipe cuts every loop of a shader invocation after 65535 iterations in all, so a
/// chained workgroup that spins long gives up: src documents that chained then fails
/// with an error, never with wrong output. On a software adapter a chained error is
/// therefore accepted (and printed); wrong output never is, and on a hardware adapter
/// nothing but the exact result is.
fn chained_may_fail(gpu: &Gpu, strategy: ScanStrategy) -> bool {
    strategy == ScanStrategy::Chained && gpu.info.device_type == wgpu::DeviceType::Cpu
}

/// Scan on the GPU, compare with the CPU twin element by element and check the report
/// (None: a chained error accepted on a software adapter).
fn check(gpu: &Gpu, values: &[u32], config: &ScanConfig, what: &str) -> Option<ScanReport> {
    let total: u64 = values.iter().map(|&v| v as u64).sum();
    assert!(
        total < LIMIT,
        "{what}: test data total {total} is out of range"
    );
    let want = exclusive_scan_cpu(values);
    let (got, report) = match pollster::block_on(exclusive_scan(gpu, values, config)) {
        Ok(r) => r,
        Err(e @ (Error::ScanStalled { .. } | Error::Gpu { .. }))
            if chained_may_fail(gpu, config.strategy) =>
        {
            eprintln!("{what}: accepted chained error on a software adapter: {e}");
            return None;
        }
        Err(e) => panic!("{what}: exclusive_scan failed: {e}"),
    };
    assert_eq!(got.len(), want.len(), "{what}: output length");
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{what}: first difference at element {i} of {}: gpu {} cpu {}",
            want.len(),
            got[i],
            want[i]
        );
    }
    let block = config.workgroup_size as usize * ITEMS;
    let n_blocks = values.len().div_ceil(block);
    assert_eq!(
        report.block_prefixes.len(),
        n_blocks,
        "{what}: one prefix per block"
    );
    for (b, &p) in report.block_prefixes.iter().enumerate() {
        assert_eq!(p, want[b * block], "{what}: prefix of block {b}");
    }
    match config.strategy {
        ScanStrategy::Decoupled if config.spin_budget == 0 => {
            if n_blocks > 1 {
                assert!(
                    report.fallbacks > 0,
                    "{what}: spin_budget 0 must take the fallback"
                );
            }
            // Every block recomputes at most every predecessor.
            let most = (n_blocks * n_blocks.saturating_sub(1) / 2) as u64;
            assert!(
                report.fallbacks as u64 <= most,
                "{what}: {} fallbacks for {n_blocks} blocks",
                report.fallbacks
            );
        }
        ScanStrategy::Decoupled => {}
        _ => assert_eq!(
            report.fallbacks, 0,
            "{what}: only the decoupled strategy falls back"
        ),
    }
    Some(report)
}

fn sizes(workgroup_size: u32) -> Vec<usize> {
    let block = workgroup_size as usize * ITEMS;
    vec![0, 1, 7, block - 1, block, block + 1, 3 * block + 5, 100_003]
}

fn all_strategies_on(gpu: &Gpu, flavour: &str) {
    for strategy in ScanStrategy::ALL {
        for wg in [64u32, 256] {
            let config = config(strategy, wg);
            for (k, n) in sizes(wg).into_iter().enumerate() {
                let values = random_values(n, 1000 * wg as u64 + k as u64);
                check(
                    gpu,
                    &values,
                    &config,
                    &format!("{flavour} {} wg {wg} n {n}", strategy.name()),
                );
            }
        }
    }
}

#[test]
fn every_strategy_matches_cpu() {
    let _g = serial();
    all_strategies_on(common::gpu(), "default flavour");
}

#[test]
fn every_strategy_matches_cpu_workgroup_flavour() {
    let _g = serial();
    all_strategies_on(common::gpu_workgroup_flavour(), "workgroup flavour");
}

fn spin_zero(workgroup_size: u32) -> ScanConfig {
    ScanConfig {
        spin_budget: 0,
        ..config(ScanStrategy::Decoupled, workgroup_size)
    }
}

#[test]
fn decoupled_fallback_path_runs() {
    let _g = serial();
    for (gpu, flavour) in [
        (common::gpu(), "default"),
        (common::gpu_workgroup_flavour(), "workgroup"),
    ] {
        for wg in [64u32, 256] {
            let config = spin_zero(wg);
            let block = wg as usize * ITEMS;
            for n in [0usize, 1, 7, block, block + 1, 5 * block + 3, 20_000] {
                let values = random_values(n, 77 + n as u64);
                let what = format!("{flavour} decoupled spin 0 wg {wg} n {n}");
                let report = check(gpu, &values, &config, &what).unwrap();
                if n > block {
                    assert!(report.fallbacks > 0, "{what}: no fallback taken");
                }
            }
        }
    }
}

/// The ~100k case of the fallback path: with spin_budget 0 block b recomputes all b
/// predecessors, so one workgroup runs long. Every combination runs before the verdict.
#[test]
fn decoupled_fallback_path_100k() {
    let _g = serial();
    let mut failures = Vec::new();
    for (gpu, flavour) in [
        (common::gpu(), "default"),
        (common::gpu_workgroup_flavour(), "workgroup"),
    ] {
        for wg in [64u32, 256] {
            let values = random_values(100_003, 78);
            let what = format!("{flavour} decoupled spin 0 wg {wg} n 100003");
            let config = spin_zero(wg);
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check(gpu, &values, &config, &what).unwrap()
            }));
            match result {
                Ok(report) => assert!(report.fallbacks > 0, "{what}: no fallback taken"),
                Err(e) => failures.push(
                    e.downcast_ref::<String>()
                        .cloned()
                        .unwrap_or_else(|| what.clone()),
                ),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 4 failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn few_resident_workgroups_and_odd_workgroup_sizes() {
    let _g = serial();
    let gpu = common::gpu();
    for strategy in ScanStrategy::ALL {
        for (wg, resident) in [(32u32, 1u32), (64, 2), (64, 3), (1024, 1), (1024, 4)] {
            let block = wg as usize * ITEMS;
            let config = ScanConfig {
                resident_workgroups: resident,
                ..config(strategy, wg)
            };
            for n in [block + 1, 9 * block - 3] {
                let values = random_values(n, n as u64 ^ wg as u64);
                check(
                    gpu,
                    &values,
                    &config,
                    &format!("{} wg {wg} resident {resident} n {n}", strategy.name()),
                );
            }
        }
    }
}

#[test]
fn special_values() {
    let _g = serial();
    let gpu = common::gpu();
    for strategy in ScanStrategy::ALL {
        let config = config(strategy, 64);
        let name = strategy.name();
        check(
            gpu,
            &vec![0u32; 20_000],
            &config,
            &format!("{name} all zeros"),
        );
        check(
            gpu,
            &vec![1u32; 20_000],
            &config,
            &format!("{name} all ones"),
        );
        // The largest total allowed, 2^30 - 1, reached across many blocks.
        let n = 50_000usize;
        let mut values = vec![((LIMIT - 1) / n as u64) as u32; n];
        let sum: u64 = values.iter().map(|&v| v as u64).sum();
        *values.last_mut().unwrap() += (LIMIT - 1 - sum) as u32;
        check(gpu, &values, &config, &format!("{name} total 2^30 - 1"));
        // One value holding the whole total, in the first block, the middle, the last.
        for at in [0usize, n / 2, n - 1] {
            let mut values = vec![0u32; n];
            values[at] = (LIMIT - 1) as u32;
            check(gpu, &values, &config, &format!("{name} 2^30 - 1 at {at}"));
        }
    }
}

fn assert_too_large(gpu: &Gpu, values: &[u32], config: &ScanConfig, what: &str) {
    match pollster::block_on(exclusive_scan(gpu, values, config)) {
        Err(Error::TooLarge(_)) => {}
        Err(e) => panic!("{what}: expected TooLarge, got {e:?}"),
        Ok((out, _)) => panic!(
            "{what}: expected TooLarge, got output of {} values",
            out.len()
        ),
    }
}

#[test]
fn total_of_2_pow_30_is_too_large() {
    let _g = serial();
    let gpu = common::gpu();
    for strategy in ScanStrategy::ALL {
        for spin_budget in [0u32, 64] {
            let config = ScanConfig {
                spin_budget,
                ..config(strategy, 64)
            };
            let what = |s: &str| format!("{} spin {spin_budget}: {s}", strategy.name());
            assert_too_large(gpu, &[1 << 30], &config, &what("one value 2^30"));
            assert_too_large(gpu, &[1 << 29, 1 << 29], &config, &what("two halves"));
            // u32 wrapping would make this total 1.
            assert_too_large(gpu, &[u32::MAX, 2], &config, &what("wrapping u32 total"));
            let n = 100_000usize;
            let mut values = vec![((LIMIT - 1) / n as u64) as u32; n];
            let sum: u64 = values.iter().map(|&v| v as u64).sum();
            *values.last_mut().unwrap() += (LIMIT - sum) as u32;
            assert_too_large(gpu, &values, &config, &what("spread over many blocks"));
            let mut values = random_values(n, 5);
            values[n / 3] = u32::MAX;
            assert_too_large(gpu, &values, &config, &what("one huge value"));
        }
    }
}

/// Chained with one workgroup taking every block: no cross-workgroup wait is ever
/// needed, so it must be exact on every adapter (no error accepted).
#[test]
fn chained_single_workgroup_is_exact_everywhere() {
    let _guard = serial();
    let gpu = common::gpu();
    let mut cfg = config(ScanStrategy::Chained, 64);
    cfg.resident_workgroups = 1;
    cfg.max_blocks_per_workgroup = Some(u32::MAX);
    let values = random_values(40_000, 77);
    let (got, _) = pollster::block_on(exclusive_scan(gpu, &values, &cfg)).unwrap();
    assert_eq!(got, exclusive_scan_cpu(&values));
}
