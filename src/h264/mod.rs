//! A minimal intra-only H.264 encoder around CAVLC: Y4M 4:2:0 8-bit in, Annex B
//! Constrained Baseline out. Every picture is an IDR of intra macroblocks, I_16x16 or
//! I_4x4 by rate and distortion ([`LumaModes`]; 4x4 integer transform, luma and chroma
//! DC transforms, one QP with a coarser one per macroblock only where Baseline CAVLC
//! cannot code the levels), slices of whole macroblock rows, no deblocking, so the
//! decoder's output is exactly our reconstruction. CAVLC runs where the
//! [`crate::Engine`] given to [`Encoder::new`] does: on the GPU stages, or the CPU
//! reference.
//!
//! Sizes: the coded picture is padded to whole macroblocks (edge samples repeated) and
//! cropped back in the SPS. 4:2:0 crops in units of 2, so an odd width or height is
//! coded and displayed one sample larger (the last column or row repeated); the
//! reconstruction we return has that display size, the size decoders output.

pub mod bits;
pub mod intra;
pub mod intra4x4;
pub mod macroblock;
pub mod nal;
pub mod predict;
pub mod predict4x4;
pub mod rate;
pub mod slices;
pub mod stream;
pub mod syntax;
pub mod transform;
pub mod y4m;
#[cfg(not(target_arch = "wasm32"))]
pub mod y4m_file;

pub use macroblock::LumaModes;
pub use slices::encode_picture_levels;
pub use stream::{
    cpu_slice_data, default_depth, write_picture, Encoded, Encoder, EncoderConfig, FrontEnd,
};

use crate::{Error, Result};

/// Largest width or height accepted (H.264 levels stop near 8192; this leaves room).
pub const MAX_DIMENSION: u32 = 16384;

/// An 8-bit 4:2:0 picture: planes Y (`width * height`), U and V (each
/// `ceil(width / 2) * ceil(height / 2)`), rows without padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    pub width: u32,
    pub height: u32,
    pub y: Vec<u8>,
    pub u: Vec<u8>,
    pub v: Vec<u8>,
}

impl Picture {
    /// A mid-grey picture.
    pub fn new(width: u32, height: u32) -> Picture {
        let (cw, ch) = chroma_size(width, height);
        Picture {
            width,
            height,
            y: vec![128; width as usize * height as usize],
            u: vec![128; cw as usize * ch as usize],
            v: vec![128; cw as usize * ch as usize],
        }
    }
    /// Width and height of the chroma planes.
    pub fn chroma_size(&self) -> (u32, u32) {
        chroma_size(self.width, self.height)
    }
    /// Bytes of one raw yuv420p frame of this size.
    pub fn frame_bytes(width: u32, height: u32) -> usize {
        let (cw, ch) = chroma_size(width, height);
        width as usize * height as usize + 2 * cw as usize * ch as usize
    }
    /// The planes one after the other: a raw yuv420p frame.
    pub fn to_yuv420p(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.y.len() + 2 * self.u.len());
        out.extend_from_slice(&self.y);
        out.extend_from_slice(&self.u);
        out.extend_from_slice(&self.v);
        out
    }
    /// Plane sizes match the dimensions, and the dimensions are codable.
    pub fn validate(&self) -> Result<()> {
        Geometry::new(self.width, self.height)?;
        let (cw, ch) = self.chroma_size();
        let (ny, nc) = (
            self.width as usize * self.height as usize,
            cw as usize * ch as usize,
        );
        if self.y.len() != ny || self.u.len() != nc || self.v.len() != nc {
            return Err(Error::InvalidArgument(format!(
                "a {}x{} 4:2:0 picture needs planes of {ny}, {nc} and {nc} bytes, got {}, {} and {}",
                self.width,
                self.height,
                self.y.len(),
                self.u.len(),
                self.v.len()
            )));
        }
        Ok(())
    }
}

fn chroma_size(width: u32, height: u32) -> (u32, u32) {
    (width.div_ceil(2), height.div_ceil(2))
}

/// The sizes of a coded picture: source, display (source rounded up to even) and
/// macroblocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub width: u32,
    pub height: u32,
    pub display_width: u32,
    pub display_height: u32,
    pub width_mbs: u32,
    pub height_mbs: u32,
}

impl Geometry {
    pub fn new(width: u32, height: u32) -> Result<Geometry> {
        if width == 0 || height == 0 || width > MAX_DIMENSION || height > MAX_DIMENSION {
            return Err(Error::InvalidArgument(format!(
                "picture size {width}x{height}: width and height must be 1..={MAX_DIMENSION}"
            )));
        }
        y4m::check_level_limits(width, height, "picture")?;
        Ok(Geometry {
            width,
            height,
            display_width: width.next_multiple_of(2),
            display_height: height.next_multiple_of(2),
            width_mbs: width.div_ceil(16),
            height_mbs: height.div_ceil(16),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_holds_every_caller_to_the_level_limit() {
        assert!(Geometry::new(8192, 4352).is_ok(), "139,264 macroblocks");
        let e = Geometry::new(8192, 4368).unwrap_err();
        assert!(matches!(e, Error::TooLarge(_)), "{e}");
        assert!(Geometry::new(16384, 16384).is_err());
        assert!(Geometry::new(1, 1).is_ok());
    }
}
