//! Huffman / variable-length encoding: codebook, CPU reference coders, GPU encoders
//! and the container formats.

#[cfg(all(feature = "bench", not(target_arch = "wasm32")))]
pub mod bench;
pub mod bytestream;
pub mod codebook;
pub mod compress;
pub mod cpu;
pub mod cuvle;
pub mod gzip;
pub mod histogram;
pub mod native;
pub mod pavle;
pub(crate) mod segments;
pub mod stream;

pub use codebook::Codebook;

/// How the bit stream is packed into bytes. In both orders a code is emitted starting
/// with its most significant bit (bit `len - 1` of the code value), as Huffman codes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BitOrder {
    /// Stream bit 0 is bit 7 of byte 0 (the CUVLE paper; JPEG and H.264 style).
    MsbFirst,
    /// Stream bit 0 is bit 0 of byte 0 (DEFLATE).
    LsbFirst,
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

/// A bit stream: `bytes` holds `bits` bits packed in some [`BitOrder`], the unused tail
/// bits of the last byte zero.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitBuf {
    pub bytes: Vec<u8>,
    pub bits: u64,
}

impl BitBuf {
    /// From little-endian u32 words (as the GPU writes them), `bits` long.
    pub(crate) fn from_words(words: &[u32], bits: u64) -> BitBuf {
        let mut bytes: Vec<u8> = bytemuck::cast_slice(words).to_vec();
        bytes.truncate(bits.div_ceil(8) as usize);
        BitBuf { bytes, bits }
    }
}

/// An LSB-first packed word in the stream's bit order: for MSB-first, the bits of every
/// byte reversed (twin of shaders/common/bitwriter.wgsl `stream_word`).
pub(crate) fn stream_word(lsb_first: u32, order: BitOrder) -> u32 {
    match order {
        BitOrder::LsbFirst => lsb_first,
        BitOrder::MsbFirst => lsb_first.reverse_bits().swap_bytes(),
    }
}
