//! A Y4M file's frames read ahead at their offsets by several threads and handed out in
//! order ([`Y4mInput::open`]). One thread reading a 1080p file kept the GPU encoder
//! waiting: 16 pictures took it 38-45 ms on the H200 (3 MB a frame of page faults and
//! copies), while the encoder codes them in about as long (docs/h264.md). Frames are at
//! fixed offsets only where every FRAME line is the plain `FRAME\n` and the last frame is
//! whole, which opening checks (six bytes a frame); any other file (and a pipe) is read as
//! a stream by [`Y4mReader`], with its errors.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::y4m::{Y4mHeader, Y4mReader};
use super::Picture;
use crate::huffman::pipeline::fill_at;
use crate::ordered::Window;
use crate::{Error, Result};

/// A Y4M file's frames, read ahead at their offsets where the file allows it.
pub enum Y4mInput {
    /// Read at their offsets by threads of their own.
    Parallel(Y4mFrames),
    /// Read one after another.
    Stream(Y4mReader<BufReader<File>>),
}

impl Y4mInput {
    /// Open `path` and read its header (the errors of [`Y4mReader::open`]); its frames are
    /// read by `threads` threads at most `ahead` frames past the last one handed out, where
    /// they lie at fixed offsets.
    pub fn open(path: &Path, threads: usize, ahead: usize) -> Result<Y4mInput> {
        Self::open_sized(path, threads, |_| ahead)
    }

    /// [`Self::open`], how far ahead chosen from the file's header (a batch of pictures
    /// of its size).
    pub fn open_sized(
        path: &Path,
        threads: usize,
        ahead: impl FnOnce(&Y4mHeader) -> usize,
    ) -> Result<Y4mInput> {
        let reader = Y4mReader::open(path)?;
        let ahead = ahead(reader.header());
        match Y4mFrames::layout(path, &reader) {
            Some((file, start, count)) => Ok(Y4mInput::Parallel(Y4mFrames::start(
                path,
                reader.header().clone(),
                file,
                (start, count),
                threads,
                ahead,
            ))),
            None => Ok(Y4mInput::Stream(reader)),
        }
    }

    pub fn header(&self) -> &Y4mHeader {
        match self {
            Y4mInput::Parallel(f) => &f.header,
            Y4mInput::Stream(r) => r.header(),
        }
    }

    /// The next frame, or `None` at the end.
    pub fn read_frame(&mut self) -> Result<Option<Picture>> {
        match self {
            Y4mInput::Parallel(f) => f.read_frame(),
            Y4mInput::Stream(r) => r.read_frame(),
        }
    }
}

/// Frames read at their offsets by threads of their own, handed out in order.
pub struct Y4mFrames {
    header: Y4mHeader,
    count: u64,
    next: u64,
    from_readers: Receiver<(u64, Result<Picture>)>,
    /// Frames (or their errors) read ahead of the next one.
    waiting: BTreeMap<u64, Result<Picture>>,
    window: Arc<Window>,
    stop: Arc<AtomicBool>,
    readers: Vec<JoinHandle<()>>,
}

impl Y4mFrames {
    /// The opened file, where its frames start and how many there are, where every frame
    /// is `FRAME\n` and its samples, the last one whole; `None` for any other file, or where
    /// reading it here fails (the stream reader then meets the failure and names it).
    fn layout(path: &Path, reader: &Y4mReader<BufReader<File>>) -> Option<(File, u64, u64)> {
        if !reader.has_length() {
            return None;
        }
        let file = File::open(path).ok()?;
        let len = file.metadata().ok()?.len();
        let start = reader.header_bytes();
        let frame_len = 6 + reader.header().frame_bytes() as u64;
        let frames = len.saturating_sub(start);
        if len < start || frames % frame_len != 0 {
            return None;
        }
        let count = frames / frame_len;
        let mut marker = [0u8; 6];
        for k in 0..count {
            let whole = fill_at(&file, &mut marker, start + k * frame_len).ok() == Some(6);
            if !whole || &marker != b"FRAME\n" {
                return None;
            }
        }
        Some((file, start, count))
    }

    fn start(
        path: &Path,
        header: Y4mHeader,
        file: File,
        (start, count): (u64, u64),
        threads: usize,
        ahead: usize,
    ) -> Y4mFrames {
        let file = Arc::new(file);
        let window = Arc::new(Window::new(0, ahead.max(1)));
        let stop = Arc::new(AtomicBool::new(false));
        let claim = Arc::new(AtomicU64::new(0));
        let (to_consumer, from_readers) = sync_channel(ahead.max(1));
        let frame_len = 6 + header.frame_bytes() as u64;
        let readers = (0..threads.max(1))
            .map(|_| {
                let (file, window, stop, claim) =
                    (file.clone(), window.clone(), stop.clone(), claim.clone());
                let to_consumer = to_consumer.clone();
                let (width, height) = (header.width, header.height);
                let name = path.display().to_string();
                std::thread::spawn(move || loop {
                    let k = claim.fetch_add(1, Ordering::Relaxed);
                    if k >= count || stop.load(Ordering::Relaxed) || !window.admit(k) {
                        return;
                    }
                    let at = start + k * frame_len + 6;
                    let picture = read_picture_at(&file, at, width, height, &name, k);
                    let failed = picture.is_err();
                    if to_consumer.send((k, picture)).is_err() || failed {
                        return;
                    }
                })
            })
            .collect();
        Y4mFrames {
            header,
            count,
            next: 0,
            from_readers,
            waiting: BTreeMap::new(),
            window,
            stop,
            readers,
        }
    }

    /// The next frame, or `None` after the last. A frame that cannot be read is an error
    /// in its turn, after the frames before it, as the stream reader gives it; the frames
    /// after it are not read.
    pub fn read_frame(&mut self) -> Result<Option<Picture>> {
        if self.next >= self.count {
            return Ok(None);
        }
        let picture = loop {
            if let Some(p) = self.waiting.remove(&self.next) {
                break p;
            }
            match self.from_readers.recv() {
                Ok((k, p)) => {
                    self.waiting.insert(k, p);
                }
                Err(_) => {
                    return Err(Error::InvalidArgument(format!(
                        "the Y4M readers stopped before frame {}",
                        self.next
                    )))
                }
            }
        };
        match picture {
            Ok(p) => {
                self.next += 1;
                self.window.taken(self.next);
                Ok(Some(p))
            }
            Err(e) => {
                self.count = self.next;
                self.stop_readers();
                Err(e)
            }
        }
    }

    /// No reader starts another frame, and none waits to.
    fn stop_readers(&self) {
        self.stop.store(true, Ordering::Relaxed);
        self.window.close();
    }
}

/// The readers stop where they are, whatever was handed out.
impl Drop for Y4mFrames {
    fn drop(&mut self) {
        self.stop_readers();
        // A reader blocked sending finds the channel gone.
        let (_, empty) = sync_channel(1);
        drop(std::mem::replace(&mut self.from_readers, empty));
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
    }
}

/// Frame `k`'s planes from byte `at` of `file`, with the stream reader's errors.
fn read_picture_at(
    file: &File,
    at: u64,
    width: u32,
    height: u32,
    name: &str,
    k: u64,
) -> Result<Picture> {
    let mut picture = Picture {
        width,
        height,
        y: Vec::new(),
        u: Vec::new(),
        v: Vec::new(),
    };
    let luma = width as usize * height as usize;
    let want = Picture::frame_bytes(width, height);
    let chroma = (want - luma) / 2;
    let mut got = 0;
    for (plane, len) in [
        (&mut picture.y, luma),
        (&mut picture.u, chroma),
        (&mut picture.v, chroma),
    ] {
        // Zeroed by the allocator's fresh pages, not a pass of its own.
        *plane = vec![0u8; len];
        let n = fill_at(file, plane, at + got as u64).map_err(|e| Error::io(name, e))?;
        got += n;
        if n < len {
            // The file shrank after it was opened.
            return Err(Error::corrupt(
                "Y4M",
                format!("{name}: frame {k} is truncated: {got} of {want} bytes"),
            ));
        }
    }
    Ok(picture)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::SplitMix64;

    /// A Y4M file of `frames` random frames of 48x32, FRAME lines from `line(k)`, the
    /// last frame cut by `cut` bytes.
    fn file(
        name: &str,
        frames: usize,
        line: impl Fn(usize) -> &'static str,
        cut: usize,
    ) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("parvlc-y4m-file-{}-{name}.y4m", std::process::id()));
        let mut bytes = b"YUV4MPEG2 W48 H32 F25:1 C420jpeg\n".to_vec();
        let mut rng = SplitMix64(frames as u64 + cut as u64);
        for k in 0..frames {
            bytes.extend_from_slice(line(k).as_bytes());
            let mut samples = vec![0u8; Picture::frame_bytes(48, 32)];
            rng.fill(&mut samples);
            bytes.extend_from_slice(&samples);
        }
        bytes.truncate(bytes.len() - cut);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn all(input: &mut Y4mInput) -> Result<Vec<Picture>> {
        let mut out = Vec::new();
        while let Some(p) = input.read_frame()? {
            out.push(p);
        }
        Ok(out)
    }

    fn stream(path: &Path) -> Result<Vec<Picture>> {
        let mut r = Y4mReader::open(path)?;
        let mut out = Vec::new();
        while let Some(p) = r.read_frame()? {
            out.push(p);
        }
        Ok(out)
    }

    #[test]
    fn frames_read_ahead_in_parallel_are_the_streams_in_order() {
        let path = file("plain", 23, |_| "FRAME\n", 0);
        let want = stream(&path).unwrap();
        for (threads, ahead) in [(1, 1), (3, 2), (4, 16), (8, 64)] {
            let mut input = Y4mInput::open(&path, threads, ahead).unwrap();
            assert!(matches!(input, Y4mInput::Parallel(_)));
            assert!(
                all(&mut input).unwrap() == want,
                "{threads} threads, {ahead} ahead"
            );
            assert!(input.read_frame().unwrap().is_none());
        }
        // Dropped after two frames, with the readers waiting: no hang.
        let mut input = Y4mInput::open(&path, 4, 3).unwrap();
        for _ in 0..2 {
            input.read_frame().unwrap();
        }
        drop(input);
        // A file of no frames.
        let empty = file("empty", 0, |_| "FRAME\n", 0);
        let mut input = Y4mInput::open(&empty, 2, 2).unwrap();
        assert!(all(&mut input).unwrap().is_empty());
        for p in [path, empty] {
            std::fs::remove_file(p).unwrap();
        }
    }

    #[test]
    fn a_file_that_shrinks_while_read_ends_in_order_with_the_streams_error() {
        // One reader, one frame ahead: frame 0 is read at once, the others after the file
        // is cut inside frame 3's samples.
        let path = file("shrinks", 6, |_| "FRAME\n", 0);
        let mut input = Y4mInput::open(&path, 1, 1).unwrap();
        assert!(matches!(input, Y4mInput::Parallel(_)));
        let header = b"YUV4MPEG2 W48 H32 F25:1 C420jpeg\n".len() as u64;
        let frame = 6 + Picture::frame_bytes(48, 32) as u64;
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(header + 3 * frame + 6 + 100).unwrap();
        let want = stream(&path).map(|_| ()).unwrap_err().to_string();
        let mut r = Y4mReader::open(&path).unwrap();
        for k in 0..3 {
            let p = input.read_frame().unwrap().unwrap();
            assert!(Some(p) == r.read_frame().unwrap(), "frame {k}");
        }
        let got = input.read_frame().map(|_| ()).unwrap_err().to_string();
        assert_eq!(got, want);
        assert!(got.contains("frame 3 is truncated: 100 of"), "{got}");
        assert!(input.read_frame().unwrap().is_none());
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn other_files_are_read_as_streams_with_their_errors() {
        // A FRAME line with parameters, and a last frame cut short: the stream reader's
        // frames and errors.
        let params = file(
            "params",
            5,
            |k| if k == 3 { "FRAME Ip\n" } else { "FRAME\n" },
            0,
        );
        let mut input = Y4mInput::open(&params, 4, 4).unwrap();
        assert!(matches!(input, Y4mInput::Stream(_)));
        assert!(all(&mut input).unwrap() == stream(&params).unwrap());
        let cut = file("cut", 5, |_| "FRAME\n", 7);
        let mut input = Y4mInput::open(&cut, 4, 4).unwrap();
        assert!(matches!(input, Y4mInput::Stream(_)));
        let got = all(&mut input).map(|_| ()).unwrap_err().to_string();
        assert_eq!(got, stream(&cut).map(|_| ()).unwrap_err().to_string());
        assert!(got.contains("frame 4 is truncated"), "{got}");
        for p in [params, cut] {
            std::fs::remove_file(p).unwrap();
        }
    }
}
