//! CAVLC on the GPU: one frame's `slice_data()` in three variants ([`GpuVariant`]) that
//! share the packing stage.
//!
//! - `cavlcu` (shaders/cavlc/cavlcu.wgsl, [`super::cavlcu`]): the CAVLCU paper's single
//!   kernel, nC across workgroups through ticket-ordered published words with a bounded
//!   spin and a recomputing fallback;
//! - `recompute`: the same kernel, every neighbour outside the workgroup recomputed from
//!   its levels, no waiting;
//! - `su` ([`super::su`]): the paper's baseline (Su et al.): forward scan, backward scan,
//!   coding, three kernels with their intermediates in global memory.
//!
//! Each writes every block's code and length into 27 slots per macroblock; then
//! `cavlc_pack` ([`super::pack`]) writes the macroblock headers and the codes in bitstream
//! order at offsets from the crate's look-back scan. Slices follow each other in that one
//! stream; the host cuts it at every slice's first macroblock (whose offset the pack
//! stage records) and returns each slice starting at bit 0 of its own bytes.

use std::sync::Arc;

use rayon::prelude::*;
use wgpu::util::DeviceExt;

use super::cavlcu;
use super::frame::{encode_slice_data, total_coeffs, Frame, MbHeader, MB_LEVELS};
use super::layout::{CavlcParams, FrameBuffers, MB_MAX_BITS, MB_SLOTS, SLOT_WORDS};
use super::multicore::encode_frame_cpu;
use super::pack;
use super::su;
use super::tables::{self, CoeffTokenTable};
use crate::bits::MsbWriter;
use crate::gpu::{Gpu, GpuStage, PooledBuffer, Profiler, RecordedReads, Timings};
use crate::scan::{ScanConfig, STATE_HEADER};
use crate::{Error, Result};

/// Which GPU CAVLC stage codes the blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum GpuVariant {
    Cavlcu,
    Recompute,
    Su,
}

impl GpuVariant {
    pub const ALL: [GpuVariant; 3] = [GpuVariant::Cavlcu, GpuVariant::Recompute, GpuVariant::Su];
    pub fn name(self) -> &'static str {
        match self {
            GpuVariant::Cavlcu => "cavlcu",
            GpuVariant::Recompute => "recompute",
            GpuVariant::Su => "su",
        }
    }
    /// The profiler labels of its passes (packing not included).
    pub fn labels(self) -> &'static [&'static str] {
        match self {
            GpuVariant::Cavlcu => &["cavlcu"],
            GpuVariant::Recompute => &["recompute"],
            GpuVariant::Su => &["su_forward", "su_backward", "su_code"],
        }
    }
}

impl std::fmt::Display for GpuVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for GpuVariant {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        GpuVariant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown CAVLC GPU variant `{s}` (cavlcu, recompute, su)"
                ))
            })
    }
}

/// Tuning of the GPU stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CavlcConfig {
    /// Macroblocks per cavlcu workgroup (the paper's REG_SIZE), 1..=16.
    pub reg_size: u32,
    /// cavlcu: polls of a neighbour's published word before recomputing it; 0 forces
    /// the fallback for every neighbour in an earlier region.
    pub spin_budget: u32,
    /// The packing stage's look-back (strategy, spin budget, workgroup size: 32
    /// invocations per macroblock).
    pub pack_scan: ScanConfig,
}

impl Default for CavlcConfig {
    fn default() -> Self {
        CavlcConfig {
            reg_size: 8,
            spin_budget: 64,
            pack_scan: ScanConfig::default(),
        }
    }
}

/// Table words as the shaders read them (`len << 16 | code`); keep in sync with the
/// `*_BASE` constants of shaders/cavlc/frame.wgsl.
pub fn table_words() -> Vec<u32> {
    let entry = |v: Option<tables::Vlc>| v.map_or(0, |v| ((v.len as u32) << 16) | v.code as u32);
    let mut t = Vec::with_capacity(677);
    for table in [
        CoeffTokenTable::Nc0to1,
        CoeffTokenTable::Nc2to3,
        CoeffTokenTable::Nc4to7,
        CoeffTokenTable::ChromaDc,
    ] {
        for tc in 0..=16u8 {
            for t1 in 0..4u8 {
                t.push(entry(tables::coeff_token(table, t1, tc)));
            }
        }
    }
    debug_assert_eq!(t.len(), 272);
    for tc in 1..=15u8 {
        for tz in 0..16u8 {
            t.push(entry(tables::total_zeros(false, tc, tz)));
        }
    }
    for tc in 1..=3u8 {
        for tz in 0..4u8 {
            t.push(entry(tables::total_zeros(true, tc, tz)));
        }
    }
    debug_assert_eq!(t.len(), 524);
    // Row 7 stands for every zerosLeft > 6 (the same codes; 14 admits every run).
    for zl in [1, 2, 3, 4, 5, 6, 14u8] {
        for run in 0..15u8 {
            t.push(entry(tables::run_before(zl, run)));
        }
    }
    debug_assert_eq!(t.len(), 629);
    for cbp in 0..48 {
        t.push(super::frame::intra_cbp_code_num(cbp));
    }
    t
}

/// A frame resident on the GPU.
pub struct GpuFrame {
    width_mbs: u32,
    n_mbs: u32,
    /// Macroblocks of each of the pictures it holds back to back (usually one).
    picture_mbs: u32,
    headers: FramePart,
    levels: FramePart,
    /// First macroblock of every slice.
    slice_starts: Vec<usize>,
}

/// A frame's headers or levels: a buffer of its own, or its range of a buffer that holds
/// a batch of frames (the GPU front end's), bound at its offset with no copy.
pub(crate) enum FramePart {
    Own(PooledBuffer),
    Shared {
        buffer: Arc<PooledBuffer>,
        offset: u64,
        size: u64,
    },
}

impl FramePart {
    fn binding(&self) -> wgpu::BufferBinding<'_> {
        match self {
            FramePart::Own(b) => b.as_entire_buffer_binding(),
            FramePart::Shared {
                buffer,
                offset,
                size,
            } => wgpu::BufferBinding {
                buffer,
                offset: *offset,
                size: wgpu::BufferSize::new(*size),
            },
        }
    }
}

impl GpuFrame {
    /// A frame whose headers and levels a GPU stage wrote (`n_mbs` of each, the layouts
    /// [`CavlcGpu::upload`] writes), slices starting at `slice_starts`: `pictures`
    /// pictures of whole rows back to back, coded as one frame of their slices (every
    /// picture's first macroblock starts one), none of whose macroblocks neighbours
    /// another picture's. At most [`CavlcGpu::max_frame_mbs`] macroblocks.
    pub(crate) fn from_parts(
        width_mbs: u32,
        n_mbs: u32,
        pictures: u32,
        headers: FramePart,
        levels: FramePart,
        slice_starts: Vec<usize>,
    ) -> GpuFrame {
        GpuFrame {
            width_mbs,
            n_mbs,
            picture_mbs: n_mbs / pictures.max(1),
            headers,
            levels,
            slice_starts,
        }
    }

    pub fn mb_count(&self) -> usize {
        self.n_mbs as usize
    }

    /// Pictures it holds back to back.
    pub fn pictures(&self) -> usize {
        (self.n_mbs / self.picture_mbs.max(1)) as usize
    }
}

/// GPU work in flight: read it back with [`CavlcGpu::finish`] or
/// [`CavlcGpu::read_slots`] once the encoder was submitted.
pub struct Pending {
    n_mbs: u32,
    enc_words: Arc<PooledBuffer>,
    enc_lens: Arc<PooledBuffer>,
    status: PooledBuffer,
    state: PooledBuffer,
    packed: Option<pack::Packed>,
    profiler: Profiler,
    slice_starts: Vec<usize>,
    variant: GpuVariant,
    _intermediates: Vec<PooledBuffer>,
}

impl Pending {
    /// Kernel times (after submission; empty unless profiled).
    pub async fn timings(&self, gpu: &Gpu) -> Result<Timings> {
        self.profiler.timings(gpu).await
    }
}

/// A frame's coded slices and what the GPU reported.
#[derive(Clone, Debug, Default)]
pub struct Encoded {
    /// Per slice: the MSB-first bytes of its slice_data() and its length in bits.
    pub slices: Vec<(Vec<u8>, u64)>,
    /// cavlcu: neighbours recomputed because their word was not published in time.
    pub fallbacks: u32,
    /// Bit offset of every macroblock in the frame's one stream (slices back to back).
    pub mb_offsets: Vec<u32>,
    /// The stream outgrew the room its encode gave the output
    /// ([`CavlcGpu::encode_frames_into`]): no slices; code the frame again.
    pub room_exceeded: bool,
}

/// Readbacks of several frames' results, recorded with their work
/// ([`CavlcGpu::record_finish`]).
pub struct RecordedFinish {
    reads: RecordedReads,
}

/// The GPU CAVLC encoder: tables uploaded and pipelines built once.
pub struct CavlcGpu {
    config: CavlcConfig,
    tables: wgpu::Buffer,
}

impl CavlcGpu {
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Self::with_config(gpu, CavlcConfig::default())
    }

    pub fn with_config(gpu: &Gpu, config: CavlcConfig) -> Result<Self> {
        Self::for_variants(gpu, config, &GpuVariant::ALL)
    }

    /// [`Self::with_config`] with the pipelines of `variants` built now (and packing's);
    /// another variant's are built when it is first used.
    pub fn for_variants(gpu: &Gpu, config: CavlcConfig, variants: &[GpuVariant]) -> Result<Self> {
        if !(1..=16).contains(&config.reg_size) {
            return Err(Error::InvalidArgument(format!(
                "CAVLC: REG_SIZE must be 1..=16 macroblocks, not {}",
                config.reg_size
            )));
        }
        let wg = config.pack_scan.workgroup_size;
        if !wg.is_power_of_two() || !(32..=1024).contains(&wg) {
            return Err(Error::InvalidArgument(format!(
                "CAVLC: pack workgroup size must be a power of two in 32..=1024, not {wg}"
            )));
        }
        let tables = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("parvlc.cavlc.tables"),
                contents: bytemuck::cast_slice(&table_words()),
                usage: wgpu::BufferUsages::STORAGE,
            });
        let me = CavlcGpu { config, tables };
        me.build(gpu, variants)?;
        Ok(me)
    }

    /// Build the pipelines of `variants` (and packing's) now, so that no encode pays for
    /// them: a tiny frame's encode recorded and never submitted. Nothing for none.
    pub fn build(&self, gpu: &Gpu, variants: &[GpuVariant]) -> Result<()> {
        if variants.is_empty() {
            return Ok(());
        }
        let frame = Frame::new(1, 1);
        let input = self.upload(gpu, &frame)?;
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        for &variant in variants {
            self.encode_into(gpu, &mut encoder, &input, variant, true, false)?;
        }
        gpu.check_errors("cavlc")
    }

    pub fn config(&self) -> &CavlcConfig {
        &self.config
    }

    /// Most macroblocks one frame may hold on `gpu`: every macroblock's longest code
    /// within the packer's 30-bit offsets, the block codes and the packed output within
    /// one storage binding each (the checks of [`Self::upload`]).
    pub fn max_frame_mbs(gpu: &Gpu) -> u32 {
        let by_offsets = (crate::scan::VALUE_MASK as u64 - 1) / MB_MAX_BITS;
        let per_mb = ((MB_SLOTS * SLOT_WORDS * 4) as u64).max(MB_MAX_BITS.div_ceil(8));
        by_offsets.min(gpu.max_binding() / per_mb) as u32
    }

    /// Validate `frame` and copy it to the GPU.
    pub fn upload(&self, gpu: &Gpu, frame: &Frame) -> Result<GpuFrame> {
        frame.validate()?;
        let n_mbs = frame.mb_count();
        let worst = n_mbs as u64 * MB_MAX_BITS;
        if worst >= crate::scan::VALUE_MASK as u64 {
            return Err(Error::TooLarge(format!(
                "CAVLC: {n_mbs} macroblocks may need {worst} bits; the GPU packer places at most 2^30 - 1"
            )));
        }
        let slot_bytes = (n_mbs * MB_SLOTS * SLOT_WORDS * 4) as u64;
        if slot_bytes > gpu.max_binding() {
            return Err(Error::TooLarge(format!(
                "CAVLC: {n_mbs} macroblocks need {slot_bytes} bytes of block codes, more than one storage binding"
            )));
        }
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let headers = gpu.pooled_buffer((n_mbs * std::mem::size_of::<MbHeader>()) as u64, usage);
        gpu.queue
            .write_buffer(&headers, 0, bytemuck::cast_slice(&frame.mbs));
        let levels = gpu.pooled_buffer((n_mbs * MB_LEVELS * 2) as u64, usage);
        gpu.queue
            .write_buffer(&levels, 0, bytemuck::cast_slice(&frame.levels));
        Ok(GpuFrame {
            width_mbs: frame.width_mbs,
            n_mbs: n_mbs as u32,
            picture_mbs: n_mbs as u32,
            headers: FramePart::Own(headers),
            levels: FramePart::Own(levels),
            slice_starts: frame.slices().iter().map(|r| r.start).collect(),
        })
    }

    fn params(&self, gpu: &Gpu, input: &GpuFrame, n_groups: u32) -> wgpu::Buffer {
        gpu.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("parvlc.cavlc.params"),
                contents: bytemuck::bytes_of(&CavlcParams {
                    width_mbs: input.width_mbs,
                    n_mbs: input.n_mbs,
                    n_groups,
                    picture_mbs: input.picture_mbs,
                }),
                usage: wgpu::BufferUsages::UNIFORM,
            })
    }

    /// Record the CAVLC stage of `variant` (and, with `pack`, the packing) into
    /// `encoder`; nothing is submitted. With `profile`, every pass is timed.
    pub fn encode_into(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        input: &GpuFrame,
        variant: GpuVariant,
        pack: bool,
        profile: bool,
    ) -> Result<Pending> {
        let scratch = Self::scratch(gpu, input.n_mbs);
        self.encode_with_scratch(gpu, encoder, input, variant, pack, profile, scratch, None)
    }

    /// [`Self::encode_into`] of several frames recorded one after another into `encoder`,
    /// packed: their block codes go through one scratch buffer (each frame's packing
    /// reads them before the next frame's coding writes them, the passes in order), not
    /// one each (15 MB a 1080p frame, and a first batch's time allocating them).
    /// Each frame's packed output has room for every macroblock's longest code (14 MiB a
    /// 1080p picture, to make and to clear), or with `room`, that many bytes at most: a
    /// frame whose stream is longer comes back from [`Self::finish_recorded`] with
    /// [`Encoded::room_exceeded`] set, to be coded again.
    pub fn encode_frames_into<'f>(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        inputs: impl IntoIterator<Item = &'f GpuFrame>,
        variant: GpuVariant,
        profile: bool,
        room: Option<u64>,
    ) -> Result<Vec<Pending>> {
        let inputs: Vec<&GpuFrame> = inputs.into_iter().collect();
        let most = inputs.iter().map(|f| f.n_mbs).max().unwrap_or(0);
        let scratch = Self::scratch(gpu, most);
        inputs
            .iter()
            .map(|f| {
                let scratch = scratch.clone();
                self.encode_with_scratch(gpu, encoder, f, variant, true, profile, scratch, room)
            })
            .collect()
    }

    /// The block codes' slots and lengths of a frame of `n_mbs` macroblocks.
    fn scratch(gpu: &Gpu, n_mbs: u32) -> (Arc<PooledBuffer>, Arc<PooledBuffer>) {
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let n_slots = n_mbs as u64 * MB_SLOTS as u64;
        (
            Arc::new(gpu.pooled_buffer(n_slots * SLOT_WORDS as u64 * 4, storage)),
            Arc::new(gpu.pooled_buffer(n_slots * 4, storage)),
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn encode_with_scratch(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        input: &GpuFrame,
        variant: GpuVariant,
        pack: bool,
        profile: bool,
        (enc_words, enc_lens): (Arc<PooledBuffer>, Arc<PooledBuffer>),
        room: Option<u64>,
    ) -> Result<Pending> {
        let n_mbs = input.n_mbs;
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let status = gpu.pooled_buffer(16, storage);
        encoder.clear_buffer(&status, 0, Some(16));
        let state = gpu.pooled_buffer((STATE_HEADER as u64 + 4 * n_mbs as u64) * 4, storage);
        let mut profiler = Profiler::new(gpu, if profile { 8 } else { 0 });
        let reg = self.config.reg_size;
        let n_regions = n_mbs.div_ceil(reg);
        let params = self.params(gpu, input, n_regions);
        let bufs = FrameBuffers {
            n_mbs,
            n_groups: n_regions,
            params: &params,
            headers: input.headers.binding(),
            levels: input.levels.binding(),
            tables: &self.tables,
            enc_words: &enc_words,
            enc_lens: &enc_lens,
            state: &state,
            status: &status,
        };
        let mut intermediates = Vec::new();
        match variant {
            GpuVariant::Cavlcu | GpuVariant::Recompute => cavlcu::encode_cavlcu(
                gpu,
                encoder,
                profile.then_some(&mut profiler),
                &bufs,
                reg,
                self.config.spin_budget,
                variant == GpuVariant::Recompute,
            )?,
            GpuVariant::Su => {
                intermediates = su::encode_su(
                    gpu,
                    encoder,
                    if profile { Some(&mut profiler) } else { None },
                    &bufs,
                )?
            }
        }
        let packed = if pack {
            let pack_groups = n_mbs.div_ceil(self.config.pack_scan.workgroup_size / 32);
            let pack_params = self.params(gpu, input, pack_groups);
            Some(pack::encode_pack(
                gpu,
                encoder,
                if profile { Some(&mut profiler) } else { None },
                &FrameBuffers {
                    n_groups: pack_groups,
                    params: &pack_params,
                    ..bufs
                },
                &self.config.pack_scan,
                room,
            )?)
        } else {
            None
        };
        profiler.resolve(encoder);
        Ok(Pending {
            n_mbs,
            enc_words,
            enc_lens,
            status,
            state,
            packed,
            profiler,
            slice_starts: input.slice_starts.clone(),
            variant,
            _intermediates: intermediates,
        })
    }

    /// The error for a frame whose levels the GPU flagged: the CPU reference names the
    /// block (it fails on the same level).
    fn level_error(frame: &Frame) -> Error {
        let tc = total_coeffs(frame);
        for r in frame.slices() {
            if let Err(e) = encode_slice_data(frame, &tc, r, &mut MsbWriter::new()) {
                return e;
            }
        }
        Error::Gpu {
            stage: "cavlc",
            message: "the GPU flagged a level too large to code, the CPU reference did not".into(),
        }
    }

    async fn check_status(&self, gpu: &Gpu, pending: &Pending, frame: &Frame) -> Result<()> {
        let status: Vec<u32> =
            bytemuck::pod_collect_to_vec(&gpu.read_buffer(&pending.status, 0, 16).await?);
        if status[0] != 0 {
            return Err(Self::level_error(frame));
        }
        Ok(())
    }

    /// Every slot's code and length as the CAVLC stage left them (twin:
    /// [`cavlcu::block_codes_cpu`]). `frame` is the one encoded (for error reports).
    pub async fn read_slots(
        &self,
        gpu: &Gpu,
        pending: &Pending,
        frame: &Frame,
    ) -> Result<cavlcu::SlotCodes> {
        self.check_status(gpu, pending, frame).await?;
        let n = pending.n_mbs as u64 * MB_SLOTS as u64;
        let lens =
            bytemuck::pod_collect_to_vec(&gpu.read_buffer(&pending.enc_lens, 0, n * 4).await?);
        let words = bytemuck::pod_collect_to_vec(
            &gpu.read_buffer(&pending.enc_words, 0, n * SLOT_WORDS as u64 * 4)
                .await?,
        );
        Ok(cavlcu::SlotCodes { lens, words })
    }

    /// su's forward scan output (twin: [`su::forward_cpu`]): every block's levels in
    /// zigzag order and its TotalCoeff. Only after an `su` encode.
    pub async fn read_su_forward(
        &self,
        gpu: &Gpu,
        pending: &Pending,
    ) -> Result<(Vec<i16>, Vec<u8>)> {
        let [zz, tc, ..] = &pending._intermediates[..] else {
            return Err(Error::InvalidArgument(
                "CAVLC: the forward scan's output exists after an su encode only".into(),
            ));
        };
        let blocks = pending.n_mbs as u64 * super::frame::MB_BLOCKS as u64;
        let zz = bytemuck::pod_collect_to_vec(&gpu.read_buffer(zz, 0, blocks * 32).await?);
        let tc: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(tc, 0, blocks * 4).await?);
        Ok((zz, tc.into_iter().map(|t| t as u8).collect()))
    }

    /// Neighbours cavlcu recomputed (its fallback); 0 for the other variants.
    pub async fn fallbacks(&self, gpu: &Gpu, pending: &Pending) -> Result<u32> {
        if pending.variant != GpuVariant::Cavlcu {
            return Ok(0);
        }
        let w: Vec<u32> =
            bytemuck::pod_collect_to_vec(&gpu.read_buffer(&pending.state, 0, 16).await?);
        Ok(w[2])
    }

    /// Read back the packed slices (the encoder must have packed).
    pub async fn finish(&self, gpu: &Gpu, pending: Pending, frame: &Frame) -> Result<Encoded> {
        self.check_status(gpu, &pending, frame).await?;
        let fallbacks = self.fallbacks(gpu, &pending).await?;
        let packed = pending.packed.as_ref().ok_or_else(|| {
            Error::InvalidArgument("CAVLC: finish needs an encode with packing".into())
        })?;
        let (slices, mb_offsets) =
            pack::read_packed(gpu, packed, &pending.slice_starts, &self.config.pack_scan).await?;
        Ok(Encoded {
            slices,
            fallbacks,
            mb_offsets,
            room_exceeded: false,
        })
    }

    /// [`Self::finish`] of several frames whose levels a GPU stage wrote and checked (so
    /// there is no host frame to name a bad level: that is a GPU error), part 1: record
    /// the copies [`Self::finish_recorded`] reads into `encoder` (the one that holds the
    /// frames' work, so that the readback waits for that work alone): every frame's
    /// status, scan state and macroblock offsets, and the first `quota` bytes of its
    /// stream.
    pub fn record_finish(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        pendings: &[Pending],
        quota: u64,
    ) -> Result<RecordedFinish> {
        let mut ranges = Vec::with_capacity(pendings.len() * 5);
        for p in pendings {
            let packed = p.packed.as_ref().ok_or_else(|| {
                Error::InvalidArgument("CAVLC: finish needs an encode with packing".into())
            })?;
            ranges.push((p.status.buffer(), 0, 16));
            ranges.push((p.state.buffer(), 0, 16));
            ranges.extend(pack::packed_heads(packed));
            ranges.push(pack::packed_prefix(packed, quota));
        }
        Ok(RecordedFinish {
            reads: gpu.record_reads(encoder, &ranges),
        })
    }

    /// Part 2: the frames' coded slices from what [`Self::record_finish`] recorded, once
    /// its encoder is submitted; the streams longer than their recorded part are read
    /// again (all of them in one readback).
    pub async fn finish_recorded(
        &self,
        gpu: &Gpu,
        pendings: Vec<Pending>,
        recorded: RecordedFinish,
    ) -> Result<Vec<Encoded>> {
        let parts = gpu.read_recorded(recorded.reads).await?;
        // Each frame checked and cut into slices on a core of its own (a batch of 32
        // 1080p frames took 15 ms of the caller's thread): from plain data, since the
        // GPU's buffers are not `Sync` in the browser.
        let mut packs = Vec::with_capacity(pendings.len());
        let mut shapes = Vec::with_capacity(pendings.len());
        for p in &pendings {
            let packed = p.packed.as_ref().ok_or_else(|| {
                Error::InvalidArgument("CAVLC: finish needs an encode with packing".into())
            })?;
            packs.push(packed);
            shapes.push((packed.n_blocks(), p.variant, p.slice_starts.as_slice()));
        }
        let scan = &self.config.pack_scan;
        let frames = shapes
            .par_iter()
            .zip(parts.par_chunks_exact(5))
            .map(|(&(n_blocks, variant, _), h)| {
                if h[0].iter().any(|&b| b != 0) {
                    return Err(Error::Gpu {
                        stage: "cavlc",
                        message: "a level too large to code reached CAVLC".into(),
                    });
                }
                let fallbacks = match variant {
                    GpuVariant::Cavlcu => {
                        u32::from_le_bytes([h[1][8], h[1][9], h[1][10], h[1][11]])
                    }
                    _ => 0,
                };
                let (total, offsets) = pack::packed_total(n_blocks, &h[2], &h[3], scan)?;
                Ok((total, offsets, fallbacks))
            })
            .collect::<Result<Vec<_>>>()?;
        // Streams longer than what was read with them are read again; those longer than
        // their output's room are not there to read.
        let exceeded: Vec<bool> = packs
            .iter()
            .zip(&frames)
            .map(|(packed, (total, ..))| !pack::fits(packed, *total))
            .collect();
        let mut again = Vec::new();
        for (i, ((packed, (total, ..)), h)) in packs
            .iter()
            .zip(&frames)
            .zip(parts.chunks_exact(5))
            .enumerate()
        {
            let stream = pack::packed_stream(packed, *total);
            if stream.2 > h[4].len() as u64 && !exceeded[i] {
                again.push((i, stream));
            }
        }
        if !again.is_empty() {
            log::debug!(
                "cavlc: {} of {} streams longer than the {} bytes read with them, read again",
                again.len(),
                pendings.len(),
                parts[4].len()
            );
        }
        let ranges: Vec<_> = again.iter().map(|a| a.1).collect();
        let mut reread: Vec<Option<Vec<u8>>> = vec![None; pendings.len()];
        for ((i, _), bytes) in again.iter().zip(gpu.read_buffers(&ranges).await?) {
            reread[*i] = Some(bytes);
        }
        frames
            .into_par_iter()
            .zip(shapes.par_iter())
            .zip(parts.par_chunks_exact(5))
            .zip(reread.par_iter())
            .zip(exceeded.par_iter())
            .map(
                |(((((total, mb_offsets, fallbacks), &(_, _, slice_starts)), h), reread), &x)| {
                    let stream = reread.as_deref().unwrap_or(&h[4]);
                    let slices = match x {
                        true => Vec::new(),
                        false => pack::split_slices(stream, total, &mb_offsets, slice_starts)?,
                    };
                    Ok(Encoded {
                        slices,
                        fallbacks,
                        mb_offsets,
                        room_exceeded: x,
                    })
                },
            )
            .collect()
    }

    /// Code a frame: per slice, the bytes and bit count of its slice_data(), exactly as
    /// [`encode_slice_data`] writes them into a fresh [`MsbWriter`].
    pub async fn encode_frame(
        &self,
        gpu: &Gpu,
        frame: &Frame,
        variant: GpuVariant,
    ) -> Result<Vec<(Vec<u8>, u64)>> {
        Ok(self.encode_frame_report(gpu, frame, variant).await?.slices)
    }

    /// [`Self::encode_frame`] with what the GPU reported.
    pub async fn encode_frame_report(
        &self,
        gpu: &Gpu,
        frame: &Frame,
        variant: GpuVariant,
    ) -> Result<Encoded> {
        GpuStage::run(&self.stage(gpu, variant), frame).await
    }

    /// `variant` of this encoder on `gpu`, as a [`GpuStage`].
    pub fn stage<'g>(&'g self, gpu: &'g Gpu, variant: GpuVariant) -> CavlcStage<'g> {
        CavlcStage {
            gpu,
            engine: self,
            variant,
        }
    }
}

/// One variant of a [`CavlcGpu`] on its GPU: a frame in, its packed slices out (twin:
/// [`encode_frame_cpu`]).
pub struct CavlcStage<'g> {
    pub gpu: &'g Gpu,
    pub engine: &'g CavlcGpu,
    pub variant: GpuVariant,
}

impl GpuStage for CavlcStage<'_> {
    type Input<'a> = Frame;
    type Uploaded = GpuFrame;
    type Pending = Pending;
    type Report = Encoded;
    type Output = Vec<(Vec<u8>, u64)>;

    fn gpu(&self) -> &Gpu {
        self.gpu
    }

    fn label(&self) -> &'static str {
        "parvlc.cavlc"
    }

    async fn upload(&self, frame: &Self::Input<'_>) -> Result<GpuFrame> {
        self.engine.upload(self.gpu, frame)
    }

    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        uploaded: &GpuFrame,
    ) -> Result<Pending> {
        self.engine
            .encode_into(self.gpu, encoder, uploaded, self.variant, true, false)
    }

    async fn finish(
        &self,
        frame: &Self::Input<'_>,
        _uploaded: &GpuFrame,
        pending: Pending,
    ) -> Result<Encoded> {
        self.engine.finish(self.gpu, pending, frame).await
    }

    fn output(report: Encoded) -> Self::Output {
        report.slices
    }

    fn cpu(&self, frame: &Self::Input<'_>) -> Result<Self::Output> {
        encode_frame_cpu(frame, false)
    }
}
