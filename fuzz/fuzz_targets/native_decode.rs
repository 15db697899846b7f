//! The native decoder on hostile input, in memory and streaming in small batches: no
//! panic, no allocation beyond the limits the run sets, both paths agree, and whatever
//! decodes re-encodes and decodes to the same bytes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use parvlc::huffman::compress::{compress_cpu, decompress, Format};
use parvlc::huffman::stream::decompress_to_batched;

/// Bytes before the block offsets, and where `n_blocks` lies (src/huffman/native.rs).
const FIXED_LEN: usize = 4 + 1 + 3 + 8 + 4 + 4 + 4 + 8 + 256;
const N_BLOCKS_AT: usize = 4 + 1 + 3 + 8 + 4 + 4;

// Its decoders run on threads (see the macro).
parvlc_fuzz::lsan_suppressions!();

fuzz_target!(|data: &[u8]| {
    // Every input is a native file (the magic forced), and its header checksum is made
    // right, so mutations reach the parser's checks and the decoder instead of stopping
    // at the magic or the checksum. The first byte, which the magic replaces, picks the
    // streaming batch size: 1 to 24736 bytes, so blocks are cut across batches.
    let batch = 1 + data.first().copied().unwrap_or(0) as usize * 97;
    let mut file = b"PVLC".to_vec();
    file.extend_from_slice(data.get(4..).unwrap_or_default());
    if let Some(n) = file.get(N_BLOCKS_AT..N_BLOCKS_AT + 4) {
        let n_blocks = u32::from_le_bytes(n.try_into().unwrap()) as usize;
        let end = n_blocks
            .checked_mul(8)
            .and_then(|b| b.checked_add(FIXED_LEN));
        if let Some(end) = end.filter(|&e| e + 4 <= file.len()) {
            let crc = crc32(&file[..end]);
            file[end..end + 4].copy_from_slice(&crc.to_le_bytes());
        }
    }
    let in_memory = decompress(&file);
    let mut streamed = Vec::new();
    let stream = decompress_to_batched(&mut &file[..], &mut streamed, batch);
    match (&in_memory, &stream) {
        (Ok(out), Ok(done)) => {
            assert!(*out == streamed, "streaming (batch {batch}) differs");
            assert_eq!(done.bytes_out, out.len() as u64);
        }
        (Err(_), Err(_)) => {}
        _ => panic!(
            "in memory {:?}, streaming (batch {batch}) {:?}",
            in_memory.as_ref().map(Vec::len),
            stream
        ),
    }
    if let Ok(out) = in_memory {
        // What decodes is data like any other: it must survive a round trip.
        let again = compress_cpu(&out, Format::Native, 4096).expect("re-encode");
        assert_eq!(
            decompress(&again.bytes).expect("decode the re-encoded file"),
            out
        );
    }
});

fn crc32(bytes: &[u8]) -> u32 {
    let mut h = flate2::Crc::new();
    h.update(bytes);
    h.sum()
}
