//! Every planned frame's code table built on the GPU (shaders/huffman/frame_tables.wgsl)
//! from the code lengths of a frame plan, recorded after the plan in the same submission:
//! the framed encode reads each frame's table from the slot of its first cell, so the
//! host neither builds nor uploads the tables (512 words a frame, hundreds of frames a
//! chunk). CPU twin: [`frame_table_cpu`], which every table equals word for word; a cell
//! where no frame starts, or whose frame's code the plan left to the host (deeper than 15
//! bits), is left unwritten, and the host writes that frame's table into its slot.

use wgpu::util::DeviceExt;

use super::cuvle::gpu_table_words;
use super::deflate_head::{read_cells, upload_plan_of_frames};
use super::frames::FRAME_MAX_CODE_LEN;
use super::Codebook;
use crate::gpu::registry::huffman::FRAME_TABLES;
use crate::gpu::{Gpu, GpuStage, PooledBuffer, Profiler};
use crate::{Error, Result};

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/huffman/frame_tables.wgsl `FrameTablesParams` and
/// shaders/cuda/frame_tables.cu `FrameTablesParams`
pub(crate) struct FrameTablesParams {
    n_cells: u32,
    alphabet: u32,
    _pad: [u32; 2],
}

impl FrameTablesParams {
    /// The tables of a plan of `n_cells` cells whose frames' codes have `alphabet` symbols.
    pub(crate) fn new(n_cells: usize, alphabet: usize) -> Result<Self> {
        let n = u32::try_from(n_cells)
            .ok()
            .filter(|n| *n > 0 && (*n as usize) < u32::MAX as usize / TABLE_WORDS)
            .ok_or_else(|| Error::TooLarge(format!("code tables of {n_cells} cells")))?;
        Ok(FrameTablesParams {
            n_cells: n,
            alphabet: alphabet as u32,
            _pad: [0; 2],
        })
    }
}

/// Words of a frame's table: the framed CUVLE kernel's ([`gpu_table_words`]).
pub(crate) use super::cuvle::TABLE_WORDS;

/// Whether a frame's code is deeper than the device builds its table for (the host
/// builds it).
fn too_deep_for_the_device(lengths: &[u8]) -> bool {
    lengths.iter().any(|&l| l > FRAME_MAX_CODE_LEN)
}

/// Record the tables of the frames of a plan of `n_cells` cells (`plan`, laid out as
/// [`super::frame_plan::PlanWords`]) whose codes have `alphabet` symbols into `encoder`: [`TABLE_WORDS`]
/// words a cell, a frame's at its first cell.
pub(crate) fn record_frame_tables(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    plan: &wgpu::Buffer,
    n_cells: usize,
    alphabet: usize,
    profiler: Option<&mut Profiler>,
) -> Result<PooledBuffer> {
    let params = FrameTablesParams::new(n_cells, alphabet)?;
    let params_buffer = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("parvlc.huffman.frame_tables.params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
    let tables = gpu.pooled_buffer(
        (n_cells * TABLE_WORDS * 4) as u64,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    );
    // A workgroup a cell, an invocation a byte value.
    let built = gpu.pipeline(&FRAME_TABLES, "main", &[("WG_SIZE", 256.0)])?;
    let entries = [
        (0, params_buffer.as_entire_buffer_binding()),
        (1, plan.as_entire_buffer_binding()),
        (2, tables.as_entire_buffer_binding()),
    ];
    let timestamp_writes = profiler.and_then(|p| p.pass(FRAME_TABLES.label));
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(FRAME_TABLES.label),
        timestamp_writes,
    });
    pass.set_pipeline(&built.pipeline);
    pass.set_bind_group(0, &gpu.bind(&built, &entries), &[]);
    let groups = params
        .n_cells
        .min(gpu.limits.max_compute_workgroups_per_dimension);
    pass.dispatch_workgroups(groups, 1, 1);
    drop(pass);
    Ok(tables)
}

/// The table in slot `c` of the words read back.
pub(crate) fn table_at(words: &[u32], c: usize) -> Result<Vec<u32>> {
    words
        .get(c * TABLE_WORDS..(c + 1) * TABLE_WORDS)
        .map(<[u32]>::to_vec)
        .ok_or_else(|| Error::Gpu {
            stage: FRAME_TABLES.name,
            message: format!("{} table words read for cell {c}", words.len()),
        })
}

/// The CPU twin of one frame's table: the canonical code of its `lengths` (the byte
/// values', then gzip's end-of-block's where there are 257), as the framed kernel reads it.
pub fn frame_table_cpu(lengths: &[u8]) -> Result<Vec<u32>> {
    Ok(gpu_table_words(&Codebook::from_lengths(lengths)?.table()?).to_vec())
}

/// The CPU twin of the table stages (wgpu's [`FrameTablesStage`], and CUDA's) on `input`,
/// one frame's literal/length code lengths (257) a set: each frame's table, none for a
/// code deeper than the plan builds on the device.
pub fn frame_tables_cpu(input: &[Vec<u8>]) -> Result<Vec<Option<Vec<u32>>>> {
    input
        .iter()
        .map(|lengths| match too_deep_for_the_device(lengths) {
            true => Ok(None),
            false => frame_table_cpu(lengths).map(Some),
        })
        .collect()
}

/// The tables of the plan of `input`'s frames read back from `words` (a slot a frame),
/// none where a frame's code is deeper than the device builds.
pub(crate) fn tables_of_frames(input: &[Vec<u8>], words: &[u32]) -> Result<Vec<Option<Vec<u32>>>> {
    input
        .iter()
        .enumerate()
        .map(|(c, lengths)| match too_deep_for_the_device(lengths) {
            true => Ok(None),
            false => table_at(words, c).map(Some),
        })
        .collect()
}

/// The table stage on its own, for tests and benches: literal/length code lengths in
/// (257 each, one frame a set, laid out as the frame plan lays them), each frame's
/// table out.
pub struct FrameTablesStage<'g>(pub &'g Gpu);

impl GpuStage for FrameTablesStage<'_> {
    type Input<'a> = [Vec<u8>];
    type Uploaded = (wgpu::Buffer, usize);
    type Pending = PooledBuffer;
    type Report = Vec<Option<Vec<u32>>>;
    type Output = Vec<Option<Vec<u32>>>;

    fn gpu(&self) -> &Gpu {
        self.0
    }

    fn label(&self) -> &'static str {
        FRAME_TABLES.label
    }

    async fn upload(&self, input: &Self::Input<'_>) -> Result<(wgpu::Buffer, usize)> {
        upload_plan_of_frames(self.0, "parvlc.huffman.frame_tables.plan", input)
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (plan, n): &(wgpu::Buffer, usize),
    ) -> Result<PooledBuffer> {
        let alphabet = super::gzip::LITERAL_SYMBOLS;
        record_frame_tables(self.0, encoder, plan, (*n).max(1), alphabet, None)
    }

    async fn finish(
        &self,
        input: &Self::Input<'_>,
        _uploaded: &(wgpu::Buffer, usize),
        tables: PooledBuffer,
    ) -> Result<Vec<Option<Vec<u32>>>> {
        let words = read_cells(self.0, &tables, input.len(), TABLE_WORDS).await?;
        tables_of_frames(input, &words)
    }

    fn output(report: Vec<Option<Vec<u32>>>) -> Vec<Option<Vec<u32>>> {
        report
    }

    fn cpu(&self, input: &Self::Input<'_>) -> Result<Vec<Option<Vec<u32>>>> {
        frame_tables_cpu(input)
    }
}
