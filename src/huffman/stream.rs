//! Streaming decompression: compressed bytes from a reader, the original written out as
//! it is decoded, in memory bounded whatever the sizes (a native batch and its payload
//! bytes, or flate2's window for gzip).
//!
//! gzip input follows GNU gzip's rules (gzip 1.12, `get_method`) for what comes after a
//! member: another member (`1f 8b`) is decoded; zero bytes up to the end are ignored;
//! anything else is trailing garbage, reported in [`Decompressed::trailing`] for the
//! caller to warn about (gzip writes the output, warns and exits with status 2); a lone
//! nonzero byte, or a member in a format gzip reads and we do not, is an error.

use std::io::{BufRead, Read, Write};

use super::compress::{detect_format, Format};
use super::native::{self, read_full};
use crate::{Error, Result};

/// What followed the last gzip member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trailing {
    /// Nothing: the input ended with the member.
    None,
    /// Only zero bytes (ignored, as gzip does).
    Zeros,
    /// Bytes that start no member: gzip decodes the members, warns and exits with 2.
    Garbage,
}

/// What a streaming decompression did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decompressed {
    pub format: Format,
    /// Bytes written to the output.
    pub bytes_out: u64,
    /// Input offset where the compressed data ended (trailing data starts there).
    pub data_end: u64,
    /// gzip members decoded (1 for a native file).
    pub members: u64,
    pub trailing: Trailing,
}

/// Decompresses a native or gzip stream from `input` into `output` as it goes. On an
/// error the output holds a prefix that must be discarded: the checksums come last.
pub fn decompress_to(
    input: &mut impl BufRead,
    output: &mut (impl Write + Send),
) -> Result<Decompressed> {
    decompress_to_batched(input, output, native::DEFAULT_BATCH_BYTES)
}

/// [`decompress_to`], decoding native files `batch_bytes` of output at a time.
pub fn decompress_to_batched(
    input: &mut impl BufRead,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<Decompressed> {
    decompress_to_on(&crate::Engine::Cpu, input, output, batch_bytes)
}

/// [`decompress_to_batched`] on `engine`: native framed (v2) files decode on a wgpu GPU
/// (shaders/huffman/vld.wgsl), everything else on the CPU cores (gzip, native v1; CUDA
/// has no decoder yet and is an error).
pub fn decompress_to_on(
    engine: &crate::Engine,
    input: &mut impl BufRead,
    output: &mut (impl Write + Send),
    batch_bytes: usize,
) -> Result<Decompressed> {
    let gpu = engine.wgpu_or_cpu("decompression")?;
    let (mut input, head, got) = sniff(input)?;
    let head = &head[..got];
    match detect_format(head) {
        Some(Format::Native) => {
            let bytes_out = native::decompress_native_on(
                gpu.map(|g| &**g),
                &mut head.chain(&mut input),
                output,
                batch_bytes,
            )?;
            Ok(Decompressed {
                format: Format::Native,
                bytes_out,
                data_end: input.count,
                members: 1,
                trailing: Trailing::None,
            })
        }
        Some(Format::Gzip) => gzip_members(head, &mut input, output),
        None => Err(not_compressed(head)),
    }
}

/// What `parvlc info` reports about a compressed stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Description {
    /// A native file's header summary ([`native::info_native`]'s text).
    Native(String),
    /// A gzip stream, decoded into a counter (its output never held).
    Gzip(Decompressed),
}

/// Describes the compressed stream `input`, `file_len` bytes long: a native file from its
/// header alone; gzip by decoding every member into a byte counter.
pub fn describe(input: &mut impl BufRead, file_len: u64) -> Result<Description> {
    let (mut input, head, got) = sniff(input)?;
    let head = &head[..got];
    match detect_format(head) {
        Some(Format::Native) => Ok(Description::Native(native::info_native_header(
            &mut head.chain(&mut input),
            file_len,
        )?)),
        Some(Format::Gzip) => Ok(Description::Gzip(gzip_members(
            head,
            &mut input,
            &mut std::io::sink(),
        )?)),
        None => Err(not_compressed(head)),
    }
}

/// `input` counted from its start, and its first (up to) 4 bytes, which name the format.
fn sniff<R: BufRead>(input: R) -> Result<(Counted<R>, [u8; 4], usize)> {
    let mut input = Counted {
        inner: input,
        count: 0,
        failed: None,
    };
    let mut head = [0u8; 4];
    let got = read_full(&mut input, &mut head)?;
    Ok((input, head, got))
}

/// The error for input that is neither format, naming its first bytes.
pub(crate) fn not_compressed(head: &[u8]) -> Error {
    Error::BadMagic {
        format: "parvlc native or gzip",
        reason: format!("starts with {:02x?}", &head[..head.len().min(4)]),
    }
}

fn corrupt(reason: String) -> Error {
    Error::corrupt("gzip", reason)
}

/// The member loop. `head` holds the first bytes of the first member, already read.
fn gzip_members<R: BufRead>(
    head: &[u8],
    input: &mut Counted<R>,
    output: &mut (impl Write + Send),
) -> Result<Decompressed> {
    let mut buf = vec![0u8; 64 << 10];
    let mut next = [0u8; 2];
    let mut head = head;
    let mut members = 0u64;
    let mut bytes_out = 0u64;
    loop {
        members += 1;
        let at = input.count - head.len() as u64;
        bytes_out += gzip_member(head, input, output, &mut buf, members, at)?;
        let end = input.count;
        let done = |trailing| -> Result<Decompressed> {
            Ok(Decompressed {
                format: Format::Gzip,
                bytes_out,
                data_end: end,
                members,
                trailing,
            })
        };
        if read_full(input, &mut next[..1])? == 0 {
            return done(Trailing::None);
        }
        if next[0] == 0 {
            return done(if skip_zeros(input)? {
                Trailing::Zeros
            } else {
                Trailing::Garbage
            });
        }
        if read_full(input, &mut next[1..])? == 0 {
            // gzip reads a second magic byte after a nonzero one and fails without it.
            return Err(corrupt(format!(
                "unexpected end of file: one byte ({:#04x}) after member {members}, at byte {end}",
                next[0]
            )));
        }
        match next {
            [0x1f, 0x8b] => head = &next,
            // Old gzip, pack, compress (LZW), LZH: gzip reads these as members.
            [0x1f, 0x9e | 0x1e | 0x9d | 0xa0] => {
                return Err(corrupt(format!(
                    "member {} at byte {end} is in a format gzip reads and parvlc does not \
                     (magic {:02x?}: old gzip, pack, compress or LZH)",
                    members + 1,
                    next
                )))
            }
            _ => return done(Trailing::Garbage),
        }
    }
}

/// Decodes one gzip member (CRC32 and ISIZE checked by flate2) into `output`; returns
/// its length. flate2's `bufread` decoder consumes exactly the member's bytes, so the
/// input is left at whatever follows.
fn gzip_member<R: BufRead>(
    head: &[u8],
    input: &mut Counted<R>,
    output: &mut (impl Write + Send),
    buf: &mut [u8],
    member: u64,
    at: u64,
) -> Result<u64> {
    let mut dec = flate2::bufread::GzDecoder::new(head.chain(&mut *input));
    let mut n = 0u64;
    loop {
        match dec.read(buf) {
            Ok(0) => return Ok(n),
            Ok(k) => {
                output
                    .write_all(buf.get(..k).unwrap_or(buf))
                    .map_err(Error::WriteOutput)?;
                n += k as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                drop(dec);
                return Err(match input.failed.take() {
                    Some(io) => Error::ReadInput(io),
                    None => corrupt(format!("member {member} at byte {at}: {e}")),
                });
            }
        }
    }
}

/// Skips zero bytes; true if the input ends with them, false at a nonzero byte.
fn skip_zeros<R: BufRead>(input: &mut Counted<R>) -> Result<bool> {
    loop {
        let buf = input.fill_buf().map_err(Error::ReadInput)?;
        if buf.is_empty() {
            return Ok(true);
        }
        let zeros = buf.iter().take_while(|&&b| b == 0).count();
        let all = zeros == buf.len();
        input.consume(zeros);
        if !all {
            return Ok(false);
        }
    }
}

/// The input, counting the bytes consumed (offsets for messages) and keeping the error
/// of a failed read, which flate2 would otherwise report as if the data were corrupt.
struct Counted<R> {
    inner: R,
    count: u64,
    failed: Option<std::io::Error>,
}

impl<R> Counted<R> {
    fn stash(&mut self, e: std::io::Error) -> std::io::Error {
        let copy = std::io::Error::new(e.kind(), e.to_string());
        if e.kind() != std::io::ErrorKind::Interrupted {
            self.failed = Some(e);
        }
        copy
    }
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.count += n as u64;
                Ok(n)
            }
            Err(e) => Err(self.stash(e)),
        }
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        // Two steps: the borrow of a successful fill_buf may not outlive the error path.
        if let Err(e) = self.inner.fill_buf() {
            return Err(self.stash(e));
        }
        self.inner.fill_buf()
    }
    fn consume(&mut self, n: usize) {
        self.count += n as u64;
        self.inner.consume(n);
    }
}
