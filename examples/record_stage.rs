//! Record a parvlc stage into your own wgpu command encoder, beside your own passes,
//! and submit it yourself: the CUVLE encoder here, checked against its CPU twin.
//!
//!     cargo run --release --example record_stage

use parvlc::gpu::{Gpu, GpuOptions};
use parvlc::huffman::cpu::encode_serial;
use parvlc::huffman::cuvle::{CuvleConfig, VleEncoder};
use parvlc::huffman::{BitOrder, Codebook};

fn main() -> parvlc::Result<()> {
    let gpu = pollster::block_on(Gpu::new(GpuOptions::default()))?;
    let data: Vec<u8> = (0..4u32 << 20).map(|i| (i % 251 * (i % 7)) as u8).collect();
    let encoder = VleEncoder::new(&gpu, CuvleConfig::default())?;

    // Upload and per-chunk histograms, then a code table from them.
    let input = encoder.upload(&data)?;
    let chunks = pollster::block_on(encoder.histograms(&input, None))?;
    let mut freqs = [0u64; 256];
    for h in &chunks {
        for (f, c) in freqs.iter_mut().zip(h) {
            *f += c;
        }
    }
    let table = Codebook::from_frequencies(&freqs, 16)?.table()?;
    let plan = encoder.plan(&input, &chunks, &table, BitOrder::MsbFirst, 0)?;
    let table_buf = encoder.upload_table(&table);

    // Your encoder: your own work before and after, parvlc's passes in between.
    let mut commands = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("my frame"),
        });
    let pending = encoder.encode_into(&mut commands, &input, &table_buf, &plan, false)?;
    let mine = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("my buffer"),
        size: 256,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    commands.copy_buffer_to_buffer(pending.output(), 0, &mine, 0, 256);
    gpu.queue.submit([commands.finish()]);

    let encoded = pollster::block_on(encoder.finish(pending))?;
    let cpu = encode_serial(&data, &table, BitOrder::MsbFirst, 0)?;
    assert_eq!(encoded.stream.bits, cpu.bits);
    assert_eq!(encoded.stream.bytes, cpu.bytes, "GPU == CPU twin");
    println!(
        "{} bytes -> {} bits in {} segment(s) on {}, equal to the CPU twin",
        data.len(),
        encoded.stream.bits,
        encoded.segments,
        gpu.adapter_name()
    );
    Ok(())
}
