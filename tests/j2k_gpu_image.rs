//! Encoding an image whose samples are already in a GPU buffer (`j2k::encode_gpu_image`,
//! as a renderer would hand one over): the same codestream as the host path for grey and
//! RGB, 8, 12 and 16 bits, odd sizes, Part 1 and HTJ2K, decoded exactly by OpenJPEG; the
//! buffer left as it was; and clear errors for a buffer too small or not storage, for an
//! engine without a GPU, and for a configuration that places a stage on the CPU.

mod common;

use common::j2k_images::{make, Content};
use common::j2k_judges::{decode, Judge};
use parvlc::gpu::Gpu;
use parvlc::j2k::{self, EncoderConfig, GpuImage, Image, Placement, Stages};
use parvlc::Engine;
use wgpu::util::DeviceExt;

/// The image's samples in a buffer of the renderer's own, in the layout `GpuImage` names:
/// u16 pairs in words, the last word zero-padded, with some room after them.
fn samples_buffer(gpu: &Gpu, image: &Image, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let mut words: Vec<u32> = image
        .samples
        .chunks(2)
        .map(|p| p[0] as u32 | (*p.get(1).unwrap_or(&0) as u32) << 16)
        .collect();
    words.extend([0xdead_beef; 3]);
    gpu.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("test.samples"),
            contents: bytemuck::cast_slice(&words),
            usage,
        })
}

fn gpu_image<'a>(buffer: &'a wgpu::Buffer, image: &Image) -> GpuImage<'a> {
    GpuImage {
        samples: buffer,
        width: image.width,
        height: image.height,
        components: image.components,
        bit_depth: image.bit_depth,
    }
}

#[test]
fn a_gpu_image_codes_as_the_same_image_from_the_host() {
    let engine = common::wgpu_engine();
    let gpu = engine.gpu().expect("a wgpu engine");
    let dir = std::env::temp_dir().join(format!("parvlc-j2k-gpu-image-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    for (k, (w, h, comps, bits, content)) in [
        (67, 45, 3, 8, Content::Natural),
        (33, 70, 1, 12, Content::Noise),
        (40, 40, 3, 16, Content::Checker),
        (1, 1, 1, 8, Content::Flat),
    ]
    .into_iter()
    .enumerate()
    {
        let image = make(w, h, comps, bits, content, 40 + k as u64);
        let buffer = samples_buffer(gpu, &image, usage);
        let before = pollster::block_on(gpu.read_buffer(&buffer, 0, buffer.size())).unwrap();
        for ht in [false, true] {
            let config = EncoderConfig {
                levels: 3,
                ht,
                ..EncoderConfig::default()
            };
            let what = format!("{w}x{h}x{comps}, {bits} bits, {content:?}, ht {ht}");
            let want = pollster::block_on(j2k::encode(&image, &config, engine)).expect(&what);
            let got = pollster::block_on(j2k::encode_gpu_image(
                engine,
                &gpu_image(&buffer, &image),
                &config,
            ))
            .expect(&what);
            assert!(
                got == want,
                "{what}: the codestream differs from the host path's"
            );
            if !ht && k < 2 {
                let back = decode(Judge::OpenJpeg, &dir, &format!("img{k}"), &got, comps);
                assert!(back.samples == image.samples, "{what}: OpenJPEG's decoding");
            }
        }
        let after = pollster::block_on(gpu.read_buffer(&buffer, 0, buffer.size())).unwrap();
        assert!(before == after, "the samples buffer was changed");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn what_a_gpu_image_cannot_be_is_a_clear_error() {
    let engine = common::wgpu_engine();
    let gpu = engine.gpu().expect("a wgpu engine");
    let image = make(20, 12, 3, 8, Content::Natural, 7);
    let config = EncoderConfig::default();
    let err = |r: parvlc::Result<Vec<u8>>| r.expect_err("an error").to_string();

    let good = samples_buffer(gpu, &image, wgpu::BufferUsages::STORAGE);
    let mut taller = gpu_image(&good, &image);
    taller.height += 1;
    let e = err(pollster::block_on(j2k::encode_gpu_image(
        engine, &taller, &config,
    )));
    assert!(e.contains("bytes of samples"), "{e}");

    let not_storage = samples_buffer(gpu, &image, wgpu::BufferUsages::COPY_SRC);
    let e = err(pollster::block_on(j2k::encode_gpu_image(
        engine,
        &gpu_image(&not_storage, &image),
        &config,
    )));
    assert!(e.contains("STORAGE"), "{e}");

    let e = err(pollster::block_on(j2k::encode_gpu_image(
        &Engine::Cpu,
        &gpu_image(&good, &image),
        &config,
    )));
    assert!(e.contains("wgpu engine"), "{e}");

    let cpu_tier1 = EncoderConfig {
        stages: Some(Stages::new(Placement::Gpu, Placement::Cpu)),
        ..EncoderConfig::default()
    };
    let e = err(pollster::block_on(j2k::encode_gpu_image(
        engine,
        &gpu_image(&good, &image),
        &cpu_tier1,
    )));
    assert!(e.contains("on the GPU"), "{e}");

    let mut grey_and_alpha = gpu_image(&good, &image);
    grey_and_alpha.components = 2;
    let e = err(pollster::block_on(j2k::encode_gpu_image(
        engine,
        &grey_and_alpha,
        &config,
    )));
    assert!(e.contains("components"), "{e}");
}
