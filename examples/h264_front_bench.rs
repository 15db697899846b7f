//! Single-core speed of the H.264 encoder's CPU front end (prediction, mode decision,
//! transform, quantization, reconstruction: `h264::encode_picture_levels`) and of the CPU
//! CAVLC that follows it, on the frames of a Y4M file: milliseconds per picture, best of
//! the runs, and a checksum of the levels and the reconstruction so that two builds can
//! be compared for the same output.
//!
//!     RAYON_NUM_THREADS=1 cargo run --release --example h264_front_bench -- FILE.y4m
//!
//! Without a file: a synthetic 1280x720 texture panning over `FRAMES` pictures. `FRAMES`
//! caps the pictures (8), `RUNS` the runs (3), `QP` the QP (27), `LUMA` the luma modes
//! (`auto`; `16x16`, `4x4`).

use std::time::Instant;

use parvlc::h264::y4m::Y4mReader;
use parvlc::h264::{cpu_slice_data, encode_picture_levels, EncoderConfig, Picture};

#[path = "support/mod.rs"]
mod support;
use support::env_or;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (frames, runs) = (env_or("FRAMES", 8usize), env_or("RUNS", 3usize));
    let config = EncoderConfig {
        qp: env_or("QP", 27usize) as u8,
        luma: std::env::var("LUMA").as_deref().unwrap_or("auto").parse()?,
        ..EncoderConfig::default()
    };
    let mut pictures = Vec::new();
    match std::env::args().nth(1) {
        Some(path) => {
            let file = std::io::BufReader::new(std::fs::File::open(&path)?);
            let mut reader = Y4mReader::new(file, &path)?;
            while pictures.len() < frames {
                match reader.read_frame()? {
                    Some(p) => pictures.push(p),
                    None => break,
                }
            }
        }
        None => pictures.extend((0..frames).map(|k| texture(1280, 720, 4 * k))),
    }
    let (mut front, mut cavlc) = (f64::MAX, f64::MAX);
    let mut sum = 0u64;
    for _ in 0..runs {
        let t = Instant::now();
        let coded = pictures
            .iter()
            .map(|p| encode_picture_levels(p, &config))
            .collect::<parvlc::Result<Vec<_>>>()?;
        front = front.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let slices = coded
            .iter()
            .map(|(frame, _)| cpu_slice_data(frame))
            .collect::<parvlc::Result<Vec<_>>>()?;
        cavlc = cavlc.min(t.elapsed().as_secs_f64());
        // FNV-1a over the levels, the reconstruction and the slice bytes.
        let mut h = 0xcbf29ce484222325u64;
        let mut eat = |b: u8| h = (h ^ b as u64).wrapping_mul(0x100000001b3);
        for ((frame, recon), s) in coded.iter().zip(&slices) {
            for l in &frame.levels {
                l.to_le_bytes().into_iter().for_each(&mut eat);
            }
            recon
                .y
                .iter()
                .chain(&recon.u)
                .chain(&recon.v)
                .for_each(|&b| eat(b));
            s.iter().flat_map(|(bytes, _)| bytes).for_each(|&b| eat(b));
        }
        sum = h;
    }
    let n = pictures.len().max(1) as f64;
    println!(
        "{} pictures {}x{}, QP {}: front end {:.2} ms a picture, CPU CAVLC {:.2} ms; checksum {sum:016x}",
        pictures.len(),
        pictures.first().map_or(0, |p| p.width),
        pictures.first().map_or(0, |p| p.height),
        config.qp,
        front / n * 1e3,
        cavlc / n * 1e3,
    );
    Ok(())
}

/// A detailed texture (a hash of the position, smoothed along rows), `shift` samples to
/// the left: the pan the H200 script times, smaller.
fn texture(width: u32, height: u32, shift: usize) -> Picture {
    let mut p = Picture::new(width, height);
    for (y, row) in p.y.chunks_exact_mut(width as usize).enumerate() {
        let mut acc = 0u32;
        for x in 0..width as usize + shift {
            let v =
                ((x as u32).wrapping_mul(2654435761) ^ (y as u32 * 40503) ^ ((x * y) >> 3) as u32)
                    & 0xff;
            acc = (acc * 3 + v) >> 2;
            if x >= shift {
                row[x - shift] = acc as u8;
            }
        }
    }
    p
}
