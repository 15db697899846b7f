//! Tier-2: tag trees and packets (ITU-T T.800 B.9, B.10) for one quality layer.
//!
//! A packet header is a bit stream in which every byte after a 0xFF carries only 7 bits
//! (its MSB is a stuffed 0), so no marker code can appear in it. Each included code-block
//! is signalled by the inclusion tag tree, the zero bit-plane tag tree, its number of
//! coding passes, an Lblock increment and one length per codeword segment.

use crate::{Error, Result};

/// The packet header's bit writer: MSB-first, 7 bits in the byte after each 0xFF.
#[derive(Debug, Default)]
pub struct HeaderWriter {
    out: Vec<u8>,
    /// Bits not yet in a byte: the low `pending` bits, the first the most significant.
    acc: u64,
    pending: u32,
    /// Whether the last byte written is 0xFF (the next then carries 7 bits).
    after_ff: bool,
}

impl HeaderWriter {
    pub fn put_bit(&mut self, bit: bool) {
        self.put_bits(bit as u32, 1);
    }

    /// The low `n` bits of `value` (`n` at most 32), most significant first.
    pub fn put_bits(&mut self, value: u32, n: u32) {
        debug_assert!(n <= 32);
        if n == 0 {
            return;
        }
        // At most 7 bits wait between calls, so 39 fit; older bits shift out unread.
        self.acc = (self.acc << n) | (value as u64 & ((1u64 << n) - 1));
        self.pending += n;
        loop {
            let room = self.room();
            if self.pending < room {
                break;
            }
            self.pending -= room;
            let byte = ((self.acc >> self.pending) & ((1 << room) - 1)) as u8;
            self.push(byte);
        }
    }

    /// `n` zero bits.
    fn put_zeros(&mut self, mut n: u32) {
        while n > 0 {
            let k = n.min(32);
            self.put_bits(0, k);
            n -= k;
        }
    }

    /// Bits the next byte carries.
    fn room(&self) -> u32 {
        if self.after_ff {
            7
        } else {
            8
        }
    }

    fn push(&mut self, byte: u8) {
        self.out.push(byte);
        self.after_ff = byte == 0xFF;
    }

    /// Pad the last byte with zeros; a header that ends in 0xFF gets one more (zero) byte,
    /// so the body never follows a 0xFF (B.10.1). An empty header is one zero byte.
    pub fn finish(mut self) -> Vec<u8> {
        if self.pending > 0 {
            let room = self.room();
            let mask = (1u64 << self.pending) - 1;
            self.push(((self.acc & mask) << (room - self.pending)) as u8);
        }
        if self.out.is_empty() || self.after_ff {
            self.push(0);
        }
        self.out
    }
}

#[derive(Clone, Copy, Debug)]
struct Node {
    value: u32,
    /// Lower bound the decoder already knows.
    low: u32,
    known: bool,
}

/// A tag tree over a `w` x `h` grid of leaves (B.10.2): each node holds the minimum of its
/// children, and a leaf's value is coded from the root down, each node only as far as
/// its parents have not already told.
#[derive(Clone, Debug)]
pub struct TagTree {
    /// Level by level from the leaves up, each row-major: level `l` is the grid halved
    /// `l` times (rounded up), and a node's parent is the node at half its coordinates.
    nodes: Vec<Node>,
    /// Each level's first node and width, leaves first.
    levels: Vec<(usize, usize)>,
    width: usize,
}

impl TagTree {
    /// Build the tree over `values` (raster order, `w` x `h`, both at least 1).
    pub fn new(w: usize, h: usize, values: &[u32]) -> TagTree {
        debug_assert_eq!(values.len(), w * h);
        let node = |value| Node {
            value,
            low: 0,
            known: false,
        };
        // Each level above the leaves has at most half of the one below, rounded up in
        // each direction: fewer than the leaves again plus a node per level (at most 64).
        let mut nodes: Vec<Node> = Vec::with_capacity(2 * w * h + 64);
        nodes.extend(values.iter().map(|&v| node(v)));
        let mut levels = vec![(0, w)];
        let (mut lw, mut lh, mut start) = (w, h, 0);
        while lw * lh > 1 {
            let (pw, ph) = (lw.div_ceil(2), lh.div_ceil(2));
            let pstart = nodes.len();
            nodes.resize(pstart + pw * ph, node(u32::MAX));
            for y in 0..lh {
                for x in 0..lw {
                    let child = nodes[start + y * lw + x].value;
                    let parent = &mut nodes[pstart + (y / 2) * pw + x / 2];
                    parent.value = parent.value.min(child);
                }
            }
            levels.push((pstart, pw));
            (lw, lh, start) = (pw, ph, pstart);
        }
        TagTree {
            nodes,
            levels,
            width: w,
        }
    }

    /// Code whether leaf `leaf`'s value is below `threshold`, and if it is, the value.
    pub fn encode(&mut self, leaf: usize, threshold: u32, bits: &mut HeaderWriter) {
        let (x, y) = (leaf % self.width, leaf / self.width);
        let mut low = 0;
        for (l, &(start, w)) in self.levels.iter().enumerate().rev() {
            let node = &mut self.nodes[start + (y >> l) * w + (x >> l)];
            if low > node.low {
                node.low = low;
            } else {
                low = node.low;
            }
            // A 0 for each value the node is known not to have below the threshold, then
            // a 1 once the value is reached (said once per node).
            if low < threshold {
                let zeros = node.value.min(threshold).saturating_sub(low);
                bits.put_zeros(zeros);
                low += zeros;
                if low < threshold && !node.known {
                    bits.put_bit(true);
                    node.known = true;
                }
            }
            node.low = low;
        }
    }
}

/// The "number of coding passes" codeword (Table B.4).
pub fn put_num_passes(n: u32, bits: &mut HeaderWriter) -> Result<()> {
    match n {
        1 => bits.put_bits(0, 1),
        2 => bits.put_bits(0b10, 2),
        3..=5 => bits.put_bits(0b1100 | (n - 3), 4),
        6..=36 => bits.put_bits((0b1111 << 5) | (n - 6), 9),
        37..=164 => bits.put_bits((0x1FF << 7) | (n - 37), 16),
        _ => {
            return Err(Error::InvalidArgument(format!(
                "a code-block cannot have {n} coding passes (1..=164)"
            )))
        }
    }
    Ok(())
}

fn floor_log2(n: u32) -> u32 {
    31 - n.leading_zeros()
}

fn bit_length(n: u32) -> u32 {
    32 - n.leading_zeros()
}

/// What a packet header needs to know of one code-block in the (single) layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockHeader {
    /// Number of coding passes included (0: not included).
    pub passes: u32,
    /// Missing most significant bit-planes (Mb - number of bit-planes coded).
    pub zero_bitplanes: u32,
    /// (passes, bytes) of each codeword segment, in order; passes add up to `passes`.
    pub segments: Vec<(u32, u32)>,
}

/// Lblock starts at 3 (B.10.7.1); with one layer every block is signalled once.
const LBLOCK_START: u32 = 3;

/// The header of one packet: `bands` holds, per band of the precinct, its code-block grid
/// width and height and its blocks in raster order.
pub fn packet_header(bands: &[(usize, usize, Vec<&BlockHeader>)]) -> Result<Vec<u8>> {
    let mut bits = HeaderWriter::default();
    let any = bands
        .iter()
        .any(|(_, _, blocks)| blocks.iter().any(|b| b.passes > 0));
    // The empty packet: a single 0 bit (B.10.3).
    bits.put_bit(any);
    if !any {
        return Ok(bits.finish());
    }
    for (w, h, blocks) in bands {
        let incl: Vec<u32> = blocks.iter().map(|b| (b.passes == 0) as u32).collect();
        let zbp: Vec<u32> = blocks.iter().map(|b| b.zero_bitplanes).collect();
        let mut incl_tree = TagTree::new(*w, *h, &incl);
        let mut zbp_tree = TagTree::new(*w, *h, &zbp);
        for (i, b) in blocks.iter().enumerate() {
            // Inclusion in layer 0: the first layer index, coded against threshold 1.
            incl_tree.encode(i, 1, &mut bits);
            if b.passes == 0 {
                continue;
            }
            zbp_tree.encode(i, b.zero_bitplanes + 1, &mut bits);
            put_num_passes(b.passes, &mut bits)?;
            // Enough Lblock increments that every segment length fits in
            // Lblock + floor(log2(passes in the segment)) bits.
            let mut inc = 0;
            for &(p, len) in &b.segments {
                let room = LBLOCK_START + floor_log2(p.max(1));
                inc = inc.max(bit_length(len).saturating_sub(room));
            }
            // `inc` ones, then a zero.
            bits.put_bits(((1u64 << inc) - 1) as u32 * 2, inc + 1);
            for &(p, len) in &b.segments {
                bits.put_bits(len, LBLOCK_START + inc + floor_log2(p.max(1)));
            }
        }
    }
    Ok(bits.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits_of(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:08b}")).collect()
    }

    #[test]
    fn writer_stuffs_a_zero_after_ff() {
        let mut w = HeaderWriter::default();
        w.put_bits(0xFF, 8);
        w.put_bits(0b1111111, 7);
        w.put_bits(0b1, 1);
        // 0xFF, then 7 bits in 0x7F, then the next bit starts a new byte.
        assert_eq!(w.finish(), vec![0xFF, 0x7F, 0x80]);
        // A header ending exactly in 0xFF gets a trailing zero byte.
        let mut w = HeaderWriter::default();
        w.put_bits(0xFF, 8);
        assert_eq!(w.finish(), vec![0xFF, 0x00]);
        // Partial last byte is padded with zeros.
        let mut w = HeaderWriter::default();
        w.put_bits(0b101, 3);
        assert_eq!(w.finish(), vec![0b1010_0000]);
    }

    /// The stuffing rule bit by bit, as B.10.1 states it: a byte holds 8 bits, 7 after
    /// a 0xFF (its MSB a stuffed 0); the last is padded with zeros, a final 0xFF followed
    /// by a zero byte.
    fn stuffed(bits: &[bool]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut i = 0;
        loop {
            let room = if out.last() == Some(&0xFF) { 7 } else { 8 };
            let mut byte = 0u8;
            for k in 0..room {
                if bits.get(i + k) == Some(&true) {
                    byte |= 1 << (room - 1 - k);
                }
            }
            out.push(byte);
            i += room;
            if i >= bits.len() {
                break;
            }
        }
        if out.last() == Some(&0xFF) {
            out.push(0);
        }
        out
    }

    #[test]
    fn writes_of_any_width_stuff_as_the_rule_says() {
        // Seeded runs of mostly ones (0xFF bytes often) and mixed bits, written in pieces
        // of 0 to 32 bits, against the rule bit by bit.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for case in 0..300 {
            let mut w = HeaderWriter::default();
            let mut bits = Vec::new();
            for _ in 0..(next() % 40) {
                let n = (next() % 33) as u32;
                let value = if case % 2 == 0 {
                    u32::MAX
                } else {
                    next() as u32
                };
                let value = if next() % 4 == 0 {
                    value ^ (1 << (next() % 32))
                } else {
                    value
                };
                for i in (0..n).rev() {
                    bits.push((value >> i) & 1 != 0);
                }
                w.put_bits(value, n);
            }
            assert_eq!(
                w.finish(),
                stuffed(&bits),
                "case {case}: {} bits",
                bits.len()
            );
        }
    }

    #[test]
    fn tag_tree_by_hand() {
        // Leaves 2x2 [1 3; 2 2], root 1. Leaf 0 to completion: root "0" (not 0) "1" (is 1),
        // leaf "1" (same as root). Leaf 1 (3): root already known; leaf "001". Leaves 2
        // and 3 (2): "01" each.
        let mut t = TagTree::new(2, 2, &[1, 3, 2, 2]);
        let mut w = HeaderWriter::default();
        t.encode(0, 2, &mut w);
        t.encode(1, 4, &mut w);
        t.encode(2, 3, &mut w);
        t.encode(3, 3, &mut w);
        assert_eq!(bits_of(&w.finish()), "0110010101000000");
    }

    #[test]
    fn tag_tree_three_levels() {
        // 3x1 leaves [2 0 1]: level 1 is [0 1] (pairs), root 0. Leaf 2 first, against
        // threshold 1: root "1"; its parent (value 1) "0"; stop (threshold reached).
        // Then leaf 1 to completion: root known, parent (value 0) "1", leaf "1".
        let mut t = TagTree::new(3, 1, &[2, 0, 1]);
        let mut w = HeaderWriter::default();
        t.encode(2, 1, &mut w);
        t.encode(1, 1, &mut w);
        assert_eq!(bits_of(&w.finish()), "10110000");
    }

    #[test]
    fn tag_tree_threshold_stops_early() {
        // A single leaf of value 5 coded against threshold 1: one 0 bit says "not yet".
        let mut t = TagTree::new(1, 1, &[5]);
        let mut w = HeaderWriter::default();
        t.encode(0, 1, &mut w);
        assert_eq!(w.finish(), vec![0b0000_0000]);
        // Then to completion: the decoder knows >= 1, so 4 more zeros and a one.
        let mut w = HeaderWriter::default();
        t.encode(0, 6, &mut w);
        assert_eq!(bits_of(&w.finish())[..5], *"00001");
    }

    #[test]
    fn num_passes_codewords() {
        let code = |n| {
            let mut w = HeaderWriter::default();
            put_num_passes(n, &mut w).unwrap();
            bits_of(&w.finish())
        };
        assert!(code(1).starts_with("0"));
        assert!(code(2).starts_with("10"));
        assert!(code(3).starts_with("1100"));
        assert!(code(5).starts_with("1110"));
        assert!(code(6).starts_with("111100000"));
        assert!(code(36).starts_with("111111110"));
        // The long codewords, after a 0 bit so that the stuffing shows: 37 is
        // 111111111 0000000; 164 is sixteen 1s, whose second byte is 0xFF, so the last 1
        // lands after a stuffed 0.
        let bytes = |n| {
            let mut w = HeaderWriter::default();
            w.put_bit(false);
            put_num_passes(n, &mut w).unwrap();
            w.finish()
        };
        assert_eq!(bytes(37), vec![0x7F, 0xC0, 0x00]);
        assert_eq!(bytes(164), vec![0x7F, 0xFF, 0x40]);
        assert!(put_num_passes(165, &mut HeaderWriter::default()).is_err());
        assert!(put_num_passes(0, &mut HeaderWriter::default()).is_err());
    }

    #[test]
    fn empty_packet_is_one_zero_byte() {
        let none = BlockHeader {
            passes: 0,
            zero_bitplanes: 3,
            segments: vec![],
        };
        assert_eq!(packet_header(&[(1, 1, vec![&none])]).unwrap(), vec![0]);
        assert_eq!(packet_header(&[]).unwrap(), vec![0]);
    }

    #[test]
    fn one_block_header_by_hand() {
        // 1 (non-empty), 1 (included), 001 (2 zero bit-planes), 0 (1 pass), 0 (no Lblock
        // increment), 101 (5 bytes in Lblock + log2(1) = 3 bits).
        let b = BlockHeader {
            passes: 1,
            zero_bitplanes: 2,
            segments: vec![(1, 5)],
        };
        let s = bits_of(&packet_header(&[(1, 1, vec![&b])]).unwrap());
        assert_eq!(s, "1100100101000000");
        // 8 bytes need 4 bits: one Lblock increment ("10"), then 1000.
        let b = BlockHeader {
            passes: 1,
            zero_bitplanes: 0,
            segments: vec![(1, 8)],
        };
        let s = bits_of(&packet_header(&[(1, 1, vec![&b])]).unwrap());
        assert_eq!(s, "1110101000000000");
    }

    #[test]
    fn bypass_segments_and_an_excluded_block() {
        // Two blocks side by side; the first is not included (inclusion tree root is 0
        // because block 2 is: root "1", leaf 0 "0"). Block 2: leaf "1"; zbp 0 (both
        // leaves' zbp 0 -> root "1", leaf "1"); 12 passes "1111 00110"; segments of 10,
        // 2 passes with 300 and 2 bytes: 300 needs 9 bits, room 3 + 3 = 6 -> increment 3
        // ("1110"), then 300 in 9 bits and 2 in 3 + 3 + 1 = 7 bits.
        let none = BlockHeader {
            passes: 0,
            zero_bitplanes: 0,
            segments: vec![],
        };
        let b = BlockHeader {
            passes: 12,
            zero_bitplanes: 0,
            segments: vec![(10, 300), (2, 2)],
        };
        let s = bits_of(&packet_header(&[(2, 1, vec![&none, &b])]).unwrap());
        let want = "1".to_owned()
            + "10"
            + "1"
            + "11"
            + "111100110"
            + "1110"
            + &format!("{:09b}", 300)
            + &format!("{:07b}", 2);
        assert_eq!(&s[..want.len()], want, "{s}");
        assert!(s[want.len()..].bytes().all(|c| c == b'0'));
        assert_eq!(s.len() % 8, 0);
        assert!(s.len() - want.len() < 8);
    }
}
