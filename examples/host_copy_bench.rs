//! The host's own ceiling for a host-to-host compress: how fast this machine copies
//! memory on 1 to 16 threads, by the ordinary copy (glibc's memcpy) and by the streaming
//! copy the stream coders use (`parvlc::host_copy`, non-temporal stores), and how fast
//! one core takes a CRC32. A compress of bytes in memory copies each input byte into
//! staging and each output byte out of the readback and into the caller's vector, so at
//! ratio r it moves about 1 + 2/r bytes of copies per input byte: this bounds what the
//! pipeline can reach.
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
    for (name, copy) in [
        ("copy", <[u8]>::copy_from_slice as fn(&mut [u8], &[u8])),
        ("streaming copy", parvlc::host_copy::copy_streaming),
    ] {
        for threads in [1usize, 2, 4, 8, 12, 16] {
            // As a stream coder copies: in pieces of a few MiB.
            let part = n.div_ceil(threads);
            dst.fill(1);
            let secs = best_of_3(&mut || {
                std::thread::scope(|s| {
                    for (d, from) in dst.chunks_mut(part).zip(src.chunks(part)) {
                        s.spawn(move || {
                            for (d, from) in d.chunks_mut(4 << 20).zip(from.chunks(4 << 20)) {
                                copy(d, from);
                            }
                        });
                    }
                })
            });
            assert!(dst == src, "the {name} differs");
            println!(
                "{name}, {threads:>2} threads: {:.1} GB/s",
                n as f64 / secs / 1e9
            );
        }
    }
    let mut crc = 0;
    let secs = best_of_3(&mut || crc = crc32fast::hash(&src));
    assert_eq!(crc, crc32fast::hash(&dst));
    println!("CRC32, one thread: {:.1} GB/s", n as f64 / secs / 1e9);
}
