//! JPEG 2000 raw-segment bit-stuffing: GPU vote == GPU fsm == GPU solo == the serial
//! reference, byte for byte, on more than 10^6 random segments (many per dispatch, lengths from 0 bits to
//! the maximum, 0xFF runs from none to all) and on adversarial ones; the serial output
//! read back as OpenJPEG's raw decoder reads it; clear errors on bad input.
mod common;
use common::serial;

use parvlc::bitstuff::{
    stuff_batch, unstuff, BitstuffConfig, RawBits, Stuffed, Stuffer, Termination,
    DEFAULT_MAX_SEGMENT_BITS,
};
use parvlc::gpu::Gpu;
use parvlc::testdata::SplitMix64;

const TERMS: [Termination; 2] = [Termination::Plain, Termination::Predictable];

/// Owned segments: (data, bits).
type Segs = Vec<(Vec<u8>, u64)>;

fn views(segs: &Segs) -> Vec<RawBits<'_>> {
    segs.iter()
        .map(|(d, b)| RawBits { data: d, bits: *b })
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn first_difference(want: &Stuffed, got: &Stuffed, segs: &Segs, what: &str) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} segments back, {} expected",
            got.len(),
            want.len()
        ));
    }
    for (i, (d, bits)) in segs.iter().enumerate() {
        if got.segment(i) != want.segment(i) {
            let n = (*bits as usize).div_ceil(8);
            return Err(format!(
                "{what}: segment {i} of {} ({bits} bits) differs\n  raw:  {}\n  want: {}\n  got:  {}",
                want.len(),
                hex(&d[..n.min(64)]),
                hex(&want.segment(i)[..want.segment(i).len().min(64)]),
                hex(&got.segment(i)[..got.segment(i).len().min(64)]),
            ));
        }
    }
    Ok(())
}

/// Stuff `segs` serially and on every GPU stage; all must agree. Returns the vote
/// iterations (max, sum, segments).
fn check(
    gpu: &Gpu,
    segs: &Segs,
    term: Termination,
    config: &BitstuffConfig,
    what: &str,
) -> (u32, u64, u64) {
    let raw = views(segs);
    let want = stuff_batch(&raw, term).unwrap();
    let what = format!(
        "{what} [{} segments, {term:?}, wg {}, max {} bits, fsm words {}]",
        segs.len(),
        config.workgroup_size,
        config.max_segment_bits,
        config.fsm_words
    );
    let mut vote = None;
    for stuffer in Stuffer::ALL {
        let name = stuffer.name();
        let got = pollster::block_on(stuffer.stuff(gpu, &raw, term, config))
            .unwrap_or_else(|e| panic!("{what}: {name}: {e}"));
        first_difference(
            &want,
            &got.stuffed,
            segs,
            &format!("{what}: {name} vs serial"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        if stuffer == Stuffer::Vote {
            vote = Some(got);
        }
    }
    let vote = vote.expect("the vote ran");
    assert_eq!(vote.iterations.len(), segs.len());
    let sum: u64 = vote.iterations.iter().map(|&i| i as u64).sum();
    (vote.max_iterations(), sum, segs.len() as u64)
}

fn config(workgroup_size: u32, max_segment_bits: u32) -> BitstuffConfig {
    BitstuffConfig {
        workgroup_size,
        max_segment_bits,
        ..BitstuffConfig::default()
    }
}

/// Random raw bits with 0xFF runs at `density` (0: none beyond chance, 1: all 0xFF),
/// sometimes 0x7F, and bits past `bits` random too (the stages must ignore them).
fn random_segment(rng: &mut SplitMix64, bits: u64, density: f64) -> Vec<u8> {
    let n = (bits as usize).div_ceil(8) + (rng.next_u64() % 3) as usize;
    let mut data = Vec::with_capacity(n);
    while data.len() < n {
        let r = rng.next_u64();
        if ((r >> 11) as f64 / (1u64 << 53) as f64) < density {
            let run = 1 + (r % 9) as usize;
            let fill = if r & 0x300 == 0 { 0x7F } else { 0xFF };
            for _ in 0..run {
                data.push(fill);
            }
        } else {
            data.push((r >> 3) as u8);
        }
    }
    data.truncate(n);
    data
}

const DENSITIES: [f64; 7] = [0.0, 0.004, 0.05, 0.2, 0.5, 0.9, 1.0];

fn random_batch(rng: &mut SplitMix64, count: usize, max_bits: u64) -> Segs {
    (0..count)
        .map(|_| {
            let r = rng.next_u64();
            // Lengths: a quarter anywhere up to the maximum, the rest short, some 0.
            let bits = match r % 8 {
                0 => 0,
                1 | 2 => rng.next_u64() % (max_bits + 1),
                3 => max_bits - rng.below(9.min(max_bits + 1)),
                _ => rng.next_u64() % (max_bits.min(256) + 1),
            };
            let density = DENSITIES[(r >> 8) as usize % DENSITIES.len()];
            (random_segment(rng, bits, density), bits)
        })
        .collect()
}

/// Print the vote iterations past the test harness's capture.
fn report(what: &str, (max, sum, n): (u32, u64, u64)) {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "{what}: vote iterations worst {max}, mean {:.3} over {n} segments",
        sum as f64 / n.max(1) as f64
    );
}

fn merge(a: (u32, u64, u64), b: (u32, u64, u64)) -> (u32, u64, u64) {
    (a.0.max(b.0), a.1 + b.1, a.2 + b.2)
}

type Plan = (&'static Gpu, u32, u32, u32, Option<u64>, usize);

/// More than 10^6 random segments, 100 000 per dispatch (a 2-D grid), lengths from 0 bits
/// to the maximum, 0xFF runs from none to all, both terminations, several workgroup
/// sizes and fsm chunk sizes, both shader flavours, and a dispatch cap that splits the
/// batches.
#[test]
fn a_million_random_segments() {
    let _g = serial();
    let mut rng = SplitMix64(0x5EED_B175);
    let mut stats = (0, 0, 0);
    let mut total = 0usize;
    // (adapter, workgroup size, max bits, fsm words, dispatch cap, batches)
    let plans: [Plan; 6] = [
        (common::gpu(), 32, 1024, 1, None, 4),
        (common::gpu(), 32, 2048, 4, None, 2),
        (common::gpu(), 64, 1024, 2, Some(256 << 10), 2),
        (common::gpu_workgroup_flavour(), 32, 1024, 1, None, 1),
        (common::gpu_workgroup_flavour(), 128, 1024, 8, None, 1),
        (common::gpu(), 256, 512, 1, None, 1),
    ];
    for (i, &(gpu, wg, max_bits, fsm_words, cap, batches)) in plans.iter().enumerate() {
        let config = BitstuffConfig {
            workgroup_size: wg,
            max_segment_bits: max_bits,
            fsm_words,
            max_dispatch_bytes: cap,
        };
        for b in 0..batches {
            let segs = random_batch(&mut rng, 100_000, max_bits as u64);
            let term = TERMS[(i + b) % 2];
            stats = merge(stats, check(gpu, &segs, term, &config, "random"));
            total += segs.len();
        }
    }
    assert!(total >= 1_000_000);
    report("random segments", stats);
}

/// Segments of the default maximum length (4 KiB) on the default configuration, which
/// take several rounds of the vote and of the fsm.
#[test]
fn longest_segments() {
    let _g = serial();
    let gpu = common::gpu();
    let mut rng = SplitMix64(0x4B1D);
    let max = DEFAULT_MAX_SEGMENT_BITS as u64;
    let mut segs: Segs = Vec::new();
    for (k, &density) in DENSITIES.iter().enumerate() {
        for j in 0..24u64 {
            let bits = max - (j * 7 + k as u64) % 40;
            segs.push((random_segment(&mut rng, bits, density), bits));
        }
    }
    let mut stats = (0, 0, 0);
    for term in TERMS {
        stats = merge(
            stats,
            check(gpu, &segs, term, &BitstuffConfig::default(), "longest"),
        );
    }
    report("longest segments", stats);
}

/// Each insertion makes the next 0xFF: raw bits 11111111 0111111 repeated stuff to
/// FF 3F FF 3F ..., and each 0xFF but the first appears only once the zero before it is
/// placed, so the vote needs one iteration per 0xFF; the fsm does not care.
fn cascade(bits: u64) -> Vec<u8> {
    let pattern = "111111110111111";
    let mut data = vec![0u8; (bits as usize).div_ceil(8)];
    for (i, c) in pattern.bytes().cycle().take(bits as usize).enumerate() {
        if c == b'1' {
            data[i / 8] |= 0x80 >> (i % 8);
        }
    }
    data
}

fn filled(bits: u64, f: impl Fn(usize) -> u8) -> Vec<u8> {
    (0..(bits as usize).div_ceil(8)).map(f).collect()
}

/// The adversarial inputs, each at lengths with every bit count modulo 8.
fn adversarial(max_bits: u64) -> Vec<(&'static str, Segs)> {
    let mut lengths: Vec<u64> = (0..=40).collect();
    for base in [64, 120, 1000, 4096, max_bits - 8] {
        if base + 8 <= max_bits {
            lengths.extend(base..base + 8);
        }
    }
    lengths.push(max_bits);
    let of = |f: &dyn Fn(u64) -> Vec<u8>| -> Segs { lengths.iter().map(|&b| (f(b), b)).collect() };
    let mut ff_last = Vec::new();
    for &bits in &lengths {
        // 0xFF (or its first bits) at the very end of the raw bits, zeros before.
        let mut d = vec![0u8; (bits as usize).div_ceil(8) + 1];
        for i in bits.saturating_sub(8)..bits {
            d[(i / 8) as usize] |= 0x80 >> (i % 8);
        }
        ff_last.push((d.clone(), bits));
        // ... and after a run of 0xFF bytes: the termination meets a stuffed byte.
        for i in 0..bits.saturating_sub(8) {
            if i >= bits.saturating_sub(40) {
                d[(i / 8) as usize] |= 0x80 >> (i % 8);
            }
        }
        ff_last.push((d, bits));
    }
    vec![
        ("all 0xFF", of(&|b| filled(b, |_| 0xFF))),
        (
            "0xFF every other byte",
            of(&|b| filled(b, |i| if i % 2 == 0 { 0xFF } else { 0x13 })),
        ),
        (
            "0xFF, 0x00 alternating",
            of(&|b| filled(b, |i| if i % 2 == 0 { 0xFF } else { 0 })),
        ),
        ("0xFF last", ff_last),
        (
            "0x7F and 0xFF",
            of(&|b| filled(b, |i| if i % 3 == 1 { 0x7F } else { 0xFF })),
        ),
        (
            "0x7F 0xFF alternating",
            of(&|b| filled(b, |i| if i % 2 == 0 { 0x7F } else { 0xFF })),
        ),
        (
            "0xFE 0xFF alternating",
            of(&|b| filled(b, |i| if i % 2 == 0 { 0xFE } else { 0xFF })),
        ),
        ("cascade", of(&cascade)),
        ("all zero", of(&|b| filled(b, |_| 0))),
    ]
}

#[test]
fn adversarial_segments() {
    let _g = serial();
    for (gpu, config) in [
        (common::gpu(), BitstuffConfig::default()),
        (common::gpu(), config(32, 2048)),
        (common::gpu_workgroup_flavour(), config(64, 4096)),
    ] {
        for (name, segs) in adversarial(config.max_segment_bits as u64) {
            let mut stats = (0, 0, 0);
            for term in TERMS {
                stats = merge(stats, check(gpu, &segs, term, &config, name));
            }
            report(
                &format!(
                    "{name} (wg {}, max {} bits)",
                    config.workgroup_size, config.max_segment_bits
                ),
                stats,
            );
        }
    }
}

/// The vote's iteration count is exact where it can be known: with no 0xFF anywhere
/// every round converges at once; one 0xFF costs its round one more iteration.
#[test]
fn vote_iteration_counts() {
    let _g = serial();
    let gpu = common::gpu();
    let config = config(32, 4096); // rounds of 128 output bytes
    let zero = vec![0u8; 512];
    let mut one_ff = zero.clone();
    one_ff[200] = 0xFF; // in the second round
    let segs = [
        RawBits {
            data: &zero,
            bits: 0,
        },
        RawBits {
            data: &zero,
            bits: 1,
        },
        RawBits {
            data: &zero,
            bits: 1024,
        },
        RawBits {
            data: &zero,
            bits: 1025,
        },
        RawBits {
            data: &zero,
            bits: 4096,
        },
        RawBits {
            data: &one_ff,
            bits: 4096,
        },
    ];
    // The 0xFF makes 513 output bytes: a fifth round, which converges at once.
    let want_rounds = [0, 1, 1, 2, 4, 1 + 2 + 1 + 1 + 1];
    for term in TERMS {
        let r = pollster::block_on(Stuffer::Vote.stuff(gpu, &segs, term, &config)).unwrap();
        assert_eq!(r.iterations, want_rounds, "{term:?}");
        assert_eq!(r.stuffed, stuff_batch(&segs, term).unwrap());
    }
    let cascade = cascade(4000);
    let r = pollster::block_on(Stuffer::Vote.stuff(
        gpu,
        &[RawBits {
            data: &cascade,
            bits: 4000,
        }],
        Termination::Plain,
        &config,
    ))
    .unwrap();
    report(
        "cascade of 4000 bits, wg 32",
        (r.iterations[0], r.iterations[0] as u64, 1),
    );
}

/// The serial reference read back as OpenJPEG reads raw segments gives the raw bits.
#[test]
fn serial_output_decodes_to_the_raw_bits() {
    let mut rng = SplitMix64(11);
    let mut segs = random_batch(&mut rng, 20_000, 2048);
    for (_, s) in adversarial(2048) {
        segs.extend(s);
    }
    for term in TERMS {
        let out = stuff_batch(&views(&segs), term).unwrap();
        for (i, (data, bits)) in segs.iter().enumerate() {
            let s = out.segment(i);
            assert_ne!(s.last(), Some(&0xFF), "segment {i} ends on 0xFF");
            assert!(
                s.windows(2).all(|w| w[0] != 0xFF || w[1] < 0x80),
                "segment {i}: {}",
                hex(s)
            );
            let mut want = data[..(*bits as usize).div_ceil(8)].to_vec();
            if bits % 8 != 0 {
                *want.last_mut().unwrap() &= 0xFFu8 << (8 - bits % 8);
            }
            assert_eq!(
                unstuff(s, *bits),
                want,
                "segment {i} ({bits} bits, {term:?})"
            );
        }
    }
}

#[test]
fn bad_input_gives_clear_errors() {
    let _g = serial();
    let gpu = common::gpu();
    let data = [0u8; 8];
    let cfg = config(32, 1024);
    let err = |segs: &[RawBits<'_>], cfg: &BitstuffConfig| -> Vec<String> {
        Stuffer::ALL
            .iter()
            .map(|s| {
                pollster::block_on(s.stuff(gpu, segs, Termination::Plain, cfg))
                    .expect_err(&format!("{} accepted bad input", s.name()))
                    .to_string()
            })
            .collect()
    };
    // A bit count past the data.
    let segs = [
        RawBits::bytes(&data),
        RawBits {
            data: &data,
            bits: 65,
        },
    ];
    for e in err(&segs, &cfg) {
        assert!(
            e.contains("raw segment 1: bit count 65 exceeds its data (8 bytes"),
            "{e}"
        );
    }
    assert!(stuff_batch(&segs, Termination::Plain).is_err());
    // A segment past the maximum.
    let long = vec![0u8; 200];
    let segs = [RawBits {
        data: &long,
        bits: 1025,
    }];
    for e in err(&segs, &cfg) {
        assert!(
            e.contains("1025 bits exceed the maximum of 1024 bits"),
            "{e}"
        );
    }
    // A maximum the adapter's workgroup memory cannot hold.
    let huge = BitstuffConfig {
        max_segment_bits: 1 << 24,
        ..cfg
    };
    let segs = [RawBits::bytes(&data)];
    // (vote and fsm hold a segment in workgroup memory; solo holds none, and stuffs it.)
    for s in [Stuffer::Vote, Stuffer::Fsm] {
        let e = pollster::block_on(s.stuff(gpu, &segs, Termination::Plain, &huge))
            .expect_err("a segment larger than workgroup memory accepted")
            .to_string();
        assert!(
            e.contains("workgroup memory") && e.contains("lower max_segment_bits"),
            "{e}"
        );
    }
    let solo = pollster::block_on(Stuffer::Solo.stuff(gpu, &segs, Termination::Plain, &huge));
    assert_eq!(
        solo.unwrap().stuffed,
        stuff_batch(&segs, Termination::Plain).unwrap()
    );
    // A workgroup size that is not a power of two.
    let odd = BitstuffConfig {
        workgroup_size: 48,
        ..cfg
    };
    for e in err(&segs, &odd) {
        assert!(e.contains("power of two"), "{e}");
    }
}

#[test]
fn empty_batch() {
    let _g = serial();
    let gpu = common::gpu();
    let cfg = BitstuffConfig::default();
    for s in Stuffer::ALL {
        let got = pollster::block_on(s.stuff(gpu, &[], Termination::Plain, &cfg)).unwrap();
        assert!(got.stuffed.is_empty(), "{}", s.name());
    }
}

/// The benchmark runs every row on a small input (each GPU result is checked against the
/// serial reference inside), and its inputs are what they claim.
#[test]
fn bench_runs_small() {
    use parvlc::bitstuff::bench::{bench_input, run_bitstuff, BitstuffBenchOptions};
    let _g = serial();
    let gpu = common::gpu();
    let options = BitstuffBenchOptions {
        size: 48 << 10,
        segment_bytes: (1024, 4096),
        inputs: vec!["random".into(), "cascade".into()],
        variants: vec!["vote".into(), "fsm".into(), "solo".into()],
        cpu_max_bytes: 1 << 30,
        runs: 1,
        warm_up_secs: 0.0,
        config: BitstuffConfig::default(),
        term: Termination::Plain,
    };
    let mut seen = 0;
    let records = run_bitstuff(Some(gpu), &options, &mut |r| seen += r.len()).unwrap();
    // Per input: 2 CPU rows, and 2 scopes for each GPU variant.
    assert_eq!(records.len(), 2 * (2 + 2 * 3));
    assert_eq!(seen, records.len());
    assert!(records
        .iter()
        .all(|r| r.seconds_wall > 0.0 && r.bytes == 48 << 10));
    let vote = records
        .iter()
        .find(|r| r.variant == "vote" && r.scope == "stuff")
        .unwrap();
    assert!(vote.vote_iterations_max.unwrap() >= 1);
    // The cascade input stuffs to FF 3F FF 3F ...
    let c = bench_input("cascade", 30, 0).unwrap();
    let out = stuff_batch(&[RawBits::bytes(&c)], Termination::Plain).unwrap();
    assert_eq!(&out.bytes[..4], &[0xFF, 0x3F, 0xFF, 0x3F]);
    assert!(bench_input("nonsense", 8, 0).is_err());
}
