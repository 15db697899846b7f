//! Gzip frames' DEFLATE block headers built on CUDA (shaders/cuda/deflate_head.cu) from the
//! code lengths of a frame plan on the device: the twin of the wgpu `deflate_head` stage
//! (src/huffman/deflate_head.rs), in its output words, read with its reader.

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::CudaVleEncoder;
use crate::bits::BitBuf;
use crate::cuda::driver_error;
use crate::huffman::deflate_head::{head_of, plan_of_frames, HEAD_WORDS};
use crate::{Error, Result};

pub(crate) const DEFLATE_HEAD_SOURCE: &str = include_str!("../../../shaders/cuda/deflate_head.cu");

/// Threads of a block (the kernel's `WG_SIZE`): they load the lengths and store the
/// header, which one of them builds.
const BLOCK_THREADS: u32 = 64;

impl CudaVleEncoder<'_> {
    /// Launch the headers of the gzip frames of a plan of `n_cells` cells on the device
    /// (`plan`, laid out as the frame plan's words): [`HEAD_WORDS`] words a cell, every
    /// cell's written (no header: its bit count 0).
    pub(crate) fn launch_deflate_heads(
        &self,
        plan: &CudaSlice<u32>,
        n_cells: usize,
    ) -> Result<CudaSlice<u32>> {
        let n = u32::try_from(n_cells)
            .ok()
            .filter(|n| *n > 0 && (*n as usize) < u32::MAX as usize / HEAD_WORDS)
            .ok_or_else(|| Error::TooLarge(format!("DEFLATE headers of {n_cells} cells")))?;
        let stream = &self.stream;
        let func = self
            .cuda
            .function("deflate_head", DEFLATE_HEAD_SOURCE, &[], "deflate_head")?;
        // SAFETY: the kernel writes every cell's first word, and all of a header's
        // words where it writes one; the reader reads no further than its bit count.
        let mut heads = unsafe { stream.alloc::<u32>(n_cells * HEAD_WORDS) }
            .map_err(driver_error("allocating the DEFLATE headers"))?;
        let mut launch = stream.launch_builder(&func);
        launch.arg(&n).arg(plan).arg(&mut heads);
        // SAFETY: the kernel reads the plan's words of `n` cells and writes `n` cells'
        // HEAD_WORDS words (grid-strided).
        unsafe {
            launch.launch(LaunchConfig {
                grid_dim: (n.min(1 << 16), 1, 1),
                block_dim: (BLOCK_THREADS, 1, 1),
                shared_mem_bytes: 0,
            })
        }
        .map_err(driver_error("launching deflate_head"))?;
        drop(launch);
        Ok(heads)
    }

    /// The DEFLATE header of each frame of literal/length code lengths (257 each), built
    /// on the device as the stream coder builds them: to compare with the CPU twin
    /// ([`crate::huffman::deflate_head::deflate_heads_cpu`]). None for a code deeper than
    /// DEFLATE allows.
    pub fn deflate_heads(&self, lengths: &[Vec<u8>]) -> Result<Vec<Option<BitBuf>>> {
        let words = plan_of_frames(lengths)?;
        let plan = self.cuda.clone_staged(&self.stream, &words)?;
        let heads = self.launch_deflate_heads(&plan, lengths.len().max(1))?;
        let words = self
            .stream
            .clone_dtoh(&heads)
            .map_err(driver_error("reading the DEFLATE headers back"))?;
        (0..lengths.len()).map(|c| head_of(&words, c)).collect()
    }
}
