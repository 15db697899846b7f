//! parvlc: the bit-serial heart of real codecs, run in parallel on any GPU.

pub mod bench;
pub mod error;
pub mod gpu;
pub mod huffman;
pub mod scan;
pub mod testdata;

pub use error::{Error, Result};
