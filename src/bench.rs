//! The benchmarks behind `parvlc bench`, one suite beside each codec
//! ([`crate::huffman::bench`], [`crate::cavlc::bench`], [`crate::j2k::bench`],
//! [`crate::bitstuff::bench`]), and what they share: the timing loop and the output checks.
//!
//! Every suite checks what it times. Each timed configuration's output is compared with its
//! CPU twin bit for bit, or decoded and compared with the input, before its row exists: a
//! wrong output is an error ([`Error::BenchMismatch`]), never a row. The output checked is
//! that of the configuration's first (untimed where there is a warm-up) run, read back
//! after its clock stopped, so the check costs the timed runs nothing.

use std::time::Instant;

pub use crate::cavlc::bench::*;
pub use crate::huffman::bench::*;

use crate::gpu::Gpu;
use crate::{Error, Result};

/// One run of a timed configuration: its wall time, its kernel time where measured, and
/// what it produced (for the check; dropped after the clock stopped).
pub(crate) struct Run<T> {
    pub wall: f64,
    pub gpu: Option<f64>,
    pub output: T,
}

/// What comes before the timed runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum WarmUp {
    /// Nothing: the first timed run's output is the one checked.
    None,
    /// One untimed run, the one checked (as `scripts/nvcomp_bench.py` warms nvCOMP up).
    Once,
    /// One untimed run, the one checked, then more until this many seconds have passed
    /// (pipelines, the buffer pool, and GPU clocks, which fall while the CPU works).
    AtLeast(f64),
}

impl WarmUp {
    /// After the first untimed run: more runs of `f` until `AtLeast`'s seconds have
    /// passed (nothing for the others).
    pub(crate) fn keep_busy(self, mut f: impl FnMut() -> Result<()>) -> Result<()> {
        if let WarmUp::AtLeast(secs) = self {
            let t = Instant::now();
            while t.elapsed().as_secs_f64() < secs {
                f()?;
            }
        }
        Ok(())
    }
}

/// The best (smallest) times of a configuration and how they were taken.
#[derive(Clone, Debug)]
pub(crate) struct Best {
    pub wall: f64,
    pub gpu: Option<f64>,
    /// e.g. "best of 5 after 1 warm-up run".
    pub statistic: String,
}

/// The usual warm-up of the suites.
pub(crate) const WARM_UP: WarmUp = WarmUp::AtLeast(0.3);

/// Time `runs` runs of `f` (at least one) after `warm_up`; `check` gets the first run's
/// output once its clock has stopped, before any timed run where there is a warm-up.
pub(crate) fn best_checked<T>(
    runs: usize,
    warm_up: WarmUp,
    mut f: impl FnMut() -> Result<Run<T>>,
    check: impl FnOnce(T) -> Result<()>,
) -> Result<Best> {
    let mut check = Some(check);
    let mut checked = |output: T| match check.take() {
        Some(c) => c(output),
        None => Ok(()),
    };
    if warm_up != WarmUp::None {
        checked(f()?.output)?;
        warm_up.keep_busy(|| f().map(drop))?;
    }
    let runs = runs.max(1);
    let (mut wall, mut gpu) = (f64::INFINITY, None::<f64>);
    for _ in 0..runs {
        let run = f()?;
        wall = wall.min(run.wall);
        gpu = match (gpu, run.gpu) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        checked(run.output)?;
    }
    let statistic = match warm_up {
        WarmUp::None => format!("best of {runs}, no warm-up"),
        WarmUp::Once => format!("best of {runs} after 1 warm-up run"),
        WarmUp::AtLeast(s) => format!("best of {runs} after at least {s} s of warm-up"),
    };
    Ok(Best {
        wall,
        gpu,
        statistic,
    })
}

/// Best wall time and best GPU time over `runs` runs, after warm-up runs (at least one)
/// lasting at least `warm_up_secs`; for suites that check their outputs themselves.
pub(crate) fn best_after_warm_up(
    runs: usize,
    warm_up_secs: f64,
    mut f: impl FnMut() -> Result<(f64, Option<f64>)>,
) -> Result<(f64, Option<f64>)> {
    let b = best_checked(
        runs,
        WarmUp::AtLeast(warm_up_secs),
        || {
            let (wall, gpu) = f()?;
            Ok(Run {
                wall,
                gpu,
                output: (),
            })
        },
        |()| Ok(()),
    )?;
    Ok((b.wall, b.gpu))
}

/// [`best_after_warm_up`] with the usual 0.3 s.
pub(crate) fn best(
    runs: usize,
    f: impl FnMut() -> Result<(f64, Option<f64>)>,
) -> Result<(f64, Option<f64>)> {
    best_after_warm_up(runs, 0.3, f)
}

/// Time one GPU job: `record` encodes into a command encoder, which is submitted and
/// waited for; the wall time of it all, and what `record` returned (to read timings or
/// outputs from afterwards, off the clock).
pub(crate) fn time_gpu<P>(
    gpu: &Gpu,
    record: impl FnOnce(&mut wgpu::CommandEncoder) -> Result<P>,
) -> Result<(f64, P)> {
    let t = Instant::now();
    let mut ce = gpu.device.create_command_encoder(&Default::default());
    let pending = record(&mut ce)?;
    gpu.queue.submit([ce.finish()]);
    gpu.wait_idle()?;
    Ok((t.elapsed().as_secs_f64(), pending))
}

pub(crate) fn positive(s: f64) -> Option<f64> {
    (s > 0.0).then_some(s)
}

/// An error unless `got` equals `want` item for item; it names `what`, the lengths and
/// the first differing `unit` (byte, code-block, ...).
pub fn check_same<T: PartialEq>(what: &str, unit: &str, got: &[T], want: &[T]) -> Result<()> {
    if got == want {
        return Ok(());
    }
    let first = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    Err(Error::BenchMismatch(format!(
        "{what}: {} {unit}s where its reference has {}; first difference at {unit} {first}",
        got.len(),
        want.len()
    )))
}

/// An error unless the bit stream `got` equals `want` bit for bit.
pub fn check_bits(
    what: &str,
    got: &crate::huffman::BitBuf,
    want: &crate::huffman::BitBuf,
) -> Result<()> {
    if got.bits != want.bits {
        return Err(Error::BenchMismatch(format!(
            "{what}: {} bits where its reference has {}",
            got.bits, want.bits
        )));
    }
    check_same(what, "byte", &got.bytes, &want.bytes)
}
