//! Tier-2: tag trees and packets (ITU-T T.800 B.9, B.10) for one quality layer.
//!
//! A packet header is a bit stream in which every byte after a 0xFF carries only 7 bits
//! (its MSB is a stuffed 0), so no marker code can appear in it. Each included code-block
//! is signalled by the inclusion tag tree, the zero bit-plane tag tree, its number of
//! coding passes, an Lblock increment and one length per codeword segment.

use crate::{Error, Result};

/// The packet header's bit writer: MSB-first, 7 bits in the byte after each 0xFF.
#[derive(Debug)]
pub struct HeaderWriter {
    out: Vec<u8>,
    acc: u8,
    /// Bits still free in `acc` (7 after a 0xFF byte).
    free: u32,
}

impl Default for HeaderWriter {
    fn default() -> Self {
        HeaderWriter {
            out: Vec::new(),
            acc: 0,
            free: 8,
        }
    }
}

impl HeaderWriter {
    pub fn put_bit(&mut self, bit: bool) {
        if self.free == 0 {
            self.emit();
        }
        self.free -= 1;
        self.acc |= (bit as u8) << self.free;
    }

    /// The low `n` bits of `value`, most significant first.
    pub fn put_bits(&mut self, value: u32, n: u32) {
        for i in (0..n).rev() {
            self.put_bit((value >> i) & 1 != 0);
        }
    }

    fn emit(&mut self) {
        self.out.push(self.acc);
        self.free = if self.acc == 0xFF { 7 } else { 8 };
        self.acc = 0;
    }

    /// Pad the last byte with zeros; a header that ends in 0xFF gets one more (zero) byte,
    /// so the body never follows a 0xFF (B.10.1).
    pub fn finish(mut self) -> Vec<u8> {
        self.emit();
        if self.free == 7 {
            self.emit();
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
    parent: usize,
}

/// A tag tree over a `w` x `h` grid of leaves (B.10.2): each node holds the minimum of its
/// children, and a leaf's value is coded from the root down, each node only as far as
/// its parents have not already told.
#[derive(Clone, Debug)]
pub struct TagTree {
    nodes: Vec<Node>,
}

const ROOT: usize = usize::MAX;
/// Levels of the deepest tag tree: a grid of up to 2^33 leaves a side, more than an
/// image's code-blocks can be (its sides are u32, a block at least 4 samples wide).
const MAX_DEPTH: usize = 34;

impl TagTree {
    /// Build the tree over `values` (raster order, `w` x `h`, both at least 1).
    pub fn new(w: usize, h: usize, values: &[u32]) -> TagTree {
        debug_assert_eq!(values.len(), w * h);
        let mut nodes: Vec<Node> = values
            .iter()
            .map(|&value| Node {
                value,
                low: 0,
                known: false,
                parent: ROOT,
            })
            .collect();
        let (mut lw, mut lh, mut start) = (w, h, 0);
        while lw * lh > 1 {
            let (pw, ph) = (lw.div_ceil(2), lh.div_ceil(2));
            let pstart = nodes.len();
            for _ in 0..pw * ph {
                nodes.push(Node {
                    value: u32::MAX,
                    low: 0,
                    known: false,
                    parent: ROOT,
                });
            }
            for y in 0..lh {
                for x in 0..lw {
                    let child = start + y * lw + x;
                    let parent = pstart + (y / 2) * pw + x / 2;
                    nodes[child].parent = parent;
                    nodes[parent].value = nodes[parent].value.min(nodes[child].value);
                }
            }
            (lw, lh, start) = (pw, ph, pstart);
        }
        TagTree { nodes }
    }

    /// Code whether leaf `leaf`'s value is below `threshold`, and if it is, the value.
    pub fn encode(&mut self, leaf: usize, threshold: u32, bits: &mut HeaderWriter) {
        // The leaf's ancestors up to the root, kept on the stack (this runs for every
        // code-block twice): a tree over w x h leaves has ceil(log2(max(w, h))) + 1 levels.
        let mut path = [0usize; MAX_DEPTH];
        let (mut depth, mut node) = (0, leaf);
        loop {
            path[depth] = node;
            depth += 1;
            node = self.nodes[node].parent;
            if node == ROOT || depth == MAX_DEPTH {
                break;
            }
        }
        let mut low = 0;
        for &i in path[..depth].iter().rev() {
            let node = &mut self.nodes[i];
            if low > node.low {
                node.low = low;
            } else {
                low = node.low;
            }
            while low < threshold {
                if low >= node.value {
                    if !node.known {
                        bits.put_bit(true);
                        node.known = true;
                    }
                    break;
                }
                bits.put_bit(false);
                low += 1;
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
            for _ in 0..inc {
                bits.put_bit(true);
            }
            bits.put_bit(false);
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
