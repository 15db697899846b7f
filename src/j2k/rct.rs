//! DC level shift and the reversible colour transform (ITU-T T.800 G.1.2, G.2.1).

use super::image::Image;

/// The image's components as signed planes: each sample minus `2^(bit_depth-1)`, and for
/// RGB the RCT (Y = floor((R + 2G + B) / 4), U = B - G, V = R - G), which is what a
/// decoder undoes when COD signals MCT = 1.
pub fn forward(image: &Image) -> Vec<Vec<i32>> {
    let shift = 1i32 << (image.bit_depth - 1);
    let level = |c: u32| -> Vec<i32> {
        image
            .plane(c)
            .into_iter()
            .map(|s| s as i32 - shift)
            .collect()
    };
    if image.components == 1 {
        return vec![level(0)];
    }
    let (r, g, b) = (level(0), level(1), level(2));
    let y = (0..r.len())
        .map(|i| (r[i] + 2 * g[i] + b[i]).div_euclid(4))
        .collect();
    let u = (0..r.len()).map(|i| b[i] - g[i]).collect();
    let v = (0..r.len()).map(|i| r[i] - g[i]).collect();
    vec![y, u, v]
}

/// The inverse of [`forward`] (for tests): planes back to interleaved samples.
pub fn inverse(planes: &[Vec<i32>], bit_depth: u32) -> Vec<u16> {
    let shift = 1i32 << (bit_depth - 1);
    let n = planes[0].len();
    let mut out = Vec::with_capacity(n * planes.len());
    for i in 0..n {
        if planes.len() == 1 {
            out.push((planes[0][i] + shift) as u16);
        } else {
            let (y, u, v) = (planes[0][i], planes[1][i], planes[2][i]);
            let g = y - (u + v).div_euclid(4);
            for s in [v + g, g, u + g] {
                out.push((s + shift) as u16);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rct_hand_values_and_round_trip() {
        // R=255, G=0, B=10 at 8 bits: shifted 127, -128, -118.
        let img = Image::new(1, 1, 3, 8, vec![255, 0, 10]).unwrap();
        let p = forward(&img);
        assert_eq!(p[0], vec![(127 - 256 - 118i32).div_euclid(4)]);
        assert_eq!(p[0], vec![-62]);
        assert_eq!((p[1][0], p[2][0]), (10, 255));
        let mut state = 99u64;
        for depth in [1, 8, 12, 16] {
            let max = (1u32 << depth) - 1;
            let samples: Vec<u16> = (0..300)
                .map(|i| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    match i % 5 {
                        0 => 0,
                        1 => max as u16,
                        _ => ((state >> 33) as u32 % (max + 1)) as u16,
                    }
                })
                .collect();
            let img = Image::new(10, 10, 3, depth, samples.clone()).unwrap();
            assert_eq!(inverse(&forward(&img), depth), samples, "depth {depth}");
            let grey = Image::new(30, 10, 1, depth, samples.clone()).unwrap();
            assert_eq!(inverse(&forward(&grey), depth), samples);
        }
    }
}
