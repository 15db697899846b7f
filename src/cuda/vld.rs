//! VLD on CUDA (shaders/cuda/vld.cu): the twin of [`crate::huffman::vld::VldDecoder`]
//! step for step, on the same plan (tables, block tasks, groups, payload words), so its
//! output and per-block faults are the wgpu kernel's and the CPU twin's. It decodes native
//! v2 frames on NVIDIA GPUs and lets Nsight Compute, which cannot profile Vulkan, show
//! where a per-block decode spends its cycles.
//!
//! A batch goes up as one copy from pinned host memory, into which the host writes the
//! payload and tables on all cores (as the wgpu decoder writes its staging), and comes
//! back as one copy of the statuses, output and block CRC32s (`vld_block_crcs`) into
//! pinned memory; device and pinned
//! buffers are pooled in the [`CudaGpu`] across batches ([`super::pool`]): fresh ones and
//! copies through pageable memory made this decoder 3-4x slower end to end than wgpu's.

use cudarc::driver::{DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig, PushKernelArg};
use rayon::prelude::*;

use super::pool::DeviceBuffer;
use super::{driver_error, CudaGpu};
use crate::huffman::vld::{
    payload_words_at_most, VldFrame, VldOutput, VldPlan, MAX_GPU_BLOCK_SYMBOLS, OUT_UNIT,
    TABLE_WORDS,
};
use crate::{Error, Result};

pub(crate) const VLD_SOURCE: &str = concat!(
    include_str!("../../shaders/cuda/crc32.cuh"),
    include_str!("../../shaders/cuda/vld.cu")
);

/// Threads per block: blocks of one frame decoded together (the wgpu decoder's default).
const WG_SIZE: u32 = 64;

/// keep in sync with shaders/cuda/vld.cu `VldArgs`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct VldArgs {
    n_groups: u32,
    payload_words: u32,
}
// SAFETY: plain #[repr(C)] u32 fields, the layout of the kernel's struct.
unsafe impl DeviceRepr for VldArgs {}

/// Where each part of a batch lies in its upload (payload, tables, block tasks, groups)
/// and in its readback (block statuses, output, block CRC32s), in bytes: each part from a multiple of
/// [`Layout::ALIGN`] and at least 16 bytes long, so that every kernel pointer is aligned
/// and lies inside its buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    tables: usize,
    blocks: usize,
    groups: usize,
    upload: usize,
    /// Statuses from 0.
    status_bytes: usize,
    output: usize,
    crcs: usize,
    readback: usize,
}

impl Layout {
    const ALIGN: usize = 256;

    fn of(plan: &VldPlan) -> Layout {
        let next = |at: usize, bytes: usize| (at + bytes.max(16)).next_multiple_of(Self::ALIGN);
        let tables = next(0, plan.payload_words as usize * 4);
        let blocks = next(tables, plan.table_words() * 4);
        let groups = next(blocks, plan.blocks.len() * 16);
        let upload = groups + (plan.groups.len() * 16).max(16);
        let status_bytes = plan.blocks.len() * 8;
        let output = next(0, status_bytes);
        let crcs = next(output, plan.out_bytes as usize);
        let readback = crcs + (plan.blocks.len() * 4).max(16);
        Layout {
            tables,
            blocks,
            groups,
            upload,
            status_bytes,
            output,
            crcs,
            readback,
        }
    }
}

/// A batch of frames resident on the device, with its plan.
pub struct CudaVldInput {
    plan: VldPlan,
    at: Layout,
    /// Payload, tables, block tasks and groups where `at` says.
    upload: DeviceBuffer,
}

/// The CUDA VLD decoder on one device.
pub struct CudaVldDecoder<'c> {
    cuda: &'c CudaGpu,
}

impl<'c> CudaVldDecoder<'c> {
    pub fn new(cuda: &'c CudaGpu) -> Self {
        CudaVldDecoder { cuda }
    }

    /// Whether blocks of `block_symbols` decode here: one thread decodes a block, so a
    /// long one would hold its whole dispatch back (the wgpu decoder's bound).
    pub fn takes_blocks_of(&self, block_symbols: u64) -> bool {
        block_symbols <= MAX_GPU_BLOCK_SYMBOLS
    }

    /// Whether a batch of `frames` frames, `blocks` blocks, `payload_bytes` and
    /// `out_bytes` fits one launch: the kernel's word indices are 32-bit (payload, output,
    /// tables, blocks), and the batch's buffers take at most a quarter of the device's
    /// memory (the streaming decoder holds several batches on it at once, and the pool
    /// keeps idle ones). The same bytes again are pinned on the host while it runs.
    pub fn fits(&self, frames: u64, blocks: u64, payload_bytes: u64, out_bytes: u64) -> bool {
        let words = u32::MAX as u64;
        let table_words = frames * TABLE_WORDS as u64;
        // Payload, tables, output, and per block its task, its group at most, status and
        // CRC32; size classes waste an eighth at most.
        let device = payload_bytes + table_words * 4 + out_bytes + blocks * (16 + 16 + 8 + 4);
        payload_words_at_most(payload_bytes, frames) <= words
            && out_bytes + OUT_UNIT * frames <= words
            && table_words <= words
            && blocks <= words
            && device + device / 8 <= self.cuda.total_memory() / 4
    }

    /// Plan a batch and copy its payload, tables and tasks to the device: written into
    /// pinned memory on all cores, then one copy.
    pub fn upload(&self, frames: &[VldFrame<'_>]) -> Result<CudaVldInput> {
        let plan = VldPlan::new(frames, WG_SIZE)?;
        let at = Layout::of(&plan);
        let stream = &self.cuda.stream;
        let mut staging = self.cuda.pinned_buffer(at.upload)?;
        let host = &mut staging.bytes()?[..at.upload];
        let (payload, rest) = host.split_at_mut(at.tables);
        let (tables, rest) = rest.split_at_mut(at.blocks - at.tables);
        let (blocks, groups) = rest.split_at_mut(at.groups - at.blocks);
        let payload = &mut payload[..plan.payload_words as usize * 4];
        let tables = &mut tables[..plan.table_words() * 4];
        // Both write on all cores; side by side, one's tail overlaps the other's.
        let (tables_written, ()) = rayon::join(
            || plan.write_tables(frames, tables.into()),
            || plan.write_payload(frames, payload.into()),
        );
        tables_written?;
        let tasks: &[u8] = bytemuck::cast_slice(&plan.blocks);
        blocks[..tasks.len()].copy_from_slice(tasks);
        let group_bytes: &[u8] = bytemuck::cast_slice(&plan.groups);
        groups[..group_bytes.len()].copy_from_slice(group_bytes);
        let mut upload = self.cuda.device_buffer(at.upload)?;
        stream
            .memcpy_htod(&host[..], &mut upload.slice_mut(..at.upload))
            .map_err(driver_error("copying the batch to the device"))?;
        // The staging goes back to the pool now: the next batch to take it waits for
        // this copy first.
        staging.queued(stream)?;
        Ok(CudaVldInput { plan, at, upload })
    }

    /// Decode an uploaded batch: the output (or every block's fault) and the kernel's
    /// time in seconds by CUDA events.
    pub fn decode_uploaded(&self, input: &CudaVldInput) -> Result<(VldOutput, f64)> {
        let (plan, at) = (&input.plan, &input.at);
        let stream = &self.cuda.stream;
        let mut readback = self.cuda.device_buffer(at.readback)?;
        // Statuses zeroed each batch; the output only where blocks share 16-byte units
        // (OR-ed into it): otherwise the kernel writes every output word itself.
        let zeroed = if plan.unit_edges || plan.groups.is_empty() {
            at.readback
        } else {
            at.status_bytes
        };
        if zeroed > 0 {
            stream
                .memset_zeros(&mut readback.slice_mut(..zeroed))
                .map_err(driver_error("zeroing the block statuses and output"))?;
        }
        let func = self
            .cuda
            .function("vld", VLD_SOURCE, &[("WG_SIZE", WG_SIZE)], "vld_main")?;
        let (start, end) = self.cuda.timing_events()?;
        start
            .record(stream)
            .map_err(driver_error("recording an event"))?;
        if !plan.groups.is_empty() {
            let n_groups = u32::try_from(plan.groups.len())
                .map_err(|_| Error::TooLarge(format!("{} block groups", plan.groups.len())))?;
            let args = VldArgs {
                n_groups,
                payload_words: plan.payload_words as u32,
            };
            let (base, _u) = input.upload.device_ptr(stream);
            let (payload, tables) = (base, base + at.tables as u64);
            let (blocks, groups) = (base + at.blocks as u64, base + at.groups as u64);
            let (statuses, _r) = readback.device_ptr_mut(stream);
            let (status, output) = (statuses, statuses + at.output as u64);
            let mut launch = stream.launch_builder(&func);
            launch
                .arg(&args)
                .arg(&payload)
                .arg(&tables)
                .arg(&blocks)
                .arg(&groups)
                .arg(&output)
                .arg(&status);
            // SAFETY: the plan bounds every index the kernel takes: groups and blocks by
            // their counts, table words by the frame count, output words by `out_bytes`
            // (every block's words lie below it), payload reads by `payload_words`; the
            // layout puts each part inside its buffer, aligned.
            unsafe {
                launch.launch(LaunchConfig {
                    grid_dim: (n_groups.min(1 << 30), 1, 1),
                    block_dim: (WG_SIZE, 1, 1),
                    shared_mem_bytes: 0,
                })
            }
            .map_err(driver_error("launching vld_main"))?;
            // Then each block's CRC32.
            let crc_func =
                self.cuda
                    .function("vld", VLD_SOURCE, &[("WG_SIZE", WG_SIZE)], "vld_block_crcs")?;
            let n_blocks = plan.blocks.len() as u32;
            let crcs = statuses + at.crcs as u64;
            let mut launch = stream.launch_builder(&crc_func);
            launch.arg(&n_blocks).arg(&blocks).arg(&output).arg(&crcs);
            // SAFETY: block tasks bound the output bytes each thread reads (below
            // `out_bytes`), and `crcs` holds a word per block.
            unsafe {
                launch.launch(LaunchConfig {
                    grid_dim: (n_blocks.div_ceil(WG_SIZE).clamp(1, 1 << 16), 1, 1),
                    block_dim: (WG_SIZE, 1, 1),
                    shared_mem_bytes: 0,
                })
            }
            .map_err(driver_error("launching vld_block_crcs"))?;
        }
        end.record(stream)
            .map_err(driver_error("recording an event"))?;
        let back_end = at.crcs + plan.blocks.len() * 4;
        let mut host = self.cuda.pinned_buffer(back_end)?;
        stream
            .memcpy_dtoh(&readback.slice(..back_end), &mut host.bytes()?[..back_end])
            .map_err(driver_error(
                "reading the block statuses, output and CRC32s back",
            ))?;
        host.queued(stream)?;
        let back = &host.bytes()?[..back_end];
        let seconds = start
            .elapsed_ms(&end)
            .map_err(driver_error("reading CUDA events"))? as f64
            / 1e3;
        let status: Vec<[u32; 2]> = bytemuck::pod_collect_to_vec(&back[..at.status_bytes]);
        // A batch with a fault has no output: no copy for it.
        let bytes = if status.iter().all(|s| s[0] == 0) {
            let mut bytes = self.cuda.host_vec(plan.out_bytes as usize);
            // On all cores: one core's copy of 32 MiB takes milliseconds.
            bytes
                .par_chunks_mut(COPY_PART)
                .zip(back[at.output..at.output + plan.out_bytes as usize].par_chunks(COPY_PART))
                .for_each(|(d, s)| d.copy_from_slice(s));
            bytes
        } else {
            Vec::new()
        };
        let crcs: Vec<u32> = bytemuck::pod_collect_to_vec(&back[at.crcs..]);
        Ok((plan.output(bytes, &status, Some(&crcs)), seconds))
    }

    /// Upload, decode and read back one batch.
    pub fn decode(&self, frames: &[VldFrame<'_>]) -> Result<VldOutput> {
        Ok(self.decode_uploaded(&self.upload(frames)?)?.0)
    }
}

/// Bytes of the readback one task copies out of pinned memory.
const COPY_PART: usize = 1 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every part lies inside its buffer, aligned, at least 16 bytes from the next one,
    /// and no part overlaps another, whatever the batch (empty ones included).
    #[test]
    fn layout_parts_are_aligned_and_apart() {
        let lengths = [8u8; 256];
        let payload = vec![0u8; 1 << 12];
        for (n, block_symbols, bits) in
            [(0usize, 1u64, 0u64), (1, 1, 8), (3, 5, 100), (70, 4, 4000)]
        {
            let offsets: Vec<u64> = (0..n as u64).map(|b| b * 8 * block_symbols).collect();
            let frame = VldFrame {
                lengths: &lengths,
                other_codes: [0; 16],
                order: crate::bits::BitOrder::MsbFirst,
                len: n as u64 * block_symbols,
                block_symbols,
                payload_bits: bits.max(n as u64 * 8 * block_symbols),
                offsets: &offsets,
                payload: &payload,
            };
            let frames = vec![frame; 1 + n % 3];
            let plan = VldPlan::new(&frames, WG_SIZE).unwrap();
            let at = Layout::of(&plan);
            let parts = [
                (0, plan.payload_words as usize * 4),
                (at.tables, plan.table_words() * 4),
                (at.blocks, plan.blocks.len() * 16),
                (at.groups, plan.groups.len() * 16),
                (at.upload, 0),
            ];
            for w in parts.windows(2) {
                assert_eq!(w[0].0 % Layout::ALIGN, 0, "{at:?}");
                assert!(w[0].0 + w[0].1.max(16) <= w[1].0, "{at:?}");
            }
            assert_eq!(at.output % Layout::ALIGN, 0);
            assert!(
                at.status_bytes == plan.blocks.len() * 8 && at.status_bytes.max(16) <= at.output
            );
            assert_eq!(at.crcs % Layout::ALIGN, 0);
            assert!(at.output + (plan.out_bytes as usize).max(16) <= at.crcs);
            assert_eq!(at.readback, at.crcs + (plan.blocks.len() * 4).max(16));
        }
    }
}
