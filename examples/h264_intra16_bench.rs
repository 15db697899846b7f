//! GPU time of the I_16x16 front end (h264/intra16) by timestamps: a batch of 1080p
//! pictures (a texture panning 4 samples a picture), one slice per picture and a slice
//! per macroblock row, for several batch sizes; the best of `RUNS` (5) submissions each.
//!
//!     cargo run --release --example h264_intra16_bench [-- WIDTH HEIGHT]

use parvlc::cavlc::CavlcGpu;
use parvlc::gpu::{Gpu, GpuOptions, Profiler};
use parvlc::h264::intra16::Intra16Gpu;
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
    let (w, h) = (arg(1, 1920), arg(2, 1080));
    let runs = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let gpu = pollster::block_on(Gpu::new(GpuOptions::default()))?;
    let geometry = Geometry::new(w, h)?;
    let pictures: Vec<Picture> = (0..64).map(|k| pan(w, h, 4 * k)).collect();
    for slice_rows in [None, Some(1)] {
        let config = EncoderConfig {
            qp: 27,
            slice_rows,
            luma: LumaModes::Intra16x16,
            ..EncoderConfig::default()
        };
        let front = Intra16Gpu::new(&gpu, geometry, &config)?;
        let cavlc = CavlcGpu::new(&gpu)?;
        for batch in [1usize, 4, 16, 64] {
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
                best = best.min(pollster::block_on(profiler.timings(&gpu))?.get("intra16") * 1e3);
                let mut sum = 0.0;
                for p in &pending {
                    sum += pollster::block_on(p.timings(&gpu))?.total() * 1e3;
                }
                best_cavlc = best_cavlc.min(sum);
            }
            println!(
                "intra16 {w}x{h}, slices {}, batch {batch}: {best:.2} ms GPU, {:.3} ms a picture, {:.0} pictures/s; CAVLC {best_cavlc:.2} ms GPU",
                slice_rows.map_or("one".to_string(), |r| format!("of {r} row")),
                best / batch as f64,
                batch as f64 * 1e3 / best
            );
        }
    }
    Ok(())
}
