//! What the CLI promises about the files it writes, tried as a hostile user would: a
//! planted symlink, a fifo or a symlink as the output, a file created at the output path
//! while the work runs, a signal mid-run, a missing or unwritable output directory.
//!
//! The races are made deterministic with fifos: parvlc blocks reading a fifo input while
//! the test changes the output directory, then the test lets it finish.

mod common;

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::cli::{files, parvlc, stderr};

fn scratch(name: &str) -> PathBuf {
    common::cli::scratch("output", name)
}

fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

fn spawn(args: &[&str], dir: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_parvlc"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run parvlc")
}

/// The child's output, killing it if it runs past `limit` (a hang is a failure).
fn finish(child: Child, limit: Duration) -> std::process::Output {
    let pid = child.id();
    let watchdog = std::thread::spawn(move || {
        std::thread::sleep(limit);
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    });
    let out = child.wait_with_output().unwrap();
    drop(watchdog);
    out
}

/// A temporary file parvlc left behind (they all end in `parvlc-tmp`).
fn temporaries(dir: &Path) -> Vec<String> {
    files(dir)
        .into_iter()
        .filter(|n| n.contains("parvlc"))
        .collect()
}

#[test]
fn symlinks_planted_at_guessable_temporary_names_are_never_followed() {
    let dir = scratch("planted");
    std::fs::write(dir.join("victim"), b"precious").unwrap();
    std::fs::write(dir.join("one.txt"), b"some text to compress, some text").unwrap();
    // The old scheme named temporaries `.NAME.parvlc-PID.tmp`: plant the next PIDs' names.
    let next = std::process::id();
    for pid in next..next + 3000 {
        std::os::unix::fs::symlink(
            dir.join("victim"),
            dir.join(format!(".out.pvlc.parvlc-{pid}.tmp")),
        )
        .unwrap();
    }
    let o = parvlc(
        &["compress", "--backend", "cpu", "one.txt", "-o", "out.pvlc"],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("victim")).unwrap(), b"precious");
    let meta = std::fs::symlink_metadata(dir.join("out.pvlc")).unwrap();
    assert!(
        meta.file_type().is_file(),
        "out.pvlc must be a regular file"
    );
    let back = parvlc(&["decompress", "out.pvlc", "-o", "back.txt"], &dir);
    assert!(back.status.success(), "{}", stderr(&back));
    assert_eq!(
        std::fs::read(dir.join("back.txt")).unwrap(),
        b"some text to compress, some text"
    );
}

#[test]
fn a_fifo_or_a_symlink_as_the_output_is_refused_even_with_force() {
    let dir = scratch("special");
    std::fs::write(dir.join("in.txt"), b"hello hello hello").unwrap();
    let o = parvlc(
        &["compress", "--backend", "cpu", "in.txt", "-o", "x.pvlc"],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));

    let fifo = dir.join("fifo");
    mkfifo(&fifo);
    // A reader waiting on the fifo: it must see no data and the fifo must stay a fifo.
    let mut reader = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let o = parvlc(&["decompress", "x.pvlc", "-o", "fifo", "--force"], &dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a fifo, not a regular file"),
        "{}",
        stderr(&o)
    );
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    let mut buf = [0u8; 16];
    let n = std::io::Read::read(&mut reader, &mut buf).unwrap_or(0);
    assert_eq!(n, 0, "the fifo's reader got data");

    std::fs::write(dir.join("target"), b"keep").unwrap();
    std::os::unix::fs::symlink("target", dir.join("link")).unwrap();
    let o = parvlc(&["decompress", "x.pvlc", "-o", "link", "--force"], &dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("a symbolic link"), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(dir.join("link"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(dir.join("target")).unwrap(), b"keep");
    assert!(temporaries(&dir).is_empty(), "{:?}", files(&dir));
}

/// parvlc is started on a fifo input; once it has opened the fifo (its output checks are
/// behind it), a file appears at the output path; then the input arrives.
fn output_appears_mid_run(dir: &Path, args: &[&str], input: &[u8]) -> std::process::Output {
    mkfifo(&dir.join("in.fifo"));
    let child = spawn(args, dir);
    // Opening for writing blocks until parvlc opens the fifo for reading.
    let mut w = OpenOptions::new()
        .write(true)
        .open(dir.join("in.fifo"))
        .unwrap();
    std::fs::write(dir.join("out"), b"written meanwhile").unwrap();
    w.write_all(input).unwrap();
    drop(w);
    finish(child, Duration::from_secs(120))
}

#[test]
fn a_file_created_at_the_output_during_the_work_is_not_overwritten() {
    let cases: [(&str, &[&str], Vec<u8>); 2] = [
        (
            "race-compress",
            &["compress", "--backend", "cpu", "in.fifo", "-o", "out"],
            parvlc::testdata::generate(100_000, 4.0, 1),
        ),
        (
            "race-h264",
            &["h264", "--backend", "cpu", "in.fifo", "-o", "out"],
            y4m(32, 32, 2),
        ),
    ];
    for (name, args, input) in cases {
        let dir = scratch(name);
        let o = output_appears_mid_run(&dir, args, &input);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("refusing to overwrite"),
            "{name}: {}",
            stderr(&o)
        );
        assert_eq!(
            std::fs::read(dir.join("out")).unwrap(),
            b"written meanwhile",
            "{name}"
        );
        assert!(temporaries(&dir).is_empty(), "{name}: {:?}", files(&dir));
    }
}

fn y4m(w: usize, h: usize, frames: usize) -> Vec<u8> {
    let mut v = format!("YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 C420jpeg\n").into_bytes();
    for f in 0..frames {
        v.extend_from_slice(b"FRAME\n");
        v.extend((0..w * h * 3 / 2).map(|i| (i * 7 + f * 13) as u8));
    }
    v
}

#[test]
fn a_signal_mid_run_leaves_no_temporary_file() {
    for (name, signal) in [("int", libc::SIGINT), ("term", libc::SIGTERM)] {
        let dir = scratch(&format!("signal-{name}"));
        mkfifo(&dir.join("in.fifo"));
        let child = spawn(
            &[
                "h264",
                "--backend",
                "cpu",
                "in.fifo",
                "-o",
                "out.264",
                "--recon",
                "r.yuv",
            ],
            &dir,
        );
        let mut w = OpenOptions::new()
            .write(true)
            .open(dir.join("in.fifo"))
            .unwrap();
        // One frame in, the rest withheld: parvlc waits mid-run with both outputs open.
        let clip = y4m(64, 64, 3);
        w.write_all(&clip[..clip.len() / 2]).unwrap();
        let t = Instant::now();
        while temporaries(&dir).len() < 2 && t.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(temporaries(&dir).len(), 2, "{:?}", files(&dir));
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let o = finish(child, Duration::from_secs(60));
        drop(w);
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(o.status.signal(), Some(signal), "{}", stderr(&o));
        assert_eq!(files(&dir), ["in.fifo"], "left behind after {name}");
    }
}

#[test]
fn a_missing_or_unwritable_output_directory_is_reported_before_any_work() {
    let dir = scratch("nodir");
    // An input nobody writes: reading it would block, so an answer proves no work began.
    mkfifo(&dir.join("in.fifo"));
    for (args, names) in [
        (
            vec![
                "compress",
                "--backend",
                "cpu",
                "in.fifo",
                "-o",
                "missing/out.pvlc",
            ],
            "missing/out.pvlc",
        ),
        (
            vec!["h264", "in.fifo", "-o", "missing/out.264"],
            "missing/out.264",
        ),
        (
            vec!["j2k", "in.fifo", "-o", "missing/x.j2k"],
            "missing/x.j2k",
        ),
        // Not even root may create files in /proc.
        (
            vec![
                "compress",
                "--backend",
                "cpu",
                "in.fifo",
                "-o",
                "/proc/parvlc-out.pvlc",
            ],
            "/proc/parvlc-out.pvlc",
        ),
    ] {
        let o = finish(spawn(&args, &dir), Duration::from_secs(60));
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(names), "{args:?}: names the output: {e}");
        assert!(!e.contains("tmp"), "{args:?}: names a temporary file: {e}");
        assert!(
            e.contains("does not exist")
                || e.contains("not writable")
                || e.contains("cannot create"),
            "{args:?}: {e}"
        );
    }
    assert_eq!(files(&dir), ["in.fifo"]);
}

#[test]
fn a_headless_run_prints_its_report_and_nothing_else() {
    let dir = scratch("headless");
    std::fs::write(dir.join("in.txt"), b"headless machines have no compositor").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_parvlc"))
        .args(["compress", "in.txt", "-o", "in.pvlc"])
        .current_dir(&dir)
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("NODEVICE_SELECT")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "one report line, no warnings: {e}");
    assert!(e.starts_with("in.txt -> in.pvlc:"), "{e}");
}

#[test]
fn bench_logs_and_plots_follow_the_same_rules() {
    let dir = scratch("bench-outputs");
    std::fs::write(dir.join("victim"), b"precious").unwrap();
    std::os::unix::fs::symlink("victim", dir.join("rows.jsonl")).unwrap();
    let o = parvlc(
        &[
            "bench",
            "--backend",
            "cpu",
            "--sizes",
            "4096",
            "--entropies",
            "4",
            "--runs",
            "1",
            "--json",
            "rows.jsonl",
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("a symbolic link"), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("victim")).unwrap(), b"precious");

    // A plot is written whole, through the output writer.
    let results =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/results/h200-2026-11-21.jsonl");
    let o = parvlc(&["plot", results.to_str().unwrap(), "-o", "h200.svg"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(dir.join("h200.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
        "{}",
        &svg[..80.min(svg.len())]
    );
    assert!(temporaries(&dir).is_empty(), "{:?}", files(&dir));
}
