//! Bit streams shared by the codecs: the packed stream type and its bit order, and the
//! plain writers (MSB-first for H.264 and the native format's readers, LSB-first for
//! DEFLATE). Writers with a codec's own rules stay with their codec: JPEG 2000's packet
//! headers (bit-stuffing after 0xFF, `j2k::tier2`) and raw segments (`bitstuff`).

/// How the bit stream is packed into bytes. In both orders a code is emitted starting
/// with its most significant bit (bit `len - 1` of the code value), as Huffman codes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BitOrder {
    /// Stream bit 0 is bit 7 of byte 0 (the CUVLE paper; JPEG and H.264 style).
    MsbFirst,
    /// Stream bit 0 is bit 0 of byte 0 (DEFLATE).
    LsbFirst,
}

/// A bit stream: `bytes` holds `bits` bits packed in some [`BitOrder`], the unused tail
/// bits of the last byte zero.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitBuf {
    pub bytes: Vec<u8>,
    pub bits: u64,
}

impl BitBuf {
    /// From little-endian u32 words (as the GPU writes them), `bits` long.
    pub(crate) fn from_words(words: &[u32], bits: u64) -> BitBuf {
        let mut bytes: Vec<u8> = bytemuck::cast_slice(words).to_vec();
        bytes.truncate(bits.div_ceil(8) as usize);
        BitBuf { bytes, bits }
    }
}

/// An LSB-first packed word in the stream's bit order: for MSB-first, the bits of every
/// byte reversed (twin of shaders/common/bitwriter.wgsl `stream_word`).
pub(crate) fn stream_word(lsb_first: u32, order: BitOrder) -> u32 {
    match order {
        BitOrder::LsbFirst => lsb_first,
        BitOrder::MsbFirst => lsb_first.reverse_bits().swap_bytes(),
    }
}

/// Where MSB-first bits go: [`MsbWriter`] and CAVLC's packer, so that syntax written on
/// top of them (Exp-Golomb codes, macroblock headers) exists once.
pub trait BitSink {
    /// Append the low `len` (<= 32) bits of `value`, most significant first; `value` has
    /// no bits above `len`.
    fn put_bits(&mut self, value: u32, len: u32);
}

impl BitSink for MsbWriter {
    fn put_bits(&mut self, value: u32, len: u32) {
        self.put(value, len);
    }
}

/// MSB-first bit writer (the H.264 bit order: the first bit is bit 7 of byte 0).
#[derive(Clone, Debug, Default)]
pub struct MsbWriter {
    bytes: Vec<u8>,
    bits: u64,
}

impl MsbWriter {
    pub fn new() -> MsbWriter {
        MsbWriter::default()
    }
    /// Append the low `len` bits of `value`, most significant first (`len` <= 32).
    pub fn put(&mut self, value: u32, len: u32) {
        assert!(len <= 32, "MsbWriter::put: len {len} > 32");
        for i in (0..len).rev() {
            let bit = (value >> i) & 1;
            let pos = (self.bits % 8) as u32;
            if pos == 0 {
                self.bytes.push(0);
            }
            if bit != 0 {
                *self.bytes.last_mut().unwrap() |= 0x80 >> pos;
            }
            self.bits += 1;
        }
    }
    /// Bits written so far.
    pub fn bit_len(&self) -> u64 {
        self.bits
    }
    /// The written bits as a string of '0' and '1'.
    pub fn to_bit_string(&self) -> String {
        (0..self.bits)
            .map(|i| {
                if self.bytes[(i / 8) as usize] & (0x80 >> (i % 8)) != 0 {
                    '1'
                } else {
                    '0'
                }
            })
            .collect()
    }
    /// The bytes, MSB-first, the unused tail bits of the last byte zero.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
    /// As the crate's bit-stream type ([`crate::huffman::BitOrder::MsbFirst`] packing).
    pub fn into_bitbuf(self) -> BitBuf {
        BitBuf {
            bytes: self.bytes,
            bits: self.bits,
        }
    }
}

impl MsbWriter {
    /// Append all of `other`'s bits.
    pub fn append(&mut self, other: &MsbWriter) {
        self.append_bytes(&other.bytes, other.bits);
    }
    /// Append the first `bits` bits of the MSB-first `bytes` (at most `bytes.len() * 8`).
    /// Where this writer is not byte aligned, each new byte is two neighbours of `bytes`
    /// shifted (a loop the compiler vectorizes: a slice of a 1080p picture is most of a
    /// megabyte).
    pub fn append_bytes(&mut self, bytes: &[u8], bits: u64) {
        let bits = bits.min(bytes.len() as u64 * 8);
        let src = &bytes[..bits.div_ceil(8) as usize];
        let off = (self.bits % 8) as u32;
        match (off, self.bytes.last_mut(), src.first()) {
            (0, ..) | (_, None, _) | (_, _, None) => self.bytes.extend_from_slice(src),
            (_, Some(last), Some(&first)) => {
                *last |= first >> off;
                let start = self.bytes.len();
                self.bytes.resize(start + src.len(), 0);
                let dst = &mut self.bytes[start..];
                for (d, pair) in dst.iter_mut().zip(src.windows(2)) {
                    *d = pair[0] << (8 - off) | pair[1] >> off;
                }
                if let (Some(d), Some(&lastb)) = (dst.last_mut(), src.last()) {
                    *d = lastb << (8 - off);
                }
            }
        }
        self.bits += bits;
        self.bytes.truncate(self.bits.div_ceil(8) as usize);
        // Keep the unused tail bits zero, whatever `bytes` held past `bits`.
        let tail = (self.bits % 8) as u32;
        if tail != 0 {
            if let Some(last) = self.bytes.last_mut() {
                *last &= 0xFFu8 << (8 - tail);
            }
        }
    }
}

/// LSB-first bit writer (DEFLATE packing).
pub(crate) struct LsbWriter {
    bytes: Vec<u8>,
    acc: u64,
    n: u32,
}

impl LsbWriter {
    /// Continues a stream of `bits` bits held in `bytes`.
    pub(crate) fn resume(mut bytes: Vec<u8>, bits: u64) -> LsbWriter {
        let n = (bits % 8) as u32;
        let mut acc = 0;
        if n != 0 {
            acc = bytes.pop().map_or(0, |b| (b & ((1u8 << n) - 1)) as u64);
        }
        LsbWriter { bytes, acc, n }
    }

    /// Writes the low `len` (<= 32) bits of `value`, least significant first.
    pub(crate) fn bits(&mut self, value: u32, len: u32) {
        let mask = if len >= 32 {
            u32::MAX
        } else {
            (1u32 << len) - 1
        };
        self.acc |= ((value & mask) as u64) << self.n;
        self.n += len;
        while self.n >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// Writes a Huffman code, its most significant bit first.
    pub(crate) fn code(&mut self, code: u32, len: u8) {
        if len > 0 {
            let rev = code.reverse_bits() >> (32 - len as u32);
            self.bits(rev, len as u32);
        }
    }

    pub(crate) fn finish(mut self) -> BitBuf {
        let bits = self.bytes.len() as u64 * 8 + self.n as u64;
        if self.n > 0 {
            self.bytes.push(self.acc as u8);
        }
        BitBuf {
            bytes: self.bytes,
            bits,
        }
    }
}
