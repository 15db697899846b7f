//! PNG into an [`Image`]: its chunks checked before the decoder sees them (the image
//! data must be able to inflate to the size the header gives), then decoded.

use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::Path;

use super::{read_error, sample_count, zero_sized, Image, MAX_INFLATE_RATIO, PNG_METADATA_BYTES};
use crate::{Error, Result};

/// What the chunk headers of a PNG of `len` bytes say, read before the decoder sees it.
struct PngChunks {
    /// Bytes of IDAT data present (a chunk running past the end counts what is there).
    idat: u64,
    /// The length of a PLTE chunk that is not whole RGB entries (1 to 256 of them): the
    /// png crate panics on one, so it is refused first.
    bad_palette: Option<u64>,
}

/// Walks the chunk headers by seeking.
fn png_chunks<R: Read + Seek>(r: &mut R, len: u64) -> std::io::Result<PngChunks> {
    let mut chunks = PngChunks {
        idat: 0,
        bad_palette: None,
    };
    let mut pos = 8u64;
    while pos + 8 <= len {
        r.seek(SeekFrom::Start(pos))?;
        let mut head = [0u8; 8];
        r.read_exact(&mut head)?;
        let n = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as u64;
        match &head[4..] {
            b"IDAT" => chunks.idat += n.min(len - pos - 8),
            b"PLTE" if n == 0 || !n.is_multiple_of(3) || n > 768 => {
                chunks.bad_palette.get_or_insert(n);
            }
            b"IEND" => break,
            _ => {}
        }
        pos += 12 + n;
    }
    Ok(chunks)
}

/// Bytes of inflated image data (a filter byte and a packed row per row, per Adam7 pass
/// when interlaced) of a `width` x `height` PNG of `bits` bits a pixel.
pub(super) fn png_raw_bytes(width: u32, height: u32, bits: u64, interlaced: bool) -> u64 {
    let rows = |w: u64, h: u64| {
        if w == 0 {
            0
        } else {
            h * (1 + (w * bits).div_ceil(8))
        }
    };
    let (w, h) = (width as u64, height as u64);
    if !interlaced {
        return rows(w, h);
    }
    // (x0, y0, dx, dy) of the seven passes.
    const ADAM7: [(u64, u64, u64, u64); 7] = [
        (0, 0, 8, 8),
        (4, 0, 8, 8),
        (0, 4, 4, 8),
        (2, 0, 4, 4),
        (0, 2, 2, 4),
        (1, 0, 2, 2),
        (0, 1, 1, 2),
    ];
    ADAM7
        .iter()
        .map(|&(x0, y0, dx, dy)| {
            rows(
                w.saturating_sub(x0).div_ceil(dx),
                h.saturating_sub(y0).div_ceil(dy),
            )
        })
        .sum()
}

pub(super) fn read_png<R: BufRead + Seek>(
    mut r: R,
    len: u64,
    name: &Path,
    header_ok: &mut dyn FnMut(),
) -> Result<Image> {
    let png_err = |e: png::DecodingError| match e {
        png::DecodingError::IoError(e) => read_error("PNG", name)(e),
        png::DecodingError::LimitsExceeded => Error::TooLarge(format!(
            "PNG metadata (text, ICC profile or other chunks) needs more than \
             {PNG_METADATA_BYTES} bytes"
        )),
        e => Error::corrupt("PNG", e.to_string()),
    };
    let chunks = png_chunks(&mut r, len).map_err(read_error("PNG", name))?;
    if let Some(n) = chunks.bad_palette {
        return Err(Error::corrupt(
            "PNG",
            format!("the palette (PLTE) is {n} bytes, not 1 to 256 RGB entries of 3 bytes"),
        ));
    }
    let idat = chunks.idat;
    r.seek(SeekFrom::Start(0)).map_err(|e| Error::io(name, e))?;
    let mut decoder = png::Decoder::new(r);
    decoder.set_transformations(png::Transformations::IDENTITY);
    let header = decoder.read_header_info().map_err(png_err)?;
    let (width, height) = (header.width, header.height);
    if width == 0 || height == 0 {
        return Err(zero_sized(width, height));
    }
    let components = match header.color_type {
        png::ColorType::Grayscale => 1,
        // Palette entries become RGB samples, 8 bits each.
        png::ColorType::Rgb | png::ColorType::Indexed => 3,
        png::ColorType::GrayscaleAlpha | png::ColorType::Rgba => {
            return Err(Error::InvalidArgument(
                "PNG has an alpha channel; alpha is not supported: flatten the image first".into(),
            ))
        }
    };
    // Sizes before any image-sized allocation: the limit, then what the data can hold.
    sample_count(width, height, components)?;
    let pixel_bits = header.color_type.samples() as u64 * header.bit_depth as u64;
    let raw = png_raw_bytes(width, height, pixel_bits, header.interlaced);
    if raw > idat.saturating_mul(MAX_INFLATE_RATIO) {
        return Err(Error::corrupt(
            "PNG",
            format!(
                "the header says {width}x{height}, {raw} bytes of image data, but the file \
                 holds {idat} bytes of compressed image data (IDAT), which inflate to at most \
                 {} (truncated file or forged header)",
                idat.saturating_mul(MAX_INFLATE_RATIO)
            ),
        ));
    }
    let indexed = header.color_type == png::ColorType::Indexed;
    // The decoder's own memory: a row of output and bounded metadata.
    let row = (width as u64 * components as u64 * 2) as usize;
    decoder.set_limits(png::Limits {
        bytes: PNG_METADATA_BYTES + row,
    });
    if indexed {
        decoder.set_transformations(png::Transformations::EXPAND);
    }
    let mut reader = decoder.read_info().map_err(png_err)?;
    if reader.info().trns.is_some() {
        return Err(Error::InvalidArgument(
            "PNG has transparency (tRNS); alpha is not supported: flatten the image first".into(),
        ));
    }
    let (color, depth) = reader.output_color_type();
    if !matches!(color, png::ColorType::Grayscale | png::ColorType::Rgb) {
        return Err(Error::InvalidArgument(format!(
            "PNG decodes to {color:?}, not grey or RGB"
        )));
    }
    header_ok();
    let bits = depth as u32;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| Error::TooLarge(format!("{width}x{height} PNG does not fit in memory")))?;
    let mut buf = vec![0u8; size];
    let frame = reader.next_frame(&mut buf).map_err(png_err)?;
    let (width, height) = (frame.width, frame.height);
    let per_row = width as usize * components as usize;
    let mut samples = Vec::with_capacity(per_row * height as usize);
    for row in buf.chunks(frame.line_size).take(height as usize) {
        match bits {
            16 => samples.extend(
                row.chunks_exact(2)
                    .take(per_row)
                    .map(|b| u16::from_be_bytes([b[0], b[1]])),
            ),
            8 => samples.extend(row.iter().take(per_row).map(|&b| b as u16)),
            // 1, 2 or 4 bits per sample, packed from the most significant bit.
            _ => samples.extend((0..per_row).map(|i| {
                let bit = i * bits as usize;
                let byte = row[bit / 8];
                ((byte >> (8 - bits as usize - bit % 8)) & ((1 << bits) - 1)) as u16
            })),
        }
    }
    Image::new(width, height, components, bits, samples)
}
