#![doc = include_str!("../README.md")]

pub mod backend;
#[cfg(not(target_arch = "wasm32"))]
pub mod bench;
pub mod bitstuff;
pub mod cavlc;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod error;
pub mod gpu;
pub mod h264;
pub mod huffman;
pub mod j2k;
pub mod scan;
pub mod testdata;

pub use backend::{Backend, Engine};
pub use error::{Error, Result};
