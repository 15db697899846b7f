//! A chunk's frames planned on CUDA (shaders/cuda/frame_plan.cu): the cells' histograms,
//! the cells merged into frames, every frame's code lengths and (gzip) its DEFLATE header
//! (shaders/cuda/deflate_head.cu) on the device, the twins of the wgpu frame plan and
//! header stages (src/huffman/frame_plan.rs, deflate_head.rs), in their words, so that
//! the host reads them with the same reader and only turns lengths into codes.

use cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};

use super::histograms::cell_histograms;
use super::{CudaInput, CudaVleEncoder};
use crate::cuda::driver_error;
use crate::huffman::compress::Format;
use crate::huffman::frame_plan::{
    frame_alphabet, frames_from_plan, summaries, FramePlanParams, PlanWords, PlannedSummary,
};
use crate::huffman::frames::{log2_segments, FrameConfig};
use crate::{Error, Result};

pub(crate) const FRAME_PLAN_SOURCE: &str = include_str!("../../../shaders/cuda/frame_plan.cu");

/// Threads of a block: a thread a byte value (the kernels' `WG_SIZE`).
const BLOCK_THREADS: u32 = 256;

/// keep in sync with shaders/cuda/frame_plan.cu `FramePlanArgs`
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct FramePlanArgs {
    /// The wgpu plan's parameters, as they are.
    params: FramePlanParams,
    log2_segments: [u32; 257],
}
const _: () = assert!(std::mem::size_of::<FramePlanArgs>() == 4 * (8 + 257));
// SAFETY: plain #[repr(C)] integer fields, the layout of the kernel's struct.
unsafe impl DeviceRepr for FramePlanArgs {}

/// A chunk's plan, read back: its cell histograms and the plan's words
/// ([`PlanWords::read_back`] of them), for [`crate::huffman::frame_plan::frames_from_plan`].
pub(crate) struct CudaFramePlan {
    pub(crate) cells: Vec<[u64; 256]>,
    pub(crate) words: Vec<u32>,
    /// gzip: every cell's header words (`crate::huffman::deflate_head::HEAD_WORDS` a
    /// cell); none for native.
    pub(crate) heads: Vec<u32>,
    /// Every frame's code table, left on the device, in the slot of its first cell
    /// (`crate::huffman::frame_tables::TABLE_WORDS` words a cell).
    pub(crate) tables: CudaSlice<u32>,
    /// The block CRC32s asked for beside the plan, read back with it.
    pub(crate) block_crcs: Vec<u32>,
}

impl CudaVleEncoder<'_> {
    /// The cell histograms of a non-empty `input` (its chunks the frames' cells:
    /// [`Self::with_chunk_bytes`] of `config.cell_bytes`) and its frame plan, on the
    /// device, read back, with the block CRC32s `block_crcs` (launched before) in the
    /// same wait.
    pub(crate) fn frame_plan(
        &self,
        input: &CudaInput,
        format: Format,
        config: &FrameConfig,
        block_crcs: Option<&CudaSlice<u32>>,
    ) -> Result<CudaFramePlan> {
        let n_cells = input.n_chunks();
        let words = PlanWords { n_cells };
        if n_cells == 0 || input.chunk_bytes != config.cell_bytes || !words.addressable() {
            return Err(Error::InvalidArgument(format!(
                "a frame plan of {n_cells} cells of {} bytes for cells of {}",
                input.chunk_bytes, config.cell_bytes
            )));
        }
        let stream = &self.stream;
        let hist = self.histograms_on_device(input)?;
        let args = FramePlanArgs {
            params: FramePlanParams::new(n_cells, input.n_bytes, format, config),
            log2_segments: *log2_segments(),
        };
        // Only frames' first cells are written: the others must read "no frame".
        let mut plan = stream
            .alloc_zeros::<u32>(words.all())
            .map_err(driver_error("allocating the frame plan"))?;
        let merge = self
            .cuda
            .function("frame_plan", FRAME_PLAN_SOURCE, &[], "frame_plan_merge")?;
        let lengths = self.cuda.function(
            "frame_plan",
            FRAME_PLAN_SOURCE,
            &[],
            "frame_plan_code_lengths",
        )?;
        let n_regions = args.params.n_regions();
        let blocks = |n: u32| LaunchConfig {
            grid_dim: (n.min(1 << 16), 1, 1),
            block_dim: (BLOCK_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        {
            let mut launch = stream.launch_builder(&merge);
            launch.arg(&args).arg(&hist).arg(&mut plan);
            // SAFETY: the kernel reads `n_cells * 256` counts and writes within the plan's
            // `words.all()` words (its regions, grid-strided).
            unsafe { launch.launch(blocks(n_regions)) }
                .map_err(driver_error("launching frame_plan_merge"))?;
        }
        {
            let mut launch = stream.launch_builder(&lengths);
            launch.arg(&args).arg(&mut plan);
            // SAFETY: the kernel reads and writes within the plan's `words.all()` words
            // (its frames, grid-strided over cells).
            unsafe { launch.launch(blocks(n_cells as u32)) }
                .map_err(driver_error("launching frame_plan_code_lengths"))?;
        }
        // gzip: every frame's DEFLATE header from its lengths, before the read back.
        let heads = match format {
            Format::Gzip => Some(self.launch_deflate_heads(&plan, n_cells)?),
            Format::Native => None,
        };
        // Every frame's code table from its lengths, for the encode to read where it lies.
        let tables = self.launch_frame_tables(&plan, n_cells, frame_alphabet(format))?;
        // The plan's words, the headers, the histograms and the block CRC32s in one wait.
        let mut views = vec![plan.slice(..words.read_back()), hist.slice(..)];
        views.extend(heads.as_ref().map(|h| h.slice(..)));
        views.extend(block_crcs.map(|c| c.slice(..)));
        let mut read = self.cuda.download_together(stream, &views)?.into_iter();
        let mut next = || read.next().unwrap_or_default();
        let (words, counts) = (next(), next());
        let heads = if heads.is_some() { next() } else { Vec::new() };
        let block_crcs = next();
        Ok(CudaFramePlan {
            cells: cell_histograms(&counts),
            words,
            heads,
            tables,
            block_crcs,
        })
    }

    /// The frames of `input` as the CUDA stream coder plans them (cells, frames and code
    /// lengths on the device; codes and gzip headers on the host), summed up to compare
    /// with the CPU twin's ([`crate::huffman::frame_plan::plan_summaries_cpu`]). The
    /// encoder's chunks must be the frames' cells ([`Self::with_chunk_bytes`]).
    pub fn frame_plan_summaries(
        &self,
        input: &CudaInput,
        format: Format,
        config: &FrameConfig,
    ) -> Result<Vec<PlannedSummary>> {
        if input.is_empty() {
            return Ok(Vec::new());
        }
        let plan = self.frame_plan(input, format, config, None)?;
        let read = frames_from_plan(
            &plan.words,
            &plan.heads,
            &plan.cells,
            input.len(),
            format,
            config,
        )?;
        let tables = self
            .stream
            .clone_dtoh(&plan.tables)
            .map_err(driver_error("reading the frames' tables back"))?;
        summaries(&read.frames, read.heads, &read.slots, &tables, format)
    }
}
