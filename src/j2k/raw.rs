//! Raw planar or packed frames, one after another in a file with no header (what
//! `ffmpeg -f rawvideo -pix_fmt FORMAT` writes, and what a camera or a renderer dumps): a
//! sequence whose size and pixel format are given, each frame read at its offset.
//!
//! Formats, by FFmpeg's names: `gray`, `gray10le`, `gray12le`, `gray16le` (one
//! component); `rgb24`, `rgb48le` (R, G, B interleaved); `gbrp`, `gbrp10le`, `gbrp12le`,
//! `gbrp16le` (planes in the order G, B, R). Samples of more than 8 bits are 16-bit
//! little-endian words; a 10- or 12-bit sample above its range is an error naming the frame.

use std::path::{Path, PathBuf};

use super::Image;
use crate::{Error, Result};

/// How a raw frame holds its samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawFormat {
    pub components: u32,
    pub bit_depth: u32,
    /// Planes G, B, R one after another (`gbrp*`), else samples interleaved by pixel.
    pub planar: bool,
}

/// FFmpeg's names of the formats read.
const NAMES: [(&str, u32, u32, bool); 10] = [
    ("gray", 1, 8, false),
    ("gray10le", 1, 10, false),
    ("gray12le", 1, 12, false),
    ("gray16le", 1, 16, false),
    ("rgb24", 3, 8, false),
    ("rgb48le", 3, 16, false),
    ("gbrp", 3, 8, true),
    ("gbrp10le", 3, 10, true),
    ("gbrp12le", 3, 12, true),
    ("gbrp16le", 3, 16, true),
];

impl std::str::FromStr for RawFormat {
    type Err = Error;
    fn from_str(s: &str) -> Result<RawFormat> {
        NAMES
            .iter()
            .find(|n| n.0 == s)
            .map(|&(_, components, bit_depth, planar)| RawFormat {
                components,
                bit_depth,
                planar,
            })
            .ok_or_else(|| {
                let names: Vec<&str> = NAMES.iter().map(|n| n.0).collect();
                Error::InvalidArgument(format!(
                    "raw pixel format `{s}`: one of {}",
                    names.join(", ")
                ))
            })
    }
}

impl RawFormat {
    /// Bytes of one sample.
    pub fn sample_bytes(&self) -> u64 {
        if self.bit_depth > 8 {
            2
        } else {
            1
        }
    }

    /// Bytes of one `width` x `height` frame.
    pub fn frame_bytes(&self, width: u32, height: u32) -> u64 {
        width as u64 * height as u64 * self.components as u64 * self.sample_bytes()
    }

    /// The image a frame's bytes hold (exactly [`Self::frame_bytes`] of them).
    pub fn image(&self, width: u32, height: u32, bytes: &[u8]) -> Result<Image> {
        let n = (width as usize) * (height as usize) * self.components as usize;
        if bytes.len() as u64 != self.frame_bytes(width, height) {
            return Err(Error::InvalidArgument(format!(
                "a {width}x{height} frame takes {} bytes, not {}",
                self.frame_bytes(width, height),
                bytes.len()
            )));
        }
        let sample = |i: usize| -> u16 {
            match self.sample_bytes() {
                1 => bytes[i] as u16,
                _ => u16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]),
            }
        };
        let samples: Vec<u16> = if self.planar {
            // Planes G, B, R; the image interleaves R, G, B.
            let plane = (width as usize) * (height as usize);
            (0..n)
                .map(|i| {
                    let (pixel, c) = (i / 3, i % 3);
                    sample([2, 0, 1][c] * plane + pixel)
                })
                .collect()
        } else {
            (0..n).map(sample).collect()
        };
        Image::new(width, height, self.components, self.bit_depth, samples)
    }
}

/// A file of raw frames of one size and format.
pub struct RawFrames {
    path: PathBuf,
    file: std::fs::File,
    pub width: u32,
    pub height: u32,
    pub format: RawFormat,
    /// Frames in the file.
    pub frames: u64,
}

impl RawFrames {
    /// Open `path`; its size must be a whole number of frames (at least one).
    pub fn open(path: &Path, width: u32, height: u32, format: RawFormat) -> Result<RawFrames> {
        if width == 0 || height == 0 {
            return Err(Error::InvalidArgument(format!(
                "raw frames of {width}x{height}: zero-sized"
            )));
        }
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let frame = format.frame_bytes(width, height);
        if size == 0 || !size.is_multiple_of(frame) {
            return Err(Error::InvalidArgument(format!(
                "{}: {size} bytes is not a whole number of {width}x{height} frames of {frame} bytes",
                path.display()
            )));
        }
        Ok(RawFrames {
            path: path.to_path_buf(),
            file,
            width,
            height,
            format,
            frames: size / frame,
        })
    }

    /// The file the frames are read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Frame `k` (positional: frames may be read from several threads at once).
    pub fn frame(&self, k: u64) -> Result<Image> {
        let bytes = self.format.frame_bytes(self.width, self.height);
        let mut buf = vec![0u8; bytes as usize];
        let got = crate::huffman::pipeline::read_full_at(&self.file, &mut buf, k * bytes).map_err(
            |e| match e {
                Error::ReadInput(e) => Error::io(&self.path, e),
                other => other,
            },
        )?;
        if got != buf.len() {
            return Err(Error::InvalidArgument(format!(
                "{}: frame {k} is cut short",
                self.path.display()
            )));
        }
        self.format
            .image(self.width, self.height, &buf)
            .map_err(|e| Error::InvalidArgument(format!("{}, frame {k}: {e}", self.path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_name_and_their_samples() {
        let rgb: RawFormat = "rgb24".parse().unwrap();
        let img = rgb.image(2, 1, &[1, 2, 3, 4, 5, 6]).unwrap();
        assert_eq!(img.samples, [1, 2, 3, 4, 5, 6]);
        let gbrp: RawFormat = "gbrp".parse().unwrap();
        // G plane [2, 5], B plane [3, 6], R plane [1, 4]: pixels (1, 2, 3) and (4, 5, 6).
        let img = gbrp.image(2, 1, &[2, 5, 3, 6, 1, 4]).unwrap();
        assert_eq!(img.samples, [1, 2, 3, 4, 5, 6]);
        let g12: RawFormat = "gray12le".parse().unwrap();
        let img = g12.image(2, 1, &[0xff, 0x0f, 0x01, 0x00]).unwrap();
        assert_eq!((img.bit_depth, img.samples.clone()), (12, vec![4095, 1]));
        assert!(g12.image(1, 1, &[0x00, 0x10]).is_err(), "4096 in 12 bits");
        assert!(g12.image(1, 1, &[0x00]).is_err(), "a short frame");
        assert!("yuv420p".parse::<RawFormat>().is_err());
        assert_eq!(
            "rgb48le".parse::<RawFormat>().unwrap().frame_bytes(3, 2),
            36
        );
    }
}
