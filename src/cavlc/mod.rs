//! H.264 CAVLC (Rec. ITU-T H.264 clause 9.2): the code tables ([`tables`]) and a CPU
//! reference encoder and decoder for the residual blocks of 4:2:0 Baseline ([`cpu`]).

pub mod cpu;
pub mod tables;

pub use cpu::{
    decode_residual_block, encode_residual_block, nc_from_neighbours, BitReader, BitWriter,
    BlockKind,
};

/// Why a residual block could not be coded (or decoded).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CavlcError {
    /// A level needs level_prefix > 15, which Baseline (and Main, Extended) forbid: the
    /// caller should requantize the block with a coarser QP. No bits were written.
    #[error(
        "CAVLC: level {level} at position {index} (reverse scan order) of a {kind:?} block \
         needs level_prefix > 15 (suffixLength {suffix_length}); requantize the block"
    )]
    LevelTooLarge {
        kind: BlockKind,
        /// Index among the block's nonzero coefficients, in reverse scan order.
        index: usize,
        level: i32,
        suffix_length: u32,
    },
    #[error("CAVLC: {0}")]
    InvalidArgument(String),
    #[error("corrupt CAVLC data: {0}")]
    Corrupt(String),
}

impl From<CavlcError> for crate::Error {
    fn from(e: CavlcError) -> crate::Error {
        match e {
            CavlcError::Corrupt(reason) => crate::Error::corrupt("CAVLC", reason),
            other => crate::Error::InvalidArgument(other.to_string()),
        }
    }
}
