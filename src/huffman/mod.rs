//! Huffman / variable-length encoding: codebook, CPU reference coders, GPU encoders
//! and the container formats.

#[cfg(not(target_arch = "wasm32"))]
mod adapters;
#[cfg(all(feature = "bench", not(target_arch = "wasm32")))]
pub mod bench;
pub mod block_crc;
pub(crate) mod block_ends;
pub mod bytestream;
pub mod chunk;
#[cfg(feature = "cuda")]
mod chunk_cuda;
pub mod chunk_gpu;
mod chunk_placed;
pub(crate) mod code_lengths;
pub mod codebook;
pub mod compress;
pub mod cpu;
pub mod cuvle;
pub(crate) mod decode_table;
pub mod deflate_head;
pub mod frame_plan;
pub mod frame_tables;
pub mod framed;
pub(crate) mod framed_decode;
pub mod frames;
pub mod framing;
pub mod gzip;
pub mod gzip_index;
pub mod histogram;
pub(crate) mod inflate_frame;
pub(crate) mod inflate_gpu;
pub(crate) mod lanes;
pub mod native;
pub mod pavle;
pub mod pipeline;
pub(crate) mod segments;
pub mod stream;
pub mod vld;

pub use crate::bits::{BitBuf, BitOrder};
pub use codebook::Codebook;

use crate::{Engine, Result};
use compress::{Compressed, Format, Stage};
use cuvle::CuvleConfig;

/// Compress `data` on `engine`, the Huffman codec's entry point. The output is the same
/// bytes on every backend; on the CPU, native files use `config.block_bytes()` per block
/// as the GPUs do. `progress` hears each stage as it starts.
pub async fn compress(
    engine: &Engine,
    data: &[u8],
    format: Format,
    config: &CuvleConfig,
    progress: &mut dyn FnMut(Stage),
) -> Result<Compressed> {
    match engine {
        Engine::Wgpu(g) => compress::compress_gpu(g, data, format, config, progress).await,
        #[cfg(feature = "cuda")]
        Engine::Cuda(c, tuning) => {
            crate::cuda::compress_cuda(c, data, format, config, tuning, progress)
        }
        Engine::Cpu => {
            progress(Stage::Encode);
            compress::compress_cpu(data, format, config.block_bytes())
        }
    }
}

/// The 256-entry byte code table every encoder consumes (the paper's VLET).
/// `codes[s]` holds the code of byte `s` in its low `lengths[s]` bits, first bit most
/// significant. Length 0 means the symbol has no code; encoding it is an error the
/// caller prevents by building the table from the input's histogram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeTable {
    pub codes: [u32; 256],
    pub lengths: [u8; 256],
}

impl CodeTable {
    /// Longest code in the table (0 for an empty table).
    pub fn max_len(&self) -> u32 {
        self.lengths.iter().copied().max().unwrap_or(0) as u32
    }

    /// Exact number of code bits for data with this byte histogram.
    pub fn encoded_bits(&self, histogram: &[u64; 256]) -> u64 {
        histogram
            .iter()
            .zip(self.lengths.iter())
            .map(|(&n, &l)| n * l as u64)
            .sum()
    }
}
