//! The PGM/PPM/PNG reader on hostile input: no panic, no allocation beyond the limits the
//! run sets, and an image it returns is valid and survives a PNM round trip.

#![no_main]

use libfuzzer_sys::fuzz_target;
use parvlc::j2k::Image;

fuzz_target!(|data: &[u8]| {
    if let Ok(img) = Image::from_bytes(data) {
        // The constructor's checks (shape, sample range) hold for what the reader built.
        let checked = Image::new(
            img.width,
            img.height,
            img.components,
            img.bit_depth,
            img.samples.clone(),
        )
        .expect("the reader returned an image that Image::new refuses");
        assert_eq!(checked, img);
        let back = Image::from_bytes(&img.to_pnm()).expect("read back our own PNM");
        assert_eq!(back, img);
    }
});
