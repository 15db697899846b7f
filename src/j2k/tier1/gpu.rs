//! EBCOT tier-1 on the GPU (shaders/j2k/tier1.wgsl): many code-blocks per dispatch, one
//! workgroup per code-block, byte for byte the CPU twin [`crate::j2k::tier1::encode_code_block`].
//!
//! The kernel is the fast-mode paper's one-kernel strategy (Algorithm 1): stripe-column
//! parallel context modelling, raw SPP/MRP bits placed by a workgroup scan and bit-stuffed
//! in parallel, MQ-coded passes coded by one invocation from the context-decision pairs
//! the others produced. With `bypass_from: None` the same kernel MQ-codes every pass:
//! that is the all-MQ baseline the fast mode is measured against.
//! [`Tier1Strategy::ThreeKernel`] (shaders/j2k/tier1_split.wgsl) is the paper's other
//! organisation, for many code-blocks at once: per bit-plane a context-modelling, a
//! raw-pass and an MQ kernel over all blocks, state in global memory; same bytes.
//!
//! Output room: each code-block gets a region sized from its bit-planes; the kernel
//! counts a block's true length even when it outgrows its region (it then writes
//! nothing past it), so such a block is encoded again with exactly the room it needs.
//!
//! Three names, three jobs:
//! - [`Tier1Kernels`], the kernel driver: uploads code-blocks, records the kernels into a
//!   command encoder, reads the coded blocks back; it holds no GPU of its own.
//! - [`Tier1Stage`], the driver on one GPU with its coding options, as a
//!   [`GpuStage`] (CPU twin: [`super::encode_code_blocks_serial`]).
//! - [`Tier1GpuEngine`], the encoder's GPU tier-1: owns the GPU and a driver, and codes a
//!   whole image, the front end included.

use super::{BandOrientation, CodeBlockCoded, CodeBlockInput, Tier1Options};
use crate::gpu::registry::j2k::{TIER1, TIER1_SPLIT};
use crate::gpu::{Gpu, GpuStage, PipelineKey, PooledBuffer, Profiler};
use crate::j2k::CodeBlockJob;
use crate::{Error, Result};

mod engine;
mod readback;
mod resident;

pub use engine::{inputs_of, Tier1GpuEngine};

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/j2k/tier1.wgsl `Tier1Params`
struct Tier1Params {
    n_blocks: u32,
    bypass_from: u32,
    plane: u32,
    pad1: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/j2k/tier1.wgsl `BlockDesc`
struct BlockDesc {
    coeff_offset: u32,
    width: u32,
    height: u32,
    orient: u32,
    out_word: u32,
    cap_words: u32,
    result: u32,
    pad: u32,
}

/// Result record per block (keep in sync with shaders/j2k/tier1.wgsl `results`): bytes,
/// bit-planes, passes, then one word per pass.
const RESULT_HEAD: usize = 3;
/// 32 bit-planes at most (|i32::MIN| = 2^31): 3 * 32 - 2 passes.
const MAX_PASSES: usize = 94;
const RESULT_STRIDE: usize = RESULT_HEAD + MAX_PASSES;
const PASS_RATE: u32 = 0x3FFF_FFFF;
const PASS_MQ_OPEN: u32 = 0x4000_0000;
const PASS_TERM: u32 = 0x8000_0000;
/// Stripe columns of the largest code-block (64x64, 1024x4, 4x1024): what the kernel keeps
/// state for (keep in sync with shaders/j2k/t1_model.wgsl `MAP_WORDS`, 4-bit nibbles).
const MAX_STRIPE_COLUMNS: usize = 1024;
/// Largest stripe-column count per invocation the kernel holds (shaders `MAX_CPI`).
const MAX_CPI: u32 = 8;

/// Per-block state and scratch words of the three-kernel strategy (keep in sync with
/// shaders/j2k/tier1_split.wgsl `STATE_WORDS`, `SCRATCH_WORDS`).
const SPLIT_STATE_WORDS: u64 = 176;
const SPLIT_SCRATCH_WORDS: u64 = 3073;
/// Code-blocks per workgroup of the split strategy's MQ kernel (one invocation each). A
/// warp runs its coders' branches in lockstep and waits for its longest block, so fewer
/// coders a warp run faster while blocks are few: on the H200 a 4K picture's fast-mode
/// tier-1 took 25.8 ms of GPU time with 64 or 32, 24.4 with 16, 23.0 with 8, 22.1 with
/// 4 and 21.5 with 2 (2K: 17.5, 16.2, 14.7, 13.2, 11.9), and thirty 4K frames took
/// 1.46-1.55 s with 4 against 1.51-1.54 with 8 and 1.45-1.53 with 2 (docs/results.md,
/// "Fourteenth pass"). 4, not 2: each workgroup takes a warp, and an SM holds at most
/// 32 of them, so 2 would take twice the waves of 4 on pictures with more blocks than
/// 4K (not measured).
const SPLIT_MQ_WG: u32 = 4;
/// Raw segment room of common/bitstuff_wg.wgsl: at most 2 bits per sample of 4096, which
/// stuffing turns into at most ceil(8192 / 7) bytes.
const BS_IN_WORDS: f64 = 257.0;
const BS_OUT_WORDS: f64 = 296.0;

/// How the GPU tier-1 is organised in kernels (the fast-mode paper's strategies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier1Strategy {
    /// One kernel codes each code-block from start to end (the paper's choice for single
    /// images).
    OneKernel,
    /// Per bit-plane, three kernels over all code-blocks: context modelling, raw passes,
    /// MQ passes (the paper's choice for many frames at once); state in global memory.
    ThreeKernel,
    /// Three kernels for a dispatch of at least [`Tier1GpuConfig::auto_split_blocks`]
    /// code-blocks, one kernel for fewer: the three-kernel strategy's MQ kernel is one
    /// invocation per block, which few blocks leave idle.
    Auto,
}

/// Where `Auto` turns to three kernels. On the H200 (fast mode, GPU time;
/// docs/results.md, "Fourteenth pass"): 1,812 code-blocks (2048x1080 RGB) took 10.5 ms
/// in one kernel and 13.3 in three; 2,913 (2560x1440) 16.6 and 15.6; 4,074 (3072x1728)
/// 23.2 and 17.7; 6,708 (4096x2160) 37.9 and 22.2. The ratio crosses 1 near 2,700.
pub const AUTO_SPLIT_BLOCKS: u32 = 2_700;

/// GPU tier-1 tuning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tier1GpuConfig {
    /// Invocations per workgroup (one workgroup per code-block): 32..=256, a power of two.
    pub workgroup_size: u32,
    /// Output room per code-block in bytes; None sizes it from the block's bit-planes.
    /// Tests force a small room to prove the re-encode of blocks that outgrow it.
    pub block_capacity: Option<u32>,
    pub strategy: Tier1Strategy,
    /// With [`Tier1Strategy::Auto`]: dispatches of at least this many code-blocks take
    /// three kernels ([`AUTO_SPLIT_BLOCKS`]; tests lower it to prove both sides).
    pub auto_split_blocks: u32,
}

/// The strategy chosen by the dispatch's size ([`Tier1Strategy::Auto`]), as the CLI.
impl Default for Tier1GpuConfig {
    fn default() -> Self {
        Tier1GpuConfig {
            workgroup_size: 256,
            block_capacity: None,
            strategy: Tier1Strategy::Auto,
            auto_split_blocks: AUTO_SPLIT_BLOCKS,
        }
    }
}

impl Tier1GpuConfig {
    /// Whether a dispatch of `blocks` code-blocks takes the three-kernel strategy.
    pub fn splits(&self, blocks: usize) -> bool {
        match self.strategy {
            Tier1Strategy::OneKernel => false,
            Tier1Strategy::ThreeKernel => true,
            Tier1Strategy::Auto => blocks >= self.auto_split_blocks as usize,
        }
    }

    fn validate(&self) -> Result<()> {
        let wg = self.workgroup_size;
        if !wg.is_power_of_two() || !(32..=256).contains(&wg) {
            return Err(Error::InvalidArgument(format!(
                "tier-1 workgroup size must be a power of two in 32..=256, not {wg}"
            )));
        }
        if wg * MAX_CPI < MAX_STRIPE_COLUMNS as u32 {
            return Err(Error::InvalidArgument(format!(
                "tier-1 workgroup size {wg} cannot cover a 64x64 code-block ({MAX_STRIPE_COLUMNS} \
                 stripe columns, at most {MAX_CPI} per invocation)"
            )));
        }
        Ok(())
    }
}

/// The tier-1 kernel driver: pipelines are built on first use and cached by the [`Gpu`].
pub struct Tier1Kernels {
    config: Tier1GpuConfig,
}

/// Code-blocks resident on the GPU with their planned output regions: encode them with
/// [`Tier1Kernels::encode_into`] (as often as wanted), read them with [`Tier1Kernels::finish`].
pub struct Tier1Batch {
    dispatches: Vec<Dispatch>,
    /// Per block: (dispatch, index in it).
    at: Vec<(usize, usize)>,
    bypass_from: u32,
}

struct Dispatch {
    params: PooledBuffer,
    descs: PooledBuffer,
    coeffs: PooledBuffer,
    output: PooledBuffer,
    results: PooledBuffer,
    blocks: Vec<BlockDesc>,
    cpi: u32,
    /// Bit-planes of the deepest block (three-kernel strategy: dispatches per plane).
    planes: u32,
    /// Three-kernel strategy: per-block state and scratch, and one uniform per bit-plane.
    /// They live as long as the batch: a pooled buffer dropped before the submission
    /// could be taken and rewritten by another caller of the same `Gpu` first.
    split: Option<SplitBuffers>,
}

struct SplitBuffers {
    state: PooledBuffer,
    scratch: PooledBuffer,
    plane_params: Vec<PooledBuffer>,
}

fn orient_index(band: BandOrientation) -> u32 {
    match band {
        BandOrientation::LL => 0,
        BandOrientation::HL => 1,
        BandOrientation::LH => 2,
        BandOrientation::HH => 3,
    }
}

/// A code-block's shape against the standard's limits and the GPU coder's: its state
/// holds 1024 stripe columns (shaders/j2k/t1_model.wgsl), which every code-block of
/// power-of-two nominal sides within the standard's limits fits.
fn check_shape(i: usize, w: usize, h: usize) -> Result<()> {
    if w == 0 || h == 0 || w > 1024 || h > 1024 || w * h > 4096 {
        return Err(Error::InvalidArgument(format!(
            "tier-1: code-block {i} of {w}x{h} is outside the standard's limits \
             (sides 1..=1024, area <= 4096)"
        )));
    }
    let columns = w * h.div_ceil(4);
    if columns > MAX_STRIPE_COLUMNS {
        return Err(Error::InvalidArgument(format!(
            "tier-1: code-block {i} of {w}x{h} has {columns} stripe columns; the GPU coder \
             holds {MAX_STRIPE_COLUMNS} (code-blocks of power-of-two sides never have more)"
        )));
    }
    Ok(())
}

fn check_job(i: usize, job: &CodeBlockInput<'_>) -> Result<()> {
    let (w, h) = (job.width, job.height);
    check_shape(i, w, h)?;
    if job.coeffs.len() != w * h {
        return Err(Error::InvalidArgument(format!(
            "tier-1: code-block {i} has {} coefficients for {w}x{h}",
            job.coeffs.len()
        )));
    }
    Ok(())
}

fn stripe_columns(job: &CodeBlockInput<'_>) -> usize {
    job.width * job.height.div_ceil(4)
}

/// Room for a block: a bit per sample and bit-plane, two more for signs and run symbols,
/// a quarter on top for MQ passes that expand, and a little for terminations.
fn bit_planes(job: &CodeBlockInput<'_>) -> u32 {
    let max = job
        .coeffs
        .iter()
        .map(|c| c.unsigned_abs())
        .max()
        .unwrap_or(0);
    32 - max.leading_zeros()
}

fn planned_capacity(job: &CodeBlockInput<'_>) -> u32 {
    capacity_for(job.width * job.height, bit_planes(job))
}

fn capacity_for(samples: usize, planes: u32) -> u32 {
    let planes = planes as usize;
    let bytes = (samples * (planes + 2)).div_ceil(8);
    (bytes + bytes / 4 + 64).next_multiple_of(4) as u32
}

fn bypass_word(opts: &Tier1Options) -> Result<u32> {
    match opts.bypass_from {
        None => Ok(0),
        Some(0) => Err(Error::InvalidArgument(
            "tier-1: bypass_from counts bit-planes from 1 (Part 1 uses 5); 0 is not valid".into(),
        )),
        Some(k) => Ok(k),
    }
}

impl Tier1Kernels {
    pub fn new(gpu: &Gpu) -> Result<Tier1Kernels> {
        Self::with_config(gpu, Tier1GpuConfig::default())
    }

    /// Builds the pipelines for 64x64 code-blocks up front (with `Auto`, when a dispatch
    /// first needs them).
    pub fn with_config(gpu: &Gpu, config: Tier1GpuConfig) -> Result<Tier1Kernels> {
        config.validate()?;
        let t = Tier1Kernels { config };
        t.warm(gpu, t.cpi_for(MAX_STRIPE_COLUMNS))?;
        Ok(t)
    }

    pub fn config(&self) -> &Tier1GpuConfig {
        &self.config
    }

    fn cpi_for(&self, columns: usize) -> u32 {
        (columns as u32)
            .div_ceil(self.config.workgroup_size)
            .clamp(1, MAX_CPI)
    }

    fn constants(&self, cpi: u32) -> [(&'static str, f64); 4] {
        [
            ("WG_SIZE", self.config.workgroup_size as f64),
            ("CPI", cpi as f64),
            ("BS_IN_WORDS", BS_IN_WORDS),
            ("BS_OUT_WORDS", BS_OUT_WORDS),
        ]
    }

    fn mq_constants() -> [(&'static str, f64); 2] {
        [
            ("MQ_WG", SPLIT_MQ_WG as f64),
            ("MQ_CTX_WORDS", (19 * SPLIT_MQ_WG) as f64),
        ]
    }

    /// Build the pipelines of the configured strategy for `cpi`. `Auto` builds none: which
    /// strategy a dispatch takes is known from its blocks, and its pipelines are built
    /// when it first records (up front, a small picture's first run would compile the
    /// three kernels it never uses).
    fn warm(&self, gpu: &Gpu, cpi: u32) -> Result<()> {
        let split = match self.config.strategy {
            Tier1Strategy::Auto => return Ok(()),
            Tier1Strategy::OneKernel => false,
            Tier1Strategy::ThreeKernel => true,
        };
        for (stage, entry, constants) in self.pipelines(split, cpi) {
            gpu.pipeline(stage, entry, &constants)?;
        }
        Ok(())
    }

    /// The pipelines of one strategy (`split`: the three-kernel one) at `cpi`.
    fn pipelines(&self, split: bool, cpi: u32) -> Vec<PipelineKey> {
        let model = self.constants(cpi).to_vec();
        match split {
            true => vec![
                (&TIER1_SPLIT, "cm", model.clone()),
                (&TIER1_SPLIT, "raw", model),
                (&TIER1_SPLIT, "mq", Self::mq_constants().to_vec()),
            ],
            false => vec![(&TIER1, "main", model)],
        }
    }

    /// The pipelines a resident batch of `jobs` records ([`Tier1Kernels::upload_resident`]),
    /// for [`Gpu::build_ahead`].
    pub(crate) fn pipelines_for(&self, jobs: &[CodeBlockJob]) -> Vec<PipelineKey> {
        self.pipelines(self.config.splits(jobs.len()), self.resident_cpi(jobs))
    }

    /// Columns per invocation for a resident batch of `jobs`: its widest block's.
    fn resident_cpi(&self, jobs: &[CodeBlockJob]) -> u32 {
        self.cpi_for(
            jobs.iter()
                .map(|j| j.width * j.height.div_ceil(4))
                .max()
                .unwrap_or(1),
        )
    }

    /// Copy the code-blocks to the GPU and plan their output regions. Dispatches are
    /// split so that every buffer fits one storage binding.
    pub fn upload(
        &self,
        gpu: &Gpu,
        blocks: &[CodeBlockInput<'_>],
        opts: &Tier1Options,
    ) -> Result<Tier1Batch> {
        let capacities: Vec<u32> = blocks
            .iter()
            .map(|b| {
                self.config
                    .block_capacity
                    .unwrap_or_else(|| planned_capacity(b))
            })
            .collect();
        self.upload_with(gpu, blocks, &capacities, opts)
    }

    fn upload_with(
        &self,
        gpu: &Gpu,
        blocks: &[CodeBlockInput<'_>],
        capacities: &[u32],
        opts: &Tier1Options,
    ) -> Result<Tier1Batch> {
        let bypass_from = bypass_word(opts)?;
        for (i, b) in blocks.iter().enumerate() {
            check_job(i, b)?;
        }
        let max_binding = gpu.max_binding().min(u32::MAX as u64 / 2);
        let mut dispatches = Vec::new();
        let mut at = Vec::with_capacity(blocks.len());
        let mut start = 0usize;
        while start < blocks.len() {
            // As many blocks as fit one binding of coefficients, output and results.
            let (mut coeff_bytes, mut out_bytes, mut end) = (0u64, 0u64, start);
            while end < blocks.len() {
                let c = blocks[end].coeffs.len() as u64 * 4;
                let scratch = ((end - start + 1) as u64) * SPLIT_SCRATCH_WORDS * 4;
                let o = capacities[end].next_multiple_of(4) as u64;
                let r = ((end - start + 1) * RESULT_STRIDE * 4) as u64;
                if end > start
                    && (coeff_bytes + c > max_binding
                        || out_bytes + o > max_binding
                        || r > max_binding
                        || (self.config.strategy != Tier1Strategy::OneKernel
                            && scratch > max_binding))
                {
                    break;
                }
                coeff_bytes += c;
                out_bytes += o;
                end += 1;
            }
            if out_bytes > max_binding || coeff_bytes > max_binding {
                return Err(Error::TooLarge(format!(
                    "tier-1: code-block {start} needs {out_bytes} output bytes, more than one \
                     storage binding ({max_binding} bytes)"
                )));
            }
            let slice = &blocks[start..end];
            let mut coeffs: Vec<i32> = Vec::with_capacity((coeff_bytes / 4) as usize);
            let mut descs = Vec::with_capacity(slice.len());
            let mut out_word = 0u64;
            for (j, b) in slice.iter().enumerate() {
                let cap_words = capacities[start + j].div_ceil(4);
                descs.push(BlockDesc {
                    coeff_offset: coeffs.len() as u32,
                    width: b.width as u32,
                    height: b.height as u32,
                    orient: orient_index(b.band),
                    out_word: out_word as u32,
                    cap_words,
                    result: (j * RESULT_STRIDE) as u32,
                    pad: 0,
                });
                coeffs.extend_from_slice(b.coeffs);
                out_word += cap_words as u64;
                at.push((dispatches.len(), j));
            }
            let cpi = self.cpi_for(slice.iter().map(stripe_columns).max().unwrap_or(1));
            let planes = slice.iter().map(bit_planes).max().unwrap_or(0);
            let coeff_buf = gpu.pooled_buffer(
                (coeffs.len() as u64 * 4).max(16),
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            );
            if !coeffs.is_empty() {
                gpu.queue
                    .write_buffer(&coeff_buf, 0, bytemuck::cast_slice(&coeffs));
            }
            dispatches.push(self.make_dispatch(
                gpu,
                descs,
                coeff_buf,
                out_word,
                bypass_from,
                (cpi, planes),
            ));
            start = end;
        }
        Ok(Tier1Batch {
            dispatches,
            at,
            bypass_from,
        })
    }

    fn make_dispatch(
        &self,
        gpu: &Gpu,
        blocks: Vec<BlockDesc>,
        coeff_buf: PooledBuffer,
        out_words: u64,
        bypass_from: u32,
        (cpi, planes): (u32, u32),
    ) -> Dispatch {
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let params = gpu.pooled_buffer(
            16,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        gpu.queue.write_buffer(
            &params,
            0,
            bytemuck::bytes_of(&Tier1Params {
                n_blocks: blocks.len() as u32,
                bypass_from,
                plane: 0,
                pad1: 0,
            }),
        );
        let descs = gpu.pooled_buffer((blocks.len() * 32) as u64, storage);
        gpu.queue
            .write_buffer(&descs, 0, bytemuck::cast_slice(&blocks));
        let output = gpu.pooled_buffer(
            (out_words * 4).max(16),
            storage | wgpu::BufferUsages::COPY_SRC,
        );
        let results = gpu.pooled_buffer(
            (blocks.len() * RESULT_STRIDE * 4) as u64,
            storage | wgpu::BufferUsages::COPY_SRC,
        );
        let split = self.config.splits(blocks.len()).then(|| {
            let n = blocks.len() as u64;
            // One uniform per plane: the plane is all that differs.
            let plane_params = (1..=planes.max(1))
                .map(|plane| {
                    let buf = gpu.pooled_buffer(
                        16,
                        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    );
                    gpu.queue.write_buffer(
                        &buf,
                        0,
                        bytemuck::bytes_of(&Tier1Params {
                            n_blocks: n as u32,
                            bypass_from,
                            plane,
                            pad1: 0,
                        }),
                    );
                    buf
                })
                .collect();
            SplitBuffers {
                state: gpu.pooled_buffer(n * SPLIT_STATE_WORDS * 4, storage),
                scratch: gpu.pooled_buffer(n * SPLIT_SCRATCH_WORDS * 4, storage),
                plane_params,
            }
        });
        Dispatch {
            params,
            descs,
            coeffs: coeff_buf,
            output,
            results,
            blocks,
            cpi,
            planes,
            split,
        }
    }

    /// Record the tier-1 of every block of `batch` into `encoder` (nothing submitted).
    pub fn encode_into(
        &self,
        gpu: &Gpu,
        batch: &Tier1Batch,
        encoder: &mut wgpu::CommandEncoder,
        mut profiler: Option<&mut Profiler>,
    ) -> Result<()> {
        let max_groups = gpu.limits.max_compute_workgroups_per_dimension.max(1);
        for d in &batch.dispatches {
            if d.split.is_some() {
                self.encode_split(gpu, d, batch.bypass_from, encoder, profiler.as_deref_mut())?;
                continue;
            }
            let built = gpu.pipeline(&TIER1, "main", &self.constants(d.cpi))?;
            let bind = gpu.bind(
                &built,
                &[
                    (0, d.params.as_entire_buffer_binding()),
                    (1, d.descs.as_entire_buffer_binding()),
                    (2, d.coeffs.as_entire_buffer_binding()),
                    (3, d.output.as_entire_buffer_binding()),
                    (4, d.results.as_entire_buffer_binding()),
                ],
            );
            let timestamp_writes = profiler.as_deref_mut().and_then(|p| p.pass("tier1"));
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(TIER1.label),
                timestamp_writes,
            });
            pass.set_pipeline(&built.pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups((d.blocks.len() as u32).min(max_groups), 1, 1);
        }
        gpu.check_errors(TIER1.name)
    }

    /// The three-kernel strategy: per bit-plane, context modelling, raw passes and MQ
    /// passes over all blocks of the dispatch, one compute pass (timed as one) in all.
    fn encode_split(
        &self,
        gpu: &Gpu,
        d: &Dispatch,
        bypass_from: u32,
        encoder: &mut wgpu::CommandEncoder,
        profiler: Option<&mut Profiler>,
    ) -> Result<()> {
        let Some(SplitBuffers {
            state,
            scratch,
            plane_params,
        }) = &d.split
        else {
            return Ok(());
        };
        let cm = gpu.pipeline(&TIER1_SPLIT, "cm", &self.constants(d.cpi))?;
        let raw = gpu.pipeline(&TIER1_SPLIT, "raw", &self.constants(d.cpi))?;
        let mq = gpu.pipeline(&TIER1_SPLIT, "mq", &Self::mq_constants())?;
        let n = d.blocks.len() as u32;
        let max_groups = gpu.limits.max_compute_workgroups_per_dimension.max(1);
        let groups = n.min(max_groups);
        let mq_groups = n.div_ceil(SPLIT_MQ_WG);
        let (mq_x, mq_y) = if mq_groups <= max_groups {
            (mq_groups, 1)
        } else {
            (max_groups, mq_groups.div_ceil(max_groups))
        };
        let planes = d.planes.max(1);
        let mut binds = Vec::with_capacity(planes as usize);
        for params in plane_params {
            let entries = [
                (0, params.as_entire_buffer_binding()),
                (1, d.descs.as_entire_buffer_binding()),
                (2, d.coeffs.as_entire_buffer_binding()),
                (3, d.output.as_entire_buffer_binding()),
                (4, d.results.as_entire_buffer_binding()),
                (5, state.as_entire_buffer_binding()),
                (6, scratch.as_entire_buffer_binding()),
            ];
            binds.push((
                gpu.bind(&cm, &entries),
                gpu.bind(&raw, &entries),
                gpu.bind(&mq, &entries),
            ));
        }
        let timestamp_writes = profiler.and_then(|p| p.pass("tier1"));
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(TIER1_SPLIT.label),
            timestamp_writes,
        });
        for (plane, (b_cm, b_raw, b_mq)) in (1..=planes).zip(&binds) {
            pass.set_pipeline(&cm.pipeline);
            pass.set_bind_group(0, b_cm, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
            if bypass_from != 0 && plane > 1 && plane >= bypass_from {
                pass.set_pipeline(&raw.pipeline);
                pass.set_bind_group(0, b_raw, &[]);
                pass.dispatch_workgroups(groups, 1, 1);
            }
            pass.set_pipeline(&mq.pipeline);
            pass.set_bind_group(0, b_mq, &[]);
            pass.dispatch_workgroups(mq_x, mq_y, 1);
        }
        Ok(())
    }

    /// Encode code-blocks: upload, one submission, readback; blocks that outgrew their
    /// planned room are encoded again with the room they need.
    pub async fn encode_code_blocks(
        &self,
        gpu: &Gpu,
        blocks: &[CodeBlockInput<'_>],
        opts: &Tier1Options,
    ) -> Result<Vec<CodeBlockCoded>> {
        if blocks.is_empty() {
            return Ok(Vec::new());
        }
        GpuStage::run(&self.stage(gpu, *opts), blocks).await
    }

    /// This driver on `gpu` with `opts`, as a [`GpuStage`].
    pub fn stage<'g>(&'g self, gpu: &'g Gpu, opts: Tier1Options) -> Tier1Stage<'g> {
        Tier1Stage {
            gpu,
            kernels: self,
            opts,
        }
    }

    async fn run(
        &self,
        gpu: &Gpu,
        batch: &Tier1Batch,
    ) -> Result<Vec<std::result::Result<CodeBlockCoded, u32>>> {
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(TIER1.label),
            });
        self.encode_into(gpu, batch, &mut encoder, None)?;
        gpu.queue.submit([encoder.finish()]);
        self.finish(gpu, batch).await
    }
}

/// The tier-1 kernels on one GPU with their coding options: code-blocks in, coded
/// blocks out (twin: [`super::encode_code_blocks_serial`]). Blocks that outgrow their
/// planned room are coded again in [`GpuStage::finish`], a second submission.
pub struct Tier1Stage<'g> {
    pub gpu: &'g Gpu,
    pub kernels: &'g Tier1Kernels,
    pub opts: Tier1Options,
}

impl GpuStage for Tier1Stage<'_> {
    type Input<'a> = [CodeBlockInput<'a>];
    type Uploaded = Tier1Batch;
    type Pending = ();
    type Report = Vec<CodeBlockCoded>;
    type Output = Vec<CodeBlockCoded>;

    fn gpu(&self) -> &Gpu {
        self.gpu
    }

    fn label(&self) -> &'static str {
        TIER1.label
    }

    async fn upload(&self, blocks: &Self::Input<'_>) -> Result<Tier1Batch> {
        self.kernels.upload(self.gpu, blocks, &self.opts)
    }

    fn encode_into(&self, encoder: &mut wgpu::CommandEncoder, batch: &Tier1Batch) -> Result<()> {
        self.kernels.encode_into(self.gpu, batch, encoder, None)
    }

    async fn finish(
        &self,
        blocks: &Self::Input<'_>,
        batch: &Tier1Batch,
        _pending: (),
    ) -> Result<Vec<CodeBlockCoded>> {
        let first = self.kernels.finish(self.gpu, batch).await?;
        self.kernels
            .retry_outgrown(self.gpu, first, blocks, &self.opts)
            .await
    }

    fn output(report: Vec<CodeBlockCoded>) -> Vec<CodeBlockCoded> {
        report
    }

    fn cpu(&self, blocks: &Self::Input<'_>) -> Result<Vec<CodeBlockCoded>> {
        super::encode_code_blocks_serial(blocks, &self.opts)
    }
}

impl Tier1Batch {
    pub fn len(&self) -> usize {
        self.at.len()
    }
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }
    /// Samples of all blocks.
    pub fn samples(&self) -> u64 {
        self.dispatches
            .iter()
            .flat_map(|d| d.blocks.iter())
            .map(|b| b.width as u64 * b.height as u64)
            .sum()
    }
    /// Whether the SPP and MRP bypass the MQ coder from some bit-plane on.
    pub fn bypass_from(&self) -> Option<u32> {
        (self.bypass_from != 0).then_some(self.bypass_from)
    }
}
