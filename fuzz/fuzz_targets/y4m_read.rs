//! The Y4M reader on hostile input: no panic, no allocation beyond the limits the run
//! sets, and every frame it returns has the header's size and valid planes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use parvlc::h264::y4m::Y4mReader;

fuzz_target!(|data: &[u8]| {
    let Ok(mut reader) = Y4mReader::new(data, "fuzz.y4m") else {
        return;
    };
    let (w, h) = (reader.header().width, reader.header().height);
    // Each frame consumes at least its FRAME line, so this ends.
    while let Ok(Some(picture)) = reader.read_frame() {
        assert_eq!((picture.width, picture.height), (w, h));
        picture
            .validate()
            .expect("the reader returned an invalid picture");
    }
});
