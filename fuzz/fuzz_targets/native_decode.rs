//! The native decoder on hostile input: no panic, no allocation beyond the limits the
//! run sets, and whatever decodes re-encodes and decodes to the same bytes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use parvlc::huffman::compress::{compress_cpu, Format};

/// The decoder under test: the one call to change if its API moves.
fn decode(data: &[u8]) -> parvlc::Result<Vec<u8>> {
    parvlc::huffman::compress::decompress(data)
}

/// Bytes before the block offsets, and where `n_blocks` lies (src/huffman/native.rs).
const FIXED_LEN: usize = 4 + 1 + 3 + 8 + 4 + 4 + 4 + 8 + 256;
const N_BLOCKS_AT: usize = 4 + 1 + 3 + 8 + 4 + 4;

fuzz_target!(|data: &[u8]| {
    // Every input is a native file (the magic forced), and its header checksum is made
    // right, so mutations reach the parser's checks and the decoder instead of stopping
    // at the magic or the checksum.
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
    if let Ok(out) = decode(&file) {
        // What decodes is data like any other: it must survive a round trip.
        let again = compress_cpu(&out, Format::Native, 4096).expect("re-encode");
        assert_eq!(
            decode(&again.bytes).expect("decode the re-encoded file"),
            out
        );
    }
});

fn crc32(bytes: &[u8]) -> u32 {
    let mut h = flate2::Crc::new();
    h.update(bytes);
    h.sum()
}
