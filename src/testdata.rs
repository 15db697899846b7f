//! Deterministic synthetic data of a chosen entropy, for tests, `demo` and `bench`.

/// splitmix64: small, fast, and the same on every platform.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n.
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

/// Probabilities of a geometric distribution over 256 symbols, p_i ∝ r^i, with Shannon
/// entropy close to `bits` (0..=8).
fn geometric_with_entropy(bits: f64) -> Vec<f64> {
    let entropy = |r: f64| {
        let w: Vec<f64> = (0..256).map(|i| r.powi(i)).collect();
        let sum: f64 = w.iter().sum();
        -w.iter()
            .map(|x| x / sum)
            .filter(|&p| p > 0.0)
            .map(|p| p * p.log2())
            .sum::<f64>()
    };
    let (mut lo, mut hi) = (1e-9f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if entropy(mid) < bits {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let w: Vec<f64> = (0..256).map(|i| lo.powi(i)).collect();
    let sum: f64 = w.iter().sum();
    w.into_iter().map(|x| x / sum).collect()
}

/// `len` bytes with about `entropy_bits` bits of entropy per byte (0 gives one repeated
/// byte, 8 uniform bytes); symbols are shuffled so the frequent ones are not 0, 1, 2...
pub fn generate(len: usize, entropy_bits: f64, seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64(seed ^ 0x5EED_0000);
    let mut out = vec![0u8; len];
    if entropy_bits >= 8.0 {
        rng.fill(&mut out);
        return out;
    }
    let mut symbols: Vec<u8> = (0..=255).collect();
    for i in (1..256).rev() {
        symbols.swap(i, rng.below(i as u64 + 1) as usize);
    }
    if entropy_bits <= 0.0 {
        out.fill(symbols[0]);
        return out;
    }
    // 16-bit lookup table from the CDF: one table read per byte.
    let p = geometric_with_entropy(entropy_bits);
    let mut lut = vec![0u8; 1 << 16];
    let mut acc = 0.0;
    let mut at = 0usize;
    for (i, &pi) in p.iter().enumerate() {
        acc += pi;
        let end = ((acc * 65536.0).round() as usize).min(65536);
        lut[at..end.max(at)].fill(symbols[i]);
        at = end.max(at);
    }
    lut[at..].fill(symbols[0]);
    // Independent streams per 1 MiB piece: deterministic, and fast for 1 GiB inputs.
    use rayon::prelude::*;
    let base = rng.next_u64();
    out.par_chunks_mut(1 << 20)
        .enumerate()
        .for_each(|(i, piece)| {
            let mut rng = SplitMix64(base ^ (i as u64).wrapping_mul(0xA24B_AED4_963E_E407));
            for chunk in piece.chunks_mut(4) {
                let r = rng.next_u64();
                for (k, b) in chunk.iter_mut().enumerate() {
                    *b = lut[((r >> (16 * k)) & 0xffff) as usize];
                }
            }
        });
    out
}

/// Shannon entropy of a byte histogram, bits per byte.
pub fn entropy(hist: &[u64; 256]) -> f64 {
    let n: u64 = hist.iter().sum();
    if n == 0 {
        return 0.0;
    }
    hist.iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

/// A natural-looking 8-bit RGB picture, interleaved in raster order: smooth gradients,
/// a few hard-edged shapes, a periodic texture and a little noise. Deterministic in
/// `seed`; for the JPEG 2000 benchmark and tests.
pub fn synthetic_rgb(width: u32, height: u32, seed: u64) -> Vec<u16> {
    use rayon::prelude::*;
    let (w, h) = (width as usize, height as usize);
    let mut out = vec![0u16; w * h * 3];
    let fw = width.max(1) as f32;
    let fh = height.max(1) as f32;
    out.par_chunks_mut((w * 3).max(1))
        .enumerate()
        .for_each(|(y, row)| {
            let mut rng = SplitMix64(seed ^ (y as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let v = y as f32 / fh;
            for x in 0..w {
                let u = x as f32 / fw;
                // Sky-to-ground gradients per channel.
                let mut rgb = [
                    40.0 + 150.0 * v + 40.0 * u,
                    80.0 + 100.0 * (1.0 - v) + 20.0 * (u * 6.0).sin(),
                    200.0 - 120.0 * v,
                ];
                // Hard-edged shapes: a disc and a slanted band.
                let (dx, dy) = (u - 0.3, v - 0.4);
                if dx * dx + dy * dy < 0.02 {
                    rgb = [220.0, 60.0 + 30.0 * v, 40.0];
                }
                if ((u + 0.5 * v) * 5.0).fract() < 0.12 {
                    rgb[0] *= 0.4;
                    rgb[1] *= 0.5;
                }
                // Texture on the lower half (grass-like), then noise everywhere.
                if v > 0.55 {
                    let t = ((x as f32 * 0.9).sin() * (y as f32 * 1.3).cos()) * 18.0;
                    rgb[1] += t;
                    rgb[0] += t * 0.5;
                }
                for (k, c) in rgb.iter().enumerate() {
                    let noise = rng.below(9) as f32 - 4.0;
                    row[x * 3 + k] = (c + noise).clamp(0.0, 255.0) as u16;
                }
            }
        });
    out
}
