//! The native v2 (framed) decoder on hostile input: no panic, no allocation beyond the
//! limits the run sets, the in-memory and streaming paths agree, and whatever decodes
//! re-encodes (framed, on the CPU) and decodes to the same bytes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use parvlc::huffman::compress::{decompress, Format};
use parvlc::huffman::pipeline::{compress_framed, StreamConfig};
use parvlc::huffman::stream::decompress_to_batched;
use parvlc::Engine;

/// Frame header bytes before the block offsets (src/huffman/framing.rs).
const FIXED: usize = 24 + 128;

// Its decoders run on threads (see the macro).
parvlc_fuzz::lsan_suppressions!();

fuzz_target!(|data: &[u8]| {
    // The magic and version forced, and the first frame's header checksum made right, so
    // mutations reach the frame checks and the decoder. The first byte picks the batch.
    let batch = 1 + data.first().copied().unwrap_or(0) as usize * 4099;
    let mut file = b"PVLC\x02".to_vec();
    file.extend_from_slice(data.get(5..).unwrap_or_default());
    if file.get(5) == Some(&0) && file.len() >= FIXED + 4 {
        let len = u32::from_le_bytes(file[8..12].try_into().unwrap()) as u64;
        let block = u32::from_le_bytes(file[12..16].try_into().unwrap()).max(1) as u64;
        let offsets = len.div_ceil(block).saturating_sub(1);
        let end = offsets.checked_mul(4).map(|o| o + FIXED as u64);
        if let Some(end) = end.filter(|&e| e + 4 <= file.len() as u64) {
            let end = end as usize;
            let crc = crc32fast::hash(&file[..end]);
            file[end..end + 4].copy_from_slice(&crc.to_le_bytes());
        }
    }
    let whole = decompress(&file);
    let mut streamed = Vec::new();
    let stream = decompress_to_batched(&mut &file[..], &mut streamed, batch);
    assert_eq!(
        whole.is_ok(),
        stream.is_ok(),
        "in-memory and streaming disagree"
    );
    if let Ok(out) = whole {
        assert_eq!(out, streamed);
        let config = StreamConfig::default();
        let (again, _) =
            pollster::block_on(compress_framed(&Engine::Cpu, &out, Format::Native, &config))
                .expect("re-encode");
        assert_eq!(decompress(&again).expect("decode the re-encode"), out);
    }
});
