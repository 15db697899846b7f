//! Length-limited canonical Huffman codebooks.
//!
//! [`Codebook::from_frequencies`] builds an optimal length-limited prefix code with the
//! package-merge algorithm; [`Codebook::from_lengths`] assigns canonical codes exactly as
//! DEFLATE does (RFC 1951 section 3.2.2).

use crate::error::{Error, Result};
use crate::huffman::CodeTable;

/// Longest code length any codebook may hold.
pub const MAX_CODE_LEN: u8 = 32;

/// Huffman code lengths of `leaves` (sorted by weight), or None when one exceeds
/// `max_len`.
fn huffman_depths(leaves: &[u128], max_len: u8) -> Option<Vec<u8>> {
    let k = leaves.len();
    let n = 2 * k - 1;
    let mut weight = leaves.to_vec();
    weight.resize(n, 0);
    let mut parent = vec![0usize; n];
    // Leaves are taken in order from the front, internal nodes in the order they were
    // made (their weights never decrease): the smaller front of the two each time.
    let (mut leaf, mut inner) = (0usize, k);
    for node in k..n {
        let mut pick = [0usize; 2];
        for p in &mut pick {
            if leaf < k && (inner >= node || weight[leaf] <= weight[inner]) {
                *p = leaf;
                leaf += 1;
            } else {
                *p = inner;
                inner += 1;
            }
        }
        weight[node] = weight[pick[0]] + weight[pick[1]];
        parent[pick[0]] = node;
        parent[pick[1]] = node;
    }
    let mut depth = vec![0u32; n];
    for node in (0..n - 1).rev() {
        depth[node] = depth[parent[node]] + 1;
    }
    depth[..k]
        .iter()
        .map(|&d| u8::try_from(d).ok().filter(|&d| d <= max_len))
        .collect()
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
        if max_len == 0 || max_len > MAX_CODE_LEN {
            return Err(Error::InvalidCodeTable(format!(
                "maximum code length {max_len} is outside 1..={MAX_CODE_LEN}"
            )));
        }
        let n = freqs.len();
        let mut used: Vec<usize> = (0..n).filter(|&s| freqs[s] > 0).collect();
        let mut lengths = vec![0u8; n];
        match used.len() {
            0 => return Codebook::from_lengths(&lengths),
            1 => {
                let s = used[0];
                lengths[s] = 1;
                if let Some(other) = (0..n).find(|&t| t != s) {
                    lengths[other] = 1;
                }
                return Codebook::from_lengths(&lengths);
            }
            _ => {}
        }
        let k = used.len();
        if (k as u64) > (1u64 << max_len) {
            return Err(Error::InvalidCodeTable(format!(
                "{k} symbols cannot fit in codes of at most {max_len} bits"
            )));
        }
        // Leaves sorted by weight, ties by symbol index: as one integer key where weights
        // leave room for the index (always, for frames), which sorts several times faster.
        const INDEX_BITS: u32 = 16;
        if n <= 1 << INDEX_BITS && used.iter().all(|&s| freqs[s] >> (64 - INDEX_BITS) == 0) {
            let mut keys: Vec<u64> = used
                .iter()
                .map(|&s| (freqs[s] << INDEX_BITS) | s as u64)
                .collect();
            keys.sort_unstable();
            for (u, k) in used.iter_mut().zip(&keys) {
                *u = (k & ((1 << INDEX_BITS) - 1)) as usize;
            }
        } else {
            used.sort_unstable_by_key(|&s| (freqs[s], s));
        }
        let leaves: Vec<u128> = used.iter().map(|&s| freqs[s] as u128).collect();
        // Most inputs need no limit: plain Huffman (two queues over the sorted leaves) is
        // then optimal for the limited problem too, and far cheaper than package-merge,
        // which matters where every small frame gets a code of its own.
        if let Some(depth) = huffman_depths(&leaves, max_len) {
            for (i, &s) in used.iter().enumerate() {
                lengths[s] = depth[i];
            }
            return Codebook::from_lengths(&lengths);
        }

        // lists[j] is the merged list of level j (0 = shallowest, max_len-1 = deepest);
        // each entry records its weight and whether it is a leaf.
        let levels = max_len as usize;
        let mut lists: Vec<Vec<(u128, bool)>> = Vec::with_capacity(levels);
        let mut current: Vec<(u128, bool)> = leaves.iter().map(|&w| (w, true)).collect();
        for _ in 1..levels {
            let packages: Vec<u128> = current.chunks_exact(2).map(|p| p[0].0 + p[1].0).collect();
            let mut merged = Vec::with_capacity(leaves.len() + packages.len());
            let (mut i, mut j) = (0, 0);
            while i < leaves.len() || j < packages.len() {
                let take_leaf =
                    j >= packages.len() || (i < leaves.len() && leaves[i] <= packages[j]);
                if take_leaf {
                    merged.push((leaves[i], true));
                    i += 1;
                } else {
                    merged.push((packages[j], false));
                    j += 1;
                }
            }
            lists.push(std::mem::replace(&mut current, merged));
        }
        lists.push(current);
        // lists was filled deepest first; walk from the shallowest level down.
        lists.reverse();

        let mut depth = vec![0u8; k];
        let mut take = 2 * k - 2;
        for list in &lists {
            if take == 0 {
                break;
            }
            let selected = &list[..take.min(list.len())];
            let n_leaves = selected.iter().filter(|e| e.1).count();
            for d in depth.iter_mut().take(n_leaves) {
                *d += 1;
            }
            take = 2 * (selected.len() - n_leaves);
        }
        for (i, &s) in used.iter().enumerate() {
            lengths[s] = depth[i];
        }
        Codebook::from_lengths(&lengths)
    }

    /// Canonical codes for the given lengths (RFC 1951 3.2.2): shorter codes first,
    /// ties broken by symbol index. Over-subscribed codes and lengths above 32 are
    /// rejected; incomplete codes are allowed.
    pub fn from_lengths(lengths: &[u8]) -> Result<Codebook> {
        let max = MAX_CODE_LEN as usize;
        let mut bl_count = [0u64; MAX_CODE_LEN as usize + 1];
        for (s, &l) in lengths.iter().enumerate() {
            if l > MAX_CODE_LEN {
                return Err(Error::InvalidCodeTable(format!(
                    "symbol {s} has code length {l}, the limit is {MAX_CODE_LEN}"
                )));
            }
            bl_count[l as usize] += 1;
        }
        // Kraft sum scaled by 2^32.
        let kraft: u128 = (1..=max).map(|l| (bl_count[l] as u128) << (max - l)).sum();
        if kraft > (1u128 << max) {
            return Err(Error::InvalidCodeTable(format!(
                "code lengths are over-subscribed (Kraft sum {:.6} > 1)",
                kraft as f64 / (1u64 << max) as f64
            )));
        }
        let mut next_code = [0u64; MAX_CODE_LEN as usize + 2];
        let mut code = 0u64;
        for bits in 1..=max {
            code = (code + bl_count[bits - 1] * u64::from(bits > 1)) << 1;
            next_code[bits] = code;
        }
        let mut codes = vec![0u32; lengths.len()];
        for (s, &l) in lengths.iter().enumerate() {
            if l > 0 {
                let c = next_code[l as usize];
                next_code[l as usize] += 1;
                codes[s] = c as u32;
            }
        }
        Ok(Codebook {
            lengths: lengths.to_vec(),
            codes,
        })
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
