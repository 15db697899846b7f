//! The CRC32 of every block of an input, on the GPU (shaders/huffman/block_crc.wgsl) and
//! its CPU twin. The stream compressor reads a chunk's block CRC32s back with its cell
//! histograms and folds each frame's blocks into the frame's CRC32 (`crate::crc`): no
//! core reads the chunk's bytes again for its checksums.

use wgpu::util::DeviceExt;

use super::cuvle::{GpuInput, VleEncoder};
use crate::gpu::registry::huffman::BLOCK_CRC;
use crate::gpu::{Gpu, GpuStage, PooledBuffer, Profiler};
use crate::{Error, Result};

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/huffman/block_crc.wgsl `BlockCrcParams`
pub(crate) struct BlockCrcParams {
    pub n_bytes: u32,
    pub block_words: u32,
    pub n_blocks: u32,
    pub crc_base: u32,
}

impl BlockCrcParams {
    /// The parameters of `n_bytes` bytes from byte `offset` of the input (a window, or a
    /// CUDA chunk at 0) in blocks of `block_bytes`: a multiple of 4 (the kernels read
    /// words) that divides `offset` (a window's blocks start at its start), the first
    /// block's CRC32 going to word `offset / block_bytes`; every count within the
    /// kernels' 32 bits.
    pub(crate) fn new(n_bytes: u64, block_bytes: u64, offset: u64) -> Result<Self> {
        let word = |v: u64| u32::try_from(v).ok();
        let crc_base = (block_bytes > 0 && offset.is_multiple_of(block_bytes))
            .then(|| offset / block_bytes)
            .and_then(word);
        match (word(n_bytes), word(block_bytes), crc_base) {
            (Some(n), Some(block), Some(base)) if block > 0 && block.is_multiple_of(4) => {
                Ok(BlockCrcParams {
                    n_bytes: n,
                    block_words: block / 4,
                    n_blocks: n.div_ceil(block),
                    crc_base: base,
                })
            }
            _ => Err(Error::InvalidArgument(format!(
                "block CRC32s of {n_bytes} bytes in {block_bytes}-byte blocks from byte \
                 {offset}: blocks a multiple of 4 bytes that divides the start, every count \
                 below 2^32"
            ))),
        }
    }
}

/// The CRC32 of each `block_bytes` block of `input` (the last one maybe shorter): the
/// CPU twin of huffman/block_crc.
pub fn block_crcs_cpu(input: &[u8], block_bytes: usize) -> Vec<u32> {
    input
        .chunks(block_bytes.max(1))
        .map(crc32fast::hash)
        .collect()
}

/// By invocation of a workgroup of `workgroup_size` that takes a whole block of
/// `block_bytes` (keep in sync with shaders/huffman/block_crc.wgsl: each invocation a
/// run of the same whole words, the last runs maybe empty), the multiplier that shifts
/// its run's register past the runs after it: x^(8n) mod P, reflected, for those n bytes.
fn run_shifts(block_bytes: u64, workgroup_size: u32) -> Vec<u32> {
    let wg = workgroup_size as u64;
    let run_bytes = (block_bytes / 4).div_ceil(wg) * 4;
    (0..wg)
        .map(|lid| {
            let run_end = ((lid + 1) * run_bytes).min(block_bytes);
            // x^0 is the top bit in the reflected order; shifting it by n bytes is x^(8n).
            crate::crc::shift(0x8000_0000, block_bytes - run_end)
        })
        .collect()
}

/// Record the CRC32 of every `block_bytes` block of `input` (a multiple of 4 that
/// divides its windows' starts) into a buffer of one word a block; None for no bytes.
pub(crate) fn record_block_crcs(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    input: &GpuInput,
    block_bytes: u64,
    workgroup_size: u32,
    profiler: Option<&mut Profiler>,
) -> Result<Option<(PooledBuffer, usize)>> {
    let n_blocks = input.len().div_ceil(block_bytes.max(1)) as usize;
    if n_blocks == 0 {
        return Ok(None);
    }
    let params: Vec<BlockCrcParams> = input
        .window_spans()
        .iter()
        .map(|&(offset, n_bytes)| BlockCrcParams::new(n_bytes, block_bytes, offset))
        .collect::<Result<_>>()?;
    let crcs = gpu.pooled_buffer(
        n_blocks as u64 * 4,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let built = gpu.pipeline(&BLOCK_CRC, "main", &[("WG_SIZE", workgroup_size as f64)])?;
    let shifts = gpu.resident_buffer(
        &format!("parvlc.huffman.block_crc.run_shifts.{block_bytes}.{workgroup_size}"),
        || bytemuck::cast_slice(&run_shifts(block_bytes, workgroup_size)).to_vec(),
    );
    let mut binds = Vec::new();
    for (window, params) in input.windows().iter().zip(params) {
        let n_bytes = params.n_bytes as u64;
        let params_buffer = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("parvlc.huffman.block_crc.params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let bind = gpu.bind(
            &built,
            &[
                (0, params_buffer.as_entire_buffer_binding()),
                (
                    1,
                    wgpu::BufferBinding {
                        buffer: &window.buffer,
                        offset: 0,
                        size: wgpu::BufferSize::new(n_bytes.next_multiple_of(16)),
                    },
                ),
                (2, crcs.as_entire_buffer_binding()),
                (3, shifts.as_entire_buffer_binding()),
            ],
        );
        // A workgroup a block.
        let groups = params
            .n_blocks
            .min(gpu.limits.max_compute_workgroups_per_dimension);
        binds.push((bind, groups));
    }
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(BLOCK_CRC.label),
        timestamp_writes: profiler.and_then(|p| p.pass("block_crc")),
    });
    pass.set_pipeline(&built.pipeline);
    for (bind, groups) in &binds {
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups(*groups, 1, 1);
    }
    Ok(Some((crcs, n_blocks)))
}

/// Block CRC32s read back from what [`record_block_crcs`] recorded, once submitted.
pub(crate) fn crcs_from_bytes(bytes: &[u8]) -> Vec<u32> {
    bytemuck::pod_collect_to_vec(bytes)
}

/// The block CRC32s as a [`GpuStage`], on `VleEncoder`'s upload, in blocks of `.1` bytes.
pub struct BlockCrcStage<'e, 'g>(pub &'e VleEncoder<'g>, pub u64);

/// Recorded block CRC32s, read back by [`GpuStage::finish`]; none for an empty input.
pub struct BlockCrcPending(Option<(PooledBuffer, usize)>);

impl GpuStage for BlockCrcStage<'_, '_> {
    type Input<'a> = [u8];
    type Uploaded = GpuInput;
    type Pending = BlockCrcPending;
    type Report = Vec<u32>;
    type Output = Vec<u32>;

    fn gpu(&self) -> &Gpu {
        GpuStage::gpu(self.0)
    }

    fn label(&self) -> &'static str {
        BLOCK_CRC.label
    }

    async fn upload(&self, input: &Self::Input<'_>) -> Result<GpuInput> {
        VleEncoder::upload(self.0, input)
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        uploaded: &GpuInput,
    ) -> Result<BlockCrcPending> {
        let wg = self.0.config().scan.workgroup_size;
        record_block_crcs(GpuStage::gpu(self), encoder, uploaded, self.1, wg, None)
            .map(BlockCrcPending)
    }

    async fn finish(
        &self,
        _input: &Self::Input<'_>,
        _uploaded: &GpuInput,
        pending: BlockCrcPending,
    ) -> Result<Vec<u32>> {
        let Some((crcs, n)) = pending.0 else {
            return Ok(Vec::new());
        };
        let bytes = GpuStage::gpu(self)
            .read_buffer(&crcs, 0, n as u64 * 4)
            .await?;
        Ok(crcs_from_bytes(&bytes))
    }

    fn output(report: Vec<u32>) -> Vec<u32> {
        report
    }

    fn cpu(&self, input: &[u8]) -> Result<Vec<u32>> {
        Ok(block_crcs_cpu(input, self.1 as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::BlockCrcParams;

    #[test]
    fn params_count_blocks_and_refuse_what_the_kernels_cannot_take() {
        let p = BlockCrcParams::new(10_000, 4096, 7 * 4096).unwrap();
        assert_eq!(
            (p.n_bytes, p.block_words, p.n_blocks, p.crc_base),
            (10_000, 1024, 3, 7)
        );
        let p = BlockCrcParams::new(0, 4, 0).unwrap();
        assert_eq!(p.n_blocks, 0);
        for (n, block, base) in [
            (100, 0, 0),
            (100, 6, 0),
            (1 << 32, 4096, 0),
            (100, 1 << 32, 0),
            (100, 4096, 4096 << 32),
            (100, 4096, 100),
        ] {
            assert!(
                BlockCrcParams::new(n, block, base).is_err(),
                "{n} {block} {base}"
            );
        }
    }
}
