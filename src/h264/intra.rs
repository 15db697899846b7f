//! The H.264 intra front end on the GPU (shaders/h264/intra.wgsl): per macroblock the
//! luma as I_16x16 or I_NxN (each 4x4 block's mode by rate and distortion), as the luma
//! modes allow and whichever costs less; the chroma; transform, quantization,
//! reconstruction, and the macroblock headers and levels the CAVLC stages read, for a
//! batch of pictures at once. Nothing returns to the host but what is asked for: the
//! CAVLC stages take the headers and levels where they lie.
//!
//! CPU twin: [`super::encode_picture_levels`] (`macroblock::encode_mb`, and
//! `intra4x4::encode_luma4x4` for I_NxN); the tests hold the two to the same headers,
//! levels and reconstruction for every [`LumaModes`].
//!
//! Macroblocks depend on their left, top-left, top and top-right neighbours' samples,
//! so a slice codes in waves: wave `w` holds the macroblocks where `x + 2 * row` (row
//! within the slice) is `w`. Pictures and slices are independent. [`MbSchedule`] says how
//! the GPU follows that order: one dispatch for the whole batch, each macroblock taking a
//! ticket in wave order and waiting for the edges its neighbours publish (the default),
//! or one dispatch per wave for every slice of every picture of the batch.

use std::sync::Arc;

use super::intra4x4::lambda;
use super::{EncoderConfig, Geometry, LumaModes, Picture};
use crate::cavlc::cpu::run_before_bits;
use crate::cavlc::frame::{intra_cbp_code_num, Frame, MbHeader, MB_LEVELS};
use crate::cavlc::gpu::FramePart;
use crate::cavlc::tables::VLC_LENGTHS;
use crate::cavlc::{CavlcGpu, GpuFrame};
use crate::gpu::registry::h264::INTRA;
use crate::gpu::{Built, Gpu, PooledBuffer, Profiler, StagedUpload};
use crate::{Error, Result};

/// keep in sync with shaders/h264/intra.wgsl `IntraParams`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct IntraParams {
    width: u32,
    height: u32,
    chroma_width: u32,
    chroma_height: u32,
    width_mbs: u32,
    height_mbs: u32,
    rows_per_slice: u32,
    qp: u32,
    src_words: u32,
    recon_words: u32,
    n_mbs: u32,
    wave: u32,
    first_row: u32,
    pictures: u32,
    luma: u32,
    forced: u32,
    /// Nonzero: the reconstruction is written (only `read_recon` reads it).
    keep_recon: u32,
    pad: [u32; 3],
}

/// `IntraParams::luma`: the luma kinds the modes allow (keep in sync with the shader's
/// `LUMA_16X16`, `LUMA_4X4`).
const LUMA_16X16: u32 = 1;
const LUMA_4X4: u32 = 2;

/// Words of `mb_info` per macroblock (the shader's `INFO_WORDS`).
const INFO_WORDS: u64 = 2;

/// The batch's `state` buffer (keep in sync with the shader's `STATE_*`, `EDGES_AT`,
/// `EDGE_WORDS`): status words, then each macroblock's published edges.
const STATE_NOT_CODABLE: usize = 0;
const STATE_STALLED: usize = 2;
const EDGES_AT: u64 = 4;
const EDGE_WORDS: u64 = 32;

/// How a batch's macroblocks are ordered on the GPU; the same output either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MbSchedule {
    /// One dispatch for the batch: workgroups take tickets in wave order, and each
    /// macroblock waits (spinning) only for the edges its own neighbours publish. Relies
    /// on a running workgroup making progress while others spin, which native drivers
    /// and lavapipe give.
    #[default]
    Chained,
    /// A dispatch per wave, each behind a barrier that waits for the wave's slowest
    /// macroblock: nothing spins.
    Waves,
}

impl MbSchedule {
    /// `PARVLC_H264_SCHEDULE=waves|chained`, else the default.
    pub fn from_env() -> MbSchedule {
        match std::env::var("PARVLC_H264_SCHEDULE").as_deref() {
            Ok("waves") => MbSchedule::Waves,
            _ => MbSchedule::Chained,
        }
    }
}

/// What the rate-distortion decisions read, part by part with the name of its offset
/// in shaders/h264/rate.wgsl (keep in sync: a test reads the offsets there): coeff_token
/// lengths [nC 0-1, 2-3, 4-7, 8+][TotalCoeff][T1s], total_zeros lengths [TotalCoeff -
/// 1][total_zeros], the codeNum of each Intra_4x4 coded_block_pattern, lambda and lambda2
/// by QP, how each Intra_4x4 mode predicts from the block's edge line
/// ([`super::predict4x4::line_taps`]), and the run_before bits of a block by its nonzero
/// levels' mask ([`run_before_bits`]), a byte each.
fn rate_table_parts() -> [(&'static str, Vec<u32>); 7] {
    let l = &VLC_LENGTHS;
    [
        (
            "RT_COEFF_TOKEN",
            l.coeff_token
                .as_flattened()
                .as_flattened()
                .iter()
                .map(|&v| v as u32)
                .collect(),
        ),
        (
            "RT_TOTAL_ZEROS",
            l.total_zeros
                .as_flattened()
                .iter()
                .map(|&v| v as u32)
                .collect(),
        ),
        ("RT_CBP_CODE", (0..48).map(intra_cbp_code_num).collect()),
        ("RT_LAMBDA", (0..52).map(lambda).collect()),
        ("RT_LAMBDA2", (0..52).map(super::rate::lambda2).collect()),
        ("RT_I4_TAPS", super::predict4x4::line_taps()),
        (
            "RT_RUN_BEFORE",
            (0..1u32 << 14)
                .map(|w| (0..4).fold(0, |word, b| word | run_before_bits(4 * w + b) << (8 * b)))
                .collect(),
        ),
    ]
}

/// [`rate_table_parts`], one after another.
pub(crate) fn rate_tables() -> Vec<u32> {
    rate_table_parts()
        .into_iter()
        .flat_map(|(_, part)| part)
        .collect()
}

/// The intra front end for pictures of one size and configuration.
pub struct IntraGpu {
    geometry: Geometry,
    params: IntraParams,
    schedule: MbSchedule,
    rate_tables: wgpu::Buffer,
    keep_recon: bool,
}

/// One batch's front end in GPU memory: what [`IntraGpu::encode_into`] recorded.
pub struct IntraBatch {
    pictures: u32,
    params: IntraParams,
    geometry: Geometry,
    _src: Option<PooledBuffer>,
    // Held until the batch is done: its submission must come before it is mapped again.
    _staging: StagedUpload,
    _uniforms: PooledBuffer,
    recon: PooledBuffer,
    // Shared with the CAVLC stage's frames, which bind their ranges.
    levels: Arc<PooledBuffer>,
    headers: Arc<PooledBuffer>,
    state: PooledBuffer,
    _choices: PooledBuffer,
    _info: PooledBuffer,
}

/// The waves of a slice of `rows` macroblock rows, `width_mbs` wide: for each, the
/// lowest and highest row (within the slice) it holds.
fn waves(width_mbs: u32, rows: u32) -> impl Iterator<Item = (u32, u32, u32)> {
    (0..width_mbs + 2 * (rows - 1))
        .map(move |w| {
            let low = w.saturating_sub(width_mbs - 1).div_ceil(2);
            let high = (w / 2).min(rows - 1);
            (w, low, high)
        })
        .filter(|&(_, low, high)| low <= high)
}

/// Macroblocks before wave `w` in a slice of `rows` rows, `width_mbs` wide: the sum over
/// its rows r of clamp(w - 2r, 0, width_mbs). The twin of the shader's `before_wave`.
#[cfg(test)]
fn before_wave(width_mbs: u32, w: u32, rows: u32) -> u32 {
    let whole = if w >= width_mbs {
        rows.min((w - width_mbs) / 2 + 1)
    } else {
        0
    };
    let started = rows.min(w.div_ceil(2));
    whole * width_mbs + (started - whole) * w + whole * whole.saturating_sub(1)
        - started * started.saturating_sub(1)
}

/// The macroblock of ticket `t` in a batch of `pictures` as (picture, slice, row within
/// the slice, x): tickets run over waves, and within a wave over pictures, slices and
/// rows, so every macroblock's neighbours have smaller tickets. The twin of the shader's
/// `ticket_macroblock`.
#[cfg(test)]
fn ticket_macroblock(
    width_mbs: u32,
    height_mbs: u32,
    rows: u32,
    pictures: u32,
    t: u32,
) -> [u32; 4] {
    let slices = height_mbs.div_ceil(rows);
    let last_rows = height_mbs - (slices - 1) * rows;
    let before =
        |w| (slices - 1) * before_wave(width_mbs, w, rows) + before_wave(width_mbs, w, last_rows);
    let (mut lo, mut hi) = (0, width_mbs + 2 * (rows - 1));
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if pictures * before(mid) <= t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let w = lo;
    let in_wave = before(w + 1) - before(w);
    let (pic, k) = (
        (t - pictures * before(w)) / in_wave,
        (t - pictures * before(w)) % in_wave,
    );
    let in_full = before_wave(width_mbs, w + 1, rows) - before_wave(width_mbs, w, rows);
    let (slice, j) = if k < (slices - 1) * in_full {
        (k / in_full, k % in_full)
    } else {
        (slices - 1, k - (slices - 1) * in_full)
    };
    let r = (w + 1).saturating_sub(width_mbs).div_ceil(2) + j;
    [pic, slice, r, w - 2 * r]
}

impl IntraGpu {
    /// The front end for `geometry` at `config`'s QP, slices and luma modes, on the
    /// default schedule ([`MbSchedule::from_env`]). Builds its two pipelines.
    pub fn new(gpu: &Gpu, geometry: Geometry, config: &EncoderConfig) -> Result<IntraGpu> {
        Self::with_schedule(gpu, geometry, config, MbSchedule::from_env())
    }

    /// [`Self::new`] on `schedule`, its pipelines built now.
    pub fn with_schedule(
        gpu: &Gpu,
        geometry: Geometry,
        config: &EncoderConfig,
        schedule: MbSchedule,
    ) -> Result<IntraGpu> {
        let front = Self::unbuilt(gpu, geometry, config, schedule)?;
        front.build(gpu)?;
        Ok(front)
    }

    /// [`Self::with_schedule`] without building its pipelines: the first batch builds
    /// them, or [`Self::build`] on another thread meanwhile.
    pub(crate) fn unbuilt(
        gpu: &Gpu,
        geometry: Geometry,
        config: &EncoderConfig,
        schedule: MbSchedule,
    ) -> Result<IntraGpu> {
        config.validate()?;
        let (chroma_width, chroma_height) =
            (geometry.width.div_ceil(2), geometry.height.div_ceil(2));
        let frame_bytes = Picture::frame_bytes(geometry.width, geometry.height) as u32;
        let (wm, hm) = (geometry.width_mbs, geometry.height_mbs);
        let (luma, forced) = match config.luma {
            LumaModes::Auto => (LUMA_16X16 | LUMA_4X4, 0),
            LumaModes::Intra16x16 => (LUMA_16X16, 0),
            LumaModes::Intra4x4 => (LUMA_4X4, 0),
            LumaModes::Intra4x4Forced(m) => (LUMA_4X4, m + 1),
        };
        let params = IntraParams {
            width: geometry.width,
            height: geometry.height,
            chroma_width,
            chroma_height,
            width_mbs: wm,
            height_mbs: hm,
            rows_per_slice: config.rows_per_slice(hm),
            qp: config.qp as u32,
            src_words: frame_bytes.div_ceil(4),
            recon_words: (wm * 16 * hm * 16 + 2 * wm * 8 * hm * 8) / 4,
            n_mbs: wm * hm,
            luma,
            forced,
            ..IntraParams::default()
        };
        let rate_tables = wgpu::util::DeviceExt::create_buffer_init(
            &gpu.device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("parvlc.h264.intra.rate_tables"),
                contents: bytemuck::cast_slice(&rate_tables()),
                usage: wgpu::BufferUsages::STORAGE,
            },
        );
        Ok(IntraGpu {
            geometry,
            params,
            schedule,
            rate_tables,
            keep_recon: true,
        })
    }

    /// Whether batches write their reconstruction (by default they do): without it a
    /// batch of 48 1080p pictures holds 150 MB less and [`IntraBatch::read_recon`] is an
    /// error. Nothing else changes: neighbours read each other's published edges.
    pub fn keep_recon(&mut self, keep: bool) {
        self.keep_recon = keep;
    }

    /// The pipelines of this front end's schedule and of its headers' pass, from the
    /// context's cache (built there by the first to ask; a thread asking meanwhile waits
    /// for that build).
    fn pipelines(&self, gpu: &Gpu) -> Result<(Arc<Built>, Arc<Built>)> {
        let entry = match self.schedule {
            MbSchedule::Chained => "chained",
            MbSchedule::Waves => "wave",
        };
        Ok((
            gpu.pipeline(&INTRA, entry, &[])?,
            gpu.pipeline(&INTRA, "write_headers", &[])?,
        ))
    }

    /// Build this front end's pipelines now (a batch recorded meanwhile waits for them).
    pub fn build(&self, gpu: &Gpu) -> Result<()> {
        self.pipelines(gpu).map(drop)
    }

    /// Most pictures one batch may hold on this GPU: its largest buffer (the levels)
    /// within one storage binding.
    pub fn max_batch(&self, gpu: &Gpu) -> usize {
        let per_picture = self.params.n_mbs as u64 * MB_LEVELS as u64 * 2;
        (gpu.max_binding() / per_picture.max(1)).clamp(1, 256) as usize
    }

    /// Bytes a batch of `pictures` pictures uploads (its pictures' planes, each from a
    /// word).
    pub fn upload_bytes(&self, pictures: usize) -> u64 {
        self.params.src_words as u64 * 4 * pictures as u64
    }

    /// Upload `pictures` (each of this front end's size) and record their front end into
    /// `encoder`: the batch's headers and levels are ready for CAVLC once it runs.
    /// With `profiler`, the pass is timed as `intra`. The pictures go through a staging
    /// buffer of the pool ([`Gpu::staged_upload`]), which the batch holds: submit
    /// `encoder` before dropping the batch.
    pub fn encode_into(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        profiler: Option<&mut Profiler>,
        pictures: &[&Picture],
    ) -> Result<IntraBatch> {
        let g = &self.geometry;
        for p in pictures {
            p.validate()?;
            if (p.width, p.height) != (g.width, g.height) {
                return Err(Error::InvalidArgument(format!(
                    "picture {}x{} in a {}x{} batch",
                    p.width, p.height, g.width, g.height
                )));
            }
        }
        let n = pictures.len() as u32;
        if n == 0 || n as usize > self.max_batch(gpu) {
            return Err(Error::InvalidArgument(format!(
                "a batch of {n} pictures: 1..={} on this GPU",
                self.max_batch(gpu)
            )));
        }
        let params = IntraParams {
            pictures: n,
            keep_recon: self.keep_recon as u32,
            ..self.params
        };
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let n_mbs = params.n_mbs as u64 * n as u64;
        let recon_bytes = match self.keep_recon {
            true => params.recon_words as u64 * 4 * n as u64,
            false => 4,
        };
        let recon = gpu.pooled_buffer(recon_bytes, storage);
        let levels = gpu.pooled_buffer(n_mbs * MB_LEVELS as u64 * 2, storage);
        let choices = gpu.pooled_buffer(n_mbs * 4, storage);
        let headers = gpu.pooled_buffer(n_mbs * std::mem::size_of::<MbHeader>() as u64, storage);
        let state_bytes = (EDGES_AT + n_mbs * EDGE_WORDS) * 4;
        let state = gpu.pooled_buffer(state_bytes, storage);
        let info = gpu.pooled_buffer(n_mbs * INFO_WORDS * 4, storage);
        // Edges unpublished, the ticket at 0 (the words the batch uses, not the pooled
        // buffer's slack: 33 MB for 32 1080p pictures).
        encoder.clear_buffer(&state, 0, Some(state_bytes));
        // Each picture's planes back to back, written straight into a mapped staging
        // buffer that the pool keeps mapped between batches.
        let picture_bytes = params.src_words as usize * 4;
        let mut staging = gpu.staged_upload(self.upload_bytes(pictures.len()))?;
        // Each picture starts on a word: zeros after its planes up to the next.
        let planes: Vec<&[u8]> = pictures
            .iter()
            .flat_map(|p| {
                let pad = picture_bytes - (p.y.len() + p.u.len() + p.v.len());
                [&p.y[..], &p.u[..], &p.v[..], &[0u8; 3][..pad]]
            })
            .collect();
        staging.write(&planes)?;
        // The front end reads the pictures across the link where they were written,
        // where the adapter allows it, else from a copy in GPU memory (on the H200 the
        // front end's time is the same either way, and the copy of a batch of 48 1080p
        // pictures is gone from the queue: docs/h264.md, "The twenty-seventh pass").
        let src = (!staging.bindable()).then(|| {
            let src = gpu.pooled_buffer(self.upload_bytes(pictures.len()), storage);
            staging.copy_to(encoder, &src, 0);
            src
        });
        // One uniform block per dispatch (for waves: the wave and its lowest row), at the
        // offsets the device aligns uniform bindings to.
        let rows = params.rows_per_slice;
        let slices = params.height_mbs.div_ceil(rows);
        let stride = (std::mem::size_of::<IntraParams>() as u64)
            .next_multiple_of(gpu.limits.min_uniform_buffer_offset_alignment as u64);
        let dispatches: Vec<(IntraParams, [u32; 3])> = match self.schedule {
            MbSchedule::Waves => waves(params.width_mbs, rows)
                .map(|(wave, low, high)| {
                    let block = IntraParams {
                        wave,
                        first_row: low,
                        ..params
                    };
                    (block, [high - low + 1, slices, n])
                })
                .collect(),
            MbSchedule::Chained => {
                // A workgroup a macroblock; those past the batch's take a ticket and leave.
                let max = gpu.limits.max_compute_workgroups_per_dimension;
                let x = (n_mbs as u32).min(max);
                vec![(params, [x, (n_mbs as u32).div_ceil(x), 1])]
            }
        };
        let uniforms = gpu.pooled_buffer(
            stride * dispatches.len() as u64,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        let mut blocks = vec![0u8; (stride * dispatches.len() as u64) as usize];
        for (i, (block, _)) in dispatches.iter().enumerate() {
            blocks[i * stride as usize..][..std::mem::size_of::<IntraParams>()]
                .copy_from_slice(bytemuck::bytes_of(block));
        }
        gpu.queue.write_buffer(&uniforms, 0, &blocks);
        let src_binding = match &src {
            Some(src) => src.as_entire_buffer_binding(),
            None => staging.bind().ok_or_else(|| Error::Gpu {
                stage: INTRA.name,
                message: "the upload cannot be bound".into(),
            })?,
        };
        // Asked for only now: where another thread builds them, the buffers above and
        // the pictures' upload were made meanwhile.
        let (code, header_pass) = self.pipelines(gpu)?;
        let bind = |built: &Built, i: usize| {
            gpu.bind(
                built,
                &[
                    (
                        0,
                        wgpu::BufferBinding {
                            buffer: &uniforms,
                            offset: i as u64 * stride,
                            size: wgpu::BufferSize::new(std::mem::size_of::<IntraParams>() as u64),
                        },
                    ),
                    (1, src_binding.clone()),
                    (2, recon.as_entire_buffer_binding()),
                    (3, levels.as_entire_buffer_binding()),
                    (4, choices.as_entire_buffer_binding()),
                    (5, headers.as_entire_buffer_binding()),
                    (6, state.as_entire_buffer_binding()),
                    (7, info.as_entire_buffer_binding()),
                    (8, self.rate_tables.as_entire_buffer_binding()),
                ],
            )
        };
        let groups: Vec<_> = dispatches
            .iter()
            .enumerate()
            .map(|(i, &(_, size))| (bind(&code, i), size))
            .collect();
        let header_bind = bind(&header_pass, 0);
        let timestamp_writes = profiler.and_then(|p| p.pass("intra"));
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(INTRA.label),
            timestamp_writes,
        });
        pass.set_pipeline(&code.pipeline);
        for (bind, [x, y, z]) in &groups {
            pass.set_bind_group(0, bind, &[]);
            pass.dispatch_workgroups(*x, *y, *z);
        }
        pass.set_pipeline(&header_pass.pipeline);
        pass.set_bind_group(0, &header_bind, &[]);
        pass.dispatch_workgroups((n_mbs as u32).div_ceil(64), 1, 1);
        drop(pass);
        Ok(IntraBatch {
            pictures: n,
            params,
            geometry: *g,
            _src: src,
            _staging: staging,
            _uniforms: uniforms,
            recon,
            levels: Arc::new(levels),
            headers: Arc::new(headers),
            state,
            _choices: choices,
            _info: info,
        })
    }
}

impl IntraBatch {
    pub fn len(&self) -> usize {
        self.pictures as usize
    }

    pub fn is_empty(&self) -> bool {
        self.pictures == 0
    }

    /// Pictures `first..first + count`'s bytes of a buffer of `bytes_per_mb` a macroblock.
    fn pictures_range(&self, first: usize, count: usize, bytes_per_mb: u64) -> (u64, u64) {
        let per = self.params.n_mbs as u64 * bytes_per_mb;
        (first as u64 * per, count as u64 * per)
    }

    /// Picture `k`'s headers and levels as a frame the CAVLC stages take: their ranges of
    /// the batch's buffers where the device can bind them there (offsets on its storage
    /// alignment), else copies recorded into `encoder` (each copy a buffer of its own,
    /// 6 MB of levels a 1080p picture).
    pub fn gpu_frame(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        k: usize,
        slice_starts: Vec<usize>,
    ) -> GpuFrame {
        self.frames_of(gpu, encoder, k, 1, &slice_starts, false)
    }

    /// The batch's pictures as frames of up to `group` pictures each (fewer in the last),
    /// as [`Self::gpu_frame`] makes them: each frame's slices are its pictures' (every
    /// picture's slices starting at `slice_starts`), coded as one stream, and CAVLC's
    /// passes run once a frame instead of once a picture (on the H200 a 1080p picture's
    /// CAVLC took 0.09 ms of GPU time alone, most of it its passes' fixed costs). At
    /// most [`CavlcGpu::max_frame_mbs`] macroblocks a frame: `group` is cut to fit.
    /// With `copied`, always by copies: the path a device whose storage alignment the
    /// picture ranges miss takes (tests prove it with this).
    pub fn gpu_frames(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        group: usize,
        slice_starts: &[usize],
        copied: bool,
    ) -> Vec<GpuFrame> {
        let fit = CavlcGpu::max_frame_mbs(gpu) / self.params.n_mbs.max(1);
        let group = group.min(fit as usize).max(1);
        // Frames as even as the group allows: 48 pictures in sixes, not eight and a four.
        let n = self.pictures as usize;
        let frames = n.div_ceil(group);
        let group = n.div_ceil(frames.max(1));
        (0..n)
            .step_by(group)
            .map(|first| {
                let count = group.min(n - first);
                self.frames_of(gpu, encoder, first, count, slice_starts, copied)
            })
            .collect()
    }

    fn frames_of(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        first: usize,
        count: usize,
        slice_starts: &[usize],
        copied: bool,
    ) -> GpuFrame {
        let align = gpu.limits.min_storage_buffer_offset_alignment as u64;
        let mb_header = std::mem::size_of::<MbHeader>() as u64;
        let (h_at, h_len) = self.pictures_range(first, count, mb_header);
        let (l_at, l_len) = self.pictures_range(first, count, MB_LEVELS as u64 * 2);
        let mut part = |batch: &Arc<PooledBuffer>, at: u64, len: u64| {
            if !copied && at.is_multiple_of(align) {
                return FramePart::Shared {
                    buffer: batch.clone(),
                    offset: at,
                    size: len,
                };
            }
            let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
            let own = gpu.pooled_buffer(len, usage);
            encoder.copy_buffer_to_buffer(batch, at, &own, 0, len);
            FramePart::Own(own)
        };
        let headers = part(&self.headers, h_at, h_len);
        let levels = part(&self.levels, l_at, l_len);
        let n_mbs = self.params.n_mbs as usize;
        let starts = (0..count)
            .flat_map(|k| slice_starts.iter().map(move |&s| k * n_mbs + s))
            .collect();
        GpuFrame::from_parts(
            self.geometry.width_mbs,
            self.params.n_mbs * count as u32,
            count as u32,
            headers,
            levels,
            starts,
        )
    }

    /// An error if some macroblock could not be coded even at QP 51, or gave up waiting
    /// for its neighbours (after submission).
    pub async fn check(&self, gpu: &Gpu) -> Result<()> {
        let (buffer, at, len) = self.status_range();
        Self::check_status(&gpu.read_buffer(buffer, at, len).await?)
    }

    /// The status words [`Self::check_status`] reads, for reading them back with other
    /// work.
    pub fn status_range(&self) -> (&wgpu::Buffer, u64, u64) {
        (&self.state, 0, EDGES_AT * 4)
    }

    /// An error if the status words say some macroblock gave up waiting for its
    /// neighbours (the batch's output is then wrong), or could not be coded even at QP 51.
    pub fn check_status(status: &[u8]) -> Result<()> {
        let word = |i: usize| status.get(4 * i..4 * i + 4).is_some_and(|w| w != [0; 4]);
        if word(STATE_STALLED) {
            return Err(Error::Gpu {
                stage: INTRA.name,
                message: "a macroblock waited for its neighbours past its limit; \
                          PARVLC_H264_SCHEDULE=waves codes without waiting"
                    .into(),
            });
        }
        if word(STATE_NOT_CODABLE) {
            return Err(Error::InvalidArgument(
                "a macroblock's levels cannot be coded in Baseline CAVLC even at QP 51".into(),
            ));
        }
        Ok(())
    }

    /// Picture `k`'s headers and levels (after submission).
    pub async fn read_frame(&self, gpu: &Gpu, k: usize) -> Result<Frame> {
        let (h_at, h_len) = self.pictures_range(k, 1, std::mem::size_of::<MbHeader>() as u64);
        let (l_at, l_len) = self.pictures_range(k, 1, MB_LEVELS as u64 * 2);
        let parts = gpu
            .read_buffers(&[(&self.headers, h_at, h_len), (&self.levels, l_at, l_len)])
            .await?;
        let mut frame = Frame::new(self.geometry.width_mbs, self.geometry.height_mbs);
        frame.mbs = bytemuck::pod_collect_to_vec(&parts[0]);
        frame.levels = bytemuck::pod_collect_to_vec(&parts[1]);
        Ok(frame)
    }

    /// Picture `k`'s reconstruction at the display size (after submission).
    pub async fn read_recon(&self, gpu: &Gpu, k: usize) -> Result<Picture> {
        if self.params.keep_recon == 0 {
            return Err(Error::InvalidArgument(
                "the front end kept no reconstruction (IntraGpu::keep_recon)".into(),
            ));
        }
        let words = self.params.recon_words as u64 * 4;
        let bytes = gpu
            .read_buffer(&self.recon, k as u64 * words, words)
            .await?;
        let g = &self.geometry;
        let (wm, hm) = (g.width_mbs as usize, g.height_mbs as usize);
        let (dw, dh) = (g.display_width as usize, g.display_height as usize);
        let crop = |plane: &[u8], stride: usize, w: usize, h: usize| -> Vec<u8> {
            plane
                .chunks_exact(stride)
                .take(h)
                .flat_map(|row| &row[..w])
                .copied()
                .collect()
        };
        let (y, c) = bytes.split_at(wm * 16 * hm * 16);
        let (u, v) = c.split_at(wm * 8 * hm * 8);
        Ok(Picture {
            width: g.display_width,
            height: g.display_height,
            y: crop(y, wm * 16, dw, dh),
            u: crop(u, wm * 8, dw / 2, dh / 2),
            v: crop(v, wm * 8, dw / 2, dh / 2),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_table_parts_start_where_the_shader_reads_them() {
        let shader = include_str!("../../shaders/h264/rate.wgsl");
        let mut at = 0;
        for (name, part) in rate_table_parts() {
            let line = shader
                .lines()
                .find(|l| l.starts_with(&format!("const {name}: u32 = ")))
                .unwrap_or_else(|| panic!("rate.wgsl has no {name}"));
            let value = line
                .split(['=', ';'])
                .nth(1)
                .unwrap()
                .trim()
                .trim_end_matches('u');
            assert_eq!(value.parse::<usize>().unwrap(), at, "{name}");
            at += part.len();
        }
        // Every mask's run_before bits fit their byte.
        assert!((0..1 << 16).all(|m| run_before_bits(m) < 256));
    }

    #[test]
    fn waves_cover_every_macroblock_once_after_its_neighbours() {
        for (wm, rows) in [(1u32, 1u32), (1, 5), (7, 1), (5, 3), (12, 9)] {
            let mut wave_of = vec![u32::MAX; (wm * rows) as usize];
            for (w, low, high) in waves(wm, rows) {
                for r in low..=high {
                    let x = w - 2 * r;
                    assert!(x < wm, "wave {w} row {r}");
                    assert_eq!(wave_of[(r * wm + x) as usize], u32::MAX);
                    wave_of[(r * wm + x) as usize] = w;
                }
            }
            for r in 0..rows {
                for x in 0..wm {
                    let w = wave_of[(r * wm + x) as usize];
                    assert_ne!(w, u32::MAX, "({x}, {r}) in no wave");
                    if x > 0 {
                        assert!(wave_of[(r * wm + x - 1) as usize] < w);
                    }
                    if r > 0 {
                        for dx in [-1i64, 0, 1] {
                            let nx = x as i64 + dx;
                            if (0..wm as i64).contains(&nx) {
                                assert!(wave_of[((r - 1) * wm + nx as u32) as usize] < w);
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn tickets_cover_every_macroblock_once_after_its_neighbours() {
        // Pictures of (width, height) macroblocks in slices of `rows`, the last shorter.
        for (wm, hm, rows, pictures) in [
            (1u32, 1u32, 1u32, 1u32),
            (1, 5, 5, 3),
            (7, 1, 1, 2),
            (5, 3, 3, 1),
            (5, 7, 3, 2),
            (12, 9, 4, 3),
            (3, 10, 1, 2),
            (120, 68, 68, 2),
            (120, 68, 5, 1),
        ] {
            let n = wm * hm;
            let mut ticket_of = vec![u32::MAX; (n * pictures) as usize];
            for t in 0..n * pictures {
                let [pic, slice, r, x] = ticket_macroblock(wm, hm, rows, pictures, t);
                let row = slice * rows + r;
                assert!(
                    pic < pictures && x < wm && r < rows && row < hm,
                    "ticket {t}"
                );
                let at = (pic * n + row * wm + x) as usize;
                assert_eq!(ticket_of[at], u32::MAX, "ticket {t} repeats a macroblock");
                ticket_of[at] = t;
            }
            for pic in 0..pictures {
                for row in 0..hm {
                    for x in 0..wm {
                        let t = ticket_of[(pic * n + row * wm + x) as usize];
                        let before =
                            |nx: u32, nrow: u32| ticket_of[(pic * n + nrow * wm + nx) as usize] < t;
                        if x > 0 {
                            assert!(
                                before(x - 1, row),
                                "{wm}x{hm}/{rows}: ({x}, {row}) before its left"
                            );
                        }
                        if row % rows > 0 {
                            for nx in x.saturating_sub(1)..(x + 2).min(wm) {
                                assert!(
                                    before(nx, row - 1),
                                    "{wm}x{hm}/{rows}: ({x}, {row}) before ({nx}, above)"
                                );
                            }
                        }
                    }
                }
            }
            // Wave by wave: a ticket's wave never falls below the one before it.
            let wave = |t| {
                let [_, _, r, x] = ticket_macroblock(wm, hm, rows, pictures, t);
                x + 2 * r
            };
            assert!((1..n * pictures).all(|t| wave(t - 1) <= wave(t)));
        }
    }

    #[test]
    fn a_stalled_or_uncodable_batch_is_an_error() {
        let words = |w: [u32; 4]| bytemuck::cast_slice::<u32, u8>(&w).to_vec();
        assert!(
            IntraBatch::check_status(&words([0, 9, 0, 0])).is_ok(),
            "the ticket is no error"
        );
        let stalled = IntraBatch::check_status(&words([1, 9, 1, 0])).unwrap_err();
        assert!(matches!(stalled, Error::Gpu { .. }), "{stalled}");
        assert!(
            stalled.to_string().contains("PARVLC_H264_SCHEDULE=waves"),
            "{stalled}"
        );
        let uncodable = IntraBatch::check_status(&words([1, 9, 0, 0])).unwrap_err();
        assert!(uncodable.to_string().contains("QP 51"), "{uncodable}");
    }
}
