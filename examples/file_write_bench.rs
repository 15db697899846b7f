//! The machine's ceiling for writing a compressed file: how fast bytes reach one new file
//! in a folder, by one thread's `write` (the kernel takes the file's lock for each
//! buffered write, so threads writing one file take turns), by several threads'
//! positional writes, and by several threads copying into a shared mapping of the file
//! (page faults take no file-wide lock); each with the time of the `fsync` after it.
//!
//!     cargo run --release --example file_write_bench [DIR [MIB]]
//!
//! DIR defaults to the temporary folder, MIB (the file's size) to 64; the H200 run of
//! docs/results.md ("Fourteenth pass") wrote 3065 MiB, what 4 GiB of system files
//! compress to. Each way runs twice, on a new file each time. The file is read back and
//! compared before it is removed.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::time::Instant;

const PIECE: usize = 4 << 20;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().map_or_else(std::env::temp_dir, Into::into);
    let mib: usize = args.next().and_then(|m| m.parse().ok()).unwrap_or(64);
    let n = mib << 20;
    let src: Vec<u8> = (0..n).map(|i| (i * 31 % 251) as u8).collect();
    let path = dir.join(format!("file_write_bench.{}.tmp", std::process::id()));
    println!("{} MiB to {}", mib, path.display());
    type Way = (&'static str, usize, fn(&File, &[u8], usize));
    let ways: [Way; 7] = [
        ("write, 1 thread", 1, write_serial),
        ("pwrite, 4 threads", 4, pwrite_threads),
        ("pwrite, 8 threads", 8, pwrite_threads),
        ("mmap, 4 threads", 4, mmap_threads),
        ("mmap, 8 threads", 8, mmap_threads),
        ("mmap, 16 threads", 16, mmap_threads),
        ("mmap + populate, 8 threads", 8, mmap_populate_threads),
    ];
    for (name, threads, way) in ways {
        for round in 1..=2 {
            let _ = std::fs::remove_file(&path);
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
                .expect("create the file");
            let t = Instant::now();
            way(&file, &src, threads);
            let wrote = t.elapsed().as_secs_f64();
            let t = Instant::now();
            file.sync_all().expect("fsync");
            let synced = t.elapsed().as_secs_f64();
            check(&file, &src);
            println!(
                "{name}, run {round}: written {:.3} s ({:.2} GB/s), fsync {:.3} s; with it {:.2} GB/s",
                wrote,
                n as f64 / wrote / 1e9,
                synced,
                n as f64 / (wrote + synced) / 1e9
            );
        }
    }
    let _ = std::fs::remove_file(&path);
}

fn write_serial(file: &File, src: &[u8], _: usize) {
    let mut f = file;
    for piece in src.chunks(PIECE) {
        f.write_all(piece).expect("write");
    }
}

/// Pieces claimed in turn by `threads` threads, each running `put(offset, piece)`.
fn in_turn(src: &[u8], threads: usize, put: &(dyn Fn(usize, &[u8]) + Sync)) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let at = k * PIECE;
                if at >= src.len() {
                    return;
                }
                put(at, &src[at..src.len().min(at + PIECE)]);
            });
        }
    });
}

fn pwrite_threads(file: &File, src: &[u8], threads: usize) {
    in_turn(src, threads, &|at, piece| {
        file.write_all_at(piece, at as u64).expect("pwrite")
    });
}

/// The file's bytes as a shared writable mapping (the file sized to `len` first).
fn map(file: &File, len: usize) -> *mut u8 {
    file.set_len(len as u64).expect("ftruncate");
    // SAFETY: a fresh shared mapping of a file we own, of its whole length.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    assert!(p != libc::MAP_FAILED, "mmap failed");
    p.cast()
}

fn mmap_with(file: &File, src: &[u8], threads: usize, populate: bool) {
    let base = map(file, src.len()) as usize;
    in_turn(src, threads, &|at, piece| {
        let dst = (base + at) as *mut u8;
        // SAFETY: each piece is a distinct range inside the mapping.
        unsafe {
            if populate {
                // MADV_POPULATE_WRITE (Linux 5.14): the pages faulted in one call.
                libc::madvise(dst.cast(), piece.len(), 23);
            }
            std::ptr::copy_nonoverlapping(piece.as_ptr(), dst, piece.len());
        }
    });
    // SAFETY: the mapping made above, no longer used.
    unsafe { libc::munmap(base as *mut libc::c_void, src.len()) };
}

fn mmap_threads(file: &File, src: &[u8], threads: usize) {
    mmap_with(file, src, threads, false)
}

fn mmap_populate_threads(file: &File, src: &[u8], threads: usize) {
    mmap_with(file, src, threads, true)
}

fn check(file: &File, src: &[u8]) {
    let mut back = vec![0u8; PIECE];
    for (k, piece) in src.chunks(PIECE).enumerate() {
        let got = &mut back[..piece.len()];
        file.read_exact_at(got, (k * PIECE) as u64)
            .expect("read back");
        assert!(got == piece, "the file differs at piece {k}");
    }
}
