//! `h264`: intra-only H.264 Baseline from a Y4M file.

use std::path::PathBuf;
use std::time::Instant;

use parvlc::cavlc::GpuVariant;
use parvlc::h264;
use parvlc::{Error, Result};

use crate::output::OutputFile;
use crate::progress::{progress_bar, PROGRESS_THRESHOLD};

#[derive(clap::Args)]
pub struct H264Args {
    input: PathBuf,
    #[arg(short, long)]
    output: PathBuf,
    /// Quantization parameter, 0 (finest) ..= 51.
    #[arg(long, default_value_t = 26, value_parser = clap::value_parser!(u8).range(0..=51))]
    qp: u8,
    /// The GPU stage that codes CAVLC: cavlcu, recompute or su (the same bits; with
    /// `--backend cpu` the CPU reference codes it).
    #[arg(long, default_value = "cavlcu")]
    cavlc: GpuVariant,
    /// Luma prediction: auto (I_16x16 or I_4x4 per macroblock, whichever costs less),
    /// 16x16, 4x4, or 4x4:MODE (every 4x4 block in Intra4x4PredMode MODE where its
    /// neighbours allow it; for testing).
    #[arg(long, default_value = "auto")]
    luma: h264::LumaModes,
    /// Where prediction, transform, quantization and reconstruction run: gpu (on a wgpu
    /// GPU, pictures in batches of `--depth`; the CPU where there is none) or cpu. The
    /// same bytes either way.
    #[arg(long, default_value = "gpu")]
    front_end: h264::FrontEnd,
    /// Macroblock rows per slice (default: one slice per picture).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    slice_rows: Option<u32>,
    /// Also write the reconstruction (what decoders output) as raw yuv420p frames.
    #[arg(long)]
    recon: Option<PathBuf>,
    /// Overwrite existing output files.
    #[arg(long)]
    force: bool,
    /// Pictures coded at once (intra pictures are independent): with the GPU front end a
    /// batch of this many, two or more batches in flight, the Y4M file read as far ahead
    /// (default: 48 of 1080p, as many macroblocks of larger pictures, at most 64; 1080p
    /// at 48: peak 750-970 MiB); with the CPU's, one per coder.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: Option<u32>,
    #[command(flatten)]
    backend: crate::BackendArg,
}

/// Threads reading a Y4M file's frames, a batch ahead of the encoder (16 frames ahead, a
/// coder at depth 48 waited 9 ms a batch for its pictures on the H200).
const Y4M_READERS: usize = 4;

pub fn encode(a: H264Args) -> Result<()> {
    let (input, output) = (&a.input, &a.output);
    let config = h264::EncoderConfig {
        qp: a.qp,
        slice_rows: a.slice_rows,
        cavlc: a.cavlc,
        luma: a.luma,
        front_end: a.front_end,
    };
    if a.recon.as_deref() == Some(output.as_path()) {
        return Err(Error::InvalidArgument(
            "--recon and -o name the same file".into(),
        ));
    }
    let mut out = OutputFile::create(output, a.force)?;
    let mut recon_out = a
        .recon
        .as_deref()
        .map(|p| OutputFile::create(p, a.force))
        .transpose()?;
    // A regular file's frames are read ahead at their offsets on threads of their own.
    let depth = |h: &h264::y4m::Y4mHeader| {
        a.depth
            .map_or_else(|| h264::default_depth(h.width, h.height), |d| d as usize)
    };
    let mut reader = h264::y4m_file::Y4mInput::open_sized(input, Y4M_READERS, depth)?;
    let header = reader.header().clone();
    let depth = depth(&header);
    // The first frame before the GPU: a cut-off pipe fails before the driver starts.
    let first = reader.read_frame()?;
    let engine = crate::open_engine(a.backend.backend)?;
    let mut encoder = h264::Encoder::new(
        header.width,
        header.height,
        header.fps_f64(),
        config,
        &engine,
    )?;
    encoder.keep(a.recon.is_some(), false);

    let total = std::fs::metadata(input).map(|m| m.len()).unwrap_or(0);
    let frames_estimate = total / (header.frame_bytes() as u64 + 6).max(1);
    let bar = progress_bar(
        total > PROGRESS_THRESHOLD,
        frames_estimate,
        "{spinner} [{bar:20}] {pos}/{len} frames ({elapsed})",
    );
    let t = Instant::now();
    let mut bytes = 0u64;
    let mut first = first;
    let mut next = || match first.take() {
        Some(p) => Ok(Some(p)),
        None => reader.read_frame(),
    };
    let coded = encoder.encode_stream(depth, &mut next, &mut |coded| {
        out.write_all(&coded.bytes)?;
        bytes += coded.bytes.len() as u64;
        if let (Some(r), Some(recon)) = (recon_out.as_mut(), &coded.recon) {
            r.write_all(&recon.to_yuv420p())?;
        }
        if let Some(b) = &bar {
            b.inc(1);
        }
        Ok(())
    });
    let frames = coded?;
    log::debug!(
        "h264: the stream coded after {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let (front_end, cavlc) = (encoder.front_end_name(), encoder.cavlc_name());
    // Releasing the GPU (its buffers and device: about 0.12 s at 1080p on an H200) runs
    // beside the outputs' sync to disk rather than after it.
    let release = std::thread::spawn(move || {
        let t = Instant::now();
        drop(encoder);
        let encoder_ms = t.elapsed().as_secs_f64() * 1e3;
        drop(engine);
        log::debug!(
            "h264: the encoder released in {encoder_ms:.1} ms, the engine in {:.1} ms",
            t.elapsed().as_secs_f64() * 1e3 - encoder_ms
        );
    });
    if frames == 0 {
        let _ = release.join();
        return Err(Error::InvalidArgument(format!(
            "{}: the Y4M file holds no frames",
            input.display()
        )));
    }
    let committed = out
        .commit()
        .and_then(|()| recon_out.map_or(Ok(()), |r| r.commit()));
    log::debug!(
        "h264: output committed after {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let _ = release.join();
    log::debug!(
        "h264: GPU released after {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    committed?;
    eprintln!(
        "{} -> {}: {frames} frames {}x{}, QP {}, front end {front_end}, CAVLC {cavlc}: {bytes} bytes in {:.3} s",
        input.display(),
        output.display(),
        header.width,
        header.height,
        config.qp,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
