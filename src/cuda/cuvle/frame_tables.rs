//! Every planned frame's code table built on CUDA (shaders/cuda/frame_tables.cu) from the
//! code lengths of a frame plan on the device: the twin of the wgpu `frame_tables` stage
//! (src/huffman/frame_tables.rs), in its words (a table a cell, at a frame's first), which
//! the framed encode reads where they lie.

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::CudaVleEncoder;
use crate::cuda::driver_error;
use crate::huffman::deflate_head::plan_of_frames;
use crate::huffman::frame_tables::{tables_of_frames, FrameTablesParams, TABLE_WORDS};
use crate::huffman::gzip::LITERAL_SYMBOLS;
use crate::Result;

pub(crate) const FRAME_TABLES_SOURCE: &str = include_str!("../../../shaders/cuda/frame_tables.cu");

/// Threads of a block: a thread a byte value (the kernel's `WG_SIZE`).
const BLOCK_THREADS: u32 = 256;

// SAFETY: plain #[repr(C)] integer fields, the layout of the kernel's struct.
unsafe impl cudarc::driver::DeviceRepr for FrameTablesParams {}

impl CudaVleEncoder<'_> {
    /// Launch the tables of the frames of a plan of `n_cells` cells on the device (`plan`,
    /// laid out as the frame plan's words) whose codes have `alphabet` symbols:
    /// [`TABLE_WORDS`] words a cell, written at the cells where frames start.
    pub(crate) fn launch_frame_tables(
        &self,
        plan: &CudaSlice<u32>,
        n_cells: usize,
        alphabet: usize,
    ) -> Result<CudaSlice<u32>> {
        let params = FrameTablesParams::new(n_cells, alphabet)?;
        let stream = &self.stream;
        let func = self
            .cuda
            .function("frame_tables", FRAME_TABLES_SOURCE, &[], "frame_tables")?;
        // SAFETY: the kernel writes the slots of the frames it builds; the encode reads
        // only the slots its block map names, each a frame's, written by the kernel or
        // by the host (`upload_slotted_frames`) before it.
        let mut tables = unsafe { stream.alloc::<u32>(n_cells * TABLE_WORDS) }
            .map_err(driver_error("allocating the frames' tables"))?;
        let mut launch = stream.launch_builder(&func);
        launch.arg(&params).arg(plan).arg(&mut tables);
        // SAFETY: the kernel reads the plan's words of `n_cells` cells and writes within
        // `n_cells` slots of TABLE_WORDS words (grid-strided).
        unsafe {
            launch.launch(LaunchConfig {
                grid_dim: ((n_cells as u32).min(1 << 16), 1, 1),
                block_dim: (BLOCK_THREADS, 1, 1),
                shared_mem_bytes: 0,
            })
        }
        .map_err(driver_error("launching frame_tables"))?;
        drop(launch);
        Ok(tables)
    }

    /// The table of each frame of literal/length code lengths (257 each), built on the
    /// device as the stream coder builds them: to compare with the CPU twin
    /// ([`crate::huffman::frame_tables::frame_tables_cpu`]). None for a code deeper than
    /// the device builds.
    pub fn frame_tables(&self, lengths: &[Vec<u8>]) -> Result<Vec<Option<Vec<u32>>>> {
        let words = plan_of_frames(lengths)?;
        let plan = self.cuda.clone_staged(&self.stream, &words)?;
        let tables = self.launch_frame_tables(&plan, lengths.len().max(1), LITERAL_SYMBOLS)?;
        let words = self
            .stream
            .clone_dtoh(&tables)
            .map_err(driver_error("reading the frames' tables back"))?;
        tables_of_frames(lengths, &words)
    }
}
