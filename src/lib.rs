#![doc = include_str!("../README.md")]

#[cfg(not(target_arch = "wasm32"))]
pub mod bench;
pub mod error;
pub mod gpu;
pub mod huffman;
pub mod scan;
pub mod testdata;

pub use error::{Error, Result};
