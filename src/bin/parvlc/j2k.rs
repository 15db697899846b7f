//! `j2k`: lossless JPEG 2000 of PGM/PPM or PNG images: one, or a sequence into a folder.

use std::path::PathBuf;
use std::time::Instant;

use parvlc::j2k::jph;
use parvlc::{Error, Result};

use crate::output::OutputFile;
use crate::progress::with_stage_bar;

#[derive(clap::Args)]
pub struct J2kArgs {
    /// One image, or several (a sequence): then `--output` is a folder, and each image
    /// becomes NAME.j2k there. A folder stands for its PGM, PPM and PNG files (by name).
    /// With `--raw`, files of raw frames: frame K of NAME becomes NAME_K.j2k (six digits).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The inputs are raw frames with no header, one after another, of this size and
    /// pixel format: WIDTHxHEIGHT:FORMAT, FORMAT by FFmpeg's names (gray, gray10le,
    /// gray12le, gray16le, rgb24, rgb48le, gbrp, gbrp10le, gbrp12le, gbrp16le).
    #[arg(long, value_name = "WxH:FORMAT")]
    raw: Option<RawSpec>,
    /// The output file. Its extension picks the format: `.jph` a JPH file (the HTJ2K
    /// file format; needs `--ht`), `.jp2` a JP2 file (Part 1; not with `--ht`), anything
    /// else (`.j2k`, `.j2c`) the raw codestream.
    #[arg(short, long)]
    output: PathBuf,
    /// With several images: how many are read, coded and written at once. Default: as
    /// many as about 640 MiB holds at the first picture's size (8 up to 4K RGB, 2 at 8K).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: Option<u32>,
    /// DWT levels (reduced on images too small for them, as OpenJPEG requires).
    #[arg(long, default_value_t = 5)]
    levels: u32,
    /// Code-block width and height: 64 or 32.
    #[arg(long, default_value_t = 64)]
    cblk: u32,
    /// Bit-plane from which SPP and MRP are coded raw: 5 is JPEG 2000 Part 1's bypass
    /// style; `none` codes every pass with the MQ coder. Other values are Part 2's
    /// variable bypass point, which Part 1 decoders (OpenJPEG) do not decode correctly.
    #[arg(long, default_value = "5")]
    bypass_from: BypassFrom,
    /// Code the blocks with the HTJ2K block coder (JPEG 2000 Part 15, reversible; one
    /// cleanup pass per block). With a GPU backend it runs on the GPU like the front end
    /// (RCT, DWT); the same bytes as on the CPU. `--bypass-from` does not apply.
    #[arg(long)]
    ht: bool,
    /// With `--ht` and a GPU backend: code the blocks on the CPU (the front end stays on
    /// the GPU).
    #[arg(long, requires = "ht")]
    ht_cpu: bool,
    /// Overwrite an existing output file.
    #[arg(long)]
    force: bool,
    /// How the GPU tier-1 is organised: one kernel per code-block or, per bit-plane,
    /// three kernels over all code-blocks. `auto` (the default) takes three kernels from
    /// 2,700 code-blocks on (about 2560x1440 RGB), where they are the faster on an H200.
    #[arg(long, value_enum, default_value = "auto")]
    tier1: Tier1Arg,
    #[command(flatten)]
    backend: crate::BackendArg,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Tier1Arg {
    Auto,
    OneKernel,
    ThreeKernel,
}

/// `--raw`: the frames' size and pixel format.
#[derive(Clone, Copy, Debug)]
struct RawSpec {
    width: u32,
    height: u32,
    format: parvlc::j2k::raw::RawFormat,
}

impl std::str::FromStr for RawSpec {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let bad = || format!("`{s}`: give WIDTHxHEIGHT:FORMAT, e.g. 3840x2160:rgb24");
        let (size, format) = s.split_once(':').ok_or_else(bad)?;
        let (w, h) = size.split_once('x').ok_or_else(bad)?;
        Ok(RawSpec {
            width: w.parse().map_err(|_| bad())?,
            height: h.parse().map_err(|_| bad())?,
            format: format.parse().map_err(|e: Error| e.to_string())?,
        })
    }
}

/// Where one picture of a run comes from.
#[derive(Clone, Debug)]
enum Source {
    /// A PGM, PPM or PNG file.
    File(PathBuf),
    /// Frame `frame` of raw file `file` (an index into the run's raw files).
    Raw { file: usize, frame: u64 },
}

/// The pictures of a run, each with the stem of its output name, and the raw files their
/// frames come from.
struct Pictures {
    list: Vec<(Source, String)>,
    raws: Vec<parvlc::j2k::raw::RawFrames>,
}

impl Pictures {
    /// Picture `i` as its messages name it.
    fn describe(&self, i: usize) -> String {
        match &self.list[i].0 {
            Source::File(p) => p.display().to_string(),
            Source::Raw { file, frame } => {
                format!("{}, frame {frame}", self.raws[*file].path().display())
            }
        }
    }

    /// Picture `i`, read.
    fn read(&self, i: usize) -> Result<parvlc::j2k::Image> {
        match &self.list[i].0 {
            Source::File(p) => parvlc::j2k::Image::read(p),
            Source::Raw { file, frame } => self.raws[*file].frame(*frame),
        }
    }
}

/// The pictures `a` names: image files (a folder for its images), or with `--raw` every
/// frame of every raw file.
fn sources(a: &J2kArgs) -> Result<Pictures> {
    let stem = |p: &std::path::Path| -> Result<String> {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .ok_or_else(|| Error::InvalidArgument(format!("{}: not a file name", p.display())))
    };
    let mut out = Vec::new();
    let mut raws = Vec::new();
    for input in &a.inputs {
        if let Some(r) = a.raw {
            let frames = parvlc::j2k::raw::RawFrames::open(input, r.width, r.height, r.format)?;
            let name = stem(input)?;
            for frame in 0..frames.frames {
                out.push((
                    Source::Raw {
                        file: raws.len(),
                        frame,
                    },
                    format!("{name}_{frame:06}"),
                ));
            }
            raws.push(frames);
        } else if input.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(input)
                .map_err(|e| Error::io(input, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_file()
                        && p.extension().is_some_and(|x| {
                            ["pgm", "ppm", "png"]
                                .contains(&x.to_string_lossy().to_lowercase().as_str())
                        })
                })
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(Error::InvalidArgument(format!(
                    "{}: a folder with no PGM, PPM or PNG file",
                    input.display()
                )));
            }
            for f in files {
                let name = stem(&f)?;
                out.push((Source::File(f), name));
            }
        } else {
            out.push((Source::File(input.clone()), stem(input)?));
        }
    }
    Ok(Pictures { list: out, raws })
}

/// `--bypass-from`: a bit-plane number or `none`.
#[derive(Clone, Copy, Debug)]
struct BypassFrom(Option<u32>);

impl std::str::FromStr for BypassFrom {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        if s.eq_ignore_ascii_case("none") {
            return Ok(BypassFrom(None));
        }
        s.parse()
            .map(|k| BypassFrom(Some(k)))
            .map_err(|_| format!("`{s}`: give a bit-plane number (5 for Part 1) or none"))
    }
}

/// Images with more samples than this show progress.
const J2K_PROGRESS_SAMPLES: u64 = 4 << 20;

pub fn encode(a: J2kArgs) -> Result<()> {
    if a.cblk != 64 && a.cblk != 32 {
        return Err(Error::InvalidArgument(format!(
            "--cblk {}: use 64 or 32",
            a.cblk
        )));
    }
    if let Some(k) = a.bypass_from.0.filter(|&k| k != 5 && !a.ht) {
        log::warn!(
            "--bypass-from {k}: a Part 2 bypass point; Part 1 decoders (OpenJPEG) will not decode this stream correctly"
        );
    }
    match a.inputs.as_slice() {
        [input] if !a.output.is_dir() && a.raw.is_none() && !input.is_dir() => {
            let brand = file_brand(&a.output, a.ht)?;
            encode_one(&a, input, brand)
        }
        _ => encode_sequence(&a),
    }
}

/// The file format `output`'s extension asks for (None: the raw codestream), refused
/// before any work where it cannot hold what `--ht` codes.
fn file_brand(output: &std::path::Path, ht: bool) -> Result<Option<jph::Brand>> {
    let brand = jph::Brand::for_path(output);
    match (brand, ht) {
        (Some(jph::Brand::Jph), false) => Err(Error::InvalidArgument(format!(
            "{}: a .jph file holds an HTJ2K codestream: add --ht, or write .jp2 or .j2k",
            output.display()
        ))),
        (Some(jph::Brand::Jp2), true) => Err(Error::InvalidArgument(format!(
            "{}: a .jp2 file holds a Part 1 codestream, which JP2 readers expect: with --ht write .jph (or .j2k, .j2c)",
            output.display()
        ))),
        _ => Ok(brand),
    }
}

/// The encoder's configuration: front end and tier-1 both where the engine runs (unless
/// --ht-cpu).
fn encoder_config(a: &J2kArgs, engine: &parvlc::Engine) -> parvlc::j2k::EncoderConfig {
    use parvlc::j2k;
    let stages = engine.gpu().map(|_| {
        let tier1 = if a.ht_cpu {
            j2k::Placement::Cpu
        } else {
            j2k::Placement::Gpu
        };
        let mut s = j2k::Stages::new(j2k::Placement::Gpu, tier1);
        s.tier1_gpu.strategy = match a.tier1 {
            Tier1Arg::OneKernel => j2k::tier1::gpu::Tier1Strategy::OneKernel,
            Tier1Arg::ThreeKernel => j2k::tier1::gpu::Tier1Strategy::ThreeKernel,
            Tier1Arg::Auto => j2k::tier1::gpu::Tier1Strategy::Auto,
        };
        s
    });
    j2k::EncoderConfig {
        levels: a.levels,
        cblk: a.cblk,
        bypass_from: a.bypass_from.0,
        stages,
        ht: a.ht,
    }
}

/// Several images (or raw frames) into the folder `--output`, `--depth` of them in flight
/// (each read, coded and written by one worker; the GPU is shared). Every output is
/// checked for clobbering before any work starts; the first failure stops the rest and
/// names its picture, and the outputs written before it stay (each is whole: written
/// atomically).
fn encode_sequence(a: &J2kArgs) -> Result<()> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Mutex, OnceLock};
    if !a.output.is_dir() {
        return Err(Error::InvalidArgument(format!(
            "{}: with several images, a folder or raw frames, --output is a folder that exists",
            a.output.display()
        )));
    }
    let run = sources(a)?;
    let pictures = &run.list;
    let mut outputs = Vec::with_capacity(pictures.len());
    let mut names = std::collections::HashSet::new();
    for (i, (_, stem)) in pictures.iter().enumerate() {
        if !names.insert(stem.clone()) {
            return Err(Error::InvalidArgument(format!(
                "{}: another input has the same name, and both would write {stem}.j2k",
                run.describe(i)
            )));
        }
        let output = a.output.join(stem).with_extension("j2k");
        if !a.force && std::fs::symlink_metadata(&output).is_ok() {
            return Err(Error::OutputExists(output));
        }
        outputs.push(output);
    }
    let t = Instant::now();
    // The GPU opens on a thread of its own while the workers read their first pictures
    // (opening takes up to 0.2 s, a 4K picture's file tens of milliseconds); a worker
    // codes once both are done. None: the opening failed (its error is kept there).
    let opened: OnceLock<Result<(parvlc::Engine, parvlc::j2k::EncoderConfig)>> = OnceLock::new();
    let open = || {
        opened
            .get_or_init(|| {
                crate::open_engine(a.backend.backend).map(|engine| {
                    let config = encoder_config(a, &engine);
                    (engine, config)
                })
            })
            .as_ref()
            .ok()
    };
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let bytes = std::sync::atomic::AtomicU64::new(0);
    // Picture 0, read while the GPU opens: its size sets the default depth.
    let first = Mutex::new(None);
    let code = |i: usize| -> Result<Option<u64>> {
        let pre_read = match i {
            0 => first.lock().ok().and_then(|mut f| f.take()),
            _ => None,
        };
        let image = match pre_read {
            Some(image) => image,
            None => run.read(i)?,
        };
        let Some((engine, config)) = open() else {
            return Ok(None);
        };
        let cs = pollster::block_on(parvlc::j2k::encode(&image, config, engine))?;
        let mut out = OutputFile::create(&outputs[i], a.force)?;
        out.write_all(&cs)?;
        out.commit()?;
        Ok(Some(cs.len() as u64))
    };
    // The first failure stops the rest and is kept, naming its picture unless the error
    // already does.
    let fail = |i: usize, e: Error| {
        stop.store(true, Ordering::Relaxed);
        let input = run.describe(i);
        let named = if e.to_string().contains(&input) {
            e
        } else {
            Error::InvalidArgument(format!("{input}: {e}"))
        };
        if let Ok(mut f) = failure.lock() {
            f.get_or_insert(named);
        }
    };
    std::thread::scope(|s| {
        s.spawn(|| {
            if open().is_none() {
                stop.store(true, Ordering::Relaxed);
            }
        });
        let depth = match run.read(0) {
            Ok(image) => {
                let depth = a
                    .depth
                    .map_or_else(|| default_depth(&image), |d| d as usize);
                if let Ok(mut f) = first.lock() {
                    *f = Some(image);
                }
                depth
            }
            Err(e) => {
                fail(0, e);
                return;
            }
        };
        log::debug!("{depth} pictures in flight");
        for _ in 0..depth.min(pictures.len()) {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= pictures.len() {
                        return;
                    }
                    match code(i) {
                        Ok(Some(n)) => {
                            bytes.fetch_add(n, Ordering::Relaxed);
                        }
                        Ok(None) => {
                            stop.store(true, Ordering::Relaxed);
                            return;
                        }
                        Err(e) => {
                            fail(i, e);
                            return;
                        }
                    }
                }
            });
        }
    });
    let engine = match opened.into_inner() {
        Some(Ok((engine, _))) => engine,
        Some(Err(e)) => return Err(e),
        // Not reached: the opener thread always runs `open`.
        None => {
            return Err(failure
                .into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Error::InvalidArgument("the GPU was never opened".into())))
        }
    };
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "{} images -> {}: {} bytes in {:.3} s ({:.1} images/s) on {}",
        pictures.len(),
        a.output.display(),
        bytes.load(Ordering::Relaxed),
        secs,
        pictures.len() as f64 / secs.max(1e-9),
        engine.name()
    );
    Ok(())
}

/// Pictures in flight by default: as many as about 640 MiB holds at `first`'s size, at
/// most 8. On the H200 a 4K RGB sequence's peak grew about 80 MiB a picture in flight
/// (3.2 bytes a sample: the samples, the file's bytes, the coded bytes), and 60 frames
/// took 2.74-2.85 s at depth 4 and 1.76-1.80 s at 8, where the GPU bounds it
/// (docs/results.md, "Twenty-fourth pass").
fn default_depth(first: &parvlc::j2k::Image) -> usize {
    depth_for_samples(first.width as u64 * first.height as u64 * first.components as u64)
}

fn depth_for_samples(samples: u64) -> usize {
    const BUDGET: f64 = 640.0 * 1024.0 * 1024.0;
    ((BUDGET / (3.2 * samples.max(1) as f64)) as usize).clamp(1, 8)
}

fn encode_one(a: &J2kArgs, input: &std::path::Path, brand: Option<jph::Brand>) -> Result<()> {
    use parvlc::j2k::{self, Image};
    let output = &a.output;
    let mut out = OutputFile::create(output, a.force)?;
    // The picture's samples are read while the GPU opens (both take tens of
    // milliseconds); a file whose header is refused never opens it.
    let backend = a.backend.backend;
    let (image, engine) = std::thread::scope(|s| {
        let mut opening = None;
        let t_read = Instant::now();
        let image = Image::read_then(input, &mut || {
            opening = Some(s.spawn(move || crate::open_engine(backend)));
        });
        log::debug!(
            "{} read in {:.1} ms",
            input.display(),
            t_read.elapsed().as_secs_f64() * 1e3
        );
        let image = image?;
        let engine = match opening {
            Some(h) => h
                .join()
                .unwrap_or_else(|_| Err(Error::InvalidArgument("opening the GPU panicked".into()))),
            None => crate::open_engine(backend),
        };
        Ok::<_, Error>((image, engine?))
    })?;
    let config = encoder_config(a, &engine);
    let samples = image.samples.len() as u64;
    let t = Instant::now();
    let cs = with_stage_bar(samples > J2K_PROGRESS_SAMPLES, 3, |progress| {
        pollster::block_on(j2k::encode_with_progress(
            &image, &config, &engine, progress,
        ))
    })?;
    let t_write = Instant::now();
    // The file boxes, if the extension asks for them, then the codestream unchanged.
    let boxes = match brand {
        Some(b) => jph::file_header(&cs, b)?,
        None => Vec::new(),
    };
    out.write_all(&boxes)?;
    out.write_all(&cs)?;
    out.commit()?;
    log::debug!(
        "codestream encoded in {:.1} ms, written in {:.1} ms",
        (t_write - t).as_secs_f64() * 1e3,
        t_write.elapsed().as_secs_f64() * 1e3
    );
    let raw = samples * image.bit_depth.div_ceil(8) as u64;
    eprintln!(
        "{} -> {}: {}x{}, {} component(s), {} bits, {} -> {} bytes (ratio {:.3}) in {:.3} s on {}",
        input.display(),
        output.display(),
        image.width,
        image.height,
        image.components,
        image.bit_depth,
        raw,
        boxes.len() + cs.len(),
        raw as f64 / (boxes.len() + cs.len()).max(1) as f64,
        t.elapsed().as_secs_f64(),
        engine.name()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::depth_for_samples;

    #[test]
    fn the_default_depth_follows_the_picture_size() {
        assert_eq!(depth_for_samples(1920 * 1080 * 3), 8);
        assert_eq!(depth_for_samples(3840 * 2160 * 3), 8);
        assert_eq!(depth_for_samples(5120 * 2880 * 3), 4);
        assert_eq!(depth_for_samples(7680 * 4320 * 3), 2);
        assert_eq!(depth_for_samples(16384 * 16384 * 3), 1);
        assert_eq!(depth_for_samples(0), 8);
    }
}
