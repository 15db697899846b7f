//! Decoders nobody here wrote, as judges of our gzip output: gzip(1) and flate2.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

pub const GZIP: &str = "/usr/bin/gzip";

/// `gzip -dc` of `gz`; panics with gzip's message if it refuses.
pub fn gzip_tool_decode(gz: &[u8]) -> Vec<u8> {
    assert!(
        std::path::Path::new(GZIP).exists(),
        "{GZIP} is missing: the gzip compatibility tests need it (apt-get install gzip)"
    );
    let mut child = Command::new(GZIP)
        .arg("-dc")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {GZIP}: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let data = gz.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "gzip -dc failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `gzip -t` of `gz`; panics with gzip's message if it refuses.
pub fn gzip_tool_test(gz: &[u8]) {
    let path = std::env::temp_dir().join(format!(
        "parvlc-judge-{}-{:?}.gz",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&path, gz).unwrap();
    let out = Command::new(GZIP).arg("-t").arg(&path).output().unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(
        out.status.success(),
        "gzip -t failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `gzip -c` of `data`: a foreign gzip file (no frame index).
pub fn gzip_tool_encode(data: &[u8]) -> Vec<u8> {
    let mut child = Command::new(GZIP)
        .arg("-c")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {GZIP}: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let data = data.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success());
    out.stdout
}

/// flate2's reading of every member (our streams hold several).
pub fn flate2_decode(gz: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(gz)
        .read_to_end(&mut out)
        .unwrap_or_else(|e| panic!("flate2 rejected our gzip: {e}"));
    out
}
