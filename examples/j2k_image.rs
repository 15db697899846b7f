//! Encode an image losslessly into a JPEG 2000 codestream, tier-1 and the front end on
//! the GPU where there is one; `opj_decompress` returns exactly these samples.
//!
//!     cargo run --release --example j2k_image [OUT.j2k]

use parvlc::j2k::{encode, EncoderConfig, Image};
use parvlc::{Backend, Engine};

fn main() -> parvlc::Result<()> {
    let out = std::env::args().nth(1).unwrap_or_else(|| {
        std::env::temp_dir()
            .join("parvlc-example.j2k")
            .display()
            .to_string()
    });
    let (w, h) = (256u32, 192u32);
    let samples: Vec<u16> = (0..w * h * 3)
        .map(|i| {
            let (p, c) = (i / 3, i % 3);
            let (x, y) = (p % w, p / w);
            ((x * (c + 1) + y * (3 - c) + (x ^ y) % 17) % 256) as u16
        })
        .collect();
    let image = Image::new(w, h, 3, 8, samples)?;
    let engine = pollster::block_on(Engine::open(Backend::Wgpu)).unwrap_or(Engine::Cpu);
    let codestream = pollster::block_on(encode(&image, &EncoderConfig::default(), &engine))?;
    std::fs::write(&out, &codestream).map_err(|e| parvlc::Error::io(&out, e))?;
    println!(
        "{w}x{h} RGB on {}: {} -> {} bytes -> {out}",
        engine.name(),
        image.samples.len(),
        codestream.len()
    );
    Ok(())
}
