//! The CAVLC bits of residual blocks counted on the GPU (`shaders/h264/bits.wgsl`,
//! pipeline `parvlc.h264.bits`): the rate count of the intra front end's decisions, as
//! a stage of its own so that tests hold it to its CPU twin,
//! [`crate::cavlc::cpu::block_bits_nc`].

use wgpu::util::DeviceExt;

use crate::cavlc::cpu::block_bits_nc;
use crate::gpu::registry::h264::BITS;
use crate::gpu::Gpu;
use crate::{Error, Result};

/// One block to count (keep in sync with shaders/h264/bits.wgsl `BitsQuery`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BitsQuery {
    /// The block's levels in scan order.
    pub levels: [i32; 16],
    /// The levels counted: `n` (16, or 15 for an AC block) from position `first`.
    pub first: u32,
    pub n: u32,
    pub nc: u32,
    pub pad: u32,
}

impl BitsQuery {
    /// The levels it counts and its nC, or an error where `first` and `n` are not a
    /// block's or nC is out of range (both sides refuse the same queries).
    fn checked(&self) -> Result<(&[i32], i32)> {
        let levels = match (self.first, self.n) {
            (0, 16) | (1, 15) | (0, 15) => &self.levels[self.first as usize..][..self.n as usize],
            (first, n) => {
                return Err(Error::InvalidArgument(format!(
                    "a block of {n} levels from position {first}: count 16 from 0 or 15 from 0 or 1"
                )))
            }
        };
        let nc = i32::try_from(self.nc)
            .map_err(|_| Error::InvalidArgument(format!("nC {}", self.nc)))?;
        Ok((levels, nc))
    }
}

/// The bits of each query on the CPU ([`block_bits_nc`]): 0 where a level cannot be
/// coded.
pub fn count_block_bits_cpu(queries: &[BitsQuery]) -> Result<Vec<u32>> {
    queries
        .iter()
        .map(|q| {
            let (levels, nc) = q.checked()?;
            Ok(block_bits_nc(levels, nc))
        })
        .collect()
}

/// The bits of each query on `gpu`: equal to [`count_block_bits_cpu`], and errors for the
/// same queries.
pub async fn count_block_bits(gpu: &Gpu, queries: &[BitsQuery]) -> Result<Vec<u32>> {
    for q in queries {
        q.checked()?;
    }
    if queries.is_empty() {
        return Ok(Vec::new());
    }
    let groups = queries.len().div_ceil(64);
    if groups > gpu.limits.max_compute_workgroups_per_dimension as usize {
        return Err(Error::TooLarge(format!(
            "{} blocks to count",
            queries.len()
        )));
    }
    let input = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("parvlc.h264.bits.queries"),
            contents: bytemuck::cast_slice(queries),
            usage: wgpu::BufferUsages::STORAGE,
        });
    let tables = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("parvlc.h264.bits.rate_tables"),
            contents: bytemuck::cast_slice(&super::intra::rate_tables()),
            usage: wgpu::BufferUsages::STORAGE,
        });
    let bytes = queries.len() as u64 * 4;
    let output = gpu.pooled_buffer(
        bytes,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let built = gpu.pipeline(&BITS, "count", &[])?;
    let bind = gpu.bind(
        &built,
        &[
            (0, input.as_entire_buffer_binding()),
            (
                1,
                wgpu::BufferBinding {
                    buffer: &output,
                    offset: 0,
                    size: wgpu::BufferSize::new(bytes),
                },
            ),
            (8, tables.as_entire_buffer_binding()),
        ],
    );
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some(BITS.label),
        });
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(BITS.label),
            timestamp_writes: None,
        });
        pass.set_pipeline(&built.pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(groups as u32, 1, 1);
    }
    gpu.queue.submit([encoder.finish()]);
    let read = gpu.read_buffers(&[(&output, 0, bytes)]).await?;
    Ok(bytemuck::pod_collect_to_vec(&read.concat()))
}
