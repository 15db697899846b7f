//! VLD: decoding native v2 frames, and the literals of our gzip frames, on the GPU
//! (shaders/huffman/vld.wgsl) and its CPU twin.
//!
//! A batch of frames goes up as one payload buffer (each frame's payload from a quad of
//! words, as words in stream order: a word's first byte its most significant, swapped
//! on the host while copying, so that the kernel's step takes a word as it is; an
//! LSB-first (DEFLATE) frame's bytes have their bits reversed as well, which makes its
//! codes read as the canonical codes MSB-first, so one kernel takes both), one
//! decode table per frame (9 KiB, built on the host straight into the upload:
//! `vld/table.rs`), and one task per block. The kernel decodes a block per invocation
//! (a workgroup: up to 64 blocks of one frame), writing its own output words, and
//! reports per block whether it ended exactly at its end bit; the host turns any report
//! into an error naming the frame and the block, never into output. A second pass
//! (`block_crcs`) takes each block's CRC32, which the host folds into each frame's
//! (`crate::crc`) for the caller to check.
//!
//! The table (`TABLE_WORDS` words, workgroup memory on the GPU): an 11-bit primary table
//! whose entries give one symbol, or two where both codes fit the 11 bits, with the step
//! a lookup takes where the block has room for two symbols in fields of its own (one
//! field extracted per step, not a choice between two); codes of 12 to 15 bits by a
//! canonical search over their lengths (rare symbols by construction); a lookup that
//! finds no code is an invalid code, and so is a gzip frame's end-of-block (or any code
//! above the bytes), whose place in the canonical order the table keeps empty.

use std::ops::Range;

use crate::bits::BitOrder;
use crate::gpu::registry::huffman::VLD;
use crate::gpu::{Gpu, GpuStage, PooledBuffer, Profiler, Timings};
use crate::Result;

mod cpu;
mod plan;
mod table;

pub use cpu::decode_cpu;
pub(crate) use plan::VldPlan;

/// keep in sync with shaders/huffman/vld.wgsl
const PRIMARY_BITS: u32 = 11;
/// Primary entries: bits 0-3 the first code's length, 4-7 both codes' (0: no pair), 8-15
/// and 16-23 the symbols; where the block has room for two, the lookup's step: its
/// length at `STEP_AT`, its symbols (1 or 2) at `COUNT_AT`.
const STEP_AT: u32 = 24;
const COUNT_AT: u32 = 28;
const PRIMARY: usize = 1 << PRIMARY_BITS;
const LONG_AT: usize = 2048;
const MAX_LEN_AT: usize = 2060;
const SORTED_AT: usize = 2064;
pub(crate) const TABLE_WORDS: usize = 2320;
const LAST_BLOCK: u32 = 0x8000_0000;
const STATUS_INVALID_CODE: u32 = 1;
const STATUS_OVERRUN: u32 = 2;
const STATUS_WRONG_END: u32 = 3;
/// Longest code a native v2 frame holds.
const MAX_LEN: u8 = 15;
/// Zero words after the last frame's payload: the kernel reads up to three words past a
/// block's end bit, unchecked (the CUDA twin up to eleven, in aligned quads).
const READ_AHEAD_WORDS: u64 = 16;
/// Words a frame's payload starts at a multiple of: the CUDA twin loads aligned quads.
const FRAME_WORD_ALIGN: u64 = 4;
/// Largest frame payload: bit positions within a frame are u32 in the kernel, with room
/// for the three words it reads ahead.
const MAX_FRAME_BITS: u64 = u32::MAX as u64 - 96;
/// Bytes of the CUDA twin's output stores; every frame's output starts at a multiple.
pub(crate) const OUT_UNIT: u64 = 16;
/// Bytes of the payload upload one task writes ([`VldPlan::write_payload`]).
const PAYLOAD_PART: usize = 256 << 10;
/// Where [`VldDecoder`] reads its tables unless told.
const DEFAULT_TABLES: VldTables = VldTables::Workgroup;
/// Largest block [`VldDecoder::takes_blocks_of`] takes to the GPU.
pub(crate) const MAX_GPU_BLOCK_SYMBOLS: u64 = 1 << 20;

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/huffman/vld.wgsl `VldParams`
struct VldParams {
    n_groups: u32,
    payload_words: u32,
    n_blocks: u32,
    _pad1: u32,
}

/// One frame as its header and payload give it: a native v2 frame (see
/// [`super::framing`]), or the literals of one of our gzip frames, whose code has symbols
/// above the bytes and whose bits come LSB-first (`super::inflate_gpu`).
#[derive(Clone, Copy, Debug)]
pub struct VldFrame<'a> {
    /// Code lengths of the byte values.
    pub lengths: &'a [u8; 256],
    /// Per length, the codes of symbols above 255 (DEFLATE's end-of-block and length
    /// codes): they take their places in the canonical order after the bytes of their
    /// length, and a block that meets one has an invalid code. None in a native frame.
    pub other_codes: [u8; 16],
    /// Symbols (bytes) of the frame.
    pub len: u64,
    pub block_symbols: u64,
    /// Where the last block ends.
    pub payload_bits: u64,
    /// Bit offset of every block in the payload (native frames: the first at 0).
    pub offsets: &'a [u64],
    /// At least `payload_bits` bits, in `order`.
    pub payload: &'a [u8],
    pub order: BitOrder,
}

/// What went wrong in one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockFault {
    /// No code matches the bits at this payload bit.
    InvalidCode { bit: u64 },
    /// The block passed its end bit (`end`) after `symbols` symbols.
    Overrun { symbols: u64, end: u64 },
    /// The block's symbols ended at bit `at`, not at its end bit `end`.
    WrongEnd { at: u64, end: u64 },
}

impl std::fmt::Display for BlockFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BlockFault::InvalidCode { bit } => write!(f, "has an invalid code at bit {bit}"),
            BlockFault::Overrun { symbols, end } => write!(
                f,
                "runs past the next block (bit {end}) after {symbols} symbols"
            ),
            BlockFault::WrongEnd { at, end } => {
                write!(f, "ends at bit {at}, the next starts at {end}")
            }
        }
    }
}

/// A fault and where: frame (index in the batch) and block (in its frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockError {
    pub frame: usize,
    pub block: usize,
    pub fault: BlockFault,
}

/// A decoded batch: every frame's bytes at a word-aligned range of `bytes` (zeros
/// between), or, where any block failed, no bytes and every failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VldOutput {
    pub bytes: Vec<u8>,
    pub frames: Vec<Range<usize>>,
    pub errors: Vec<BlockError>,
    /// Each frame's CRC32, folded from the CRC32s the decoder took of its blocks (None
    /// where a block failed, or from a decoder that takes none: the caller then
    /// checksums the frames itself).
    pub frame_crcs: Option<Vec<u32>>,
}

/// Where the kernel reads a frame's decode table (shaders/huffman/vld.wgsl's entry
/// points).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VldTables {
    /// A workgroup per run of one frame's blocks, its table copied into workgroup memory
    /// (`main`).
    Workgroup,
    /// A workgroup per run of consecutive blocks of any frames, each invocation reading
    /// its frame's table from the storage buffer (`main_global`).
    Global,
}

/// The VLD decoder on one GPU.
pub struct VldDecoder<'g> {
    gpu: &'g Gpu,
    /// Invocations per workgroup.
    workgroup_size: u32,
    tables: VldTables,
    profile: bool,
}

/// A batch on the GPU, ready to record.
pub struct VldUploaded {
    plan: VldPlan,
    payload: PooledBuffer,
    tables: PooledBuffer,
    blocks: PooledBuffer,
    groups: PooledBuffer,
    params: wgpu::Buffer,
}

/// A recorded decode, read back by [`GpuStage::finish`].
pub struct VldPending {
    output: PooledBuffer,
    status: PooledBuffer,
    crcs: PooledBuffer,
    profiler: Profiler,
}

/// What the GPU decode returns: the output and the kernel's time.
pub struct VldReport {
    pub output: VldOutput,
    pub timings: Timings,
}

impl<'g> VldDecoder<'g> {
    pub fn new(gpu: &'g Gpu) -> VldDecoder<'g> {
        VldDecoder {
            gpu,
            workgroup_size: 64,
            tables: DEFAULT_TABLES,
            profile: false,
        }
    }

    /// Decode with the tables read from `tables`.
    pub fn with_tables(mut self, tables: VldTables) -> Self {
        self.tables = tables;
        self
    }

    /// Time the kernel with timestamp queries ([`VldReport::timings`]).
    pub fn profiled(mut self) -> Self {
        self.profile = true;
        self
    }

    /// Whether a frame of blocks of `block_symbols` belongs on the GPU: one invocation
    /// decodes a block, so a block of millions of symbols (the encoder's are 16 KiB) is
    /// better decoded by the CPU than by one GPU thread.
    pub fn takes_blocks_of(&self, block_symbols: u64) -> bool {
        block_symbols <= MAX_GPU_BLOCK_SYMBOLS
    }

    /// Whether a batch of `frames` frames, `blocks` blocks, `payload_bytes` and
    /// `out_bytes` fits one dispatch on this GPU.
    pub fn fits(&self, frames: u64, blocks: u64, payload_bytes: u64, out_bytes: u64) -> bool {
        let max = self.gpu.max_binding();
        4 * payload_words_at_most(payload_bytes, frames) <= max
            && out_bytes + OUT_UNIT * frames <= (u32::MAX as u64).min(max)
            && frames * TABLE_WORDS as u64 * 4 <= max
            && blocks * 16 <= max
    }

    fn storage(&self, words: &[u32]) -> PooledBuffer {
        let b = self.gpu.pooled_buffer(
            (words.len() as u64 * 4).max(16),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        );
        if !words.is_empty() {
            self.gpu
                .queue
                .write_buffer(&b, 0, bytemuck::cast_slice(words));
        }
        b
    }

    /// Decode a batch: upload, record, submit, read back.
    pub async fn decode(&self, frames: &[VldFrame<'_>]) -> Result<VldReport> {
        GpuStage::run(self, frames).await
    }
}

/// Payload words of a batch of `frames` frames holding `payload_bytes` between them, at
/// most: each frame's own words, its alignment, and the zeros after the last
/// ([`VldPlan::new`] lays them out).
pub(crate) fn payload_words_at_most(payload_bytes: u64, frames: u64) -> u64 {
    payload_bytes.div_ceil(4) + FRAME_WORD_ALIGN * frames + READ_AHEAD_WORDS
}

/// The first `bytes` of a pooled buffer (at least 16): pooled buffers come in size
/// classes, and a whole one may exceed the binding limit that its contents fit.
fn bytes_of(buffer: &PooledBuffer, bytes: u64) -> wgpu::BufferBinding<'_> {
    wgpu::BufferBinding {
        buffer,
        offset: 0,
        size: wgpu::BufferSize::new(bytes.max(16)),
    }
}

impl GpuStage for VldDecoder<'_> {
    type Input<'a> = [VldFrame<'a>];
    type Uploaded = VldUploaded;
    type Pending = VldPending;
    type Report = VldReport;
    type Output = VldOutput;

    fn gpu(&self) -> &Gpu {
        self.gpu
    }

    fn label(&self) -> &'static str {
        VLD.label
    }

    async fn upload(&self, frames: &Self::Input<'_>) -> Result<VldUploaded> {
        // No clock on the web (`clock` is None there).
        let t0 = crate::gpu::clock();
        let plan = VldPlan::new(frames, self.workgroup_size)?;
        let gpu = self.gpu;
        // The tables built into the staging buffer as they come: a batch of small frames
        // has megabytes of them, not worth a buffer of their own to fill and copy.
        let tables = gpu.pooled_buffer(
            (plan.table_words() as u64 * 4).max(16),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        );
        if let Some(mut view) = wgpu::BufferSize::new(plan.table_words() as u64 * 4)
            .and_then(|size| gpu.queue.write_buffer_with(&tables, 0, size))
        {
            plan.write_tables(frames, view.slice(..))?;
        }
        let t1 = crate::gpu::clock();
        let payload = gpu.pooled_buffer(
            (plan.payload_words * 4).max(16),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        );
        // Every frame's payload copied into one staging buffer, each from its first word,
        // the rest zero: a write_buffer per frame allocates a staging buffer each (native
        // wgpu), and a batch holds hundreds of frames. On all cores: one core's copy was
        // 6.3 ms of a 64 MiB batch's round trip on the H200.
        let size = (plan.payload_words * 4).max(16);
        if let Some(mut view) = wgpu::BufferSize::new(size)
            .and_then(|size| gpu.queue.write_buffer_with(&payload, 0, size))
        {
            plan.write_payload(frames, view.slice(..));
        }
        let params = VldParams {
            n_groups: plan.groups.len() as u32,
            payload_words: plan.payload_words as u32,
            n_blocks: plan.blocks.len() as u32,
            _pad1: 0,
        };
        let params = wgpu::util::DeviceExt::create_buffer_init(
            &gpu.device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("parvlc.huffman.vld.params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            },
        );
        let t2 = crate::gpu::clock();
        let uploaded = VldUploaded {
            tables,
            blocks: self.storage(bytemuck::cast_slice(&plan.blocks)),
            groups: self.storage(bytemuck::cast_slice(&plan.groups)),
            payload,
            params,
            plan,
        };
        if let (Some(t0), Some(t1), Some(t2)) = (t0, t1, t2) {
            let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
            log::debug!(
                "vld upload of {} frames: plan and tables {:.1} ms, payload {:.1} ms, blocks \
                 {:.1} ms",
                frames.len(),
                ms(t0, t1),
                ms(t1, t2),
                ms(t2, std::time::Instant::now())
            );
        }
        Ok(uploaded)
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        up: &VldUploaded,
    ) -> Result<VldPending> {
        let gpu = self.gpu;
        let plan = &up.plan;
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let output = gpu.pooled_buffer(plan.out_bytes.max(16), usage);
        let status = gpu.pooled_buffer((plan.blocks.len() as u64 * 8).max(16), usage);
        let crcs = gpu.pooled_buffer((plan.blocks.len() as u64 * 4).max(16), usage);
        let mut profiler = Profiler::new(gpu, if self.profile { 2 } else { 0 });
        if plan.clear {
            encoder.clear_buffer(&output, 0, None);
        }
        if !plan.groups.is_empty() {
            let wg = ("WG_SIZE", self.workgroup_size as f64);
            let (entry, shared, workgroups) = match self.tables {
                VldTables::Workgroup => ("main", 1.0, plan.groups.len()),
                VldTables::Global => (
                    "main_global",
                    0.0,
                    plan.blocks.len().div_ceil(self.workgroup_size as usize),
                ),
            };
            let built = gpu.pipeline(&VLD, entry, &[wg, ("SHARED_TABLE", shared)])?;
            let bind = gpu.bind(
                &built,
                &[
                    (0, up.params.as_entire_buffer_binding()),
                    (1, bytes_of(&up.payload, plan.payload_words * 4)),
                    (2, bytes_of(&up.tables, plan.table_words() as u64 * 4)),
                    (3, bytes_of(&up.blocks, plan.blocks.len() as u64 * 16)),
                    (4, bytes_of(&up.groups, plan.groups.len() as u64 * 16)),
                    (5, bytes_of(&output, plan.out_bytes)),
                    (6, bytes_of(&status, plan.blocks.len() as u64 * 8)),
                    (7, bytes_of(&crcs, plan.blocks.len() as u64 * 4)),
                ],
            );
            // A pass each, timed apart: the decode, then each block's CRC32. The entry
            // points stride over their work, so the grid is capped.
            let mut dispatch = |name: &'static str, pipeline: &wgpu::ComputePipeline, n: usize| {
                let timestamp_writes = profiler.pass(name);
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(VLD.label),
                    timestamp_writes,
                });
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &bind, &[]);
                let grid = (n as u32)
                    .min(gpu.limits.max_compute_workgroups_per_dimension)
                    .min(65535);
                pass.dispatch_workgroups(grid, 1, 1);
            };
            dispatch("vld", &built.pipeline, workgroups);
            let checksums = gpu.pipeline(&VLD, "block_crcs", &[wg])?;
            // A workgroup a block.
            dispatch("crc", &checksums.pipeline, plan.blocks.len());
        }
        profiler.resolve(encoder);
        Ok(VldPending {
            output,
            status,
            crcs,
            profiler,
        })
    }

    async fn finish(
        &self,
        _frames: &Self::Input<'_>,
        up: &VldUploaded,
        pending: VldPending,
    ) -> Result<VldReport> {
        let plan = &up.plan;
        let mut back = self
            .gpu
            .read_buffers(&[
                (&pending.crcs, 0, plan.blocks.len() as u64 * 4),
                (&pending.status, 0, plan.blocks.len() as u64 * 8),
                (&pending.output, 0, plan.out_bytes),
            ])
            .await?;
        let bytes = back.pop().unwrap_or_default();
        let status: Vec<[u32; 2]> = bytemuck::pod_collect_to_vec(&back.pop().unwrap_or_default());
        let crcs: Vec<u32> = bytemuck::pod_collect_to_vec(&back.pop().unwrap_or_default());
        let timings = pending.profiler.timings(self.gpu).await?;
        Ok(VldReport {
            output: plan.output(bytes, &status, Some(&crcs)),
            timings,
        })
    }

    fn output(report: VldReport) -> VldOutput {
        report.output
    }

    fn cpu(&self, frames: &Self::Input<'_>) -> Result<VldOutput> {
        decode_cpu(frames)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::SplitMix64;

    /// The payload upload, written in parts across the cores, equals each frame's bytes
    /// at its first word (an LSB-first frame's bytes bit-reversed), each word's first
    /// byte its most significant, with zeros between and after, however the upload is
    /// cut into words.
    #[test]
    fn payload_parts_lay_out_every_frame_from_its_word() {
        let lengths = [8u8; 256];
        let mut rng = SplitMix64(41);
        for round in 0..12 {
            let frames_n = 1 + rng.below(40) as usize;
            let payloads: Vec<(Vec<u8>, u64, BitOrder)> = (0..frames_n)
                .map(|_| {
                    let bits = match rng.below(4) {
                        0 => rng.below(64),
                        _ => rng.below(8 * PAYLOAD_PART as u64 / 3),
                    };
                    let mut p = vec![0u8; bits.div_ceil(8) as usize + rng.below(5) as usize];
                    rng.fill(&mut p);
                    let order = match rng.below(2) {
                        0 => BitOrder::MsbFirst,
                        _ => BitOrder::LsbFirst,
                    };
                    (p, bits, order)
                })
                .collect();
            let frames: Vec<VldFrame<'_>> = payloads
                .iter()
                .map(|(p, bits, order)| VldFrame {
                    lengths: &lengths,
                    other_codes: [0; 16],
                    order: *order,
                    len: 1,
                    block_symbols: 1,
                    payload_bits: *bits,
                    offsets: &[0],
                    payload: p,
                })
                .collect();
            let plan = VldPlan::new(&frames, 64).unwrap();
            // What `fits` allows for is at least what the plan lays out.
            let own: u64 = frames.iter().map(|f| f.payload_bits.div_ceil(32) * 4).sum();
            assert!(plan.payload_words <= payload_words_at_most(own, frames.len() as u64));
            let mut want = vec![0u8; plan.payload_words as usize * 4 + 64];
            let mut at = 0;
            for (p, bits, order) in &payloads {
                let n = bits.div_ceil(8) as usize;
                // An LSB-first stream reads MSB-first once each byte's bits are reversed.
                for (d, &b) in want[at..at + n].iter_mut().zip(&p[..n]) {
                    *d = match order {
                        BitOrder::MsbFirst => b,
                        BitOrder::LsbFirst => b.reverse_bits(),
                    };
                }
                at += n.next_multiple_of(4 * FRAME_WORD_ALIGN as usize);
            }
            assert!(at + READ_AHEAD_WORDS as usize * 4 <= plan.payload_words as usize * 4);
            for w in want.chunks_exact_mut(4) {
                w.reverse();
            }
            let mut whole = vec![0xa5u8; want.len()];
            plan.write_payload(&frames, (&mut whole[..]).into());
            assert_eq!(whole, want, "round {round}");
            // Cut at random places: each part on its own gives the same bytes.
            let mut cut = vec![0xa5u8; want.len()];
            let mut from = 0;
            while from < cut.len() {
                let to =
                    (from + 4 + rng.below(PAYLOAD_PART as u64) as usize / 4 * 4).min(cut.len());
                plan.write_payload_part(&frames, from, (&mut cut[from..to]).into());
                from = to;
            }
            assert_eq!(cut, want, "round {round}, cut");
        }
    }
}
