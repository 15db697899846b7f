//! The HT cleanup pass of one code-block (T.814's FBCOT cleanup), coding every
//! magnitude bit-plane at once: the lossless case, p = 0.
//!
//! The block is walked in quads (2x2 samples), quad rows top to bottom, each row in
//! pairs of quads left to right. For each quad:
//! - rho, its significance pattern (bit i: sample i in the order top-left, bottom-left,
//!   top-right, bottom-right), goes to the MEL alone when its context c_q is 0, else to
//!   the VLC as one CxtVLC codeword that also tells u_off (whether u follows) and some
//!   samples' top bits (e_k, e_1);
//! - each significant sample n has v_n = 2(mu_n - 1) + sign and an exponent E_n (the
//!   bits of 2 mu_n - 1); the quad's bound U_q = max(E_max, kappa_q), where kappa_q
//!   predicts from the row above; u_q = U_q - kappa_q goes to the VLC as a u code;
//! - v_n's low U_q bits (less the top bit where e_k tells it) go to MagSgn.

use super::mel::MelEncoder;
use super::streams::{merge, MagSgnWriter, VlcWriter};
use super::vlc::{ucode, Lookup, FIRST, MAX_U, OTHERS};
use crate::j2k::tier1::cpu::{MAX_AREA, MAX_SIDE};
use crate::j2k::tier1::{CodeBlockCoded, PassInfo};
use crate::{Error, Result};

/// The most magnitude bit-planes a code-block may have: what the decoders hold (30
/// magnitude bits in 32-bit samples), and it keeps u within [`MAX_U`].
pub const MAX_BITPLANES: u32 = 30;

/// The block's samples as the coder sees them: exponents and v values, row-major.
struct Samples {
    width: usize,
    height: usize,
    e: Vec<u32>,
    v: Vec<u32>,
}

impl Samples {
    fn e_at(&self, x: isize, y: usize) -> u32 {
        if x < 0 || x as usize >= self.width || y >= self.height {
            0
        } else {
            self.e[y * self.width + x as usize]
        }
    }

    fn sig(&self, x: isize, y: usize) -> bool {
        self.e_at(x, y) > 0
    }
}

/// One quad's coding decisions.
#[derive(Clone, Copy, Default)]
struct Quad {
    rho: u8,
    u: u32,
}

fn error(reason: String) -> Error {
    Error::corrupt("HT cleanup pass", reason)
}

/// Encode one code-block with a single HT cleanup pass. `coeffs` are `width * height`
/// signed integers (row-major); sides up to 1024, area up to 4096, magnitudes below
/// 2^[`MAX_BITPLANES`]. An all-zero block has no pass and no data.
pub fn encode(coeffs: &[i32], width: usize, height: usize) -> Result<CodeBlockCoded> {
    let num_bitplanes = check(coeffs, width, height)?;
    if num_bitplanes == 0 {
        return Ok(CodeBlockCoded::default());
    }
    let (mut e, mut v) = (vec![0; coeffs.len()], vec![0; coeffs.len()]);
    for (i, &c) in coeffs.iter().enumerate() {
        let mu = c.unsigned_abs();
        if mu != 0 {
            e[i] = 32 - (2 * mu - 1).leading_zeros();
            v[i] = 2 * (mu - 1) + (c < 0) as u32;
        }
    }
    let s = Samples {
        width,
        height,
        e,
        v,
    };
    let (mut mel, mut vlc, mut ms) = (
        MelEncoder::default(),
        VlcWriter::default(),
        MagSgnWriter::default(),
    );
    let quads_w = width.div_ceil(2);
    for qy in 0..height.div_ceil(2) {
        let mut left = 0u8;
        for qx in (0..quads_w).step_by(2) {
            let mut pair = [Quad::default(); 2];
            for (i, q) in pair.iter_mut().enumerate().take(quads_w - qx) {
                *q = code_quad(&s, qx + i, qy, left, &mut mel, &mut vlc, &mut ms)?;
                left = q.rho;
            }
            code_u_pair(qy == 0, pair[0].u, pair[1].u, &mut mel, &mut vlc);
        }
    }
    let data = merge(ms, mel.finish(), vlc)?;
    Ok(CodeBlockCoded {
        passes: vec![PassInfo {
            end: data.len() as u32,
            terminated: true,
        }],
        data,
        num_bitplanes,
    })
}

/// The checks of [`encode`] (shared with the GPU stage, so both refuse a block alike):
/// the block's magnitude bit-planes, 0 for an all-zero block.
pub(crate) fn check(coeffs: &[i32], width: usize, height: usize) -> Result<u32> {
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(Error::InvalidArgument(format!(
            "code-block {width}x{height}: sides must be 1..={MAX_SIDE}"
        )));
    }
    if width * height > MAX_AREA || coeffs.len() != width * height {
        return Err(Error::InvalidArgument(format!(
            "code-block {width}x{height} with {} coefficients (area at most {MAX_AREA})",
            coeffs.len()
        )));
    }
    let max = coeffs.iter().map(|c| c.unsigned_abs()).max().unwrap_or(0);
    let num_bitplanes = 32 - max.leading_zeros();
    if num_bitplanes > MAX_BITPLANES {
        return Err(Error::InvalidArgument(format!(
            "a coefficient of magnitude {max} needs {num_bitplanes} bit-planes; HT code-blocks hold at most {MAX_BITPLANES}"
        )));
    }
    Ok(num_bitplanes)
}

/// The quad's context c_q (0..8). First row: from the quad on the left (its left column,
/// its top-right, its bottom-right sample). Other rows: bit 0 the two samples above-left
/// and above, bit 1 the left quad's right column, bit 2 the two samples above-right.
fn context(s: &Samples, qx: usize, qy: usize, left_rho: u8) -> u8 {
    if qy == 0 {
        return (left_rho & 1) | (left_rho >> 1);
    }
    let (x, above) = (2 * qx as isize, 2 * qy - 1);
    let nw_n = s.sig(x - 1, above) || s.sig(x, above);
    let ne_nf = s.sig(x + 1, above) || s.sig(x + 2, above);
    let west = left_rho & 0b1100 != 0;
    nw_n as u8 | (west as u8) << 1 | (ne_nf as u8) << 2
}

fn code_quad(
    s: &Samples,
    qx: usize,
    qy: usize,
    left_rho: u8,
    mel: &mut MelEncoder,
    vlc: &mut VlcWriter,
    ms: &mut MagSgnWriter,
) -> Result<Quad> {
    let (x, y) = (2 * qx as isize, 2 * qy);
    let at = [(x, y), (x, y + 1), (x + 1, y), (x + 1, y + 1)];
    let e = at.map(|(x, y)| s.e_at(x, y));
    let rho = (0..4).fold(0u8, |r, n| r | ((e[n] > 0) as u8) << n);
    let e_max = e.iter().copied().max().unwrap_or(0);
    // kappa: 1, or in later rows for a quad with two or more significant samples, one
    // less than the largest exponent of the four samples above (at least 1).
    let kappa = if qy > 0 && rho.count_ones() > 1 {
        let above = (x - 1..=x + 2)
            .map(|xa| s.e_at(xa, y - 1))
            .max()
            .unwrap_or(0);
        above.saturating_sub(1).max(1)
    } else {
        1
    };
    let big_u = e_max.max(kappa);
    let u = big_u - kappa;
    if u > MAX_U {
        return Err(error(format!("u = {u} exceeds {MAX_U}")));
    }
    let eps = if u > 0 {
        (0..4).fold(0u8, |r, n| r | ((e[n] == big_u) as u8) << n)
    } else {
        0
    };
    let c_q = context(s, qx, qy, left_rho);
    if c_q == 0 {
        mel.encode(rho != 0);
    }
    let mut e_k = 0;
    if c_q != 0 || rho != 0 {
        let table: &Lookup = if qy == 0 { &FIRST } else { &OTHERS };
        let choice = table.get(c_q, rho, eps).ok_or_else(|| {
            error(format!(
                "no CxtVLC codeword for context {c_q}, rho {rho:#x}, EMB pattern {eps:#x}"
            ))
        })?;
        vlc.put_bits(choice.bits as u32, choice.len as u32);
        e_k = choice.e_k;
    }
    for (n, &(sx, sy)) in at.iter().enumerate() {
        if rho >> n & 1 == 1 {
            let m = big_u - ((e_k >> n) & 1) as u32;
            let v = s.v[sy * s.width + sx as usize];
            ms.put_bits(v & ((1u64 << m) - 1) as u32, m);
        }
    }
    Ok(Quad { rho, u })
}

/// The u values of a quad pair (0 where the quad has none or is missing). In the first
/// row, when both quads have u, a MEL event says whether both exceed 2: then each is
/// sent less 2, and if only the first does, the second (1 or 2) is one bit.
fn code_u_pair(first_row: bool, u0: u32, u1: u32, mel: &mut MelEncoder, vlc: &mut VlcWriter) {
    let (mut a, mut b) = (u0, u1);
    if first_row && u0 > 0 && u1 > 0 {
        let both_big = u0 > 2 && u1 > 2;
        mel.encode(both_big);
        if both_big {
            (a, b) = (u0 - 2, u1 - 2);
        } else if u0 > 2 {
            let c = ucode(u0);
            vlc.put_bits(c.prefix, c.prefix_len);
            vlc.put_bits(u1 - 1, 1);
            vlc.put_bits(c.suffix, c.suffix_len);
            return;
        }
    }
    let (ca, cb) = (ucode(a), ucode(b));
    vlc.put_bits(ca.prefix, ca.prefix_len);
    vlc.put_bits(cb.prefix, cb.prefix_len);
    vlc.put_bits(ca.suffix, ca.suffix_len);
    vlc.put_bits(cb.suffix, cb.suffix_len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sample_blocks_by_hand() {
        // c = 1: mu 1, v 0, E 1; U = kappa = 1, u 0. Context 0: MEL "0" (significant);
        // VLC "0110" (first row, rho 1, no u); MagSgn 1 bit (0), padded with 1s: 0xFE.
        // VLC byte: 0xF | 0,1,1,0 from bit 4 = 0x6F; MEL's "0" fits the byte between.
        // Scup = 1 + 2 = 3 in the last 12 bits.
        let c = encode(&[1], 1, 1).unwrap();
        assert_eq!(c.data, vec![0xFE, 0x00, 0x63, 0x00]);
        assert_eq!(c.num_bitplanes, 1);
        assert_eq!(
            c.passes,
            vec![PassInfo {
                end: 4,
                terminated: true
            }]
        );
        // c = -1: v 1, MagSgn "1" padded is 0xFF, which is left out.
        assert_eq!(encode(&[-1], 1, 1).unwrap().data, vec![0x00, 0x63, 0x00]);
        // c = 3: mu 3, v 4, E 3: U 3, u 2, eps 1 -> "1111110" (e_k 1), MagSgn 2 bits (00
        // -> 0xFC), u 2 is "01". VLC: 0xF + 111 -> 0x7F (stuffed); then 1110 01 -> 0x27
        // pending, fused with MEL's "0": Scup 3.
        assert_eq!(
            encode(&[3], 1, 1).unwrap().data,
            vec![0xFC, 0x27, 0x73, 0x00]
        );
    }

    #[test]
    fn zero_blocks_have_no_pass() {
        let c = encode(&[0; 12], 4, 3).unwrap();
        assert!(c.data.is_empty() && c.passes.is_empty() && c.num_bitplanes == 0);
    }

    #[test]
    fn bad_blocks_are_clear_errors() {
        let e = |r: Result<CodeBlockCoded>| r.unwrap_err().to_string();
        assert!(e(encode(&[], 0, 1)).contains("sides"));
        assert!(e(encode(&[0; 2048], 2048, 1)).contains("sides"));
        assert!(e(encode(&[0; 5000], 100, 50)).contains("area"));
        assert!(e(encode(&[0; 5], 2, 3)).contains("5 coefficients"));
        assert!(e(encode(&[1 << 30], 1, 1)).contains("at most 30"));
        assert!(encode(&[(1 << 30) - 1, -(1 << 30) + 1], 2, 1).is_ok());
    }
}
