//! CRC32 (IEEE, reflected: gzip's and crc32fast's) of a message from the CRC32s of its
//! parts, in a few table lookups a part: the GPU checksums each decoded block
//! (shaders/huffman/vld.wgsl `block_crcs`), and the host folds a frame's blocks into the
//! frame's CRC32 here.
//!
//! `crc32(A ‖ B) = shift(crc32(A), |B|) ^ crc32(B)` (zlib's `crc32_combine`), where
//! `shift(c, n)` runs the CRC register over `n` zero bytes: a linear map. Each power of
//! two of bytes is one map, kept as four tables of 256 (its image of each byte of the
//! register), built once; `shift(c, n)` applies those of `n`'s set bits.

use std::sync::OnceLock;

/// The CRC32 polynomial, reflected.
const POLY: u32 = 0xedb8_8320;

/// A linear map of the 32-bit register, by its image of each byte of it.
type Map = [[u32; 256]; 4];

fn apply(map: &Map, c: u32) -> u32 {
    map[0][(c & 0xff) as usize]
        ^ map[1][((c >> 8) & 0xff) as usize]
        ^ map[2][((c >> 16) & 0xff) as usize]
        ^ map[3][(c >> 24) as usize]
}

/// The map of `f`, linear, from its images of the register's bits.
fn map_of(f: impl Fn(u32) -> u32) -> Box<Map> {
    let bits: [u32; 32] = std::array::from_fn(|i| f(1 << i));
    let mut map = Box::new([[0u32; 256]; 4]);
    for (k, table) in map.iter_mut().enumerate() {
        for (v, entry) in table.iter_mut().enumerate() {
            *entry = (0..8)
                .filter(|b| v >> b & 1 == 1)
                .fold(0, |acc, b| acc ^ bits[8 * k + b]);
        }
    }
    map
}

/// The register after one zero byte.
fn zero_byte(mut c: u32) -> u32 {
    for _ in 0..8 {
        c = (c >> 1) ^ (POLY & 0u32.wrapping_sub(c & 1));
    }
    c
}

/// `shift` by 2^k bytes, for k up to 63.
fn powers() -> &'static [Map] {
    static POWERS: OnceLock<Vec<Map>> = OnceLock::new();
    POWERS.get_or_init(|| {
        let mut maps: Vec<Map> = vec![*map_of(zero_byte)];
        for _ in 1..64 {
            let last = maps.last().copied().unwrap_or([[0; 256]; 4]);
            maps.push(*map_of(|c| apply(&last, apply(&last, c))));
        }
        maps
    })
}

/// The register `c` run over `n` zero bytes.
pub(crate) fn shift(mut c: u32, n: u64) -> u32 {
    let powers = powers();
    let mut n = n;
    while n != 0 {
        let k = n.trailing_zeros() as usize;
        c = apply(&powers[k], c);
        n &= n - 1;
    }
    c
}

/// The CRC32 of parts one after the other, from each part's CRC32 and length.
pub(crate) fn concat(parts: impl IntoIterator<Item = (u32, u64)>) -> u32 {
    parts
        .into_iter()
        .fold(0, |acc, (crc, len)| shift(acc, len) ^ crc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::SplitMix64;

    #[test]
    fn parts_combine_to_the_whole() {
        let mut rng = SplitMix64(9);
        let mut data = vec![0u8; 70_000];
        rng.fill(&mut data);
        for _ in 0..200 {
            let mut cuts: Vec<usize> = (0..rng.below(6))
                .map(|_| rng.below(70_001) as usize)
                .collect();
            cuts.extend([0, data.len()]);
            cuts.sort_unstable();
            let parts = cuts
                .windows(2)
                .map(|w| (crc32fast::hash(&data[w[0]..w[1]]), (w[1] - w[0]) as u64));
            assert_eq!(concat(parts), crc32fast::hash(&data), "cuts {cuts:?}");
        }
        assert_eq!(concat([]), crc32fast::hash(&[]));
        // Lengths past u32: the shift by 2^40 bytes equals two of 2^39.
        assert_eq!(
            shift(0x1234_5678, 1 << 40),
            shift(shift(0x1234_5678, 1 << 39), 1 << 39)
        );
    }

    /// `a * b mod P`, reflected (zlib's `multmodp`), as shaders/huffman/crc32.wgsl
    /// `crc_mul` computes it.
    fn mul_mod_p(a: u32, mut b: u32) -> u32 {
        let mut p = 0;
        for i in 0..32 {
            if a >> (31 - i) & 1 == 1 {
                p ^= b;
            }
            b = (b >> 1) ^ (POLY & 0u32.wrapping_sub(b & 1));
        }
        p
    }

    /// The shader's table of multipliers for 2^k zero bytes (`CRC_ZERO_POWERS`) is
    /// x^(8 * 2^k) mod P, and shifting by them equals [`shift`].
    #[test]
    fn the_shaders_zero_byte_multipliers_are_the_powers_of_x() {
        let shader = include_str!("../shaders/huffman/crc32.wgsl");
        let table = shader
            .split("CRC_ZERO_POWERS = array<u32, 32>(")
            .nth(1)
            .and_then(|rest| rest.split(')').next())
            .expect("the table in crc32.wgsl");
        let words: Vec<u32> = table
            .split(',')
            .map(|w| w.trim().trim_end_matches('u'))
            .filter(|w| !w.is_empty())
            .map(|w| u32::from_str_radix(w.trim_start_matches("0x"), 16).expect("a hex word"))
            .collect();
        // x^1 squared k + 3 times is x^(8 * 2^k).
        let mut power = 0x4000_0000u32;
        let mut expected = Vec::new();
        for k in 0..35 {
            if k >= 3 {
                expected.push(power);
            }
            power = mul_mod_p(power, power);
        }
        assert_eq!(words, expected);
        let mut rng = SplitMix64(3);
        for _ in 0..100 {
            let (c, n) = (rng.next_u64() as u32, rng.below(1 << 20));
            let op = (0..32)
                .filter(|k| n >> k & 1 == 1)
                .fold(0x8000_0000, |op, k| mul_mod_p(words[k], op));
            assert_eq!(mul_mod_p(op, c), shift(c, n), "{c:#x} over {n} zero bytes");
        }
    }
}
