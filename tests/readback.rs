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
