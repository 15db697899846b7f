//! Every file the CLI writes goes through [`OutputFile`]: all or nothing, never over a
//! file that appeared while we worked, never through a planted symlink.
//!
//! - The temporary file is created before any work starts, in the output's directory,
//!   exclusively (`O_EXCL | O_NOFOLLOW`) under an unpredictable name: a missing or
//!   read-only directory is reported at once and names the output, and a symlink planted
//!   at a guessed name is never followed.
//! - [`OutputFile::commit`] moves it into place without a check-then-rename window:
//!   `renameat2(RENAME_NOREPLACE)` (or `link` + `unlink` where the filesystem lacks it)
//!   unless `--force`, which replaces regular files only.
//! - Outputs that are not regular files (devices, fifos, sockets, symlinks) are refused.
//! - The temporary file is removed on every error path (drop), and on SIGINT, SIGTERM and
//!   SIGHUP (a thread that cleans up, then dies of the signal as it would have).

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

use parvlc::{Error, Result};

/// Temporary files alive now: what a signal must remove.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static SIGNALS: Once = Once::new();

/// A file being written in place of `path`; dropped uncommitted, it leaves nothing behind.
pub struct OutputFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<BufWriter<File>>,
    force: bool,
    /// Bytes written, and how far the disk has been asked to write them back.
    written: u64,
    writeback_from: u64,
}

/// Ask the disk to write back every this many bytes as they come, so that the final
/// sync waits for the last stretch only, not for the whole file.
const WRITEBACK_BYTES: u64 = 64 << 20;

impl OutputFile {
    /// Checks `path` and creates its temporary file: call it before the work starts.
    pub fn create(path: &Path, force: bool) -> Result<OutputFile> {
        check_target(path, force)?;
        install_signal_cleanup();
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = path.file_name().ok_or_else(|| {
            Error::InvalidArgument(format!("{}: not a file name", path.display()))
        })?;
        let (tmp, file) = create_temporary(dir, name).map_err(|e| output_error(path, dir, e))?;
        register(&tmp);
        Ok(OutputFile {
            path: path.into(),
            tmp,
            file: Some(BufWriter::with_capacity(1 << 20, file)),
            force,
            written: 0,
            writeback_from: 0,
        })
    }

    pub fn write_all(&mut self, data: &[u8]) -> Result<()> {
        Write::write_all(self, data).map_err(|e| Error::io(&self.path, e))
    }

    /// Sync the data and move it into place.
    pub fn commit(mut self) -> Result<()> {
        let file = match self.file.take() {
            Some(f) => f,
            None => return Ok(()),
        };
        let result = file
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(&self.path, e))
            .and_then(|()| self.move_into_place());
        if result.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        unregister(&self.tmp);
        result
    }

    fn move_into_place(&self) -> Result<()> {
        if self.force {
            // Checked again now: it may have changed since `create`. Replacing a regular
            // file (or a symlink that appears between here and the rename) only swaps a
            // directory entry; nothing is written through it.
            check_target(&self.path, true)?;
            std::fs::rename(&self.tmp, &self.path).map_err(|e| Error::io(&self.path, e))?;
        } else {
            rename_noreplace(&self.tmp, &self.path).map_err(|e| {
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    Error::OutputExists(self.path.clone())
                } else {
                    Error::io(&self.path, e)
                }
            })?;
        }
        // The rename is durable once the directory is synced; a failure here loses nothing.
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = File::open(dir).and_then(|d| d.sync_all());
        }
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let Some(f) = self.file.as_mut() else {
            return Err(std::io::Error::other("output already committed"));
        };
        let n = f.write(buf)?;
        self.written += n as u64;
        // What has reached the file (not what waits in the buffer).
        let in_file = self.written - f.buffer().len() as u64;
        if in_file - self.writeback_from >= WRITEBACK_BYTES {
            start_writeback(f.get_ref(), self.writeback_from, in_file);
            self.writeback_from = in_file;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.file.as_mut() {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
            unregister(&self.tmp);
        }
    }
}

/// Start writing `from..to` of `file` to disk without waiting (best effort: the sync
/// at commit still reports any error).
#[cfg(target_os = "linux")]
fn start_writeback(file: &File, from: u64, to: u64) {
    use std::os::fd::AsRawFd;
    // SAFETY: a plain syscall on a file descriptor we own; no memory is passed.
    unsafe {
        libc::sync_file_range(
            file.as_raw_fd(),
            from as libc::off64_t,
            (to - from) as libc::off64_t,
            libc::SYNC_FILE_RANGE_WRITE,
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &File, _from: u64, _to: u64) {}

/// `data` written to `path` all or nothing.
pub fn write_file(path: &Path, data: &[u8], force: bool) -> Result<()> {
    let mut out = OutputFile::create(path, force)?;
    out.write_all(data)?;
    out.commit()
}

/// A log written as it goes (a benchmark's JSON Lines, kept if the run is cut short):
/// not atomic by design, but held to the same rules of what it may replace: a regular
/// file or nothing, opened without following a symlink.
pub fn open_log(path: &Path) -> Result<File> {
    check_target(path, true)?;
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| Error::io(path, e))
}

/// What may stand at an output path: nothing, or a regular file when `force`.
fn check_target(path: &Path, force: bool) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(path, e)),
        Ok(m) if m.file_type().is_file() => {
            if force {
                Ok(())
            } else {
                Err(Error::OutputExists(path.into()))
            }
        }
        Ok(m) => Err(Error::InvalidArgument(format!(
            "{}: {}, not a regular file; parvlc writes only regular files",
            path.display(),
            kind_of(&m.file_type())
        ))),
    }
}

fn kind_of(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a fifo"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "something else"
    }
}

/// The error for a temporary file that could not be made: it names the output (and its
/// directory), not the hidden temporary name.
fn output_error(path: &Path, dir: &Path, e: std::io::Error) -> Error {
    let why = match e.kind() {
        std::io::ErrorKind::NotFound if !dir.is_dir() => {
            format!("directory {} does not exist", dir.display())
        }
        std::io::ErrorKind::PermissionDenied => {
            format!("directory {} is not writable", dir.display())
        }
        _ => format!("cannot create a file in {}: {e}", dir.display()),
    };
    Error::io(path, std::io::Error::new(e.kind(), why))
}

/// `.NAME.RANDOM.parvlc-tmp` in `dir`, created exclusively, never through a symlink.
fn create_temporary(dir: &Path, name: &std::ffi::OsStr) -> std::io::Result<(PathBuf, File)> {
    let mut last = None;
    for _ in 0..16 {
        let mut tmp_name = OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".{:016x}.parvlc-tmp", random_u64()));
        let tmp = dir.join(tmp_name);
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)
        {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

/// 64 unpredictable bits: std's hasher keys come from the operating system's randomness.
fn random_u64() -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.write_u32(std::process::id());
    h.finish()
}

/// `from` renamed to `to` unless `to` exists, atomically (AlreadyExists if it does).
fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes());
        let (f, t) = (c(from)?, c(to)?);
        // SAFETY: two valid NUL-terminated paths, relative to the working directory.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                f.as_ptr(),
                libc::AT_FDCWD,
                t.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        // Filesystems without RENAME_NOREPLACE say EINVAL; old kernels ENOSYS.
        if !matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOSYS)) {
            return Err(e);
        }
    }
    // link() fails if `to` exists, whatever appeared there meanwhile.
    std::fs::hard_link(from, to)?;
    std::fs::remove_file(from)
}

fn register(tmp: &Path) {
    if let Ok(mut live) = LIVE.lock() {
        live.push(tmp.into());
    }
}

fn unregister(tmp: &Path) {
    if let Ok(mut live) = LIVE.lock() {
        live.retain(|p| p != tmp);
    }
}

/// On SIGINT, SIGTERM or SIGHUP: remove the live temporary files, then die of the signal.
fn install_signal_cleanup() {
    SIGNALS.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            log::warn!(
                "could not watch for signals: an interrupted run may leave a temporary file"
            );
            return;
        };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                if let Ok(live) = LIVE.lock() {
                    for p in live.iter() {
                        let _ = std::fs::remove_file(p);
                    }
                }
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                std::process::exit(128 + sig);
            }
        });
    });
}
