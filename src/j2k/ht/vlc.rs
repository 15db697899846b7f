//! The encoder's view of the HT cleanup pass's variable-length codes: the CxtVLC
//! look-up derived from the standard's tables ([`super::vlc_tables`]) and the u codes
//! (UVLC).

use super::vlc_tables::{FIRST_ROW, OTHER_ROWS};

/// One row of a CxtVLC table (see [`super::vlc_tables`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Codeword {
    pub c_q: u8,
    pub rho: u8,
    pub u_off: u8,
    pub e_k: u8,
    pub e_1: u8,
    /// The codeword, first bit in bit 0.
    pub bits: u8,
    pub len: u8,
}

/// A table row; `code` is the codeword as sent, first bit first ('0' and '1' only).
pub const fn w(c_q: u8, rho: u8, u_off: u8, e_k: u8, e_1: u8, code: &str) -> Codeword {
    let b = code.as_bytes();
    let mut bits = 0u8;
    let mut i = 0;
    while i < b.len() {
        bits |= ((b[i] == b'1') as u8) << i;
        i += 1;
    }
    Codeword {
        c_q,
        rho,
        u_off,
        e_k,
        e_1,
        bits,
        len: b.len() as u8,
    }
}

/// The codeword an encoder sends for a quad: its bits and length, and `e_k`, the
/// samples whose top magnitude bit it already tells (their MagSgn loses that bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    pub bits: u8,
    pub len: u8,
    pub e_k: u8,
}

/// Index of a quad in a [`Lookup`]: its context (0..8), significance pattern (0..16)
/// and EMB pattern `eps` (the samples whose exponent reaches the quad's bound U; 0 when
/// no u follows).
const fn index(c_q: u8, rho: u8, eps: u8) -> usize {
    ((c_q as usize) << 8) | ((rho as usize) << 4) | eps as usize
}

/// For every (context, rho, eps) the cheapest codeword that may send it: 0 where none
/// may (packed as bits | len << 7 | e_k << 10; a codeword is never empty).
pub struct Lookup([u16; 2048]);

/// Bits a choice costs in the VLC and MagSgn streams, relative to the others: its length
/// less one MagSgn bit saved for each sample in e_k.
const fn cost(c: &Codeword) -> i32 {
    c.len as i32 - c.e_k.count_ones() as i32
}

const fn derive(table: &[Codeword]) -> Lookup {
    let mut out = [0u16; 2048];
    let mut best = [i32::MAX; 2048];
    let mut i = 0;
    while i < table.len() {
        let c = &table[i];
        i += 1;
        // eps = 0 is "no u": only u_off = 0 rows send it. Otherwise any eps within rho
        // that agrees with the row's e_1 on the samples of e_k.
        let mut eps = 0u8;
        while eps < 16 {
            let fits = if c.u_off == 0 {
                eps == 0
            } else {
                eps != 0 && eps & !c.rho == 0 && eps & c.e_k == c.e_1
            };
            let at = index(c.c_q, c.rho, eps);
            // Cheapest first; of equal cost, the shorter codeword.
            let better =
                cost(c) < best[at] || (cost(c) == best[at] && c.len < ((out[at] >> 7) & 7) as u8);
            if fits && better {
                best[at] = cost(c);
                out[at] = c.bits as u16 | (c.len as u16) << 7 | (c.e_k as u16) << 10;
            }
            eps += 1;
        }
    }
    Lookup(out)
}

/// The look-up for the first quad row.
pub static FIRST: Lookup = derive(&FIRST_ROW);
/// The look-up for the other quad rows.
pub static OTHERS: Lookup = derive(&OTHER_ROWS);

impl Lookup {
    /// Every entry, packed as `bits | len << 7 | e_k << 10` (0: no codeword), indexed by
    /// `c_q << 8 | rho << 4 | eps`: what the GPU stage uploads.
    pub fn packed(&self) -> &[u16; 2048] {
        &self.0
    }

    /// The codeword for a quad, if the table has one.
    pub fn get(&self, c_q: u8, rho: u8, eps: u8) -> Option<Choice> {
        let v = self.0[index(c_q & 7, rho & 15, eps & 15)];
        (v != 0).then_some(Choice {
            bits: (v & 0x7F) as u8,
            len: ((v >> 7) & 7) as u8,
            e_k: (v >> 10) as u8,
        })
    }
}

/// A u code in two parts (prefix, then suffix, each first bit in bit 0), as T.814's
/// u_pfx/u_sfx table has them for u = 1..=32. Larger u would need the 4-bit extension,
/// which no code-block here reaches (u < 31 with at most 30 magnitude bit-planes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UCode {
    pub prefix: u32,
    pub prefix_len: u32,
    pub suffix: u32,
    pub suffix_len: u32,
}

/// The largest u [`ucode`] sends.
pub const MAX_U: u32 = 32;

/// The code of `u` (1..=[`MAX_U`]); 0 has no code (nothing is sent).
pub fn ucode(u: u32) -> UCode {
    let (prefix, prefix_len, suffix, suffix_len) = match u {
        0 => (0, 0, 0, 0),
        1 => (0b1, 1, 0, 0),           // "1"
        2 => (0b10, 2, 0, 0),          // "01"
        3 | 4 => (0b100, 3, u - 3, 1), // "001" + 1 bit
        _ => (0b000, 3, u - 5, 5),     // "000" + 5 bits
    };
    UCode {
        prefix,
        prefix_len,
        suffix,
        suffix_len,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> [(&'static [Codeword], u8); 2] {
        [(&FIRST_ROW, 0), (&OTHER_ROWS, 1)]
    }

    #[test]
    fn codewords_of_one_context_are_prefix_free() {
        // A decoder reads up to 7 bits and looks the codeword up by context: no codeword
        // of a context may begin another of the same context.
        for (table, _) in all() {
            for a in table {
                assert!(
                    a.len >= 1 && a.len <= 7 && (a.bits as u32) < 1 << a.len,
                    "{a:?}"
                );
                assert!(a.e_1 & !a.e_k == 0 && a.e_k & !a.rho == 0, "{a:?}");
                for b in table {
                    if std::ptr::eq(a, b) || a.c_q != b.c_q || a.len > b.len {
                        continue;
                    }
                    let mask = (1u8 << a.len) - 1;
                    assert!(b.bits & mask != a.bits, "{a:?} begins {b:?}");
                }
            }
        }
    }

    #[test]
    fn every_quad_an_encoder_meets_has_a_codeword() {
        for (lookup, name) in [(&FIRST, "first"), (&OTHERS, "other")] {
            for c in 0..8u8 {
                for rho in 0..16u8 {
                    // Context 0 with rho 0 is coded by the MEL alone.
                    if c == 0 && rho == 0 {
                        assert!(lookup.get(0, 0, 0).is_none());
                        continue;
                    }
                    for eps in 0..16u8 {
                        let want = eps == 0 || (eps & !rho == 0);
                        let got = lookup.get(c, rho, eps);
                        assert_eq!(got.is_some(), want, "{name} c {c} rho {rho:x} eps {eps:x}");
                        if let Some(ch) = got {
                            // What it tells about e_k must be true of eps.
                            assert!(ch.e_k & !rho == 0, "{name} c {c} rho {rho:x}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn lookup_by_hand() {
        // First row, context 0, rho 1 without u: "0110" (bits 0,1,1,0 -> 0b0110).
        let ch = FIRST.get(0, 1, 0).unwrap();
        assert_eq!((ch.bits, ch.len, ch.e_k), (0b0110, 4, 0));
        // With u and the one sample at the bound: "1111110", which tells e_k = 1.
        let ch = FIRST.get(0, 1, 1).unwrap();
        assert_eq!((ch.bits, ch.len, ch.e_k), (0b0111111, 7, 1));
        // First row, context 0, rho 3, eps 1: rows (e_k 2, e_1 2) does not fit (sample 1
        // is not at the bound), (e_k 3, e_1 1) does: "1111100".
        let ch = FIRST.get(0, 3, 1).unwrap();
        assert_eq!((ch.len, ch.e_k), (7, 3));
        assert_eq!(ch.bits, 0b0011111);
        // eps 2 fits both: (e_k 2, "1111101") costs 7 - 1, (e_k 3, e_1 1) does not fit
        // eps 2 (sample 0 not at the bound), so e_k = 2.
        let ch = FIRST.get(0, 3, 2).unwrap();
        assert_eq!((ch.bits, ch.len, ch.e_k), (0b1011111, 7, 2));
    }

    #[test]
    fn u_codes_by_hand() {
        let code = |u| {
            let c = ucode(u);
            let mut s = String::new();
            for i in 0..c.prefix_len {
                s.push(if c.prefix >> i & 1 == 1 { '1' } else { '0' });
            }
            s.push('|');
            for i in 0..c.suffix_len {
                s.push(if c.suffix >> i & 1 == 1 { '1' } else { '0' });
            }
            s
        };
        assert_eq!(code(0), "|");
        assert_eq!(code(1), "1|");
        assert_eq!(code(2), "01|");
        assert_eq!(code(3), "001|0");
        assert_eq!(code(4), "001|1");
        assert_eq!(code(5), "000|00000");
        assert_eq!(code(6), "000|10000");
        assert_eq!(code(32), "000|11011");
    }
}
