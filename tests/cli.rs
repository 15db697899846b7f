//! The command line as a user meets it: round trips through gzip, refusal to overwrite,
//! no output at all from a corrupt input, the CPU path, and the one `--backend` flag of
//! every codec subcommand.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::cli::{files, parvlc, parvlc_measured, stderr};

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
    let o = parvlc(
        &["compress", "--backend", "cpu", "x.bin", "-o", "cpu.pvlc"],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(dir.join("gpu.pvlc")).unwrap(),
        std::fs::read(dir.join("cpu.pvlc")).unwrap()
    );
}

/// compress, h264 and j2k take the same `--backend`: cpu and wgpu write the same file;
/// cuda, which H.264 and JPEG 2000 have no path for (and which a build without the feature
/// lacks altogether), is an error that says so and writes nothing. The per-codec flags it
/// replaced (`--cpu`, `--cavlc cpu`) are gone.
#[test]
fn every_codec_subcommand_takes_the_same_backend_flag() {
    let dir = scratch("backend-flag");
    std::fs::write(
        dir.join("x.bin"),
        parvlc::testdata::generate(50_000, 3.5, 2),
    )
    .unwrap();
    let mut y4m = b"YUV4MPEG2 W24 H20 F25:1 Ip A1:1 C420mpeg2\n".to_vec();
    for f in 0..2u32 {
        y4m.extend_from_slice(b"FRAME\n");
        y4m.extend((0..24 * 20 + 2 * 12 * 10).map(|i| ((i * 13 + f * 29) % 256) as u8));
    }
    std::fs::write(dir.join("c.y4m"), y4m).unwrap();
    let grey = parvlc::j2k::Image::new(
        21,
        17,
        1,
        8,
        (0..21 * 17).map(|i| (i * 29 % 256) as u16).collect(),
    )
    .unwrap();
    std::fs::write(dir.join("g.pgm"), grey.to_pnm()).unwrap();
    for (command, input, ext) in [
        ("compress", "x.bin", "pvlc"),
        ("h264", "c.y4m", "264"),
        ("j2k", "g.pgm", "j2k"),
    ] {
        let run = |backend: &str| {
            let out = format!("{command}-{backend}.{ext}");
            let o = parvlc(&[command, "--backend", backend, input, "-o", &out], &dir);
            (o, dir.join(out))
        };
        let (o, cpu) = run("cpu");
        assert!(
            o.status.success(),
            "{command} --backend cpu: {}",
            stderr(&o)
        );
        let (o, wgpu) = run("wgpu");
        assert!(
            o.status.success(),
            "{command} --backend wgpu: {}",
            stderr(&o)
        );
        assert!(
            std::fs::read(&cpu).unwrap() == std::fs::read(&wgpu).unwrap(),
            "{command}: --backend cpu and wgpu wrote different files"
        );
        if command != "compress" {
            let (o, cuda) = run("cuda");
            let e = stderr(&o);
            assert_eq!(o.status.code(), Some(1), "{command} --backend cuda: {e}");
            assert!(
                e.contains("has no CUDA path") || e.contains("CUDA:"),
                "{command} --backend cuda must say why: {e}"
            );
            assert!(!cuda.exists(), "{command}: written despite the error");
        }
    }
    for old in [
        vec!["compress", "--cpu", "x.bin", "-o", "old.pvlc"],
        vec!["h264", "--cavlc", "cpu", "c.y4m", "-o", "old.264"],
        vec!["j2k", "--cpu", "g.pgm", "-o", "old.j2k"],
    ] {
        let o = parvlc(&old, &dir);
        assert_eq!(o.status.code(), Some(2), "{old:?}: {}", stderr(&o));
        assert!(!dir.join(old[old.len() - 1]).exists(), "{old:?}");
    }
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
                common::cli::check_cuda_refused(&e, &dir.join(&out));
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

/// Peak resident memory allowed for decoding the bombs below: far below their output.
const BOMB_RSS: u64 = 64 << 20;

/// Whether the file at `path` is `len` zero bytes, read in chunks.
fn all_zeros(path: &std::path::Path, len: u64) -> bool {
    use std::io::Read;
    let mut f = std::fs::File::open(path).unwrap();
    let mut buf = vec![0u8; 1 << 20];
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf).unwrap();
        if k == 0 {
            return n == len;
        }
        if buf[..k].iter().any(|&b| b != 0) {
            return false;
        }
        n += k as u64;
    }
}

/// A gzip of 1 GiB of zeros (about 1 MB): `info` decodes it into a counter and
/// `decompress` writes it as it decodes, both in a few MiB of memory.
#[test]
fn gzip_bomb_decodes_in_bounded_memory() {
    use std::io::Write;
    let dir = scratch("gzip-bomb");
    let len = 1u64 << 30;
    let file = std::fs::File::create(dir.join("bomb.gz")).unwrap();
    let mut enc =
        flate2::write::GzEncoder::new(std::io::BufWriter::new(file), flate2::Compression::new(1));
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..len / chunk.len() as u64 {
        enc.write_all(&chunk).unwrap();
    }
    enc.finish().unwrap().flush().unwrap();
    let gz_len = std::fs::metadata(dir.join("bomb.gz")).unwrap().len();
    assert!(gz_len < len / 100, "{gz_len} bytes is no bomb");

    let m = parvlc_measured(&["info", "bomb.gz"], &dir, None);
    assert!(m.output.status.success(), "{}", stderr(&m.output));
    let said = String::from_utf8_lossy(&m.output.stdout).into_owned();
    assert!(
        said.contains(&format!("{gz_len} bytes compressed, {len} bytes original")),
        "{said}"
    );
    assert!(
        m.peak_rss < BOMB_RSS,
        "info: peak RSS {} MiB",
        m.peak_rss >> 20
    );

    let m = parvlc_measured(&["decompress", "bomb.gz", "-o", "bomb"], &dir, None);
    assert!(m.output.status.success(), "{}", stderr(&m.output));
    assert!(
        m.peak_rss < BOMB_RSS,
        "decompress: peak RSS {} MiB",
        m.peak_rss >> 20
    );
    assert!(
        all_zeros(&dir.join("bomb"), len),
        "decompress wrote other data"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A native file of 256 MiB of zeros (one bit each, 32 MiB): decoded batch by batch in
/// bounded memory; a flipped bit near its end (noticed only by the data checksum, after
/// every batch was written) leaves no output and no temporary file behind.
#[test]
fn native_bomb_decodes_in_bounded_memory_and_late_damage_writes_nothing() {
    use parvlc::huffman::native::{write_native, NativeHeader};
    let dir = scratch("native-bomb");
    let len = 256u64 << 20;
    let block = 1u64 << 16;
    let mut crc = crc32fast::Hasher::new();
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..len / chunk.len() as u64 {
        crc.update(&chunk);
    }
    // Bytes 0 and 1 have the one-bit codes 0 and 1: a zero payload is all zero bytes.
    let mut lengths = [0u8; 256];
    lengths[..2].fill(1);
    let header = NativeHeader {
        original_len: len,
        crc32: crc.finalize(),
        block_symbols: block as u32,
        payload_bits: len,
        lengths,
        block_offsets: (0..len / block).map(|i| i * block).collect(),
    };
    let mut payload = vec![0u8; (len / 8) as usize];
    let mut file = Vec::new();
    write_native(&mut file, &header, &payload).unwrap();
    std::fs::write(dir.join("zeros.pvlc"), &file).unwrap();
    drop(file);

    let m = parvlc_measured(&["decompress", "zeros.pvlc", "-o", "zeros"], &dir, None);
    assert!(m.output.status.success(), "{}", stderr(&m.output));
    assert!(
        m.peak_rss < 2 * BOMB_RSS,
        "decompress: peak RSS {} MiB",
        m.peak_rss >> 20
    );
    assert!(
        all_zeros(&dir.join("zeros"), len),
        "decompress wrote other data"
    );
    let m = parvlc_measured(&["info", "zeros.pvlc"], &dir, None);
    assert!(m.output.status.success(), "{}", stderr(&m.output));
    assert!(
        m.peak_rss < BOMB_RSS,
        "info: peak RSS {} MiB",
        m.peak_rss >> 20
    );

    // One byte becomes a one: a valid stream with other data, in the last batch.
    let last = payload.len() - 100;
    payload[last] = 0x10;
    let mut file = Vec::new();
    write_native(&mut file, &header, &payload).unwrap();
    drop(payload);
    std::fs::write(dir.join("bad.pvlc"), &file).unwrap();
    drop(file);
    std::fs::remove_file(dir.join("zeros")).unwrap();
    let before = files(&dir);
    let o = parvlc(&["decompress", "bad.pvlc", "-o", "bad"], &dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("checksum mismatch"), "{}", stderr(&o));
    assert_eq!(files(&dir), before, "a failed decompress left files behind");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `gzip -dc FILE` run in `dir`: exit status and output.
fn gzip_dc(dir: &std::path::Path, file: &str) -> (Option<i32>, Vec<u8>) {
    let o = Command::new("gzip")
        .args(["-dc", file])
        .current_dir(dir)
        .output()
        .expect("gzip is installed by the test command");
    (o.status.code(), o.stdout)
}

/// Trailing zeros are ignored, as gzip ignores them; after trailing garbage the output
/// is written, one warning printed and the exit status is 2, as gzip does.
#[test]
fn gzip_trailing_zeros_and_garbage_as_gzip() {
    let dir = scratch("trailing");
    let data = parvlc::testdata::generate(100_000, 4.0, 9);
    std::fs::write(dir.join("in.bin"), &data).unwrap();
    let o = parvlc(
        &["compress", "-f", "gzip", "--backend", "cpu", "in.bin"],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let gz = std::fs::read(dir.join("in.bin.gz")).unwrap();
    std::fs::write(dir.join("zeros.gz"), [&gz[..], &[0; 512]].concat()).unwrap();
    std::fs::write(
        dir.join("garbage.gz"),
        [&gz[..], b"trailing bytes"].concat(),
    )
    .unwrap();

    let (status, want) = gzip_dc(&dir, "zeros.gz");
    assert_eq!(status, Some(0));
    let o = parvlc(&["decompress", "zeros.gz", "-o", "zeros.out"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "trailing zeros are not worth a warning");
    assert!(std::fs::read(dir.join("zeros.out")).unwrap() == want);
    let o = parvlc(&["info", "zeros.gz"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let (status, want) = gzip_dc(&dir, "garbage.gz");
    assert_eq!(status, Some(2), "gzip -dc's status after trailing garbage");
    assert!(want == data);
    let o = parvlc(&["decompress", "garbage.gz", "-o", "garbage.out"], &dir);
    assert_eq!(o.status.code(), status, "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "parvlc: garbage.gz: decompression OK, trailing garbage ignored\n"
    );
    assert!(std::fs::read(dir.join("garbage.out")).unwrap() == want);
    let o = parvlc(&["info", "garbage.gz"], &dir);
    assert_eq!(o.status.code(), status, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("trailing garbage ignored"),
        "{}",
        stderr(&o)
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&format!("{} bytes original", data.len())),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}
