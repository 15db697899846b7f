//! Encode a few synthetic 4:2:0 pictures as an intra-only H.264 Baseline stream with
//! CAVLC on the GPU (the CPU reference where there is no adapter). Play it with
//! `ffplay target/example.264`; FFmpeg decodes it to exactly `coded.recon`.
//!
//!     cargo run --release --example h264_clip [OUT.264]

use parvlc::cavlc::GpuVariant;
use parvlc::h264::{Encoder, EncoderConfig, FrontEnd, LumaModes, Picture};
use parvlc::{Backend, Engine};

fn main() -> parvlc::Result<()> {
    let out = std::env::args().nth(1).unwrap_or_else(|| {
        std::env::temp_dir()
            .join("parvlc-example.264")
            .display()
            .to_string()
    });
    let (width, height) = (320, 240);
    let engine = pollster::block_on(Engine::open(Backend::Wgpu)).unwrap_or(Engine::Cpu);
    let config = EncoderConfig {
        qp: 28,
        slice_rows: Some(5),
        // Which GPU stage codes CAVLC on the GPU; the same bits as the others.
        cavlc: GpuVariant::Cavlcu,
        // I_16x16 or I_4x4 per macroblock, whichever costs less.
        luma: LumaModes::Auto,
        // Prediction, transform and reconstruction on the GPU where it codes the luma
        // modes asked for (I_16x16 alone for now), on the CPU cores otherwise.
        front_end: FrontEnd::Gpu,
    };
    let mut encoder = Encoder::new(width, height, 25.0, config, &engine)?;
    let mut stream = Vec::new();
    for t in 0..10u32 {
        let mut picture = Picture::new(width, height);
        // A moving diagonal pattern with a little texture.
        for (i, y) in picture.y.iter_mut().enumerate() {
            let (x, r) = (i as u32 % width, i as u32 / width);
            *y = ((x + r + 4 * t) % 64 * 3 + (x * r % 7) * 5) as u8;
        }
        let coded = pollster::block_on(encoder.encode(&picture))?;
        stream.extend_from_slice(&coded.bytes);
    }
    std::fs::write(&out, &stream).map_err(|e| parvlc::Error::io(&out, e))?;
    println!(
        "10 pictures {width}x{height}, QP {}, CAVLC {} on {}: {} bytes -> {out}",
        config.qp,
        encoder.cavlc_name(),
        engine.name(),
        stream.len()
    );
    Ok(())
}
