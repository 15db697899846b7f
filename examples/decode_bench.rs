//! Single-core speed of the CPU decoders: each file given is compressed on the CPU
//! (gzip and native), then decompressed into a sink several times: the best run in MB/s
//! of output, and all runs' output per second of the process's user CPU time (the
//! decoders' work; page faults on fresh output buffers are system time; user time is
//! counted in ticks, so over all runs).
//!
//!     RAYON_NUM_THREADS=1 cargo run --release --example decode_bench -- FILE...
//!
//! `RUNS` sets the runs (5), `FORMAT=gzip` or `native` one format alone.

use std::time::Instant;

use parvlc::huffman::compress::Format;
use parvlc::huffman::pipeline::{compress_framed, StreamConfig};
use parvlc::huffman::stream::decompress_to;
use parvlc::Engine;

/// User CPU seconds of this process so far.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(u.ru_utime)
}

/// Writes nothing, counts the bytes.
struct Count(u64);

impl std::io::Write for Count {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn main() -> parvlc::Result<()> {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).map_err(parvlc::Error::ReadInput)?;
        let only = std::env::var("FORMAT").unwrap_or_default();
        for format in [Format::Gzip, Format::Native] {
            if !only.is_empty() && !format!("{format:?}").eq_ignore_ascii_case(&only) {
                continue;
            }
            let (packed, _) = pollster::block_on(compress_framed(
                &Engine::Cpu,
                &data,
                format,
                &StreamConfig::default(),
            ))?;
            let (mut wall, mut cpu) = (f64::MAX, 0.0);
            for _ in 0..runs {
                let mut out = Count(0);
                let (t, c) = (Instant::now(), cpu_seconds());
                decompress_to(&mut &packed[..], &mut out)?;
                wall = wall.min(t.elapsed().as_secs_f64());
                cpu += cpu_seconds() - c;
                assert_eq!(out.0, data.len() as u64);
            }
            // Bytes out are checked by the decoder's CRCs; a round trip once, to be sure.
            let mut back = Vec::new();
            decompress_to(&mut &packed[..], &mut back)?;
            assert!(back == data, "{path} {format:?}: round trip");
            let mb = data.len() as f64 / 1e6;
            println!(
                "{path} {format:?}: ratio {:.3}, {:.0} MB/s wall, {:.0} MB/s per user CPU second",
                data.len() as f64 / packed.len() as f64,
                mb / wall,
                mb * runs as f64 / cpu
            );
        }
    }
    Ok(())
}
