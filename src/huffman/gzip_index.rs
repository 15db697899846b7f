//! The frame index of our gzip members ([`super::framing`]), in the header's extra field
//! (FLG.FEXTRA, RFC 1952 2.3.1.1), as BGZF does: any gunzip skips it, and parvlc reads it
//! to decode a member's frames in parallel, on the CPU cores or (versions 2 and 3) each
//! frame's blocks on a GPU.
//!
//! Subfield ID `'P' 'V'`, then its length (`u16`), then (little-endian):
//! - version 3: `version u8` = 3, `reserved u8` = 0, `frames u16`, `block_symbols u32`
//!   (literals per block, the member's), and for each frame `len u32` (its input bytes),
//!   `bytes u32` (its DEFLATE bytes, the sync-flush marker included), `crc32 u32` (of its
//!   input), `symbol_start u32` (the bit of its first literal, counted from bit 0 of its
//!   first byte: after the block header and its code), `symbol_bits u32` (its literals'
//!   bits: the end-of-block code starts after them), then the bits of each block `0..n-1`
//!   (`u16` each; the last block's are what is left of `symbol_bits`; `n = ceil(len /
//!   block_symbols)`). Written where a block's bits always fit 16 bits: blocks of at
//!   most 4369 literals, of at most 15 bits each.
//! - version 2 (written before version 3, and still for larger blocks): the same, but for
//!   the blocks, the bit offset of each block `1..n` from the first literal (`u32` each;
//!   block 0 at 0), as a native frame's header lists them.
//! - version 1 (written before version 2, and still for a member whose frames' blocks do
//!   not fit one subfield): `version u8` = 1, `reserved u8` = 0, `frames u16`, and for
//!   each frame `len`, `bytes` and `crc32` (`u32` each). A member holds at most
//!   [`MAX_MEMBER_FRAMES`] frames.
//!
//! A subfield holds at most [`MAX_INDEX_BYTES`]: the extra field's length is 16 bits.
//! Version 3 halves the blocks' part of the index, which is most of it: for a 4 KiB block
//! of system files, coded in about 3.1 KiB, 2 bytes against 4 (docs/huffman.md).

use std::io::Read;
use std::ops::Range;

use super::native::read_full;
use crate::{Error, Result};

/// Subfield ID of the frame index.
pub const INDEX_ID: [u8; 2] = *b"PV";
/// The version written where the blocks fit.
pub const INDEX_VERSION: u8 = 3;
/// Block offsets as `u32`: the version before, and the one for blocks too large for 3.
pub const INDEX_V2: u8 = 2;
const INDEX_V1: u8 = 1;
/// Most bits a DEFLATE literal's code takes.
const MAX_LITERAL_BITS: u64 = 15;
/// Bytes of one frame's entry in version 1.
const ENTRY_V1: usize = 12;
/// Bytes of a version-2 or -3 entry before its blocks.
const ENTRY_V2: usize = 20;
/// Bytes before the entries.
const HEAD_V1: usize = 4;
const HEAD_V2: usize = 8;
/// Frames in one member of version 1: `4 + 12 * 4096` bytes of subfield.
pub const MAX_MEMBER_FRAMES: usize = 4096;
/// Bytes of a subfield's data: the extra field (`XLEN`, 16 bits) holds its ID and length
/// too.
pub const MAX_INDEX_BYTES: usize = u16::MAX as usize - 4;
/// FLG bit: the header has an extra field.
const FEXTRA: u8 = 4;
/// Largest frame a decoder accepts (the encoder writes at most 256 MiB).
const MAX_FRAME_LEN: u32 = 1 << 28;
/// Bits after a frame's literals at least: an end-of-block code of a bit, the stored
/// block's 3 header bits and its 32 bits of LEN and NLEN.
const TAIL_BITS: u64 = 36;

/// One frame of a member, as its index lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub len: u32,
    pub bytes: u32,
    pub crc32: u32,
    /// Where its literals and blocks lie (versions 2 and 3).
    pub code: Option<FrameCode>,
}

/// Where a frame's literals lie within its bytes: what lets a GPU decode its blocks in
/// parallel (`super::inflate_gpu`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameCode {
    /// The bit of the first literal, from bit 0 of the frame's first byte.
    pub symbol_start: u32,
    /// The literals' bits: the end-of-block code starts at `symbol_start + symbol_bits`.
    pub symbol_bits: u32,
    /// Literals per block.
    pub block_symbols: u32,
    /// Where blocks `1..` start, in bits from the first literal.
    pub block_offsets: Vec<u32>,
}

/// The version whose block entries hold every block of `block_symbols` literals: 3
/// where a block's bits always fit 16 bits, else 2.
pub fn blocks_version(block_symbols: u32) -> u8 {
    if block_symbols as u64 * MAX_LITERAL_BITS <= u16::MAX as u64 {
        INDEX_VERSION
    } else {
        INDEX_V2
    }
}

/// Bytes of each block after a frame's first in an index of `version` (2 or 3): its
/// offset (2) or its predecessor's bits (3).
pub fn block_entry_bytes(version: u8) -> usize {
    if version == INDEX_V2 {
        4
    } else {
        2
    }
}

impl IndexEntry {
    /// Bytes of its entry with blocks (version 2 or 3, as its blocks take), if it has
    /// what one holds.
    fn blocks_bytes(&self) -> Option<usize> {
        self.code.as_ref().map(|c| {
            ENTRY_V2 + block_entry_bytes(blocks_version(c.block_symbols)) * c.block_offsets.len()
        })
    }

    /// Its entry with blocks fits a member's index, alone at least.
    fn fits_blocks(&self) -> bool {
        self.blocks_bytes()
            .is_some_and(|b| HEAD_V2 + b <= MAX_INDEX_BYTES)
    }
}

/// Where a chunk's frames, `entries`, are cut into members: as many frames a member as
/// its index holds, an index with blocks where the frame's blocks fit one, else version 1.
pub fn member_groups(entries: &[IndexEntry]) -> Vec<Range<usize>> {
    let mut groups = Vec::new();
    let (mut start, mut bytes) = (0usize, 0usize);
    for (i, e) in entries.iter().enumerate() {
        let blocks = e.fits_blocks();
        let first = &entries[start];
        let same_kind = first.fits_blocks() == blocks
            && (!blocks
                || first.code.as_ref().map(|c| c.block_symbols)
                    == e.code.as_ref().map(|c| c.block_symbols));
        let room = match e.blocks_bytes() {
            Some(b) if blocks => bytes + b <= MAX_INDEX_BYTES && i - start < u16::MAX as usize,
            _ => i - start < MAX_MEMBER_FRAMES,
        };
        if i > start && !(same_kind && room) {
            groups.push(start..i);
            start = i;
        }
        if i == start {
            bytes = HEAD_V2;
        }
        bytes += e.blocks_bytes().unwrap_or(0);
    }
    if start < entries.len() {
        groups.push(start..entries.len());
    }
    groups
}

/// The header of a member with the index of `frames`: with their blocks where every frame
/// has its blocks and they fit (version 3, or 2 for blocks too large for it), else
/// version 1.
pub fn member_header(frames: &[IndexEntry]) -> Result<Vec<u8>> {
    let version = frames
        .first()
        .and_then(|f| f.code.as_ref())
        .map_or(INDEX_V1, |c| blocks_version(c.block_symbols));
    member_header_of(frames, version)
}

/// [`member_header`] with the blocks in `version`'s entries (2 or 3; 1 writes none) where
/// they fit, else version 1: also the members of earlier parvlc versions, for tests.
#[doc(hidden)]
pub fn member_header_of(frames: &[IndexEntry], version: u8) -> Result<Vec<u8>> {
    let block_symbols = frames
        .first()
        .and_then(|f| f.code.as_ref())
        .map(|c| c.block_symbols);
    if version == INDEX_VERSION && block_symbols.is_some_and(|b| blocks_version(b) != version) {
        return Err(Error::InvalidArgument(format!(
            "blocks of {} literals in a version-{version} index",
            block_symbols.unwrap_or(0)
        )));
    }
    let width = block_entry_bytes(version);
    let blocks_bytes = frames
        .iter()
        .map(|f| {
            f.code
                .as_ref()
                .filter(|c| Some(c.block_symbols) == block_symbols)
                .map(|c| ENTRY_V2 + width * c.block_offsets.len())
        })
        .sum::<Option<usize>>()
        .map(|b| HEAD_V2 + b)
        .filter(|&b| {
            version > INDEX_V1 && b <= MAX_INDEX_BYTES && frames.len() <= u16::MAX as usize
        });
    let sub = match blocks_bytes {
        Some(b) => b,
        None if frames.len() <= MAX_MEMBER_FRAMES => HEAD_V1 + ENTRY_V1 * frames.len(),
        None => {
            return Err(Error::InvalidArgument(format!(
                "{} frames in one gzip member (at most {MAX_MEMBER_FRAMES})",
                frames.len()
            )))
        }
    };
    let mut h = Vec::with_capacity(16 + sub);
    h.extend_from_slice(&[0x1f, 0x8b, 8, FEXTRA, 0, 0, 0, 0, 0, 255]);
    h.extend_from_slice(&((sub + 4) as u16).to_le_bytes());
    h.extend_from_slice(&INDEX_ID);
    h.extend_from_slice(&(sub as u16).to_le_bytes());
    h.extend_from_slice(&[
        if blocks_bytes.is_some() {
            version
        } else {
            INDEX_V1
        },
        0,
    ]);
    h.extend_from_slice(&(frames.len() as u16).to_le_bytes());
    if blocks_bytes.is_some() {
        h.extend_from_slice(&block_symbols.unwrap_or(0).to_le_bytes());
    }
    for f in frames {
        h.extend_from_slice(&f.len.to_le_bytes());
        h.extend_from_slice(&f.bytes.to_le_bytes());
        h.extend_from_slice(&f.crc32.to_le_bytes());
        if let (Some(c), Some(_)) = (&f.code, blocks_bytes) {
            h.extend_from_slice(&c.symbol_start.to_le_bytes());
            h.extend_from_slice(&c.symbol_bits.to_le_bytes());
            let mut before = 0u32;
            for &o in &c.block_offsets {
                if version == INDEX_V2 {
                    h.extend_from_slice(&o.to_le_bytes());
                    continue;
                }
                // Version 3: each block's bits, from the offsets' steps.
                let bits = o
                    .checked_sub(before)
                    .and_then(|b| u16::try_from(b).ok())
                    .ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "a block of bits {before}..{o} in a version-3 index"
                        ))
                    })?;
                h.extend_from_slice(&bits.to_le_bytes());
                before = o;
            }
        }
    }
    debug_assert_eq!(h.len(), 16 + sub);
    Ok(h)
}

/// A member's header as read: its bytes (to replay into another decoder) and the
/// index, if it carries one we read.
pub struct MemberHeader {
    pub raw: Vec<u8>,
    pub index: Option<Vec<IndexEntry>>,
}

/// Reads a member's header, `head` (its first bytes, magic included) already read. Only
/// headers shaped as ours (FLG = FEXTRA alone) are parsed for an index; for any other the
/// bytes read so far are returned for a general gzip decoder to take over (and to report
/// whatever is wrong with them). An index that is there and malformed is an error.
pub fn read_member_header(head: &[u8], r: &mut impl Read, member: u64) -> Result<MemberHeader> {
    let mut raw = head.to_vec();
    let plain = |raw| Ok(MemberHeader { raw, index: None });
    if raw.len() < 12 {
        let mut more = [0u8; 12];
        let want = 12 - raw.len();
        let got = read_full(r, &mut more[..want])?;
        raw.extend_from_slice(&more[..got]);
        if got < want {
            return plain(raw);
        }
    }
    if raw[2] != 8 || raw[3] != FEXTRA {
        return plain(raw);
    }
    let xlen = u16::from_le_bytes([raw[10], raw[11]]) as usize;
    let mut extra = vec![0u8; xlen];
    let got = read_full(r, &mut extra)?;
    raw.extend_from_slice(&extra[..got]);
    if got < xlen {
        return plain(raw);
    }
    let index = find_index(&extra, member)?;
    Ok(MemberHeader { raw, index })
}

fn bad(member: u64, reason: impl std::fmt::Display) -> Error {
    Error::corrupt("gzip", format!("member {member}: frame index: {reason}"))
}

/// The index among the extra field's subfields; None if there is none or it is of a
/// later version.
fn find_index(mut extra: &[u8], member: u64) -> Result<Option<Vec<IndexEntry>>> {
    while extra.len() >= 4 {
        let len = u16::from_le_bytes([extra[2], extra[3]]) as usize;
        let Some(data) = extra.get(4..4 + len) else {
            // gzip does not parse subfields; neither do we past a malformed one.
            return Ok(None);
        };
        if extra[..2] == INDEX_ID {
            return parse_index(data, member);
        }
        extra = &extra[4 + len..];
    }
    Ok(None)
}

fn parse_index(data: &[u8], member: u64) -> Result<Option<Vec<IndexEntry>>> {
    if data.len() < HEAD_V1 {
        return Err(bad(member, format!("{} bytes", data.len())));
    }
    let (version, head) = match data[0] {
        INDEX_V1 => (INDEX_V1, HEAD_V1),
        v @ (INDEX_V2 | INDEX_VERSION) => (v, HEAD_V2),
        _ => return Ok(None),
    };
    let has_blocks = version != INDEX_V1;
    let n = u16::from_le_bytes([data[2], data[3]]) as usize;
    if data[1] != 0 || data.len() < head {
        return Err(bad(
            member,
            format!("{} bytes (reserved byte {})", data.len(), data[1]),
        ));
    }
    let u32_at = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let block_symbols = if has_blocks { u32_at(data, 4) } else { 0 };
    if has_blocks && n > 0 && block_symbols == 0 {
        return Err(bad(member, "blocks of 0 literals"));
    }
    let width = block_entry_bytes(version);
    let mut rest = &data[head..];
    let mut entries = Vec::with_capacity(n.min(rest.len() / ENTRY_V1));
    for i in 0..n {
        let fixed = if has_blocks { ENTRY_V2 } else { ENTRY_V1 };
        let Some(e) = rest.get(..fixed) else {
            return Err(bad(member, format!("{} bytes for {n} frames", data.len())));
        };
        let mut entry = IndexEntry {
            len: u32_at(e, 0),
            bytes: u32_at(e, 4),
            crc32: u32_at(e, 8),
            code: None,
        };
        // A literal frame takes at most 15 bits a byte and a header of under 400
        // bytes: this bounds what a corrupt entry can make a decoder allocate.
        let most = entry.len as u64 * 2 + 1024;
        if entry.len == 0 || entry.len > MAX_FRAME_LEN || entry.bytes as u64 > most {
            return Err(bad(
                member,
                format!(
                    "frame {i} of {} bytes in {} compressed bytes",
                    entry.len, entry.bytes
                ),
            ));
        }
        rest = &rest[fixed..];
        if has_blocks {
            let (symbol_start, symbol_bits) = (u32_at(e, 12), u32_at(e, 16));
            let blocks = entry.len.div_ceil(block_symbols) as usize;
            let Some(offsets) = rest.get(..width * (blocks - 1)) else {
                return Err(bad(
                    member,
                    format!("frame {i}'s {blocks} blocks run past the index"),
                ));
            };
            rest = &rest[width * (blocks - 1)..];
            let block_offsets: Vec<u32> = if version == INDEX_V2 {
                offsets.chunks_exact(4).map(|o| u32_at(o, 0)).collect()
            } else {
                // Each block's bits, summed into where the next starts (in u64: the
                // bound on `symbol_bits` below rejects any sum past it).
                offsets
                    .chunks_exact(2)
                    .scan(0u64, |at, b| {
                        *at += u16::from_le_bytes([b[0], b[1]]) as u64;
                        Some(u32::try_from(*at).unwrap_or(u32::MAX))
                    })
                    .collect()
            };
            let end = symbol_start as u64 + symbol_bits as u64;
            // Every literal takes 1 to 15 bits.
            if symbol_start == 0
                || (symbol_bits as u64) < entry.len as u64
                || symbol_bits as u64 > 15 * entry.len as u64
                || end + TAIL_BITS > entry.bytes as u64 * 8
                || block_offsets.windows(2).any(|w| w[1] < w[0])
                || block_offsets.last().is_some_and(|&o| o > symbol_bits)
            {
                return Err(bad(
                    member,
                    format!(
                        "frame {i}: literals at bits {symbol_start}..{end} of {} bytes, blocks \
                         out of order or past them",
                        entry.bytes
                    ),
                ));
            }
            entry.code = Some(FrameCode {
                symbol_start,
                symbol_bits,
                block_symbols,
                block_offsets,
            });
        }
        entries.push(entry);
    }
    if !rest.is_empty() {
        return Err(bad(member, format!("{} bytes for {n} frames", data.len())));
    }
    Ok(Some(entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames of `block_symbols` literals a block, `blocks` blocks each, every block
    /// `bits` long.
    fn frames(block_symbols: u32, blocks: &[u32], bits: u32) -> Vec<IndexEntry> {
        blocks
            .iter()
            .enumerate()
            .map(|(i, &n)| IndexEntry {
                len: block_symbols * n,
                bytes: (bits as u64 * n as u64 / 8 + 400) as u32,
                crc32: i as u32 * 7919,
                code: Some(FrameCode {
                    symbol_start: 300,
                    symbol_bits: bits * n,
                    block_symbols,
                    block_offsets: (1..n).map(|k| k * bits).collect(),
                }),
            })
            .collect()
    }

    fn read_back(header: &[u8]) -> Result<Option<Vec<IndexEntry>>> {
        read_member_header(&header[..2], &mut &header[2..], 1).map(|h| h.index)
    }

    #[test]
    fn version_3_takes_blocks_whose_bits_fit_16_bits_and_reads_back() {
        // 4369 literals of 15 bits: 65,535 bits, the most a version-3 block entry holds.
        for (block_symbols, version) in [(4096, 3), (4369, 3), (4370, 2), (1 << 16, 2)] {
            assert_eq!(blocks_version(block_symbols), version);
            let bits = block_symbols * 15;
            let entries = frames(block_symbols, &[1, 3, 17], bits);
            let header = member_header(&entries).unwrap();
            assert_eq!(header[16], version, "blocks of {block_symbols}");
            let width = if version == 3 { 2 } else { 4 };
            assert_eq!(header.len(), 16 + 8 + 3 * 20 + width * (2 + 16));
            assert_eq!(read_back(&header).unwrap().unwrap(), entries);
            // Version 2 for any block size (the files written before version 3).
            let v2 = member_header_of(&entries, INDEX_V2).unwrap();
            assert_eq!(v2[16], 2);
            assert_eq!(read_back(&v2).unwrap().unwrap(), entries);
        }
        assert!(member_header_of(&frames(4370, &[2], 100), INDEX_VERSION).is_err());
    }

    #[test]
    fn a_version_3_block_past_the_literals_is_an_error() {
        let entries = frames(4096, &[4], 20_000);
        let header = member_header(&entries).unwrap();
        // Frame 0's blocks: 24 bytes of header and head, 20 of entry, then 3 lengths.
        let mut bad = header.clone();
        bad[24 + 20 + 4..24 + 20 + 6].copy_from_slice(&u16::MAX.to_le_bytes());
        assert!(read_back(&bad).is_err(), "the blocks run past the literals");
        // Cut inside the blocks.
        let mut short = header[..header.len() - 1].to_vec();
        let sub = (short.len() - 16) as u16;
        short[10..12].copy_from_slice(&(sub + 4).to_le_bytes());
        short[14..16].copy_from_slice(&sub.to_le_bytes());
        assert!(read_back(&short).is_err(), "blocks past the index");
    }
}
