//! How long the host plans a chunk of a framed stream (frames merged from cell histograms,
//! each frame's code and container layout): the work between a chunk's histograms and its
//! encode, per chunk and per frame, for gzip and native.
//!
//!     RAYON_NUM_THREADS=1 cargo run --release --example plan_bench [FILE] [CODERS]
//!
//! FILE (default: 16 MiB of synthetic mixed data) is cut into 8 MiB chunks; the cells'
//! histograms are taken before the clock starts. With RAYON_NUM_THREADS=1 it is one core's
//! time. CODERS > 1 plans that many chunks at once from as many threads, as the pipeline's
//! coders do, over rayon's pool: wall time per chunk (run it under `time` for the CPU).

use std::time::Instant;

use parvlc::huffman::chunk::ChunkLayout;
use parvlc::huffman::compress::Format;
use parvlc::huffman::frames::FrameConfig;

const CHUNK: usize = 8 << 20;
const BLOCK: u64 = 16 << 10;
const ROUNDS: usize = 8;

/// Runs of differently distributed bytes, like files of several kinds one after another.
fn synthetic(len: usize) -> Vec<u8> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        s >> 33
    };
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let run = 4096 + (next() % 200_000) as usize;
        let alphabet = [2, 4, 16, 64, 256][(next() % 5) as usize];
        let skew = next() % 3;
        for _ in 0..run.min(len - out.len()) {
            let r = next();
            let b = match skew {
                0 => r % alphabet,
                1 => (r % alphabet) * (r >> 20) % alphabet,
                _ => (r.trailing_zeros() as u64 * 7) % alphabet,
            };
            out.push(b as u8);
        }
    }
    out
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let data = match args.next() {
        Some(path) => std::fs::read(path)?,
        None => synthetic(16 << 20),
    };
    let coders: usize = args.next().map(|c| c.parse()).transpose()?.unwrap_or(1);
    let config = FrameConfig::default();
    let chunks: Vec<(u64, Vec<[u64; 256]>)> = data
        .chunks(CHUNK)
        .map(|c| {
            let cells = c
                .chunks(config.cell_bytes as usize)
                .map(|cell| {
                    let mut h = [0u64; 256];
                    for &b in cell {
                        h[b as usize] += 1;
                    }
                    h
                })
                .collect();
            (c.len() as u64, cells)
        })
        .collect();
    println!(
        "{} bytes in {} chunks of {} MiB, {coders} coder(s)",
        data.len(),
        chunks.len(),
        CHUNK >> 20
    );
    for format in [Format::Gzip, Format::Native] {
        let plan_all = || -> parvlc::Result<usize> {
            let mut frames = 0;
            for (len, cells) in &chunks {
                frames += ChunkLayout::plan(cells, *len, format, &config, BLOCK)?
                    .frames
                    .len();
            }
            Ok(frames)
        };
        // Best of a few rounds: the machine's other work only ever adds time.
        let (mut best, mut frames) = (f64::MAX, 0);
        for _ in 0..ROUNDS {
            let t = Instant::now();
            frames = if coders <= 1 {
                plan_all()?
            } else {
                std::thread::scope(|s| {
                    let all: Vec<_> = (0..coders).map(|_| s.spawn(plan_all)).collect();
                    all.into_iter()
                        .map(|h| h.join().unwrap_or(Ok(0)))
                        .sum::<parvlc::Result<usize>>()
                })?
            };
            best = best.min(t.elapsed().as_secs_f64());
        }
        let n_chunks = (chunks.len() * coders.max(1)) as f64;
        println!(
            "{format:?}: {:.0} frames per chunk, plan {:.2} ms per chunk, {:.2} us per frame",
            frames as f64 / n_chunks,
            best * 1e3 / n_chunks,
            best * 1e6 / frames.max(1) as f64
        );
    }
    Ok(())
}
