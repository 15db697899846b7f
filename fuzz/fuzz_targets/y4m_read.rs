//! The Y4M reader on hostile input: no panic, no allocation beyond the limits the run
//! sets, and every frame it returns has the header's size and valid planes. The same
//! bytes as a file: the frames read ahead at their offsets (`Y4mInput`) are the stream
//! reader's, in order, with the same error where it stops on one.

#![no_main]

use libfuzzer_sys::fuzz_target;
use parvlc::h264::y4m::Y4mReader;
use parvlc::h264::y4m_file::Y4mInput;
use parvlc::h264::Picture;

/// Every frame until the end or the first error.
fn frames(
    mut next: impl FnMut() -> parvlc::Result<Option<Picture>>,
) -> (Vec<Picture>, Option<String>) {
    let mut out = Vec::new();
    loop {
        match next() {
            Ok(Some(p)) => out.push(p),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(mut reader) = Y4mReader::new(data, "fuzz.y4m") {
        let (w, h) = (reader.header().width, reader.header().height);
        // Each frame consumes at least its FRAME line, so this ends.
        while let Ok(Some(picture)) = reader.read_frame() {
            assert_eq!((picture.width, picture.height), (w, h));
            picture
                .validate()
                .expect("the reader returned an invalid picture");
        }
    }
    let path = std::env::temp_dir().join(format!("parvlc-fuzz-y4m-{}.y4m", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let stream = Y4mReader::open(&path).map(|mut r| frames(|| r.read_frame()));
    let ahead = Y4mInput::open(&path, 3, 2).map(|mut r| frames(|| r.read_frame()));
    match (stream, ahead) {
        (Ok(s), Ok(a)) => assert!(s == a, "read ahead, the frames or the error differ"),
        (Err(s), Err(a)) => assert_eq!(s.to_string(), a.to_string()),
        (s, a) => panic!("opening differs: {:?} / {:?}", s.err(), a.err()),
    }
    let _ = std::fs::remove_file(&path);
});
