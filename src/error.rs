//! The crate's one error type.

use std::path::PathBuf;

/// Everything that can go wrong in parvlc, each variant naming what was wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no GPU adapter found{0}")]
    NoAdapter(String),
    #[error("could not open the GPU device: {0}")]
    RequestDevice(String),
    #[error("GPU error in {stage}: {message}")]
    Gpu {
        stage: &'static str,
        message: String,
    },
    #[error("GPU readback failed: {0}")]
    Readback(String),
    #[error("a GPU workgroup gave up waiting on its predecessor in {stage} (spin limit reached); use the decoupled or reduce_then_scan strategy on this adapter")]
    ScanStalled { stage: &'static str },
    #[error("invalid code table: {0}")]
    InvalidCodeTable(String),
    #[error("input too large: {0}")]
    TooLarge(String),
    #[error("corrupt {format} data: {reason}")]
    Corrupt {
        format: &'static str,
        reason: String,
    },
    #[error("not a {format} file: {reason}")]
    BadMagic {
        format: &'static str,
        reason: String,
    },
    #[error("unsupported {format} version {version}")]
    UnsupportedVersion { format: &'static str, version: u32 },
    #[error(
        "checksum mismatch: expected {expected:08x}, computed {computed:08x}; the data is corrupt"
    )]
    Checksum { expected: u32, computed: u32 },
    #[error("refusing to overwrite existing file {0} (use --force)")]
    OutputExists(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Reading a stream failed (the caller knows its name; the CLI adds it).
    #[error("reading the input: {0}")]
    ReadInput(std::io::Error),
    /// Writing a stream failed.
    #[error("writing the output: {0}")]
    WriteOutput(std::io::Error),
    #[error("{0}")]
    InvalidArgument(String),
    /// A CAVLC level needs level_prefix > 15, which Baseline (and Main, Extended) forbid:
    /// the caller should requantize the block with a coarser QP. No bits were written.
    #[error(
        "CAVLC: level {level} at position {index} (reverse scan order) of a {kind:?} block \
         needs level_prefix > 15 (suffixLength {suffix_length}); requantize the block"
    )]
    CavlcLevelTooLarge {
        kind: crate::cavlc::BlockKind,
        /// Index among the block's nonzero coefficients, in reverse scan order.
        index: usize,
        level: i32,
        suffix_length: u32,
    },
    /// The CUDA path (`cuda` feature): no driver, no NVRTC, a failed compile or call.
    #[error("CUDA: {0}")]
    Cuda(String),
    /// A benchmark's output differs from its reference (CPU twin, or the input after a
    /// decode): the configuration is wrong, and the benchmark reports no time for it.
    #[error("benchmark check failed: {0}")]
    BenchMismatch(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
    pub(crate) fn corrupt(format: &'static str, reason: impl Into<String>) -> Self {
        Error::Corrupt {
            format,
            reason: reason.into(),
        }
    }
}
