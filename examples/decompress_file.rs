//! Decompress a file on the GPU without waiting for it to open: the stream starts at once,
//! the batches ready before wgpu's device is open decode on the CPU cores, the rest on the
//! GPU (what `parvlc decompress --backend wgpu FILE` runs).
//!
//!     cargo run --release --example decompress_file [FILE.pvlc|FILE.gz]
//!
//! Without an argument it writes a native file of 24 MiB first (framed: a code table
//! per frame), decodes it and checks the bytes.

use std::io::Write;

use parvlc::huffman::compress::Format;
use parvlc::huffman::pipeline::{compress_stream, StreamConfig, StreamInput};
use parvlc::huffman::stream::{decompress_file_opening, OpenGpu};
use parvlc::{Backend, Engine};

fn main() -> parvlc::Result<()> {
    let (path, original) = match std::env::args_os().nth(1) {
        Some(p) => (std::path::PathBuf::from(p), None),
        None => {
            let data: Vec<u8> = (0..24u32 << 20)
                .map(|i| {
                    b"parallel variable-length coding "[(i * i % 31) as usize] ^ (i >> 20) as u8
                })
                .collect();
            let path =
                std::env::temp_dir().join(format!("decompress_file-{}.pvlc", std::process::id()));
            let mut file = Vec::new();
            let config = StreamConfig::for_format(Format::Native);
            compress_stream(
                &Engine::Cpu,
                Format::Native,
                &config,
                StreamInput::Bytes(&data),
                &mut file,
                &mut |_| {},
            )?;
            std::fs::write(&path, &file).map_err(|e| parvlc::Error::io(&path, e))?;
            (path, Some(data))
        }
    };
    let file = std::fs::File::open(&path).map_err(|e| parvlc::Error::io(&path, e))?;
    // Opened on another thread while the stream starts; no adapter: the CPU cores throughout.
    let open = || {
        pollster::block_on(Engine::open(Backend::Wgpu)).unwrap_or_else(|e| {
            eprintln!("{e}; decoding on the CPU");
            Engine::Cpu
        })
    };
    let started = std::time::Instant::now();
    let mut out = Vec::new();
    let done = decompress_file_opening(open, OpenGpu::Now, &file, &mut out, 16 << 20)?;
    let seconds = started.elapsed().as_secs_f64();
    if let Some(data) = original {
        assert!(out == data, "the decoded bytes differ from the input");
        let _ = std::fs::remove_file(&path);
    }
    let mut stdout = std::io::stdout();
    writeln!(
        stdout,
        "{:?}: {} bytes out in {:.3} s, the GPU's opening included",
        done.format, done.bytes_out, seconds
    )
    .map_err(parvlc::Error::WriteOutput)?;
    Ok(())
}
