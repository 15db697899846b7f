//! Compress a buffer on the GPU into gzip (any gunzip reads it) and back, with the CPU
//! where there is no adapter.
//!
//!     cargo run --release --example compress_buffer

use parvlc::huffman::compress;
use parvlc::huffman::compress::{decompress, Format};
use parvlc::huffman::cuvle::CuvleConfig;
use parvlc::{Backend, Engine};

fn main() -> parvlc::Result<()> {
    let data: Vec<u8> = (0..1u32 << 20)
        .map(|i| b"parallel variable-length coding "[(i * i % 31) as usize])
        .collect();
    // One engine for every call; Backend::Cpu (or Cuda, with the feature) runs elsewhere.
    let engine = match pollster::block_on(Engine::open(Backend::Wgpu)) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{e}; compressing on the CPU");
            Engine::Cpu
        }
    };
    let config = CuvleConfig::default();
    for format in [Format::Gzip, Format::Native] {
        let out = pollster::block_on(compress(&engine, &data, format, &config, &mut |_| {}))?;
        assert_eq!(decompress(&out.bytes)?, data, "round trip");
        println!(
            "{format:?} on {}: {} -> {} bytes (ratio {:.3})",
            engine.name(),
            data.len(),
            out.bytes.len(),
            data.len() as f64 / out.bytes.len() as f64
        );
    }
    Ok(())
}
