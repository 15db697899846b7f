//! CPU reference CAVLC for the residual blocks of 4:2:0 Baseline (Rec. ITU-T H.264
//! clause 7.3.5.3.2 residual_block_cavlc, clause 9.2), and a decoder for checking it.

use super::tables::{self, CoeffTokenTable, Vlc};
use crate::bits::{BitSink, MsbWriter};
use crate::{Error, Result};

/// MSB-first bit reader over `bytes` holding `bits` bits.
#[derive(Clone, Debug)]
pub struct BitReader<'a> {
    bytes: &'a [u8],
    bits: u64,
    pos: u64,
}

impl<'a> BitReader<'a> {
    pub fn new(bytes: &'a [u8], bits: u64) -> BitReader<'a> {
        let bits = bits.min(bytes.len() as u64 * 8);
        BitReader {
            bytes,
            bits,
            pos: 0,
        }
    }
    /// Bits consumed so far.
    pub fn position(&self) -> u64 {
        self.pos
    }
    pub fn bit(&mut self) -> Result<u32> {
        if self.pos >= self.bits {
            return Err(corrupt("bit stream ends inside a block".into()));
        }
        let b = (self.bytes[(self.pos / 8) as usize] >> (7 - self.pos % 8)) & 1;
        self.pos += 1;
        Ok(b as u32)
    }
    pub fn read(&mut self, len: u32) -> Result<u32> {
        let mut v = 0;
        for _ in 0..len {
            v = (v << 1) | self.bit()?;
        }
        Ok(v)
    }
    /// Read one codeword of `codes` (a prefix-free list); its index.
    fn read_vlc<I: IntoIterator<Item = (usize, Vlc)> + Clone>(
        &mut self,
        codes: I,
        what: &str,
    ) -> Result<usize> {
        let (mut code, mut len) = (0u32, 0u8);
        while len < 16 {
            code = (code << 1) | self.bit()?;
            len += 1;
            if let Some((i, _)) = codes
                .clone()
                .into_iter()
                .find(|(_, c)| c.len == len && c.code as u32 == code)
            {
                return Ok(i);
            }
        }
        Err(corrupt(format!("no {what} codeword matches")))
    }
}

/// The residual block kinds of 4:2:0 Baseline (clause 7.3.5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// Intra16x16DCLevel: 16 coefficients.
    Intra16x16DC,
    /// Intra16x16ACLevel: 15 coefficients.
    Intra16x16AC,
    /// LumaLevel4x4: 16 coefficients.
    Luma4x4,
    /// ChromaDCLevel (4:2:0): 4 coefficients, nC = -1.
    ChromaDC,
    /// ChromaACLevel: 15 coefficients.
    ChromaAC,
}

impl BlockKind {
    pub const ALL: [BlockKind; 5] = [
        BlockKind::Intra16x16DC,
        BlockKind::Intra16x16AC,
        BlockKind::Luma4x4,
        BlockKind::ChromaDC,
        BlockKind::ChromaAC,
    ];
    /// maxNumCoeff.
    pub fn max_coeffs(self) -> usize {
        match self {
            BlockKind::Intra16x16DC | BlockKind::Luma4x4 => 16,
            BlockKind::Intra16x16AC | BlockKind::ChromaAC => 15,
            BlockKind::ChromaDC => 4,
        }
    }
    /// The coeff_token table for this kind and `nc` (chroma DC must have nC = -1, the
    /// others nC >= 0).
    fn table(self, nc: i32) -> Result<CoeffTokenTable> {
        let ok = if self == BlockKind::ChromaDC {
            nc == -1
        } else {
            nc >= 0
        };
        match CoeffTokenTable::for_nc(nc) {
            Some(t) if ok => Ok(t),
            _ => Err(invalid(format!(
                "nC {nc} is not valid for a {self:?} block (chroma DC takes -1, others >= 0)"
            ))),
        }
    }
}

/// nC from the TotalCoeff of the left (`n_a`) and upper (`n_b`) neighbouring blocks, when
/// available (clause 9.2.1): both: (nA + nB + 1) >> 1; one: that one; none: 0.
pub fn nc_from_neighbours(n_a: Option<u8>, n_b: Option<u8>) -> i32 {
    match (n_a, n_b) {
        (Some(a), Some(b)) => (a as i32 + b as i32 + 1) >> 1,
        (Some(a), None) => a as i32,
        (None, Some(b)) => b as i32,
        (None, None) => 0,
    }
}

/// Largest level_prefix that Baseline (and Main, Extended) allow (clause 9.2.2.1).
pub const MAX_LEVEL_PREFIX: u32 = 15;

/// Encode one residual block (`coeffs` in scan order, exactly `kind.max_coeffs()` long)
/// with nC `nc` (-1 for chroma DC); returns TotalCoeff (the block's nA/nB for its
/// neighbours). On error nothing has been written to `out`.
///
/// A level whose level_prefix would exceed 15 gives [`Error::CavlcLevelTooLarge`]: the
/// caller should requantize the block (coarser QP); no bits are produced for it.
pub fn encode_residual_block(
    coeffs: &[i32],
    kind: BlockKind,
    nc: i32,
    out: &mut MsbWriter,
) -> Result<u8> {
    // Build into a scratch writer so that an error leaves `out` untouched.
    let mut w = MsbWriter::new();
    let total_coeff = code_residual_block(coeffs, kind, nc, &mut w)?;
    out.append(&w);
    Ok(total_coeff)
}

/// The bits [`encode_residual_block`] would write for this block, counted without
/// writing them (an encoder's rate estimate); the same errors.
pub fn residual_block_bits(coeffs: &[i32], kind: BlockKind, nc: i32) -> Result<u32> {
    let mut count = BitCount(0);
    code_residual_block(coeffs, kind, nc, &mut count)?;
    Ok(count.0)
}

/// [`residual_block_bits`] of a block of any kind but chroma DC (16 coefficients, or 15
/// for the AC kinds; `nc` >= 0), from length tables and with no error path: the count of
/// an encoder's mode decision, which tries a block many times. 0 where the other gives
/// an error (a level too large, a negative `nc`, another length).
pub fn block_bits_nc(coeffs: &[i32], nc: i32) -> u32 {
    let l = &tables::VLC_LENGTHS;
    let Some(table) = length_table(nc) else {
        return 0;
    };
    let max = coeffs.len();
    if max != 15 && max != 16 {
        return 0;
    }
    let mut mask = 0u32;
    for (i, &c) in coeffs.iter().enumerate() {
        mask |= ((c != 0) as u32) << i;
    }
    if mask == 0 {
        return l.coeff_token[table][0][0] as u32;
    }
    let total_coeff = mask.count_ones() as usize;
    let total_zeros = 32 - mask.leading_zeros() as usize - total_coeff;
    let mut bits = 0u32;
    // Levels from the last nonzero one down; TrailingOnes are the first up to three
    // of them equal to +-1.
    let mut rest = mask;
    let mut trailing_ones = 0usize;
    let mut suffix_length = 0u32;
    for k in 0..total_coeff {
        let i = 31 - rest.leading_zeros();
        rest ^= 1 << i;
        let level = coeffs[i as usize];
        let magnitude = level.unsigned_abs();
        if k == trailing_ones && trailing_ones < 3 && magnitude == 1 {
            trailing_ones += 1;
            bits += 1;
            continue;
        }
        if k == trailing_ones {
            // The first level after the trailing ones: their count is final.
            suffix_length = (total_coeff > 10 && trailing_ones < 3) as u32;
        }
        let mut level_code = 2 * magnitude as u64 - if level > 0 { 2 } else { 1 };
        if k == trailing_ones && trailing_ones < 3 {
            level_code -= 2;
        }
        if suffix_length == 0 {
            bits += if level_code < 14 {
                level_code as u32 + 1
            } else if level_code < 30 {
                19
            } else if level_code - 30 < 1 << 12 {
                28
            } else {
                return 0;
            };
        } else if level_code < 15 << suffix_length {
            bits += (level_code >> suffix_length) as u32 + 1 + suffix_length;
        } else if level_code - (15 << suffix_length) < 1 << 12 {
            bits += 28;
        } else {
            return 0;
        }
        if suffix_length == 0 {
            suffix_length = 1;
        }
        if magnitude > (3 << (suffix_length - 1)) && suffix_length < 6 {
            suffix_length += 1;
        }
    }
    bits += l.coeff_token[table][total_coeff][trailing_ones] as u32;
    if total_coeff < max {
        bits += l.total_zeros[total_coeff - 1][total_zeros] as u32;
    }
    bits + run_before_bits(mask)
}

/// The run_before bits of a 4x4 block whose nonzero levels are `mask` (bit `i`: the
/// level at position `i` of those counted): each level's but the lowest, while zeros are
/// left below it. A table of it by mask serves the GPU's count (h264/rate.wgsl).
pub fn run_before_bits(mask: u32) -> u32 {
    let l = &tables::VLC_LENGTHS;
    let total = mask.count_ones();
    if total < 2 {
        return 0;
    }
    let mut zeros_left = (32 - mask.leading_zeros() - total) as usize;
    let mut rest = mask;
    let mut bits = 0;
    for _ in 0..total - 1 {
        if zeros_left == 0 {
            break;
        }
        let i = 31 - rest.leading_zeros();
        rest ^= 1 << i;
        let run = (i - 1 - (31 - rest.leading_zeros())) as usize;
        bits += l.run_before[zeros_left.min(7) - 1][run] as u32;
        zeros_left -= run;
    }
    bits
}

/// The coeff_token table of [`tables::VLC_LENGTHS`] for `nc` (0 <= nC < 2, < 4, < 8, 8
/// and up); `None` for a negative `nc`.
fn length_table(nc: i32) -> Option<usize> {
    match nc {
        0..=1 => Some(0),
        2..=3 => Some(1),
        4..=7 => Some(2),
        8.. => Some(3),
        _ => None,
    }
}

/// A floor under [`block_bits_nc`] of a 16-coefficient block from TotalCoeff alone: the shortest coeff_token
/// for it, a bit per level (a trailing one's sign or a level_prefix) and one for
/// total_zeros when some coefficient is zero.
pub fn luma4x4_bits_floor(total_coeff: u32, nc: i32) -> u32 {
    let table = length_table(nc).unwrap_or(3);
    let tc = total_coeff.min(16) as usize;
    let tokens = &tables::VLC_LENGTHS.coeff_token[table][tc][..=tc.min(3)];
    let token = tokens.iter().copied().min().unwrap_or(0) as u32;
    token + tc as u32 + (tc > 0 && tc < 16) as u32
}

/// A sink that only counts.
struct BitCount(u32);

impl BitSink for BitCount {
    fn put_bits(&mut self, _value: u32, len: u32) {
        self.0 += len;
    }
}

/// The body of [`encode_residual_block`] on any sink; on error the sink may hold part of
/// the block.
fn put_vlc(w: &mut impl BitSink, vlc: Vlc) {
    w.put_bits(vlc.code as u32, vlc.len as u32);
}

fn code_residual_block<S: BitSink>(
    coeffs: &[i32],
    kind: BlockKind,
    nc: i32,
    w: &mut S,
) -> Result<u8> {
    let max = kind.max_coeffs();
    if coeffs.len() != max {
        return Err(invalid(format!(
            "a {kind:?} block has {max} coefficients, got {}",
            coeffs.len()
        )));
    }
    let table = kind.table(nc)?;

    // Nonzero coefficients in reverse scan order, with the zeros run before each, from a
    // mask of the nonzero positions: no branch on each coefficient's value.
    let mut mask = 0u32;
    for (i, &c) in coeffs.iter().enumerate() {
        mask |= ((c != 0) as u32) << i;
    }
    if mask == 0 {
        put_vlc(w, tables::coeff_token(table, 0, 0).unwrap());
        return Ok(0);
    }
    let mut levels = [0i32; 16];
    let mut runs = [0u8; 16];
    let total_coeff = mask.count_ones() as usize;
    let last = 31 - mask.leading_zeros() as usize;
    let total_zeros = last + 1 - total_coeff;
    let mut rest = mask;
    for k in 0..total_coeff {
        let i = 31 - rest.leading_zeros();
        rest ^= 1 << i;
        levels[k] = coeffs[i as usize];
        // Zeros down to the next nonzero coefficient, or to position 0 after the last.
        runs[k] = match rest {
            0 => i as u8,
            r => (i - 1 - (31 - r.leading_zeros())) as u8,
        };
    }
    let levels = &levels[..total_coeff];
    let runs = &runs[..total_coeff];

    let mut trailing_ones = 0usize;
    while trailing_ones < total_coeff.min(3) && levels[trailing_ones].abs() == 1 {
        trailing_ones += 1;
    }

    put_vlc(
        w,
        tables::coeff_token(table, trailing_ones as u8, total_coeff as u8).unwrap(),
    );
    for &l in &levels[..trailing_ones] {
        w.put_bits((l < 0) as u32, 1);
    }

    let mut suffix_length: u32 = if total_coeff > 10 && trailing_ones < 3 {
        1
    } else {
        0
    };
    for (i, &level) in levels.iter().enumerate().skip(trailing_ones) {
        let magnitude = level.unsigned_abs() as u64;
        // levelCode: 2|l| - 2 for positive, 2|l| - 1 for negative.
        let mut level_code: u64 = 2 * magnitude - if level > 0 { 2 } else { 1 };
        if i == trailing_ones && trailing_ones < 3 {
            // The first level after fewer than 3 trailing ones cannot be +-1.
            level_code -= 2;
        }
        let too_large = || Error::CavlcLevelTooLarge {
            kind,
            index: i,
            level,
            suffix_length,
        };
        if suffix_length == 0 {
            if level_code < 14 {
                w.put_bits(1, level_code as u32 + 1);
            } else if level_code < 30 {
                w.put_bits(1, 15);
                w.put_bits(level_code as u32 - 14, 4);
            } else {
                let suffix = level_code - 30;
                if suffix >= 1 << 12 {
                    return Err(too_large());
                }
                w.put_bits(1, 16);
                w.put_bits(suffix as u32, 12);
            }
        } else {
            let escape = 15u64 << suffix_length;
            if level_code < escape {
                w.put_bits(1, (level_code >> suffix_length) as u32 + 1);
                w.put_bits(
                    (level_code & ((1 << suffix_length) - 1)) as u32,
                    suffix_length,
                );
            } else {
                let suffix = level_code - escape;
                if suffix >= 1 << 12 {
                    return Err(too_large());
                }
                w.put_bits(1, 16);
                w.put_bits(suffix as u32, 12);
            }
        }
        if suffix_length == 0 {
            suffix_length = 1;
        }
        if magnitude > (3 << (suffix_length - 1)) && suffix_length < 6 {
            suffix_length += 1;
        }
    }

    if total_coeff < max {
        let chroma_dc = kind == BlockKind::ChromaDC;
        put_vlc(
            w,
            tables::total_zeros(chroma_dc, total_coeff as u8, total_zeros as u8).unwrap(),
        );
    }
    let mut zeros_left = total_zeros as u8;
    for &run in &runs[..total_coeff - 1] {
        if zeros_left == 0 {
            break;
        }
        put_vlc(w, tables::run_before(zeros_left, run).unwrap());
        zeros_left -= run;
    }
    Ok(total_coeff as u8)
}

/// Decode one residual block written by [`encode_residual_block`] (or any conforming
/// encoder): the `kind.max_coeffs()` coefficients in scan order.
pub fn decode_residual_block(r: &mut BitReader<'_>, kind: BlockKind, nc: i32) -> Result<Vec<i32>> {
    let max = kind.max_coeffs();
    let table = kind.table(nc)?;
    let mut tokens = Vec::new();
    for tc in 0..=table.max_total_coeff() {
        for t1 in 0..=tc.min(3) {
            tokens.push((tc, t1, tables::coeff_token(table, t1, tc).unwrap()));
        }
    }
    let i = r.read_vlc(
        tokens.iter().enumerate().map(|(i, t)| (i, t.2)),
        "coeff_token",
    )?;
    let (total_coeff, trailing_ones) = (tokens[i].0 as usize, tokens[i].1 as usize);
    let mut out = vec![0i32; max];
    if total_coeff == 0 {
        return Ok(out);
    }
    if total_coeff > max {
        return Err(corrupt(format!(
            "TotalCoeff {total_coeff} > {max} in a {kind:?} block"
        )));
    }
    let mut levels = vec![0i32; total_coeff];
    for l in levels.iter_mut().take(trailing_ones) {
        *l = 1 - 2 * r.bit()? as i32;
    }
    let mut suffix_length: u32 = if total_coeff > 10 && trailing_ones < 3 {
        1
    } else {
        0
    };
    for (i, slot) in levels.iter_mut().enumerate().skip(trailing_ones) {
        let mut prefix = 0u32;
        while r.bit()? == 0 {
            prefix += 1;
            if prefix > MAX_LEVEL_PREFIX {
                return Err(corrupt(format!("level_prefix > {MAX_LEVEL_PREFIX}")));
            }
        }
        let suffix_size = if prefix == 14 && suffix_length == 0 {
            4
        } else if prefix >= 15 {
            prefix - 3
        } else {
            suffix_length
        };
        let suffix = r.read(suffix_size)? as i64;
        let mut level_code = ((prefix.min(15) as i64) << suffix_length) + suffix;
        if prefix >= 15 && suffix_length == 0 {
            level_code += 15;
        }
        if i == trailing_ones && trailing_ones < 3 {
            level_code += 2;
        }
        let level = if level_code % 2 == 0 {
            (level_code + 2) >> 1
        } else {
            (-level_code - 1) >> 1
        };
        *slot = level as i32;
        if suffix_length == 0 {
            suffix_length = 1;
        }
        if level.unsigned_abs() > (3 << (suffix_length - 1)) && suffix_length < 6 {
            suffix_length += 1;
        }
    }
    let mut zeros_left = if total_coeff < max {
        let chroma_dc = kind == BlockKind::ChromaDC;
        let codes = tables::total_zeros_table(chroma_dc, total_coeff as u8).unwrap();
        r.read_vlc(codes.iter().copied().enumerate(), "total_zeros")?
    } else {
        0
    };
    if total_coeff + zeros_left > max {
        return Err(corrupt("total_zeros too large".into()));
    }
    let mut pos = total_coeff + zeros_left; // one past the last nonzero coefficient
    for (i, &level) in levels.iter().enumerate() {
        let run = if zeros_left > 0 && i + 1 < total_coeff {
            let zl = zeros_left as u8;
            let n = zeros_left.min(14) + 1;
            let codes = (0..n).map(|run| (run, tables::run_before(zl, run as u8).unwrap()));
            let run = r.read_vlc(codes, "run_before")?;
            if run > zeros_left {
                return Err(corrupt("run_before > zerosLeft".into()));
            }
            run
        } else if i + 1 == total_coeff {
            zeros_left
        } else {
            0
        };
        pos -= 1;
        out[pos] = level;
        pos -= run;
        zeros_left -= run;
    }
    Ok(out)
}

fn invalid(message: String) -> Error {
    Error::InvalidArgument(format!("CAVLC: {message}"))
}

fn corrupt(reason: String) -> Error {
    Error::corrupt("CAVLC", reason)
}

/// CAVLC codewords go out as they are written in the tables.
impl MsbWriter {
    pub fn put_vlc(&mut self, vlc: Vlc) {
        self.put(vlc.code as u32, vlc.len as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_bits_nc_is_residual_block_bits() {
        let mut rng = crate::testdata::SplitMix64(11);
        for case in 0..200_000u32 {
            // Sparse to dense blocks, small levels mostly, some beyond the escape.
            let density = 1 + rng.below(16);
            let big = case % 50 == 0;
            let block: [i32; 16] = std::array::from_fn(|_| {
                if rng.below(16) >= density {
                    return 0;
                }
                let m = match rng.below(8) {
                    0..=4 => 1 + rng.below(3) as i32,
                    5 | 6 => 1 + rng.below(40) as i32,
                    _ => 1 + rng.below(if big { 9000 } else { 3000 }) as i32,
                };
                if rng.below(2) == 0 {
                    m
                } else {
                    -m
                }
            });
            let nc = rng.below(20) as i32 - 1;
            let want = residual_block_bits(&block, BlockKind::Luma4x4, nc).unwrap_or(0);
            assert_eq!(block_bits_nc(&block, nc), want, "{block:?} nC {nc}");
            let ac = residual_block_bits(&block[1..], BlockKind::ChromaAC, nc).unwrap_or(0);
            assert_eq!(block_bits_nc(&block[1..], nc), ac, "{block:?} nC {nc}");
            if want > 0 {
                let tc = block.iter().filter(|&&v| v != 0).count() as u32;
                assert!(luma4x4_bits_floor(tc, nc) <= want, "{block:?} nC {nc}");
            }
        }
    }

    #[test]
    fn counted_bits_are_the_written_bits() {
        let mut rng = crate::testdata::SplitMix64(1);
        let mut next = |n: u32| rng.below(n as u64) as u32;
        let (mut ok, mut too_large) = (0, 0);
        for case in 0..20_000 {
            let kind = BlockKind::ALL[case % 5];
            let nc = if kind == BlockKind::ChromaDC {
                -1
            } else {
                next(17) as i32
            };
            // Mostly small levels, some large enough to need the escape or exceed it.
            let coeffs: Vec<i32> = (0..kind.max_coeffs())
                .map(|_| match next(8) {
                    0..=3 => 0,
                    4..=6 => next(7) as i32 - 3,
                    _ => next(6000) as i32 - 3000,
                })
                .collect();
            let mut w = MsbWriter::new();
            let written = encode_residual_block(&coeffs, kind, nc, &mut w);
            let counted = residual_block_bits(&coeffs, kind, nc);
            match (written, counted) {
                (Ok(_), Ok(bits)) => {
                    assert_eq!(bits as u64, w.bit_len(), "case {case}");
                    ok += 1;
                }
                (Err(_), Err(_)) => {
                    assert_eq!(w.bit_len(), 0);
                    too_large += 1;
                }
                (a, b) => panic!("case {case}: written {a:?}, counted {b:?}"),
            }
        }
        assert!(
            ok > 1000 && too_large > 100,
            "{ok} coded, {too_large} refused"
        );
    }
}
