//! The GPU decoders of native v2 (framed) streams and of our gzip members
//! (shaders/huffman/vld.wgsl, on lavapipe in CI) on hostile input: no panic, and they
//! agree with the CPU decoders: both fail, or both give the same bytes (or, for gzip,
//! only the GPU fails, on the block offsets that only it reads).

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use parvlc::huffman::stream::{decompress_to_batched, decompress_to_on};
use parvlc::{Backend, Engine};

/// Frame header bytes before the block offsets (src/huffman/framing.rs).
const FIXED: usize = 24 + 128;

parvlc_fuzz::lsan_suppressions!();

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        pollster::block_on(Engine::open(Backend::Wgpu))
            .expect("the GPU target needs an adapter (lavapipe: mesa-vulkan-drivers)")
    })
}

fuzz_target!(
    init: {
        // Before the fuzzing loop, whose allocation limit lavapipe's device exceeds.
        engine();
    },
    |data: &[u8]| check(data)
);

fn check(data: &[u8]) {
    // The first byte's low bit picks the format (a native seed starts with `P`, a gzip
    // one with 0x1f), the rest of it the batch.
    let first = data.first().copied().unwrap_or(0);
    let batch = 1 + (first >> 1) as usize * 8198;
    let gzip = first & 1 == 1;
    let file = if gzip {
        gzip_file(data)
    } else {
        native_file(data)
    };
    let mut cpu = Vec::new();
    let on_cpu = decompress_to_batched(&mut &file[..], &mut cpu, batch);
    let mut gpu = Vec::new();
    let on_gpu = decompress_to_on(engine(), &mut &file[..], &mut gpu, batch);
    match (&on_cpu, &on_gpu) {
        (Ok(_), Ok(_)) => assert!(cpu == gpu, "CPU and GPU decode to other bytes"),
        (Err(_), Err(_)) => {}
        // A gzip index's block offsets are read by the GPU alone, which checks them: a
        // fault the kernel reports for a block ("... block 3 ...").
        (Ok(_), Err(e)) if gzip && names_a_block(&e.to_string()) => {}
        _ => panic!("CPU and GPU disagree: {on_cpu:?} / {on_gpu:?}"),
    }
}

/// Whether an error names a block by its number, as the kernel's faults do.
fn names_a_block(e: &str) -> bool {
    e.split("block ")
        .skip(1)
        .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// As framed_decode: the magic and version forced, the first frame's header checksum
/// made right.
fn native_file(data: &[u8]) -> Vec<u8> {
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
    file
}

/// As gzip_decode: the magic forced.
fn gzip_file(data: &[u8]) -> Vec<u8> {
    let mut file = vec![0x1f, 0x8b];
    file.extend_from_slice(data.get(2..).unwrap_or_default());
    file
}
