//! The streaming CLI as users run it: standard input to standard output, a reader that
//! goes away (broken pipe), a full disk, and memory bounded by the pipeline, not the
//! input.

mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::cli::{files, parvlc_measured, scratch, stderr};
use common::judges::{gzip_tool_decode, gzip_tool_encode, gzip_tool_test};
use common::rng::Rng;

const SUITE: &str = "stream-cli";

/// Text-like bytes with runs of other kinds, so frames and codes vary.
fn mixed(len: usize, r: &mut Rng) -> Vec<u8> {
    let words: [&[u8]; 6] = [b"frame ", b"chunk ", b"the ", b"GPU ", b"0x1f8b ", b"\n"];
    let mut v = Vec::with_capacity(len + 4096);
    while v.len() < len {
        match r.next() % 16 {
            0 => v.extend((0..4096).map(|_| r.next() as u8)),
            1 => v.extend(std::iter::repeat_n(0u8, 2048)),
            _ => v.extend_from_slice(words[(r.next() % 6) as usize]),
        }
    }
    v.truncate(len);
    v
}

fn write_mixed(path: &Path, len: usize, seed: u64) -> Vec<u8> {
    let v = mixed(len, &mut Rng(seed));
    std::fs::write(path, &v).unwrap();
    v
}

/// A large mixed file written a MiB at a time (this process stays small: a child's peak
/// memory as wait4 reports it starts from its parent's), and its CRC.
fn write_mixed_streamed(path: &Path, mib: usize, seed: u64) -> u32 {
    let mut r = Rng(seed);
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut crc = crc32fast::Hasher::new();
    for _ in 0..mib {
        let piece = mixed(1 << 20, &mut r);
        crc.update(&piece);
        f.write_all(&piece).unwrap();
    }
    f.flush().unwrap();
    crc.finalize()
}

fn crc_of_file(path: &Path) -> u32 {
    let mut f = std::fs::File::open(path).unwrap();
    let mut crc = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).unwrap();
        if n == 0 {
            return crc.finalize();
        }
        crc.update(&buf[..n]);
    }
}

fn run_piped(args: &[&str], dir: &Path, stdin: &Path) -> (std::process::Output, Vec<u8>) {
    let m = parvlc_measured(args, dir, Some(stdin));
    let out = m.output.stdout.clone();
    (m.output, out)
}

#[test]
fn stdin_to_stdout_round_trips_through_gzip_and_our_decoder() {
    let dir = scratch(SUITE, "stdio");
    let input = dir.join("in.bin");
    let data = write_mixed(&input, 3 << 20, 1);
    for (format, backend) in [
        ("gzip", "cpu"),
        ("native", "cpu"),
        ("gzip", "wgpu"),
        ("native", "wgpu"),
    ] {
        let what = format!("{format} on {backend}");
        let (o, compressed) = run_piped(
            &[
                "compress",
                "-f",
                format,
                "--backend",
                backend,
                "--chunk-size",
                "1M",
                "-",
                "-o",
                "-",
            ],
            &dir,
            &input,
        );
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        if format == "gzip" {
            assert!(gzip_tool_decode(&compressed) == data, "{what}: gzip -dc");
            gzip_tool_test(&compressed);
        }
        let packed = dir.join(format!("packed-{format}-{backend}"));
        std::fs::write(&packed, &compressed).unwrap();
        // `-` alone: standard output is the default for standard input.
        let (o, back) = run_piped(&["decompress", "-"], &dir, &packed);
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        assert!(back == data, "{what}: parvlc decompress - differs");
    }
}

#[test]
fn stdin_is_read_from_where_it_stands_from_a_file_or_a_pipe() {
    use std::io::{Seek, SeekFrom};
    let dir = scratch(SUITE, "stdin-kinds");
    let input = dir.join("in.bin");
    let data = write_mixed(&input, (2 << 20) + 12345, 2);
    let compress = |format: &str| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_parvlc"));
        c.args([
            "compress",
            "-f",
            format,
            "--backend",
            "cpu",
            "--chunk-size",
            "1M",
        ])
        .args(["-", "-o", "-"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        c
    };
    // A file whose first 1000 bytes someone else read: the input is the rest (its chunks
    // are read at their offsets from there).
    let mut f = std::fs::File::open(&input).unwrap();
    f.seek(SeekFrom::Start(1000)).unwrap();
    let o = compress("gzip").stdin(Stdio::from(f)).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(gzip_tool_decode(&o.stdout) == data[1000..], "file at 1000");
    // A pipe, read in order.
    let mut child = compress("native").stdin(Stdio::piped()).spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let sent = data.clone();
    let writer = std::thread::spawn(move || pipe.write_all(&sent));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let packed = dir.join("piped.pvlc");
    std::fs::write(&packed, &o.stdout).unwrap();
    let (o, back) = run_piped(&["decompress", "-"], &dir, &packed);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(back == data, "pipe");
    // Decompressing from a file whose first 1000 bytes someone else read: the native
    // stream is the rest (its payloads read at their offsets from there).
    let mut behind = vec![0x5au8; 1000];
    behind.extend_from_slice(&std::fs::read(&packed).unwrap());
    let shifted = dir.join("shifted.pvlc");
    std::fs::write(&shifted, &behind).unwrap();
    let mut f = std::fs::File::open(&shifted).unwrap();
    f.seek(SeekFrom::Start(1000)).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_parvlc"))
        .args(["decompress", "-", "-o", "-"])
        .current_dir(&dir)
        .stdin(Stdio::from(f))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout == data, "native from a file at 1000");
}

#[test]
fn a_reader_that_goes_away_is_a_clear_error() {
    let dir = scratch(SUITE, "broken-pipe");
    let input = dir.join("in.bin");
    write_mixed(&input, 8 << 20, 2);
    for args in [
        &[
            "compress",
            "--backend",
            "cpu",
            "--chunk-size",
            "1M",
            "-",
            "-o",
            "-",
        ][..],
        &["decompress", "-", "-o", "-"][..],
    ] {
        let stdin = if args[0] == "compress" {
            input.clone()
        } else {
            let o = Command::new(env!("CARGO_BIN_EXE_parvlc"))
                .args([
                    "compress",
                    "--backend",
                    "cpu",
                    "in.bin",
                    "-o",
                    "in.pvlc",
                    "--force",
                ])
                .current_dir(&dir)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", stderr(&o));
            dir.join("in.pvlc")
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_parvlc"))
            .args(args)
            .current_dir(&dir)
            .stdin(std::fs::File::open(&stdin).unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 100];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The pipe's read end is closed here, with most of the output unwritten.
        let o = child.wait_with_output().unwrap();
        let msg = stderr(&o);
        assert!(!o.status.success(), "{}: exited {:?}", args[0], o.status);
        assert!(
            msg.to_lowercase().contains("broken pipe"),
            "{}: {msg}",
            args[0]
        );
    }
}

/// A tmpfs of `kib` KiB mounted at a fresh folder (the test runs as root, as CI does).
struct SmallDisk(PathBuf);

impl SmallDisk {
    fn mount(name: &str, kib: u32) -> SmallDisk {
        let dir = scratch(SUITE, name);
        let o = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(&dir)
            .output()
            .expect("run mount");
        assert!(
            o.status.success(),
            "cannot mount a small tmpfs for the full-disk test (needs root): {}",
            String::from_utf8_lossy(&o.stderr)
        );
        SmallDisk(dir)
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_is_a_clear_error_and_leaves_nothing_behind() {
    let dir = scratch(SUITE, "full-disk-src");
    let input = dir.join("in.bin");
    write_mixed(&input, 4 << 20, 3);
    let disk = SmallDisk::mount("full-disk", 256);
    for format in ["gzip", "native"] {
        let out = disk.0.join("out");
        let o = Command::new(env!("CARGO_BIN_EXE_parvlc"))
            .args([
                "compress",
                "--backend",
                "cpu",
                "--chunk-size",
                "1M",
                "-f",
                format,
            ])
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        let msg = stderr(&o);
        assert!(!o.status.success(), "{format}: a full disk passed");
        assert!(msg.contains("No space left"), "{format}: {msg}");
        assert!(
            files(&disk.0).is_empty(),
            "{format}: left {:?}",
            files(&disk.0)
        );
    }
    // Standard output on a full device.
    let o = Command::new(env!("CARGO_BIN_EXE_parvlc"))
        .args(["compress", "--backend", "cpu", "-", "-o", "-"])
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .output()
        .unwrap();
    assert!(
        !o.status.success() && stderr(&o).contains("No space left"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn memory_stays_within_the_pipeline_whatever_the_input() {
    let dir = scratch(SUITE, "memory");
    let input = dir.join("big.bin");
    let mib = 192;
    let crc = write_mixed_streamed(&input, mib, 4);
    // 1 MiB chunks: the pipeline holds about sixteen (twice its depth), the input 192.
    let bound = 64u64 << 20;
    for format in ["gzip", "native"] {
        let packed = format!("big.{format}");
        let runs: [(&str, Vec<&str>, Option<PathBuf>); 2] = [
            (
                "compress",
                vec![
                    "compress",
                    "--backend",
                    "cpu",
                    "-f",
                    format,
                    "--chunk-size",
                    "1M",
                    "big.bin",
                    "-o",
                    &packed,
                    "--force",
                ],
                None,
            ),
            (
                "decompress (standard input)",
                // The CPU path, as the compress above (lavapipe alone holds about
                // 90 MiB, more than the bound).
                vec![
                    "decompress",
                    "--backend",
                    "cpu",
                    "--chunk-size",
                    "1M",
                    "-",
                    "-o",
                    "back.bin",
                    "--force",
                ],
                Some(dir.join(&packed)),
            ),
        ];
        for (what, args, stdin) in runs {
            let m = parvlc_measured(&args, &dir, stdin.as_deref());
            assert!(
                m.output.status.success(),
                "{what} {format}: {}",
                stderr(&m.output)
            );
            assert!(
                m.peak_rss < bound,
                "{what} {format}: peak {} MiB for {mib} MiB",
                m.peak_rss >> 20
            );
        }
        assert_eq!(
            crc_of_file(&dir.join("back.bin")),
            crc,
            "{format}: round trip"
        );
    }
}

#[test]
fn a_gzip_file_without_our_index_decodes_on_one_core_and_says_so() {
    let dir = scratch(SUITE, "foreign-gzip");
    let input = dir.join("in.bin");
    let data = write_mixed(&input, 2 << 20, 7);
    std::fs::write(dir.join("foreign.gz"), gzip_tool_encode(&data)).unwrap();
    let o = common::cli::parvlc(
        &[
            "compress",
            "-f",
            "gzip",
            "--backend",
            "cpu",
            "--chunk-size",
            "512K",
            "in.bin",
            "-o",
            "ours.gz",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    for (name, indexed) in [("ours.gz", true), ("foreign.gz", false)] {
        let out = format!("{name}.out");
        let o = common::cli::parvlc(&["decompress", name, "-o", &out], &dir);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert!(std::fs::read(dir.join(&out)).unwrap() == data, "{name}");
        let said = stderr(&o);
        assert_eq!(
            said.contains("without parvlc's frame index"),
            !indexed,
            "{name}: stderr was {said:?}"
        );
        if !indexed {
            assert_eq!(said.lines().count(), 1, "one line: {said:?}");
        }
    }
}
