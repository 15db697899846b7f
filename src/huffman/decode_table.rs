//! Canonical decode tables shared by the decoders: the native CPU decoder
//! ([`super::cpu::Decoder`], first stream bit most significant), the literal-only inflate
//! ([`super::inflate_frame`], first bit least significant) and the GPU decoder's table
//! ([`super::vld`]).
//!
//! [`Canonical`] validates code lengths once and holds, per length, the first code, the
//! count and where its symbols start among the symbols sorted by (length, symbol): enough
//! to decode any code by a search over lengths, and to enumerate every code for a table.
//! [`fast_table`] is the CPU decoders' lookup table: `FAST_BITS` stream bits give up to
//! three literals, a symbol that is no literal, or "longer than the table".

use super::Codebook;
use crate::Result;

/// Stream bits one lookup of the fast table takes: 12 bits (16 KiB, in L1) give two
/// literals a lookup at 5-6 bits a byte.
pub(crate) const FAST_BITS: u32 = 12;
pub(crate) const FAST_LEN: usize = 1 << FAST_BITS;

/// A fast table entry: bits 0..6 the bits it takes (a shift count as it is), 6..30 up
/// to three literals (bytes), first lowest, 30..32 how many. With no literal: a symbol
/// that is no byte in bits 6.. with its code length in 0..6, or 0 for a code longer than
/// the table (or none at all).
pub(crate) type Entry = u32;
pub(crate) const LEN_MASK: u32 = 63;
const SYM_SHIFT: u32 = 6;
const COUNT_SHIFT: u32 = 30;
pub(crate) const COUNT_MASK: u32 = 3 << COUNT_SHIFT;
const BYTE: u32 = 0xff << SYM_SHIFT;

/// Literals an entry gives (0..=3).
#[inline(always)]
pub(crate) fn literals(e: Entry) -> usize {
    (e >> COUNT_SHIFT) as usize
}

/// An entry's literals as the four bytes to write (only `literals(e)` of them count).
#[inline(always)]
pub(crate) fn literal_bytes(e: Entry) -> [u8; 4] {
    (e >> SYM_SHIFT).to_le_bytes()
}

/// An entry's first symbol: its first literal, or the symbol that is no byte.
#[inline(always)]
pub(crate) fn first_symbol(e: Entry) -> u32 {
    if e & COUNT_MASK != 0 {
        (e >> SYM_SHIFT) & 0xff
    } else {
        e >> SYM_SHIFT
    }
}

/// A validated canonical code (RFC 1951 3.2.2: shorter codes first, ties by symbol).
#[derive(Clone, Debug)]
pub(crate) struct Canonical {
    /// Per length 1..=32: first code (first bit most significant), number of codes, index
    /// of the first in `sorted`.
    first: [u64; 33],
    count: [u32; 33],
    index: [u32; 33],
    /// Symbols with a code, by (length, symbol).
    sorted: Vec<u16>,
    max_len: u32,
}

impl Canonical {
    /// The canonical code of `lengths` (at most 65536 symbols). Over-subscribed lengths
    /// and lengths above 32 get [`Codebook::from_lengths`]'s error; incomplete codes are
    /// allowed (a lookup that finds no code says so).
    pub(crate) fn new(lengths: &[u8]) -> Result<Canonical> {
        let count = check_lengths(lengths)?;
        let mut first = [0u64; 33];
        let mut index = [0u32; 33];
        let (mut code, mut idx) = (0u64, 0u32);
        for l in 1..=32 {
            code = (code + count[l - 1] as u64) << 1;
            first[l] = code;
            index[l] = idx;
            idx += count[l];
        }
        let mut sorted = vec![0u16; idx as usize];
        let mut fill = index;
        for (s, &l) in lengths.iter().enumerate() {
            if l > 0 {
                // In range: `idx` counts every symbol with a code, and `s` fits a u16.
                sorted[fill[l as usize] as usize] = s as u16;
                fill[l as usize] += 1;
            }
        }
        let max_len = (1..=32).rev().find(|&l| count[l] > 0).unwrap_or(0) as u32;
        Ok(Canonical {
            first,
            count,
            index,
            sorted,
            max_len,
        })
    }

    /// Longest code length (0 for no code).
    pub(crate) fn max_len(&self) -> u32 {
        self.max_len
    }

    /// Codes of `len` bits: first code, count, index of the first in [`Canonical::sorted`].
    /// (Tests only: the VLD table builder's reference.)
    #[cfg(test)]
    pub(crate) fn at_len(&self, len: usize) -> (u64, u32, u32) {
        (self.first[len], self.count[len], self.index[len])
    }

    /// Symbols with a code, by (length, symbol). (Tests only, as [`Canonical::at_len`].)
    #[cfg(test)]
    pub(crate) fn sorted(&self) -> &[u16] {
        &self.sorted
    }

    /// Every code of at most `max` bits, in canonical order: `f(symbol, length, code)`,
    /// the code's first bit its most significant.
    #[inline]
    pub(crate) fn for_each_code(&self, max: u32, mut f: impl FnMut(u32, u32, u32)) {
        for l in 1..=max.min(self.max_len) as usize {
            let start = self.index[l] as usize;
            let end = start + self.count[l] as usize;
            let mut code = self.first[l] as u32;
            for &s in self.sorted.get(start..end).unwrap_or(&[]) {
                f(s as u32, l as u32, code);
                code = code.wrapping_add(1);
            }
        }
    }

    /// Decodes the code of `from` bits or longer at the top of `bits` (first stream bit
    /// most significant; at least `max_len` bits there, or zeros): its symbol and length,
    /// or None where no code matches.
    #[inline]
    pub(crate) fn decode(&self, bits: u64, from: u32) -> Option<(u32, u32)> {
        for l in from.max(1)..=self.max_len {
            let li = l as usize;
            let d = (bits >> (64 - l)).wrapping_sub(self.first[li]);
            if d < self.count[li] as u64 {
                let k = self.index[li] as usize + d as usize;
                return self.sorted.get(k).map(|&s| (s as u32, l));
            }
        }
        None
    }
}

/// Checks `lengths` as [`Codebook::from_lengths`] does (nothing above 32 bits, not
/// over-subscribed; its error where not) without building codes; returns the number of
/// codes of each length (index 0: symbols without a code).
pub(crate) fn check_lengths(lengths: &[u8]) -> Result<[u32; 33]> {
    let mut count = [0u32; 33];
    let mut bad = false;
    for &l in lengths {
        match count.get_mut(l as usize) {
            Some(c) => *c += 1,
            None => bad = true,
        }
    }
    // Kraft sum scaled by 2^32.
    let kraft: u64 = (1..=32).map(|l| (count[l] as u64) << (32 - l)).sum();
    if bad || kraft > 1 << 32 {
        // The codebook's own check names the fault.
        Codebook::from_lengths(lengths)?;
    }
    if bad || kraft > 1 << 32 || lengths.len() > u16::MAX as usize {
        return Err(crate::Error::InvalidCodeTable(format!(
            "{} symbols is too many to decode",
            lengths.len()
        )));
    }
    count[0] = 0;
    Ok(count)
}

/// The fast table of `code`: `LSB` where the first stream bit is the index's lowest
/// (DEFLATE), else its highest (native). Literals are the symbols below 256; an entry
/// gives as many (up to three) as fit whole in its `FAST_BITS` bits.
pub(crate) fn fast_table<const LSB: bool>(code: &Canonical) -> Box<[Entry; FAST_LEN]> {
    let mut table = Box::new([0 as Entry; FAST_LEN]);
    SCRATCH.with_borrow_mut(|scratch| {
        let scratch = scratch.get_or_insert_with(|| Box::new([[0; FAST_LEN]; 3]));
        let [msb, second, third] = &mut **scratch;
        if LSB {
            fill_msb_first(code, msb, second, third);
            reverse_index(msb, &mut table);
        } else {
            fill_msb_first(code, &mut table, second, third);
        }
    });
    table
}

thread_local! {
    /// The builder's work space, kept: a table is built for every frame, and zeroing
    /// 48 KiB each time would cost a tenth of the build.
    static SCRATCH: std::cell::RefCell<Option<Box<[Levels; 3]>>> =
        const { std::cell::RefCell::new(None) };
}

/// Sub-tables of `k` bits, `k` below `FAST_BITS`, one buffer: the one of `k` bits at
/// `2^k..2^(k+1)`.
type Levels = [Entry; FAST_LEN];

/// The fast table, first stream bit highest in the index (every entry written; `second`
/// and `third` are work space, whatever they hold). Canonical
/// codes of at most `k` bits cover a `k`-bit table from 0 up in canonical order, a code
/// of `l` bits `2^(k - l)` entries. So a literal of `l` bits covers its run of the table
/// with itself followed by the table of what `FAST_BITS - l` bits hold: the same for
/// every literal of that length, built once (and that one from the table of single
/// literals the same way). Runs filled in order, no lookups: a table costs about as much
/// as 2 KB of output, and frames can be 16 KB.
fn fill_msb_first(
    code: &Canonical,
    table: &mut [Entry; FAST_LEN],
    second: &mut Levels,
    third: &mut Levels,
) {
    const T: u32 = FAST_BITS;
    // Codes of at most T bits in canonical order, as first-literal entries; `upto[k]`
    // of them have at most k bits.
    let mut short = Vec::with_capacity(code.sorted.len().min(FAST_LEN));
    let mut upto = [0usize; T as usize + 1];
    code.for_each_code(T, |s, l, _| {
        short.push(if s < 256 {
            (1 << COUNT_SHIFT) | (s << SYM_SHIFT) | l
        } else {
            (s << SYM_SHIFT) | l
        });
        upto[l as usize] += 1;
    });
    for k in 1..upto.len() {
        upto[k] += upto[k - 1];
    }
    let Some(&first) = short.first() else {
        table.fill(0);
        return;
    };
    let min_len = first & LEN_MASK;
    let literal = |e: Entry| e & COUNT_MASK != 0;
    // A literal moved to the `k`-th place (0 first) of an entry.
    let place = |e: Entry, k: u32| (1 << COUNT_SHIFT) | (e & LEN_MASK) | ((e & BYTE) << (8 * k));
    // `e` then what `rest` holds: `rest` has the later places and their bit count.
    let then = |e: Entry, rest: Entry| if rest != 0 { rest + e } else { e };

    // Third literals: single literals of `m` bits in place 2, for m from T - 2 down.
    let top = T.saturating_sub(2).max(min_len);
    if top < T {
        let run = &mut third[1 << top..2 << top];
        let mut at = 0usize;
        for &e in &short[..upto[top as usize]] {
            let n = 1usize << (top - (e & LEN_MASK));
            let v = if literal(e) { place(e, 2) } else { 0 };
            if let Some(r) = run.get_mut(at..at + n) {
                r.fill(v);
            }
            at += n;
        }
        run.get_mut(at..).unwrap_or_default().fill(0);
        for m in (min_len..top).rev() {
            // m bits: the first m of m + 1 (a zero after), a code only if it fits m.
            let (lower, upper) = third.split_at_mut(2 << m);
            for (d, e) in lower[1 << m..].iter_mut().zip(upper.chunks_exact(2)) {
                *d = if e[0] & LEN_MASK <= m { e[0] } else { 0 };
            }
        }
    }
    // Second and third literals in `k` bits, for each k a first literal leaves.
    let mut built = [false; T as usize + 1];
    for &e1 in &short {
        let k = T - (e1 & LEN_MASK);
        if !literal(e1) || k < min_len || std::mem::replace(&mut built[k as usize], true) {
            continue;
        }
        let run = &mut second[1 << k..2 << k];
        let mut at = 0usize;
        for &e2 in &short[..upto[k as usize]] {
            let r = k - (e2 & LEN_MASK);
            let n = 1usize << r;
            let Some(block) = run.get_mut(at..at + n) else {
                break;
            };
            at += n;
            if !literal(e2) {
                block.fill(0);
                continue;
            }
            let e2 = place(e2, 1);
            match third.get(1 << r..2 << r) {
                Some(rest) if r >= min_len => {
                    for (d, &t) in block.iter_mut().zip(rest) {
                        *d = then(e2, t);
                    }
                }
                _ => block.fill(e2),
            }
        }
        run.get_mut(at..).unwrap_or_default().fill(0);
    }
    // The table: each code's run.
    let mut at = 0usize;
    for &e1 in &short {
        let k = T - (e1 & LEN_MASK);
        let n = 1usize << k;
        let Some(block) = table.get_mut(at..at + n) else {
            break;
        };
        at += n;
        match second.get(1 << k..2 << k) {
            Some(rest) if literal(e1) && k >= min_len => {
                for (d, &t) in block.iter_mut().zip(rest) {
                    *d = then(e1, t);
                }
            }
            _ => block.fill(e1),
        }
    }
    table.get_mut(at..).unwrap_or_default().fill(0);
}

/// Bit reversal of `FAST_BITS / 2` bits, for each value.
const REV_HALF: [u16; 1 << (FAST_BITS / 2)] = {
    let mut r = [0u16; 1 << (FAST_BITS / 2)];
    let mut i = 0;
    while i < r.len() {
        r[i] = ((i as u32).reverse_bits() >> (32 - FAST_BITS / 2)) as u16;
        i += 1;
    }
    r
};

/// `msb`'s entry `i` at the index whose bits are `i`'s reversed (as two halves).
fn reverse_index(msb: &[Entry; FAST_LEN], table: &mut [Entry; FAST_LEN]) {
    const HALF: u32 = FAST_BITS / 2;
    const _: () = assert!(FAST_BITS == 2 * HALF);
    for (hi, row) in msb.chunks_exact(1 << HALF).enumerate() {
        let low = REV_HALF[hi] as usize;
        for (&r, &e) in REV_HALF.iter().zip(row) {
            table[(((r as usize) << HALF) | low) & (FAST_LEN - 1)] = e;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Code lengths of several shapes: skewed with long codes and symbols that are no
    /// byte (incomplete), a complete code from frequencies, one bit per symbol, every
    /// byte 8 bits, a code whose shortest is 12 bits, and no code at all.
    fn codes() -> Vec<Vec<u8>> {
        let skewed = (0..258)
            .map(|s| match s {
                0 => 2,
                1..=3 => 3,
                4..=9 => 5,
                256 => 6,
                257 => 14,
                _ if s % 3 == 0 => 0,
                _ => 13,
            })
            .collect();
        let freqs: Vec<u64> = (0..257u64).map(|s| 1 + (s * s * 7919) % 1000).collect();
        let mut two = vec![0u8; 257];
        (two[0], two[256]) = (1, 1);
        let long: Vec<u8> = (0..257).map(|s| if s < 200 { 12 } else { 0 }).collect();
        vec![
            skewed,
            Codebook::from_frequencies(&freqs, 15)
                .unwrap()
                .lengths()
                .to_vec(),
            two,
            vec![8; 256],
            long,
            vec![0; 256],
        ]
    }

    /// Every entry of both bit orders against a bit-serial decode of its bits.
    #[test]
    fn fast_table_entries_are_the_codes() {
        for lengths in codes() {
            let code = Canonical::new(&lengths).unwrap();
            let (msb_table, lsb_table) = (fast_table::<false>(&code), fast_table::<true>(&code));
            for i in 0..FAST_LEN {
                for lsb in [false, true] {
                    let e = if lsb { lsb_table[i] } else { msb_table[i] };
                    // The index as MSB-first stream bits at the top of a word.
                    let msb = if lsb {
                        (i as u32).reverse_bits() >> (32 - FAST_BITS)
                    } else {
                        i as u32
                    };
                    let bits = (msb as u64) << (64 - FAST_BITS);
                    let (mut w, mut used, mut lits) = (bits, 0, Vec::new());
                    while let Some((s, l)) = code.decode(w, 1) {
                        if used + l > FAST_BITS || s > 255 || lits.len() == 3 {
                            break;
                        }
                        lits.push(s);
                        used += l;
                        w <<= l;
                    }
                    assert_eq!(literals(e), lits.len(), "entry {i} lsb {lsb}");
                    if lits.is_empty() {
                        match code.decode(bits, 1) {
                            Some((s, l)) if l <= FAST_BITS => {
                                assert_eq!(e, (s << SYM_SHIFT) | l, "entry {i}");
                                assert_eq!(lengths[s as usize] as u32, l);
                            }
                            _ => assert_eq!(e, 0, "entry {i}"),
                        }
                    } else {
                        assert_eq!(e & LEN_MASK, used, "entry {i}");
                        for (k, &s) in lits.iter().enumerate() {
                            assert_eq!(literal_bytes(e)[k] as u32, s, "entry {i} literal {k}");
                        }
                        assert_eq!(first_symbol(e), lits[0]);
                    }
                }
            }
        }
    }

    #[test]
    fn canonical_matches_the_codebook() {
        let lengths: Vec<u8> = (0..300).map(|s| [0u8, 9, 8, 10, 12, 7][s % 6]).collect();
        let code = Canonical::new(&lengths).unwrap();
        let book = Codebook::from_lengths(&lengths).unwrap();
        for (s, &l) in lengths.iter().enumerate() {
            if l > 0 {
                let c = book.codes()[s] as u64;
                assert_eq!(code.decode(c << (64 - l), 1), Some((s as u32, l as u32)));
            }
        }
        let mut seen = 0;
        code.for_each_code(32, |s, l, c| {
            assert_eq!(book.codes()[s as usize], c);
            assert_eq!(lengths[s as usize] as u32, l);
            seen += 1;
        });
        assert_eq!(seen, lengths.iter().filter(|&&l| l > 0).count());
        // Over-subscribed and too long: the codebook's errors.
        for bad in [vec![1u8, 1, 1], vec![33u8, 1]] {
            assert_eq!(
                Canonical::new(&bad).unwrap_err().to_string(),
                Codebook::from_lengths(&bad).unwrap_err().to_string()
            );
        }
    }
}
