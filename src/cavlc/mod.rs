//! H.264 CAVLC (Rec. ITU-T H.264 clause 9.2): the code tables ([`tables`]) and a CPU
//! reference encoder and decoder for the residual blocks of 4:2:0 Baseline ([`cpu`]), a
//! frame's CAVLC input with the CPU reference for a slice's `slice_data()` ([`frame`]),
//! the GPU stages ([`gpu`]: [`cavlcu`], [`su`], [`pack`]) with their CPU twins, and a
//! multi-core CPU encoder ([`multicore`]).

#[cfg(all(feature = "bench", not(target_arch = "wasm32")))]
pub mod bench;
pub mod cavlcu;
pub mod cpu;
pub mod frame;
pub mod gpu;
mod layout;
pub mod multicore;
pub mod pack;
pub mod su;
pub mod tables;
#[cfg(feature = "bench")]
pub mod testframes;

pub use cpu::{
    decode_residual_block, encode_residual_block, nc_from_neighbours, residual_block_bits,
    BitReader, BlockKind,
};
pub use gpu::{CavlcConfig, CavlcGpu, GpuFrame, GpuVariant};
