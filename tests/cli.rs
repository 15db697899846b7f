//! The command line as a user meets it: round trips through gzip, refusal to overwrite,
//! no output at all from a corrupt input, and the CPU path.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::cli::{parvlc, stderr};

fn scratch(name: &str) -> PathBuf {
    common::cli::scratch("cli", name)
}

#[test]
fn gzip_output_is_read_by_gzip_and_decompress_refuses_to_overwrite() {
    let dir = scratch("gzip");
    let data = parvlc::testdata::generate(300_000, 3.0, 5);
    std::fs::write(dir.join("in.bin"), &data).unwrap();
    let o = parvlc(&["compress", "-f", "gzip", "in.bin"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let gz = Command::new("gzip")
        .args(["-dc", "in.bin.gz"])
        .current_dir(&dir)
        .output()
        .expect("gzip is installed by the test command");
    assert!(gz.status.success(), "gzip -dc: {}", stderr(&gz));
    assert_eq!(gz.stdout, data);

    // Compressing again onto the existing .gz refuses; --force overwrites.
    let o = parvlc(&["compress", "-f", "gzip", "in.bin"], &dir);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("refusing to overwrite"),
        "{}",
        stderr(&o)
    );

    // Decompressing onto an existing file refuses without --force and leaves it alone.
    std::fs::write(dir.join("out.bin"), b"keep me").unwrap();
    let o = parvlc(&["decompress", "in.bin.gz", "-o", "out.bin"], &dir);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("refusing to overwrite"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(dir.join("out.bin")).unwrap(), b"keep me");
    let o = parvlc(
        &["decompress", "in.bin.gz", "-o", "out.bin", "--force"],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("out.bin")).unwrap(), data);
}

#[test]
fn native_round_trip_and_corrupt_input_writes_nothing() {
    let dir = scratch("native");
    let data = parvlc::testdata::generate(200_001, 5.0, 6);
    std::fs::write(dir.join("a.bin"), &data).unwrap();
    let o = parvlc(&["compress", "a.bin"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = parvlc(&["decompress", "a.bin.pvlc", "-o", "b.bin"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("b.bin")).unwrap(), data);
    let o = parvlc(&["info", "a.bin.pvlc"], &dir);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("parvlc native"));

    // A flipped bit in the payload: a clear error, and no output file at all.
    let mut bad = std::fs::read(dir.join("a.bin.pvlc")).unwrap();
    let at = bad.len() - 1000;
    bad[at] ^= 0x10;
    std::fs::write(dir.join("bad.pvlc"), &bad).unwrap();
    let o = parvlc(&["decompress", "bad.pvlc", "-o", "c.bin"], &dir);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("corrupt") || stderr(&o).contains("checksum"),
        "{}",
        stderr(&o)
    );
    assert!(
        !dir.join("c.bin").exists(),
        "nothing may be written from a corrupt input"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind");

    // Not a compressed file at all.
    let o = parvlc(&["decompress", "a.bin", "-o", "d.bin"], &dir);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not a"), "{}", stderr(&o));
}

#[test]
fn cpu_path_writes_the_same_file_as_the_gpu() {
    let dir = scratch("cpu");
    let data = parvlc::testdata::generate(150_000, 2.5, 7);
    std::fs::write(dir.join("x.bin"), &data).unwrap();
    let o = parvlc(&["compress", "x.bin", "-o", "gpu.pvlc"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = parvlc(&["compress", "--cpu", "x.bin", "-o", "cpu.pvlc"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(dir.join("gpu.pvlc")).unwrap(),
        std::fs::read(dir.join("cpu.pvlc")).unwrap()
    );
}

#[test]
fn missing_input_is_a_clear_error() {
    let dir = scratch("missing");
    let o = parvlc(&["compress", "nope.bin"], &dir);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("nope.bin"), "{}", stderr(&o));
}

/// `--backend` picks where compress runs; every backend writes the same file. CUDA, where
/// this build lacks the feature or the machine lacks a driver, is an error that says so
/// and writes nothing (PARVLC_REQUIRE_CUDA=1 requires it to work).
#[test]
fn every_backend_writes_the_same_file() {
    let dir = scratch("backends");
    let data = parvlc::testdata::generate(200_000, 4.5, 8);
    std::fs::write(dir.join("x.bin"), &data).unwrap();
    for format in ["native", "gzip"] {
        let mut files = Vec::new();
        for backend in ["wgpu", "cpu", "cuda"] {
            let out = format!("{backend}.{format}");
            let o = parvlc(
                &[
                    "compress",
                    "-f",
                    format,
                    "--backend",
                    backend,
                    "x.bin",
                    "-o",
                    &out,
                ],
                &dir,
            );
            if backend == "cuda" && !o.status.success() {
                let e = stderr(&o);
                assert!(
                    e.contains("CUDA:")
                        && (e.contains("without the `cuda` feature")
                            || e.contains("no CUDA driver")
                            || e.contains("no CUDA device")
                            || e.contains("NVRTC")),
                    "an unavailable CUDA backend must say why: {e}"
                );
                assert!(!dir.join(&out).exists(), "{out} written despite the error");
                assert!(
                    std::env::var("PARVLC_REQUIRE_CUDA").as_deref() != Ok("1"),
                    "PARVLC_REQUIRE_CUDA=1 but --backend cuda failed: {e}"
                );
                use std::io::Write;
                let _ = writeln!(std::io::stderr(), "skipping the CUDA CLI check: {e}");
                continue;
            }
            assert!(o.status.success(), "--backend {backend}: {}", stderr(&o));
            files.push((backend, std::fs::read(dir.join(&out)).unwrap()));
        }
        for (backend, bytes) in &files[1..] {
            assert!(
                *bytes == files[0].1,
                "{format}: --backend {backend} wrote other bytes than --backend wgpu"
            );
        }
        let o = parvlc(
            &[
                "decompress",
                &format!("wgpu.{format}"),
                "-o",
                &format!("back.{format}"),
            ],
            &dir,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            std::fs::read(dir.join(format!("back.{format}"))).unwrap(),
            data
        );
    }
    let o = parvlc(&["compress", "--backend", "opencl", "x.bin"], &dir);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown backend"), "{}", stderr(&o));
}
