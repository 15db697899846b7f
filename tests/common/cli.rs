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
