//! Compiled pipelines kept across processes (`GpuOptions::pipeline_cache`): saved when a
//! `Gpu` drops, loaded by the next, and a damaged or foreign file falls back to compiling,
//! never to an error or different output. lavapipe (Vulkan) supports the cache, so the
//! suite requires it rather than skipping.

mod common;

use std::path::{Path, PathBuf};

use parvlc::gpu::{CacheState, Gpu, GpuOptions};
use parvlc::huffman::compress::{compress_gpu, Format};
use parvlc::huffman::cuvle::CuvleConfig;

fn open(dir: &Path) -> Gpu {
    pollster::block_on(Gpu::new(GpuOptions {
        pipeline_cache: Some(dir.to_path_buf()),
        ..Default::default()
    }))
    .expect("a GPU adapter (lavapipe in CI)")
}

fn compress(gpu: &Gpu, data: &[u8]) -> Vec<u8> {
    let config = CuvleConfig::default();
    pollster::block_on(compress_gpu(gpu, data, Format::Gzip, &config, &mut |_| {}))
        .unwrap()
        .bytes
}

fn cache_file(dir: &Path) -> PathBuf {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "one cache file per adapter: {files:?}");
    files.into_iter().next().unwrap()
}

#[test]
fn pipelines_are_kept_and_a_bad_file_falls_back() {
    let dir = common::cli::scratch("pipeline-cache", "all");
    let data = parvlc::testdata::generate(100_000, 4.5, 3);

    let gpu = open(&dir);
    assert_eq!(gpu.pipeline_cache_state(), CacheState::Empty);
    let reference = compress(&gpu, &data);
    drop(gpu);
    let file = cache_file(&dir);
    assert!(
        std::fs::metadata(&file).unwrap().len() > 12,
        "saved on drop"
    );

    let gpu = open(&dir);
    assert_eq!(gpu.pipeline_cache_state(), CacheState::Loaded);
    assert_eq!(compress(&gpu, &data), reference);
    drop(gpu);

    // A damaged file: refused, pipelines compiled, the file replaced by a good one.
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&file, &bytes).unwrap();
    let gpu = open(&dir);
    assert!(
        matches!(gpu.pipeline_cache_state(), CacheState::Rejected(ref why) if why.contains("checksum")),
        "{:?}",
        gpu.pipeline_cache_state()
    );
    assert_eq!(compress(&gpu, &data), reference);
    drop(gpu);
    assert_eq!(open(&dir).pipeline_cache_state(), CacheState::Loaded);

    // A foreign file that passes our checksum but not wgpu's header: wgpu falls back to
    // an empty cache; the output is the same.
    let payload = b"a pipeline cache from some other program".to_vec();
    let mut foreign = b"PVLCPC1\0".to_vec();
    foreign.extend_from_slice(&crc32fast_hash(&payload).to_le_bytes());
    foreign.extend_from_slice(&payload);
    std::fs::write(&file, &foreign).unwrap();
    let gpu = open(&dir);
    assert_eq!(compress(&gpu, &data), reference);
    drop(gpu);

    // No directory: nothing kept.
    let gpu = pollster::block_on(Gpu::new(GpuOptions {
        pipeline_cache: None,
        ..Default::default()
    }))
    .unwrap();
    assert_eq!(gpu.pipeline_cache_state(), CacheState::Off);
}

/// CRC-32 (IEEE), as the cache file's header holds it.
fn crc32fast_hash(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
