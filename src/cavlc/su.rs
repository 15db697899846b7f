//! The CAVLCU paper's baseline, CAVLC_SU (Su et al.): three kernels with their
//! intermediates in global memory (shaders/cavlc/su_forward.wgsl,
//! cavlc/su_backward.wgsl, cavlc/su_code.wgsl), writing the same slots as cavlcu. CPU
//! twin of the forward scan: [`forward_cpu`]; the coding kernel's twin is
//! [`super::cavlcu::block_codes_cpu`] (same slots).
//!
//! Simplification against the paper: the backward scan reads the neighbours' TotalCoeff
//! straight from global memory (through the caches) instead of staging 4x2-macroblock
//! regions in workgroup memory; the coding kernel reads its tables from a storage buffer
//! (as cavlcu does) instead of caching them in workgroup memory.

use super::frame::{total_coeffs, Frame, MB_BLOCKS, ZIGZAG};
use super::layout::FrameBuffers;
use crate::gpu::registry::cavlc::{SU_BACKWARD, SU_CODE, SU_FORWARD};
use crate::gpu::{Gpu, PooledBuffer, Profiler};
use crate::Result;

/// Words per symbol record (keep in sync with shaders/cavlc/su_backward.wgsl).
const SYM_WORDS: u64 = 12;

/// The forward scan's output on the CPU: every block's levels in zigzag order
/// ([`MB_BLOCKS`] blocks of 16 per macroblock) and its TotalCoeff as neighbours count it.
pub fn forward_cpu(frame: &Frame) -> (Vec<i16>, Vec<u8>) {
    let mut zz = vec![0i16; frame.levels.len()];
    for (b, block) in frame.levels.chunks_exact(16).enumerate() {
        for (s, &r) in ZIGZAG.iter().enumerate() {
            zz[b * 16 + s] = block[r];
        }
    }
    (zz, total_coeffs(frame))
}

/// A grid of at least `groups` workgroups within the per-dimension limit.
fn grid(gpu: &Gpu, groups: u32) -> (u32, u32) {
    let max = gpu.limits.max_compute_workgroups_per_dimension.max(1);
    if groups <= max {
        (groups.max(1), 1)
    } else {
        (max, groups.div_ceil(max))
    }
}

fn dispatch(
    encoder: &mut wgpu::CommandEncoder,
    profiler: Option<&mut Profiler>,
    label: &'static str,
    pipeline: &wgpu::ComputePipeline,
    bind: &wgpu::BindGroup,
    grid: (u32, u32),
) {
    let timestamp_writes = profiler.and_then(|p| p.pass(label));
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes,
    });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind, &[]);
    pass.dispatch_workgroups(grid.0, grid.1, 1);
}

/// Record the three kernels; the intermediates they return must live until the work is
/// submitted (the pool would hand them out again).
pub(crate) fn encode_su(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    profiler: Option<&mut Profiler>,
    bufs: &FrameBuffers<'_>,
) -> Result<Vec<PooledBuffer>> {
    let n_mbs = bufs.n_mbs as u64;
    let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    let zz = gpu.pooled_buffer(n_mbs * MB_BLOCKS as u64 * 32, storage);
    let tc = gpu.pooled_buffer(n_mbs * MB_BLOCKS as u64 * 4, storage);
    let sym = gpu.pooled_buffer(n_mbs * 27 * SYM_WORDS * 4, storage);
    let mut profiler = profiler;

    let forward = gpu.pipeline(&SU_FORWARD, "main", &[])?;
    let bind = gpu.bind(
        &forward,
        &[
            (0, bufs.params.as_entire_buffer_binding()),
            (1, bufs.headers.clone()),
            (2, bufs.levels.clone()),
            (7, zz.as_entire_buffer_binding()),
            (10, tc.as_entire_buffer_binding()),
        ],
    );
    dispatch(
        encoder,
        profiler.as_deref_mut(),
        "su_forward",
        &forward.pipeline,
        &bind,
        grid(gpu, bufs.n_mbs.div_ceil(8)),
    );

    let backward = gpu.pipeline(&SU_BACKWARD, "main", &[])?;
    let bind = gpu.bind(
        &backward,
        &[
            (0, bufs.params.as_entire_buffer_binding()),
            (1, bufs.headers.clone()),
            (7, zz.as_entire_buffer_binding()),
            (10, tc.as_entire_buffer_binding()),
            (11, sym.as_entire_buffer_binding()),
        ],
    );
    let slot_groups = (bufs.n_mbs * 27).div_ceil(256);
    dispatch(
        encoder,
        profiler.as_deref_mut(),
        "su_backward",
        &backward.pipeline,
        &bind,
        grid(gpu, slot_groups),
    );

    let code = gpu.pipeline(&SU_CODE, "main", &[])?;
    let bind = gpu.bind(
        &code,
        &[
            (0, bufs.params.as_entire_buffer_binding()),
            (4, bufs.tables.as_entire_buffer_binding()),
            (5, bufs.enc_words.as_entire_buffer_binding()),
            (6, bufs.enc_lens.as_entire_buffer_binding()),
            (9, bufs.status.as_entire_buffer_binding()),
            (11, sym.as_entire_buffer_binding()),
        ],
    );
    dispatch(
        encoder,
        profiler,
        "su_code",
        &code.pipeline,
        &bind,
        grid(gpu, slot_groups),
    );
    Ok(vec![zz, tc, sym])
}
