//! A gzip frame's DEFLATE block header built on the GPU (shaders/huffman/deflate_head.wgsl)
//! from the code lengths the frame plan built, recorded after the plan in the same
//! submission and read back with it: the host lays the frames out and writes their
//! headers without building any. CPU twin: [`deflate_block_header_with`] (BFINAL = 0),
//! which every header equals bit for bit; a frame whose code the plan left to the host
//! (deeper than 15 bits) has no header here, and the host builds it.

use wgpu::util::DeviceExt;

use super::frame_plan::{PlanWords, LENGTH_WORDS};
use super::gzip::{deflate_block_header_with, HEADER_MAX_BYTES, LITERAL_SYMBOLS};
use super::Codebook;
use crate::bits::BitBuf;
use crate::gpu::registry::huffman::DEFLATE_HEAD;
use crate::gpu::{Gpu, GpuStage, PooledBuffer, Profiler};
use crate::{Error, Result};

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/huffman/deflate_head.wgsl `DeflateHeadParams`
struct DeflateHeadParams {
    n_cells: u32,
    _pad: [u32; 3],
}

/// Words a cell's header takes: its bits, then the longest header's bytes.
/// keep in sync with shaders/huffman/deflate_head.wgsl `HEAD_WORDS`
pub(crate) const HEAD_WORDS: usize = 1 + HEADER_MAX_BYTES.div_ceil(4);

/// Record the headers of the gzip frames of a plan of `n_cells` cells (`plan`, laid out
/// as [`PlanWords`]) into `encoder`: [`HEAD_WORDS`] words a cell, to read back whole.
pub(crate) fn record_deflate_heads(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    plan: &wgpu::Buffer,
    n_cells: usize,
    profiler: Option<&mut Profiler>,
) -> Result<PooledBuffer> {
    let n = u32::try_from(n_cells)
        .ok()
        .filter(|n| (*n as usize) < u32::MAX as usize / HEAD_WORDS)
        .ok_or_else(|| Error::TooLarge(format!("DEFLATE headers of {n_cells} cells")))?;
    let params = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("parvlc.huffman.deflate_head.params"),
            contents: bytemuck::bytes_of(&DeflateHeadParams {
                n_cells: n,
                _pad: [0; 3],
            }),
            usage: wgpu::BufferUsages::UNIFORM,
        });
    let heads = gpu.pooled_buffer(
        (n_cells * HEAD_WORDS * 4) as u64,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    // A workgroup a cell, an invocation a code length or two.
    let built = gpu.pipeline(&DEFLATE_HEAD, "main", &[("WG_SIZE", 128.0)])?;
    let entries = [
        (0, params.as_entire_buffer_binding()),
        (1, plan.as_entire_buffer_binding()),
        (2, heads.as_entire_buffer_binding()),
    ];
    let timestamp_writes = profiler.and_then(|p| p.pass(DEFLATE_HEAD.label));
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(DEFLATE_HEAD.label),
        timestamp_writes,
    });
    pass.set_pipeline(&built.pipeline);
    pass.set_bind_group(0, &gpu.bind(&built, &entries), &[]);
    let groups = n.clamp(1, gpu.limits.max_compute_workgroups_per_dimension);
    pass.dispatch_workgroups(groups, 1, 1);
    drop(pass);
    Ok(heads)
}

/// The header of the frame that starts at cell `c`, from the words read back (None where
/// the GPU built none). A size no header can have is the GPU's error.
pub(crate) fn head_of(heads: &[u32], c: usize) -> Result<Option<BitBuf>> {
    let at = c * HEAD_WORDS;
    let Some(words) = heads.get(at..at + HEAD_WORDS) else {
        return Err(Error::Gpu {
            stage: DEFLATE_HEAD.name,
            message: format!("{} header words read for cell {c}", heads.len()),
        });
    };
    let bits = words[0] as u64;
    if bits == 0 {
        return Ok(None);
    }
    // The fixed fields, four 3-bit lengths at least, and one entry.
    if bits < 30 || bits > 8 * HEADER_MAX_BYTES as u64 {
        return Err(Error::Gpu {
            stage: DEFLATE_HEAD.name,
            message: format!("a header of {bits} bits for the frame at cell {c}"),
        });
    }
    let mut bytes: Vec<u8> = bytemuck::cast_slice(&words[1..]).to_vec();
    bytes.truncate(bits.div_ceil(8) as usize);
    Ok(Some(BitBuf { bytes, bits }))
}

/// A plan of one-cell frames with these literal/length code lengths (257 each), laid out
/// as [`PlanWords`] (each cell starts a frame, its deepest length beside its lengths, as
/// the frame plan writes them): the header stages' input in tests and benches.
pub(crate) fn plan_of_frames(input: &[Vec<u8>]) -> Result<Vec<u32>> {
    let layout = PlanWords {
        n_cells: input.len().max(1),
    };
    let mut words = vec![0u32; layout.read_back()];
    for (c, lengths) in input.iter().enumerate() {
        if lengths.len() != LITERAL_SYMBOLS {
            return Err(Error::InvalidArgument(format!(
                "frame {c} has {} code lengths, DEFLATE's literal code {LITERAL_SYMBOLS}",
                lengths.len()
            )));
        }
        words[c] = 1;
        words[layout.info(c) + 1] = lengths.iter().copied().max().unwrap_or(0) as u32;
        let mut packed = [0u8; 4 * LENGTH_WORDS];
        packed[..LITERAL_SYMBOLS].copy_from_slice(lengths);
        let at = layout.lengths(c);
        words[at..at + LENGTH_WORDS].copy_from_slice(bytemuck::cast_slice(&packed));
    }
    Ok(words)
}

/// The plan of one-cell frames with the code lengths `input` holds ([`plan_of_frames`])
/// in a buffer labelled `label`, for a stage that reads a plan's lengths; and the
/// frames' count.
pub(crate) fn upload_plan_of_frames(
    gpu: &Gpu,
    label: &str,
    input: &[Vec<u8>],
) -> Result<(wgpu::Buffer, usize)> {
    let words = plan_of_frames(input)?;
    let buffer = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(&words),
            usage: wgpu::BufferUsages::STORAGE,
        });
    Ok((buffer, input.len()))
}

/// The words a stage wrote for `n_cells` cells (at least one) of `per_cell` words each.
pub(crate) async fn read_cells(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    n_cells: usize,
    per_cell: usize,
) -> Result<Vec<u32>> {
    let bytes = gpu
        .read_buffer(buffer, 0, (n_cells.max(1) * per_cell * 4) as u64)
        .await?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}

/// The CPU twin of the header stages (wgpu's [`DeflateHeadStage`], and CUDA's) on `input`,
/// literal/length code lengths (257 a frame): each frame's header, none for a code deeper
/// than DEFLATE allows.
pub fn deflate_heads_cpu(input: &[Vec<u8>]) -> Result<Vec<Option<BitBuf>>> {
    input
        .iter()
        .map(|lengths| {
            if lengths.iter().any(|&l| l > super::gzip::MAX_LITERAL_LEN) {
                return Ok(None);
            }
            let book = Codebook::from_lengths(lengths)?;
            deflate_block_header_with(&book, false).map(Some)
        })
        .collect()
}

/// The header stage on its own, for tests and benches: literal/length code lengths in
/// (257 each, one frame a set, as the frame plan lays them out), each frame's header out.
pub struct DeflateHeadStage<'g>(pub &'g Gpu);

impl GpuStage for DeflateHeadStage<'_> {
    type Input<'a> = [Vec<u8>];
    type Uploaded = (wgpu::Buffer, usize);
    type Pending = PooledBuffer;
    type Report = Vec<Option<BitBuf>>;
    type Output = Vec<Option<BitBuf>>;

    fn gpu(&self) -> &Gpu {
        self.0
    }

    fn label(&self) -> &'static str {
        DEFLATE_HEAD.label
    }

    async fn upload(&self, input: &Self::Input<'_>) -> Result<(wgpu::Buffer, usize)> {
        upload_plan_of_frames(self.0, "parvlc.huffman.deflate_head.plan", input)
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (plan, n): &(wgpu::Buffer, usize),
    ) -> Result<PooledBuffer> {
        record_deflate_heads(self.0, encoder, plan, (*n).max(1), None)
    }

    async fn finish(
        &self,
        input: &Self::Input<'_>,
        _uploaded: &(wgpu::Buffer, usize),
        heads: PooledBuffer,
    ) -> Result<Vec<Option<BitBuf>>> {
        let words = read_cells(self.0, &heads, input.len(), HEAD_WORDS).await?;
        (0..input.len()).map(|c| head_of(&words, c)).collect()
    }

    fn output(report: Vec<Option<BitBuf>>) -> Vec<Option<BitBuf>> {
        report
    }

    fn cpu(&self, input: &Self::Input<'_>) -> Result<Vec<Option<BitBuf>>> {
        deflate_heads_cpu(input)
    }
}
