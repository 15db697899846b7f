//! `demo`: each codec once on generated input, checked, with its speed.

use std::time::Instant;

use parvlc::huffman::compress::{self as codec, Format};
use parvlc::{Backend, Engine, Error, Result};

use crate::huffman::{compress_any, open_engine, Tuning};

#[derive(clap::Args)]
pub struct DemoArgs {
    /// Bytes per sample.
    #[arg(long, default_value_t = 64 << 20)]
    size: u64,
    #[command(flatten)]
    tuning: Tuning,
}

pub fn demo(a: DemoArgs) -> Result<()> {
    let engine = open_engine(&a.tuning)?;
    huffman(&a, &engine)?;
    // H.264 and JPEG 2000 have no CUDA path: after a CUDA run they take wgpu's GPU.
    let wgpu;
    let engine = match engine.backend() {
        Backend::Cuda => {
            wgpu = crate::open_engine(Backend::Wgpu)?;
            &wgpu
        }
        _ => &engine,
    };
    h264(engine)?;
    j2k(engine)
}

/// The Huffman table of the demo.
fn huffman(a: &DemoArgs, engine: &Engine) -> Result<()> {
    let (size, tuning) = (a.size, &a.tuning);
    let config = tuning.config(engine.backend());
    println!(
        "parvlc demo on {}: {} per sample, native format, {} scan",
        engine.name(),
        parvlc::bench::human(size),
        tuning.strategy.name()
    );
    println!(
        "{:>8} {:>9} {:>12} {:>12} {:>12}  round trip",
        "entropy", "ratio", "GB/s wall", "GB/s kernel", "segments"
    );
    for (i, entropy) in [0.5, 2.0, 4.5, 7.0, 8.0].into_iter().enumerate() {
        let data = parvlc::testdata::generate(size as usize, entropy, 7 + i as u64);
        let _ = compress_any(engine, &data, Format::Native, &config)?; // warm-up
        let t = Instant::now();
        let c = compress_any(engine, &data, Format::Native, &config)?;
        let wall = t.elapsed().as_secs_f64();
        let back = codec::decompress(&c.bytes)?;
        let ok = back == data;
        let kernel = c.timings.total();
        println!(
            "{:>8.1} {:>9.3} {:>12.2} {:>12} {:>12}  {}",
            entropy,
            data.len() as f64 / c.bytes.len() as f64,
            data.len() as f64 / wall / 1e9,
            if kernel > 0.0 {
                format!("{:.2}", data.len() as f64 / kernel / 1e9)
            } else {
                "-".into()
            },
            c.segments,
            if ok { "ok" } else { "MISMATCH" }
        );
        if !ok {
            return Err(Error::Gpu {
                stage: "demo",
                message: "round trip mismatch".into(),
            });
        }
    }
    Ok(())
}

/// A mismatch between a GPU result and its CPU twin.
fn mismatch(what: &str) -> Error {
    Error::Gpu {
        stage: "demo",
        message: format!("{what}: the GPU and the CPU twin differ"),
    }
}

/// H.264 intra: the stream with CAVLC on the GPU against the CPU reference's.
fn h264(engine: &Engine) -> Result<()> {
    use parvlc::h264::{Encoder, EncoderConfig, Picture};
    let (w, h, frames) = (640u32, 360u32, 10u64);
    let pictures: Vec<Picture> = (0..frames)
        .map(|f| {
            let (y, u, v) = parvlc::bench::synthetic_picture(w, h, f);
            Picture {
                width: w,
                height: h,
                y,
                u,
                v,
            }
        })
        .collect();
    let encode = |engine: &Engine| -> Result<(Vec<u8>, f64)> {
        let config = EncoderConfig {
            qp: 27,
            ..EncoderConfig::default()
        };
        let mut encoder = Encoder::new(w, h, 25.0, config, engine)?;
        let t = Instant::now();
        let mut stream = Vec::new();
        for p in &pictures {
            stream.extend(pollster::block_on(encoder.encode(p))?.bytes);
        }
        Ok((stream, t.elapsed().as_secs_f64()))
    };
    let (cpu, cpu_s) = encode(&Engine::Cpu)?;
    print!(
        "H.264 intra {w}x{h}, {frames} frames, QP 27: {} bytes; CAVLC on the CPU {:.0} frames/s",
        cpu.len(),
        frames as f64 / cpu_s
    );
    if engine.gpu().is_some() {
        let (g, gpu_s) = encode(engine)?;
        print!(
            ", on the GPU (cavlcu) {:.0} frames/s",
            frames as f64 / gpu_s
        );
        if g != cpu {
            println!();
            return Err(mismatch("H.264 stream"));
        }
        print!("; same stream");
    }
    println!();
    Ok(())
}

/// JPEG 2000 lossless: the whole GPU path's codestream against the CPU path's.
fn j2k(engine: &Engine) -> Result<()> {
    use parvlc::j2k::{encode, EncoderConfig, Image};
    let (w, h) = (1024u32, 768u32);
    let (y, _, _) = parvlc::bench::synthetic_picture(w, h, 3);
    let image = Image::new(w, h, 1, 8, y.into_iter().map(u16::from).collect())?;
    let config = EncoderConfig::default();
    let run = |engine: &Engine| -> Result<(Vec<u8>, f64)> {
        let t = Instant::now();
        let cs = pollster::block_on(encode(&image, &config, engine))?;
        Ok((cs, t.elapsed().as_secs_f64()))
    };
    let (cpu, cpu_s) = run(&Engine::Cpu)?;
    let samples = (w * h) as f64;
    print!(
        "JPEG 2000 lossless {w}x{h} grey: {} bytes (ratio {:.3}); CPU {:.1} MSamples/s",
        cpu.len(),
        samples / cpu.len() as f64,
        samples / cpu_s / 1e6
    );
    if engine.gpu().is_some() {
        let _ = run(engine)?; // pipelines built
        let (g, gpu_s) = run(engine)?;
        print!(", GPU {:.1} MSamples/s", samples / gpu_s / 1e6);
        if g != cpu {
            println!();
            return Err(mismatch("JPEG 2000 codestream"));
        }
        print!("; same codestream");
    }
    println!();
    Ok(())
}
