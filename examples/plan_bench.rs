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
//! A second row a format times the host's part of a chunk the GPU planned: each frame's
//! codes, table and layout from its code lengths, on one thread (`PLANNED_ROUNDS` rounds,
//! 8 by default; more for a profile). A gzip frame's layout here builds its DEFLATE
//! header, as the host did before the GPU built them (`huffman::deflate_head`) and still
//! does for a frame deeper than 15 bits.

use std::time::Instant;

use parvlc::huffman::chunk::ChunkLayout;
use parvlc::huffman::compress::Format;
use parvlc::huffman::frames::{FrameConfig, FramePlan};
use parvlc::huffman::framing::frame_layout;
use parvlc::huffman::Codebook;

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
        planned_part(&chunks, format, &config)?;
    }
    Ok(())
}

/// What a coder did on the host once the GPU had planned a chunk (its frames and their
/// code lengths), before the GPU built gzip headers: each frame's codes, byte table and
/// container layout (a gzip frame's DEFLATE header), on this thread; best of the rounds,
/// per chunk and per frame.
fn planned_part(
    chunks: &[(u64, Vec<[u64; 256]>)],
    format: Format,
    config: &FrameConfig,
) -> parvlc::Result<()> {
    let planned = chunks
        .iter()
        .map(|(len, cells)| ChunkLayout::plan(cells, *len, format, config, BLOCK))
        .collect::<parvlc::Result<Vec<_>>>()?;
    let rounds: usize = std::env::var("PLANNED_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(ROUNDS);
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let t = Instant::now();
        for frame in planned.iter().flat_map(|c| &c.frames) {
            let book = Codebook::from_lengths(frame.book.lengths())?;
            let frame = FramePlan {
                table: book.table()?,
                book,
                ..frame.clone()
            };
            std::hint::black_box(frame_layout(format, &frame, BLOCK)?);
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    let frames: usize = planned.iter().map(|c| c.frames.len()).sum();
    println!(
        "{format:?}: from planned code lengths (the GPU planner's host part) {:.3} ms per chunk, \
         {:.3} us per frame",
        best * 1e3 / chunks.len() as f64,
        best * 1e6 / frames.max(1) as f64
    );
    Ok(())
}
