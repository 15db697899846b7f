//! The CRC32 of every block of a chunk on CUDA (shaders/cuda/block_crc.cu): the twin of
//! the wgpu `block_crc` stage (src/huffman/block_crc.rs), which the stream coder reads
//! back with its frame plan and folds into each frame's CRC32, so that no core reads the
//! chunk's bytes again for its checksums.

use cudarc::driver::{CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};

use super::{CudaInput, CudaVleEncoder};
use crate::cuda::driver_error;
use crate::huffman::block_crc::BlockCrcParams;
use crate::Result;

pub(crate) const BLOCK_CRC_SOURCE: &str = concat!(
    include_str!("../../../shaders/cuda/crc32.cuh"),
    include_str!("../../../shaders/cuda/block_crc.cu")
);

/// Threads of a block (the kernel's `WG_SIZE`): a warp an input block.
const BLOCK_THREADS: u32 = 256;

// SAFETY: plain #[repr(C)] u32 fields, the layout of the kernel's struct.
unsafe impl cudarc::driver::DeviceRepr for BlockCrcParams {}

impl CudaVleEncoder<'_> {
    /// Launch the CRC32 of every `block_bytes` block of `input` (the last one maybe
    /// shorter) on the encoder's stream, a word a block; None for no bytes.
    pub(crate) fn launch_block_crcs(
        &self,
        input: &CudaInput,
        block_bytes: u64,
    ) -> Result<Option<CudaSlice<u32>>> {
        let n_blocks = input.n_bytes.div_ceil(block_bytes.max(1));
        if n_blocks == 0 {
            return Ok(None);
        }
        let params = BlockCrcParams::new(input.n_bytes, block_bytes, 0)?;
        let stream = &self.stream;
        let func = self
            .cuda
            .function("block_crc", BLOCK_CRC_SOURCE, &[], "block_crc")?;
        // SAFETY: the kernel writes every one of the `n_blocks` words.
        let mut crcs = unsafe { stream.alloc::<u32>(n_blocks as usize) }
            .map_err(driver_error("allocating the block CRC32s"))?;
        let warps = BLOCK_THREADS / 32;
        let (input_ptr, _in) = input.buffer.device_ptr(stream);
        let mut launch = stream.launch_builder(&func);
        launch.arg(&params).arg(&input_ptr).arg(&mut crcs);
        // SAFETY: the kernel reads the input's `n_bytes` bytes (in 16-byte loads within its
        // padding) and writes one word a block (grid-strided).
        unsafe {
            launch.launch(LaunchConfig {
                grid_dim: ((n_blocks.div_ceil(warps as u64)).min(1 << 16) as u32, 1, 1),
                block_dim: (BLOCK_THREADS, 1, 1),
                shared_mem_bytes: 0,
            })
        }
        .map_err(driver_error("launching block_crc"))?;
        drop(launch);
        Ok(Some(crcs))
    }

    /// The CRC32 of every `block_bytes` block of `input`, on the device, read back: to
    /// compare with the CPU twin ([`crate::huffman::block_crc::block_crcs_cpu`]).
    pub fn block_crcs(&self, input: &CudaInput, block_bytes: u64) -> Result<Vec<u32>> {
        match self.launch_block_crcs(input, block_bytes)? {
            None => Ok(Vec::new()),
            Some(crcs) => self.read_block_crcs(&crcs),
        }
    }

    /// Block CRC32s read back from [`Self::launch_block_crcs`] (waits for them).
    pub(crate) fn read_block_crcs(&self, crcs: &CudaSlice<u32>) -> Result<Vec<u32>> {
        self.stream
            .clone_dtoh(crcs)
            .map_err(driver_error("reading the block CRC32s back"))
    }
}
