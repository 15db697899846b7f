//! The library's host-to-host compress (`compress_stream` over bytes in memory, into a
//! vector whose pages an earlier run touched) at several pipeline shapes: wall GB/s of
//! input, best and median of the runs, for each depth and chunk size. Every shape's
//! output is decoded and compared with the input before it is timed.
//!
//!     cargo run --release --example stream_bench [FILE]
//!
//! Without a file: 24 MiB of synthetic mixed data. `DEPTHS` and `CHUNKS_MIB` are comma
//! lists swept in full (by default the library's `StreamConfig::default()`), `RUNS` the
//! timed runs of each shape (3), `FORMAT` gzip or native (native), `PLANNER` gpu, host or
//! auto and `FRAME_KIB` the largest frame (the CLI's for the format), `SINK` set: the
//! timed runs code into a sink instead (what placing the output in the vector costs),
//! `WARM_MS` a time to keep compressing, untimed, before each shape's timed runs (a GPU
//! kept busy runs in a faster performance state: `docs/results.md`, "Seventh pass").
//! Each run's time is printed after the shape's line.
//! Opens the GPU as the CLI does (wgpu; the CPU where there is none), or `BACKEND`
//! (wgpu, cuda or cpu; cuda needs the `cuda` feature).

use std::time::Instant;

#[path = "support/mod.rs"]
mod support;
use support::median;

use parvlc::huffman::compress::{decompress, Format};
use parvlc::huffman::pipeline::{
    compress_stream, compress_to_vec, FramePlanner, StreamConfig, StreamInput,
};
use parvlc::testdata::generate;
use parvlc::{Backend, Engine};

fn list(name: &str, default: &str) -> Vec<usize> {
    std::env::var(name)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .collect()
}

/// Runs of 64-300 KiB of differently distributed bytes (1 to 7 bits of entropy), like
/// files of several kinds one after another.
fn synthetic(len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    for k in 0u64.. {
        if out.len() >= len {
            break;
        }
        let run = ((64 + (k * 97) % 236) << 10).min((len - out.len()) as u64) as usize;
        let bits = [1.0, 3.0, 4.5, 6.0, 7.0][(k % 5) as usize];
        out.extend(generate(run, bits, k));
    }
    out
}

/// User and system CPU time of this process so far (Linux: from /proc), in seconds.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command's closing parenthesis: utime and stime are the 12th and
    // 13th, in clock ticks of 1/100 s.
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// With `PERF_CTL` naming the control FIFO of a `perf record --control=fifo:...` started
/// disabled (`-D -1`), the profile covers the timed runs alone, not the check's decode.
fn profile_control(command: &str) {
    if let Some(path) = std::env::var_os("PERF_CTL") {
        use std::io::Write;
        if let Ok(mut fifo) = std::fs::OpenOptions::new().write(true).open(path) {
            let _ = writeln!(fifo, "{command}");
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // RUST_LOG=parvlc=debug logs each chunk's phases, as the CLI does.
    #[cfg(feature = "cli")]
    env_logger::init();
    let data = match std::env::args().nth(1) {
        Some(path) => std::fs::read(path)?,
        None => synthetic(24 << 20),
    };
    let format = match std::env::var("FORMAT").as_deref() {
        Ok("gzip") => Format::Gzip,
        _ => Format::Native,
    };
    let runs = list("RUNS", "3").first().copied().unwrap_or(3).max(1);
    let engine = match std::env::var("BACKEND") {
        // A backend asked for by name: no fallback, its error is the run's.
        Ok(name) => pollster::block_on(Engine::open(name.parse::<Backend>()?))?,
        Err(_) => match pollster::block_on(Engine::open(Backend::Wgpu)) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("no GPU ({e}): the CPU engine");
                Engine::Cpu
            }
        },
    };
    println!("{} bytes, {format:?}, on {}", data.len(), engine.name());
    // Pages of the output touched once, before any run, as a caller that keeps its buffer.
    let mut out: Vec<u8> = vec![0; data.len() + data.len() / 8 + (1 << 20)];
    // The CLI's frames for the format at the library's default depth (the CLI's
    // compress runs fewer coders, for memory), unless the environment sweeps other
    // shapes, or names where frames are planned (`PLANNER` gpu, host or auto) and their
    // largest size (`FRAME_KIB`).
    let mut shape = StreamConfig::for_format(format);
    shape.planner = match std::env::var("PLANNER").as_deref() {
        Ok("gpu") => FramePlanner::Gpu,
        Ok("host") => FramePlanner::Host,
        _ => shape.planner,
    };
    if let Some(&kib) = list("FRAME_KIB", "").first() {
        shape.frames.max_frame_bytes = (kib as u64) << 10;
    }
    // `HOST_OUTPUT=0`: the encode's output in device memory, copied back after it.
    if let Some(&on) = list("HOST_OUTPUT", "").first() {
        shape.cuvle.host_output = on != 0;
    }
    for &chunk_mib in &list("CHUNKS_MIB", &(shape.chunk_bytes >> 20).to_string()) {
        for &depth in &list("DEPTHS", &shape.depth.to_string()) {
            let config = StreamConfig {
                chunk_bytes: chunk_mib << 20,
                depth,
                ..shape
            };
            // `SINK`: the timed runs code into a sink, not the vector (what the output's
            // placement costs), once the vector's run is checked.
            let sink = std::env::var_os("SINK").is_some();
            // (Into a sink, the vector keeps the checked run's output, for the ratio.)
            // Chunks the coders wrote into the vector themselves, over the timed runs.
            let in_place = std::cell::Cell::new((0u64, 0u64));
            let run = |out: &mut Vec<u8>, into_sink: bool| -> parvlc::Result<f64> {
                if !into_sink {
                    out.clear();
                }
                let t = Instant::now();
                if into_sink {
                    compress_stream(
                        &engine,
                        format,
                        &config,
                        StreamInput::Bytes(&data),
                        &mut std::io::sink(),
                        &mut |_| {},
                    )?;
                } else if std::env::var_os("SERIAL_OUT").is_some() {
                    compress_stream(
                        &engine,
                        format,
                        &config,
                        StreamInput::Bytes(&data),
                        out,
                        &mut |_| {},
                    )?;
                } else {
                    let s = compress_to_vec(&engine, format, &config, &data, out, &mut |_| {})?;
                    let (placed, chunks) = in_place.get();
                    in_place.set((placed + s.chunks_in_place, chunks + s.chunks));
                }
                Ok(t.elapsed().as_secs_f64())
            };
            run(&mut out, false)?;
            if decompress(&out)? != data {
                return Err(
                    format!("depth {depth}, chunks of {chunk_mib} MiB: wrong output").into(),
                );
            }
            let warm_up = std::time::Duration::from_millis(
                list("WARM_MS", "0").first().copied().unwrap_or(0) as u64,
            );
            let warm_start = Instant::now();
            while warm_start.elapsed() < warm_up {
                run(&mut out, sink)?;
            }
            in_place.set((0, 0));
            profile_control("enable");
            let cpu = cpu_seconds();
            let times = (0..runs)
                .map(|_| run(&mut out, sink))
                .collect::<parvlc::Result<Vec<f64>>>()?;
            let cpu = cpu_seconds().zip(cpu).map(|(b, a)| (b - a) / runs as f64);
            profile_control("disable");
            let best = times.iter().copied().fold(f64::MAX, f64::min);
            let each: Vec<String> = times.iter().map(|t| format!("{:.1}", t * 1e3)).collect();
            let median = median(times);
            println!(
                "depth {depth:>2}, chunks of {chunk_mib:>2} MiB: {:.2} GB/s ({:.1} ms), median {:.2} GB/s, ratio {:.3}{}",
                data.len() as f64 / best / 1e9,
                best * 1e3,
                data.len() as f64 / median / 1e9,
                data.len() as f64 / out.len().max(1) as f64,
                cpu.map(|c| format!(", CPU {:.2} s a run", c)).unwrap_or_default()
            );
            let (placed, chunks) = in_place.get();
            println!(
                "  runs, ms: {}; chunks written in place by their coders {placed} of {chunks}",
                each.join(" ")
            );
        }
    }
    Ok(())
}
