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

mod png_input;
mod pnm_input;

use png_input::read_png;
use pnm_input::read_pnm;

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

#[cfg(test)]
mod tests {
    use super::png_input::png_raw_bytes;
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
