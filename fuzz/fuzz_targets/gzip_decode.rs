//! The gzip reader on hostile input, streaming (what `decompress` and `info` run) and in
//! memory: no panic, no allocation beyond the limits the run sets; what it decodes equals
//! what flate2's multi-member decoder returns; its account of the input (where the data
//! ends, what follows) is true; `describe` and the in-memory call agree with it.

#![no_main]

use std::io::Read;

use libfuzzer_sys::fuzz_target;
use parvlc::huffman::compress::decompress;
use parvlc::huffman::stream::{decompress_to, describe, Description, Trailing};

// Its decoders run on threads (see the macro).
parvlc_fuzz::lsan_suppressions!();

fuzz_target!(|data: &[u8]| {
    // Every input is gzip (the magic forced), so no run is spent on other formats.
    let mut file = vec![0x1f, 0x8b];
    file.extend_from_slice(data.get(2..).unwrap_or_default());
    let mut out = Vec::new();
    let streamed = decompress_to(&mut &file[..], &mut out);
    let described = describe(&mut &file[..], file.len() as u64);
    let in_memory = decompress(&file);
    let Ok(done) = streamed else {
        assert!(
            described.is_err() && in_memory.is_err(),
            "only streaming fails"
        );
        return;
    };
    assert_eq!(done.bytes_out, out.len() as u64);
    match described {
        Ok(Description::Gzip(d)) => assert_eq!(d, done),
        other => panic!("describe says {other:?}, streaming {done:?}"),
    }
    let end = done.data_end as usize;
    assert!(end <= file.len(), "{done:?}");
    let rest = &file[end..];
    match done.trailing {
        Trailing::None => assert!(rest.is_empty(), "{done:?}"),
        Trailing::Zeros => assert!(!rest.is_empty() && rest.iter().all(|&b| b == 0)),
        Trailing::Garbage => assert!(rest.iter().any(|&b| b != 0), "{done:?}"),
    }
    match in_memory {
        Ok(mem) => assert!(mem == out && done.trailing != Trailing::Garbage),
        Err(_) => assert_eq!(done.trailing, Trailing::Garbage),
    }
    // The judge: flate2's multi-member decoder, given the members alone, gives our bytes.
    let mut reference = Vec::new();
    flate2::read::MultiGzDecoder::new(&file[..end])
        .read_to_end(&mut reference)
        .expect("flate2 decodes the members");
    assert!(
        reference == out,
        "{} bytes decoded, flate2 gives {}",
        out.len(),
        reference.len()
    );
});
