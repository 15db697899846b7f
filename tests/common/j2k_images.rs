//! Test images for the JPEG 2000 suites.

use parvlc::j2k::Image;

use super::rng::Rng;

#[derive(Clone, Copy, Debug)]
pub enum Content {
    Flat,
    Noise,
    Natural,
    /// The extremes of the range in a checkerboard, green opposite to red and blue: the
    /// largest wavelet and RCT chroma amplitudes (needs more than 2 guard bits).
    Checker,
}

/// A test image: flat (one value), noise (uniform over the full range) or natural-looking
/// (smooth gradients, a disc with a hard edge, a striped texture and a little noise).
pub fn make(w: u32, h: u32, comps: u32, depth: u32, content: Content, seed: u64) -> Image {
    let max = (1u32 << depth) - 1;
    let mut rng = Rng(seed);
    let mut samples = Vec::with_capacity((w * h * comps) as usize);
    for y in 0..h {
        for x in 0..w {
            for c in 0..comps {
                let v = match content {
                    Content::Flat => max / 3 + c,
                    Content::Noise => rng.next() % (max + 1),
                    Content::Checker => {
                        if ((x + y) % 2 == 0) == (c == 1) {
                            max
                        } else {
                            0
                        }
                    }
                    Content::Natural => {
                        let (fx, fy) = (x as f64 / w as f64, y as f64 / h as f64);
                        let grad = 0.15 + 0.45 * fx + 0.2 * fy * (c as f64 + 1.0) / 3.0;
                        let (dx, dy) = (fx - 0.4, fy - 0.55);
                        let disc = if dx * dx + dy * dy < 0.08 { 0.25 } else { 0.0 };
                        let stripes = if fx > 0.6 {
                            0.08 * ((x as f64 * 1.7 + y as f64 * 0.6 + c as f64).sin())
                        } else {
                            0.0
                        };
                        let noise = (rng.next() % 1000) as f64 / 1000.0 * 0.02;
                        let v = (grad + disc + stripes + noise).clamp(0.0, 1.0);
                        (v * max as f64).round() as u32
                    }
                };
                samples.push(v.min(max) as u16);
            }
        }
    }
    Image::new(w, h, comps, depth, samples).unwrap()
}
