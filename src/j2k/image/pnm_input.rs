//! Binary PGM and PPM (P5, P6) into an [`Image`]: the header parsed from the start of
//! the file, the raster read in place.

use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::Path;

use super::{read_error, sample_count, zero_sized, Image, MAX_PNM_HEADER};
use crate::{Error, Result};

/// The header of a PNM held in `head` (the start of the file; `complete` when it is all of
/// it): width, height, maxval and the raster's offset. Tokens are separated by whitespace,
/// `#` comments run to the end of a line, and exactly one whitespace byte precedes the
/// raster.
fn pnm_header(head: &[u8], complete: bool) -> Result<(u32, u32, u32, usize)> {
    let corrupt = |m: String| Error::corrupt("PGM/PPM", m);
    let ends_early = |what: &str| {
        corrupt(if complete {
            format!("{what} (truncated file)")
        } else {
            format!("the header is longer than {MAX_PNM_HEADER} bytes (comments included)")
        })
    };
    let mut pos = 2;
    let mut fields = [0u32; 3];
    for (i, name) in ["width", "height", "maxval"].iter().enumerate() {
        // Whitespace and comments before the token (at least one separator).
        let start = pos;
        loop {
            match head.get(pos) {
                Some(b'#') => {
                    while head.get(pos).is_some_and(|&b| b != b'\n' && b != b'\r') {
                        pos += 1;
                    }
                }
                Some(b) if b.is_ascii_whitespace() => pos += 1,
                _ => break,
            }
        }
        if pos >= head.len() {
            return Err(ends_early(&format!("header ends before the {name}")));
        }
        if pos == start {
            return Err(corrupt(format!("no whitespace before the {name}")));
        }
        let digits = head[pos..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            return Err(corrupt(format!("{name} is not a decimal number")));
        }
        let text = std::str::from_utf8(&head[pos..pos + digits]).unwrap_or("");
        fields[i] = text
            .parse()
            .map_err(|_| corrupt(format!("{name} {text} is too large")))?;
        pos += digits;
    }
    match head.get(pos) {
        Some(b) if b.is_ascii_whitespace() => pos += 1,
        None => return Err(ends_early("file ends after the maxval")),
        Some(_) => return Err(corrupt("no whitespace after the maxval".into())),
    }
    let [width, height, maxval] = fields;
    Ok((width, height, maxval, pos))
}

pub(super) fn read_pnm<R: BufRead + Seek>(
    mut r: R,
    len: u64,
    components: u32,
    name: &Path,
    header_ok: &mut dyn FnMut(),
) -> Result<Image> {
    let corrupt = |m: String| Error::corrupt("PGM/PPM", m);
    let mut head = Vec::new();
    r.by_ref()
        .take(MAX_PNM_HEADER)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(name, e))?;
    let (width, height, maxval, pos) = pnm_header(&head, head.len() as u64 >= len)?;
    if width == 0 || height == 0 {
        return Err(zero_sized(width, height));
    }
    if !(1..=65535).contains(&maxval) {
        return Err(corrupt(format!("maxval {maxval} is not in 1..=65535")));
    }
    // Every size is checked before the samples are allocated: against the limit, then
    // against the bytes the file holds.
    let n = sample_count(width, height, components)?;
    let bytes_per = if maxval > 255 { 2 } else { 1 };
    let need = n * bytes_per;
    let have = len.saturating_sub(pos as u64);
    if have < need {
        return Err(corrupt(format!(
            "{width}x{height} raster needs {need} bytes, the file has {have} (truncated file)"
        )));
    }
    header_ok();
    r.seek(SeekFrom::Start(pos as u64))
        .map_err(|e| Error::io(name, e))?;
    let mut samples: Vec<u16> = Vec::with_capacity(n as usize);
    let mut chunk = vec![0u8; 1 << 16];
    let mut left = need as usize;
    while left > 0 {
        let k = left.min(chunk.len());
        r.read_exact(&mut chunk[..k])
            .map_err(read_error("PGM/PPM", name))?;
        if bytes_per == 2 {
            samples.extend(
                chunk[..k]
                    .chunks_exact(2)
                    .map(|b| u16::from_be_bytes([b[0], b[1]])),
            );
        } else {
            samples.extend(chunk[..k].iter().map(|&b| b as u16));
        }
        left -= k;
    }
    if let Some(i) = samples.iter().position(|&s| s as u32 > maxval) {
        return Err(corrupt(format!(
            "sample {i} is {} but maxval is {maxval}",
            samples[i]
        )));
    }
    let bit_depth = 32 - maxval.leading_zeros();
    Image::new(width, height, components, bit_depth, samples)
}
