//! What the GPU stages share (shaders/bitstuff/batch.wgsl): a batch of raw segments
//! resident on the GPU, one dispatch per group of segments that fits a storage binding
//! (a workgroup per segment, or an invocation per segment), and the readback into a
//! [`Stuffed`].

use wgpu::util::DeviceExt;

use super::{max_stuffed_bytes, RawBits, Stuffed, Termination};
use crate::gpu::{Gpu, GpuStage, PooledBuffer, Profiler, Stage, Timings};
use crate::{Error, Result};

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/bitstuff/batch.wgsl `Segment`
pub(crate) struct GpuSegment {
    pub in_word: u32,
    pub bits: u32,
    pub out_word: u32,
    pub _pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/bitstuff/batch.wgsl `BatchParams`
pub(crate) struct BatchParams {
    pub n_segments: u32,
    pub grid_x: u32,
    pub predictable: u32,
    pub _pad: u32,
}

/// Default and largest segment the GPU stages take: 4 KiB of raw bits. A code-block's
/// raw SPP+MRP segment holds at most 2 bits per sample (64 x 64: 1 KiB).
pub const DEFAULT_MAX_SEGMENT_BITS: u32 = 32 * 1024;

/// Tuning of the GPU stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitstuffConfig {
    /// Threads per workgroup (a power of two, 32..=1024); one workgroup per segment.
    pub workgroup_size: u32,
    /// Longest segment, in raw bits: a segment lives in workgroup memory, sized by this;
    /// longer ones are refused with an error.
    pub max_segment_bits: u32,
    /// fsm: raw words per invocation per round (1..=8).
    pub fsm_words: u32,
    /// Cap on the input and output bytes of one dispatch (tests force several dispatches
    /// with it); the adapter's binding limit always applies.
    pub max_dispatch_bytes: Option<u64>,
}

impl Default for BitstuffConfig {
    fn default() -> Self {
        BitstuffConfig {
            workgroup_size: 256,
            max_segment_bits: DEFAULT_MAX_SEGMENT_BITS,
            fsm_words: 1,
            max_dispatch_bytes: None,
        }
    }
}

impl BitstuffConfig {
    pub(crate) fn validate(&self) -> Result<()> {
        let wg = self.workgroup_size;
        if !wg.is_power_of_two() || !(32..=1024).contains(&wg) {
            return Err(Error::InvalidArgument(format!(
                "bitstuff: workgroup size must be a power of two in 32..=1024, not {wg}"
            )));
        }
        if self.max_segment_bits == 0 {
            return Err(Error::InvalidArgument(
                "bitstuff: the maximum segment length must be positive".into(),
            ));
        }
        if !(1..=8).contains(&self.fsm_words) {
            return Err(Error::InvalidArgument(format!(
                "bitstuff: fsm words per invocation must be 1..=8, not {}",
                self.fsm_words
            )));
        }
        Ok(())
    }

    /// Words of a segment's raw bits in workgroup memory.
    pub(crate) fn in_words(&self) -> u32 {
        self.max_segment_bits.div_ceil(32)
    }

    /// Words of a segment's output in workgroup memory.
    pub(crate) fn out_words(&self) -> u32 {
        (max_stuffed_bytes(self.max_segment_bits as u64) as u32).div_ceil(4)
    }

    /// Check that a stage needing `bytes` of workgroup memory fits the adapter.
    pub(crate) fn check_workgroup_memory(&self, gpu: &Gpu, stage: &str, bytes: u32) -> Result<()> {
        let limit = gpu.limits.max_compute_workgroup_storage_size;
        if bytes > limit {
            return Err(Error::InvalidArgument(format!(
                "bitstuff {stage}: segments of up to {} bits need {bytes} bytes of workgroup \
                 memory; this adapter has {limit}: lower max_segment_bits",
                self.max_segment_bits
            )));
        }
        Ok(())
    }
}

/// Workgroup memory of common/bitstuff_scan.wgsl (both scans' buffers: a word and a map per
/// invocation) or of its subgroup twin (per subgroup, at most 128).
fn bitstuff_scan_bytes(gpu: &Gpu, config: &BitstuffConfig) -> u32 {
    match gpu.flavour() {
        crate::gpu::Flavour::Workgroup => 12 * config.workgroup_size,
        crate::gpu::Flavour::Subgroup => 12 * 128,
    }
}

/// Workgroup memory of vote or fsm: raw bits, output, common/bitstuff_scan.wgsl, and
/// common/wg_scan.wgsl's buffer.
fn workgroup_bytes(gpu: &Gpu, config: &BitstuffConfig) -> u32 {
    let scan = match gpu.flavour() {
        crate::gpu::Flavour::Workgroup => 4 * 1024,
        crate::gpu::Flavour::Subgroup => 4 * 256,
    };
    4 * (config.in_words() + config.out_words()) + bitstuff_scan_bytes(gpu, config) + scan + 64
}

/// One dispatch's worth of segments, resident on the GPU.
struct Group {
    first: usize,
    segments: Vec<GpuSegment>,
    descriptors: wgpu::Buffer,
    input: PooledBuffer,
    in_words: u64,
    out_words: u64,
}

/// A batch of raw segments on the GPU, ready for either stage.
pub struct GpuBatch {
    groups: Vec<Group>,
    n_segments: usize,
    raw_bits: u64,
    term: Termination,
}

impl GpuBatch {
    /// Copy `segments` to the GPU, checking each (bit count within its data, at most
    /// `config.max_segment_bits`). Segments are grouped so that each group's input and
    /// output fit one storage binding.
    pub fn upload(
        gpu: &Gpu,
        segments: &[RawBits<'_>],
        term: Termination,
        config: &BitstuffConfig,
    ) -> Result<GpuBatch> {
        config.validate()?;
        for (i, s) in segments.iter().enumerate() {
            s.check(i, config.max_segment_bits as u64)?;
        }
        let max_words = (gpu
            .max_binding()
            .min(config.max_dispatch_bytes.unwrap_or(u64::MAX))
            / 4)
        .clamp(1, u32::MAX as u64);
        let mut groups = Vec::new();
        let mut start = 0;
        while start < segments.len() {
            let mut in_words = 0u64;
            let mut out_words = 0u64;
            let mut descs = Vec::new();
            let mut end = start;
            while end < segments.len() {
                let s = &segments[end];
                let w_in = s.bits.div_ceil(32);
                let w_out = max_stuffed_bytes(s.bits).div_ceil(4);
                let full = in_words + w_in > max_words
                    || out_words + w_out > max_words
                    || (descs.len() as u64 + 1) * 16 > gpu.max_binding();
                if full && end > start {
                    break;
                }
                descs.push(GpuSegment {
                    in_word: in_words as u32,
                    bits: s.bits as u32,
                    out_word: out_words as u32,
                    _pad: 0,
                });
                in_words += w_in;
                out_words += w_out;
                end += 1;
            }
            let mut packed = vec![0u8; (in_words.max(1) * 4) as usize];
            for (s, d) in segments[start..end].iter().zip(&descs) {
                let n = s.bits.div_ceil(8) as usize;
                let at = d.in_word as usize * 4;
                packed[at..at + n].copy_from_slice(&s.data[..n]);
                // Bits past the segment's end are zero, though no stage reads them.
                if s.bits % 8 != 0 {
                    packed[at + n - 1] &= 0xFFu8 << (8 - s.bits % 8);
                }
            }
            let input = gpu.pooled_buffer(
                packed.len() as u64,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            );
            gpu.queue.write_buffer(&input, 0, &packed);
            let descriptors = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("parvlc.bitstuff.segments"),
                    contents: bytemuck::cast_slice(&descs),
                    usage: wgpu::BufferUsages::STORAGE,
                });
            groups.push(Group {
                first: start,
                segments: descs,
                descriptors,
                input,
                in_words: in_words.max(1),
                out_words: out_words.max(1),
            });
            start = end;
        }
        Ok(GpuBatch {
            groups,
            n_segments: segments.len(),
            raw_bits: segments.iter().map(|s| s.bits).sum(),
            term,
        })
    }

    pub fn len(&self) -> usize {
        self.n_segments
    }
    pub fn is_empty(&self) -> bool {
        self.n_segments == 0
    }
    /// Raw bits of all segments.
    pub fn raw_bits(&self) -> u64 {
        self.raw_bits
    }
    /// Dispatches the batch takes (one per group).
    pub fn dispatches(&self) -> usize {
        self.groups.len()
    }
}

/// A stage's pipeline and override constants, chosen by vote.rs / fsm.rs / solo.rs.
pub(crate) struct StageRun {
    pub shader: &'static Stage,
    pub constants: Vec<(&'static str, f64)>,
    pub layout: Layout,
}

/// How a stage's grid covers the segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// One workgroup per segment, held in workgroup memory (vote, fsm).
    WorkgroupPerSegment,
    /// One invocation per segment, in registers (solo).
    InvocationPerSegment,
}

struct GroupOut {
    output: PooledBuffer,
    results: PooledBuffer,
}

/// GPU work of one batch in flight: read it back with [`finish`].
pub struct Pending {
    groups: Vec<GroupOut>,
    profiler: Profiler,
    stage: &'static str,
}

impl Pending {
    /// Kernel times (after submission; empty unless profiled).
    pub async fn timings(&self, gpu: &Gpu) -> Result<Timings> {
        self.profiler.timings(gpu).await
    }
}

/// The first `bytes` of a pooled buffer (which may be larger than one binding allows).
fn sized(buffer: &PooledBuffer, bytes: u64) -> wgpu::BufferBinding<'_> {
    wgpu::BufferBinding {
        buffer,
        offset: 0,
        size: wgpu::BufferSize::new(bytes),
    }
}

/// Record one stage over the whole batch into `encoder`; nothing is submitted.
fn encode(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    batch: &GpuBatch,
    config: &BitstuffConfig,
    stuffer: Stuffer,
    profile: bool,
) -> Result<Pending> {
    config.validate()?;
    let (run, label) = (stuffer.run(config), stuffer.name());
    let per_workgroup = match run.layout {
        Layout::WorkgroupPerSegment => {
            config.check_workgroup_memory(gpu, label, workgroup_bytes(gpu, config))?;
            1
        }
        Layout::InvocationPerSegment => config.workgroup_size,
    };
    let built = gpu.pipeline(run.shader, "main", &run.constants)?;
    let storage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let mut profiler = Profiler::new(
        gpu,
        if profile {
            batch.groups.len() as u32
        } else {
            0
        },
    );
    let max_x = gpu.limits.max_compute_workgroups_per_dimension.max(1);
    let mut outs = Vec::with_capacity(batch.groups.len());
    for g in &batch.groups {
        let n = g.segments.len() as u32;
        let workgroups = n.div_ceil(per_workgroup);
        let grid_x = workgroups.min(max_x);
        let grid_y = workgroups.div_ceil(grid_x);
        if grid_y > max_x {
            return Err(Error::TooLarge(format!(
                "bitstuff: {n} segments in one dispatch exceed the adapter's grid"
            )));
        }
        let params = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("parvlc.bitstuff.params"),
                contents: bytemuck::bytes_of(&BatchParams {
                    n_segments: n,
                    grid_x,
                    predictable: (batch.term == Termination::Predictable) as u32,
                    _pad: 0,
                }),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let output = gpu.pooled_buffer(g.out_words * 4, storage);
        let results = gpu.pooled_buffer(n as u64 * 8, storage);
        let bind = gpu.bind(
            &built,
            &[
                (0, params.as_entire_buffer_binding()),
                (1, g.descriptors.as_entire_buffer_binding()),
                (2, sized(&g.input, g.in_words * 4)),
                (3, sized(&output, g.out_words * 4)),
                (4, sized(&results, n as u64 * 8)),
            ],
        );
        let timestamp_writes = profiler.pass(label);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(label),
                timestamp_writes,
            });
            pass.set_pipeline(&built.pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(grid_x, grid_y, 1);
        }
        outs.push(GroupOut { output, results });
    }
    profiler.resolve(encoder);
    Ok(Pending {
        groups: outs,
        profiler,
        stage: run.shader.name,
    })
}

/// Which GPU bit-stuffing stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stuffer {
    /// [`super::vote`]: segmented scan and vote, repeated until no vote changes.
    Vote,
    /// [`super::fsm`]: one scan of composed state maps.
    Fsm,
    /// [`super::solo`]: one invocation per segment, the serial rule in registers.
    Solo,
}

impl Stuffer {
    pub const ALL: [Stuffer; 3] = [Stuffer::Vote, Stuffer::Fsm, Stuffer::Solo];

    /// The stage's name: its shader, Rust file and bench row.
    pub fn name(self) -> &'static str {
        match self {
            Stuffer::Vote => "vote",
            Stuffer::Fsm => "fsm",
            Stuffer::Solo => "solo",
        }
    }

    /// The stage named `name` (as [`Self::name`] gives it).
    pub fn from_name(name: &str) -> Result<Stuffer> {
        Stuffer::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Stuffer::ALL.iter().map(|s| s.name()).collect();
                Error::InvalidArgument(format!(
                    "unknown bitstuff stage `{name}` ({})",
                    names.join(", ")
                ))
            })
    }

    fn run(self, config: &BitstuffConfig) -> StageRun {
        match self {
            Stuffer::Vote => super::vote::stage(config),
            Stuffer::Fsm => super::fsm::stage(config),
            Stuffer::Solo => super::solo::stage(config),
        }
    }

    /// Record this stage over `batch` into `encoder`; nothing is submitted.
    pub fn encode(
        self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        batch: &GpuBatch,
        config: &BitstuffConfig,
        profile: bool,
    ) -> Result<Pending> {
        encode(gpu, encoder, batch, config, self, profile)
    }

    /// Upload `segments`, stuff them with this stage, read them back.
    pub async fn stuff(
        self,
        gpu: &Gpu,
        segments: &[RawBits<'_>],
        term: Termination,
        config: &BitstuffConfig,
    ) -> Result<GpuStuffed> {
        let stage = BitstuffStage {
            gpu,
            stuffer: self,
            term,
            config: *config,
        };
        GpuStage::run(&stage, segments).await
    }
}

/// One bit-stuffing stage on a GPU: raw segments in, stuffed segments out (twin:
/// [`super::serial::stuff_batch`]).
pub struct BitstuffStage<'g> {
    pub gpu: &'g Gpu,
    pub stuffer: Stuffer,
    pub term: Termination,
    pub config: BitstuffConfig,
}

impl GpuStage for BitstuffStage<'_> {
    type Input<'a> = [RawBits<'a>];
    type Uploaded = GpuBatch;
    type Pending = Pending;
    type Report = GpuStuffed;
    type Output = Stuffed;

    fn gpu(&self) -> &Gpu {
        self.gpu
    }

    fn label(&self) -> &'static str {
        self.stuffer.run(&self.config).shader.label
    }

    async fn upload(&self, segments: &Self::Input<'_>) -> Result<GpuBatch> {
        GpuBatch::upload(self.gpu, segments, self.term, &self.config)
    }

    fn encode_into(&self, encoder: &mut wgpu::CommandEncoder, batch: &GpuBatch) -> Result<Pending> {
        self.stuffer
            .encode(self.gpu, encoder, batch, &self.config, false)
    }

    async fn finish(
        &self,
        _segments: &Self::Input<'_>,
        batch: &GpuBatch,
        pending: Pending,
    ) -> Result<GpuStuffed> {
        finish(self.gpu, batch, pending).await
    }

    fn output(report: GpuStuffed) -> Stuffed {
        report.stuffed
    }

    fn cpu(&self, segments: &Self::Input<'_>) -> Result<Stuffed> {
        super::serial::stuff_batch(segments, self.term)
    }
}

/// What a GPU stage returns.
#[derive(Clone, Debug, Default)]
pub struct GpuStuffed {
    pub stuffed: Stuffed,
    /// vote: iterations per segment (summed over its rounds); fsm and solo: zeros.
    pub iterations: Vec<u32>,
    pub timings: Timings,
}

impl GpuStuffed {
    /// Most vote iterations any segment took.
    pub fn max_iterations(&self) -> u32 {
        self.iterations.iter().copied().max().unwrap_or(0)
    }
    /// Mean vote iterations per segment.
    pub fn mean_iterations(&self) -> f64 {
        if self.iterations.is_empty() {
            return 0.0;
        }
        self.iterations.iter().map(|&i| i as f64).sum::<f64>() / self.iterations.len() as f64
    }
}

/// Read back what `encode` produced, after its encoder was submitted.
pub async fn finish(gpu: &Gpu, batch: &GpuBatch, pending: Pending) -> Result<GpuStuffed> {
    let stage = pending.stage;
    let mut stuffed = Stuffed {
        bytes: Vec::new(),
        offsets: vec![0],
    };
    let mut iterations = Vec::with_capacity(batch.n_segments);
    for (g, out) in batch.groups.iter().zip(&pending.groups) {
        let n = g.segments.len();
        let results: Vec<u32> =
            bytemuck::pod_collect_to_vec(&gpu.read_buffer(&out.results, 0, n as u64 * 8).await?);
        let bytes = gpu.read_buffer(&out.output, 0, g.out_words * 4).await?;
        for (i, d) in g.segments.iter().enumerate() {
            let len = results[2 * i] as u64;
            if len > max_stuffed_bytes(d.bits as u64) {
                return Err(Error::Gpu {
                    stage,
                    message: format!(
                        "segment {} reports {len} bytes from {} raw bits",
                        g.first + i,
                        d.bits
                    ),
                });
            }
            let at = d.out_word as usize * 4;
            stuffed
                .bytes
                .extend_from_slice(&bytes[at..at + len as usize]);
            stuffed.offsets.push(stuffed.bytes.len());
            iterations.push(results[2 * i + 1]);
        }
    }
    let timings = pending.profiler.timings(gpu).await?;
    Ok(GpuStuffed {
        stuffed,
        iterations,
        timings,
    })
}
