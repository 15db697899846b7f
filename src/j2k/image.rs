//! Input images of the JPEG 2000 encoder: binary PGM/PPM (P5/P6) and PNG.
//!
//! Conversions: a PNM's bit depth is the number of bits of its maxval (255 -> 8,
//! 1023 -> 10, 65535 -> 16); palette PNGs are expanded to RGB; grey PNGs of 1, 2 or 4 bits
//! keep that depth. Alpha (an alpha channel or a tRNS chunk) is refused: this encoder
//! writes grey or RGB only.

use std::path::Path;

use crate::{Error, Result};

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

impl Image {
    /// Check the shape and every sample; the one way to build an image.
    pub fn new(
        width: u32,
        height: u32,
        components: u32,
        bit_depth: u32,
        samples: Vec<u16>,
    ) -> Result<Image> {
        if width == 0 || height == 0 {
            return Err(Error::InvalidArgument(format!(
                "image is {width}x{height}: zero-sized images cannot be encoded"
            )));
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
        let n = width as u64 * height as u64 * components as u64;
        if samples.len() as u64 != n {
            return Err(Error::InvalidArgument(format!(
                "{width}x{height}x{components} image needs {n} samples, got {}",
                samples.len()
            )));
        }
        let max = ((1u32 << bit_depth) - 1) as u16;
        if let Some(i) = samples.iter().position(|&s| s > max) {
            return Err(Error::InvalidArgument(format!(
                "sample {i} is {} but a {bit_depth}-bit image allows at most {max}",
                samples[i]
            )));
        }
        Ok(Image {
            width,
            height,
            components,
            bit_depth,
            samples,
        })
    }

    /// Read a PGM, PPM or PNG file (chosen by its magic bytes, not its name).
    pub fn read(path: &Path) -> Result<Image> {
        let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Image::from_bytes(&data).map_err(|e| match e {
            Error::Corrupt { format, reason } => Error::Corrupt {
                format,
                reason: format!("{}: {reason}", path.display()),
            },
            Error::BadMagic { format, reason } => Error::BadMagic {
                format,
                reason: format!("{}: {reason}", path.display()),
            },
            Error::InvalidArgument(m) => Error::InvalidArgument(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Parse a PGM/PPM (P5/P6) or PNG held in memory.
    pub fn from_bytes(data: &[u8]) -> Result<Image> {
        if data.starts_with(b"\x89PNG\r\n\x1a\n") {
            return read_png(data);
        }
        match data.get(..2) {
            Some(b"P5") => read_pnm(data, 1),
            Some(b"P6") => read_pnm(data, 3),
            Some([b'P', b'1'..=b'4' | b'7']) => Err(Error::BadMagic {
                format: "PGM/PPM/PNG",
                reason: format!(
                    "{} is a netpbm kind this encoder does not read (only binary P5 and P6)",
                    String::from_utf8_lossy(&data[..2])
                ),
            }),
            _ => Err(Error::BadMagic {
                format: "PGM/PPM/PNG",
                reason: "neither P5, P6 nor the PNG signature at the start".into(),
            }),
        }
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

/// The header of a PNM: tokens separated by whitespace, `#` comments to the end of a
/// line, and exactly one whitespace byte before the raster.
fn read_pnm(data: &[u8], components: u32) -> Result<Image> {
    let corrupt = |m: String| Error::corrupt("PGM/PPM", m);
    let mut pos = 2;
    let mut fields = [0u32; 3];
    for (i, name) in ["width", "height", "maxval"].iter().enumerate() {
        // Whitespace and comments before the token (at least one separator).
        let start = pos;
        loop {
            match data.get(pos) {
                Some(b'#') => {
                    while data.get(pos).is_some_and(|&b| b != b'\n' && b != b'\r') {
                        pos += 1;
                    }
                }
                Some(b) if b.is_ascii_whitespace() => pos += 1,
                _ => break,
            }
        }
        if pos >= data.len() {
            return Err(corrupt(format!(
                "header ends before the {name} (truncated file)"
            )));
        }
        if pos == start {
            return Err(corrupt(format!("no whitespace before the {name}")));
        }
        let digits = data[pos..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            return Err(corrupt(format!("{name} is not a decimal number")));
        }
        let text = std::str::from_utf8(&data[pos..pos + digits]).unwrap_or("");
        fields[i] = text
            .parse()
            .map_err(|_| corrupt(format!("{name} {text} is too large")))?;
        pos += digits;
    }
    match data.get(pos) {
        Some(b) if b.is_ascii_whitespace() => pos += 1,
        None => {
            return Err(corrupt(
                "file ends after the maxval (truncated file)".into(),
            ))
        }
        Some(_) => return Err(corrupt("no whitespace after the maxval".into())),
    }
    let [width, height, maxval] = fields;
    if width == 0 || height == 0 {
        return Err(Error::InvalidArgument(format!(
            "image is {width}x{height}: zero-sized images cannot be encoded"
        )));
    }
    if !(1..=65535).contains(&maxval) {
        return Err(corrupt(format!("maxval {maxval} is not in 1..=65535")));
    }
    let bytes_per = if maxval > 255 { 2 } else { 1 };
    let n = width as u64 * height as u64 * components as u64;
    let need = n * bytes_per;
    let have = (data.len() - pos) as u64;
    if have < need {
        return Err(corrupt(format!(
            "{width}x{height} raster needs {need} bytes, the file has {have} (truncated file)"
        )));
    }
    let raster = &data[pos..pos + need as usize];
    let samples: Vec<u16> = if bytes_per == 2 {
        raster
            .chunks_exact(2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .collect()
    } else {
        raster.iter().map(|&b| b as u16).collect()
    };
    if let Some(i) = samples.iter().position(|&s| s as u32 > maxval) {
        return Err(corrupt(format!(
            "sample {i} is {} but maxval is {maxval}",
            samples[i]
        )));
    }
    let bit_depth = 32 - maxval.leading_zeros();
    Image::new(width, height, components, bit_depth, samples)
}

fn read_png(data: &[u8]) -> Result<Image> {
    let png_err = |e: png::DecodingError| Error::corrupt("PNG", e.to_string());
    let mut decoder = png::Decoder::new(std::io::Cursor::new(data));
    decoder.set_transformations(png::Transformations::IDENTITY);
    let header = decoder.read_header_info().map_err(png_err)?;
    let (width, height) = (header.width, header.height);
    if width == 0 || height == 0 {
        return Err(Error::InvalidArgument(format!(
            "image is {width}x{height}: zero-sized images cannot be encoded"
        )));
    }
    let indexed = header.color_type == png::ColorType::Indexed;
    if indexed {
        // Palette entries become RGB samples, 8 bits each.
        decoder.set_transformations(png::Transformations::EXPAND);
    }
    let mut reader = decoder.read_info().map_err(png_err)?;
    if reader.info().trns.is_some() {
        return Err(Error::InvalidArgument(
            "PNG has transparency (tRNS); alpha is not supported: flatten the image first".into(),
        ));
    }
    let (color, depth) = reader.output_color_type();
    let components = match color {
        png::ColorType::Grayscale => 1,
        png::ColorType::Rgb => 3,
        png::ColorType::GrayscaleAlpha | png::ColorType::Rgba => {
            return Err(Error::InvalidArgument(
                "PNG has an alpha channel; alpha is not supported: flatten the image first".into(),
            ))
        }
        png::ColorType::Indexed => {
            return Err(Error::InvalidArgument(
                "PNG palette could not be expanded".into(),
            ))
        }
    };
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
}
