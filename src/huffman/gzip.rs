//! gzip output (RFC 1952) holding a single dynamic-Huffman DEFLATE block (RFC 1951)
//! of literals followed by end-of-block.

use rayon::prelude::*;

use crate::bits::{BitBuf, BitOrder, LsbWriter};
use crate::error::{Error, Result};
use crate::huffman::code_lengths::code_lengths;
use crate::huffman::codebook::canonical_codes;
use crate::huffman::cpu::encode_parallel;
use crate::huffman::Codebook;

/// The end-of-block symbol of the literal/length alphabet.
pub const EOB: usize = 256;
/// Symbols in the literal alphabet used here: 256 literals plus end-of-block.
pub const LITERAL_SYMBOLS: usize = 257;
/// DEFLATE's code length limit for literal/length codes.
pub const MAX_LITERAL_LEN: u8 = 15;

/// Order in which the code-length code lengths are stored (RFC 1951 3.2.7).
const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// Literal/EOB frequencies (257 entries) from a byte histogram; EOB occurs once.
pub fn literal_frequencies(hist: &[u64; 256]) -> [u64; LITERAL_SYMBOLS] {
    let mut f = [1u64; LITERAL_SYMBOLS];
    f[..256].copy_from_slice(hist);
    f
}

/// Extra bits after each code-length symbol: repeat counts for 16, 17 and 18.
const fn cl_extra_bits(symbol: u8) -> u32 {
    match symbol {
        16 => 2,
        17 => 3,
        18 => 7,
        _ => 0,
    }
}

/// Calls `run(value, count)` for each run of equal values in `lengths`, in order. Where
/// runs start comes from comparing eight values at a time with the ones before them, 64
/// positions to a mask, so that finding the next run is a step over the mask's bits, not
/// a scan that waits on the run before.
fn for_each_run(lengths: &[u8], mut run: impl FnMut(u8, usize)) {
    let n = lengths.len();
    // lengths[p..p + 8] as a little-endian word, 0xff (no code length) past the end.
    let word_at = |p: usize| match lengths[p.min(n)..].first_chunk::<8>() {
        Some(w) => u64::from_le_bytes(*w),
        None => lengths[p.min(n)..]
            .iter()
            .rev()
            .fold(u64::MAX, |w, &l| (w << 8) | l as u64),
    };
    let mut start = 0;
    for block in (0..n).step_by(64) {
        let mut starts = 0u64;
        for group in 0..8 {
            let p = block + 8 * group;
            if p >= n {
                break;
            }
            let cur = word_at(p);
            // The values before each (position 0 starts the first run whatever its bit).
            let prev = match p {
                0 => cur << 8,
                _ => word_at(p - 1),
            };
            // One bit per byte that differs from the one before it.
            let mut x = cur ^ prev;
            x |= x >> 4;
            x |= x >> 2;
            x |= x >> 1;
            x &= 0x0101_0101_0101_0101;
            starts |= (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * group);
        }
        // Past the end is the last run's end, whatever the padding compared.
        if n - block < 64 {
            starts &= (1 << (n - block)) - 1;
        }
        while starts != 0 {
            let p = block + starts.trailing_zeros() as usize;
            starts &= starts - 1;
            if p > start {
                run(lengths[start], p - start);
                start = p;
            }
        }
    }
    if n > start {
        run(lengths[start], n - start);
    }
}

/// Run-length codes the code-length sequence with symbols 16, 17 and 18 into `out`, which
/// has room for two entries more than `lengths` has: `(symbol, extra bits value)` (the
/// extra bits' count is [`cl_extra_bits`]), and counts each symbol's entries in `counts`.
/// Returns the number of entries.
fn rle_code_lengths(lengths: &[u8], out: &mut [(u8, u8)], counts: &mut [u64; 19]) -> usize {
    let mut n = 0;
    for_each_run(lengths, |v, mut run| {
        // Runs too short to repeat, the most common, are written without branching on
        // their length.
        if run <= 2 || (v != 0 && run == 3) {
            out[n..n + 3].fill((v, 0));
            n += run;
            counts[v as usize] += run as u64;
            return;
        }
        let mut put = |s: u8, extra: u8| {
            out[n] = (s, extra);
            n += 1;
            counts[s as usize] += 1;
        };
        if v == 0 {
            while run >= 11 {
                let r = run.min(138);
                put(18, (r - 11) as u8);
                run -= r;
            }
            if run >= 3 {
                put(17, (run - 3) as u8);
                run = 0;
            }
        } else {
            put(v, 0);
            run -= 1;
            while run >= 3 {
                let r = run.min(6);
                put(16, (r - 3) as u8);
                run -= r;
            }
        }
        for _ in 0..run {
            put(v, 0);
        }
    });
    n
}

fn check_literal_book(book: &Codebook) -> Result<()> {
    if book.num_symbols() != LITERAL_SYMBOLS {
        return Err(Error::InvalidCodeTable(format!(
            "a DEFLATE literal code needs {LITERAL_SYMBOLS} symbols, this one has {}",
            book.num_symbols()
        )));
    }
    let lengths = book.lengths();
    let longest = lengths.iter().copied().fold(0, u8::max);
    if longest > MAX_LITERAL_LEN {
        return Err(Error::InvalidCodeTable(format!(
            "DEFLATE codes are at most {MAX_LITERAL_LEN} bits, this one has {longest}-bit codes"
        )));
    }
    if lengths[EOB] == 0 {
        return Err(Error::InvalidCodeTable(
            "the end-of-block symbol has no code".into(),
        ));
    }
    // Kraft sum scaled by 2^15 (length 0 adds nothing: 2^15 >> 15 is 1, masked off).
    let kraft: u32 = lengths
        .iter()
        .map(|&l| ((1u32 << 15) >> l) & !u32::from(l == 0).wrapping_neg())
        .sum();
    if kraft != 1 << 15 {
        return Err(Error::InvalidCodeTable(
            "DEFLATE decoders reject an incomplete literal/length code".into(),
        ));
    }
    Ok(())
}

/// The DEFLATE dynamic block header (LSB-first bits) for a 257-symbol literal+EOB
/// code: BFINAL=1, BTYPE=10, HLIT, HDIST, HCLEN, the code-length code and the
/// run-length coded literal/length and distance code lengths (one 1-bit distance code).
pub fn deflate_block_header(book: &Codebook) -> Result<BitBuf> {
    deflate_block_header_with(book, true)
}

/// [`deflate_block_header`] with BFINAL = `last` (a framed stream's blocks are not).
pub fn deflate_block_header_with(book: &Codebook, last: bool) -> Result<BitBuf> {
    check_literal_book(book)?;
    // Literal/length lengths then the single distance code's length, one sequence.
    let mut all = [1u8; LITERAL_SYMBOLS + 1];
    all[..LITERAL_SYMBOLS].copy_from_slice(book.lengths());
    // At most one run-length symbol per length, and room for two more.
    let mut rle = [(0u8, 0u8); LITERAL_SYMBOLS + 3];
    let mut cl_freq = [0u64; 19];
    let n_rle = rle_code_lengths(&all, &mut rle, &mut cl_freq);
    let rle = &rle[..n_rle];
    let mut cl_len = [0u8; 19];
    code_lengths(&cl_freq, 7, &mut cl_len)?;
    let mut cl_code = [0u32; 19];
    canonical_codes(&cl_len, &mut cl_code)?;
    let n_cl = CL_ORDER
        .iter()
        .rposition(|&s| cl_len[s] != 0)
        .map_or(4, |p| (p + 1).max(4));
    // Each symbol's code, first bit lowest, and its bits with its extra bits.
    let mut cl_lsb = [0u32; 19];
    let mut cl_bits = [0u32; 19];
    for s in 0..19 {
        cl_lsb[s] = lsb_first(cl_code[s], cl_len[s]);
        cl_bits[s] = cl_len[s] as u32 + cl_extra_bits(s as u8);
    }

    let mut w = HeaderWriter::new();
    w.put(last as u32, 1); // BFINAL
    w.put(2, 2); // BTYPE = 10 (dynamic)
    w.put((LITERAL_SYMBOLS - 257) as u32, 5); // HLIT
    w.put(0, 5); // HDIST: one distance code
    w.put((n_cl - 4) as u32, 4); // HCLEN
    for &s in &CL_ORDER[..n_cl] {
        w.put(cl_len[s] as u32, 3);
    }
    for &(s, extra) in rle {
        let s = s as usize;
        w.put(cl_lsb[s] | (extra as u32) << cl_len[s], cl_bits[s]);
    }
    Ok(w.finish())
}

/// Bytes of the longest header [`deflate_block_header_with`] writes: 17 bits of fields,
/// 19 3-bit code-length lengths and 258 codes of at most 7 bits with 7 extra bits.
pub(crate) const HEADER_MAX_BYTES: usize = (17 + 19 * 3 + (LITERAL_SYMBOLS + 1) * 14).div_ceil(8);

/// An LSB-first bit writer into a fixed buffer that never branches on its fill: every
/// write stores eight bytes and moves on by the whole bytes it completed.
struct HeaderWriter {
    buf: [u8; HEADER_MAX_BYTES + 8],
    at: usize,
    acc: u64,
    n: u32,
}

impl HeaderWriter {
    fn new() -> HeaderWriter {
        HeaderWriter {
            buf: [0; HEADER_MAX_BYTES + 8],
            at: 0,
            acc: 0,
            n: 0,
        }
    }

    /// Writes `value`'s `len` (<= 32) bits; `value` has no bits above them.
    fn put(&mut self, value: u32, len: u32) {
        self.acc |= (value as u64) << self.n;
        self.n += len;
        self.buf[self.at..self.at + 8].copy_from_slice(&self.acc.to_le_bytes());
        let whole = self.n / 8;
        self.at += whole as usize;
        self.acc >>= 8 * whole;
        self.n -= 8 * whole;
    }

    fn finish(self) -> BitBuf {
        BitBuf {
            bytes: self.buf[..self.at + self.n.div_ceil(8) as usize].to_vec(),
            bits: self.at as u64 * 8 + self.n as u64,
        }
    }
}

/// A Huffman code of `len` bits (first bit most significant) as DEFLATE writes it: first
/// bit lowest.
fn lsb_first(code: u32, len: u8) -> u32 {
    match len {
        0 => 0,
        l => code.reverse_bits() >> (32 - l as u32),
    }
}

/// Assembles a gzip member: 10-byte header, the DEFLATE block `header`, the literal
/// `body` (LSB-first, starting with `header.bits % 8` zero bits), the end-of-block code,
/// padding, CRC32 and ISIZE.
pub fn assemble_gzip(
    book: &Codebook,
    header: &BitBuf,
    body: &BitBuf,
    crc32: u32,
    isize: u64,
) -> Result<Vec<u8>> {
    check_literal_book(book)?;
    let phase = header.bits % 8;
    if header.bytes.len() as u64 != header.bits.div_ceil(8)
        || body.bytes.len() as u64 != body.bits.div_ceil(8)
    {
        return Err(Error::InvalidArgument(
            "bit buffer length does not match its bit count".into(),
        ));
    }
    if body.bits < phase {
        return Err(Error::InvalidArgument(format!(
            "body holds {} bits, less than its {phase}-bit start offset",
            body.bits
        )));
    }
    let mut stream = Vec::with_capacity(10 + header.bytes.len() + body.bytes.len() + 16);
    stream.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
    stream.extend_from_slice(&header.bytes);
    if phase != 0 {
        let first = body.bytes.first().copied().unwrap_or(0);
        let low = (1u8 << phase) - 1;
        if first & low != 0 {
            return Err(Error::InvalidArgument(format!(
                "body does not start with {phase} zero bits (encode it with start_bit = {phase})"
            )));
        }
        if let Some(last) = stream.last_mut() {
            *last |= first;
        }
        stream.extend_from_slice(body.bytes.get(1..).unwrap_or(&[]));
    } else {
        stream.extend_from_slice(&body.bytes);
    }
    let bits = 80 + header.bits - phase + body.bits;
    let mut w = LsbWriter::resume(stream, bits);
    w.code(book.codes()[EOB], book.lengths()[EOB]);
    let mut out = w.finish().bytes;
    out.extend_from_slice(&crc32.to_le_bytes());
    out.extend_from_slice(&(isize as u32).to_le_bytes());
    Ok(out)
}

/// Byte histogram on all cores.
pub fn histogram(input: &[u8]) -> [u64; 256] {
    input
        .par_chunks(1 << 16)
        .fold(
            || [0u64; 256],
            |mut h, c| {
                for &b in c {
                    h[b as usize] += 1;
                }
                h
            },
        )
        .reduce(
            || [0u64; 256],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b.iter()) {
                    *x += y;
                }
                a
            },
        )
}

/// gzip-compresses `input` on the CPU: histogram, 15-bit limited Huffman code,
/// parallel encode, assembly.
pub fn compress_gzip_cpu(input: &[u8]) -> Result<Vec<u8>> {
    let hist = histogram(input);
    let book = Codebook::from_frequencies(&literal_frequencies(&hist), MAX_LITERAL_LEN)?;
    let header = deflate_block_header(&book)?;
    let body = encode_parallel(
        input,
        &book.table()?,
        BitOrder::LsbFirst,
        (header.bits % 8) as u32,
    )?;
    assemble_gzip(
        &book,
        &header,
        &body,
        crc32fast::hash(input),
        input.len() as u64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn flate2_decode(gz: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(gz)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    fn gzip_tool_decode(gz: &[u8]) -> Option<Vec<u8>> {
        let path = std::path::Path::new("/usr/bin/gzip");
        let exe = if path.exists() {
            path.to_path_buf()
        } else {
            return None;
        };
        let mut child = std::process::Command::new(exe)
            .arg("-dc")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .ok()?;
        let mut stdin = child.stdin.take().unwrap();
        let data = gz.to_vec();
        let writer = std::thread::spawn(move || stdin.write_all(&data));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(
            out.status.success(),
            "gzip -dc failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some(out.stdout)
    }

    fn check(input: &[u8]) {
        let gz = compress_gzip_cpu(input).unwrap();
        assert_eq!(flate2_decode(&gz), input, "flate2, {} bytes", input.len());
        if let Some(out) = gzip_tool_decode(&gz) {
            assert!(out == input, "gzip -dc, {} bytes", input.len());
        }
    }

    #[test]
    fn round_trips() {
        check(b"");
        check(b"x");
        check(&[0u8]);
        check(&[255u8]);
        check(&[b'a'; 1000]);
        check(b"hello, hello, hello world");
        let mut st = 11;
        let uniform: Vec<u8> = (0..300_000).map(|_| splitmix(&mut st) as u8).collect();
        check(&uniform);
        let skewed: Vec<u8> = (0..1_000_000)
            .map(|_| {
                let r = splitmix(&mut st);
                (r.trailing_zeros() as u8).wrapping_mul(13)
            })
            .collect();
        check(&skewed);
        let all: Vec<u8> = (0..=255u8).collect();
        check(&all);
    }

    #[test]
    fn fifteen_bit_codes() {
        // Fibonacci-like frequencies over 40 symbols force the 15-bit limit.
        let mut fib = vec![1usize, 1];
        while fib.len() < 30 {
            let k = fib.len();
            fib.push(fib[k - 1] + fib[k - 2]);
        }
        let mut input = Vec::new();
        for (i, &f) in fib.iter().enumerate() {
            input.extend(std::iter::repeat_n((i * 7 % 256) as u8, f.min(2_000_000)));
        }
        let mut st = 1;
        // Shuffle a bit so it is not a run-only input.
        for i in (1..input.len()).rev().step_by(3) {
            let j = (splitmix(&mut st) % (i as u64 + 1)) as usize;
            input.swap(i, j);
        }
        let hist = histogram(&input);
        let book = Codebook::from_frequencies(&literal_frequencies(&hist), 15).unwrap();
        assert_eq!(book.max_len(), 15);
        check(&input);
    }

    #[test]
    fn rle_round_trip() {
        let mut st = 3;
        for _ in 0..500 {
            let n = 1 + (splitmix(&mut st) % 300) as usize;
            let lens: Vec<u8> = (0..n)
                .map(|_| {
                    let r = splitmix(&mut st);
                    if r.is_multiple_of(3) {
                        0
                    } else {
                        (r % 4) as u8 * (r % 2) as u8 + 7
                    }
                })
                .collect();
            let mut back: Vec<u8> = Vec::new();
            let mut rle = vec![(0, 0); lens.len() + 2];
            let mut counts = [0u64; 19];
            let n = rle_code_lengths(&lens, &mut rle, &mut counts);
            for (s, &c) in counts.iter().enumerate() {
                let entries = rle[..n].iter().filter(|e| e.0 as usize == s).count();
                assert_eq!(c, entries as u64, "symbol {s}");
            }
            for &(s, extra) in &rle[..n] {
                match s {
                    16 => {
                        let p = *back.last().unwrap();
                        back.extend(std::iter::repeat_n(p, extra as usize + 3));
                    }
                    17 => back.extend(std::iter::repeat_n(0, extra as usize + 3)),
                    18 => back.extend(std::iter::repeat_n(0, extra as usize + 11)),
                    v => back.push(v),
                }
            }
            assert_eq!(back, lens);
        }
    }

    /// The run-length coding one length at a time, as RFC 1951 describes it.
    fn plain_rle(lengths: &[u8]) -> Vec<(u8, u8)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < lengths.len() {
            let v = lengths[i];
            let mut run = lengths[i..].iter().take_while(|&&l| l == v).count();
            i += run;
            if v == 0 {
                while run >= 11 {
                    let r = run.min(138);
                    out.push((18, (r - 11) as u8));
                    run -= r;
                }
                if run >= 3 {
                    out.push((17, (run - 3) as u8));
                    run = 0;
                }
            } else {
                out.push((v, 0));
                run -= 1;
                while run >= 3 {
                    let r = run.min(6);
                    out.push((16, (r - 3) as u8));
                    run -= r;
                }
            }
            out.extend(std::iter::repeat_n((v, 0), run));
        }
        out
    }

    #[test]
    fn rle_matches_the_plain_scan() {
        let mut st = 9;
        for trial in 0..2000 {
            // Runs of every length up to past two 64-length blocks, and of one.
            let n = (splitmix(&mut st) % 400) as usize;
            let mut lens = Vec::with_capacity(n);
            while lens.len() < n {
                let r = splitmix(&mut st);
                let v = [0, 0, 1, 7, 15][(r % 5) as usize];
                let run = 1 + (r >> 8) as usize % [3, 8, 20, 150][(r >> 40) as usize % 4];
                lens.extend(std::iter::repeat_n(v, run.min(n - lens.len())));
            }
            let mut rle = vec![(0, 0); n + 2];
            let mut counts = [0u64; 19];
            let got = rle_code_lengths(&lens, &mut rle, &mut counts);
            assert_eq!(&rle[..got], &plain_rle(&lens)[..], "trial {trial}");
        }
    }

    #[test]
    fn invalid_inputs() {
        let small = Codebook::from_frequencies(&[1, 2, 3], 15).unwrap();
        assert!(deflate_block_header(&small).is_err());
        let deep =
            Codebook::from_frequencies(&(0..257).map(|i| 1u64 << (i % 40)).collect::<Vec<_>>(), 32)
                .unwrap();
        assert!(deep.max_len() > 15);
        assert!(deflate_block_header(&deep).is_err());
        let mut lens = vec![9u8; 257];
        lens[0] = 0;
        let incomplete = Codebook::from_lengths(&lens).unwrap();
        assert!(deflate_block_header(&incomplete).is_err());

        let mut h = [0u64; 256];
        h[1] = 5;
        let book = Codebook::from_frequencies(&literal_frequencies(&h), 15).unwrap();
        let header = deflate_block_header(&book).unwrap();
        let phase = (header.bits % 8) as u32;
        if phase != 0 {
            let dirty = BitBuf {
                bytes: vec![0xff],
                bits: 8,
            };
            assert!(assemble_gzip(&book, &header, &dirty, 0, 2).is_err());
        }
        let short = BitBuf {
            bytes: vec![0xff],
            bits: 9,
        };
        assert!(assemble_gzip(&book, &header, &short, 0, 2).is_err());
        let good = crate::huffman::cpu::encode_serial(
            &[1, 1],
            &book.table().unwrap(),
            BitOrder::LsbFirst,
            phase,
        )
        .unwrap();
        let gz = assemble_gzip(&book, &header, &good, crc32fast::hash(&[1, 1]), 2).unwrap();
        assert_eq!(flate2_decode(&gz), vec![1, 1]);
    }
}
