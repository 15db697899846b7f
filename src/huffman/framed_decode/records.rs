//! A native v2 stream's records, read and checked one at a time: data frames (header,
//! block offsets, payload) and the end record, and the walk over them that decoding and
//! `parvlc info` share.

use std::io::Read;

use crate::huffman::framing::{KIND_DATA, KIND_END, NATIVE_FIXED, VERSION_FRAMED};
use crate::huffman::native::{read_full, HeaderReader, MAGIC};
use crate::{Error, Result};

/// Largest frame a decoder accepts (the encoder writes at most 256 MiB).
const MAX_FRAME_LEN: u64 = 1 << 28;
/// Payload bytes reserved before they are read, at most.
const PAYLOAD_RESERVE_MAX: usize = 16 << 20;

/// A data frame, read and checked on its own, not yet decoded.
pub(crate) struct Frame {
    pub(super) index: u64,
    /// Where its input bytes start in the stream's output, and where its header starts in
    /// the file: for messages.
    pub(super) out_at: u64,
    pub(super) file_at: u64,
    pub(super) len: u64,
    pub(super) block_symbols: u64,
    pub(super) payload_bits: u64,
    pub(super) crc32: u32,
    pub(super) lengths: [u8; 256],
    pub(super) offsets: Vec<u64>,
    pub(super) payload: Payload,
}

/// A frame's payload: read with its header (from a stream), or its part of the buffer
/// that its batch's payloads were read into at their offsets (from a file), which goes
/// back to the reader once the batch is decoded: no fresh pages to fault in each batch.
pub(super) enum Payload {
    Own(Vec<u8>),
    #[cfg(not(target_arch = "wasm32"))]
    Batch(std::sync::Arc<Vec<u8>>, std::ops::Range<usize>),
}

impl Payload {
    /// The batch's buffer, from the last of its frames to let go of it.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn into_batch_buffer(self) -> Option<Vec<u8>> {
        match self {
            Payload::Own(_) => None,
            Payload::Batch(buf, _) => std::sync::Arc::into_inner(buf),
        }
    }
}

impl std::ops::Deref for Payload {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Payload::Own(v) => v,
            #[cfg(not(target_arch = "wasm32"))]
            Payload::Batch(buf, range) => buf.get(range.clone()).unwrap_or_default(),
        }
    }
}

impl Frame {
    /// Bytes of the frame in the file.
    pub(super) fn file_len(&self) -> u64 {
        (NATIVE_FIXED + 4 * self.offsets.len()) as u64 + self.payload_bits.div_ceil(8)
    }

    pub(super) fn corrupt(&self, reason: impl std::fmt::Display) -> Error {
        frame_error(
            self.index,
            self.file_at,
            format!(
                "output bytes {}..{}: {reason}",
                self.out_at,
                self.out_at + self.len
            ),
        )
    }

    pub(super) fn check_padding(&self) -> Result<()> {
        let pad = (self.payload_bits % 8) as u32;
        if pad != 0 && self.payload.last().is_some_and(|&b| b & (0xff >> pad) != 0) {
            return Err(self.corrupt("padding bits after the payload are not zero"));
        }
        Ok(())
    }

    /// The checksum of `out`, the frame's decoded bytes, checked against the header's.
    pub(super) fn check_crc(&self, out: &[u8]) -> Result<crc32fast::Hasher> {
        let mut crc = crc32fast::Hasher::new();
        crc.update(out);
        self.check_crc_of(crc)
    }

    /// `crc`, the checksum of the frame's decoded bytes, checked against the header's.
    pub(super) fn check_crc_of(&self, crc: crc32fast::Hasher) -> Result<crc32fast::Hasher> {
        let computed = crc.clone().finalize();
        if computed != self.crc32 {
            return Err(self.corrupt(format!(
                "checksum mismatch (stored {:08x}, computed {computed:08x})",
                self.crc32
            )));
        }
        Ok(crc)
    }

    /// The frame as the GPU decoder takes it.
    pub(crate) fn view(&self) -> crate::huffman::vld::VldFrame<'_> {
        crate::huffman::vld::VldFrame {
            lengths: &self.lengths,
            other_codes: [0; 16],
            order: crate::bits::BitOrder::MsbFirst,
            len: self.len,
            block_symbols: self.block_symbols,
            payload_bits: self.payload_bits,
            offsets: &self.offsets,
            payload: &self.payload,
        }
    }
}

pub(super) fn frame_error(index: u64, file_at: u64, reason: impl std::fmt::Display) -> Error {
    Error::corrupt(
        "native",
        format!("frame {index} (at file byte {file_at}): {reason}"),
    )
}

/// The error for a payload that the file ends within.
pub(super) fn truncated(index: u64, file_at: u64, got: u64, want: u64) -> Error {
    frame_error(
        index,
        file_at,
        format!("payload is {got} bytes, the header says {want} (the file is truncated)"),
    )
}

/// What ended a stream.
pub(super) struct End {
    total_len: u64,
    pub(super) crc32: u32,
    frames: u64,
}

pub(super) enum Record {
    Data(Box<Frame>),
    End(End),
}

/// Moves a reader past payload bytes without keeping them; returns how many of the bytes
/// asked for were there (fewer where the input ends).
pub(super) type Skip<R> = fn(&mut R, u64) -> Result<u64>;

/// [`Skip`] for any reader: the bytes read and dropped.
pub(super) fn read_past<R: Read>(r: &mut R, n: u64) -> Result<u64> {
    std::io::copy(&mut r.take(n), &mut std::io::sink()).map_err(Error::ReadInput)
}

/// Reads one record whose magic and version (2) the caller has read, `file_at` its
/// first byte, `out_at` the stream's output so far. A data frame's payload is read into
/// it, or with `skip`, moved past (its length checked either way).
pub(super) fn read_record<R: Read>(
    r: &mut R,
    index: u64,
    file_at: u64,
    out_at: u64,
    skip: Option<Skip<R>>,
) -> Result<Record> {
    let mut crc = crc32fast::Hasher::new();
    crc.update(MAGIC);
    crc.update(&[VERSION_FRAMED]);
    let mut c = HeaderReader {
        r,
        pos: file_at + 5,
        crc,
    };
    let wrap = |e: Error| match e {
        Error::Corrupt { reason, .. } => frame_error(index, file_at, reason),
        e => e,
    };
    let [kind, r0, r1] = c.array::<3>("frame kind").map_err(wrap)?;
    if [r0, r1] != [0, 0] {
        return Err(frame_error(index, file_at, "reserved bytes are not zero"));
    }
    match kind {
        KIND_END => {
            let total_len = c.u64("total length").map_err(wrap)?;
            let crc32 = c.u32("checksum").map_err(wrap)?;
            let frames = c.u64("frame count").map_err(wrap)?;
            let computed = c.crc.clone().finalize();
            if c.u32("header checksum").map_err(wrap)? != computed {
                return Err(frame_error(index, file_at, "end record checksum mismatch"));
            }
            Ok(Record::End(End {
                total_len,
                crc32,
                frames,
            }))
        }
        KIND_DATA => {
            let len = c.u32("frame length").map_err(wrap)? as u64;
            let block_symbols = c.u32("block size").map_err(wrap)? as u64;
            let payload_bits = c.u32("payload size").map_err(wrap)? as u64;
            let crc32 = c.u32("checksum").map_err(wrap)?;
            let packed = c.array::<128>("code lengths").map_err(wrap)?;
            if len == 0 || len > MAX_FRAME_LEN || block_symbols == 0 {
                return Err(frame_error(
                    index,
                    file_at,
                    format!("{len} bytes in blocks of {block_symbols}"),
                ));
            }
            // Every symbol takes at least one bit: this bounds what `len` may ask for by
            // the payload actually present.
            if payload_bits < len {
                return Err(frame_error(
                    index,
                    file_at,
                    format!("{len} bytes cannot fit in {payload_bits} payload bits"),
                ));
            }
            // Nor more than the longest code: a header cannot ask for more payload than
            // its frame's bytes could fill.
            let longest = crate::huffman::frames::FRAME_MAX_CODE_LEN as u64;
            if payload_bits > len * longest {
                return Err(frame_error(
                    index,
                    file_at,
                    format!(
                        "{payload_bits} payload bits for {len} bytes (at most {longest} a byte)"
                    ),
                ));
            }
            let n = len.div_ceil(block_symbols) as usize;
            let mut offsets = Vec::with_capacity(n.min(1 << 12));
            offsets.push(0u64);
            let mut buf = [0u8; 4];
            for _ in 1..n {
                c.fill(&mut buf, "block offsets").map_err(wrap)?;
                offsets.push(u32::from_le_bytes(buf) as u64);
            }
            let computed = c.crc.clone().finalize();
            if c.u32("header checksum").map_err(wrap)? != computed {
                return Err(frame_error(index, file_at, "header checksum mismatch"));
            }
            if offsets.windows(2).any(|w| w[1] < w[0]) || offsets[n - 1] > payload_bits {
                return Err(frame_error(
                    index,
                    file_at,
                    "block offsets are out of order or past the payload",
                ));
            }
            let mut lengths = [0u8; 256];
            for (i, &b) in packed.iter().enumerate() {
                lengths[2 * i] = b & 15;
                lengths[2 * i + 1] = b >> 4;
            }
            let want = payload_bits.div_ceil(8);
            let mut payload = Vec::new();
            let got = match skip {
                Some(skip) => skip(c.r, want)?,
                None => {
                    // One allocation for any frame the encoder writes (1 MiB frames: under
                    // 2 MiB of payload); a larger claim grows only as its bytes arrive.
                    payload.reserve_exact((want as usize).min(PAYLOAD_RESERVE_MAX));
                    let read = c.r.take(want).read_to_end(&mut payload);
                    read.map_err(Error::ReadInput)? as u64
                }
            };
            if got < want {
                return Err(truncated(index, file_at, got, want));
            }
            Ok(Record::Data(Box::new(Frame {
                index,
                out_at,
                file_at,
                len,
                block_symbols,
                payload_bits,
                crc32,
                lengths,
                offsets,
                payload: Payload::Own(payload),
            })))
        }
        k => Err(frame_error(
            index,
            file_at,
            format!("unknown frame kind {k}"),
        )),
    }
}

/// Walks a native v2 stream record by record (after the first magic and version),
/// keeping where each lies: the one loop behind decoding and `parvlc info`.
pub(super) struct Walk<'r, R> {
    pub(super) r: &'r mut R,
    /// Frames read so far, the file offset of the next record, the output so far.
    pub(super) index: u64,
    pub(super) file_at: u64,
    pub(super) out_at: u64,
    /// How payloads are moved past, where they are not read into their frames.
    skip: Option<Skip<R>>,
}

impl<'r, R: Read> Walk<'r, R> {
    pub(super) fn new(r: &'r mut R, skip: Option<Skip<R>>) -> Self {
        Walk {
            r,
            index: 0,
            file_at: 0,
            out_at: 0,
            skip,
        }
    }

    /// The next data frame, or the end record once checked against the frames walked.
    pub(super) fn next(&mut self) -> Result<Record> {
        if self.index > 0 {
            expect_record(self.r, self.index, self.file_at)?;
        }
        let record = read_record(self.r, self.index, self.file_at, self.out_at, self.skip)?;
        match &record {
            Record::Data(f) => {
                self.file_at += f.file_len();
                self.out_at += f.len;
                self.index += 1;
            }
            Record::End(end) => {
                if end.frames != self.index || end.total_len != self.out_at {
                    return Err(frame_error(
                        self.index,
                        self.file_at,
                        format!(
                            "end record says {} frames and {} bytes; the stream holds {} and {}",
                            end.frames, end.total_len, self.index, self.out_at
                        ),
                    ));
                }
            }
        }
        Ok(record)
    }
}

/// Reads the magic and version of record `index`, which must be there.
pub(super) fn expect_record(r: &mut impl Read, index: u64, file_at: u64) -> Result<()> {
    let mut head = [0u8; 5];
    let got = read_full(r, &mut head)?;
    if !crate::huffman::native::is_framed(&head[..got]) {
        return Err(frame_error(
            index,
            file_at,
            if got == 0 {
                "the stream ends without its end record (truncated)".to_string()
            } else {
                format!("expected a frame, found {:02x?}", &head[..got])
            },
        ));
    }
    Ok(())
}
