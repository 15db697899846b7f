//! The JPEG 2000 encoder (CPU front end and tier-1) on small fuzzed images: every valid
//! image and configuration encodes, and OpenJPEG decodes the codestream to exactly the
//! source samples. The first bytes choose the shape and the configuration, the rest are
//! the samples (repeated when short).

#![no_main]

use libfuzzer_sys::fuzz_target;
use parvlc::j2k::{self, EncoderConfig, Image};
use parvlc::Engine;
use parvlc_fuzz::{cycle, opj_decode, Params};

fuzz_target!(|data: &[u8]| {
    let mut p = Params::new(data);
    let width = p.range(1, 48);
    let height = p.range(1, 48);
    let components = if p.byte() & 1 == 0 { 1 } else { 3 };
    let bit_depth = p.range(1, 16);
    let config = EncoderConfig {
        // Above the image's maximum the encoder reduces the levels itself.
        levels: p.range(0, 6),
        cblk: 4 << p.range(0, 4),
        // Part 1's bypass style, or every pass through the MQ coder: what OpenJPEG reads.
        bypass_from: if p.byte() & 1 == 0 { Some(5) } else { None },
        ..Default::default()
    };
    let n = (width * height * components) as usize;
    let bytes_per_sample = if bit_depth > 8 { 2 } else { 1 };
    let raw = cycle(p.rest(), &mut 0, n * bytes_per_sample);
    let mask = ((1u32 << bit_depth) - 1) as u16;
    let samples = raw
        .chunks(bytes_per_sample)
        .map(|c| c.iter().fold(0u16, |v, &b| v << 8 | b as u16) & mask)
        .collect();
    let image = Image::new(width, height, components, bit_depth, samples).expect("valid image");
    let codestream =
        pollster::block_on(j2k::encode(&image, &config, &Engine::Cpu)).unwrap_or_else(|e| {
            panic!("{width}x{height}x{components} {bit_depth}-bit, {config:?}: {e}")
        });
    let (w, h, planes) = opj_decode(&codestream).unwrap_or_else(|e| {
        panic!("{width}x{height}x{components} {bit_depth}-bit, {config:?}: {e}")
    });
    assert_eq!((w, h, planes.len() as u32), (width, height, components));
    for (c, (prec, signed, got)) in planes.iter().enumerate() {
        assert_eq!((*prec, *signed), (bit_depth, false), "component {c}");
        let want: Vec<i32> = image.plane(c as u32).iter().map(|&s| s as i32).collect();
        assert!(
            *got == want,
            "{width}x{height}x{components} {bit_depth}-bit, {config:?}: component {c} differs"
        );
    }
});
