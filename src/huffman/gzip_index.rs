//! The frame index of our gzip members ([`super::framing`]), in the header's extra field
//! (FLG.FEXTRA, RFC 1952 2.3.1.1), as BGZF does: any gunzip skips it, and parvlc reads it
//! to decode a member's frames in parallel.
//!
//! Subfield ID `'P' 'V'`, then its length (`u16`), then (little-endian) `version u8` = 1,
//! `reserved u8` = 0, `frames u16`, and for each frame `len u32` (its input bytes),
//! `bytes u32` (its DEFLATE bytes, the sync-flush marker included) and `crc32 u32` (of its
//! input). A member holds at most [`MAX_MEMBER_FRAMES`] frames, so the subfield fits its
//! 16-bit length.

use std::io::Read;

use super::native::read_full;
use crate::{Error, Result};

/// Subfield ID of the frame index.
pub const INDEX_ID: [u8; 2] = *b"PV";
pub const INDEX_VERSION: u8 = 1;
/// Bytes of one frame's entry.
const ENTRY_BYTES: usize = 12;
/// Bytes before the entries.
const INDEX_HEAD: usize = 4;
/// Frames in one member: `4 + 12 * 4096` bytes of subfield, under its 65535 limit.
pub const MAX_MEMBER_FRAMES: usize = 4096;
/// FLG bit: the header has an extra field.
const FEXTRA: u8 = 4;
/// Largest frame a decoder accepts (the encoder writes at most 256 MiB).
const MAX_FRAME_LEN: u32 = 1 << 28;

/// One frame of a member, as its index lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub len: u32,
    pub bytes: u32,
    pub crc32: u32,
}

/// The header of a member with the index of `frames`.
pub fn member_header(frames: &[IndexEntry]) -> Result<Vec<u8>> {
    if frames.len() > MAX_MEMBER_FRAMES {
        return Err(Error::InvalidArgument(format!(
            "{} frames in one gzip member (at most {MAX_MEMBER_FRAMES})",
            frames.len()
        )));
    }
    let sub = INDEX_HEAD + ENTRY_BYTES * frames.len();
    let mut h = Vec::with_capacity(16 + sub);
    h.extend_from_slice(&[0x1f, 0x8b, 8, FEXTRA, 0, 0, 0, 0, 0, 255]);
    h.extend_from_slice(&((sub + 4) as u16).to_le_bytes());
    h.extend_from_slice(&INDEX_ID);
    h.extend_from_slice(&(sub as u16).to_le_bytes());
    h.extend_from_slice(&[INDEX_VERSION, 0]);
    h.extend_from_slice(&(frames.len() as u16).to_le_bytes());
    for f in frames {
        h.extend_from_slice(&f.len.to_le_bytes());
        h.extend_from_slice(&f.bytes.to_le_bytes());
        h.extend_from_slice(&f.crc32.to_le_bytes());
    }
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
    if data.len() < INDEX_HEAD {
        return Err(bad(member, format!("{} bytes", data.len())));
    }
    if data[0] != INDEX_VERSION {
        return Ok(None);
    }
    let n = u16::from_le_bytes([data[2], data[3]]) as usize;
    if data[1] != 0 || data.len() != INDEX_HEAD + ENTRY_BYTES * n {
        return Err(bad(
            member,
            format!(
                "{} bytes for {n} frames (reserved byte {})",
                data.len(),
                data[1]
            ),
        ));
    }
    let u32_at = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    data[INDEX_HEAD..]
        .chunks_exact(ENTRY_BYTES)
        .enumerate()
        .map(|(i, e)| {
            let entry = IndexEntry {
                len: u32_at(e, 0),
                bytes: u32_at(e, 4),
                crc32: u32_at(e, 8),
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
            Ok(entry)
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}
