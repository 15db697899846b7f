//! The streaming encoder: pictures in, Annex B bytes (and reconstructions) out, with a
//! pluggable CAVLC engine for the slice data.

use rayon::prelude::*;

use super::nal::{trailing_bits, write_nal, NAL_PPS, NAL_SLICE_IDR, NAL_SPS};
use super::syntax::{level_idc, pps, slice_header, sps};
use super::{encode_picture_levels, Geometry, Picture};
use crate::bits::MsbWriter;
use crate::cavlc::frame::{encode_slice_data, total_coeffs, Frame};
use crate::cavlc::{CavlcGpu, GpuVariant};
use crate::gpu::Gpu;
use crate::{Error, Result};

/// Who writes slice_data(): the GPU stages (CAVLCU's one kernel, its recompute variant,
/// Su et al.'s multi-kernel baseline) or the CPU reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CavlcEngine {
    Cavlcu,
    Recompute,
    Su,
    Cpu,
}

impl CavlcEngine {
    pub const ALL: [CavlcEngine; 4] = [
        CavlcEngine::Cavlcu,
        CavlcEngine::Recompute,
        CavlcEngine::Su,
        CavlcEngine::Cpu,
    ];
    pub fn name(self) -> &'static str {
        match self {
            CavlcEngine::Cavlcu => "cavlcu",
            CavlcEngine::Recompute => "recompute",
            CavlcEngine::Su => "su",
            CavlcEngine::Cpu => "cpu",
        }
    }
    pub fn is_gpu(self) -> bool {
        self.gpu_variant().is_some()
    }
    /// The GPU stage behind this engine (`None` for the CPU reference).
    pub fn gpu_variant(self) -> Option<GpuVariant> {
        match self {
            CavlcEngine::Cavlcu => Some(GpuVariant::Cavlcu),
            CavlcEngine::Recompute => Some(GpuVariant::Recompute),
            CavlcEngine::Su => Some(GpuVariant::Su),
            CavlcEngine::Cpu => None,
        }
    }
}

impl std::fmt::Display for CavlcEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for CavlcEngine {
    type Err = Error;
    fn from_str(s: &str) -> Result<CavlcEngine> {
        CavlcEngine::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown CAVLC engine {s:?} (cavlcu, recompute, su or cpu)"
                ))
            })
    }
}

/// What the encoder is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncoderConfig {
    /// QP of every macroblock (0..=51), except where Baseline CAVLC cannot code a
    /// macroblock's levels: that one gets the lowest coarser QP that it can.
    pub qp: u8,
    /// Macroblock rows per slice; `None`: one slice per picture.
    pub slice_rows: Option<u32>,
    pub cavlc: CavlcEngine,
}

impl Default for EncoderConfig {
    fn default() -> EncoderConfig {
        EncoderConfig {
            qp: 26,
            slice_rows: None,
            cavlc: CavlcEngine::Cavlcu,
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
pub struct Encoder<'g> {
    config: EncoderConfig,
    geometry: Geometry,
    level_idc: u8,
    /// The GPU and its CAVLC stages, for the GPU engines.
    gpu: Option<(&'g Gpu, CavlcGpu)>,
    pictures: u64,
}

impl<'g> Encoder<'g> {
    /// An encoder for `width` x `height` pictures at `fps` (for the level). The GPU CAVLC
    /// engines need `gpu` (their pipelines are built here, once).
    pub fn new(
        width: u32,
        height: u32,
        fps: f64,
        config: EncoderConfig,
        gpu: Option<&'g Gpu>,
    ) -> Result<Encoder<'g>> {
        config.validate()?;
        let geometry = Geometry::new(width, height)?;
        let gpu = match (config.cavlc.is_gpu(), gpu) {
            (true, Some(g)) => Some((g, CavlcGpu::new(g)?)),
            (true, None) => {
                return Err(Error::InvalidArgument(format!(
                    "the {} CAVLC engine needs a GPU",
                    config.cavlc
                )))
            }
            (false, _) => None,
        };
        Ok(Encoder {
            config,
            geometry,
            level_idc: level_idc(geometry.width_mbs, geometry.height_mbs, fps),
            gpu,
            pictures: 0,
        })
    }

    pub fn config(&self) -> &EncoderConfig {
        &self.config
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Code one picture (the size given to [`Encoder::new`]).
    pub async fn encode(&mut self, picture: &Picture) -> Result<Encoded> {
        if (picture.width, picture.height) != (self.geometry.width, self.geometry.height) {
            return Err(Error::InvalidArgument(format!(
                "picture {}x{} in a {}x{} stream",
                picture.width, picture.height, self.geometry.width, self.geometry.height
            )));
        }
        let (frame, recon) = encode_picture_levels(picture, &self.config)?;
        let slices = self.slice_data(&frame).await?;
        // Consecutive IDR pictures must differ in idr_pic_id.
        let bytes = write_picture(
            &frame,
            &slices,
            (self.pictures == 0).then_some((&self.geometry, self.level_idc, self.config.qp)),
            (self.pictures % 2) as u32,
        );
        self.pictures += 1;
        Ok(Encoded {
            bytes,
            recon,
            frame,
        })
    }

    /// slice_data() of every slice: MSB-first bytes and bit count.
    async fn slice_data(&self, frame: &Frame) -> Result<Vec<(Vec<u8>, u64)>> {
        match (self.config.cavlc.gpu_variant(), &self.gpu) {
            (Some(variant), Some((gpu, stages))) => stages.encode_frame(gpu, frame, variant).await,
            _ => cpu_slice_data(frame),
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
