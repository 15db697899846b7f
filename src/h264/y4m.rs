//! YUV4MPEG2 (Y4M) input, read a frame at a time: 8-bit 4:2:0 only (no `C` tag, or
//! `C420`, `C420jpeg`, `C420paldv`, `C420mpeg2`); other colour spaces and bit depths, a
//! file that is not Y4M and a truncated frame are clear errors.

use std::io::{BufRead, Read};

use super::{Geometry, Picture};
use crate::{Error, Result};

/// 4:2:0 8-bit colour-space tags (chroma siting differs; the samples do not).
const ACCEPTED: [&str; 4] = ["420", "420jpeg", "420paldv", "420mpeg2"];

const MAX_HEADER: u64 = 4096;

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
}

impl Y4mReader<std::io::BufReader<std::fs::File>> {
    /// Open a Y4M file and read its header.
    pub fn open(path: &std::path::Path) -> Result<Self> {
        let f = std::fs::File::open(path).map_err(|e| Error::Io {
            path: path.into(),
            source: e,
        })?;
        Y4mReader::new(
            std::io::BufReader::with_capacity(1 << 20, f),
            &path.display().to_string(),
        )
    }
}

/// Read up to and including `\n` (at most `limit` bytes); the line without it, or None
/// at a clean end of stream.
fn read_line<R: BufRead>(r: &mut R, limit: u64, name: &str) -> Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    r.by_ref()
        .take(limit)
        .read_until(b'\n', &mut line)
        .map_err(|e| Error::io(name, e))?;
    if line.is_empty() {
        return Ok(None);
    }
    if line.pop() != Some(b'\n') {
        line.clear(); // signal an unterminated line
    }
    Ok(Some(line))
}

impl<R: BufRead> Y4mReader<R> {
    /// Read the stream header from `r`; `name` labels errors (e.g. the file name).
    pub fn new(mut r: R, name: &str) -> Result<Self> {
        let not_y4m = |reason: String| Error::BadMagic {
            format: "Y4M",
            reason: format!("{name}: {reason}"),
        };
        let line = read_line(&mut r, MAX_HEADER, name)?
            .ok_or_else(|| not_y4m("the file is empty".into()))?;
        let mut tags = line.split(|&b| b == b' ');
        if tags.next() != Some(b"YUV4MPEG2".as_slice()) {
            return Err(not_y4m(
                "it does not start with a \"YUV4MPEG2 \" header line".into(),
            ));
        }
        let (mut width, mut height, mut fps, mut colorspace) = (None, None, (25, 1), None);
        for tag in tags.filter(|t| !t.is_empty()) {
            let value = String::from_utf8_lossy(&tag[1..]).into_owned();
            let bad = || not_y4m(format!("bad header tag {:?}", String::from_utf8_lossy(tag)));
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
                _ => {} // I (interlacing: coded as frames), A (aspect), X (comments)
            }
        }
        let (width, height) = match (width, height) {
            (Some(w), Some(h)) => (w, h),
            _ => return Err(not_y4m("the header lacks the W or H tag".into())),
        };
        if let Some(c) = &colorspace {
            if !ACCEPTED.contains(&c.as_str()) {
                return Err(Error::InvalidArgument(format!(
                    "{name}: Y4M colour space C{c} is not supported: the H.264 encoder takes \
                     8-bit 4:2:0 only (C420, C420jpeg, C420paldv, C420mpeg2); convert with \
                     e.g. ffmpeg -i {name} -pix_fmt yuv420p out.y4m"
                )));
            }
        }
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
        })
    }

    pub fn header(&self) -> &Y4mHeader {
        &self.header
    }

    /// Frames read so far.
    pub fn frames_read(&self) -> u64 {
        self.frames
    }

    /// The next frame, or `None` at the end of the stream.
    pub fn read_frame(&mut self) -> Result<Option<Picture>> {
        let n = self.frames;
        let truncated = |reason: String| {
            Error::corrupt(
                "Y4M",
                format!("{}: frame {n} is truncated: {reason}", self.name),
            )
        };
        let line = match read_line(&mut self.r, MAX_HEADER, &self.name)? {
            None => return Ok(None),
            Some(l) => l,
        };
        if line.is_empty()
            || !(line.starts_with(b"FRAME") && matches!(line.get(5), None | Some(b' ')))
        {
            return Err(if line.is_empty() {
                truncated("its FRAME line has no end".into())
            } else {
                Error::corrupt(
                    "Y4M",
                    format!("{}: frame {n} does not start with a FRAME line", self.name),
                )
            });
        }
        let h = &self.header;
        let mut picture = Picture::new(h.width, h.height);
        let want = h.frame_bytes();
        let mut got = 0usize;
        for plane in [&mut picture.y, &mut picture.u, &mut picture.v] {
            let mut filled = 0;
            while filled < plane.len() {
                match self.r.read(&mut plane[filled..]) {
                    Ok(0) => return Err(truncated(format!("{} of {want} bytes", got + filled))),
                    Ok(k) => filled += k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(Error::io(self.name.as_str(), e)),
                }
            }
            got += filled;
        }
        self.frames += 1;
        Ok(Some(picture))
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
}
