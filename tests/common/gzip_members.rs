//! Our gzip streams taken apart by their members' frame indexes
//! (src/huffman/gzip_index.rs): where each member and its index entries lie, to corrupt
//! them or to rewrite the index in another version.

use parvlc::huffman::gzip_index::{
    block_entry_bytes, member_header, member_header_of, read_member_header, IndexEntry, INDEX_V2,
};

/// The fields of a version-2 or -3 index entry before its blocks: offset, name.
pub const ENTRY_FIELDS: [(usize, &str); 5] = [
    (0, "length"),
    (4, "compressed bytes"),
    (8, "crc32"),
    (12, "first literal's bit"),
    (16, "literals' bits"),
];

/// `gz`, then the same members without their index, then gzip's own member of `data` (the
/// input of `gz`), then `gz` again: ours among foreign members, and the input it gives.
pub fn ours_among_foreign(gz: &[u8], data: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut all = gz.to_vec();
    all.extend(without_index(gz));
    all.extend(super::judges::gzip_tool_encode(data));
    all.extend(gz);
    (all, data.repeat(4))
}

/// A gzip member of ours, as its header says: where it starts, its header's length and
/// its frame index.
pub struct Member {
    pub at: usize,
    pub header: usize,
    /// Its index's version.
    pub version: u8,
    pub index: Vec<IndexEntry>,
}

impl Member {
    pub fn frames_bytes(&self) -> usize {
        self.index.iter().map(|e| e.bytes as usize).sum()
    }

    /// One past its last byte (frames, final block, CRC32, ISIZE).
    pub fn end(&self) -> usize {
        self.at + self.header + self.frames_bytes() + 10
    }

    /// Bytes of its index subfield's data (after the header's 10 bytes, XLEN, the
    /// subfield's ID and length).
    pub fn index_bytes(&self) -> usize {
        self.header - 16
    }

    /// Whether its index lists blocks (version 2 or 3).
    pub fn has_blocks(&self) -> bool {
        self.index.iter().all(|e| e.code.is_some())
    }

    /// File offset of entry `i` of an index with blocks (after its 8-byte head).
    pub fn entry_at(&self, i: usize) -> usize {
        let before: usize = self.index[..i]
            .iter()
            .map(|e| {
                20 + block_entry_bytes(self.version) * e.code.as_ref().unwrap().block_offsets.len()
            })
            .sum();
        self.at + 24 + before
    }

    /// Its first frame of four blocks or more (the block corruption cases need one).
    pub fn a_frame_of_four_blocks(&self) -> usize {
        self.index
            .iter()
            .position(|e| e.code.as_ref().unwrap().block_offsets.len() >= 3)
            .expect("a frame of four blocks or more")
    }

    /// `gz` (whose member this is) with frame `i`'s block 2 starting `delta` bits later
    /// (wrapping), the other blocks where they were: an offset only a GPU decoder reads.
    pub fn with_block_2_moved(&self, gz: &[u8], i: usize, delta: u32) -> Vec<u8> {
        assert!(self.index[i].code.as_ref().unwrap().block_offsets.len() >= 3);
        let mut bad = gz.to_vec();
        let at = self.entry_at(i) + 20;
        if self.version == INDEX_V2 {
            // Block 2's offset.
            let o = u32::from_le_bytes(bad[at + 4..at + 8].try_into().unwrap());
            bad[at + 4..at + 8].copy_from_slice(&o.wrapping_add(delta).to_le_bytes());
        } else {
            // Block 1 longer, block 2 as much shorter.
            let bits = |b: &[u8], k: usize| u16::from_le_bytes([b[at + 2 * k], b[at + 2 * k + 1]]);
            let (one, two) = (bits(&bad, 1), bits(&bad, 2));
            bad[at + 2..at + 4].copy_from_slice(&one.wrapping_add(delta as u16).to_le_bytes());
            bad[at + 4..at + 6].copy_from_slice(&two.wrapping_sub(delta as u16).to_le_bytes());
        }
        bad
    }
}

/// The members of one of our gzip streams, walked by their indexes.
pub fn members(gz: &[u8]) -> Vec<Member> {
    let mut v = Vec::new();
    let mut at = 0;
    while at < gz.len() {
        let mut r = &gz[at + 2..];
        let h = read_member_header(&gz[at..at + 2], &mut r, v.len() as u64 + 1).unwrap();
        let m = Member {
            at,
            header: h.raw.len(),
            // After the header's 10 bytes, XLEN, the subfield's ID and length.
            version: h.raw[16],
            index: h.index.expect("our members carry the frame index"),
        };
        at = m.end();
        v.push(m);
    }
    assert_eq!(at, gz.len(), "members end where the stream ends");
    v
}

/// `gz` with every member's index taken out (FLG = 0, no extra field): what gzip or a
/// header rewrite would leave.
pub fn without_index(gz: &[u8]) -> Vec<u8> {
    rewrite_headers(gz, |m| {
        let mut head = gz[m.at..m.at + 10].to_vec();
        head[3] = 0;
        head
    })
}

/// `gz` with every member's index written as version 1 (no blocks): the files parvlc
/// wrote before version 2.
pub fn with_index_v1(gz: &[u8]) -> Vec<u8> {
    rewrite_headers(gz, |m| {
        let entries: Vec<IndexEntry> = m
            .index
            .iter()
            .map(|e| IndexEntry {
                code: None,
                ..e.clone()
            })
            .collect();
        member_header(&entries).unwrap()
    })
}

/// `gz` with every member's index written as version 2 (block offsets as `u32`): the
/// files parvlc wrote before version 3.
pub fn with_index_v2(gz: &[u8]) -> Vec<u8> {
    rewrite_headers(gz, |m| member_header_of(&m.index, INDEX_V2).unwrap())
}

fn rewrite_headers(gz: &[u8], header: impl Fn(&Member) -> Vec<u8>) -> Vec<u8> {
    let mut out = Vec::new();
    for m in members(gz) {
        out.extend_from_slice(&header(&m));
        out.extend_from_slice(&gz[m.at + m.header..m.end()]);
    }
    out
}
