//! Parallel variable-length coding on any GPU: the bit-serial parts of real codecs as
//! WGSL compute shaders through wgpu, each with a CPU twin that writes the same bits.
//!
//! - [`huffman`]: Huffman/VLE encoding into a native format or gzip
//!   ([`huffman::compress()`]), decoding on all CPU cores or, for native files, on the
//!   GPU (wgpu, or CUDA with the `cuda` feature);
//! - [`cavlc`] and [`h264`]: H.264 CAVLC on the GPU inside an intra-only Baseline encoder;
//! - [`j2k`] and [`bitstuff`]: lossless JPEG 2000 with the fast mode's raw passes and
//!   parallel bit-stuffing.
//!
//! Where the work runs is a [`Backend`]; an opened one is an [`Engine`], and every codec's
//! entry point takes one: [`huffman::compress()`], [`h264::Encoder::new`], [`j2k::encode`].
//! An engine (its [`gpu::Gpu`]) is opened once per process: its pipelines and buffers are
//! kept for every later call.
//! Nothing here blocks (readback awaits the device), so the same code runs in a browser;
//! native programs block at their edge, e.g. with `pollster`.
//!
//! ```
//! use parvlc::huffman::compress::{decompress, Format};
//! use parvlc::huffman::cuvle::CuvleConfig;
//! use parvlc::{Backend, Engine};
//!
//! # fn main() -> parvlc::Result<()> {
//! let data = b"a few bytes, a few bytes, a few more bytes".repeat(100);
//! // Backend::Wgpu runs it on the GPU; every backend writes the same bytes.
//! let engine = pollster::block_on(Engine::open(Backend::Cpu))?;
//! let gz = pollster::block_on(parvlc::huffman::compress(
//!     &engine,
//!     &data,
//!     Format::Gzip,
//!     &CuvleConfig::default(),
//!     &mut |_| {},
//! ))?;
//! assert_eq!(decompress(&gz.bytes)?, data); // and any gunzip reads gz.bytes
//! # Ok(())
//! # }
//! ```
//!
//! The README is the front door; `docs/` has one page per codec and every measured figure.

pub mod backend;
#[cfg(all(feature = "bench", not(target_arch = "wasm32")))]
pub mod bench;
pub mod bits;
pub mod bitstuff;
pub mod cavlc;
pub(crate) mod concat;
pub(crate) mod crc;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod error;
pub mod gpu;
pub mod h264;
#[doc(hidden)]
pub mod host_copy;
pub mod huffman;
pub mod j2k;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod ordered;
pub mod scan;
pub mod testdata;

pub use backend::{Backend, Engine};
pub use error::{Error, Result};
