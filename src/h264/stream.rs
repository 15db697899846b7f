//! The streaming encoder: pictures in, Annex B bytes (and reconstructions) out; the
//! slice data's CAVLC on the engine's GPU (one of the GPU variants) or the CPU reference.

use std::sync::Arc;

use rayon::prelude::*;

use super::nal::{trailing_bits, write_nal, NAL_PPS, NAL_SLICE_IDR, NAL_SPS};
use super::slices::encode_picture_levels_with;
use super::syntax::{level_idc, pps, slice_header, sps};
use super::{Geometry, LumaModes, Picture};
use crate::bits::MsbWriter;
use crate::cavlc::frame::{encode_slice_data, total_coeffs, Frame};
use crate::cavlc::{CavlcGpu, GpuVariant};
use crate::gpu::Gpu;
use crate::{Engine, Error, Result};

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
}

impl Default for EncoderConfig {
    fn default() -> EncoderConfig {
        EncoderConfig {
            qp: 26,
            slice_rows: None,
            cavlc: GpuVariant::Cavlcu,
            luma: LumaModes::Auto,
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
}

/// One coded picture.
pub struct Encoded {
    /// Annex B bytes: SPS and PPS before the first picture, then one NAL unit per slice.
    pub bytes: Vec<u8>,
    /// What a decoder outputs for it (display size).
    pub recon: Picture,
    /// Its macroblock headers and levels, as CAVLC coded them.
    pub frame: Frame,
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
    let mut bytes = Vec::with_capacity(slices.iter().map(|s| s.0.len() + 16).sum::<usize>() + 64);
    if let Some((geometry, level_idc, qp)) = parameter_sets {
        write_nal(&mut bytes, 3, NAL_SPS, &sps(geometry, level_idc));
        write_nal(&mut bytes, 3, NAL_PPS, &pps(qp));
    }
    for (range, (data, bits)) in frame.slices().into_iter().zip(slices) {
        let mut w = slice_header(range.start as u32, idr_pic_id);
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
    pictures: u64,
}

impl Encoder {
    /// An encoder for `width` x `height` pictures at `fps` (for the level), coding CAVLC
    /// on `engine`: its GPU (the stages' pipelines are built here, once) or the CPU. There
    /// is no CUDA path: `Engine::Cuda` is an error.
    pub fn new(
        width: u32,
        height: u32,
        fps: f64,
        config: EncoderConfig,
        engine: &Engine,
    ) -> Result<Encoder> {
        config.validate()?;
        let geometry = Geometry::new(width, height)?;
        let gpu = match engine.wgpu_or_cpu("the H.264 encoder")? {
            Some(g) => Some((g.clone(), CavlcGpu::new(g)?)),
            None => None,
        };
        Ok(Encoder {
            config,
            geometry,
            level_idc: level_idc(geometry.width_mbs, geometry.height_mbs, fps),
            gpu,
            pictures: 0,
        })
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
        let coded = self.encode_with(picture, self.pictures, true).await?;
        self.pictures += 1;
        Ok(coded)
    }

    /// Code `picture` as picture `index` of the stream (the parameter sets come with
    /// picture 0; consecutive IDR pictures differ in idr_pic_id). Pictures are intra
    /// coded and independent, so several may be coded at once.
    pub async fn encode_at(&self, picture: &Picture, index: u64) -> Result<Encoded> {
        self.encode_with(picture, index, false).await
    }

    /// [`Encoder::encode_at`], each slice's macroblocks in parallel waves where
    /// `wavefront` (see [`encode_picture_levels_with`]).
    async fn encode_with(&self, picture: &Picture, index: u64, wavefront: bool) -> Result<Encoded> {
        if (picture.width, picture.height) != (self.geometry.width, self.geometry.height) {
            return Err(Error::InvalidArgument(format!(
                "picture {}x{} in a {}x{} stream",
                picture.width, picture.height, self.geometry.width, self.geometry.height
            )));
        }
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
            recon,
            frame,
        })
    }

    /// Code every picture `next` gives, `depth` at once on threads of their own, and
    /// hand each to `sink` in order; returns how many. `next` runs on a reader thread,
    /// one picture ahead of the coders, so memory holds about `2 * depth + 2` pictures.
    /// Blocks: call it from a thread of your own.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn encode_stream(
        &mut self,
        depth: usize,
        next: &mut (dyn FnMut() -> Result<Option<Picture>> + Send),
        sink: &mut dyn FnMut(Encoded) -> Result<()>,
    ) -> Result<u64> {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::mpsc::sync_channel;
        use std::sync::Mutex;
        if depth == 0 {
            return Err(Error::InvalidArgument(
                "a depth of at least one picture".into(),
            ));
        }
        let first = self.pictures;
        let this = &*self;
        // Fewer pictures at once than cores: each picture's macroblocks in parallel waves
        // too (the same output; at a depth that fills the cores, waves only cost).
        let wavefront = depth < rayon::current_num_threads();
        let stop = AtomicBool::new(false);
        let (to_coders, from_reader) = sync_channel::<Result<(u64, Picture)>>(1);
        let from_reader = Mutex::new(from_reader);
        let (to_sink, from_coders) = sync_channel::<Result<(u64, Encoded)>>(depth);
        // At most 2 * depth pictures from the oldest one not yet handed to the sink.
        let window = crate::ordered::Window::new(first, 2 * depth);
        let coded = std::thread::scope(|s| {
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
            let from_reader = &from_reader;
            for _ in 0..depth {
                let to_sink = to_sink.clone();
                s.spawn(move || loop {
                    let job = match from_reader.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok(job) = job else { return };
                    let coded = job.and_then(|(index, picture)| {
                        let coded = this.encode_with(&picture, index, wavefront);
                        pollster::block_on(coded).map(|c| (index, c))
                    });
                    let failed = coded.is_err();
                    if to_sink.send(coded).is_err() || failed {
                        return;
                    }
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
