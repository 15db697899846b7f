//! Code lengths for a table of symbol counts: optimal, no code longer than a limit
//! ([`code_lengths`], behind [`Codebook::from_frequencies`]). Plain Huffman where no code
//! is too long, which is nearly always, package-merge where one would be.
//!
//! Planning builds a code for every frame of every chunk, hundreds per chunk, so this is
//! written for small alphabets: arrays on the stack, a radix sort, and no branch on a
//! choice as unpredictable as the data. The lengths are exactly those of the plain
//! construction (sort by count then symbol, two queues, the leaf first on a tie), which
//! the tests hold it to.

use super::codebook::MAX_CODE_LEN;
#[cfg(doc)]
use super::Codebook;
use crate::error::{Error, Result};

/// Alphabets of up to this many used symbols build their codes in arrays on the stack:
/// every alphabet of the framed coders is one (256 bytes, 257 with end-of-block, the 19
/// code-length symbols of a DEFLATE header), and planning builds hundreds per chunk.
const STACK_SYMBOLS: usize = 288;
/// Alphabets of up to this many used symbols (a DEFLATE header's code-length code) sort
/// by insertion, in smaller arrays.
const SMALL_SYMBOLS: usize = 32;

/// `if c { a } else { b }` computed with masks, not a branch: for choices as unpredictable
/// as the data (`std::hint::select_unpredictable` is newer than the crate's MSRV).
trait Select: Copy {
    fn select(c: bool, a: Self, b: Self) -> Self;
}

macro_rules! select_by_mask {
    ($($t:ty),*) => {$(
        impl Select for $t {
            #[inline(always)]
            fn select(c: bool, a: Self, b: Self) -> Self {
                b ^ ((a ^ b) & (c as $t).wrapping_neg())
            }
        }
    )*};
}
select_by_mask!(u32, u64, u128, usize);

/// Sort `order` (symbols, ascending) by `freqs[s]`, at most `max`, stably: ties stay in
/// symbol order; `scratch` is as long as `order`.
fn sort_by_frequency(freqs: &[u64], max: u64, order: &mut [u32], scratch: &mut [u32]) {
    let digits = (u64::BITS - max.leading_zeros()).div_ceil(8) as usize;
    if order.len() <= SMALL_SYMBOLS {
        // Insertion sort: stable, and cheaper than a pass over 256 counters.
        for i in 1..order.len() {
            let s = order[i];
            let mut j = i;
            while j > 0 && freqs[order[j - 1] as usize] > freqs[s as usize] {
                order[j] = order[j - 1];
                j -= 1;
            }
            order[j] = s;
        }
    } else if digits <= 1 {
        radix_sort::<1>(freqs, order, scratch);
    } else if digits == 2 {
        radix_sort::<2>(freqs, order, scratch);
    } else if digits == 3 {
        radix_sort::<3>(freqs, order, scratch);
    } else {
        order.sort_by_key(|&s| freqs[s as usize]);
    }
}

/// LSD radix sort of `order` by the low `D` bytes of `freqs[s]` (stable), skipping the
/// bytes all share. Most counts of a frame are small, so most high bytes are zero: the
/// counters are split four ways, and zero's cursor kept apart above the low byte, so
/// that a run of one value does not make every step wait on the one before.
fn radix_sort<const D: usize>(freqs: &[u64], order: &mut [u32], scratch: &mut [u32]) {
    let mut counts = [[[0u32; 256]; 4]; D];
    let mut quads = order.chunks_exact(4);
    for q in &mut quads {
        for (lane, &s) in q.iter().enumerate() {
            let f = freqs[s as usize];
            for (d, c) in counts.iter_mut().enumerate() {
                c[lane][((f >> (8 * d)) & 0xff) as usize] += 1;
            }
        }
    }
    for &s in quads.remainder() {
        let f = freqs[s as usize];
        for (d, c) in counts.iter_mut().enumerate() {
            c[0][((f >> (8 * d)) & 0xff) as usize] += 1;
        }
    }
    // Where each byte value's keys go; [256] takes zero's cursor writes.
    let mut next = [[0u32; 257]; D];
    let mut at = [0u32; D];
    let mut one_value = [false; D];
    for v in 0..256 {
        for d in 0..D {
            let c = &counts[d];
            let m = c[0][v] + c[1][v] + c[2][v] + c[3][v];
            one_value[d] |= m as usize == order.len();
            next[d][v] = at[d];
            at[d] += m;
        }
    }
    let (mut from, mut to) = (order, scratch);
    let mut in_scratch = false;
    for (d, next) in next.iter_mut().enumerate() {
        if one_value[d] {
            continue;
        }
        if d == 0 {
            scatter::<false>(freqs, 0, next, from, to);
        } else {
            scatter::<true>(freqs, 8 * d as u32, next, from, to);
        }
        std::mem::swap(&mut from, &mut to);
        in_scratch = !in_scratch;
    }
    if in_scratch {
        // `from` is the scratch buffer and holds the result; `to` is `order`.
        to.copy_from_slice(from);
    }
}

/// One radix pass: `from`'s symbols into `to` by the byte of their frequency at `shift`,
/// `next[v]` the next place for byte value `v`; with `ZERO_APART`, zero's cursor is kept
/// in a register and its writes go to `next[256]`.
#[inline(always)]
fn scatter<const ZERO_APART: bool>(
    freqs: &[u64],
    shift: u32,
    next: &mut [u32; 257],
    from: &[u32],
    to: &mut [u32],
) {
    let mut zero = next[0];
    for &s in from {
        let v = ((freqs[s as usize] >> shift) & 0xff) as usize;
        let apart = ZERO_APART && v == 0;
        let at = u32::select(apart, zero, next[v]);
        to[at as usize] = s;
        next[usize::select(apart, 256, v)] = at + 1;
        zero += apart as u32;
    }
}

/// Huffman depths of `k >= 2` leaves, `weight[..k]` (sorted ascending), `weight` and
/// `parent` holding `2k + 2` entries: the tree is built in `weight[k + 2..]`, each
/// node's parent in `parent`, which then holds the leaves' depths in `parent[..k]`.
/// Returns the deepest leaf's depth. `none` exceeds every weight but the root's.
fn huffman_depths<T: Select + Ord + std::ops::Add<Output = T>>(
    k: usize,
    weight: &mut [T],
    parent: &mut [u32],
    none: T,
) -> u32 {
    // Leaves are taken in order from the front, internal nodes in the order they were
    // made (their weights never decrease): the smaller front of the two each time, the
    // leaf on a tie. Which one is as unpredictable as the data, so nothing branches on
    // it, and the two fronts stay in registers with the entry after each loaded ahead,
    // so that a step waits on the step before, not on a load. `none` after the leaves
    // and in every node not yet made ends each queue; there are two real fronts for
    // every node, and the root, the only weight `none` may equal, is never one.
    let first = k + 2;
    let weight = &mut weight[..2 * k + 2];
    weight[k..].fill(none);
    let (mut leaf, mut inner) = (0usize, first);
    let (mut lw, mut iw) = (weight[0], none);
    for node in first..2 * k + 1 {
        let mut picked = [none; 2];
        for w in &mut picked {
            let (next_lw, next_iw) = (weight[leaf + 1], weight[inner + 1]);
            let take_leaf = lw <= iw;
            parent[usize::select(take_leaf, leaf, inner)] = node as u32;
            *w = T::select(take_leaf, lw, iw);
            lw = T::select(take_leaf, next_lw, lw);
            iw = T::select(take_leaf, iw, next_iw);
            leaf += take_leaf as usize;
            inner += !take_leaf as usize;
        }
        let sum = picked[0] + picked[1];
        weight[node] = sum;
        // The inner front was the node not yet made: it is this one.
        iw = T::select(inner == node, sum, iw);
    }
    // Parents come after their children: from the root down, each node's parent entry
    // becomes its depth (the parent's entry already is).
    let root = 2 * k;
    parent[root] = 0;
    for node in (first..root).rev() {
        parent[node] = parent[parent[node] as usize] + 1;
    }
    let mut deepest = 0;
    for leaf in 0..k {
        let d = parent[parent[leaf] as usize] + 1;
        parent[leaf] = d;
        deepest = deepest.max(d);
    }
    deepest
}

/// Optimal code lengths with no code longer than `max_len` bits for the `k >= 2` used
/// symbols `order` (sorted by frequency, ties by index), into `lengths`; `weight` and
/// `parent` hold `2k + 2` entries.
fn limited_lengths(
    freqs: &[u64],
    max_len: u8,
    order: &[u32],
    max_freq: u64,
    weight: &mut [u64],
    parent: &mut [u32],
    lengths: &mut [u8],
) {
    // Most inputs need no limit: plain Huffman (two queues over the sorted leaves) is
    // then optimal for the limited problem too, and far cheaper than package-merge,
    // which matters where every small frame gets a code of its own. Weights sum in u64
    // unless the frequencies are too large for that.
    let fits_u64 = (order.len() as u64).checked_mul(max_freq).is_some()
        || order
            .iter()
            .try_fold(0u64, |t, &s| t.checked_add(freqs[s as usize]))
            .is_some();
    let k = order.len();
    let deepest = if fits_u64 {
        for (w, &s) in weight.iter_mut().zip(order) {
            *w = freqs[s as usize];
        }
        huffman_depths(k, weight, parent, u64::MAX)
    } else {
        let mut wide: Vec<u128> = order.iter().map(|&s| freqs[s as usize] as u128).collect();
        wide.resize(weight.len(), 0);
        huffman_depths(k, &mut wide, parent, u128::MAX)
    };
    if deepest <= max_len as u32 {
        for (&s, &d) in order.iter().zip(parent.iter()) {
            lengths[s as usize] = d as u8;
        }
        return;
    }
    // A package sums at most one of each leaf per level: below u64::MAX.
    let packages_fit_u64 = (k as u64 * MAX_CODE_LEN as u64 + 1)
        .checked_mul(max_freq)
        .is_some();
    if k <= SMALL_SYMBOLS && packages_fit_u64 {
        // A DEFLATE header's code-length code, often limited: without allocating.
        for (w, &s) in weight.iter_mut().zip(order) {
            *w = freqs[s as usize];
        }
        let mut depth = [0u8; SMALL_SYMBOLS];
        package_merge_small(&weight[..k], max_len, &mut depth);
        for (&s, &d) in order.iter().zip(&depth) {
            lengths[s as usize] = d;
        }
        return;
    }
    let leaves: Vec<u128> = order.iter().map(|&s| freqs[s as usize] as u128).collect();
    for (&s, &d) in order.iter().zip(&package_merge(&leaves, max_len)) {
        lengths[s as usize] = d;
    }
}

/// [`package_merge`] of at most [`SMALL_SYMBOLS`] leaves whose packages sum in u64, into
/// `depth`: one list of weights at a time, each level's leaves kept as a bit mask (a
/// list holds at most `2k - 1` entries).
fn package_merge_small(leaves: &[u64], max_len: u8, depth: &mut [u8]) {
    const LIST: usize = 2 * SMALL_SYMBOLS;
    let k = leaves.len();
    let levels = max_len as usize;
    // Each queue ends in u64::MAX, above every real weight, so that the merge below
    // needs no bounds tests nor branch.
    let mut queue = [u64::MAX; SMALL_SYMBOLS + 1];
    queue[..k].copy_from_slice(leaves);
    let mut current = [0u64; LIST];
    current[..k].copy_from_slice(leaves);
    let mut current_len = k;
    // Level 0 the deepest (leaves only), as the lists are built.
    let mut leaf_masks = [0u64; MAX_CODE_LEN as usize];
    let mut list_lens = [0usize; MAX_CODE_LEN as usize];
    leaf_masks[0] = (1 << k) - 1;
    list_lens[0] = k;
    for level in 1..levels {
        let mut packages = [u64::MAX; SMALL_SYMBOLS + 1];
        let n_packages = current_len / 2;
        for (j, p) in packages.iter_mut().take(n_packages).enumerate() {
            *p = current[2 * j] + current[2 * j + 1];
        }
        // Merged, a leaf first on a tie.
        let (mut i, mut j, mut mask) = (0, 0, 0u64);
        for (at, c) in current.iter_mut().enumerate().take(k + n_packages) {
            let (lw, pw) = (queue[i], packages[j]);
            let take_leaf = lw <= pw;
            *c = u64::select(take_leaf, lw, pw);
            mask |= (take_leaf as u64) << at;
            i += take_leaf as usize;
            j += !take_leaf as usize;
        }
        current_len = k + n_packages;
        leaf_masks[level] = mask;
        list_lens[level] = current_len;
    }
    // From the shallowest level down, as `package_merge` walks its lists.
    let mut take = 2 * k - 2;
    for level in (0..levels).rev() {
        if take == 0 {
            break;
        }
        let selected = take.min(list_lens[level]);
        let n_leaves = (leaf_masks[level] & ((1u64 << selected) - 1)).count_ones() as usize;
        for d in depth.iter_mut().take(n_leaves) {
            *d += 1;
        }
        take = 2 * (selected - n_leaves);
    }
}

/// Depths of the optimal code of at most `max_len` bits for `leaves` (sorted by weight):
/// package-merge.
fn package_merge(leaves: &[u128], max_len: u8) -> Vec<u8> {
    let k = leaves.len();
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
            let take_leaf = j >= packages.len() || (i < leaves.len() && leaves[i] <= packages[j]);
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
    depth
}

/// The code lengths of [`Codebook::from_frequencies`] into `lengths` (one per symbol),
/// without building the codes.
pub(crate) fn code_lengths(freqs: &[u64], max_len: u8, lengths: &mut [u8]) -> Result<()> {
    if max_len == 0 || max_len > MAX_CODE_LEN {
        return Err(Error::InvalidCodeTable(format!(
            "maximum code length {max_len} is outside 1..={MAX_CODE_LEN}"
        )));
    }
    let n = freqs.len();
    if lengths.len() != n || u32::try_from(n).is_err() {
        return Err(Error::InvalidArgument(format!(
            "{} code lengths for an alphabet of {n} symbols (at most 2^32 - 1)",
            lengths.len()
        )));
    }
    lengths.fill(0);
    if n <= SMALL_SYMBOLS {
        lengths_on_stack::<SMALL_SYMBOLS, { 2 * SMALL_SYMBOLS + 2 }>(freqs, max_len, lengths)
    } else if n <= STACK_SYMBOLS {
        lengths_on_stack::<STACK_SYMBOLS, { 2 * STACK_SYMBOLS + 2 }>(freqs, max_len, lengths)
    } else {
        let (mut order, mut scratch) = (vec![0u32; n], vec![0u32; n]);
        let (mut weight, mut parent) = (vec![0u64; 2 * n + 2], vec![0u32; 2 * n + 2]);
        let scratch = (
            &mut order[..],
            &mut scratch[..],
            &mut weight[..],
            &mut parent[..],
        );
        lengths_with(freqs, max_len, lengths, scratch)
    }
}

/// [`lengths_with`] with its scratch on the stack, for alphabets of at most `N` symbols
/// (`NODES` = 2N + 2, which a const generic cannot compute yet).
fn lengths_on_stack<const N: usize, const NODES: usize>(
    freqs: &[u64],
    max_len: u8,
    lengths: &mut [u8],
) -> Result<()> {
    let mut order = [0u32; N];
    let mut scratch = [0u32; N];
    let mut weight = [0u64; NODES];
    let mut parent = [0u32; NODES];
    let scratch = (
        &mut order[..],
        &mut scratch[..],
        &mut weight[..],
        &mut parent[..],
    );
    lengths_with(freqs, max_len, lengths, scratch)
}

/// Working space of [`lengths_with`] for an alphabet of `n` symbols: the order and a
/// scratch of `n` entries, weights and parents of `2n + 2`.
type LengthScratch<'a> = (&'a mut [u32], &'a mut [u32], &'a mut [u64], &'a mut [u32]);

/// [`code_lengths`] after its checks, into zeroed `lengths`.
fn lengths_with(
    freqs: &[u64],
    max_len: u8,
    lengths: &mut [u8],
    (order, scratch, weight, parent): LengthScratch<'_>,
) -> Result<()> {
    // The used symbols in order, and the largest count, in one pass without branches.
    let (mut k, mut max_freq) = (0, 0);
    for (s, &f) in freqs.iter().enumerate() {
        order[k] = s as u32;
        k += (f > 0) as usize;
        max_freq = max_freq.max(f);
    }
    match k {
        0 => return Ok(()),
        1 => {
            let s = order[0] as usize;
            lengths[s] = 1;
            if let Some(other) = (0..freqs.len()).find(|&t| t != s) {
                lengths[other] = 1;
            }
            return Ok(());
        }
        _ => {}
    }
    if (k as u64) > (1u64 << max_len) {
        return Err(Error::InvalidCodeTable(format!(
            "{k} symbols cannot fit in codes of at most {max_len} bits"
        )));
    }
    let order = &mut order[..k];
    sort_by_frequency(freqs, max_freq, order, &mut scratch[..k]);
    let nodes = 2 * k + 2;
    limited_lengths(
        freqs,
        max_len,
        order,
        max_freq,
        &mut weight[..nodes],
        &mut parent[..nodes],
        lengths,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::huffman::Codebook;
    use crate::testdata::SplitMix64;

    /// The lengths `from_frequencies` must give, the straightforward way: symbols sorted
    /// by (frequency, index), two-queue Huffman with per-node parent and depth arrays in
    /// u128, package-merge where a code is too long.
    fn reference_lengths(freqs: &[u64], max_len: u8) -> Vec<u8> {
        let mut used: Vec<usize> = (0..freqs.len()).filter(|&s| freqs[s] > 0).collect();
        let mut lengths = vec![0u8; freqs.len()];
        if used.len() == 1 {
            lengths[used[0]] = 1;
            if let Some(other) = (0..freqs.len()).find(|&t| t != used[0]) {
                lengths[other] = 1;
            }
        }
        if used.len() < 2 {
            return lengths;
        }
        used.sort_unstable_by_key(|&s| (freqs[s], s));
        let leaves: Vec<u128> = used.iter().map(|&s| freqs[s] as u128).collect();
        let (k, n) = (leaves.len(), 2 * leaves.len() - 1);
        let mut weight = leaves.clone();
        weight.resize(n, 0);
        let mut parent = vec![0usize; n];
        let (mut leaf, mut inner) = (0, k);
        for node in k..n {
            for _ in 0..2 {
                let p = if leaf < k && (inner >= node || weight[leaf] <= weight[inner]) {
                    leaf += 1;
                    leaf - 1
                } else {
                    inner += 1;
                    inner - 1
                };
                weight[node] += weight[p];
                parent[p] = node;
            }
        }
        let mut depth = vec![0usize; n];
        for node in (0..n - 1).rev() {
            depth[node] = depth[parent[node]] + 1;
        }
        let depths: Vec<u8> = if depth[..k].iter().all(|&d| d <= max_len as usize) {
            depth[..k].iter().map(|&d| d as u8).collect()
        } else {
            package_merge(&leaves, max_len)
        };
        for (&s, &d) in used.iter().zip(&depths) {
            lengths[s] = d;
        }
        lengths
    }

    /// Canonical codes the plain RFC 1951 way: count lengths, first code per length, then
    /// one symbol after another.
    fn reference_codes(lengths: &[u8]) -> Vec<u32> {
        let mut count = [0u64; 34];
        for &l in lengths {
            count[l as usize] += 1;
        }
        count[0] = 0;
        let mut next = [0u64; 34];
        for bits in 1..=32 {
            next[bits] = (next[bits - 1] + count[bits - 1]) << 1;
        }
        lengths
            .iter()
            .map(|&l| match l {
                0 => 0,
                l => {
                    next[l as usize] += 1;
                    (next[l as usize] - 1) as u32
                }
            })
            .collect()
    }

    #[test]
    fn lengths_match_the_reference_construction() {
        let mut rng = SplitMix64(5);
        for trial in 0..3000u64 {
            let n = match trial % 5 {
                0 => 2 + (rng.next_u64() % 20) as usize,
                1 | 2 => 257,
                3 => 200 + (rng.next_u64() % 200) as usize,
                _ => 1 + (rng.next_u64() % 2000) as usize,
            };
            let zeros = rng.next_u64() % 4;
            let shape = rng.next_u64() % 5;
            let freqs: Vec<u64> = (0..n)
                .map(|i| {
                    let r = rng.next_u64();
                    if zeros > 0 && r.is_multiple_of(zeros + 1) {
                        return 0;
                    }
                    match shape {
                        // Many ties.
                        0 => 1 + r % 4,
                        // Skewed: long codes, package-merge at 15 bits.
                        1 => 1 + (r >> (r % 40 + 20)),
                        // Counts from several bytes of the key wide.
                        2 => r >> (r % 64),
                        // Sums beyond u64.
                        3 => u64::MAX / 3 + r % 1000,
                        _ => 1 + (i as u64 % 7) * 1000 + r % 3,
                    }
                })
                .collect();
            for max_len in [7u8, 15, 32] {
                let want = (freqs.iter().filter(|&&f| f > 0).count() as u64) <= 1 << max_len;
                match Codebook::from_frequencies(&freqs, max_len) {
                    Ok(book) => {
                        assert!(want, "trial {trial}: accepted too many symbols");
                        assert_eq!(
                            book.lengths(),
                            &reference_lengths(&freqs, max_len)[..],
                            "trial {trial}, limit {max_len}"
                        );
                        assert_eq!(book.codes(), &reference_codes(book.lengths())[..]);
                    }
                    Err(_) => assert!(!want, "trial {trial}, limit {max_len}"),
                }
            }
        }
    }
}
