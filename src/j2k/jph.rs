//! The file boxes around a codestream: JPH (ITU-T T.814 | ISO/IEC 15444-15 Annex D) for
//! HTJ2K, JP2 (ITU-T T.800 | ISO/IEC 15444-1 Annex I) for Part 1. Both are the same
//! sequence of boxes, each a 32-bit length (itself and its 4-byte type included), a type
//! and a payload:
//!
//! - signature `jP  `: 0D 0A 87 0A;
//! - file type `ftyp`: brand (`jph ` or `jp2 `), minor version 0, compatibility list
//!   (the brand alone: a JPH file is not a JP2 file, its HT code-blocks are unknown to
//!   Part 1 readers);
//! - JP2 header superbox `jp2h`: image header `ihdr` (height, width, components, bits per
//!   component less one, compression type 7, colour space known, no IPR), the
//!   bits-per-component box `bpcc` only where the components' depths differ (`ihdr` then
//!   says 255), and a colour specification `colr` by enumeration: sRGB (16) for three
//!   components, greyscale (17) for one;
//! - contiguous codestream `jp2c`: the codestream unchanged (over 4 GiB, the extended
//!   length form: length 1, then a 64-bit length).

use crate::{Error, Result};

/// Which file: JPH for an HTJ2K codestream, JP2 for a Part 1 one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Brand {
    Jp2,
    Jph,
}

impl Brand {
    fn code(self) -> &'static [u8; 4] {
        match self {
            Brand::Jp2 => b"jp2 ",
            Brand::Jph => b"jph ",
        }
    }

    /// The brand a file name asks for by its extension (`.jph`, `.jp2`, any case), if any.
    pub fn for_path(path: &std::path::Path) -> Option<Brand> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "jph" => Some(Brand::Jph),
            "jp2" => Some(Brand::Jp2),
            _ => None,
        }
    }
}

/// Rsiz bit 14: the codestream uses Part 15 (HT) capabilities, said in its CAP marker.
const RSIZ_HT: u16 = 1 << 14;

/// What `ihdr` says of the codestream, read from its SIZ marker (which must follow SOC).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Siz {
    rsiz: u16,
    width: u32,
    height: u32,
    /// Bits per sample and signedness of each component, as Ssiz holds them.
    ssiz: Vec<u8>,
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn read_siz(cs: &[u8]) -> Result<Siz> {
    let bad = |reason: String| Error::corrupt("JPEG 2000 codestream", reason);
    if be16(cs, 0) != Some(0xFF4F) || be16(cs, 2) != Some(0xFF51) {
        return Err(bad("it does not open with SOC and SIZ".into()));
    }
    let short = || bad(format!("SIZ is cut short ({} bytes in all)", cs.len()));
    let rsiz = be16(cs, 6).ok_or_else(short)?;
    let (x1, y1) = (
        be32(cs, 8).ok_or_else(short)?,
        be32(cs, 12).ok_or_else(short)?,
    );
    let (x0, y0) = (
        be32(cs, 16).ok_or_else(short)?,
        be32(cs, 20).ok_or_else(short)?,
    );
    let components = be16(cs, 40).ok_or_else(short)? as usize;
    let mut ssiz = Vec::with_capacity(components);
    for c in 0..components {
        ssiz.push(*cs.get(42 + 3 * c).ok_or_else(short)?);
    }
    if x1 <= x0 || y1 <= y0 {
        return Err(bad(format!(
            "SIZ gives an empty image ({x0}..{x1} x {y0}..{y1})"
        )));
    }
    Ok(Siz {
        rsiz,
        width: x1 - x0,
        height: y1 - y0,
        ssiz,
    })
}

fn put_box(out: &mut Vec<u8>, kind: &[u8; 4], payload: &[u8]) {
    // Every box here but jp2c is a few dozen bytes: its length fits 32 bits.
    out.extend_from_slice(&(8 + payload.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(payload);
}

/// Every box before the codestream, and the `jp2c` box's own header, for `codestream`
/// in a file of `brand`: write these bytes, then the codestream, and the file is whole.
/// The image facts (size, components, depths) come from the codestream's SIZ marker.
/// Errors: a codestream that does not open with SOC and SIZ; a JPH brand for a Part 1
/// codestream or a JP2 brand for an HTJ2K one (Rsiz bit 14); components other than 1
/// (grey) or 3 (RGB), which the enumerated colour spaces cannot name.
pub fn file_header(codestream: &[u8], brand: Brand) -> Result<Vec<u8>> {
    let siz = read_siz(codestream)?;
    match (brand, siz.rsiz & RSIZ_HT != 0) {
        (Brand::Jph, false) => {
            return Err(Error::InvalidArgument(
                "a JPH file holds an HTJ2K codestream, and this one is Part 1 (Rsiz bit 14 clear): code it with HT, or write JP2".into(),
            ))
        }
        (Brand::Jp2, true) => {
            return Err(Error::InvalidArgument(
                "a JP2 file holds a Part 1 codestream, and this one has HT code-blocks (Rsiz bit 14): write JPH".into(),
            ))
        }
        _ => {}
    }
    let colour_space: u32 = match siz.ssiz.len() {
        1 => 17, // greyscale
        3 => 16, // sRGB
        n => {
            return Err(Error::InvalidArgument(format!(
                "{n} components: a JP2/JPH colour specification by enumeration names grey (1) or RGB (3)"
            )))
        }
    };
    let same_depth = siz.ssiz.iter().all(|&s| s == siz.ssiz[0]);

    let mut out = Vec::with_capacity(96);
    put_box(&mut out, b"jP  ", &[0x0D, 0x0A, 0x87, 0x0A]);

    let mut ftyp = Vec::with_capacity(12);
    ftyp.extend_from_slice(brand.code());
    ftyp.extend_from_slice(&0u32.to_be_bytes()); // minor version
    ftyp.extend_from_slice(brand.code()); // compatibility list
    put_box(&mut out, b"ftyp", &ftyp);

    let mut ihdr = Vec::with_capacity(14);
    ihdr.extend_from_slice(&siz.height.to_be_bytes());
    ihdr.extend_from_slice(&siz.width.to_be_bytes());
    ihdr.extend_from_slice(&(siz.ssiz.len() as u16).to_be_bytes());
    // BPC has Ssiz's form (depth - 1, sign in the top bit); 255: see bpcc.
    ihdr.push(if same_depth { siz.ssiz[0] } else { 255 });
    ihdr.push(7); // compression type: JPEG 2000
    ihdr.push(0); // UnkC: the colour space is known (colr)
    ihdr.push(0); // IPR: no intellectual property box
    let mut colr = vec![1, 0, 0]; // METH: enumerated; PREC, APPROX: 0
    colr.extend_from_slice(&colour_space.to_be_bytes());
    let mut jp2h = Vec::with_capacity(48);
    put_box(&mut jp2h, b"ihdr", &ihdr);
    if !same_depth {
        put_box(&mut jp2h, b"bpcc", &siz.ssiz);
    }
    put_box(&mut jp2h, b"colr", &colr);
    put_box(&mut out, b"jp2h", &jp2h);

    jp2c_header(&mut out, codestream.len() as u64);
    Ok(out)
}

/// The `jp2c` box's length and type for a codestream of `len` bytes: past what 32 bits
/// hold, length 1 and the 64-bit extended length after the type.
fn jp2c_header(out: &mut Vec<u8>, len: u64) {
    match u32::try_from(len + 8) {
        Ok(lbox) => {
            out.extend_from_slice(&lbox.to_be_bytes());
            out.extend_from_slice(b"jp2c");
        }
        Err(_) => {
            out.extend_from_slice(&1u32.to_be_bytes());
            out.extend_from_slice(b"jp2c");
            out.extend_from_slice(&(len + 16).to_be_bytes());
        }
    }
}

/// The whole file: [`file_header`], then `codestream`.
pub fn wrap(codestream: &[u8], brand: Brand) -> Result<Vec<u8>> {
    let mut out = file_header(codestream, brand)?;
    out.extend_from_slice(codestream);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SOC, then a SIZ of a `w` x `h` image with these Ssiz bytes, then a stand-in for the
    /// rest of the codestream.
    fn codestream(rsiz: u16, w: u32, h: u32, ssiz: &[u8]) -> Vec<u8> {
        let mut cs = vec![0xFF, 0x4F, 0xFF, 0x51];
        cs.extend_from_slice(&(38 + 3 * ssiz.len() as u16).to_be_bytes());
        cs.extend_from_slice(&rsiz.to_be_bytes());
        for v in [w, h, 0, 0, w, h, 0, 0] {
            cs.extend_from_slice(&v.to_be_bytes());
        }
        cs.extend_from_slice(&(ssiz.len() as u16).to_be_bytes());
        for &s in ssiz {
            cs.extend_from_slice(&[s, 1, 1]);
        }
        cs.extend_from_slice(&[0xFF, 0x93, 0xAB, 0xFF, 0xD9]);
        cs
    }

    #[test]
    fn jph_of_an_rgb_image_box_by_box() {
        let cs = codestream(0x4000, 300, 200, &[7, 7, 7]);
        let file = wrap(&cs, Brand::Jph).unwrap();
        let mut want: Vec<u8> = vec![0, 0, 0, 12];
        want.extend(b"jP  ");
        want.extend([0x0D, 0x0A, 0x87, 0x0A]);
        want.extend([0, 0, 0, 20]);
        want.extend(b"ftypjph ");
        want.extend([0, 0, 0, 0]);
        want.extend(b"jph ");
        // jp2h: 8 + ihdr (8 + 14) + colr (8 + 7) = 45.
        want.extend([0, 0, 0, 45]);
        want.extend(b"jp2h");
        want.extend([0, 0, 0, 22]);
        want.extend(b"ihdr");
        want.extend([0, 0, 0, 200, 0, 0, 1, 44, 0, 3, 7, 7, 0, 0]);
        want.extend([0, 0, 0, 15]);
        want.extend(b"colr");
        want.extend([1, 0, 0, 0, 0, 0, 16]);
        want.extend((8 + cs.len() as u32).to_be_bytes());
        want.extend(b"jp2c");
        want.extend(&cs);
        assert_eq!(file, want);
        assert_eq!(
            file_header(&cs, Brand::Jph).unwrap(),
            want[..want.len() - cs.len()]
        );
    }

    #[test]
    fn grey_jp2_at_16_bits_and_differing_depths() {
        let cs = codestream(0, 1, 70000, &[15]);
        let head = file_header(&cs, Brand::Jp2).unwrap();
        assert_eq!(&head[16..32], b"ftypjp2 \0\0\0\0jp2 ");
        // ihdr: height 70000, width 1, one component, BPC 15; colr: greyscale.
        assert_eq!(&head[32..36], &[0, 0, 0, 45]);
        assert_eq!(&head[44..48], b"ihdr");
        assert_eq!(
            &head[48..62],
            &[0, 1, 0x11, 0x70, 0, 0, 0, 1, 0, 1, 15, 7, 0, 0]
        );
        assert_eq!(
            &head[62..77],
            &[0, 0, 0, 15, b'c', b'o', b'l', b'r', 1, 0, 0, 0, 0, 0, 17]
        );
        assert_eq!(
            &head[77..],
            &[0, 0, 0, 8 + cs.len() as u8, b'j', b'p', b'2', b'c']
        );

        // Depths 8, 12, 8: ihdr says 255, and bpcc lists them, before colr.
        let cs = codestream(0x4000, 5, 3, &[7, 11, 7]);
        let head = file_header(&cs, Brand::Jph).unwrap();
        assert_eq!(&head[32..36], &[0, 0, 0, 56]); // jp2h: 8 + 22 + 11 + 15
        assert_eq!(head[58], 255);
        assert_eq!(
            &head[62..73],
            &[0, 0, 0, 11, b'b', b'p', b'c', b'c', 7, 11, 7]
        );
        assert_eq!(&head[73..81], &[0, 0, 0, 15, b'c', b'o', b'l', b'r']);
        assert_eq!(head.len(), 73 + 15 + 8);
    }

    #[test]
    fn brand_codestream_mismatches_and_bad_codestreams_are_errors() {
        let part1 = codestream(0, 4, 4, &[7]);
        let ht = codestream(0x4000, 4, 4, &[7]);
        let err = |cs: &[u8], b| file_header(cs, b).unwrap_err().to_string();
        assert!(err(&part1, Brand::Jph).contains("Part 1"));
        assert!(err(&ht, Brand::Jp2).contains("write JPH"));
        assert!(err(&codestream(0x4000, 4, 4, &[7, 7]), Brand::Jph).contains("2 components"));
        assert!(err(&ht[2..], Brand::Jph).contains("SOC and SIZ"));
        assert!(err(&ht[..30], Brand::Jph).contains("cut short"));
        assert!(err(&codestream(0, 0, 4, &[7]), Brand::Jp2).contains("empty image"));
    }

    #[test]
    fn codestreams_past_4_gib_take_the_extended_length() {
        let mut out = Vec::new();
        jp2c_header(&mut out, u32::MAX as u64 - 8);
        assert_eq!(out, [0xFF, 0xFF, 0xFF, 0xFF, b'j', b'p', b'2', b'c']);
        out.clear();
        jp2c_header(&mut out, u32::MAX as u64 - 7);
        let mut want = vec![0, 0, 0, 1, b'j', b'p', b'2', b'c'];
        want.extend((u32::MAX as u64 + 9).to_be_bytes());
        assert_eq!(out, want);
    }

    #[test]
    fn brand_from_the_extension() {
        use std::path::Path;
        assert_eq!(Brand::for_path(Path::new("a/b.jph")), Some(Brand::Jph));
        assert_eq!(Brand::for_path(Path::new("b.JPH")), Some(Brand::Jph));
        assert_eq!(Brand::for_path(Path::new("b.jp2")), Some(Brand::Jp2));
        assert_eq!(Brand::for_path(Path::new("b.j2k")), None);
        assert_eq!(Brand::for_path(Path::new("jph")), None);
    }
}
