//! GPU time of the intra front end (h264/intra) by timestamps, and of CAVLC after it: a
//! batch of pictures (a texture panning 4 samples a picture), one slice per picture and a
//! slice per macroblock row, for several batch sizes; the best of `RUNS` (3) submissions
//! each.
//!
//!     cargo run --release --example h264_intra_bench [-- WIDTH HEIGHT]
//!
//! 352x288 without arguments (1920 1080 on a real GPU); `LUMA` the luma modes (`auto`;
//! `16x16`, `4x4`), `BATCHES` a comma list of batch sizes (1,4).

use parvlc::cavlc::CavlcGpu;
use parvlc::gpu::{Gpu, GpuOptions, Profiler};
use parvlc::h264::intra::IntraGpu;
use parvlc::h264::{EncoderConfig, Geometry, LumaModes, Picture};

fn pan(w: u32, h: u32, shift: u32) -> Picture {
    let mut p = Picture::new(w, h);
    for (i, v) in p.y.iter_mut().enumerate() {
        let (x, y) = (i as u32 % w + shift, i as u32 / w);
        *v = ((x.wrapping_mul(2654435761) ^ y.wrapping_mul(40503) ^ ((x * y) >> 3)) & 0xff) as u8;
    }
    p
}

fn main() -> parvlc::Result<()> {
    let arg = |i: usize, d: u32| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(d)
    };
    let (w, h) = (arg(1, 352), arg(2, 288));
    let runs = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let luma: LumaModes = std::env::var("LUMA")
        .unwrap_or_else(|_| "auto".into())
        .parse()?;
    let batches: Vec<usize> = std::env::var("BATCHES")
        .unwrap_or_else(|_| "1,4".into())
        .split(',')
        .filter_map(|b| b.trim().parse().ok())
        .filter(|&b| b > 0)
        .collect();
    let gpu = pollster::block_on(Gpu::new(GpuOptions::default()))?;
    let geometry = Geometry::new(w, h)?;
    let most = batches.iter().copied().max().unwrap_or(1);
    let pictures: Vec<Picture> = (0..most as u32).map(|k| pan(w, h, 4 * k)).collect();
    for slice_rows in [None, Some(1)] {
        let config = EncoderConfig {
            qp: 27,
            slice_rows,
            luma,
            ..EncoderConfig::default()
        };
        let front = IntraGpu::new(&gpu, geometry, &config)?;
        let cavlc = CavlcGpu::new(&gpu)?;
        for &batch in &batches {
            let refs: Vec<&Picture> = pictures[..batch].iter().collect();
            let mut best = f64::MAX;
            let mut best_cavlc = f64::MAX;
            for _ in 0..runs {
                let mut profiler = Profiler::new(&gpu, 2);
                let mut encoder = gpu.device.create_command_encoder(&Default::default());
                let done = front.encode_into(&gpu, &mut encoder, Some(&mut profiler), &refs)?;
                profiler.resolve(&mut encoder);
                let starts = config.slice_starts(&geometry);
                let frames: Vec<_> = (0..batch)
                    .map(|k| done.gpu_frame(&gpu, &mut encoder, k, starts.clone()))
                    .collect();
                let pending = frames
                    .iter()
                    .map(|f| cavlc.encode_into(&gpu, &mut encoder, f, config.cavlc, true, true))
                    .collect::<parvlc::Result<Vec<_>>>()?;
                gpu.queue.submit([encoder.finish()]);
                pollster::block_on(done.check(&gpu))?;
                best = best.min(pollster::block_on(profiler.timings(&gpu))?.get("intra") * 1e3);
                let mut sum = 0.0;
                for p in &pending {
                    sum += pollster::block_on(p.timings(&gpu))?.total() * 1e3;
                }
                best_cavlc = best_cavlc.min(sum);
            }
            println!(
                "intra {w}x{h}, luma {luma:?}, slices {}, batch {batch}: {best:.2} ms GPU, {:.3} ms a picture, {:.0} pictures/s; CAVLC {best_cavlc:.2} ms GPU",
                slice_rows.map_or("one".to_string(), |r| format!("of {r} row")),
                best / batch as f64,
                batch as f64 * 1e3 / best
            );
        }
    }
    Ok(())
}
