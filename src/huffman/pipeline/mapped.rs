//! A stream compressed into a file through mappings of its places ([`FileTarget`]): each
//! chunk's place is reserved on the disk (`fallocate`), mapped, written by its coder (or
//! a copier) and unmapped, so that many threads fill one file at once. Writes through
//! `write(2)` take the file's lock: on the H200 one thread's copies into a tmpfs file
//! held a 4 GiB compress to 1.8-2.6 GB/s, against 5-6 GB/s with the output thrown away
//! (docs/results.md, "Forty-sixth pass").
//!
//! Space is reserved before a page is touched: a store to a page that the disk has no
//! room for would kill the process (SIGBUS); a full disk is an error of `fallocate`
//! instead, reported as a write error. Where the file system cannot reserve space, or the
//! file cannot be mapped for writing, the stream is written in order instead.

use std::fs::File;
use std::os::fd::AsRawFd;

use crate::{Error, Result};

/// Start writing the file back to the disk every this many bytes placed, so that a sync
/// at the end waits for the last stretch only.
const WRITEBACK_BYTES: u64 = 64 << 20;

/// A file being filled from byte `start`, a place at a time.
pub(crate) struct FileTarget {
    file: File,
    start: u64,
    page: u64,
    /// Bytes from `start` already handed to the disk's writeback.
    written_back: std::sync::atomic::AtomicU64,
}

/// One mapped place: its bytes from `data`, unmapped on drop.
pub(crate) struct Mapping {
    base: *mut libc::c_void,
    mapped_len: usize,
    pub(crate) data: *mut u8,
}

// SAFETY: the mapping is plain shared memory of the file; the place it covers is written
// by one thread at a time (its owner's).
unsafe impl Send for Mapping {}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `base..base + mapped_len` is the mapping `map` made; nothing uses it
        // after its owner drops it.
        unsafe { libc::munmap(self.base, self.mapped_len) };
    }
}

impl FileTarget {
    /// `file` from its current position, where its places can be reserved and mapped for
    /// writing; None where they cannot (the caller writes the stream in order instead).
    pub(crate) fn new(file: &File) -> Result<Option<FileTarget>> {
        use std::io::Seek;
        let start = (&*file).stream_position().map_err(Error::WriteOutput)?;
        let is_file = file.metadata().map(|m| m.is_file()).unwrap_or(false);
        // SAFETY: sysconf reads a constant of the system.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if !is_file || page <= 0 {
            return Ok(None);
        }
        let target = FileTarget {
            file: file.try_clone().map_err(Error::WriteOutput)?,
            start,
            page: page as u64,
            written_back: Default::default(),
        };
        // One byte reserved and mapped: does this file system reserve, and was the file
        // opened for reading as well as writing (as a shared writable mapping needs)?
        match target.map(0, 1) {
            Ok(_) => Ok(Some(target)),
            Err(e) => {
                log::debug!("output not mapped ({e}): written in order");
                target.undo();
                Ok(None)
            }
        }
    }

    /// The `len` bytes at `offset` (from the start) reserved on the disk and mapped.
    pub(crate) fn map(&self, offset: usize, len: usize) -> Result<Mapping> {
        let at = self.start + offset as u64;
        let fd = self.file.as_raw_fd();
        let too_far = || Error::TooLarge(format!("an output of {} bytes", at + len as u64));
        i64::try_from(at + len as u64).map_err(|_| too_far())?;
        if len > 0 {
            // SAFETY: a plain syscall on a descriptor we own.
            let rc = unsafe { libc::fallocate(fd, 0, at as libc::off_t, len as libc::off_t) };
            if rc != 0 {
                return Err(Error::WriteOutput(std::io::Error::last_os_error()));
            }
        }
        let aligned = at - at % self.page;
        let lead = (at - aligned) as usize;
        let mapped_len = (lead + len).max(1);
        // SAFETY: a new shared mapping of the file's reserved range (nothing else lives
        // at an address the kernel picks); it stays valid until `Mapping`'s drop.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                aligned as libc::off_t,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(Error::WriteOutput(std::io::Error::last_os_error()));
        }
        // Fault every page in with one call instead of a trap a page (kernels before
        // 5.14 say EINVAL: the stores fault them in instead).
        // SAFETY: advice on the mapping just made.
        unsafe { libc::madvise(base, mapped_len, libc::MADV_POPULATE_WRITE) };
        Ok(Mapping {
            base,
            mapped_len,
            // SAFETY: `lead` is within the mapping (less than a page, and `len` follows).
            data: unsafe { base.cast::<u8>().add(lead) },
        })
    }

    /// Everything up to `end` (from the start) is placed: start writing back what lies
    /// behind it, a stretch at a time (best effort: the caller's sync reports errors).
    pub(crate) fn placed_through(&self, end: usize) {
        use std::sync::atomic::Ordering;
        let from = self.written_back.load(Ordering::Relaxed);
        let end = end as u64;
        if end < from + WRITEBACK_BYTES {
            return;
        }
        self.written_back.store(end, Ordering::Relaxed);
        // SAFETY: a plain syscall on a descriptor we own; no memory is passed.
        unsafe {
            libc::sync_file_range(
                self.file.as_raw_fd(),
                (self.start + from) as libc::off64_t,
                (end - from) as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            )
        };
    }

    /// The stream's last bytes `tail` written after its `end` bytes of places; the file
    /// ends there, its position too.
    pub(crate) fn finish(&self, end: usize, tail: &[u8]) -> Result<()> {
        use std::io::Seek;
        use std::os::unix::fs::FileExt;
        let at = self.start + end as u64;
        self.file
            .write_all_at(tail, at)
            .and_then(|()| self.file.set_len(at + tail.len() as u64))
            .and_then(|()| (&self.file).seek(std::io::SeekFrom::Start(at + tail.len() as u64)))
            .map(|_| ())
            .map_err(Error::WriteOutput)
    }

    /// The file as it was before the stream (best effort, on an error).
    pub(crate) fn undo(&self) {
        let _ = self.file.set_len(self.start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Places mapped anywhere in the file (across pages, empty ones included) land at
    /// their offsets from the file's position; the tail ends the file there.
    #[test]
    fn places_land_at_their_offsets_and_the_tail_ends_the_file() {
        let dir = std::env::temp_dir().join(format!("parvlc-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out");
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut file, b"head").unwrap();
        let target = FileTarget::new(&file)
            .unwrap()
            .expect("a temporary file maps");
        let lens = [5000usize, 0, 1, 4095, 3, 9000];
        let mut offset = 0;
        let mut want = b"head".to_vec();
        // Mapped out of order, as coders finish.
        let mut places: Vec<(usize, usize, u8)> = Vec::new();
        for (i, &len) in lens.iter().enumerate() {
            places.push((offset, len, i as u8 + 1));
            want.extend(std::iter::repeat_n(i as u8 + 1, len));
            offset += len;
        }
        for &(at, len, byte) in places.iter().rev() {
            let m = target.map(at, len).unwrap();
            // SAFETY: `len` bytes mapped from `data`.
            unsafe { std::ptr::write_bytes(m.data, byte, len) };
        }
        target.finish(offset, b"tail").unwrap();
        want.extend_from_slice(b"tail");
        drop(file);
        assert_eq!(std::fs::read(&path).unwrap(), want);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file opened for writing only cannot be mapped: no target (the caller writes in
    /// order), and the file is as it was.
    #[test]
    fn a_write_only_file_is_written_in_order() {
        let dir = std::env::temp_dir().join(format!("parvlc-mapped-wo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out");
        let file = File::create(&path).unwrap();
        assert!(FileTarget::new(&file).unwrap().is_none());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
