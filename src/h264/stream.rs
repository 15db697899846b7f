//! The streaming encoder: pictures in, Annex B bytes (and reconstructions) out; the
//! slice data's CAVLC on the engine's GPU (one of the GPU variants) or the CPU reference.

use std::borrow::Borrow;
use std::sync::atomic::{AtomicU64, Ordering};
#[cfg(not(target_arch = "wasm32"))]
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex};

use rayon::prelude::*;

use super::intra::{IntraBatch, IntraGpu, MbSchedule};
use super::nal::{trailing_bits, write_nal, NAL_PPS, NAL_SLICE_IDR, NAL_SPS};
use super::slices::encode_picture_levels_with;
use super::syntax::{level_idc, pps, slice_header, sps};
use super::{Geometry, LumaModes, Picture};
use crate::bits::MsbWriter;
use crate::cavlc::frame::{encode_slice_data, total_coeffs, Frame};
use crate::cavlc::{CavlcConfig, CavlcGpu, GpuFrame, GpuVariant};
use crate::gpu::Gpu;
use crate::{Engine, Error, Result};

/// Batches of the GPU front end in flight at once for batches of `depth` pictures: about
/// 64 pictures in all, two to four batches. Each batch is one dispatch of its front end
/// (or a dispatch per wave), then CAVLC, and the batches in flight hide the host's part
/// (upload, readback, NAL units). On the H200, 1920 1080p frames at depth 48: two in
/// flight 1.86-1.88 s, three 1.88-1.92 s (docs/h264.md, "The twenty-seventh pass").
#[cfg(not(target_arch = "wasm32"))]
fn gpu_coders(depth: usize) -> usize {
    (64 / depth.max(1)).clamp(2, 4)
}

/// Macroblocks the GPU front end codes in one batch by default: 48 1080p pictures.
const DEFAULT_BATCH_MBS: u64 = 48 * 120 * 68;

/// How many `width` x `height` pictures [`Encoder::encode_stream`] should code at once on
/// the GPU front end: 48 1080p pictures (the one-slice front end's chain of macroblocks
/// keeps a smaller batch from filling the GPU), as many macroblocks of larger pictures
/// (12 of 4K), at most 64. On the H200, 1920 1080p frames at 32, 40, 48 and 64: 1.98-2.01,
/// 1.93-1.94, 1.86-1.88 and 1.89 s (docs/h264.md, "The twenty-seventh pass").
pub fn default_depth(width: u32, height: u32) -> usize {
    let mbs = width.div_ceil(16) as u64 * height.div_ceil(16) as u64;
    (DEFAULT_BATCH_MBS / mbs.max(1)).clamp(1, 64) as usize
}

/// What the encoder is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncoderConfig {
    /// QP of every macroblock (0..=51), except where Baseline CAVLC cannot code a
    /// macroblock's levels: that one gets the lowest coarser QP that it can.
    pub qp: u8,
    /// Macroblock rows per slice; `None`: one slice per picture.
    pub slice_rows: Option<u32>,
    /// Which GPU stage writes slice_data() on a wgpu engine: CAVLCU's one kernel, its
    /// recompute variant or Su et al.'s multi-kernel baseline. On the CPU engine the CPU
    /// reference writes it (the same bits).
    pub cavlc: GpuVariant,
    /// The luma predictions macroblocks may use (default: I_16x16 or I_4x4, whichever
    /// costs less).
    pub luma: LumaModes,
    /// Where prediction, transform, quantization and reconstruction run (the same
    /// bytes either way).
    pub front_end: FrontEnd,
}

/// Where the front end runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrontEnd {
    /// On the engine's GPU (`h264/intra`, every luma mode), pictures in batches; on the
    /// CPU cores where the engine is the CPU.
    #[default]
    Gpu,
    /// On the CPU cores.
    Cpu,
}

impl std::str::FromStr for FrontEnd {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "gpu" => Ok(FrontEnd::Gpu),
            "cpu" => Ok(FrontEnd::Cpu),
            _ => Err(Error::InvalidArgument(format!(
                "front end `{s}`: gpu or cpu"
            ))),
        }
    }
}

impl Default for EncoderConfig {
    fn default() -> EncoderConfig {
        EncoderConfig {
            qp: 26,
            slice_rows: None,
            cavlc: GpuVariant::Cavlcu,
            luma: LumaModes::Auto,
            front_end: FrontEnd::Gpu,
        }
    }
}

impl EncoderConfig {
    pub fn validate(&self) -> Result<()> {
        if self.qp > 51 {
            return Err(Error::InvalidArgument(format!(
                "QP {} is outside 0..=51",
                self.qp
            )));
        }
        self.luma.validate()?;
        if self.slice_rows == Some(0) {
            return Err(Error::InvalidArgument(
                "slice rows must be at least 1".into(),
            ));
        }
        Ok(())
    }
    /// Macroblock rows per slice for a picture `height_mbs` rows high.
    pub fn rows_per_slice(&self, height_mbs: u32) -> u32 {
        self.slice_rows
            .unwrap_or(height_mbs)
            .clamp(1, height_mbs.max(1))
    }
    /// The first macroblock of every slice of a picture of `geometry`.
    pub fn slice_starts(&self, geometry: &Geometry) -> Vec<usize> {
        let rows = self.rows_per_slice(geometry.height_mbs);
        (0..geometry.height_mbs)
            .step_by(rows as usize)
            .map(|r| (r * geometry.width_mbs) as usize)
            .collect()
    }
}

/// One coded picture.
pub struct Encoded {
    /// Annex B bytes: SPS and PPS before the first picture, then one NAL unit per slice.
    pub bytes: Vec<u8>,
    /// What a decoder outputs for it (display size), unless [`Encoder::keep`] declined it.
    pub recon: Option<Picture>,
    /// Its macroblock headers and levels, as CAVLC coded them, unless [`Encoder::keep`]
    /// declined them.
    pub frame: Option<Frame>,
}

/// One IDR picture in Annex B form: SPS and PPS first when `parameter_sets` gives
/// (geometry, level_idc, QP), then a NAL unit per slice of `frame` carrying its header and
/// `slices`' data (MSB-first bytes and bit count per slice, in order). Slices are at the
/// PPS's QP.
pub fn write_picture(
    frame: &Frame,
    slices: &[(Vec<u8>, u64)],
    parameter_sets: Option<(&Geometry, u8, u8)>,
    idr_pic_id: u32,
) -> Vec<u8> {
    let starts: Vec<usize> = frame.slices().iter().map(|r| r.start).collect();
    write_slices(&starts, slices, parameter_sets, idr_pic_id)
}

/// The slices of a frame of several pictures (CAVLC's groups: `IntraBatch::gpu_frames`),
/// `per_picture` of them each, as each picture's.
fn pictures_of(slices: Vec<(Vec<u8>, u64)>, per_picture: usize) -> Vec<Vec<(Vec<u8>, u64)>> {
    let mut slices = slices.into_iter();
    let mut pictures = Vec::with_capacity(slices.len() / per_picture.max(1));
    while slices.len() > 0 {
        pictures.push(slices.by_ref().take(per_picture.max(1)).collect());
    }
    pictures
}

/// [`write_picture`] from the slices' first macroblocks.
fn write_slices(
    slice_starts: &[usize],
    slices: &[(Vec<u8>, u64)],
    parameter_sets: Option<(&Geometry, u8, u8)>,
    idr_pic_id: u32,
) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(slices.iter().map(|s| s.0.len() + 16).sum::<usize>() + 64);
    if let Some((geometry, level_idc, qp)) = parameter_sets {
        write_nal(&mut bytes, 3, NAL_SPS, &sps(geometry, level_idc));
        write_nal(&mut bytes, 3, NAL_PPS, &pps(qp));
    }
    for (&start, (data, bits)) in slice_starts.iter().zip(slices) {
        let mut w = slice_header(start as u32, idr_pic_id);
        w.append_bytes(data, *bits);
        trailing_bits(&mut w);
        write_nal(&mut bytes, 3, NAL_SLICE_IDR, w.as_bytes());
    }
    bytes
}

/// Encodes pictures of one size into one stream.
pub struct Encoder {
    config: EncoderConfig,
    geometry: Geometry,
    level_idc: u8,
    /// The GPU and its CAVLC stages on a wgpu engine; `None`: the CPU reference.
    gpu: Option<(Arc<Gpu>, CavlcGpu)>,
    /// The GPU front end, where the configuration lets it code the pictures.
    front: Option<IntraGpu>,
    /// Bytes of each picture's stream read back with the GPU front end's batch (a longer
    /// one is read again); grows with the longest seen.
    stream_quota: AtomicU64,
    keep_recon: bool,
    keep_frame: bool,
    pictures: u64,
    /// Open once the first batch is submitted (or its coder stopped): a stream's other
    /// coders start after it, so that the first batch's buffers are made alone.
    first_submitted: Latch,
}

/// A one-way gate: closed until opened, then open for good.
#[derive(Default)]
struct Latch {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Latch {
    fn open(&self) {
        if let Ok(mut open) = self.open.lock() {
            *open = true;
            self.opened.notify_all();
        }
    }

    fn is_open(&self) -> bool {
        self.open.lock().map_or(true, |open| *open)
    }

    /// Block until the latch opens (native threads only: the browser never waits).
    #[cfg(not(target_arch = "wasm32"))]
    fn wait(&self) {
        if let Ok(open) = self.open.lock() {
            let _open = self.opened.wait_while(open, |open| !*open);
        }
    }
}

/// Opens a latch when dropped: a coder that stops for any reason lets the others start.
#[cfg(not(target_arch = "wasm32"))]
struct OpenOnDrop<'a>(&'a Latch);

#[cfg(not(target_arch = "wasm32"))]
impl Drop for OpenOnDrop<'_> {
    fn drop(&mut self) {
        self.0.open();
    }
}

impl Encoder {
    /// An encoder for `width` x `height` pictures at `fps` (for the level), coding CAVLC
    /// on `engine`: its GPU or the CPU. There is no CUDA path: `Engine::Cuda` is an error.
    /// The GPU stages' pipelines are built once, when first needed:
    /// [`Self::encode_stream`] builds them beside its first batch's buffers and upload,
    /// [`Self::build_pipelines`] now.
    pub fn new(
        width: u32,
        height: u32,
        fps: f64,
        config: EncoderConfig,
        engine: &Engine,
    ) -> Result<Encoder> {
        config.validate()?;
        let geometry = Geometry::new(width, height)?;
        let (gpu, front) = match engine.wgpu_or_cpu("the H.264 encoder")? {
            Some(g) => {
                let stages = CavlcGpu::for_variants(g, CavlcConfig::default(), &[])?;
                let front = (config.front_end == FrontEnd::Gpu)
                    .then(|| IntraGpu::unbuilt(g, geometry, &config, MbSchedule::from_env()))
                    .transpose()?;
                (Some((g.clone(), stages)), front)
            }
            None => (None, None),
        };
        Ok(Encoder {
            config,
            geometry,
            level_idc: level_idc(geometry.width_mbs, geometry.height_mbs, fps),
            gpu,
            // 4 bits a pixel to start: detailed 1080p at QP 27 takes about 3, and a short
            // first guess read every stream of the first batches twice.
            stream_quota: AtomicU64::new(
                geometry.width_mbs as u64 * geometry.height_mbs as u64 * 128,
            ),
            front,
            keep_recon: true,
            keep_frame: true,
            pictures: 0,
            first_submitted: Latch::default(),
        })
    }

    /// Build the GPU stages' pipelines now (nothing on the CPU engine): only the
    /// configured variant's, since a process builds what it uses. The CAVLC stages' and
    /// the front end's are built side by side (from the pipeline cache: 13 and 17-28 ms
    /// on the H200).
    pub fn build_pipelines(&self) -> Result<()> {
        let Some((gpu, stages)) = &self.gpu else {
            return Ok(());
        };
        let cavlc = || stages.build(gpu, &[self.config.cavlc]);
        let front = || self.front.as_ref().map_or(Ok(()), |f| f.build(gpu));
        // (The browser's GPU objects stay on their thread.)
        #[cfg(not(target_arch = "wasm32"))]
        let (cavlc, front) = rayon::join(cavlc, front);
        #[cfg(target_arch = "wasm32")]
        let (cavlc, front) = (cavlc(), front());
        cavlc.and(front)
    }

    /// Bytes of each picture's stream that a batch first reads back (and twice as many
    /// it gives CAVLC's output room for): it grows with the streams seen. Smaller, it
    /// forces the paths that read a stream again and code a group again (tests).
    #[doc(hidden)]
    pub fn set_stream_quota(&self, bytes: u64) {
        self.stream_quota.store(bytes, Ordering::Relaxed);
    }

    /// Whether each [`Encoded`] carries the reconstruction and the CAVLC input (both by
    /// default). The GPU front end reads back only what is kept.
    pub fn keep(&mut self, recon: bool, frame: bool) {
        self.keep_recon = recon;
        self.keep_frame = frame;
        if let Some(front) = &mut self.front {
            front.keep_recon(recon);
        }
    }

    /// Where the front end runs: `gpu` or `cpu`.
    pub fn front_end_name(&self) -> &'static str {
        match self.front {
            Some(_) => "gpu",
            None => "cpu",
        }
    }

    /// Who writes slice_data(): the GPU variant's name, or `cpu` for the CPU reference.
    pub fn cavlc_name(&self) -> &'static str {
        match self.gpu {
            Some(_) => self.config.cavlc.name(),
            None => "cpu",
        }
    }

    pub fn config(&self) -> &EncoderConfig {
        &self.config
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Code one picture (the size given to [`Encoder::new`]).
    pub async fn encode(&mut self, picture: &Picture) -> Result<Encoded> {
        // One picture at a time: its macroblocks in parallel waves.
        let coded = match self.front {
            Some(_) => self
                .encode_batch_at(std::slice::from_ref(picture), self.pictures)
                .await?
                .pop(),
            None => Some(self.encode_with(picture, self.pictures, true).await?),
        };
        self.pictures += 1;
        coded.ok_or_else(|| Error::InvalidArgument("the batch lost its picture".into()))
    }

    /// Code `pictures` as pictures `first..` of the stream: on the GPU front end in
    /// batches of as many as fit one binding, else one after the other.
    pub async fn encode_batch_at(&self, pictures: &[Picture], first: u64) -> Result<Vec<Encoded>> {
        self.encode_batches(pictures.iter().collect(), first, false)
            .await
    }

    /// [`Encoder::encode_batch_at`] of pictures it may own: the stream's are dropped once
    /// uploaded, so that the batches waiting on the GPU hold no pictures. With
    /// `front_first`, each batch submits its front end before recording CAVLC.
    async fn encode_batches<P: Borrow<Picture>>(
        &self,
        mut pictures: Vec<P>,
        first: u64,
        front_first: bool,
    ) -> Result<Vec<Encoded>> {
        let (Some(front), Some((gpu, stages))) = (&self.front, &self.gpu) else {
            let mut out = Vec::with_capacity(pictures.len());
            for (k, p) in pictures.iter().enumerate() {
                out.push(
                    self.encode_with(p.borrow(), first + k as u64, false)
                        .await?,
                );
            }
            return Ok(out);
        };
        let mut out = Vec::with_capacity(pictures.len());
        let mut at = first;
        while !pictures.is_empty() {
            let rest = pictures.split_off(front.max_batch(gpu).min(pictures.len()));
            let n = pictures.len() as u64;
            let coded = self.encode_on_gpu(gpu, stages, front, pictures, at, front_first);
            out.extend(coded.await?);
            pictures = rest;
            at += n;
        }
        Ok(out)
    }

    /// One batch through the GPU front end and CAVLC, in one submission (two with
    /// `front_first`, and for the stream's first batch).
    async fn encode_on_gpu<P: Borrow<Picture>>(
        &self,
        gpu: &Gpu,
        stages: &CavlcGpu,
        front: &IntraGpu,
        pictures: Vec<P>,
        first: u64,
        front_first: bool,
    ) -> Result<Vec<Encoded>> {
        let refs: Vec<&Picture> = pictures.iter().map(Borrow::borrow).collect();
        for p in &refs {
            self.check_size(p)?;
        }
        let n_pictures = refs.len();
        let starts = self.config.slice_starts(&self.geometry);
        let t0 = crate::gpu::clock();
        // GPU times in the trace log: each is read back in a submission of its own, which
        // waits for every batch submitted before it (the debug log's phases would include
        // other batches' work).
        let profile = log::log_enabled!(log::Level::Trace) && gpu.has_timestamps();
        let mut profiler = crate::gpu::Profiler::new(gpu, if profile { 1 } else { 0 });
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let batch =
            front.encode_into(gpu, &mut encoder, profile.then_some(&mut profiler), &refs)?;
        // Uploaded: owned pictures go now.
        drop(refs);
        drop(pictures);
        profiler.resolve(&mut encoder);
        // A batch that may make buffers as it records CAVLC (the stream's first, and each
        // coder's first two: `run_coder`) submits its front end on its own, so that the
        // GPU codes it meanwhile (on the H200 a batch of 48 1080p pictures' outputs took
        // 20-37 ms to make and its readback buffer 21-40, the front end 26 ms). Later
        // batches submit once, so that each batch's CAVLC follows its own front end and
        // not another coder's.
        if front_first || !self.first_submitted.is_open() {
            gpu.queue.submit([encoder.finish()]);
            encoder = gpu.device.create_command_encoder(&Default::default());
        }
        let t1 = crate::gpu::clock();
        // CAVLC codes the pictures a group at a time, as many as one frame may hold, each
        // group's output with room for twice the quota (below) a picture, not for every
        // macroblock's longest code: 14 MiB a 1080p picture to make and to clear.
        let frames = batch.gpu_frames(gpu, &mut encoder, usize::MAX, &starts, false);
        let group = frames.iter().map(GpuFrame::pictures).max().unwrap_or(1) as u64;
        let quota = self.stream_quota.load(Ordering::Relaxed);
        let variant = self.config.cavlc;
        let room = Some(2 * quota * group);
        let pending =
            stages.encode_frames_into(gpu, &mut encoder, &frames, variant, profile, room)?;
        // The results' readback goes in the same submission, so that it waits for this
        // batch alone and not for the next one, which another coder may submit meanwhile.
        let recorded = stages.record_finish(gpu, &mut encoder, &pending, quota * group)?;
        let status = gpu.record_reads(&mut encoder, &[batch.status_range()]);
        gpu.queue.submit([encoder.finish()]);
        self.first_submitted.open();
        let t2 = crate::gpu::clock();
        // (Timestamps are read once their submission is made: read before it, they were
        // never written, and the read stalled the recording.)
        let mut cavlc_ms = 0.0;
        if profile {
            for p in &pending {
                cavlc_ms += p.timings(gpu).await?.total() * 1e3;
            }
        }
        let coded = stages.finish_recorded(gpu, pending, recorded).await;
        let t3 = crate::gpu::clock();
        IntraBatch::check_status(&gpu.read_recorded(status).await?.concat())?;
        let mut coded = coded?;
        // A group whose stream outgrew its room is coded again (it alone) with room for
        // any stream.
        let exceeded: Vec<usize> = (0..coded.len())
            .filter(|&i| coded[i].room_exceeded)
            .collect();
        if !exceeded.is_empty() {
            log::debug!(
                "h264: {} of {} CAVLC groups outgrew their room, coded again",
                exceeded.len(),
                coded.len()
            );
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            let again = exceeded.iter().map(|&i| &frames[i]);
            let pending =
                stages.encode_frames_into(gpu, &mut encoder, again, variant, false, None)?;
            let recorded = stages.record_finish(gpu, &mut encoder, &pending, quota * group)?;
            gpu.queue.submit([encoder.finish()]);
            let again = stages.finish_recorded(gpu, pending, recorded).await?;
            for (i, coded_again) in exceeded.into_iter().zip(again) {
                coded[i] = coded_again;
            }
        }
        // Each picture's slices, from its group's.
        let coded: Vec<Vec<(Vec<u8>, u64)>> = coded
            .into_iter()
            .flat_map(|frame| pictures_of(frame.slices, starts.len()))
            .collect();
        if coded.len() != n_pictures {
            return Err(Error::Gpu {
                stage: "cavlc",
                message: format!("{} pictures' slices for {n_pictures}", coded.len()),
            });
        }
        drop(frames);
        // The next batches read as much of each stream as this one's longest needed, and
        // a quarter more.
        let longest = coded
            .iter()
            .map(|slices| slices.iter().map(|s| s.0.len() as u64 + 8).sum::<u64>())
            .max()
            .unwrap_or(0);
        self.stream_quota.fetch_max(
            (longest + longest / 4).next_multiple_of(64 << 10),
            Ordering::Relaxed,
        );
        let t4 = crate::gpu::clock();
        // Each picture's NAL units on its own core: a 1080p picture is most of a megabyte
        // to escape and copy, and a batch of 64 took 80 ms of this thread. (The parameter
        // sets' fields are copied out: the encoder, which holds the GPU, is not `Sync` in
        // the browser.)
        let (geometry, level_idc, qp) = (self.geometry, self.level_idc, self.config.qp);
        let written: Vec<Vec<u8>> = coded
            .par_iter()
            .enumerate()
            .map(|(k, slices)| {
                let index = first + k as u64;
                write_slices(
                    &starts,
                    slices,
                    (index == 0).then_some((&geometry, level_idc, qp)),
                    (index % 2) as u32,
                )
            })
            .collect();
        let mut out = Vec::with_capacity(n_pictures);
        for (k, bytes) in written.into_iter().enumerate() {
            let recon = match self.keep_recon {
                true => Some(batch.read_recon(gpu, k).await?),
                false => None,
            };
            let frame = match self.keep_frame {
                true => Some(batch.read_frame(gpu, k).await?),
                false => None,
            };
            out.push(Encoded {
                bytes,
                recon,
                frame,
            });
        }
        if let (Some(t0), Some(t1), Some(t2), Some(t3), Some(t4)) = (t0, t1, t2, t3, t4) {
            let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
            log::debug!(
                "h264 batch of {} at {first}: front end upload and record {:.1} ms, CAVLC record {:.1} ms, until the results are read {:.1} ms, status {:.1} ms, pictures written {:.1} ms",
                n_pictures,
                ms(t0, t1),
                ms(t1, t2),
                ms(t2, t3),
                ms(t3, t4),
                ms(t4, std::time::Instant::now())
            );
            if profile {
                let front_ms = profiler.timings(gpu).await?.total() * 1e3;
                log::trace!(
                    "h264 batch of {} at {first}: GPU front end {front_ms:.2} ms, CAVLC {cavlc_ms:.2} ms",
                    n_pictures
                );
            }
        }
        Ok(out)
    }

    fn check_size(&self, picture: &Picture) -> Result<()> {
        if (picture.width, picture.height) != (self.geometry.width, self.geometry.height) {
            return Err(Error::InvalidArgument(format!(
                "picture {}x{} in a {}x{} stream",
                picture.width, picture.height, self.geometry.width, self.geometry.height
            )));
        }
        Ok(())
    }

    /// Code `picture` as picture `index` of the stream (the parameter sets come with
    /// picture 0; consecutive IDR pictures differ in idr_pic_id). Pictures are intra
    /// coded and independent, so several may be coded at once.
    pub async fn encode_at(&self, picture: &Picture, index: u64) -> Result<Encoded> {
        match self.front {
            Some(_) => {
                let mut one = self
                    .encode_batch_at(std::slice::from_ref(picture), index)
                    .await?;
                one.pop()
                    .ok_or_else(|| Error::InvalidArgument("the batch lost its picture".into()))
            }
            None => self.encode_with(picture, index, false).await,
        }
    }

    /// [`Encoder::encode_at`], each slice's macroblocks in parallel waves where
    /// `wavefront` (see [`encode_picture_levels_with`]).
    async fn encode_with(&self, picture: &Picture, index: u64, wavefront: bool) -> Result<Encoded> {
        self.check_size(picture)?;
        let (frame, recon) = encode_picture_levels_with(picture, &self.config, wavefront)?;
        let slices = self.slice_data(&frame).await?;
        let bytes = write_picture(
            &frame,
            &slices,
            (index == 0).then_some((&self.geometry, self.level_idc, self.config.qp)),
            (index % 2) as u32,
        );
        Ok(Encoded {
            bytes,
            recon: self.keep_recon.then_some(recon),
            frame: self.keep_frame.then_some(frame),
        })
    }

    /// Code every picture `next` gives and hand each to `sink` in order; returns how many.
    /// `next` runs on a reader thread. The GPU front end codes batches of `depth`
    /// pictures, two to four batches at once (about 64 pictures), and admits one batch's
    /// pictures more; the CPU front end codes `depth` pictures at once on threads of their
    /// own and admits twice as many.
    /// Blocks: call it from a thread of your own.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn encode_stream(
        &mut self,
        depth: usize,
        next: &mut (dyn FnMut() -> Result<Option<Picture>> + Send),
        sink: &mut dyn FnMut(Encoded) -> Result<()>,
    ) -> Result<u64> {
        use std::sync::atomic::AtomicBool;
        use std::sync::mpsc::sync_channel;
        if depth == 0 {
            return Err(Error::InvalidArgument(
                "a depth of at least one picture".into(),
            ));
        }
        let first = self.pictures;
        let this = &*self;
        // The GPU front end codes `depth` pictures a batch, `gpu_coders` batches in flight:
        // the GPU runs them one after another (each wave's dispatch waits for all the work
        // before it), while the others upload, record, read back and write NAL units.
        // The CPU front end codes a picture per coder, `depth` coders.
        let (coders, batch) = match self.front {
            Some(_) => (
                std::env::var("PARVLC_H264_CODERS")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n| n > 0)
                    .unwrap_or_else(|| gpu_coders(depth)),
                depth,
            ),
            None => (depth, 1),
        };
        // Fewer pictures at once than cores: each picture's macroblocks in parallel waves
        // too (the same output; at a depth that fills the cores, waves only cost).
        let wavefront = depth < rayon::current_num_threads();
        let stop = AtomicBool::new(false);
        let (to_coders, from_reader) = sync_channel::<Result<(u64, Picture)>>(1);
        let from_reader = Mutex::new(from_reader);
        let (to_sink, from_coders) = sync_channel::<Result<(u64, Encoded)>>(depth);
        // At most this many pictures from the oldest one not yet handed to the sink.
        let window = match batch {
            1 => 2 * depth,
            _ => (coders + 1) * batch,
        };
        let window = crate::ordered::Window::new(first, window);
        let coded = std::thread::scope(|s| {
            // The pipelines (28-32 ms from the cache on the H200) are built while the
            // staging below and the first batch's buffers are made and its pictures
            // uploaded; the first coder to need one waits for its build. A failure here
            // is the coders' to report: their own request builds again.
            s.spawn(|| {
                if let Err(e) = this.build_pipelines() {
                    log::debug!("h264: pipelines not built ahead: {e}");
                }
            });
            let (stop, window) = (&stop, &window);
            s.spawn(move || {
                let mut index = first;
                while !stop.load(Ordering::Relaxed) && window.admit(index) {
                    let picture = match next() {
                        Ok(Some(p)) => Ok((index, p)),
                        Ok(None) => return,
                        Err(e) => Err(e),
                    };
                    let failed = picture.is_err();
                    if to_coders.send(picture).is_err() || failed {
                        return;
                    }
                    index += 1;
                }
            });
            // The batches' upload buffers made while the first pictures are read, not by
            // each coder when its first batch is ready (creating one took 28-47 ms on
            // the H200). A failure here leaves them to the coders, which report it.
            if let (Some(front), Some((gpu, _))) = (&this.front, &this.gpu) {
                let bytes = front.upload_bytes(batch);
                if let Err(e) = pollster::block_on(gpu.prewarm_staging(bytes, coders)) {
                    log::debug!("h264: staging not made ahead: {e}");
                }
            }
            let from_reader = &from_reader;
            for coder in 0..coders {
                let to_sink = to_sink.clone();
                s.spawn(move || {
                    // The first coder's first batch makes its buffers alone (they are
                    // made as it records, the first time: two coders' together took
                    // 0.2 s on the H200); the others start once it is submitted.
                    let latch = &this.first_submitted;
                    let _opens = (coder == 0).then(|| OpenOnDrop(latch));
                    if coder > 0 && batch > 1 {
                        latch.wait();
                    }
                    this.run_coder(batch, wavefront, from_reader, to_sink);
                });
            }
            drop(to_sink);
            // Pictures come back in any order; the sink hears them in sequence.
            let lost = || {
                Error::InvalidArgument("the pipeline lost a picture (a coder stopped early)".into())
            };
            let result = crate::ordered::in_order(from_coders, first, window, lost, |_, p| sink(p));
            // On an error: stop the reader and take what it queued so that no one waits.
            stop.store(true, Ordering::Relaxed);
            if let Ok(rx) = from_reader.lock() {
                while rx.recv().is_ok() {}
            }
            result
        });
        if let Ok(n) = coded {
            self.pictures += n;
        }
        coded
    }

    /// One coder of [`Self::encode_stream`]: up to `batch` consecutive pictures at a time
    /// from the reader until it runs dry, each batch coded and its pictures sent to the
    /// sink; the first error is sent on and ends it.
    #[cfg(not(target_arch = "wasm32"))]
    fn run_coder(
        &self,
        batch: usize,
        wavefront: bool,
        from_reader: &Mutex<Receiver<Result<(u64, Picture)>>>,
        to_sink: SyncSender<Result<(u64, Encoded)>>,
    ) {
        for round in 0u64.. {
            // Up to `batch` consecutive pictures (fewer at the end of the input).
            let waited = crate::gpu::clock();
            let jobs: Result<Vec<(u64, Picture)>> = match from_reader.lock() {
                Ok(rx) => rx.iter().take(batch).collect(),
                Err(_) => return,
            };
            if let (Some(t), Ok(jobs)) = (waited, &jobs) {
                log::debug!(
                    "h264 coder waited {:.1} ms for {} pictures",
                    t.elapsed().as_secs_f64() * 1e3,
                    jobs.len()
                );
            }
            let coded = jobs.and_then(|jobs| {
                let Some(&(index, _)) = jobs.first() else {
                    return Ok(Vec::new());
                };
                if batch == 1 {
                    let (_, picture) = &jobs[0];
                    let coded = self.encode_with(picture, index, wavefront);
                    return pollster::block_on(coded).map(|c| vec![(index, c)]);
                }
                let pictures: Vec<Picture> = jobs.into_iter().map(|(_, p)| p).collect();
                // A coder's first batch makes its buffers; its second may make a readback
                // buffer, where another coder took the one the first gave back.
                let coded = self.encode_batches(pictures, index, round < 2);
                let coded = pollster::block_on(coded)?;
                Ok((index..).zip(coded).collect())
            });
            match coded {
                Ok(done) if done.is_empty() => return,
                Ok(done) => {
                    for item in done {
                        if to_sink.send(Ok(item)).is_err() {
                            return;
                        }
                    }
                }
                Err(e) => {
                    let _ = to_sink.send(Err(e));
                    return;
                }
            }
        }
    }

    /// slice_data() of every slice: MSB-first bytes and bit count.
    async fn slice_data(&self, frame: &Frame) -> Result<Vec<(Vec<u8>, u64)>> {
        match &self.gpu {
            Some((gpu, stages)) => stages.encode_frame(gpu, frame, self.config.cavlc).await,
            None => cpu_slice_data(frame),
        }
    }
}

/// The CPU reference's slice_data() of every slice of `frame`, slices in parallel.
pub fn cpu_slice_data(frame: &Frame) -> Result<Vec<(Vec<u8>, u64)>> {
    frame.validate()?;
    let tc = total_coeffs(frame);
    frame
        .slices()
        .into_par_iter()
        .map(|range| {
            let mut w = MsbWriter::new();
            encode_slice_data(frame, &tc, range, &mut w)?;
            let b = w.into_bitbuf();
            Ok((b.bytes, b.bits))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_depth_holds_48_1080p_pictures_of_macroblocks() {
        assert_eq!(default_depth(1920, 1080), 48);
        assert_eq!(default_depth(3840, 2160), 12);
        assert_eq!(default_depth(7680, 4320), 3);
        // Small pictures: at most 64 at once.
        assert_eq!(default_depth(1280, 720), 64);
        assert_eq!(default_depth(1, 1), 64);
        // Larger than 48 1080p pictures: still one.
        assert_eq!(default_depth(65535, 65535), 1);
    }

    #[test]
    fn a_group_s_slices_go_to_its_pictures_in_order() {
        let slices: Vec<(Vec<u8>, u64)> = (0..6u8).map(|k| (vec![k], k as u64)).collect();
        let pictures = super::pictures_of(slices, 2);
        let firsts: Vec<Vec<u8>> = pictures
            .iter()
            .map(|p| p.iter().map(|s| s.0[0]).collect())
            .collect();
        assert_eq!(firsts, [[0, 1], [2, 3], [4, 5]]);
        assert_eq!(super::pictures_of(Vec::new(), 3).len(), 0);
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn a_latch_lets_waiters_go_once_opened_even_by_a_drop() {
        let latch = Latch::default();
        assert!(!latch.is_open());
        std::thread::scope(|s| {
            let waiter = s.spawn(|| latch.wait());
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(!waiter.is_finished(), "went through a closed latch");
            drop(OpenOnDrop(&latch));
            waiter.join().unwrap();
        });
        assert!(latch.is_open());
        latch.wait();
    }
}
