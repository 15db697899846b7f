//! The host's own ceiling for a host-to-host compress: how fast this machine copies
//! memory on 1 to 16 threads, and how fast one core takes a CRC32. A compress of bytes
//! in memory through wgpu copies each input byte into wgpu's staging and each output
//! byte out of the readback and into the caller's vector, so at ratio r it moves about
//! 1 + 2/r bytes of copies per input byte: this bounds what the pipeline can reach.
//!
//!     cargo run --release --example host_copy_bench [MIB]
//!
//! MIB (default 1024) is the size of the buffers; each figure is the best of three.

use std::time::Instant;

fn main() {
    let mib: usize = std::env::args()
        .nth(1)
        .and_then(|m| m.parse().ok())
        .unwrap_or(1024);
    let n = mib << 20;
    // Both buffers' pages touched before any timing.
    let src: Vec<u8> = (0..n).map(|i| (i * 31 % 251) as u8).collect();
    let mut dst = vec![1u8; n];
    let best_of_3 = |f: &mut dyn FnMut()| {
        (0..3)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min)
    };
    for threads in [1usize, 2, 4, 8, 12, 16] {
        let part = n.div_ceil(threads);
        let secs = best_of_3(&mut || {
            std::thread::scope(|s| {
                for (d, from) in dst.chunks_mut(part).zip(src.chunks(part)) {
                    s.spawn(move || d.copy_from_slice(from));
                }
            })
        });
        assert!(dst == src, "the copy differs");
        println!(
            "copy, {threads:>2} threads: {:.1} GB/s",
            n as f64 / secs / 1e9
        );
    }
    let mut crc = 0;
    let secs = best_of_3(&mut || crc = crc32fast::hash(&src));
    assert_eq!(crc, crc32fast::hash(&dst));
    println!("CRC32, one thread: {:.1} GB/s", n as f64 / secs / 1e9);
}
