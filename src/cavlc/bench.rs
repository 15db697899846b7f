//! The H.264 CAVLC benchmark behind `parvlc bench cavlc`: the GPU variants (CAVLC alone,
//! with packing, end to end) and the CPU encoder on one core and on all cores, each
//! checked against the reference CPU encoder's slices before it is timed.

use std::time::Instant;

use crate::bench::{best, best_checked, positive, time_gpu, Run, WARM_UP};
use crate::gpu::Gpu;
use crate::Result;

/// What `parvlc bench cavlc` runs.
#[derive(Clone, Debug)]
pub struct CavlcBenchOptions {
    /// Frame sizes in pixels.
    pub sizes: Vec<(u32, u32)>,
    pub qps: Vec<u8>,
    pub variants: Vec<crate::cavlc::GpuVariant>,
    /// Macroblock rows per slice; None: one slice.
    pub slice_rows: Option<u32>,
    pub runs: usize,
    /// The CPU encoder on one core and on all cores.
    pub cpu_rows: bool,
    pub config: crate::cavlc::CavlcConfig,
}

/// One CAVLC measurement (one JSON line).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CavlcRecord {
    pub module: String,
    /// cavlcu, recompute, su, cpu-1-core, cpu-all-cores.
    pub variant: String,
    /// cavlc (the block codes alone), cavlc+pack (slice data in the GPU's memory), or
    /// end-to-end (frame upload, coding, packing, slices back on the host; the CPU rows
    /// are end-to-end).
    pub scope: String,
    /// e.g. 1080p-qp27.
    pub input: String,
    pub width: u32,
    pub height: u32,
    pub qp: u8,
    pub macroblocks: u64,
    /// slice_data() bits of the frame.
    pub bits: u64,
    /// GPU time per frame by timestamp queries (sum of the passes), best of the runs.
    pub seconds_gpu: Option<f64>,
    /// Wall time per frame, best of the runs.
    pub seconds_wall: f64,
    /// Frames per second on the GPU time where there is one, else on the wall time.
    pub frames_per_s: f64,
    /// su's time over this one's, same scope (GPU time where measured).
    pub speedup_vs_su: Option<f64>,
    pub adapter: String,
    /// Where the frames came from.
    pub source: String,
}

impl CavlcRecord {
    pub fn seconds(&self) -> f64 {
        self.seconds_gpu.unwrap_or(self.seconds_wall)
    }
}

/// `1080p`, `2160p`, `720p`, or `WIDTHxHEIGHT`.
pub fn parse_frame_size(s: &str) -> Result<(u32, u32)> {
    match s {
        "720p" => return Ok((1280, 720)),
        "1080p" => return Ok((1920, 1080)),
        "2160p" | "4k" => return Ok((3840, 2160)),
        _ => {}
    }
    let bad = || {
        crate::Error::InvalidArgument(format!(
            "frame size `{s}`: use 720p, 1080p, 2160p or WIDTHxHEIGHT"
        ))
    };
    let (w, h) = s.split_once('x').ok_or_else(bad)?;
    let (w, h) = (
        w.parse::<u32>().map_err(|_| bad())?,
        h.parse::<u32>().map_err(|_| bad())?,
    );
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(bad());
    }
    Ok((w, h))
}

fn size_name(w: u32, h: u32) -> String {
    match (w, h) {
        (1280, 720) => "720p".into(),
        (1920, 1080) => "1080p".into(),
        (3840, 2160) => "2160p".into(),
        _ => format!("{w}x{h}"),
    }
}

/// A deterministic natural-looking 8-bit 4:2:0 picture: smooth gradients, fine texture
/// (hashed value noise at two scales), and hard edges (discs, bars, a checkerboard
/// patch). Returns the Y, U and V planes (chroma `ceil(w/2) x ceil(h/2)`).
pub fn synthetic_picture(width: u32, height: u32, seed: u64) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let hash = |x: i64, y: i64, salt: u64| -> f64 {
        let mut z = (x as u64)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add((y as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f))
            .wrapping_add(seed.wrapping_mul(0x1656_67b1_9e37_79f9) ^ salt);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    // Value noise: bilinear between hashed lattice points `cell` apart.
    let noise = |x: f64, y: f64, cell: f64, salt: u64| -> f64 {
        let (gx, gy) = (x / cell, y / cell);
        let (ix, iy) = (gx.floor() as i64, gy.floor() as i64);
        let (fx, fy) = (gx - ix as f64, gy - iy as f64);
        let a = hash(ix, iy, salt) * (1.0 - fx) + hash(ix + 1, iy, salt) * fx;
        let b = hash(ix, iy + 1, salt) * (1.0 - fx) + hash(ix + 1, iy + 1, salt) * fx;
        a * (1.0 - fy) + b * fy - 0.5
    };
    let (w, h) = (width as f64, height as f64);
    let luma = |x: f64, y: f64| -> f64 {
        let mut v = 110.0 + 70.0 * (x / w) - 40.0 * (y / h) + 25.0 * ((x + 2.0 * y) / 180.0).sin();
        v += 28.0 * noise(x, y, 24.0, 1) + 10.0 * noise(x, y, 3.0, 2);
        // Edges: discs, bars, a checkerboard.
        for k in 0..6 {
            let cx = w * (0.1 + 0.15 * k as f64);
            let cy = h * (0.3 + 0.08 * (k % 3) as f64);
            let r = h * (0.05 + 0.02 * k as f64);
            if (x - cx).powi(2) + (y - cy).powi(2) < r * r {
                v += if k % 2 == 0 { 55.0 } else { -50.0 };
            }
        }
        if (y / h) > 0.75 && ((x / 37.0) as i64) % 3 == 0 {
            v -= 45.0;
        }
        if x > w * 0.7 && y > h * 0.6 && (((x / 12.0) as i64 + (y / 12.0) as i64) % 2 == 0) {
            v += 60.0;
        }
        v
    };
    let (cw, ch) = (width.div_ceil(2), height.div_ceil(2));
    let mut y = Vec::with_capacity((width * height) as usize);
    for j in 0..height {
        for i in 0..width {
            y.push(luma(i as f64, j as f64).clamp(0.0, 255.0) as u8);
        }
    }
    let mut u = Vec::with_capacity((cw * ch) as usize);
    let mut v = Vec::with_capacity((cw * ch) as usize);
    for j in 0..ch {
        for i in 0..cw {
            let (x, yy) = (2.0 * i as f64, 2.0 * j as f64);
            let l = luma(x, yy);
            u.push(
                (128.0 + 0.25 * (l - 128.0) - 30.0 * (x / w) + 12.0 * noise(x, yy, 16.0, 3))
                    .clamp(0.0, 255.0) as u8,
            );
            v.push(
                (128.0 - 0.2 * (l - 128.0) + 25.0 * (yy / h) + 12.0 * noise(x, yy, 16.0, 4))
                    .clamp(0.0, 255.0) as u8,
            );
        }
    }
    (y, u, v)
}

/// The frame the benchmark codes for a size and QP, and where it came from.
pub fn cavlc_bench_frame(
    width: u32,
    height: u32,
    qp: u8,
    slice_rows: Option<u32>,
) -> Result<(crate::cavlc::frame::Frame, String)> {
    // A natural-looking picture through the H.264 encoder's CPU stages (prediction,
    // transform, quantization), so the levels have real statistics for this QP.
    let (y, u, v) = synthetic_picture(width, height, 1);
    let picture = crate::h264::Picture {
        width,
        height,
        y,
        u,
        v,
    };
    let config = crate::h264::EncoderConfig {
        qp,
        slice_rows,
        ..Default::default()
    };
    let (frame, _recon) = crate::h264::encode_picture_levels(&picture, &config)?;
    Ok((
        frame,
        format!("synthetic picture through h264::encode_picture_levels at QP {qp}"),
    ))
}

/// Run the CAVLC benchmark; `sink` receives each frame's records as they are complete.
pub fn run_cavlc(
    gpu: Option<&Gpu>,
    options: &CavlcBenchOptions,
    sink: &mut dyn FnMut(&[CavlcRecord]),
) -> Result<Vec<CavlcRecord>> {
    use crate::cavlc::multicore::encode_frame_cpu;
    use crate::cavlc::{CavlcGpu, GpuVariant};
    let adapter = gpu.map_or("cpu".to_string(), |g| g.adapter_name());
    let encoder = match gpu {
        Some(g) if !options.variants.is_empty() => Some(CavlcGpu::with_config(g, options.config)?),
        _ => None,
    };
    let mut all = Vec::new();
    for &(width, height) in &options.sizes {
        for &qp in &options.qps {
            let (frame, source) = cavlc_bench_frame(width, height, qp, options.slice_rows)?;
            let want = encode_frame_cpu(&frame, true)?;
            let bits: u64 = want.iter().map(|s| s.1).sum();
            let input = format!("{}-qp{qp}", size_name(width, height));
            let mut records: Vec<CavlcRecord> = Vec::new();
            let mut push = |variant: &str, scope: &str, wall: f64, gpu_s: Option<f64>| {
                let s = gpu_s.unwrap_or(wall);
                records.push(CavlcRecord {
                    module: "cavlc".into(),
                    variant: variant.into(),
                    scope: scope.into(),
                    input: input.clone(),
                    width,
                    height,
                    qp,
                    macroblocks: frame.mb_count() as u64,
                    bits,
                    seconds_gpu: gpu_s,
                    seconds_wall: wall,
                    frames_per_s: 1.0 / s,
                    speedup_vs_su: None,
                    adapter: adapter.clone(),
                    source: source.clone(),
                });
            };
            if let (Some(g), Some(enc)) = (gpu, &encoder) {
                let resident = enc.upload(g, &frame)?;
                for &variant in &options.variants {
                    // Checked once against the CPU encoder before it is timed.
                    let got = pollster::block_on(enc.encode_frame(g, &frame, variant))?;
                    if got != want {
                        return Err(crate::Error::BenchMismatch(format!(
                            "cavlc {} output differs from the CPU encoder on {input}",
                            variant.name()
                        )));
                    }
                    for (scope, pack) in [("cavlc", false), ("cavlc+pack", true)] {
                        let (wall, gpu_s) = best(options.runs, || {
                            let (wall, p) = time_gpu(g, |ce| {
                                enc.encode_into(g, ce, &resident, variant, pack, true)
                            })?;
                            let t = pollster::block_on(p.timings(g))?;
                            Ok((wall, positive(t.total())))
                        })?;
                        push(variant.name(), scope, wall, gpu_s);
                    }
                    let (wall, _) = best(options.runs, || {
                        let t = Instant::now();
                        pollster::block_on(enc.encode_frame(g, &frame, variant))?;
                        Ok((t.elapsed().as_secs_f64(), None))
                    })?;
                    push(variant.name(), "end-to-end", wall, None);
                }
                let _ = GpuVariant::ALL;
            }
            if options.cpu_rows {
                for (name, parallel) in [("cpu-1-core", false), ("cpu-all-cores", true)] {
                    let b = best_checked(
                        options.runs.min(5),
                        WARM_UP,
                        || {
                            let t = Instant::now();
                            let output = encode_frame_cpu(&frame, parallel)?;
                            let wall = t.elapsed().as_secs_f64();
                            Ok(Run {
                                wall,
                                gpu: None,
                                output,
                            })
                        },
                        |got| {
                            if got == want {
                                return Ok(());
                            }
                            Err(crate::Error::BenchMismatch(format!(
                                "cavlc {name} output differs from the reference on {input}"
                            )))
                        },
                    )?;
                    push(name, "end-to-end", b.wall, None);
                }
            }
            let su: Vec<(String, f64)> = records
                .iter()
                .filter(|r| r.variant == "su")
                .map(|r| (r.scope.clone(), r.seconds()))
                .collect();
            for r in records.iter_mut() {
                if let Some((_, s)) = su.iter().find(|(scope, _)| *scope == r.scope) {
                    r.speedup_vs_su = Some(s / r.seconds());
                }
            }
            sink(&records);
            all.extend(records);
        }
    }
    Ok(all)
}

/// One frame's records as a table.
pub fn cavlc_table(records: &[CavlcRecord]) -> String {
    let Some(first) = records.first() else {
        return String::new();
    };
    let mut out = format!(
        "{} ({}x{}, {} macroblocks, {} bits of slice data; {})\n{:<14} {:<11} {:>10} {:>10} {:>10} {:>8}\n",
        first.input,
        first.width,
        first.height,
        first.macroblocks,
        first.bits,
        first.source,
        "variant",
        "scope",
        "GPU ms",
        "wall ms",
        "frames/s",
        "x su"
    );
    for r in records {
        out.push_str(&format!(
            "{:<14} {:<11} {:>10} {:>10.3} {:>10.1} {:>8}\n",
            r.variant,
            r.scope,
            r.seconds_gpu
                .map_or("-".into(), |s| format!("{:.3}", s * 1e3)),
            r.seconds_wall * 1e3,
            r.frames_per_s,
            r.speedup_vs_su.map_or("-".into(), |x| format!("{x:.2}")),
        ));
    }
    out
}
