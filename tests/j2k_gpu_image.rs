//! Encoding an image whose samples are already in a GPU buffer (`j2k::encode_gpu_image`,
//! as a renderer would hand one over): the same codestream as the host path for grey and
//! RGB, 8, 12 and 16 bits, odd sizes, Part 1 and HTJ2K, decoded exactly by OpenJPEG; the
//! buffer left as it was; and clear errors for a buffer too small or not storage, for an
//! engine without a GPU, and for a configuration that places a stage on the CPU. A
//! texture's texels unpacked on the GPU (`j2k::texture_samples`) equal the CPU twin's
//! samples for every format read, and code as the same image from the host.

mod common;

use common::j2k_images::{make, Content};
use common::j2k_judges::{decode, Judge};
use parvlc::gpu::{Gpu, GpuStage};
use parvlc::j2k::texture_samples::{record_texture_samples, HostTexels, TextureSamplesStage};
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

#[test]
fn a_texture_unpacks_as_its_twin_and_codes_as_the_host_image() {
    let engine = common::wgpu_engine();
    let gpu = engine.gpu().expect("a wgpu engine");
    let stage = TextureSamplesStage { gpu };
    let mut rng = common::rng::Rng(11);
    use wgpu::TextureFormat as F;
    for (k, (format, texel, comps, bits, w, h)) in [
        (F::R8Unorm, 1, 1, 8, 37, 21),
        (F::R16Uint, 2, 1, 16, 19, 33),
        (F::Rgba8Unorm, 4, 3, 8, 45, 17),
        (F::Rgba8UnormSrgb, 4, 3, 8, 8, 8),
        (F::Bgra8Unorm, 4, 3, 8, 29, 23),
        (F::Rgba16Uint, 8, 3, 16, 13, 11),
    ]
    .into_iter()
    .enumerate()
    {
        let texels: Vec<u8> = (0..w * h * texel).map(|_| rng.next() as u8).collect();
        let input = HostTexels {
            format,
            width: w,
            height: h,
            texels: &texels,
        };
        let want = stage.cpu(&input).unwrap();
        let got = pollster::block_on(stage.encode(&input)).unwrap();
        assert!(
            got == want,
            "{format:?}: the GPU's samples differ from the twin's"
        );
        // The first pixel by hand: BGRA swaps red and blue; 16 bits are little-endian.
        let first: Vec<u16> = match format {
            F::R8Unorm => vec![texels[0] as u16],
            F::R16Uint => vec![u16::from_le_bytes([texels[0], texels[1]])],
            F::Bgra8Unorm => vec![texels[2] as u16, texels[1] as u16, texels[0] as u16],
            F::Rgba16Uint => (0..3)
                .map(|c| u16::from_le_bytes([texels[2 * c], texels[2 * c + 1]]))
                .collect(),
            _ => vec![texels[0] as u16, texels[1] as u16, texels[2] as u16],
        };
        assert_eq!(want[..comps as usize], first[..], "{format:?}");
        if k % 2 == 0 {
            // Recorded into the caller's encoder, then coded where it lies.
            let texture = pollster::block_on(stage.upload(&input)).unwrap();
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            let unpacked = record_texture_samples(gpu, &mut encoder, &texture).unwrap();
            gpu.queue.submit([encoder.finish()]);
            let image = Image::new(w, h, comps, bits, want.clone()).unwrap();
            let config = EncoderConfig {
                levels: 2,
                ..EncoderConfig::default()
            };
            let host = pollster::block_on(j2k::encode(&image, &config, engine)).unwrap();
            let coded =
                pollster::block_on(j2k::encode_gpu_image(engine, &unpacked.image(), &config))
                    .unwrap();
            assert!(
                coded == host,
                "{format:?}: the texture's codestream differs"
            );
        }
    }
    // Formats the encoder does not read, and a texture it cannot copy, are errors.
    let e = TextureSamplesStage { gpu }
        .cpu(&HostTexels {
            format: F::Rgba32Float,
            width: 1,
            height: 1,
            texels: &[0; 16],
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("Rgba32Float"), "{e}");
    let no_copy = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: 4,
            height: 4,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: F::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let e = record_texture_samples(gpu, &mut encoder, &no_copy)
        .err()
        .expect("an error")
        .to_string();
    assert!(e.contains("COPY_SRC"), "{e}");
}

/// A texture's copy, recorded into the caller's encoder, stays out of the buffer pool
/// until the image is dropped: other work that takes a buffer of its size and usage
/// before the caller submits must not get it, or the copy, when it runs, overwrites
/// that work's data (a race the tests above met once in some hundred runs).
#[test]
fn recorded_texture_copies_stay_out_of_the_pool_until_submitted() {
    let engine = common::wgpu_engine();
    let gpu = engine.gpu().expect("a wgpu engine");
    let (w, h) = (16u32, 8u32);
    let texels: Vec<u8> = (0..w * h * 4).map(|i| (i * 7) as u8).collect();
    let input = HostTexels {
        format: wgpu::TextureFormat::Rgba8Unorm,
        width: w,
        height: h,
        texels: &texels,
    };
    let texture = pollster::block_on(TextureSamplesStage { gpu }.upload(&input)).unwrap();
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let unpacked = record_texture_samples(gpu, &mut encoder, &texture).unwrap();
    // Other work: a buffer of the copy's size and usage, filled with a grey image's
    // samples and submitted before the recorded commands are.
    let row = (w * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) as u64;
    let other = gpu.pooled_buffer(
        row * h as u64,
        wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::STORAGE,
    );
    let image = make(32, 32, 1, 8, Content::Noise, 9);
    let words: Vec<u32> = image
        .samples
        .chunks(2)
        .map(|p| p[0] as u32 | (p[1] as u32) << 16)
        .collect();
    assert!(words.len() as u64 * 4 <= other.size());
    gpu.queue
        .write_buffer(&other, 0, bytemuck::cast_slice(&words));
    gpu.queue.submit([]);
    gpu.queue.submit([encoder.finish()]);
    let config = EncoderConfig::default();
    let want = pollster::block_on(j2k::encode(&image, &config, engine)).unwrap();
    let got = pollster::block_on(j2k::encode_gpu_image(
        engine,
        &gpu_image(&other, &image),
        &config,
    ))
    .unwrap();
    assert!(got == want, "the other work's samples were overwritten");
    drop(unpacked);
}
