//! One way to choose where a codec runs: every codec's entry point takes an `Engine`
//! (`huffman::compress`, `h264::Encoder::new`, `j2k::encode`). On every engine present
//! (tests/common: wgpu, CUDA where built and found, the CPU) each codec writes the CPU's
//! bytes, or, where it has no path for that backend (H.264 and JPEG 2000 on CUDA), fails
//! with an error that says so.

mod common;

use parvlc::h264::{Encoder, EncoderConfig, Picture};
use parvlc::huffman::compress::Format;
use parvlc::huffman::cuvle::CuvleConfig;
use parvlc::j2k::{self, Image};
use parvlc::{Backend, Engine, Result};

/// Three pictures of a moving pattern, 40x24, as one H.264 stream on `engine`.
fn h264_stream(engine: &Engine) -> Result<Vec<u8>> {
    let (w, h) = (40, 24);
    let config = EncoderConfig {
        qp: 20,
        slice_rows: Some(1),
        ..Default::default()
    };
    let mut encoder = Encoder::new(w, h, 25.0, config, engine)?;
    let mut stream = Vec::new();
    for t in 0..3u32 {
        let mut p = Picture::new(w, h);
        for (i, y) in p.y.iter_mut().enumerate() {
            let (x, r) = (i as u32 % w, i as u32 / w);
            *y = ((x * 7 + r * 3 + 11 * t) % 256) as u8;
        }
        stream.extend(pollster::block_on(encoder.encode(&p))?.bytes);
    }
    Ok(stream)
}

fn j2k_codestream(engine: &Engine) -> Result<Vec<u8>> {
    let image = Image::new(37, 29, 3, 8, parvlc::testdata::synthetic_rgb(37, 29, 5))?;
    pollster::block_on(j2k::encode(&image, &Default::default(), engine))
}

#[test]
fn every_codec_runs_on_every_engine_or_says_it_cannot() {
    let data = parvlc::testdata::generate(100_000, 4.5, 3);
    let config = CuvleConfig::default();
    let want_gz = common::compress(&Engine::Cpu, &data, Format::Gzip, &config).bytes;
    let want_h264 = h264_stream(&Engine::Cpu).unwrap();
    let want_j2k = j2k_codestream(&Engine::Cpu).unwrap();
    for engine in common::engines() {
        let on = engine.name();
        let gz = common::compress(engine, &data, Format::Gzip, &config).bytes;
        assert!(gz == want_gz, "gzip on {on} differs from the CPU's");
        let (h264, j2k) = (h264_stream(engine), j2k_codestream(engine));
        if engine.backend() == Backend::Cuda {
            for (codec, e) in [("H.264", h264.err()), ("JPEG 2000", j2k.err())] {
                let e = e.map(|e| e.to_string()).unwrap_or_default();
                assert!(e.contains("has no CUDA path"), "{codec} on {on}: {e:?}");
            }
        } else {
            assert!(h264.unwrap() == want_h264, "H.264 on {on} differs");
            assert!(j2k.unwrap() == want_j2k, "JPEG 2000 on {on} differs");
        }
    }
}
