//! Readbacks from many threads at once on one device, as the stream pipelines' coders and
//! decoders make them: each waiter polls the device until its own map lands
//! (`src/gpu/readback.rs`), and each gets its own bytes back.
mod common;

use parvlc::gpu::Gpu;
use wgpu::util::DeviceExt;

fn buffer_of(gpu: &Gpu, words: &[u32]) -> wgpu::Buffer {
    gpu.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("test.readback"),
            contents: bytemuck::cast_slice(words),
            usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::STORAGE,
        })
}

#[test]
fn many_threads_read_back_at_once_each_its_own_bytes() {
    let gpu = common::gpu();
    std::thread::scope(|s| {
        for t in 0..12u32 {
            s.spawn(move || {
                for round in 0..20u32 {
                    let words: Vec<u32> = (0..1000 + 37 * t)
                        .map(|i| i.wrapping_mul(2654435761) ^ (t << 24) ^ round)
                        .collect();
                    let buffer = buffer_of(gpu, &words);
                    let back = pollster::block_on(gpu.read_buffer(
                        &buffer,
                        8,
                        (words.len() as u64 - 4) * 4,
                    ))
                    .unwrap();
                    assert!(
                        back[..] == *bytemuck::cast_slice::<u32, u8>(&words[2..words.len() - 2]),
                        "thread {t}, round {round}"
                    );
                }
            });
        }
    });
}

/// `read_gathered` gives what `read_buffers` gives: ranges of two buffers interleaved
/// (runs of each), empty ranges, a range that is a whole buffer; and ranges it cannot
/// pack (a buffer without STORAGE usage) through the plain copies.
#[test]
fn gathered_reads_equal_plain_reads() {
    let gpu = common::gpu();
    let a_words: Vec<u32> = (0..3000u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let b_words: Vec<u32> = (0..777u32).map(|i| !i.wrapping_mul(40503)).collect();
    let (a, b) = (buffer_of(gpu, &a_words), buffer_of(gpu, &b_words));
    let ranges: Vec<(&wgpu::Buffer, u64, u64)> = vec![
        (&a, 0, 40),
        (&a, 4000, 0),
        (&a, 400, 1200),
        (&b, 12, 3000),
        (&b, 0, 777 * 4),
        (&a, 11996, 4),
        (&b, 3100, 0),
        (&a, 4, 8),
    ];
    let plain = pollster::block_on(gpu.read_buffers(&ranges)).unwrap();
    let gathered = pollster::block_on(gpu.read_gathered(&ranges)).unwrap();
    assert_eq!(gathered.len(), ranges.len());
    assert!(gathered == plain, "gathered and plain reads differ");
    assert!(gathered[3][..] == *bytemuck::cast_slice::<u32, u8>(&b_words[3..753]));

    let copy_only = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("test.readback.copy_only"),
            contents: bytemuck::cast_slice(&b_words),
            usage: wgpu::BufferUsages::COPY_SRC,
        });
    let ranges = [(&a, 8, 16), (&copy_only, 4, 40)];
    let plain = pollster::block_on(gpu.read_buffers(&ranges)).unwrap();
    assert!(pollster::block_on(gpu.read_gathered(&ranges)).unwrap() == plain);
    assert!(pollster::block_on(gpu.read_gathered(&[]))
        .unwrap()
        .is_empty());
}

/// Readbacks past the parallel copy's threshold (4 MiB): thousands of small parts (copied
/// out in runs, as a picture's code-blocks are), a few large ones (each on all cores),
/// and parts of 0 bytes among them, each equal to its source range.
#[test]
fn large_readbacks_of_small_and_large_parts_are_exact() {
    let gpu = common::gpu();
    let words: Vec<u32> = (0..(5u32 << 18))
        .map(|i| i.wrapping_mul(2654435761) ^ 0x5A5A_0000)
        .collect();
    let buffer = buffer_of(gpu, &words);
    let bytes: &[u8] = bytemuck::cast_slice(&words);
    for part_words in [[0u64, 311, 7, 1, 500], [0, 300_000, 1, 0, 200_001]] {
        let mut ranges = Vec::new();
        let mut at = 0u64;
        let mut k = 0;
        while at < words.len() as u64 {
            let len = part_words[k % part_words.len()].min(words.len() as u64 - at);
            ranges.push((&buffer, 4 * at, 4 * len));
            at += len;
            k += 1;
        }
        let back = pollster::block_on(gpu.read_buffers(&ranges)).unwrap();
        assert_eq!(back.len(), ranges.len());
        for (&(_, offset, len), got) in ranges.iter().zip(&back) {
            assert!(got[..] == bytes[offset as usize..(offset + len) as usize]);
        }
    }
}
