//! VLD on CUDA (shaders/cuda/vld.cu): the twin of [`crate::huffman::vld::VldDecoder`]
//! step for step, on the same plan (tables, block tasks, groups, payload words), so its
//! output and per-block faults are the wgpu kernel's and the CPU twin's. It decodes native
//! v2 frames on NVIDIA GPUs and lets Nsight Compute, which cannot profile Vulkan, show
//! where a per-block decode spends its cycles.

use cudarc::driver::{CudaSlice, DevicePtr, DeviceRepr, LaunchConfig, PushKernelArg};

use super::{driver_error, CudaGpu};
use crate::huffman::vld::{VldFrame, VldOutput, VldPlan, MAX_GPU_BLOCK_SYMBOLS, TABLE_WORDS};
use crate::{Error, Result};

pub(crate) const VLD_SOURCE: &str = include_str!("../../shaders/cuda/vld.cu");

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

/// A batch of frames resident on the device, with its plan.
pub struct CudaVldInput {
    plan: VldPlan,
    payload: CudaSlice<u32>,
    tables: CudaSlice<u32>,
    blocks: CudaSlice<u32>,
    groups: CudaSlice<u32>,
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
    /// memory (the streaming decoder holds several batches on it at once).
    pub fn fits(&self, frames: u64, blocks: u64, payload_bytes: u64, out_bytes: u64) -> bool {
        let words = u32::MAX as u64;
        let table_words = frames * TABLE_WORDS as u64;
        // Payload, tables, output, and per block its task, its group at most and status.
        let device = payload_bytes + table_words * 4 + out_bytes + blocks * (16 + 16 + 8);
        payload_bytes.div_ceil(4) <= words
            && out_bytes <= words
            && table_words <= words
            && blocks <= words
            && device <= self.cuda.total_memory() / 4
    }

    /// Plan a batch and copy its payload, tables and tasks to the device.
    pub fn upload(&self, frames: &[VldFrame<'_>]) -> Result<CudaVldInput> {
        let plan = VldPlan::new(frames, WG_SIZE)?;
        let stream = &self.cuda.stream;
        // Never an empty allocation: the kernel's pointers must be valid even unused.
        let put = |words: &[u32], what: &str| -> Result<CudaSlice<u32>> {
            let padded;
            let words = if words.is_empty() {
                padded = [0u32; 4];
                &padded[..]
            } else {
                words
            };
            stream
                .clone_htod(words)
                .map_err(driver_error(&format!("copying the {what} to the device")))
        };
        Ok(CudaVldInput {
            payload: put(&plan.payload(frames), "payload")?,
            tables: put(&plan.tables(frames)?, "decode tables")?,
            blocks: put(bytemuck::cast_slice(&plan.blocks), "block tasks")?,
            groups: put(bytemuck::cast_slice(&plan.groups), "groups")?,
            plan,
        })
    }

    /// Decode an uploaded batch: the output (or every block's fault) and the kernel's
    /// time in seconds by CUDA events.
    pub fn decode_uploaded(&self, input: &CudaVldInput) -> Result<(VldOutput, f64)> {
        let plan = &input.plan;
        let stream = &self.cuda.stream;
        let out_words = (plan.out_bytes.div_ceil(4) as usize).max(4);
        // Zeroed: words two blocks share are OR-ed into it (cudarc zeroes on allocation).
        let mut output = stream
            .alloc_zeros::<u32>(out_words)
            .map_err(driver_error("allocating the output"))?;
        let mut status = stream
            .alloc_zeros::<u32>((plan.blocks.len() * 2).max(2))
            .map_err(driver_error("allocating the block statuses"))?;
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
            let (payload, _p) = input.payload.device_ptr(stream);
            let (tables, _t) = input.tables.device_ptr(stream);
            let (blocks, _b) = input.blocks.device_ptr(stream);
            let (groups, _g) = input.groups.device_ptr(stream);
            let mut launch = stream.launch_builder(&func);
            launch
                .arg(&args)
                .arg(&payload)
                .arg(&tables)
                .arg(&blocks)
                .arg(&groups)
                .arg(&mut output)
                .arg(&mut status);
            // SAFETY: the plan bounds every index the kernel takes: groups and blocks by
            // their counts, table words by the frame count, output words by `out_bytes`
            // (every block's words lie below it), payload reads by `payload_words`.
            unsafe {
                launch.launch(LaunchConfig {
                    grid_dim: (n_groups.min(1 << 30), 1, 1),
                    block_dim: (WG_SIZE, 1, 1),
                    shared_mem_bytes: 0,
                })
            }
            .map_err(driver_error("launching vld_main"))?;
        }
        end.record(stream)
            .map_err(driver_error("recording an event"))?;
        let status: Vec<u32> = stream
            .clone_dtoh(&status)
            .map_err(driver_error("reading the block statuses back"))?;
        let words: Vec<u32> = stream
            .clone_dtoh(&output)
            .map_err(driver_error("reading the output back"))?;
        let seconds = start
            .elapsed_ms(&end)
            .map_err(driver_error("reading CUDA events"))? as f64
            / 1e3;
        let mut bytes: Vec<u8> = bytemuck::cast_slice(&words).to_vec();
        bytes.truncate(plan.out_bytes as usize);
        let status: Vec<[u32; 2]> = status
            .chunks_exact(2)
            .take(plan.blocks.len())
            .map(|s| [s[0], s[1]])
            .collect();
        Ok((plan.output(bytes, &status), seconds))
    }

    /// Upload, decode and read back one batch.
    pub fn decode(&self, frames: &[VldFrame<'_>]) -> Result<VldOutput> {
        Ok(self.decode_uploaded(&self.upload(frames)?)?.0)
    }
}
