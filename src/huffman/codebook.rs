//! Length-limited canonical Huffman codebooks.
//!
//! [`Codebook::from_frequencies`] builds an optimal length-limited prefix code with the
//! package-merge algorithm; [`Codebook::from_lengths`] assigns canonical codes exactly as
//! DEFLATE does (RFC 1951 section 3.2.2).

use super::code_lengths::code_lengths;
use crate::error::{Error, Result};
use crate::huffman::CodeTable;

/// Longest code length any codebook may hold.
pub const MAX_CODE_LEN: u8 = 32;

/// Canonical codes for `lengths` into `codes` (RFC 1951 3.2.2), after checking the
/// lengths as [`Codebook::from_lengths`] does.
pub(crate) fn canonical_codes(lengths: &[u8], codes: &mut [u32]) -> Result<()> {
    const LENS: usize = MAX_CODE_LEN as usize + 1;
    let max = MAX_CODE_LEN as usize;
    if codes.len() != lengths.len() {
        return Err(Error::InvalidArgument(format!(
            "{} codes for {} code lengths",
            codes.len(),
            lengths.len()
        )));
    }
    let longest = lengths.iter().copied().fold(0, u8::max);
    if longest > MAX_CODE_LEN {
        let s = lengths.iter().position(|&l| l > MAX_CODE_LEN).unwrap_or(0);
        return Err(Error::InvalidCodeTable(format!(
            "symbol {s} has code length {longest}, the limit is {MAX_CODE_LEN}",
            longest = lengths[s]
        )));
    }
    // The symbols in four quarters and the few left over, each counted and coded as its
    // own run of counters: four independent chains where one length follows another.
    let m = lengths.len() / 4;
    let (quarters, rest) = lengths.split_at(4 * m);
    let mut counts = [[0u64; LENS]; 5];
    for i in 0..m {
        for (q, c) in counts.iter_mut().take(4).enumerate() {
            c[quarters[q * m + i] as usize] += 1;
        }
    }
    for &l in rest {
        counts[4][l as usize] += 1;
    }
    let mut bl_count = [0u64; LENS];
    for (l, b) in bl_count.iter_mut().enumerate() {
        *b = counts.iter().map(|c| c[l]).sum();
    }
    // Kraft sum scaled by 2^32.
    let kraft: u128 = (1..=max).map(|l| (bl_count[l] as u128) << (max - l)).sum();
    if kraft > (1u128 << max) {
        return Err(Error::InvalidCodeTable(format!(
            "code lengths are over-subscribed (Kraft sum {:.6} > 1)",
            kraft as f64 / (1u64 << max) as f64
        )));
    }
    // next[q][l]: the next code of length l in part q, after the parts before it.
    let mut next = [[0u64; LENS]; 5];
    let mut code = 0u64;
    for bits in 1..=max {
        code = (code + bl_count[bits - 1] * u64::from(bits > 1)) << 1;
        let mut at = code;
        for (n, c) in next.iter_mut().zip(&counts) {
            n[bits] = at;
            at += c[bits];
        }
    }
    let code_of = |next: &mut [u64; LENS], l: u8| {
        let c = next[l as usize];
        next[l as usize] = c + 1;
        if l > 0 {
            c as u32
        } else {
            0
        }
    };
    let (head, tail) = codes.split_at_mut(4 * m);
    for i in 0..m {
        for (q, n) in next.iter_mut().take(4).enumerate() {
            head[q * m + i] = code_of(n, quarters[q * m + i]);
        }
    }
    for (c, &l) in tail.iter_mut().zip(rest) {
        *c = code_of(&mut next[4], l);
    }
    Ok(())
}

/// A canonical prefix code over an alphabet of `lengths().len()` symbols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Codebook {
    lengths: Vec<u8>,
    codes: Vec<u32>,
}

impl Codebook {
    /// Optimal prefix code with no code longer than `max_len` bits (package-merge).
    ///
    /// Unused symbols (frequency 0) get length 0. With no used symbol every length is 0;
    /// with exactly one used symbol it gets length 1 and so does the lowest-index unused
    /// symbol, so the code stays complete.
    pub fn from_frequencies(freqs: &[u64], max_len: u8) -> Result<Codebook> {
        let mut lengths = vec![0u8; freqs.len()];
        code_lengths(freqs, max_len, &mut lengths)?;
        Codebook::from_length_vec(lengths)
    }

    /// Canonical codes for the given lengths (RFC 1951 3.2.2): shorter codes first,
    /// ties broken by symbol index. Over-subscribed codes and lengths above 32 are
    /// rejected; incomplete codes are allowed.
    pub fn from_lengths(lengths: &[u8]) -> Result<Codebook> {
        Codebook::from_length_vec(lengths.to_vec())
    }

    fn from_length_vec(lengths: Vec<u8>) -> Result<Codebook> {
        let mut codes = vec![0u32; lengths.len()];
        canonical_codes(&lengths, &mut codes)?;
        Ok(Codebook { lengths, codes })
    }

    /// Code length of each symbol (0 = no code).
    pub fn lengths(&self) -> &[u8] {
        &self.lengths
    }

    /// Code of each symbol in its low `lengths()[s]` bits, first-emitted bit most
    /// significant.
    pub fn codes(&self) -> &[u32] {
        &self.codes
    }

    /// Number of symbols in the alphabet.
    pub fn num_symbols(&self) -> usize {
        self.lengths.len()
    }

    /// Longest code length (0 for an empty code).
    pub fn max_len(&self) -> u32 {
        self.lengths.iter().copied().max().unwrap_or(0) as u32
    }

    /// Total code bits for data with the given symbol frequencies.
    pub fn cost(&self, freqs: &[u64]) -> u64 {
        freqs
            .iter()
            .zip(&self.lengths)
            .map(|(&f, &l)| f * l as u64)
            .sum()
    }

    /// The byte code table: the first 256 symbols.
    pub fn table(&self) -> Result<CodeTable> {
        if self.lengths.len() < 256 {
            return Err(Error::InvalidCodeTable(format!(
                "the alphabet has {} symbols, a byte table needs 256",
                self.lengths.len()
            )));
        }
        let mut t = CodeTable {
            codes: [0; 256],
            lengths: [0; 256],
        };
        t.codes.copy_from_slice(&self.codes[..256]);
        t.lengths.copy_from_slice(&self.lengths[..256]);
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BinaryHeap;

    fn kraft(book: &Codebook) -> f64 {
        book.lengths()
            .iter()
            .filter(|&&l| l > 0)
            .map(|&l| 0.5f64.powi(l as i32))
            .sum()
    }

    /// Plain (unlimited) Huffman cost.
    fn huffman_cost(freqs: &[u64]) -> u64 {
        let mut heap: BinaryHeap<std::cmp::Reverse<u64>> = freqs
            .iter()
            .filter(|&&f| f > 0)
            .map(|&f| std::cmp::Reverse(f))
            .collect();
        if heap.len() < 2 {
            return heap.len() as u64 * freqs.iter().sum::<u64>();
        }
        let mut cost = 0;
        while heap.len() > 1 {
            let a = heap.pop().unwrap().0;
            let b = heap.pop().unwrap().0;
            cost += a + b;
            heap.push(std::cmp::Reverse(a + b));
        }
        cost
    }

    fn check_prefix_free(book: &Codebook) {
        let items: Vec<(u32, u8)> = book
            .lengths()
            .iter()
            .zip(book.codes())
            .filter(|(&l, _)| l > 0)
            .map(|(&l, &c)| (c, l))
            .collect();
        for (i, &(ci, li)) in items.iter().enumerate() {
            assert!(li == 32 || ci >> li == 0, "code wider than its length");
            for (j, &(cj, lj)) in items.iter().enumerate() {
                if i != j && li <= lj {
                    assert_ne!(cj >> (lj - li), ci, "code {i} is a prefix of code {j}");
                }
            }
        }
    }

    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn optimal_when_limit_not_binding() {
        let mut st = 7;
        for trial in 0..300 {
            let n = 2 + (splitmix(&mut st) % 300) as usize;
            let freqs: Vec<u64> = (0..n)
                .map(|_| {
                    let r = splitmix(&mut st);
                    if r.is_multiple_of(5) {
                        0
                    } else {
                        r % (1 + (trial as u64 % 7) * 1000)
                    }
                })
                .collect();
            let book = Codebook::from_frequencies(&freqs, 32).unwrap();
            assert_eq!(book.cost(&freqs), huffman_cost(&freqs), "trial {trial}");
            let used = freqs.iter().filter(|&&f| f > 0).count();
            if used >= 1 {
                assert!((kraft(&book) - 1.0).abs() < 1e-12, "complete code");
            }
            for (s, &f) in freqs.iter().enumerate() {
                if used >= 2 {
                    assert_eq!(f == 0, book.lengths()[s] == 0);
                }
            }
            check_prefix_free(&book);
        }
    }

    #[test]
    fn small_known_case() {
        let book = Codebook::from_frequencies(&[5, 9, 12, 13, 16, 45], 15).unwrap();
        assert_eq!(book.lengths(), &[4, 4, 3, 3, 3, 1]);
        assert_eq!(book.cost(&[5, 9, 12, 13, 16, 45]), 224);
    }

    #[test]
    fn fibonacci_respects_limit() {
        let mut fib = vec![1u64, 1];
        while fib.len() < 60 {
            let k = fib.len();
            fib.push(fib[k - 1] + fib[k - 2]);
        }
        let mut freqs = vec![0u64; 257];
        for (i, &f) in fib.iter().enumerate() {
            freqs[i * 4] = f;
        }
        for limit in [15u8, 32] {
            let book = Codebook::from_frequencies(&freqs, limit).unwrap();
            assert_eq!(book.max_len(), limit as u32, "limit {limit} binds");
            assert!((kraft(&book) - 1.0).abs() < 1e-12);
            check_prefix_free(&book);
        }
        // Unlimited Huffman on 60 Fibonacci weights is 59 deep; 32 bits must cost more.
        let b32 = Codebook::from_frequencies(&freqs, 32).unwrap();
        assert!(b32.cost(&freqs) > huffman_cost(&freqs));
        // Limited optimality vs. brute force is hard; check monotonicity instead.
        let b15 = Codebook::from_frequencies(&freqs, 15).unwrap();
        assert!(b15.cost(&freqs) >= b32.cost(&freqs));
        // All 257 symbols used with limit 9 (fits 512).
        let all: Vec<u64> = (0..257u64).map(|i| fib[(i % 50) as usize]).collect();
        let b9 = Codebook::from_frequencies(&all, 9).unwrap();
        assert!(b9.max_len() <= 9);
        assert!((kraft(&b9) - 1.0).abs() < 1e-12);
        assert!(Codebook::from_frequencies(&all, 8).is_err());
    }

    #[test]
    fn limited_is_optimal_small_bruteforce() {
        // Exhaustive check over all length vectors for tiny alphabets.
        fn best(freqs: &[u64], limit: u8) -> u64 {
            let n = freqs.len();
            let mut best = u64::MAX;
            let mut lens = vec![1u8; n];
            loop {
                let k: f64 = lens.iter().map(|&l| 0.5f64.powi(l as i32)).sum();
                if k <= 1.0 + 1e-12 {
                    best = best.min(freqs.iter().zip(&lens).map(|(&f, &l)| f * l as u64).sum());
                }
                let mut i = 0;
                loop {
                    if i == n {
                        return best;
                    }
                    lens[i] += 1;
                    if lens[i] <= limit {
                        break;
                    }
                    lens[i] = 1;
                    i += 1;
                }
            }
        }
        let mut st = 99;
        for _ in 0..200 {
            let n = 2 + (splitmix(&mut st) % 5) as usize;
            let freqs: Vec<u64> = (0..n).map(|_| 1 + splitmix(&mut st) % 100).collect();
            let limit = ((n as f64).log2().ceil() as u8).max(1) + (splitmix(&mut st) % 2) as u8;
            let book = Codebook::from_frequencies(&freqs, limit).unwrap();
            assert!(book.max_len() <= limit as u32);
            assert_eq!(
                book.cost(&freqs),
                best(&freqs, limit),
                "{freqs:?} limit {limit}"
            );
        }
    }

    #[test]
    fn single_and_empty() {
        let book = Codebook::from_frequencies(&[0u64; 257], 15).unwrap();
        assert!(book.lengths().iter().all(|&l| l == 0));
        assert_eq!(book.max_len(), 0);

        let mut f = vec![0u64; 257];
        f[65] = 1000;
        let book = Codebook::from_frequencies(&f, 15).unwrap();
        assert_eq!(book.lengths()[65], 1);
        assert_eq!(book.lengths()[0], 1);
        assert_eq!(book.lengths().iter().filter(|&&l| l > 0).count(), 2);
        assert!((kraft(&book) - 1.0).abs() < 1e-12);

        f[65] = 0;
        f[0] = 3;
        let book = Codebook::from_frequencies(&f, 15).unwrap();
        assert_eq!(book.lengths()[0], 1);
        assert_eq!(book.lengths()[1], 1);
    }

    #[test]
    fn from_lengths_canonical_rfc_example() {
        // RFC 1951 3.2.2 example: ABCDEFGH with lengths (3,3,3,3,3,2,4,4).
        let book = Codebook::from_lengths(&[3, 3, 3, 3, 3, 2, 4, 4]).unwrap();
        assert_eq!(
            book.codes(),
            &[0b010, 0b011, 0b100, 0b101, 0b110, 0b00, 0b1110, 0b1111]
        );
    }

    #[test]
    fn from_lengths_validation() {
        assert!(Codebook::from_lengths(&[1, 1, 1]).is_err());
        assert!(Codebook::from_lengths(&[33]).is_err());
        let all32 = Codebook::from_lengths(&[32u8; 256]).unwrap();
        assert_eq!(all32.codes()[255], 255);
        check_prefix_free(&all32);
        // Full 32-bit code: 2^32 codes would need many symbols; check a Kraft-exact one.
        let mut l = vec![32u8; 2];
        l.extend(std::iter::repeat_n(1u8, 1));
        let b = Codebook::from_lengths(&l).unwrap();
        assert_eq!(b.codes()[2], 0);
        assert_eq!(b.codes()[0], 0x8000_0000);
        assert!(Codebook::from_lengths(&[0u8; 10]).unwrap().table().is_err());
        assert!(Codebook::from_frequencies(&[1, 2], 0).is_err());
        assert!(Codebook::from_frequencies(&[1, 2], 33).is_err());
        assert!(Codebook::from_frequencies(&[1, 2, 3], 1).is_err());
    }
}
