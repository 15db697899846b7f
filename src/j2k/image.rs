//! Input images of the JPEG 2000 encoder: binary PGM/PPM (P5/P6) and PNG.
//!
//! Conversions: a PNM's bit depth is the number of bits of its maxval (255 -> 8,
//! 1023 -> 10, 65535 -> 16); palette PNGs are expanded to RGB; grey PNGs of 1, 2 or 4 bits
//! keep that depth. Alpha (an alpha channel or a tRNS chunk) is refused: this encoder
//! writes grey or RGB only.
//!
//! Memory is bounded by what the input can justify, checked from the header before any
//! image-sized allocation: at most [`MAX_SAMPLES`] samples; a PNM's raster must be present
//! in full; a PNG's compressed image data (IDAT) must be able to inflate to the size its
//! header gives (deflate expands at most [`MAX_INFLATE_RATIO`] times). A regular file is
//! read as it is parsed, never whole; a pipe or device is read up to [`MAX_UNSIZED_INPUT`].

use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::Path;

use crate::{Error, Result};

/// Largest image accepted, in samples (width x height x components): 2^28, e.g.
/// 16384 x 16384 grey or 9459 x 9459 RGB. The CPU encoder takes 16384 x 16384 grey noise
/// in 3.2 GB at its peak (about 12 bytes a sample; OpenJPEG decodes the result exactly),
/// and the lossless codestream of even 16-bit noise (about 2.2 bytes a sample) stays well
/// inside one tile-part (Psot is 32 bits).
pub const MAX_SAMPLES: u64 = 1 << 28;

/// Deflate codes a run of 258 bytes in 2 bits at best: compressed data cannot inflate
/// more than 1032 times.
pub const MAX_INFLATE_RATIO: u64 = 1032;

/// Most bytes read from an input of unknown length (a pipe or device): room for a
/// [`MAX_SAMPLES`] image stored uncompressed at 16 bits, with its metadata.
pub const MAX_UNSIZED_INPUT: u64 = 4 * MAX_SAMPLES;

/// Longest PNM header (comments included).
const MAX_PNM_HEADER: u64 = 64 << 10;

/// Memory the PNG decoder may take beyond a row (text chunks, ICC profile, buffers).
const PNG_METADATA_BYTES: usize = 16 << 20;

/// An unsigned image of 1 (grey) or 3 (RGB) components, samples interleaved in raster
/// order, each below `1 << bit_depth`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub components: u32,
    pub bit_depth: u32,
    pub samples: Vec<u16>,
}

/// The samples of a `width` x `height` image of `components`; [`MAX_SAMPLES`] at most.
fn sample_count(width: u32, height: u32, components: u32) -> Result<u64> {
    match (width as u64 * height as u64).checked_mul(components as u64) {
        Some(n) if n <= MAX_SAMPLES => Ok(n),
        _ => Err(Error::TooLarge(format!(
            "a {width}x{height} image of {components} component(s) has more than \
             {MAX_SAMPLES} samples, the most this encoder takes"
        ))),
    }
}

/// The largest of `samples` (0 for none), by a loop the compiler vectorizes.
pub(crate) fn largest_sample(samples: &[u16]) -> u16 {
    samples.iter().fold(0, |m, &s| m.max(s))
}

fn zero_sized(width: u32, height: u32) -> Error {
    Error::InvalidArgument(format!(
        "image is {width}x{height}: zero-sized images cannot be encoded"
    ))
}

impl Image {
    /// Check the shape and every sample.
    pub fn new(
        width: u32,
        height: u32,
        components: u32,
        bit_depth: u32,
        samples: Vec<u16>,
    ) -> Result<Image> {
        let image = Image {
            width,
            height,
            components,
            bit_depth,
            samples,
        };
        image.validate()?;
        Ok(image)
    }

    /// The checks of [`Image::new`], for an image whose public fields were set directly.
    pub fn validate(&self) -> Result<()> {
        self.validate_shape()?;
        // The largest sample of each piece, on all cores: a loop the compiler vectorizes,
        // where a search for the first sample over the maximum is one sample at a time (a
        // 4K picture's 26 million samples took over 10 ms on one core).
        use rayon::prelude::*;
        let largest = self
            .samples
            .par_chunks(1 << 16)
            .map(largest_sample)
            .max()
            .unwrap_or(0);
        self.check_largest_sample(largest)
    }

    /// [`Self::validate`] but for the samples' values: the shape, the bit depth, the
    /// samples' count. A caller that reads every sample anyway (the GPU front end's
    /// upload) checks the values where it reads them: [`Self::check_largest_sample`].
    pub(crate) fn validate_shape(&self) -> Result<()> {
        let (width, height, components, bit_depth) =
            (self.width, self.height, self.components, self.bit_depth);
        if width == 0 || height == 0 {
            return Err(zero_sized(width, height));
        }
        if components != 1 && components != 3 {
            return Err(Error::InvalidArgument(format!(
                "image has {components} components: only grey (1) and RGB (3) are supported"
            )));
        }
        if !(1..=16).contains(&bit_depth) {
            return Err(Error::InvalidArgument(format!(
                "bit depth {bit_depth}: only 1 to 16 bits per sample are supported"
            )));
        }
        let n = sample_count(width, height, components)?;
        if self.samples.len() as u64 != n {
            return Err(Error::InvalidArgument(format!(
                "{width}x{height}x{components} image needs {n} samples, got {}",
                self.samples.len()
            )));
        }
        Ok(())
    }

    /// An error naming the first sample over the bit depth's maximum where `largest`, the
    /// largest sample, is over it (the search runs only then).
    pub(crate) fn check_largest_sample(&self, largest: u16) -> Result<()> {
        let max = ((1u32 << self.bit_depth.clamp(1, 16)) - 1) as u16;
        if largest <= max {
            return Ok(());
        }
        match self.samples.iter().position(|&s| s > max) {
            Some(i) => Err(Error::InvalidArgument(format!(
                "sample {i} is {} but a {}-bit image allows at most {max}",
                self.samples[i], self.bit_depth
            ))),
            None => Ok(()),
        }
    }

    /// Read a PGM, PPM or PNG file (chosen by its magic bytes, not its name).
    pub fn read(path: &Path) -> Result<Image> {
        Image::read_then(path, &mut || {})
    }

    /// [`Image::read`], calling `header_ok` once the header has passed every check and
    /// before the samples are read: a caller can start work that a bad file should not
    /// cost (the CLI opens the GPU there).
    pub fn read_then(path: &Path, header_ok: &mut dyn FnMut()) -> Result<Image> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        let result = if meta.is_file() {
            decode(std::io::BufReader::new(file), meta.len(), path, header_ok)
        } else {
            read_unsized(file, path, header_ok)
        };
        result.map_err(|e| match e {
            Error::Corrupt { format, reason } => Error::Corrupt {
                format,
                reason: format!("{}: {reason}", path.display()),
            },
            Error::BadMagic { format, reason } => Error::BadMagic {
                format,
                reason: format!("{}: {reason}", path.display()),
            },
            Error::InvalidArgument(m) => Error::InvalidArgument(format!("{}: {m}", path.display())),
            Error::TooLarge(m) => Error::TooLarge(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Parse a PGM/PPM (P5/P6) or PNG held in memory.
    pub fn from_bytes(data: &[u8]) -> Result<Image> {
        decode(
            std::io::Cursor::new(data),
            data.len() as u64,
            Path::new("(memory)"),
            &mut || {},
        )
    }

    /// Component `c` as its own plane.
    pub fn plane(&self, c: u32) -> Vec<u16> {
        let n = self.components as usize;
        self.samples
            .iter()
            .skip(c as usize)
            .step_by(n)
            .copied()
            .collect()
    }

    /// The image as binary PGM/PPM (maxval `2^bit_depth - 1`), the form `opj_decompress`
    /// writes: for tests and tools.
    pub fn to_pnm(&self) -> Vec<u8> {
        let magic = if self.components == 1 { "P5" } else { "P6" };
        let maxval = (1u32 << self.bit_depth) - 1;
        let mut out = format!("{magic}\n{} {}\n{maxval}\n", self.width, self.height).into_bytes();
        for &s in &self.samples {
            if maxval > 255 {
                out.extend_from_slice(&s.to_be_bytes());
            } else {
                out.push(s as u8);
            }
        }
        out
    }
}

/// What the first bytes say the input is.
enum Kind {
    Png,
    /// A PNM of 1 or 3 components.
    Pnm(u32),
}

fn sniff(magic: &[u8]) -> Result<Kind> {
    if magic.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Ok(Kind::Png);
    }
    match magic.get(..2) {
        Some(b"P5") => Ok(Kind::Pnm(1)),
        Some(b"P6") => Ok(Kind::Pnm(3)),
        Some([b'P', d @ (b'1'..=b'4' | b'7')]) => Err(Error::BadMagic {
            format: "PGM/PPM/PNG",
            reason: format!(
                "P{} is a netpbm kind this encoder does not read (only binary P5 and P6)",
                *d as char
            ),
        }),
        _ => Err(Error::BadMagic {
            format: "PGM/PPM/PNG",
            reason: "neither P5, P6 nor the PNG signature at the start".into(),
        }),
    }
}

/// An I/O error of `name`; the end of the data is a truncated file.
fn read_error<'a>(format: &'static str, name: &'a Path) -> impl Fn(std::io::Error) -> Error + 'a {
    move |e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => {
            Error::corrupt(format, "the file ends early (truncated file)")
        }
        _ => Error::io(name, e),
    }
}

/// A pipe or device: no length to check a header against. The magic comes first (so
/// `/dev/zero` fails at once), then the data as it arrives, up to [`MAX_UNSIZED_INPUT`].
fn read_unsized(r: impl Read, name: &Path, header_ok: &mut dyn FnMut()) -> Result<Image> {
    let mut data = Vec::new();
    let mut r = r.take(MAX_UNSIZED_INPUT + 1);
    r.by_ref()
        .take(8)
        .read_to_end(&mut data)
        .map_err(|e| Error::io(name, e))?;
    sniff(&data)?;
    r.read_to_end(&mut data).map_err(|e| Error::io(name, e))?;
    if data.len() as u64 > MAX_UNSIZED_INPUT {
        return Err(Error::TooLarge(format!(
            "more than {MAX_UNSIZED_INPUT} bytes from a pipe or device, more than an image \
             of at most {MAX_SAMPLES} samples needs"
        )));
    }
    decode(
        std::io::Cursor::new(&data[..]),
        data.len() as u64,
        Path::new("(memory)"),
        header_ok,
    )
}

/// A PNM or PNG of `len` bytes in all from `r`.
fn decode<R: BufRead + Seek>(
    mut r: R,
    len: u64,
    name: &Path,
    header_ok: &mut dyn FnMut(),
) -> Result<Image> {
    let mut magic = Vec::with_capacity(8);
    r.by_ref()
        .take(8)
        .read_to_end(&mut magic)
        .map_err(|e| Error::io(name, e))?;
    r.seek(SeekFrom::Start(0)).map_err(|e| Error::io(name, e))?;
    match sniff(&magic)? {
        Kind::Png => read_png(r, len, name, header_ok),
        Kind::Pnm(components) => read_pnm(r, len, components, name, header_ok),
    }
}

/// The header of a PNM held in `head` (the start of the file; `complete` when it is all of
/// it): width, height, maxval and the raster's offset. Tokens are separated by whitespace,
/// `#` comments run to the end of a line, and exactly one whitespace byte precedes the
/// raster.
fn pnm_header(head: &[u8], complete: bool) -> Result<(u32, u32, u32, usize)> {
    let corrupt = |m: String| Error::corrupt("PGM/PPM", m);
    let ends_early = |what: &str| {
        corrupt(if complete {
            format!("{what} (truncated file)")
        } else {
            format!("the header is longer than {MAX_PNM_HEADER} bytes (comments included)")
        })
    };
    let mut pos = 2;
    let mut fields = [0u32; 3];
    for (i, name) in ["width", "height", "maxval"].iter().enumerate() {
        // Whitespace and comments before the token (at least one separator).
        let start = pos;
        loop {
            match head.get(pos) {
                Some(b'#') => {
                    while head.get(pos).is_some_and(|&b| b != b'\n' && b != b'\r') {
                        pos += 1;
                    }
                }
                Some(b) if b.is_ascii_whitespace() => pos += 1,
                _ => break,
            }
        }
        if pos >= head.len() {
            return Err(ends_early(&format!("header ends before the {name}")));
        }
        if pos == start {
            return Err(corrupt(format!("no whitespace before the {name}")));
        }
        let digits = head[pos..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            return Err(corrupt(format!("{name} is not a decimal number")));
        }
        let text = std::str::from_utf8(&head[pos..pos + digits]).unwrap_or("");
        fields[i] = text
            .parse()
            .map_err(|_| corrupt(format!("{name} {text} is too large")))?;
        pos += digits;
    }
    match head.get(pos) {
        Some(b) if b.is_ascii_whitespace() => pos += 1,
        None => return Err(ends_early("file ends after the maxval")),
        Some(_) => return Err(corrupt("no whitespace after the maxval".into())),
    }
    let [width, height, maxval] = fields;
    Ok((width, height, maxval, pos))
}

fn read_pnm<R: BufRead + Seek>(
    mut r: R,
    len: u64,
    components: u32,
    name: &Path,
    header_ok: &mut dyn FnMut(),
) -> Result<Image> {
    let corrupt = |m: String| Error::corrupt("PGM/PPM", m);
    let mut head = Vec::new();
    r.by_ref()
        .take(MAX_PNM_HEADER)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(name, e))?;
    let (width, height, maxval, pos) = pnm_header(&head, head.len() as u64 >= len)?;
    if width == 0 || height == 0 {
        return Err(zero_sized(width, height));
    }
    if !(1..=65535).contains(&maxval) {
        return Err(corrupt(format!("maxval {maxval} is not in 1..=65535")));
    }
    // Every size is checked before the samples are allocated: against the limit, then
    // against the bytes the file holds.
    let n = sample_count(width, height, components)?;
    let bytes_per = if maxval > 255 { 2 } else { 1 };
    let need = n * bytes_per;
    let have = len.saturating_sub(pos as u64);
    if have < need {
        return Err(corrupt(format!(
            "{width}x{height} raster needs {need} bytes, the file has {have} (truncated file)"
        )));
    }
    header_ok();
    r.seek(SeekFrom::Start(pos as u64))
        .map_err(|e| Error::io(name, e))?;
    let mut samples: Vec<u16> = Vec::with_capacity(n as usize);
    let mut chunk = vec![0u8; 1 << 16];
    let mut left = need as usize;
    while left > 0 {
        let k = left.min(chunk.len());
        r.read_exact(&mut chunk[..k])
            .map_err(read_error("PGM/PPM", name))?;
        if bytes_per == 2 {
            samples.extend(
                chunk[..k]
                    .chunks_exact(2)
                    .map(|b| u16::from_be_bytes([b[0], b[1]])),
            );
        } else {
            samples.extend(chunk[..k].iter().map(|&b| b as u16));
        }
        left -= k;
    }
    if let Some(i) = samples.iter().position(|&s| s as u32 > maxval) {
        return Err(corrupt(format!(
            "sample {i} is {} but maxval is {maxval}",
            samples[i]
        )));
    }
    let bit_depth = 32 - maxval.leading_zeros();
    Image::new(width, height, components, bit_depth, samples)
}

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
fn png_raw_bytes(width: u32, height: u32, bits: u64, interlaced: bool) -> u64 {
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

fn read_png<R: BufRead + Seek>(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pnm_with_comments_and_odd_maxval() {
        let data = b"P5\n# made by hand\n3 # width\n2\n1000\n\x00\x01\x03\xe8\x00\x00\x01\x00\x02\x00\x03\x00";
        let img = Image::from_bytes(data).unwrap();
        assert_eq!((img.width, img.height, img.components), (3, 2, 1));
        assert_eq!(img.bit_depth, 10);
        assert_eq!(img.samples, vec![1, 1000, 0, 256, 512, 768]);
    }

    #[test]
    fn ppm_8_bit_and_round_trip_through_to_pnm() {
        let img = Image::new(2, 1, 3, 8, vec![1, 2, 3, 250, 251, 252]).unwrap();
        let back = Image::from_bytes(&img.to_pnm()).unwrap();
        assert_eq!(back, img);
        assert_eq!(img.plane(1), vec![2, 251]);
    }

    #[test]
    fn a_sample_over_the_bit_depth_is_named_wherever_it_lies() {
        // Pieces of 65536 samples are checked side by side: a bad sample first, last,
        // and on either side of a piece's edge, in an image of several pieces.
        let (w, h) = (517u32, 389u32);
        let n = (w * h * 3) as usize;
        for bad in [0, (1 << 16) - 1, 1 << 16, n / 2, n - 1] {
            let mut samples = vec![1023u16; n];
            samples[bad] = 1024;
            let e = Image::new(w, h, 3, 10, samples).unwrap_err().to_string();
            assert!(
                e.contains(&format!("sample {bad} is 1024")) && e.contains("at most 1023"),
                "{e}"
            );
        }
        assert!(Image::new(w, h, 3, 10, vec![1023; n]).is_ok());
        assert!(Image::new(3, 1, 1, 16, vec![0, 65535, 7]).is_ok());
    }

    #[test]
    fn bad_pnms_are_clear_errors() {
        let cases: [(&[u8], &str); 10] = [
            (b"P5\n0 4\n255\n", "zero-sized"),
            (b"P6\n4 4\n255\n\x00\x01", "truncated"),
            (b"P5\n4 4\n", "truncated"),
            (b"P5\n4", "truncated"),
            (b"P5\n4 x\n255\n", "height is not a decimal"),
            (b"P5 4 4 255", "truncated"),
            (b"P5\n4 4\n70000\n", "maxval"),
            (b"P2\n1 1\n255\n0\n", "P5 and P6"),
            (b"GIF89a", "neither"),
            (b"P5\n1 1\n100\n\xc8", "maxval is 100"),
        ];
        for (data, want) in cases {
            let e = Image::from_bytes(data).unwrap_err().to_string();
            assert!(e.contains(want), "{e:?} should mention {want:?}");
        }
    }

    fn png_bytes(
        w: u32,
        h: u32,
        color: png::ColorType,
        depth: png::BitDepth,
        raw: &[u8],
    ) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, w, h);
            enc.set_color(color);
            enc.set_depth(depth);
            if color == png::ColorType::Indexed {
                enc.set_palette(vec![10, 20, 30, 40, 50, 60]);
            }
            let mut wr = enc.write_header().unwrap();
            wr.write_image_data(raw).unwrap();
        }
        out
    }

    #[test]
    fn png_kinds() {
        use png::{BitDepth as D, ColorType as C};
        let img = Image::from_bytes(&png_bytes(
            2,
            1,
            C::Rgb,
            D::Sixteen,
            &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
        ))
        .unwrap();
        assert_eq!((img.components, img.bit_depth), (3, 16));
        assert_eq!(
            img.samples,
            vec![0x0102, 0x0304, 0x0506, 0x0708, 0x090a, 0x0b0c]
        );
        let img =
            Image::from_bytes(&png_bytes(3, 1, C::Grayscale, D::Eight, &[0, 128, 255])).unwrap();
        assert_eq!(
            (img.components, img.bit_depth, img.samples.clone()),
            (1, 8, vec![0, 128, 255])
        );
        let img = Image::from_bytes(&png_bytes(
            5,
            1,
            C::Grayscale,
            D::Two,
            &[0b00011011, 0b11000000],
        ))
        .unwrap();
        assert_eq!(
            (img.bit_depth, img.samples.clone()),
            (2, vec![0, 1, 2, 3, 3])
        );
        let img = Image::from_bytes(&png_bytes(2, 1, C::Indexed, D::Eight, &[1, 0])).unwrap();
        assert_eq!(
            (img.components, img.bit_depth, img.samples.clone()),
            (3, 8, vec![40, 50, 60, 10, 20, 30])
        );
        let e = Image::from_bytes(&png_bytes(1, 1, C::Rgba, D::Eight, &[1, 2, 3, 4])).unwrap_err();
        assert!(e.to_string().contains("alpha"), "{e}");
        let full = png_bytes(8, 8, C::Grayscale, D::Eight, &[7; 64]);
        let e = Image::from_bytes(&full[..full.len() - 20]).unwrap_err();
        assert!(matches!(e, Error::Corrupt { format: "PNG", .. }), "{e}");
    }

    /// Found by the `image_read` fuzz target: a palette that is not whole RGB entries
    /// made the png crate panic (its palette.rs); it is a clear error now.
    #[test]
    fn a_palette_of_partial_entries_is_an_error_not_a_panic() {
        for plte in [&[1u8, 2, 3, 4][..], &[9; 2], &[], &[0; 771]] {
            let png = forged_png(
                (2, 1, 8, 3, 0),
                &[(b"PLTE", plte), (b"IDAT", &zlib_zeros(3))],
            );
            let e = Image::from_bytes(&png).unwrap_err();
            assert!(
                e.to_string().contains("palette (PLTE)"),
                "{} bytes: {e}",
                plte.len()
            );
        }
        // Whole entries still decode.
        let png = forged_png(
            (2, 1, 8, 3, 0),
            &[(b"PLTE", &[1, 2, 3, 4, 5, 6]), (b"IDAT", &zlib_zeros(3))],
        );
        let img = Image::from_bytes(&png).unwrap();
        assert_eq!(img.samples, [1, 2, 3, 1, 2, 3]);
    }

    /// A PNG assembled chunk by chunk, so that its header can say anything.
    fn forged_png(ihdr: (u32, u32, u8, u8, u8), chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
        let (w, h, depth, color, interlace) = ihdr;
        let mut head = Vec::new();
        head.extend_from_slice(&w.to_be_bytes());
        head.extend_from_slice(&h.to_be_bytes());
        head.extend_from_slice(&[depth, color, 0, 0, interlace]);
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        for (kind, data) in std::iter::once((b"IHDR", &head[..]))
            .chain(chunks.iter().copied())
            .chain(std::iter::once((b"IEND", &[][..])))
        {
            out.extend_from_slice(&(data.len() as u32).to_be_bytes());
            let start = out.len();
            out.extend_from_slice(kind);
            out.extend_from_slice(data);
            let crc = crc32fast::hash(&out[start..]);
            out.extend_from_slice(&crc.to_be_bytes());
        }
        out
    }

    /// A zlib stream of `n` zero bytes at the best compression.
    fn zlib_zeros(n: usize) -> Vec<u8> {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&vec![0; n]).unwrap();
        z.finish().unwrap()
    }

    #[test]
    fn png_headers_beyond_the_limit_or_the_data_are_refused() {
        // The 65-byte bomb: 100000x100000, 16-bit RGB.
        let bomb = forged_png((100_000, 100_000, 16, 2, 0), &[(b"IDAT", &zlib_zeros(10))]);
        assert!(bomb.len() < 80, "{}", bomb.len());
        let e = Image::from_bytes(&bomb).unwrap_err();
        assert!(matches!(e, Error::TooLarge(_)), "{e:?}");
        assert!(e.to_string().contains("268435456 samples"), "{e}");

        // Within the limit, but 40 bytes of IDAT cannot inflate to 256 MB, even interlaced.
        for interlace in [0, 1] {
            let png = forged_png(
                (16000, 16000, 8, 0, interlace),
                &[(b"IDAT", &zlib_zeros(1000))],
            );
            let e = Image::from_bytes(&png).unwrap_err().to_string();
            assert!(
                e.contains("compressed image data (IDAT)") && e.contains("16000x16000"),
                "{e}"
            );
        }
        // Deflate at its best (all zeros) stays inside the bound: 2000x2000 grey is read.
        let raw = 2000 * 2001;
        let z = zlib_zeros(raw);
        assert!(raw as u64 > 900 * z.len() as u64, "{} -> {}", raw, z.len());
        let img = Image::from_bytes(&forged_png((2000, 2000, 8, 0, 0), &[(b"IDAT", &z)])).unwrap();
        assert_eq!(
            (img.width, img.height, img.samples.len()),
            (2000, 2000, 4_000_000)
        );
        // IDAT split into chunks after an ancillary chunk: all IDAT bytes count.
        let (a, b) = z.split_at(z.len() / 2);
        let split = forged_png(
            (2000, 2000, 8, 0, 0),
            &[(b"tEXt", b"k\0v"), (b"IDAT", a), (b"IDAT", b)],
        );
        assert_eq!(Image::from_bytes(&split).unwrap(), img);

        // Metadata beyond the decoder's budget: a clear error, not an allocation.
        let mut text = b"Comment\0".to_vec();
        text.resize(PNG_METADATA_BYTES + 4096, b'x');
        let png = forged_png(
            (8, 8, 8, 0, 0),
            &[(b"tEXt", &text), (b"IDAT", &zlib_zeros(72))],
        );
        let e = Image::from_bytes(&png).unwrap_err();
        assert!(matches!(e, Error::TooLarge(_)), "{e:?}");
        assert!(e.to_string().contains("PNG metadata"), "{e}");
    }

    #[test]
    fn png_raw_sizes_count_filter_bytes_and_adam7_passes() {
        assert_eq!(png_raw_bytes(8, 8, 8, false), 8 * 9);
        // Passes of an 8x8 image: 1x1, 1x1, 2x1, 2x2, 4x2, 4x4, 8x4 pixels.
        assert_eq!(png_raw_bytes(8, 8, 8, true), 2 + 2 + 3 + 6 + 10 + 20 + 36);
        // A 1x1 image has a pixel in the first pass only; 1-bit rows round up to bytes.
        assert_eq!(png_raw_bytes(1, 1, 1, true), 2);
        assert_eq!(png_raw_bytes(9, 2, 1, false), 2 * 3);
        assert_eq!(png_raw_bytes(3, 1, 48, false), 1 + 18);
    }

    #[test]
    fn pnm_sizes_are_checked_before_allocating_and_never_overflow() {
        let cases: [(&[u8], &str); 4] = [
            // width x height x 3 overflows 64 bits.
            (
                b"P6\n4294967295 4294967295\n255\n",
                "more than 268435456 samples",
            ),
            (
                b"P5\n100000 100000\n65535\n\0\0",
                "more than 268435456 samples",
            ),
            (
                b"P5\n10000 10000\n255\n\0\0\0",
                "needs 100000000 bytes, the file has 3",
            ),
            (b"P6\n100 100\n65535\n", "needs 60000 bytes, the file has 0"),
        ];
        for (data, want) in cases {
            let e = Image::from_bytes(data).unwrap_err().to_string();
            assert!(e.contains(want), "{e:?} should mention {want:?}");
        }
        let e = Image::new(u32::MAX, u32::MAX, 3, 8, Vec::new()).unwrap_err();
        assert!(matches!(e, Error::TooLarge(_)), "{e:?}");

        // A header longer than the limit (a long comment) is said to be so.
        let mut long = b"P5\n#".to_vec();
        long.resize(MAX_PNM_HEADER as usize + 10, b'c');
        long.extend_from_slice(b"\n1 1\n255\n\x07");
        let e = Image::from_bytes(&long).unwrap_err().to_string();
        assert!(e.contains("header is longer than 65536 bytes"), "{e}");
        // Just inside it, the image is read.
        let mut ok = b"P5\n#".to_vec();
        ok.resize(MAX_PNM_HEADER as usize - 12, b'c');
        ok.extend_from_slice(b"\n1 1\n255\n\x07");
        assert_eq!(Image::from_bytes(&ok).unwrap().samples, vec![7]);
    }

    #[test]
    fn pipes_and_devices_are_read_as_data_arrives() {
        // /dev/zero never ends: the magic is checked first.
        let e = Image::read(Path::new("/dev/zero")).unwrap_err();
        assert!(matches!(e, Error::BadMagic { .. }), "{e:?}");
        assert!(e.to_string().contains("/dev/zero"), "{e}");

        // A PGM through a fifo (no length, no seeking).
        let dir = std::env::temp_dir().join(format!("parvlc-image-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("in.pgm");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo touches nothing else.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let img = Image::new(5, 3, 1, 8, (0..15).collect()).unwrap();
        let bytes = img.to_pnm();
        let path = fifo.clone();
        let writer = std::thread::spawn(move || std::fs::write(path, bytes).unwrap());
        assert_eq!(Image::read(&fifo).unwrap(), img);
        writer.join().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
