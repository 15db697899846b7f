#![allow(dead_code)]
//! What the H.264 suites share: clips from FFmpeg's lavfi sources (made once per test
//! process), FFmpeg as the judge, and the library's encoder run over a Y4M file.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use parvlc::h264::y4m::Y4mReader;
use parvlc::h264::{Encoder, EncoderConfig};
use parvlc::Engine;

/// A scratch directory for this test process.
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("parvlc-h264-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    })
}

/// A 2-frame Y4M clip of lavfi `source` (testsrc2, mandelbrot) at `w`x`h`, made once.
pub fn clip(source: &str, w: u32, h: u32) -> PathBuf {
    let path = scratch().join(format!("{source}-{w}x{h}.y4m"));
    if !path.exists() {
        let tmp = path.with_extension(format!(
            "{}.tmp.y4m",
            std::thread::current()
                .name()
                .unwrap_or("t")
                .replace(':', "_")
        ));
        let o = Command::new("ffmpeg")
            .args(["-v", "error", "-y", "-f", "lavfi", "-i"])
            .arg(format!("{source}=size={w}x{h}:rate=25"))
            .args(["-frames:v", "2", "-pix_fmt", "yuv420p"])
            .arg(&tmp)
            .output()
            .expect("ffmpeg is installed by the test command");
        assert!(
            o.status.success(),
            "ffmpeg lavfi: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        std::fs::rename(&tmp, &path).unwrap();
    }
    path
}

/// FFmpeg's decode of an Annex B stream as raw yuv420p, failing on any decoding error
/// (`-err_detect explode -xerror`, and nothing may be printed at level error).
pub fn ffmpeg_decode(stream: &Path) -> Vec<u8> {
    let o = Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-xerror",
            "-err_detect",
            "explode",
            "-f",
            "h264",
            "-i",
        ])
        .arg(stream)
        .args(["-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        .output()
        .expect("ffmpeg is installed by the test command");
    assert!(
        o.status.success() && o.stderr.is_empty(),
        "ffmpeg rejects {}: {}",
        stream.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

/// Encode a Y4M file with the library on `engine`: (Annex B stream, reconstruction as raw
/// yuv420p, macroblocks coded at a QP other than the configured one).
pub fn encode_file(
    y4m: &Path,
    config: EncoderConfig,
    engine: &Engine,
) -> (Vec<u8>, Vec<u8>, usize) {
    let mut reader = Y4mReader::open(y4m).unwrap();
    let h = reader.header().clone();
    let mut enc = Encoder::new(h.width, h.height, h.fps_f64(), config, engine).unwrap();
    let (mut stream, mut recon, mut requant) = (Vec::new(), Vec::new(), 0);
    while let Some(p) = reader.read_frame().unwrap() {
        let e = pollster::block_on(enc.encode(&p)).unwrap();
        stream.extend_from_slice(&e.bytes);
        // Kept by default.
        let (r, f) = (e.recon.unwrap(), e.frame.unwrap());
        recon.extend_from_slice(&r.to_yuv420p());
        requant += f.mbs.iter().filter(|m| m.mb_qp_delta != 0).count();
    }
    (stream, recon, requant)
}

/// The macroblocks of a Y4M file's pictures by kind: (I_NxN, I_16x16).
pub fn mb_kinds(y4m: &Path, config: EncoderConfig) -> (usize, usize) {
    let mut reader = Y4mReader::open(y4m).unwrap();
    let h = reader.header().clone();
    let mut enc = Encoder::new(h.width, h.height, h.fps_f64(), config, &Engine::Cpu).unwrap();
    let (mut nxn, mut i16) = (0, 0);
    while let Some(p) = reader.read_frame().unwrap() {
        let e = pollster::block_on(enc.encode(&p)).unwrap();
        let mbs = e.frame.unwrap().mbs;
        let n = mbs.iter().filter(|m| !m.is_intra16x16()).count();
        (nxn, i16) = (nxn + n, i16 + mbs.len() - n);
    }
    (nxn, i16)
}

/// Encode, write the stream, have FFmpeg decode it, and demand our reconstruction
/// byte for byte; returns the count of requantized macroblocks.
pub fn check_against_ffmpeg(
    y4m: &Path,
    config: EncoderConfig,
    engine: &Engine,
    tag: &str,
) -> usize {
    let (stream, recon, requant) = encode_file(y4m, config, engine);
    let out = scratch().join(format!("{tag}.264"));
    std::fs::write(&out, &stream).unwrap();
    let decoded = ffmpeg_decode(&out);
    assert_eq!(decoded.len(), recon.len(), "{tag}: decoded size");
    if let Some(i) = decoded.iter().zip(&recon).position(|(a, b)| a != b) {
        panic!("{tag}: FFmpeg's output differs from our reconstruction at byte {i}");
    }
    let _ = std::fs::remove_file(&out);
    requant
}
