//! Whole-file compression: histogram, codebook, encode, container; on the GPU (CUVLE)
//! or, without an adapter, on all CPU cores. Decompression runs on the CPU.

use super::cuvle::{CuvleConfig, Encoded, VleEncoder};
use super::histogram::total_histogram;
use super::{cpu, gzip, native, stream, BitBuf, BitOrder, Codebook};
use crate::gpu::{Gpu, Profiler, Timings};
use crate::{Error, Result};

/// Longest code the native format uses. The encoders take up to 32 bits; at 16 the GPU
/// kernel emits two symbols per put (7-12% faster on the H200) and the decoder's slow path
/// stays rare, at no measurable cost in ratio (a code longer than 16 bits needs a symbol
/// rarer than about 1 in 2^16).
pub const NATIVE_MAX_CODE_LEN: u8 = 16;

/// Container format of a compressed file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Format {
    /// parvlc's own: code lengths, per-block bit offsets (parallel decode), CRC32.
    Native,
    /// One gzip member: a single dynamic-Huffman DEFLATE block of literals.
    Gzip,
}

impl std::str::FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "native" => Ok(Format::Native),
            "gzip" | "gz" => Ok(Format::Gzip),
            _ => Err(Error::InvalidArgument(format!(
                "unknown format `{s}` (native, gzip)"
            ))),
        }
    }
}

/// Stages reported to a progress callback, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Upload,
    Histogram,
    Encode,
    Readback,
    Container,
}

/// A compressed result and where the time went.
#[derive(Clone, Debug)]
pub struct Compressed {
    pub bytes: Vec<u8>,
    /// Kernel times by timestamp queries (empty on the CPU path or without the feature).
    pub timings: Timings,
    pub segments: usize,
    /// Byte histogram of the input (from the GPU's histogram pass on the GPU path).
    pub histogram: [u64; 256],
    /// Code length of every symbol of the codebook used: 256 bytes, plus end-of-block
    /// for gzip.
    pub code_lengths: Vec<u8>,
}

/// Compress on the GPU. `progress` hears each stage as it starts.
pub async fn compress_gpu(
    gpu: &Gpu,
    data: &[u8],
    format: Format,
    config: &CuvleConfig,
    progress: &mut dyn FnMut(Stage),
) -> Result<Compressed> {
    let encoder = VleEncoder::new(gpu, *config)?;
    progress(Stage::Upload);
    let input = encoder.upload(data)?;
    progress(Stage::Histogram);
    let mut profiler = Profiler::new(gpu, 64);
    let chunks = encoder.histograms(&input, Some(&mut profiler)).await?;
    let timings = profiler.timings(gpu).await?;
    let histogram = total_histogram(&chunks);
    let (book, order, header) = codebook_for(format, &histogram)?;
    let table = book.table()?;
    let start_bit = header.as_ref().map_or(0, |h| (h.bits % 8) as u32);
    let plan = encoder.plan(&input, &chunks, &table, order, start_bit)?;
    progress(Stage::Encode);
    let table_buf = encoder.upload_table(&table);
    let mut command = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("parvlc.compress"),
        });
    let pending = encoder.encode_into(
        &mut command,
        &input,
        &table_buf,
        &plan,
        gpu.has_timestamps(),
    )?;
    gpu.queue.submit([command.finish()]);
    // The checksum of the original runs on the CPU while the GPU encodes.
    let crc = crc32fast::hash(data);
    progress(Stage::Readback);
    let encoded = encoder.finish(pending).await?;
    progress(Stage::Container);
    package(
        data.len() as u64,
        crc,
        book,
        header,
        histogram,
        &encoded,
        timings,
    )
}

/// The container around a GPU-encoded stream, and the result: the last step of every
/// GPU path (wgpu and CUDA). `timings` holds the passes before the encode.
pub(crate) fn package(
    original_len: u64,
    crc: u32,
    book: Codebook,
    header: Option<BitBuf>,
    histogram: [u64; 256],
    encoded: &Encoded,
    mut timings: Timings,
) -> Result<Compressed> {
    timings
        .passes
        .extend(encoded.timings.passes.iter().copied());
    timings.span += encoded.timings.span;
    let bytes = match header {
        None => native_container(
            original_len,
            crc,
            &book,
            encoded.block_bytes,
            &encoded.block_offsets,
            &encoded.stream,
        )?,
        Some(h) => gzip::assemble_gzip(&book, &h, &encoded.stream, crc, original_len)?,
    };
    Ok(Compressed {
        bytes,
        timings,
        segments: encoded.segments,
        histogram,
        code_lengths: book.lengths().to_vec(),
    })
}

/// Compress on all CPU cores: the path without a GPU adapter. Same output format;
/// native files use `block_bytes` per block (the GPU path's block-input size).
pub fn compress_cpu(data: &[u8], format: Format, block_bytes: u64) -> Result<Compressed> {
    let histogram = gzip::histogram(data);
    let (book, order, header) = codebook_for(format, &histogram)?;
    let table = book.table()?;
    let start_bit = header.as_ref().map_or(0, |h| (h.bits % 8) as u32);
    let stream = cpu::encode_parallel(data, &table, order, start_bit)?;
    let crc = crc32fast::hash(data);
    let bytes = match header {
        None => {
            let mut offsets = Vec::with_capacity(data.len().div_ceil(block_bytes as usize));
            let mut at = 0u64;
            for block in data.chunks(block_bytes as usize) {
                offsets.push(at);
                at += block
                    .iter()
                    .map(|&b| table.lengths[b as usize] as u64)
                    .sum::<u64>();
            }
            native_container(
                data.len() as u64,
                crc,
                &book,
                block_bytes,
                &offsets,
                &stream,
            )?
        }
        Some(h) => gzip::assemble_gzip(&book, &h, &stream, crc, data.len() as u64)?,
    };
    Ok(Compressed {
        bytes,
        timings: Timings::default(),
        segments: 0,
        histogram,
        code_lengths: book.lengths().to_vec(),
    })
}

/// The codebook, bit order and (gzip) DEFLATE block header for a histogram.
pub(crate) fn codebook_for(
    format: Format,
    histogram: &[u64; 256],
) -> Result<(Codebook, BitOrder, Option<BitBuf>)> {
    match format {
        Format::Native => Ok((
            Codebook::from_frequencies(histogram, NATIVE_MAX_CODE_LEN)?,
            BitOrder::MsbFirst,
            None,
        )),
        Format::Gzip => {
            let book = Codebook::from_frequencies(
                &gzip::literal_frequencies(histogram),
                gzip::MAX_LITERAL_LEN,
            )?;
            let header = gzip::deflate_block_header(&book)?;
            Ok((book, BitOrder::LsbFirst, Some(header)))
        }
    }
}

pub(crate) fn native_container(
    original_len: u64,
    crc32: u32,
    book: &Codebook,
    block_bytes: u64,
    block_offsets: &[u64],
    stream: &BitBuf,
) -> Result<Vec<u8>> {
    let mut lengths = [0u8; 256];
    lengths.copy_from_slice(&book.lengths()[..256]);
    let header = native::NativeHeader {
        original_len,
        crc32,
        block_symbols: u32::try_from(block_bytes)
            .map_err(|_| Error::TooLarge("block size".into()))?,
        payload_bits: stream.bits,
        lengths,
        block_offsets: if original_len == 0 {
            Vec::new()
        } else {
            block_offsets.to_vec()
        },
    };
    let mut out = Vec::with_capacity(header.encoded_len() + stream.bytes.len());
    native::write_native(&mut out, &header, &stream.bytes).map_err(|e| Error::io("<memory>", e))?;
    Ok(out)
}

/// What kind of compressed data this is, by its first bytes.
pub fn detect_format(data: &[u8]) -> Option<Format> {
    if data.starts_with(native::MAGIC) {
        Some(Format::Native)
    } else if data.starts_with(&[0x1f, 0x8b]) {
        Some(Format::Gzip)
    } else {
        None
    }
}

/// Decompress a native file (our parallel decoder) or any gzip file (flate2) in memory.
/// gzip's trailing zeros are ignored as gzip does; trailing garbage, which gzip decodes
/// with a warning, is an error here (no way to warn): [`stream::decompress_to`] reports
/// it instead.
pub fn decompress(data: &[u8]) -> Result<Vec<u8>> {
    match detect_format(data) {
        Some(Format::Native) => native::decompress_native(data),
        Some(Format::Gzip) => {
            let mut out = Vec::new();
            let done = stream::decompress_to(&mut &data[..], &mut out)?;
            refuse_garbage(&done)?;
            Ok(out)
        }
        None => Err(stream::not_compressed(data)),
    }
}

/// The one-shot calls' answer to trailing garbage, having no way to warn: an error.
pub(crate) fn refuse_garbage(done: &stream::Decompressed) -> Result<()> {
    if done.trailing == stream::Trailing::Garbage {
        return Err(Error::corrupt(
            "gzip",
            format!(
                "trailing garbage at byte {} after {} member(s) (gzip decodes them and warns)",
                done.data_end, done.members
            ),
        ));
    }
    Ok(())
}
