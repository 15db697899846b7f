//! The VLC and MagSgn bit writers of the HT cleanup pass, and the merge of the three
//! streams into one codeword segment (T.814): MagSgn forward from the segment's start,
//! then MEL forward, then VLC backward from the segment's end, whose last 12 bits are
//! replaced by Scup, the MEL + VLC length in bytes.
//!
//! Every stream is stuffed so that no byte pair of the segment reads as a marker (0xFF
//! followed by more than 0x8F): MagSgn and MEL put a 0 bit first in the byte after a
//! 0xFF; VLC, read backward, gives the byte after one above 0x8F a 0 top bit when its
//! other 7 bits are all 1.

use super::mel::MelBytes;
use crate::{Error, Result};

/// The VLC stream, written from the segment's end backward, each byte from bit 0 up.
#[derive(Debug)]
pub struct VlcWriter {
    /// Bytes in writing order: `bytes[0]` is the segment's last byte.
    bytes: Vec<u8>,
    acc: u8,
    used: u32,
    /// The byte written last is above 0x8F (its successor may need a stuffed bit).
    after_big: bool,
}

impl Default for VlcWriter {
    fn default() -> Self {
        // The last byte and the low nibble of the one before it will hold Scup; until
        // then they read as 1s (what the decoders assume when unstuffing).
        VlcWriter {
            bytes: vec![0xFF],
            acc: 0x0F,
            used: 4,
            after_big: true,
        }
    }
}

impl VlcWriter {
    fn put_bit(&mut self, bit: bool) {
        self.acc |= (bit as u8) << self.used;
        self.used += 1;
        // After a byte above 0x8F, seven 1 bits close the byte with a stuffed 0 on top.
        if (self.used == 7 && self.after_big && self.acc == 0x7F) || self.used == 8 {
            self.bytes.push(self.acc);
            self.after_big = self.acc > 0x8F;
            self.acc = 0;
            self.used = 0;
        }
    }

    /// The low `n` bits of `value`, bit 0 first.
    pub fn put_bits(&mut self, value: u32, n: u32) {
        for i in 0..n {
            self.put_bit((value >> i) & 1 == 1);
        }
    }
}

/// The MagSgn stream: forward, each byte from bit 0 up, 7 bits in the byte after 0xFF.
#[derive(Debug)]
pub struct MagSgnWriter {
    bytes: Vec<u8>,
    acc: u8,
    used: u32,
    room: u32,
}

impl Default for MagSgnWriter {
    fn default() -> Self {
        MagSgnWriter {
            bytes: Vec::new(),
            acc: 0,
            used: 0,
            room: 8,
        }
    }
}

impl MagSgnWriter {
    /// The low `n` bits of `value` (n <= 32), bit 0 first.
    pub fn put_bits(&mut self, value: u32, n: u32) {
        for i in 0..n {
            self.acc |= (((value >> i) & 1) as u8) << self.used;
            self.used += 1;
            if self.used == self.room {
                self.bytes.push(self.acc);
                self.room = if self.acc == 0xFF { 7 } else { 8 };
                self.acc = 0;
                self.used = 0;
            }
        }
    }

    /// The stream's bytes: the last byte padded with 1s; a last byte of 0xFF is left
    /// out (the decoder reads 0xFF past the end of MagSgn, and a 0xFF before the MEL's
    /// first byte could make a marker).
    fn finish(mut self) -> Vec<u8> {
        if self.used > 0 {
            self.acc |= (0xFFu32 << self.used) as u8 & (((1u32 << self.room) - 1) as u8);
            if self.acc != 0xFF {
                self.bytes.push(self.acc);
            }
        } else if self.bytes.last() == Some(&0xFF) {
            self.bytes.pop();
        }
        self.bytes
    }
}

/// The largest Scup that the 12 bits can hold and the standard allows.
pub(crate) const MAX_SCUP: usize = 4079;

/// The cleanup segment: MagSgn, MEL, VLC, with Scup in the last 12 bits.
pub fn merge(ms: MagSgnWriter, mel: MelBytes, vlc: VlcWriter) -> Result<Vec<u8>> {
    let ms = ms.finish();
    let MelBytes {
        bytes: mut mel,
        tail: mel_tail,
        tail_mask: mel_mask,
    } = mel;
    let VlcWriter {
        bytes: mut vlc,
        acc: vlc_tail,
        used,
        ..
    } = vlc;
    let vlc_mask = ((1u32 << used) - 1) as u8;
    // The two partial bytes meet: MEL's bits from the top, VLC's from the bottom. One
    // byte serves both where their bits agree, it is not 0xFF, and it is not the byte
    // that Scup's low nibble will overwrite.
    if mel_mask | vlc_mask != 0 {
        let fused = mel_tail | vlc_tail;
        let agree = (fused ^ mel_tail) & mel_mask == 0 && (fused ^ vlc_tail) & vlc_mask == 0;
        if agree && fused != 0xFF && vlc.len() > 1 {
            mel.push(fused);
        } else {
            mel.push(mel_tail);
            vlc.push(vlc_tail);
        }
    }
    let scup = mel.len() + vlc.len();
    if scup > MAX_SCUP {
        return Err(Error::corrupt(
            "HT cleanup pass",
            format!("MEL and VLC need {scup} bytes, more than the {MAX_SCUP} Scup can say"),
        ));
    }
    let mut out = ms;
    out.extend_from_slice(&mel);
    out.extend(vlc.iter().rev());
    let n = out.len();
    out[n - 1] = (scup >> 4) as u8;
    out[n - 2] = (out[n - 2] & 0xF0) | (scup & 0xF) as u8;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::j2k::ht::mel::MelEncoder;

    fn vlc_of(bits: &[u8]) -> VlcWriter {
        let mut v = VlcWriter::default();
        for &b in bits {
            v.put_bits(b as u32, 1);
        }
        v
    }

    #[test]
    fn vlc_bytes_by_hand() {
        // The first byte holds the 0xF placeholder and 4 bits (or 3 and a stuffed 0 if
        // they begin 111: the last byte reads as 0xFF).
        let v = vlc_of(&[1, 0, 1, 1, 0, 0, 1, 0]);
        // Bits 1, 0, 1, 1 from bit 4 up: 0xD0 | 0xF = 0xDF; then 0, 0, 1, 0 pending.
        assert_eq!(v.bytes, vec![0xFF, 0xDF]);
        assert_eq!((v.acc, v.used), (0b0100, 4));
        let v = vlc_of(&[1, 1, 1, 0]);
        // 0xF | 0b111 << 4 = 0x7F: a stuffed 0 on top; the fourth bit starts a new byte.
        assert_eq!(v.bytes, vec![0xFF, 0x7F]);
        assert_eq!((v.acc, v.used), (0, 1));
        // After 0x7F (not above 0x8F) a byte of eight 1s is whole: 0xFF.
        let v = vlc_of(&[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(v.bytes, vec![0xFF, 0x7F, 0xFF]);
        // After that 0xFF, seven 1s close a byte 0x7F. After 0x7F every byte is whole.
        let mut v = vlc_of(&[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(v.bytes, vec![0xFF, 0x7F, 0xFF, 0x7F]);
        v.put_bits(0b1011_1111, 8);
        assert_eq!(v.bytes.len(), 5);
        assert_eq!(v.bytes[4], 0xBF);
    }

    #[test]
    fn magsgn_bytes_by_hand() {
        let mut m = MagSgnWriter::default();
        m.put_bits(0xFF, 8);
        m.put_bits(0b1010101, 7);
        m.put_bits(0b01, 2);
        // 0xFF, then a byte of 7 bits (top bit 0), then 2 bits padded with 1s.
        assert_eq!(m.finish(), vec![0xFF, 0b0101_0101, 0b1111_1101]);
        // Padding that makes 0xFF is left out; so is a last whole byte of 0xFF.
        let mut m = MagSgnWriter::default();
        m.put_bits(0x12, 8);
        m.put_bits(0b111, 3);
        assert_eq!(m.finish(), vec![0x12]);
        let mut m = MagSgnWriter::default();
        m.put_bits(0x12, 8);
        m.put_bits(0xFF, 8);
        assert_eq!(m.finish(), vec![0x12]);
        assert_eq!(MagSgnWriter::default().finish(), Vec::<u8>::new());
    }

    #[test]
    fn merged_segment_by_hand() {
        // MagSgn 0x12; MEL "1" (one zero event); VLC "010" (3 bits).
        let mut ms = MagSgnWriter::default();
        ms.put_bits(0x12, 8);
        let mut mel = MelEncoder::default();
        mel.encode(false);
        let vlc = vlc_of(&[0, 1, 0]);
        let seg = merge(ms, mel.finish(), vlc).unwrap();
        // The VLC has only its placeholder byte, so MEL's partial byte (1000 0000) and
        // VLC's (0x0F | 010 << 4 = 0x2F) stay apart: Scup = 1 + 2 = 3.
        assert_eq!(seg, vec![0x12, 0x80, 0x20 | 3, 0]);
        // A VLC with a whole byte shares its tail with the MEL where the bits agree.
        let mut mel = MelEncoder::default();
        mel.encode(true); // "0"
        let vlc = vlc_of(&[1, 0, 1, 0, 0, 1]); // 0xF | 0b0101 << 4 = 0x5F, then "01"
        let seg = merge(MagSgnWriter::default(), mel.finish(), vlc).unwrap();
        // MEL tail 0 (mask 0x80), VLC tail 0b10 (mask 0x03): fused 0x02; Scup = 1 + 2.
        assert_eq!(seg, vec![0x02, 0x50 | 3, 0]);
    }
}
