//! A renderer's texture as an image the encoder takes where it lies
//! (shaders/j2k/texture_samples.wgsl): the texture is copied into a buffer on the GPU and
//! its texels unpacked into the samples layout of [`super::GpuImage`]; nothing comes to
//! the host. Record it into your command encoder, submit, then
//! [`super::encode_gpu_image`] the [`TextureImage`]'s [`TextureImage::image`].
//!
//! Formats: `R8Unorm` and `R16Uint` (grey, 8 and 16 bits); `Rgba8Unorm`, `Bgra8Unorm`
//! and their sRGB forms, and `Rgba16Uint` (RGB, 8 and 16 bits; alpha left out; sRGB
//! texels are taken as stored, not linearised). The texture needs COPY_SRC usage and one
//! layer of one sample; its mip level 0 is read.
//!
//! CPU twin: [`texture_samples_cpu`].

use wgpu::util::DeviceExt;

use super::GpuImage;
use crate::gpu::registry::j2k::TEXTURE_SAMPLES;
use crate::gpu::{Gpu, GpuStage, PooledBuffer};
use crate::{Error, Result};

/// keep in sync with shaders/j2k/texture_samples.wgsl `UnpackParams`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct UnpackParams {
    width: u32,
    height: u32,
    components: u32,
    texel_bytes: u32,
    channel_bytes: u32,
    bytes_per_row: u32,
    swap_rb: u32,
    words: u32,
}

/// How a texture format's texels hold the image's samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexelLayout {
    /// 1 (grey) or 3 (RGB).
    pub components: u32,
    pub bit_depth: u32,
    pub texel_bytes: u32,
    /// BGRA: blue in the first channel.
    pub swap_rb: bool,
}

impl TexelLayout {
    /// The layout of `format`; an error for a format the encoder does not read.
    pub fn of(format: wgpu::TextureFormat) -> Result<TexelLayout> {
        use wgpu::TextureFormat as F;
        let (components, bit_depth, texel_bytes, swap_rb) = match format {
            F::R8Unorm => (1, 8, 1, false),
            F::R16Uint => (1, 16, 2, false),
            F::Rgba8Unorm | F::Rgba8UnormSrgb => (3, 8, 4, false),
            F::Bgra8Unorm | F::Bgra8UnormSrgb => (3, 8, 4, true),
            F::Rgba16Uint => (3, 16, 8, false),
            other => {
                return Err(Error::InvalidArgument(format!(
                    "a texture of {other:?}: the encoder reads R8Unorm, R16Uint, Rgba8Unorm, \
                     Bgra8Unorm (and their sRGB forms) and Rgba16Uint"
                )))
            }
        };
        Ok(TexelLayout {
            components,
            bit_depth,
            texel_bytes,
            swap_rb,
        })
    }

    fn channel_bytes(&self) -> u32 {
        if self.bit_depth > 8 {
            2
        } else {
            1
        }
    }
}

/// A texture's samples on the GPU, in the layout the encoder's front end reads.
pub struct TextureImage {
    samples: PooledBuffer,
    /// The texels' copy, which the recorded commands write and read: held until the
    /// image is dropped, so that the pool cannot hand it to other work before the
    /// caller submits them.
    _texels: PooledBuffer,
    pub width: u32,
    pub height: u32,
    pub components: u32,
    pub bit_depth: u32,
}

impl TextureImage {
    /// The image for [`super::encode_gpu_image`] (once the recording encoder is submitted).
    pub fn image(&self) -> GpuImage<'_> {
        GpuImage {
            samples: &self.samples,
            width: self.width,
            height: self.height,
            components: self.components,
            bit_depth: self.bit_depth,
        }
    }

    /// The buffer of samples (u16 interleaved by component, two per word).
    pub fn samples(&self) -> &wgpu::Buffer {
        &self.samples
    }
}

/// Record into `encoder` the copy of `texture` (mip level 0) into a buffer and the unpack
/// of its texels into samples; nothing is submitted. Keep the returned image until the
/// encoder is submitted: it holds the buffers those commands use, which go back to the
/// pool when it is dropped.
pub fn record_texture_samples(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    texture: &wgpu::Texture,
) -> Result<TextureImage> {
    let layout = TexelLayout::of(texture.format())?;
    let size = texture.size();
    if texture.dimension() != wgpu::TextureDimension::D2
        || size.depth_or_array_layers != 1
        || texture.sample_count() != 1
    {
        return Err(Error::InvalidArgument(
            "the encoder reads a 2D texture of one layer and one sample".into(),
        ));
    }
    if !texture.usage().contains(wgpu::TextureUsages::COPY_SRC) {
        return Err(Error::InvalidArgument(
            "the encoder copies the texture: it needs COPY_SRC usage".into(),
        ));
    }
    let (width, height) = (size.width, size.height);
    let bytes_per_row =
        (width * layout.texel_bytes).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let texel_bytes = bytes_per_row as u64 * height as u64;
    let n = width as u64 * height as u64 * layout.components as u64;
    let words = n.div_ceil(2);
    if texel_bytes > gpu.max_binding() || words * 4 > gpu.max_binding() {
        return Err(Error::TooLarge(format!(
            "a {width}x{height} texture does not fit this adapter's storage bindings"
        )));
    }
    let texels = gpu.pooled_buffer(
        texel_bytes,
        wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::STORAGE,
    );
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &texels,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: Some(height),
            },
        },
        size,
    );
    let samples = gpu.pooled_buffer(
        (words * 4).max(4),
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let params = UnpackParams {
        width,
        height,
        components: layout.components,
        texel_bytes: layout.texel_bytes,
        channel_bytes: layout.channel_bytes(),
        bytes_per_row,
        swap_rb: layout.swap_rb as u32,
        words: words as u32,
    };
    let uniforms = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(TEXTURE_SAMPLES.label),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
    let built = gpu.pipeline(&TEXTURE_SAMPLES, "main", &[])?;
    let bind = gpu.bind(
        &built,
        &[
            (0, uniforms.as_entire_buffer_binding()),
            (1, texels.as_entire_buffer_binding()),
            (2, samples.as_entire_buffer_binding()),
        ],
    );
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(TEXTURE_SAMPLES.label),
        timestamp_writes: None,
    });
    pass.set_pipeline(&built.pipeline);
    pass.set_bind_group(0, &bind, &[]);
    pass.dispatch_workgroups(words.div_ceil(64).clamp(1, 65_535) as u32, 1, 1);
    drop(pass);
    Ok(TextureImage {
        samples,
        _texels: texels,
        width,
        height,
        components: layout.components,
        bit_depth: layout.bit_depth,
    })
}

/// The CPU twin: the samples of tightly packed texels (`width * texel_bytes` bytes a row).
pub fn texture_samples_cpu(
    layout: &TexelLayout,
    width: u32,
    height: u32,
    texels: &[u8],
) -> Vec<u16> {
    let (w, c) = (width as usize, layout.components as usize);
    let channel_bytes = layout.channel_bytes() as usize;
    (0..w * height as usize * c)
        .map(|s| {
            let (pixel, comp) = (s / c, s % c);
            let channel = if layout.swap_rb && c == 3 {
                2 - comp
            } else {
                comp
            };
            let at = pixel * layout.texel_bytes as usize + channel * channel_bytes;
            match channel_bytes {
                1 => texels[at] as u16,
                _ => u16::from_le_bytes([texels[at], texels[at + 1]]),
            }
        })
        .collect()
}

/// A texture made from host texels (the stage's upload, for tests and the twin's
/// comparison): its format, size and tightly packed texels.
pub struct HostTexels<'a> {
    pub format: wgpu::TextureFormat,
    pub width: u32,
    pub height: u32,
    pub texels: &'a [u8],
}

/// [`record_texture_samples`] as a [`GpuStage`]: the texture made from host texels,
/// its samples read back.
pub struct TextureSamplesStage<'g> {
    pub gpu: &'g Gpu,
}

impl GpuStage for TextureSamplesStage<'_> {
    type Input<'a> = HostTexels<'a>;
    type Uploaded = wgpu::Texture;
    type Pending = TextureImage;
    type Report = Vec<u16>;
    type Output = Vec<u16>;

    fn gpu(&self) -> &Gpu {
        self.gpu
    }

    fn label(&self) -> &'static str {
        TEXTURE_SAMPLES.label
    }

    async fn upload(&self, input: &Self::Input<'_>) -> Result<wgpu::Texture> {
        let layout = TexelLayout::of(input.format)?;
        let row = (input.width * layout.texel_bytes) as usize;
        if input.texels.len() != row * input.height as usize {
            return Err(Error::InvalidArgument(format!(
                "{} bytes of texels for a {}x{} texture of {:?}",
                input.texels.len(),
                input.width,
                input.height,
                input.format
            )));
        }
        Ok(self.gpu.device.create_texture_with_data(
            &self.gpu.queue,
            &wgpu::TextureDescriptor {
                label: Some(TEXTURE_SAMPLES.label),
                size: wgpu::Extent3d {
                    width: input.width,
                    height: input.height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: input.format,
                usage: wgpu::TextureUsages::COPY_SRC | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            input.texels,
        ))
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        texture: &wgpu::Texture,
    ) -> Result<TextureImage> {
        record_texture_samples(self.gpu, encoder, texture)
    }

    async fn finish(
        &self,
        _input: &Self::Input<'_>,
        _texture: &wgpu::Texture,
        pending: TextureImage,
    ) -> Result<Vec<u16>> {
        let n = pending.width as u64 * pending.height as u64 * pending.components as u64;
        let bytes = self
            .gpu
            .read_buffer(pending.samples(), 0, n.div_ceil(2) * 4)
            .await?;
        let mut samples: Vec<u16> = bytemuck::pod_collect_to_vec(&bytes);
        samples.truncate(n as usize);
        Ok(samples)
    }

    fn output(report: Vec<u16>) -> Vec<u16> {
        report
    }

    fn cpu(&self, input: &Self::Input<'_>) -> Result<Vec<u16>> {
        let layout = TexelLayout::of(input.format)?;
        Ok(texture_samples_cpu(
            &layout,
            input.width,
            input.height,
            input.texels,
        ))
    }
}
