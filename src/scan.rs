//! Device-wide exclusive scan, in three strategies (DESIGN.md): `chained` (the papers'
//! adjacent-block synchronization), `decoupled` (look-back with fallback, the default),
//! and `reduce_then_scan` (three dispatches, no inter-workgroup waiting).
//! The same machinery (shaders/common/lookback.wgsl) places CUVLE's block-codes.

use wgpu::util::DeviceExt;

use crate::gpu::registry::scan::{EXCLUSIVE, SPINE};
use crate::gpu::{Gpu, GpuStage, PooledBuffer, Profiler, Stage};
use crate::{Error, Result};

/// How workgroups learn the sum of all blocks before theirs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ScanStrategy {
    Chained,
    Decoupled,
    ReduceThenScan,
}

impl ScanStrategy {
    pub const ALL: [ScanStrategy; 3] = [
        ScanStrategy::Chained,
        ScanStrategy::Decoupled,
        ScanStrategy::ReduceThenScan,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ScanStrategy::Chained => "chained",
            ScanStrategy::Decoupled => "decoupled",
            ScanStrategy::ReduceThenScan => "reduce_then_scan",
        }
    }

    /// Value of the shaders' SCAN_STRATEGY override.
    fn shader_value(self) -> f64 {
        match self {
            ScanStrategy::Chained => 0.0,
            ScanStrategy::Decoupled => 1.0,
            ScanStrategy::ReduceThenScan => 2.0,
        }
    }
}

impl std::str::FromStr for ScanStrategy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        ScanStrategy::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown scan strategy `{s}` (chained, decoupled, reduce_then_scan)"
                ))
            })
    }
}

/// Tuning shared by every stage built on the look-back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanConfig {
    pub strategy: ScanStrategy,
    /// Decoupled: polls of a predecessor before computing its aggregate ourselves.
    /// 0 forces the fallback for every predecessor.
    pub spin_budget: u32,
    /// Persistent workgroups launched (each takes blocks by ticket until none are left).
    pub resident_workgroups: u32,
    /// Threads per workgroup (a power of two, at most 1024).
    pub workgroup_size: u32,
    /// Blocks one workgroup takes before it exits (more workgroups are launched to cover
    /// the rest). None: unbounded on GPUs; 8 on CPU adapters, because llvmpipe gives each
    /// invocation 65535 loop iterations in all and then silently leaves every loop.
    pub max_blocks_per_workgroup: Option<u32>,
}

impl Default for ScanConfig {
    fn default() -> Self {
        ScanConfig {
            strategy: ScanStrategy::Decoupled,
            spin_budget: 64,
            resident_workgroups: 1024,
            workgroup_size: 256,
            max_blocks_per_workgroup: None,
        }
    }
}

/// scan_state layout: keep in sync with shaders/common/lookback.wgsl.
pub(crate) const STATE_HEADER: usize = 4;
pub(crate) const STATE_STALLED: usize = 1;
pub(crate) const STATE_FALLBACKS: usize = 2;
const STATE_TOTAL: usize = 3;
const FLAG_PREFIX: u32 = 0x8000_0000;
/// Blocks per workgroup on CPU adapters (see `ScanConfig::max_blocks_per_workgroup`).
pub(crate) const CPU_ADAPTER_BLOCKS_PER_WORKGROUP: u32 = 8;
pub(crate) const VALUE_MASK: u32 = 0x3fff_ffff;
pub(crate) const STATE_BINDING: u32 = 8;

/// What a finished look-back left in its state words.
#[derive(Clone, Debug, Default)]
pub struct ScanReport {
    /// Workgroups that recomputed a predecessor's aggregate (decoupled fallback).
    pub fallbacks: u32,
    /// Exclusive prefix of every block.
    pub block_prefixes: Vec<u32>,
}

/// Decode a state log (header + one word per block) into exclusive block prefixes,
/// checking that the chain is complete and adds up to `expected_total`.
pub(crate) fn read_state(
    stage: &'static str,
    strategy: ScanStrategy,
    words: &[u32],
    n_blocks: usize,
    expected_total: u64,
) -> Result<ScanReport> {
    let bad = |message: String| Error::Gpu { stage, message };
    if words.len() < STATE_HEADER + n_blocks {
        return Err(bad("scan state truncated".into()));
    }
    if words[STATE_STALLED] != 0 {
        return Err(Error::ScanStalled { stage });
    }
    let blocks = &words[STATE_HEADER..STATE_HEADER + n_blocks];
    let mut prefixes = Vec::with_capacity(n_blocks);
    let mut inclusive = 0u32;
    match strategy {
        // The spine leaves exclusive prefixes and the grand total.
        ScanStrategy::ReduceThenScan => {
            prefixes.extend_from_slice(blocks);
            if n_blocks > 0 && words[STATE_TOTAL] as u64 != expected_total {
                return Err(bad(format!(
                    "scan total {} != expected {expected_total}",
                    words[STATE_TOTAL]
                )));
            }
            if prefixes.windows(2).any(|w| w[0] > w[1])
                || prefixes.last().is_some_and(|&p| p as u64 > expected_total)
            {
                return Err(bad("block prefixes out of order".into()));
            }
            return Ok(ScanReport {
                fallbacks: words[STATE_FALLBACKS],
                block_prefixes: prefixes,
            });
        }
        _ => {
            for (b, &w) in blocks.iter().enumerate() {
                if w & FLAG_PREFIX == 0 {
                    return Err(bad(format!("block {b} never published its prefix")));
                }
                prefixes.push(inclusive);
                inclusive = w & VALUE_MASK;
            }
        }
    }
    if n_blocks > 0 && inclusive as u64 != expected_total {
        return Err(bad(format!(
            "scan total {inclusive} != expected {expected_total}"
        )));
    }
    Ok(ScanReport {
        fallbacks: words[STATE_FALLBACKS],
        block_prefixes: prefixes,
    })
}

/// A stage that places blocks with the look-back: its shader, its override constants,
/// its bindings other than the state, and its block count.
pub(crate) struct LookbackStage<'a> {
    pub shader: &'static Stage,
    pub label: &'static str,
    pub constants: Vec<(&'static str, f64)>,
    pub bindings: Vec<(u32, wgpu::BufferBinding<'a>)>,
    pub n_blocks: u32,
}

/// A look-back stage's override constants: its own, then the scan's.
fn lookback_constants(
    gpu: &Gpu,
    stage_constants: &[(&'static str, f64)],
    config: &ScanConfig,
    n_blocks: u32,
) -> Vec<(&'static str, f64)> {
    let mut constants = stage_constants.to_vec();
    constants.push(("SCAN_STRATEGY", config.strategy.shader_value()));
    constants.push(("SPIN_BUDGET", config.spin_budget as f64));
    constants.push(("WG_SIZE", config.workgroup_size as f64));
    let (_, blocks_per_workgroup) = main_grid(gpu, config, n_blocks);
    constants.push(("MAX_BLOCKS_PER_WORKGROUP", blocks_per_workgroup as f64));
    constants
}

/// Build now the pipelines [`encode_lookback`] would build for a stage of `n_blocks`
/// blocks with these constants, so that a later recording finds them ready.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn warm_lookback(
    gpu: &Gpu,
    shader: &'static Stage,
    stage_constants: &[(&'static str, f64)],
    config: &ScanConfig,
    n_blocks: u32,
) -> Result<()> {
    let constants = lookback_constants(gpu, stage_constants, config, n_blocks);
    gpu.pipeline(shader, "main", &constants)?;
    if config.strategy == ScanStrategy::ReduceThenScan {
        gpu.pipeline(shader, "reduce", &constants)?;
        gpu.pipeline(&SPINE, "main", &[("WG_SIZE", config.workgroup_size as f64)])?;
    }
    Ok(())
}

/// Encode one look-back stage: clear the state, then one dispatch (chained, decoupled)
/// or three (reduce_then_scan: `reduce`, the spine, `main`).
pub(crate) fn encode_lookback(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    profiler: Option<&mut Profiler>,
    stage: LookbackStage<'_>,
    state: &wgpu::Buffer,
    config: &ScanConfig,
) -> Result<()> {
    static CHAINED_ON_CPU: std::sync::Once = std::sync::Once::new();
    if config.strategy == ScanStrategy::Chained && gpu.info.device_type == wgpu::DeviceType::Cpu {
        CHAINED_ON_CPU.call_once(|| log::warn!("chained scan on a software adapter: workgroups may not make progress while others spin; prefer decoupled"));
    }
    let state_bytes = (STATE_HEADER as u64 + stage.n_blocks as u64) * 4;
    if state.size() < state_bytes {
        return Err(Error::Gpu {
            stage: stage.shader.name,
            message: "scan state buffer too small".into(),
        });
    }
    encoder.clear_buffer(state, 0, Some(state_bytes.next_multiple_of(4)));
    if stage.n_blocks == 0 {
        return Ok(());
    }
    let mut bindings = stage.bindings.clone();
    bindings.push((STATE_BINDING, state.as_entire_buffer_binding()));
    let max_groups = gpu.limits.max_compute_workgroups_per_dimension;
    let mut dispatches = Vec::new();
    let constants = lookback_constants(gpu, &stage.constants, config, stage.n_blocks);
    let main = gpu.pipeline(stage.shader, "main", &constants)?;
    let main_bind = gpu.bind(&main, &bindings);
    let spine_params;
    let spine_bind;
    let spine;
    let reduce;
    let reduce_bind;
    if config.strategy == ScanStrategy::ReduceThenScan {
        reduce = gpu.pipeline(stage.shader, "reduce", &constants)?;
        reduce_bind = gpu.bind(&reduce, &bindings);
        dispatches.push((
            &reduce.pipeline,
            &reduce_bind,
            stage.n_blocks.min(max_groups),
            "reduce",
        ));
        spine = gpu.pipeline(&SPINE, "main", &[("WG_SIZE", config.workgroup_size as f64)])?;
        spine_params = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("parvlc.scan.spine.params"),
                contents: bytemuck::bytes_of(&stage.n_blocks),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        spine_bind = gpu.bind(
            &spine,
            &[
                (0, spine_params.as_entire_buffer_binding()),
                (STATE_BINDING, state.as_entire_buffer_binding()),
            ],
        );
        dispatches.push((&spine.pipeline, &spine_bind, 1, "spine"));
    }
    let (groups, _) = main_grid(gpu, config, stage.n_blocks);
    dispatches.push((&main.pipeline, &main_bind, groups, stage.label));
    let mut profiler = profiler;
    for (pipeline, bind, groups, label) in dispatches {
        let timestamp_writes = profiler.as_deref_mut().and_then(|p| p.pass(label));
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups(groups, 1, 1);
    }
    Ok(())
}

/// Workgroups to launch for `n_blocks` blocks, and the blocks each may take.
fn main_grid(gpu: &Gpu, config: &ScanConfig, n_blocks: u32) -> (u32, u32) {
    let max_groups = gpu.limits.max_compute_workgroups_per_dimension.max(1);
    let cap = config
        .max_blocks_per_workgroup
        .or((gpu.info.device_type == wgpu::DeviceType::Cpu)
            .then_some(CPU_ADAPTER_BLOCKS_PER_WORKGROUP));
    match cap {
        None => (
            n_blocks
                .min(config.resident_workgroups.max(1))
                .min(max_groups)
                .max(1),
            u32::MAX,
        ),
        Some(cap) => {
            // Enough workgroups that none takes more than `cap` blocks, within one dispatch.
            let cap = cap.max(1).max(n_blocks.div_ceil(max_groups));
            let groups = n_blocks
                .div_ceil(cap)
                .max(n_blocks.min(config.resident_workgroups.max(1)))
                .min(max_groups)
                .max(1);
            (groups, cap)
        }
    }
}

/// Exclusive scan on the CPU: the twin of shaders/scan/exclusive.wgsl.
pub fn exclusive_scan_cpu(values: &[u32]) -> Vec<u32> {
    let mut sum = 0u32;
    values
        .iter()
        .map(|&v| {
            let out = sum;
            sum = sum.wrapping_add(v);
            out
        })
        .collect()
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/scan/exclusive.wgsl `ScanParams`
struct ScanParams {
    n: u32,
    n_blocks: u32,
}

/// Elements per invocation in scan/exclusive.
const SCAN_ITEMS: u32 = 8;

/// Blocks (look-back state words after the header) the scan/exclusive stage uses for `n`
/// values.
pub(crate) fn scan_u32_blocks(n: u32, config: &ScanConfig) -> u32 {
    n.div_ceil(config.workgroup_size * SCAN_ITEMS)
}

/// Record an exclusive scan of the first `n` values of `values` into `prefixes` (the
/// scan/exclusive stage) into `encoder`; nothing is submitted. `state` holds at least
/// `STATE_HEADER + scan_u32_blocks(n)` words; check it afterwards with [`read_state`].
/// `label` names the scan's (last) pass for the profiler. The total must stay below 2^30.
#[allow(clippy::too_many_arguments)]
pub(crate) fn encode_exclusive_scan(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    profiler: Option<&mut Profiler>,
    label: &'static str,
    values: wgpu::BufferBinding<'_>,
    prefixes: wgpu::BufferBinding<'_>,
    n: u32,
    state: &wgpu::Buffer,
    config: &ScanConfig,
) -> Result<()> {
    let n_blocks = scan_u32_blocks(n, config);
    let params = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("parvlc.scan.exclusive.params"),
            contents: bytemuck::bytes_of(&ScanParams { n, n_blocks }),
            usage: wgpu::BufferUsages::UNIFORM,
        });
    encode_lookback(
        gpu,
        encoder,
        profiler,
        LookbackStage {
            shader: &EXCLUSIVE,
            label,
            constants: vec![("ITEMS", SCAN_ITEMS as f64)],
            bindings: vec![
                (0, params.as_entire_buffer_binding()),
                (1, values),
                (2, prefixes),
            ],
            n_blocks,
        },
        state,
        config,
    )
}

/// Exclusive scan of `values` on the GPU ([`ScanStage`] in one call). The total must stay
/// below 2^30 (the look-back packs a flag beside each 30-bit prefix).
pub async fn exclusive_scan(
    gpu: &Gpu,
    values: &[u32],
    config: &ScanConfig,
) -> Result<(Vec<u32>, ScanReport)> {
    ScanStage {
        gpu,
        config: *config,
    }
    .run(values)
    .await
}

/// The device-wide exclusive scan of `u32` values as a [`GpuStage`]; its CPU twin is
/// [`exclusive_scan_cpu`].
pub struct ScanStage<'g> {
    pub gpu: &'g Gpu,
    pub config: ScanConfig,
}

/// Values on the GPU with room for their prefixes and the look-back state; no buffers
/// for no values.
pub struct ScanUpload {
    buffers: Option<ScanBuffers>,
    n: u32,
    total: u64,
}

struct ScanBuffers {
    values: PooledBuffer,
    prefixes: PooledBuffer,
    state: PooledBuffer,
}

impl ScanStage<'_> {
    fn state_bytes(&self, n: u32) -> u64 {
        (STATE_HEADER as u64 + scan_u32_blocks(n, &self.config) as u64) * 4
    }
}

impl GpuStage for ScanStage<'_> {
    type Input<'a> = [u32];
    type Uploaded = ScanUpload;
    type Pending = ();
    type Report = (Vec<u32>, ScanReport);
    type Output = Vec<u32>;

    fn gpu(&self) -> &Gpu {
        self.gpu
    }

    fn label(&self) -> &'static str {
        EXCLUSIVE.label
    }

    async fn upload(&self, values: &Self::Input<'_>) -> Result<ScanUpload> {
        let gpu = self.gpu;
        let total: u64 = values.iter().map(|&v| v as u64).sum();
        if total > VALUE_MASK as u64 {
            return Err(Error::TooLarge(format!(
                "scan total {total} exceeds 2^30 - 1"
            )));
        }
        let n = values.len() as u32;
        if values.len() as u64 * 4 > gpu.max_binding() {
            return Err(Error::TooLarge(format!(
                "{} values exceed one storage binding",
                values.len()
            )));
        }
        let buffers = (n > 0).then(|| {
            let usage = wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST;
            let input = gpu.pooled_buffer(n as u64 * 4, usage);
            gpu.queue
                .write_buffer(&input, 0, bytemuck::cast_slice(values));
            ScanBuffers {
                values: input,
                prefixes: gpu.pooled_buffer(n as u64 * 4, usage),
                state: gpu.pooled_buffer(self.state_bytes(n), usage),
            }
        });
        Ok(ScanUpload { buffers, n, total })
    }

    fn encode_into(&self, encoder: &mut wgpu::CommandEncoder, up: &ScanUpload) -> Result<()> {
        let Some(b) = &up.buffers else {
            return Ok(());
        };
        encode_exclusive_scan(
            self.gpu,
            encoder,
            None,
            "scan_u32",
            b.values.as_entire_buffer_binding(),
            b.prefixes.as_entire_buffer_binding(),
            up.n,
            &b.state,
            &self.config,
        )
    }

    async fn finish(
        &self,
        _values: &Self::Input<'_>,
        up: &ScanUpload,
        _pending: (),
    ) -> Result<(Vec<u32>, ScanReport)> {
        let Some(b) = &up.buffers else {
            return Ok((Vec::new(), ScanReport::default()));
        };
        let gpu = self.gpu;
        let out = gpu.read_buffer(&b.prefixes, 0, up.n as u64 * 4).await?;
        let state_words = gpu.read_buffer(&b.state, 0, self.state_bytes(up.n)).await?;
        let report = read_state(
            EXCLUSIVE.name,
            self.config.strategy,
            &bytemuck::pod_collect_to_vec::<u8, u32>(&state_words),
            scan_u32_blocks(up.n, &self.config) as usize,
            up.total,
        )?;
        Ok((bytemuck::pod_collect_to_vec(&out), report))
    }

    fn output(report: (Vec<u32>, ScanReport)) -> Vec<u32> {
        report.0
    }

    fn cpu(&self, values: &Self::Input<'_>) -> Result<Vec<u32>> {
        Ok(exclusive_scan_cpu(values))
    }
}
