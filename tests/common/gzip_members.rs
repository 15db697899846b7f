//! Our gzip streams taken apart by their members' frame indexes
//! (src/huffman/gzip_index.rs): where each member and its index entries lie, to corrupt
//! them or to rewrite the index in another version.

use parvlc::huffman::gzip_index::{member_header, read_member_header, IndexEntry};

/// The fields of a version-2 index entry before its block offsets: offset, name.
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

    /// Whether its index lists blocks (version 2).
    pub fn has_blocks(&self) -> bool {
        self.index.iter().all(|e| e.code.is_some())
    }

    /// File offset of entry `i` of a version-2 index (after its 8-byte head).
    pub fn entry_at(&self, i: usize) -> usize {
        let before: usize = self.index[..i]
            .iter()
            .map(|e| 20 + 4 * e.code.as_ref().unwrap().block_offsets.len())
            .sum();
        self.at + 24 + before
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

fn rewrite_headers(gz: &[u8], header: impl Fn(&Member) -> Vec<u8>) -> Vec<u8> {
    let mut out = Vec::new();
    for m in members(gz) {
        out.extend_from_slice(&header(&m));
        out.extend_from_slice(&gz[m.at + m.header..m.end()]);
    }
    out
}
