//! Running the `parvlc` binary as a user does, in scratch folders of its own.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `parvlc args...` run in `dir`.
pub fn parvlc(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parvlc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run parvlc")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `dir`, emptied of what an earlier run left there.
pub fn fresh_dir(dir: PathBuf) -> PathBuf {
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An empty folder for test `name` of `suite`, one per process.
pub fn scratch(suite: &str, name: &str) -> PathBuf {
    fresh_dir(std::env::temp_dir().join(format!("parvlc-{suite}-{name}-{}", std::process::id())))
}

/// The names in `dir`, sorted: to prove a failed run left nothing behind (no temporary
/// files either).
pub fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `opj_decompress -i input -o output` run in `dir`, and its log (stdout, then stderr).
pub fn opj_decompress(
    dir: &Path,
    input: impl AsRef<OsStr>,
    output: impl AsRef<OsStr>,
) -> (Output, String) {
    let o = Command::new("opj_decompress")
        .arg("-i")
        .arg(input)
        .arg("-o")
        .arg(output)
        .current_dir(dir)
        .output()
        .expect("opj_decompress is installed by the test command (libopenjp2-tools)");
    let log = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    (o, log)
}

/// A finished run of `parvlc` and its peak resident memory in bytes (the kernel's
/// `ru_maxrss` of that one child, from `wait4`): how the bounded-memory promises are
/// checked.
pub struct Measured {
    pub output: Output,
    pub peak_rss: u64,
}

/// `parvlc args...` run in `dir`, with `stdin` fed to it, and its peak memory.
// The child is reaped by wait4 below, which std cannot see.
#[allow(clippy::zombie_processes)]
pub fn parvlc_measured(args: &[&str], dir: &Path, stdin: Option<&Path>) -> Measured {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_parvlc"))
        .args(args)
        .current_dir(dir)
        .stdin(match stdin {
            Some(p) => Stdio::from(std::fs::File::open(p).expect("open stdin file")),
            None => Stdio::null(),
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run parvlc");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            r.read_to_end(&mut v).expect("read child output");
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, and wait4 only writes into the two
    // locals for the child we spawned and have not waited for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4 failed");
    use std::os::unix::process::ExitStatusExt;
    Measured {
        output: Output {
            status: std::process::ExitStatus::from_raw(status),
            stdout: out.join().unwrap(),
            stderr: err.join().unwrap(),
        },
        peak_rss: usage.ru_maxrss as u64 * 1024,
    }
}

/// A CLI run with `--backend cuda` that failed (`e`, its standard error): the message
/// must say what is missing (the feature, the driver, a device, NVRTC), nothing must
/// stand at `output`, and PARVLC_REQUIRE_CUDA=1 (which requires CUDA) must not be set.
pub fn check_cuda_refused(e: &str, output: &Path) {
    assert!(
        e.contains("CUDA:")
            && (e.contains("without the `cuda` feature")
                || e.contains("no CUDA driver")
                || e.contains("no CUDA device")
                || e.contains("NVRTC")),
        "an unavailable CUDA backend must say why: {e}"
    );
    assert!(
        !output.exists(),
        "{} written despite the error",
        output.display()
    );
    assert!(
        std::env::var("PARVLC_REQUIRE_CUDA").as_deref() != Ok("1"),
        "PARVLC_REQUIRE_CUDA=1 but --backend cuda failed: {e}"
    );
}
