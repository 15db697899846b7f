//! YUV4MPEG2 (Y4M) input, read a frame at a time: 8-bit 4:2:0 progressive only (no `C`
//! tag, or `C420`, `C420jpeg`, `C420paldv`, `C420mpeg2`; no `I` tag, `Ip`, or `I?` with a
//! warning); other colour spaces and bit depths, interlaced streams, a file that is not Y4M
//! and a truncated frame are clear errors.
//!
//! Memory is bounded by what the input can justify: a picture larger than any H.264 level
//! allows is refused from the header; a frame is never allocated beyond what can follow
//! (the rest of a regular file, checked first; on a pipe, buffers grow only as data
//! arrives), so a header that promises a huge frame costs nothing.

use std::io::{BufRead, Read};

use super::{Geometry, Picture};
use crate::{Error, Result};

/// 4:2:0 8-bit colour-space tags (chroma siting differs; the samples do not).
const ACCEPTED: [&str; 4] = ["420", "420jpeg", "420paldv", "420mpeg2"];

/// Longest header or FRAME line, without its newline.
pub const MAX_LINE: usize = 4096;

/// Largest frame any H.264 level allows, in macroblocks (Table A-1, MaxFS of levels 6 to 6.2).
pub const MAX_FRAME_MBS: u64 = 139_264;

/// Largest width or height in macroblocks at that frame size: A.3.1 bounds each side by
/// sqrt(8 * MaxFS) = 1055.5 (16880 samples).
pub const MAX_SIDE_MBS: u32 = 1055;

/// First buffer step when the length of what follows is unknown (a pipe): larger planes
/// grow by doubling as data arrives, so a truncated stream costs about twice what it sent.
const FIRST_STEP: usize = 1 << 20;

/// The stream header's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Y4mHeader {
    pub width: u32,
    pub height: u32,
    /// Frame rate as numerator and denominator (25:1 when absent or 0:0).
    pub fps: (u32, u32),
    /// The `C` tag, if any.
    pub colorspace: Option<String>,
}

impl Y4mHeader {
    pub fn fps_f64(&self) -> f64 {
        self.fps.0 as f64 / self.fps.1 as f64
    }
    /// Bytes of one frame's samples.
    pub fn frame_bytes(&self) -> usize {
        Picture::frame_bytes(self.width, self.height)
    }
}

/// Reads frames from a Y4M stream.
pub struct Y4mReader<R> {
    r: R,
    name: String,
    header: Y4mHeader,
    frames: u64,
    /// Bytes left in the input when known (a regular file): no frame is allocated beyond it.
    remaining: Option<u64>,
    /// Bytes of the header line: where the first frame starts (for the parallel file
    /// reader, `y4m_file`, which the web build has not).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    header_bytes: u64,
}

impl Y4mReader<std::io::BufReader<std::fs::File>> {
    /// Open a Y4M file and read its header. For a regular file whose first frame cannot
    /// fit in what follows the header, that is reported here, before any frame is read.
    pub fn open(path: &std::path::Path) -> Result<Self> {
        let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = f.metadata().map_err(|e| Error::io(path, e))?;
        let len = meta.is_file().then_some(meta.len());
        let name = path.display().to_string();
        let reader =
            Y4mReader::with_length(std::io::BufReader::with_capacity(1 << 20, f), &name, len)?;
        // The shortest frame is "FRAME\n" and its samples.
        let need = 6 + reader.header.frame_bytes() as u64;
        if let Some(rem) = reader.remaining.filter(|&r| r > 0 && r < need) {
            return Err(reader.truncated(format!(
                "a frame takes at least {need} bytes, the file holds {rem} after the header"
            )));
        }
        Ok(reader)
    }
}

/// A line read by [`read_line`].
enum Line {
    /// The line without its `\n`.
    Complete(Vec<u8>),
    /// The stream ended inside the line.
    Unterminated(Vec<u8>),
    /// No `\n` within [`MAX_LINE`] bytes (what was read).
    TooLong(Vec<u8>),
}

/// Read a line of at most [`MAX_LINE`] bytes plus its `\n`; None at a clean end of stream.
/// Also returns the bytes consumed.
fn read_line<R: BufRead>(r: &mut R, name: &str) -> Result<Option<(Line, u64)>> {
    let mut line = Vec::new();
    r.by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut line)
        .map_err(|e| Error::io(name, e))?;
    let used = line.len() as u64;
    if line.is_empty() {
        return Ok(None);
    }
    let line = if line.last() == Some(&b'\n') {
        line.pop();
        Line::Complete(line)
    } else if line.len() > MAX_LINE {
        Line::TooLong(line)
    } else {
        Line::Unterminated(line)
    };
    Ok(Some((line, used)))
}

/// Fill a buffer of up to `len` bytes from `r`, shorter only at the end of the stream.
/// With `trusted` (the bytes are known to follow) it is allocated at once; otherwise it
/// starts at [`FIRST_STEP`] and doubles only when full, never beyond `len`.
fn read_plane<R: Read>(r: &mut R, len: usize, trusted: bool) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    let first = if trusted { len } else { len.min(FIRST_STEP) };
    buf.resize(first, 0);
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            if filled == len {
                break;
            }
            let next = buf.len().saturating_mul(2).min(len);
            buf.reserve_exact(next - buf.len());
            buf.resize(next, 0);
        }
        match r.read(&mut buf[filled..]) {
            Ok(0) => {
                buf.truncate(filled);
                break;
            }
            Ok(k) => filled += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(buf)
}

/// The header's `I` tag: progressive and unknown are coded; field-coded kinds are refused.
fn check_interlacing(value: &str, name: &str) -> Result<()> {
    let kind = match value {
        "p" => return Ok(()),
        "?" => {
            log::warn!("{name}: Y4M interlacing is unknown (I?); coding the frames as progressive");
            return Ok(());
        }
        "t" => "interlaced, top field first",
        "b" => "interlaced, bottom field first",
        "m" => "mixed progressive and interlaced",
        _ => {
            return Err(Error::BadMagic {
                format: "Y4M",
                reason: format!(
                    "{name}: bad interlacing tag I{}: expected Ip, It, Ib, Im or I?",
                    value.escape_debug()
                ),
            })
        }
    };
    Err(Error::InvalidArgument(format!(
        "{name}: the Y4M header says I{value} ({kind}); this encoder codes progressive \
         frames only: deinterlace first, e.g. ffmpeg -i {name} -vf bwdif -pix_fmt yuv420p \
         out.y4m"
    )))
}

/// Refuse a picture larger than any H.264 level allows (every `Geometry` is held to it).
pub(crate) fn check_level_limits(width: u32, height: u32, name: &str) -> Result<()> {
    let (wm, hm) = (width.div_ceil(16), height.div_ceil(16));
    let mbs = wm as u64 * hm as u64;
    if mbs > MAX_FRAME_MBS || wm > MAX_SIDE_MBS || hm > MAX_SIDE_MBS {
        return Err(Error::TooLarge(format!(
            "{name}: a {width}x{height} picture is {wm}x{hm} = {mbs} macroblocks; H.264 allows \
             at most {MAX_FRAME_MBS} macroblocks per frame (level 6.2, e.g. 8192x4352) and \
             {MAX_SIDE_MBS} ({} samples) in either direction",
            MAX_SIDE_MBS * 16
        )));
    }
    Ok(())
}

impl<R: BufRead> Y4mReader<R> {
    /// Read the stream header from `r`; `name` labels errors (e.g. the file name). The
    /// length of what follows is unknown: frame buffers grow as data arrives.
    pub fn new(r: R, name: &str) -> Result<Self> {
        Y4mReader::with_length(r, name, None)
    }

    /// As [`Y4mReader::new`], for a stream of `len` bytes in all when known: no frame
    /// buffer is then allocated beyond what is left.
    pub fn with_length(mut r: R, name: &str, len: Option<u64>) -> Result<Self> {
        let not_y4m = |reason: String| Error::BadMagic {
            format: "Y4M",
            reason: format!("{name}: {reason}"),
        };
        let corrupt = |reason: String| Error::corrupt("Y4M", format!("{name}: {reason}"));
        let (read, used) =
            read_line(&mut r, name)?.ok_or_else(|| not_y4m("the file is empty".into()))?;
        // The magic first, so that a long binary file is "not Y4M", not "too long".
        let (Line::Complete(text) | Line::Unterminated(text) | Line::TooLong(text)) = &read;
        if !(text.starts_with(b"YUV4MPEG2") && matches!(text.get(9), None | Some(b' '))) {
            return Err(not_y4m(
                "it does not start with a \"YUV4MPEG2 \" header line".into(),
            ));
        }
        let line = match &read {
            Line::Complete(l) => l,
            Line::TooLong(_) => {
                return Err(corrupt(format!(
                    "the header line is too long: no end of line within {MAX_LINE} bytes"
                )))
            }
            Line::Unterminated(_) => {
                return Err(corrupt(
                    "the header line has no end of line (truncated file)".into(),
                ))
            }
        };
        let (mut width, mut height, mut fps, mut colorspace) = (None, None, (25, 1), None);
        for tag in line.split(|&b| b == b' ').skip(1).filter(|t| !t.is_empty()) {
            let value = String::from_utf8_lossy(&tag[1..]).into_owned();
            let bad = || {
                not_y4m(format!(
                    "bad header tag {}",
                    String::from_utf8_lossy(tag).escape_debug()
                ))
            };
            match tag[0] {
                b'W' => width = Some(value.parse::<u32>().map_err(|_| bad())?),
                b'H' => height = Some(value.parse::<u32>().map_err(|_| bad())?),
                b'F' => {
                    let (n, d) = value.split_once(':').ok_or_else(bad)?;
                    let (n, d) = (
                        n.parse::<u32>().map_err(|_| bad())?,
                        d.parse::<u32>().map_err(|_| bad())?,
                    );
                    if n > 0 && d > 0 {
                        fps = (n, d);
                    }
                }
                b'C' => colorspace = Some(value),
                b'I' => check_interlacing(&value, name)?,
                _ => {} // A (aspect), X (comments)
            }
        }
        let (width, height) = match (width, height) {
            (Some(w), Some(h)) => (w, h),
            _ => return Err(not_y4m("the header lacks the W or H tag".into())),
        };
        if let Some(c) = &colorspace {
            if !ACCEPTED.contains(&c.as_str()) {
                let c = c.escape_debug();
                return Err(Error::InvalidArgument(format!(
                    "{name}: Y4M colour space C{c} is not supported: the H.264 encoder takes \
                     8-bit 4:2:0 only (C420, C420jpeg, C420paldv, C420mpeg2); convert with \
                     e.g. ffmpeg -i {name} -pix_fmt yuv420p out.y4m"
                )));
            }
        }
        // The level limits first, so that the message names the file.
        check_level_limits(width, height, name)?;
        Geometry::new(width, height).map_err(|e| match e {
            Error::InvalidArgument(m) => Error::InvalidArgument(format!("{name}: {m}")),
            other => other,
        })?;
        Ok(Y4mReader {
            r,
            name: name.into(),
            header: Y4mHeader {
                width,
                height,
                fps,
                colorspace,
            },
            frames: 0,
            remaining: len.map(|l| l.saturating_sub(used)),
            header_bytes: used,
        })
    }

    pub fn header(&self) -> &Y4mHeader {
        &self.header
    }

    /// Where the first frame starts in the input.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn header_bytes(&self) -> u64 {
        self.header_bytes
    }

    /// Whether the input's length is known (a regular file).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn has_length(&self) -> bool {
        self.remaining.is_some()
    }

    /// Frames read so far.
    pub fn frames_read(&self) -> u64 {
        self.frames
    }

    /// The error for frame `self.frames` cut short.
    fn truncated(&self, reason: String) -> Error {
        Error::corrupt(
            "Y4M",
            format!(
                "{}: frame {} is truncated: {reason}",
                self.name, self.frames
            ),
        )
    }

    /// One plane of `len` bytes, `got` bytes of the frame's `want` read before it.
    fn plane(&mut self, len: usize, got: &mut usize, want: usize) -> Result<Vec<u8>> {
        // Allocated at once only when the rest of a regular file is known to hold it.
        let trusted = self.remaining.is_some();
        let plane = read_plane(&mut self.r, len, trusted).map_err(|e| Error::io(&self.name, e))?;
        *got += plane.len();
        self.remaining = self.remaining.map(|r| r.saturating_sub(plane.len() as u64));
        if plane.len() < len {
            return Err(self.truncated(format!("{got} of {want} bytes")));
        }
        Ok(plane)
    }

    /// The next frame, or `None` at the end of the stream.
    pub fn read_frame(&mut self) -> Result<Option<Picture>> {
        let n = self.frames;
        let (read, used) = match read_line(&mut self.r, &self.name)? {
            None => return Ok(None),
            Some(l) => l,
        };
        self.remaining = self.remaining.map(|r| r.saturating_sub(used));
        let line = match read {
            Line::Complete(l) => l,
            Line::Unterminated(_) => return Err(self.truncated("its FRAME line has no end".into())),
            Line::TooLong(_) => {
                return Err(Error::corrupt(
                    "Y4M",
                    format!(
                        "{}: frame {n}: the FRAME line is too long: no end of line within \
                         {MAX_LINE} bytes",
                        self.name
                    ),
                ))
            }
        };
        if !(line.starts_with(b"FRAME") && matches!(line.get(5), None | Some(b' '))) {
            return Err(Error::corrupt(
                "Y4M",
                format!("{}: frame {n} does not start with a FRAME line", self.name),
            ));
        }
        let (width, height) = (self.header.width, self.header.height);
        let want = self.header.frame_bytes();
        if let Some(rem) = self.remaining.filter(|&r| r < want as u64) {
            return Err(self.truncated(format!("{rem} of {want} bytes")));
        }
        let luma = width as usize * height as usize;
        let chroma = (want - luma) / 2;
        let mut got = 0;
        let y = self.plane(luma, &mut got, want)?;
        let u = self.plane(chroma, &mut got, want)?;
        let v = self.plane(chroma, &mut got, want)?;
        self.frames += 1;
        Ok(Some(Picture {
            width,
            height,
            y,
            u,
            v,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(bytes: &[u8]) -> Result<Y4mReader<&[u8]>> {
        Y4mReader::new(bytes, "t.y4m")
    }

    #[test]
    fn reads_frames_and_rejects_what_it_cannot_code() {
        let mut data = b"YUV4MPEG2 W3 H3 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG\n".to_vec();
        for f in 0..2u8 {
            data.extend_from_slice(b"FRAME\n");
            data.extend((0..9 + 4 + 4).map(|i| i as u8 + f));
        }
        let mut r = reader(&data).unwrap();
        assert_eq!(r.header().fps, (30000, 1001));
        let p = r.read_frame().unwrap().unwrap();
        assert_eq!((p.width, p.height, p.y.len(), p.u.len()), (3, 3, 9, 4));
        assert_eq!(p.v, [13, 14, 15, 16]);
        assert_eq!(r.read_frame().unwrap().unwrap().y[0], 1);
        assert!(r.read_frame().unwrap().is_none());

        // Truncated last frame.
        let cut = &data[..data.len() - 3];
        let mut r = reader(cut).unwrap();
        r.read_frame().unwrap();
        let e = r.read_frame().unwrap_err().to_string();
        assert!(e.contains("frame 1 is truncated: 14 of 17 bytes"), "{e}");

        for (header, what) in [
            ("YUV4MPEG2 W4 H4 C444\n", "C444"),
            ("YUV4MPEG2 W4 H4 C422\n", "C422"),
            ("YUV4MPEG2 W4 H4 Cmono\n", "Cmono"),
            ("YUV4MPEG2 W4 H4 C420p10\n", "C420p10"),
            ("YUV4MPEG2 W4 H4 C420p12 XYSCSS=420P12\n", "C420p12"),
        ] {
            let e = reader(header.as_bytes()).err().unwrap().to_string();
            assert!(e.contains(what) && e.contains("8-bit 4:2:0"), "{e}");
        }
        for bad in [
            &b"RIFF...."[..],
            b"",
            b"YUV4MPEG2 W4\n",
            b"YUV4MPEG2 Wx H2\n",
        ] {
            let e = reader(bad).err().unwrap();
            assert!(matches!(e, Error::BadMagic { .. }), "{e}");
        }
        let e = reader(b"YUV4MPEG2 W0 H2\n").err().unwrap().to_string();
        assert!(e.contains("0x2"), "{e}");
        let e = reader(b"YUV4MPEG2 W2 H2\nFRAMX\n")
            .unwrap()
            .read_frame()
            .unwrap_err();
        assert!(e.to_string().contains("FRAME line"), "{e}");
    }

    #[test]
    fn interlaced_streams_are_refused_progressive_and_unknown_are_coded() {
        for (tag, what) in [
            ("It", "top field first"),
            ("Ib", "bottom field first"),
            ("Im", "mixed"),
        ] {
            let header = format!("YUV4MPEG2 W4 H4 {tag} C420\n");
            let e = reader(header.as_bytes()).err().unwrap();
            let m = e.to_string();
            assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
            assert!(
                m.contains(tag) && m.contains(what) && m.contains("progressive"),
                "{m}"
            );
        }
        for ok in [
            "YUV4MPEG2 W4 H4 Ip\n",
            "YUV4MPEG2 W4 H4 I?\n",
            "YUV4MPEG2 W4 H4\n",
        ] {
            assert!(reader(ok.as_bytes()).is_ok(), "{ok}");
        }
        let e = reader(b"YUV4MPEG2 W4 H4 Ix\n").err().unwrap();
        assert!(matches!(e, Error::BadMagic { .. }), "{e:?}");
        assert!(e.to_string().contains("interlacing tag Ix"), "{e}");
    }

    #[test]
    fn long_and_unterminated_lines_say_so() {
        // A header of exactly MAX_LINE bytes is fine; one more is too long.
        for (extra, ok) in [(0, true), (1, false), (5000, false)] {
            let mut h = b"YUV4MPEG2 W2 H2 X".to_vec();
            h.resize(MAX_LINE + extra, b'a');
            h.push(b'\n');
            match reader(&h) {
                Ok(_) => assert!(ok, "{extra}"),
                Err(e) => {
                    assert!(!ok, "{extra}: {e}");
                    assert!(matches!(e, Error::Corrupt { .. }), "{e:?}");
                    assert!(e.to_string().contains("header line is too long"), "{e}");
                }
            }
        }
        let e = reader(b"YUV4MPEG2 W2 H2").err().unwrap().to_string();
        assert!(e.contains("header line has no end of line"), "{e}");
        // A long binary file without the magic is still "not Y4M".
        let e = reader(&[0u8; 10_000]).err().unwrap();
        assert!(matches!(e, Error::BadMagic { .. }), "{e:?}");

        let mut data = b"YUV4MPEG2 W2 H2\nFRAME ".to_vec();
        data.resize(data.len() + 5000, b'x');
        data.extend_from_slice(b"\n\0\0\0\0\0\0");
        let e = reader(&data).unwrap().read_frame().unwrap_err().to_string();
        assert!(e.contains("frame 0: the FRAME line is too long"), "{e}");
        let e = reader(b"YUV4MPEG2 W2 H2\nFRAME")
            .unwrap()
            .read_frame()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("frame 0 is truncated: its FRAME line has no end"),
            "{e}"
        );
    }

    #[test]
    fn pictures_beyond_every_h264_level_are_refused_from_the_header() {
        // 512x272 macroblocks: exactly level 6.2's MaxFS.
        let r = reader(b"YUV4MPEG2 W8192 H4352\n").unwrap();
        assert_eq!(r.header().frame_bytes(), 8192 * 4352 * 3 / 2);
        for header in [
            &b"YUV4MPEG2 W8192 H4353\n"[..],
            b"YUV4MPEG2 W16384 H16384\n",
        ] {
            let e = reader(header).err().unwrap();
            assert!(matches!(e, Error::TooLarge(_)), "{e:?}");
            assert!(e.to_string().contains("at most 139264 macroblocks"), "{e}");
        }
        // Each side: at most sqrt(8 * MaxFS) = 1055 macroblocks.
        assert!(check_level_limits(1055 * 16, 16, "t").is_ok());
        let e = check_level_limits(1055 * 16 + 1, 16, "t").unwrap_err();
        assert!(e.to_string().contains("1055 (16880 samples)"), "{e}");
        assert!(check_level_limits(16, 1056 * 16, "t").is_err());
    }

    /// A stream that sends `left` bytes of zeros, then ends.
    struct Zeros {
        left: usize,
    }
    impl Read for Zeros {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let k = buf.len().min(self.left).min(4096);
            buf[..k].fill(0);
            self.left -= k;
            Ok(k)
        }
    }

    #[test]
    fn frame_buffers_grow_only_with_the_data_that_arrives() {
        // A plane of 40 MiB promised, 3 MiB sent: about twice what arrived is allocated.
        let p = read_plane(&mut Zeros { left: 3 << 20 }, 40 << 20, false).unwrap();
        assert_eq!(p.len(), 3 << 20);
        assert!(p.capacity() <= 4 << 20, "{}", p.capacity());
        // The whole plane arrives: exactly its size.
        let p = read_plane(&mut Zeros { left: 50 << 20 }, 5 << 20, false).unwrap();
        assert_eq!((p.len(), p.capacity()), (5 << 20, 5 << 20));

        // Through the reader: the largest frame H.264 allows, 1 kB of it sent.
        let header = b"YUV4MPEG2 W8192 H4352 C420\nFRAME\n";
        let stream = header.chain(Zeros { left: 1000 });
        let mut r = Y4mReader::new(std::io::BufReader::new(stream), "pipe").unwrap();
        let e = r.read_frame().unwrap_err().to_string();
        assert!(
            e.contains("frame 0 is truncated: 1000 of 53477376 bytes"),
            "{e}"
        );

        // With the length known, the frame is refused before any plane is read.
        let stream = header.chain(Zeros { left: 1000 });
        let len = Some(header.len() as u64 + 1000);
        let mut r = Y4mReader::with_length(std::io::BufReader::new(stream), "file", len).unwrap();
        let e = r.read_frame().unwrap_err().to_string();
        assert!(
            e.contains("frame 0 is truncated: 1000 of 53477376 bytes"),
            "{e}"
        );
    }
}
