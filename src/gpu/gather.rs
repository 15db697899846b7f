//! Many small ranges of GPU buffers read back as one copy: the `gather` stage
//! (shaders/gpu/gather.wgsl) packs them into one buffer on the GPU first. A picture's
//! code-blocks are thousands of ranges (6,321 for a 4K RGB picture), and a copy command
//! each kept the GPU busy about 10 ms before the readback could map. CPU twin:
//! [`gather_cpu`].

use wgpu::util::DeviceExt;

use super::registry::gpu::GATHER;
use super::{Gpu, GpuStage, PipelineKey, PooledBuffer, RecordedReads};
use crate::{Error, Result};

/// The stage's pipeline, for [`Gpu::build_ahead`].
pub(crate) fn pipeline() -> PipelineKey {
    (&GATHER, "main", vec![("WG_SIZE", WG_SIZE as f64)])
}

/// Invocations of a workgroup, which share a span's words.
const WG_SIZE: u32 = 64;

/// A span of the source's words and where it lands in the packed buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/gpu/gather.wgsl `Span`
pub struct GatherSpan {
    pub src_word: u32,
    pub dst_word: u32,
    pub words: u32,
    pub pad: u32,
}

/// What the stage takes: the source's words and the spans to pack, each as (first word,
/// words), packed in this order.
#[derive(Clone, Copy, Debug)]
pub struct GatherInput<'a> {
    pub source: &'a [u32],
    pub spans: &'a [(u32, u32)],
}

/// The CPU twin: the spans' words, one after the other.
pub fn gather_cpu(input: &GatherInput<'_>) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    for &(at, words) in input.spans {
        let span = input
            .source
            .get(at as usize..at as usize + words as usize)
            .ok_or_else(|| outside(at as u64, words as u64, input.source.len() as u64))?;
        out.extend_from_slice(span);
    }
    Ok(out)
}

fn outside(at: u64, words: u64, len: u64) -> Error {
    Error::InvalidArgument(format!(
        "a gather span of {words} words at word {at} lies outside its {len}-word buffer"
    ))
}

/// Record the packing of `spans` (first word, words) of `source` into a new buffer,
/// returned with its length in bytes; None when the spans hold no words. `source` needs
/// STORAGE usage and must fit one storage binding, as must the packed words.
pub(crate) fn record_gather(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    source: &wgpu::Buffer,
    spans: &[(u64, u64)],
) -> Result<Option<(PooledBuffer, u64)>> {
    let source_words = source.size() / 4;
    let mut packed_words = 0u64;
    let mut placed = Vec::with_capacity(spans.len());
    for &(at, words) in spans {
        if at + words > source_words {
            return Err(outside(at, words, source_words));
        }
        if words > 0 {
            placed.push(GatherSpan {
                src_word: at as u32,
                dst_word: packed_words as u32,
                words: words as u32,
                pad: 0,
            });
        }
        packed_words += words;
    }
    if placed.is_empty() {
        return Ok(None);
    }
    let max = gpu.max_binding();
    if !source.usage().contains(wgpu::BufferUsages::STORAGE)
        || source.size() > max
        || packed_words * 4 > max
    {
        return Err(Error::InvalidArgument(format!(
            "gather of {} bytes from a {}-byte buffer: needs a storage buffer and both within one binding ({max} bytes)",
            packed_words * 4,
            source.size()
        )));
    }
    let packed = gpu.pooled_buffer(
        packed_words * 4,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let spans_buffer = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("parvlc.gpu.gather.spans"),
            contents: bytemuck::cast_slice(&placed),
            usage: wgpu::BufferUsages::STORAGE,
        });
    let (stage, entry, constants) = pipeline();
    let built = gpu.pipeline(stage, entry, &constants)?;
    let bind = gpu.bind(
        &built,
        &[
            (0, spans_buffer.as_entire_buffer_binding()),
            (1, source.as_entire_buffer_binding()),
            (
                2,
                wgpu::BufferBinding {
                    buffer: &packed,
                    offset: 0,
                    size: wgpu::BufferSize::new(packed_words * 4),
                },
            ),
        ],
    );
    let groups = (placed.len() as u32).min(gpu.limits.max_compute_workgroups_per_dimension);
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(GATHER.label),
        timestamp_writes: None,
    });
    pass.set_pipeline(&built.pipeline);
    pass.set_bind_group(0, &bind, &[]);
    pass.dispatch_workgroups(groups, 1, 1);
    drop(pass);
    Ok(Some((packed, packed_words * 4)))
}

impl Gpu {
    /// [`Self::read_buffers`] for many small ranges: the ranges are packed on the GPU
    /// (one dispatch per run of ranges of one buffer) and come back in one copy, however
    /// many they are. Offsets and lengths are multiples of 4, as for
    /// [`Self::read_buffers`]; ranges of a buffer it cannot bind (without STORAGE usage,
    /// or larger than one binding) are read with plain copies, as that reads them.
    pub async fn read_gathered(
        &self,
        ranges: &[(&wgpu::Buffer, u64, u64)],
    ) -> Result<Vec<Vec<u8>>> {
        let reads = self.submit_gathered(ranges)?;
        self.read_recorded(reads).await
    }

    /// The first half of [`Self::read_gathered`]: the ranges packed and their copy back
    /// submitted. Read them with [`Self::read_recorded`] or, to use them where they are
    /// mapped, [`Self::read_recorded_with`]; the host may work meanwhile.
    pub(crate) fn submit_gathered(
        &self,
        ranges: &[(&wgpu::Buffer, u64, u64)],
    ) -> Result<RecordedReads> {
        let max = self.max_binding();
        let packable = ranges.iter().all(|(buffer, offset, len)| {
            offset % 4 == 0
                && len % 4 == 0
                && buffer.usage().contains(wgpu::BufferUsages::STORAGE)
                && buffer.size() <= max
        });
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(GATHER.label),
            });
        if !packable {
            let reads = self.record_reads(&mut encoder, ranges);
            self.queue.submit([encoder.finish()]);
            return Ok(reads);
        }
        // Runs of ranges of one buffer whose packed bytes fit one binding.
        let mut packed = Vec::new();
        let mut start = 0;
        while start < ranges.len() {
            let buffer = ranges[start].0;
            let (mut end, mut bytes) = (start, 0u64);
            while end < ranges.len()
                && ranges[end].0 == buffer
                && (end == start || bytes + ranges[end].2 <= max)
            {
                bytes += ranges[end].2;
                end += 1;
            }
            let spans: Vec<(u64, u64)> = ranges[start..end]
                .iter()
                .map(|&(_, offset, len)| (offset / 4, len / 4))
                .collect();
            packed.extend(record_gather(self, &mut encoder, buffer, &spans)?);
            start = end;
        }
        let whole: Vec<(&wgpu::Buffer, u64, u64)> =
            packed.iter().map(|(b, len)| (&**b, 0, *len)).collect();
        let reads = self
            .record_reads(&mut encoder, &whole)
            .split_as(ranges.iter().map(|r| r.2).collect())?;
        self.queue.submit([encoder.finish()]);
        // The packed buffers stay out of the pool until their copies are submitted.
        drop(packed);
        self.check_errors(GATHER.name)?;
        Ok(reads)
    }
}

/// The gather stage on host words, for tests and benches: the source uploaded, the spans
/// packed and read back.
pub struct GatherStage<'g>(pub &'g Gpu);

/// A [`GatherInput`] on the GPU: the source's words, and its spans in words.
pub struct GatherUpload {
    source: wgpu::Buffer,
    spans: Vec<(u64, u64)>,
}

/// Recorded packing, read back by [`GpuStage::finish`]; none for spans of no words.
pub struct GatherPending(Option<RecordedReads>);

impl GpuStage for GatherStage<'_> {
    type Input<'a> = GatherInput<'a>;
    type Uploaded = GatherUpload;
    type Pending = GatherPending;
    type Report = Vec<u32>;
    type Output = Vec<u32>;

    fn gpu(&self) -> &Gpu {
        self.0
    }

    fn label(&self) -> &'static str {
        GATHER.label
    }

    async fn upload(&self, input: &Self::Input<'_>) -> Result<GatherUpload> {
        // A storage binding holds a word at least.
        let words: &[u32] = if input.source.is_empty() {
            &[0]
        } else {
            input.source
        };
        let source = self
            .0
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("parvlc.gpu.gather.source"),
                contents: bytemuck::cast_slice(words),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            });
        let len = input.source.len() as u64;
        let mut spans = Vec::with_capacity(input.spans.len());
        for &(at, words) in input.spans {
            let (at, words) = (at as u64, words as u64);
            if at + words > len {
                return Err(outside(at, words, len));
            }
            spans.push((at, words));
        }
        Ok(GatherUpload { source, spans })
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        uploaded: &GatherUpload,
    ) -> Result<GatherPending> {
        Ok(GatherPending(
            record_gather(self.0, encoder, &uploaded.source, &uploaded.spans)?
                .map(|(packed, len)| self.0.record_reads(encoder, &[(&packed, 0, len)])),
        ))
    }

    async fn finish(
        &self,
        _input: &Self::Input<'_>,
        _uploaded: &GatherUpload,
        pending: GatherPending,
    ) -> Result<Vec<u32>> {
        let Some(reads) = pending.0 else {
            return Ok(Vec::new());
        };
        let parts = self.0.read_recorded(reads).await?;
        Ok(bytemuck::pod_collect_to_vec(&parts.concat()))
    }

    fn output(report: Vec<u32>) -> Vec<u32> {
        report
    }

    fn cpu(&self, input: &Self::Input<'_>) -> Result<Vec<u32>> {
        gather_cpu(input)
    }
}
