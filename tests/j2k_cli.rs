//! `parvlc j2k` as a user meets it: a PGM, a PPM and a PNG encoded and decoded by
//! OpenJPEG to the source; unsupported kinds, zero-sized and truncated images each a clear
//! error with no output file (and no temporary file) left behind; refusal to overwrite;
//! hostile headers (a PNG or PNM promising gigabytes) refused in small memory; `--ht`
//! judged by OpenJPEG, OpenJPH and Grok; `.jph` and `.jp2` outputs.

mod common;

use std::path::{Path, PathBuf};

use common::cli::{files, opj_decompress, parvlc, parvlc_measured, stderr};
use common::j2k_judges::{decode, decode_file, Judge};

use parvlc::j2k::{jph, Image};

#[test]
fn ht_on_the_cpu_the_gpu_and_beside_the_gpu_front_end() {
    // `--ht` on the CPU, with the wgpu backend (front end and HT block coder on the GPU),
    // and with `--ht-cpu` (the HT block coder on the CPU beside the GPU front end): the
    // same codestream, which all three decoders give back exactly.
    let dir = scratch("ht");
    let rgb = gradient(37, 23, 3, 12);
    std::fs::write(dir.join("c.ppm"), rgb.to_pnm()).unwrap();
    let mut outputs = Vec::new();
    // The CPU, the GPU (both stages), and the GPU front end with the CPU's HT coder.
    for (backend, extra) in [("cpu", None), ("wgpu", None), ("wgpu", Some("--ht-cpu"))] {
        let tag = format!("{backend}{}", extra.unwrap_or(""));
        let out = format!("c-{tag}.j2k");
        let mut args = vec![
            "j2k",
            "c.ppm",
            "-o",
            &out,
            "--ht",
            "--cblk",
            "32",
            "--backend",
            backend,
        ];
        args.extend(extra);
        let o = parvlc(&args, &dir);
        assert!(o.status.success(), "{tag}: {}", stderr(&o));
        let cs = std::fs::read(dir.join(&out)).unwrap();
        for judge in Judge::ALL {
            let back = decode(judge, &dir, &format!("c-{tag}"), &cs, 3);
            assert!(back == rgb, "{tag}: {} differs", judge.tool());
        }
        outputs.push(cs);
    }
    assert!(
        outputs[0] == outputs[1] && outputs[0] == outputs[2],
        "the GPU path changed the codestream"
    );
    // --ht-cpu alone is refused: it places the HT coder.
    let o = parvlc(&["j2k", "c.ppm", "-o", "x.j2k", "--ht-cpu"], &dir);
    assert!(!o.status.success());
}

#[test]
fn jph_and_jp2_outputs_by_extension() {
    // `.jph` with --ht: the boxes of j2k::jph around the very codestream `.j2k` gets,
    // decoded exactly by all three decoders. `.jp2` without --ht: the JP2 boxes around
    // the Part 1 codestream, which OpenJPEG reads. The two mismatches are refused before
    // any work, naming the fix, and write nothing.
    let dir = scratch("jph");
    for (comps, depth) in [(1, 8), (3, 16)] {
        let img = gradient(29, 19, comps, depth);
        let input = format!("in{comps}.{}", if comps == 1 { "pgm" } else { "ppm" });
        std::fs::write(dir.join(&input), img.to_pnm()).unwrap();
        let run = |out: &str, ht: bool| {
            let mut args = vec!["j2k", &input, "-o", out, "--backend", "cpu"];
            if ht {
                args.push("--ht");
            }
            let o = parvlc(&args, &dir);
            assert!(o.status.success(), "{out}: {}", stderr(&o));
            std::fs::read(dir.join(out)).unwrap()
        };
        let cs = run(&format!("c{comps}.j2k"), true);
        let file = run(&format!("c{comps}.jph"), true);
        assert_eq!(file, jph::wrap(&cs, jph::Brand::Jph).unwrap());
        for judge in Judge::ALL {
            let back = decode_file(judge, &dir, &format!("c{comps}.jph"), &file, comps);
            assert!(back == img, "c{comps}.jph: {} differs", judge.tool());
        }
        let part1 = run(&format!("p{comps}.j2k"), false);
        let jp2 = run(&format!("p{comps}.jp2"), false);
        assert_eq!(jp2, jph::wrap(&part1, jph::Brand::Jp2).unwrap());
        let back = decode_file(Judge::OpenJpeg, &dir, &format!("p{comps}.jp2"), &jp2, comps);
        assert!(back == img, "p{comps}.jp2: opj_decompress differs");
    }
    for (out, ht, want) in [("x.jph", false, "add --ht"), ("x.JP2", true, "write .jph")] {
        let mut args = vec!["j2k", "in1.pgm", "-o", out];
        if ht {
            args.push("--ht");
        }
        let o = parvlc(&args, &dir);
        assert!(
            !o.status.success() && stderr(&o).contains(want),
            "{out}: {}",
            stderr(&o)
        );
        assert!(!dir.join(out).exists());
    }
}

fn scratch(name: &str) -> PathBuf {
    common::cli::scratch("j2k-cli", name)
}

fn gradient(w: u32, h: u32, comps: u32, depth: u32) -> Image {
    let max = (1u32 << depth) - 1;
    let samples = (0..w * h * comps)
        .map(|i| {
            let (p, c) = (i / comps, i % comps);
            let (x, y) = (p % w, p / w);
            ((x * 37 + y * 11 + c * 5 + (x * y) % 7) * max / (w * 37 + h * 11 + 20)) as u16
        })
        .collect();
    Image::new(w, h, comps, depth, samples).unwrap()
}

/// opj_decompress's samples of `j2k` in `dir`.
fn opj(dir: &Path, j2k: &str, out: &str) -> Image {
    let (o, log) = opj_decompress(dir, j2k, out);
    assert!(o.status.success(), "{log}");
    Image::from_bytes(&std::fs::read(dir.join(out)).unwrap()).unwrap()
}

#[test]
fn pgm_ppm_and_png_round_trip_through_openjpeg() {
    let dir = scratch("ok");
    let grey = gradient(45, 27, 1, 8);
    std::fs::write(dir.join("g.pgm"), grey.to_pnm()).unwrap();
    let o = parvlc(&["j2k", "g.pgm", "-o", "g.j2k", "--backend", "cpu"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("g.pgm -> g.j2k"), "{}", stderr(&o));
    assert_eq!(opj(&dir, "g.j2k", "g-out.pgm"), grey);

    let rgb = gradient(33, 20, 3, 16);
    std::fs::write(dir.join("c.ppm"), rgb.to_pnm()).unwrap();
    let o = parvlc(
        &[
            "j2k",
            "c.ppm",
            "-o",
            "c.j2k",
            "--levels",
            "1",
            "--cblk",
            "32",
            "--bypass-from",
            "none",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(opj(&dir, "c.j2k", "c-out.ppm"), rgb);

    let mut png_bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut png_bytes, 30, 10);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap();
        let rgb8 = gradient(30, 10, 3, 8);
        let raw: Vec<u8> = rgb8.samples.iter().map(|&s| s as u8).collect();
        w.write_image_data(&raw).unwrap();
    }
    std::fs::write(dir.join("p.png"), &png_bytes).unwrap();
    let o = parvlc(&["j2k", "p.png", "-o", "p.j2k", "--backend", "cpu"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(opj(&dir, "p.j2k", "p-out.ppm"), gradient(30, 10, 3, 8));

    // An existing output is refused and left alone; --force overwrites.
    std::fs::write(dir.join("keep.j2k"), b"keep me").unwrap();
    let o = parvlc(&["j2k", "g.pgm", "-o", "keep.j2k"], &dir);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("refusing to overwrite"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(dir.join("keep.j2k")).unwrap(), b"keep me");
    let o = parvlc(&["j2k", "g.pgm", "-o", "keep.j2k", "--force"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(opj(&dir, "keep.j2k", "keep.pgm"), grey);
}

#[test]
fn bad_inputs_are_clear_errors_and_leave_nothing_behind() {
    let dir = scratch("bad");
    let mut rgba = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut rgba, 2, 2);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.write_header()
            .unwrap()
            .write_image_data(&[9; 16])
            .unwrap();
    }
    let full_png = {
        let mut v = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut v, 16, 16);
            enc.set_color(png::ColorType::Grayscale);
            enc.write_header()
                .unwrap()
                .write_image_data(&[3; 256])
                .unwrap();
        }
        v
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "ascii.pgm",
            b"P2\n2 2\n255\n1 2 3 4\n".to_vec(),
            "only binary P5 and P6",
        ),
        (
            "pam.pgm",
            b"P7\nWIDTH 1\n".to_vec(),
            "only binary P5 and P6",
        ),
        (
            "gif.png",
            b"GIF89a....".to_vec(),
            "neither P5, P6 nor the PNG signature",
        ),
        (
            "empty.pgm",
            Vec::new(),
            "neither P5, P6 nor the PNG signature",
        ),
        ("alpha.png", rgba, "alpha"),
        ("zero.pgm", b"P5\n0 10\n255\n".to_vec(), "zero-sized"),
        ("zero.ppm", b"P6\n10 0\n255\n".to_vec(), "zero-sized"),
        (
            "cut.ppm",
            b"P6\n4 4\n255\n\x01\x02\x03".to_vec(),
            "truncated",
        ),
        ("cut-header.pgm", b"P5\n4".to_vec(), "truncated"),
        ("cut.png", full_png[..full_png.len() - 30].to_vec(), "PNG"),
    ];
    for (name, bytes, want) in &cases {
        std::fs::write(dir.join(name), bytes).unwrap();
        let before = files(&dir);
        let o = parvlc(&["j2k", name, "-o", "out.j2k", "--backend", "cpu"], &dir);
        assert!(!o.status.success(), "{name} was accepted");
        let e = stderr(&o);
        assert!(e.contains(want), "{name}: {e:?} should say {want:?}");
        assert!(e.contains(name), "{name}: {e:?} should name the file");
        assert_eq!(files(&dir), before, "{name} left files behind");
    }
    // Missing input, bad flags: errors, no output.
    for (args, want) in [
        (vec!["j2k", "nope.pgm", "-o", "out.j2k"], "nope.pgm"),
        (
            vec!["j2k", "ascii.pgm", "-o", "out.j2k", "--cblk", "48"],
            "use 64 or 32",
        ),
        (
            vec!["j2k", "ascii.pgm", "-o", "out.j2k", "--bypass-from", "x"],
            "none",
        ),
    ] {
        let o = parvlc(&args, &dir);
        assert!(!o.status.success());
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
        assert!(!dir.join("out.j2k").exists());
    }
}

/// Peak memory allowed to a run refused from its header. A tiny `--backend cpu` encode peaks near
/// 6 MB here and opening lavapipe alone takes about 250 MB, so this bound also shows that
/// the refusal comes before the GPU is opened.
const SMALL_RSS: u64 = 32 << 20;

/// A PNG assembled chunk by chunk (IHDR: width, height, bit depth, colour type), so
/// that its header can say anything.
fn forged_png(w: u32, h: u32, depth: u8, color: u8, idat: &[u8]) -> Vec<u8> {
    let mut ihdr = w.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[depth, color, 0, 0, 0]);
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [(b"IHDR", &ihdr[..]), (b"IDAT", idat), (b"IEND", &[])] {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let crc = crc32fast::hash(&out[start..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }
    out
}

fn zlib_zeros(n: usize) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&vec![0; n]).unwrap();
    z.finish().unwrap()
}

/// `header` at the start of a sparse file of `len` bytes (zeros after it, no disk used).
fn sparse(path: &Path, header: &[u8], len: u64) {
    std::fs::write(path, header).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

#[test]
fn hostile_headers_are_refused_in_small_memory() {
    let dir = scratch("hostile");
    // The 68-byte bomb: 100000x100000 16-bit RGB, 60 GB of samples.
    let bomb = forged_png(100_000, 100_000, 16, 2, &zlib_zeros(10));
    assert!(bomb.len() < 80);
    std::fs::write(dir.join("bomb.png"), &bomb).unwrap();
    // Inside the sample limit, but 1 kB of compressed data cannot inflate to 256 MB.
    std::fs::write(
        dir.join("forged.png"),
        forged_png(16_000, 16_000, 8, 0, &zlib_zeros(1000)),
    )
    .unwrap();
    // A PGM header promising 10 GB, and the 10 GB there (sparse).
    sparse(
        &dir.join("huge.pgm"),
        b"P5\n100000 100000\n255\n",
        10_000_000_100,
    );
    // A PGM header promising 256 MB, 1 kB of it present.
    let mut cut = b"P5\n16000 16000\n255\n".to_vec();
    cut.resize(cut.len() + 1000, 7);
    std::fs::write(dir.join("cut.pgm"), &cut).unwrap();
    let cases: [(&str, &[&str]); 5] = [
        (
            "bomb.png",
            &["too large", "100000x100000", "268435456 samples"],
        ),
        (
            "forged.png",
            &["16000x16000", "IDAT", "truncated file or forged header"],
        ),
        (
            "huge.pgm",
            &["too large", "100000x100000", "268435456 samples"],
        ),
        ("cut.pgm", &["needs 256000000 bytes", "truncated"]),
        // A device that never ends: refused from its first bytes.
        ("/dev/zero", &["neither P5, P6 nor the PNG signature"]),
    ];
    for (name, words) in cases {
        let before = files(&dir);
        // The default engine (the GPU): the header is refused before it is opened.
        let m = parvlc_measured(&["j2k", name, "-o", "out.j2k"], &dir, None);
        let e = stderr(&m.output);
        assert_eq!(m.output.status.code(), Some(1), "{name}: {e}");
        for w in words.iter().chain([&name]) {
            assert!(e.contains(w), "{name}: {e:?} should say {w:?}");
        }
        assert_eq!(files(&dir), before, "{name} left files behind");
        assert!(
            m.peak_rss < SMALL_RSS,
            "{name}: peak RSS {} bytes",
            m.peak_rss
        );
    }

    // A real 16x16 image at the start of a 64 GiB sparse file: only what the header
    // needs is read.
    let img = gradient(16, 16, 1, 8);
    sparse(&dir.join("padded.pgm"), &img.to_pnm(), 64 << 30);
    let m = parvlc_measured(
        &["j2k", "padded.pgm", "-o", "p.j2k", "--backend", "cpu"],
        &dir,
        None,
    );
    assert!(m.output.status.success(), "{}", stderr(&m.output));
    assert!(m.peak_rss < SMALL_RSS, "peak RSS {} bytes", m.peak_rss);
    assert_eq!(opj(&dir, "p.j2k", "p-out.pgm"), img);
    for f in ["huge.pgm", "padded.pgm"] {
        std::fs::remove_file(dir.join(f)).unwrap();
    }
}

/// Several images into a folder, several in flight: each output equals the one-image
/// run's bytes and decodes to its source; existing outputs, clashing names and a missing
/// folder are refused before any work; a bad image in the middle is an error naming it,
/// and every output written is whole.
#[test]
fn a_sequence_into_a_folder_equals_one_image_at_a_time() {
    let dir = scratch("sequence");
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let images: Vec<(String, Image)> = (0..7u32)
        .map(|i| {
            let (comps, depth) = if i % 3 == 0 {
                (1, 8)
            } else {
                (3, 8 + 4 * (i % 2))
            };
            (
                format!("f{i}.{}", if comps == 1 { "pgm" } else { "ppm" }),
                gradient(20 + 7 * i, 9 + 5 * i, comps, depth),
            )
        })
        .collect();
    for (name, img) in &images {
        std::fs::write(dir.join(name), img.to_pnm()).unwrap();
    }
    let mut args: Vec<&str> = vec!["j2k", "-o", "out", "--depth", "3"];
    args.extend(images.iter().map(|(n, _)| n.as_str()));
    let o = parvlc(&args, &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("7 images -> out"), "{}", stderr(&o));
    for (i, (name, img)) in images.iter().enumerate() {
        let single = format!("single{i}.j2k");
        let o = parvlc(&["j2k", name, "-o", &single], &dir);
        assert!(o.status.success(), "{}", stderr(&o));
        let in_folder = format!("out/f{i}.j2k");
        assert_eq!(
            std::fs::read(dir.join(&in_folder)).unwrap(),
            std::fs::read(dir.join(&single)).unwrap(),
            "{name}"
        );
        let ext = if img.components == 1 { "pgm" } else { "ppm" };
        assert_eq!(
            &opj(&dir, &in_folder, &format!("back{i}.{ext}")),
            img,
            "{name}"
        );
    }

    // Refused before any work: outputs that exist (without --force), two inputs with one
    // name, an output that is not a folder.
    let before = std::fs::read(dir.join("out/f0.j2k")).unwrap();
    let o = parvlc(&args, &dir);
    assert!(
        stderr(&o).contains("refusing to overwrite"),
        "{}",
        stderr(&o)
    );
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/f1.ppm"), images[1].1.to_pnm()).unwrap();
    let o = parvlc(
        &["j2k", "f1.ppm", "sub/f1.ppm", "-o", "out", "--force"],
        &dir,
    );
    assert!(stderr(&o).contains("same name"), "{}", stderr(&o));
    let o = parvlc(&["j2k", "f1.ppm", "f2.ppm", "-o", "nowhere"], &dir);
    assert!(
        stderr(&o).contains("is a folder that exists"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(dir.join("out/f0.j2k")).unwrap(), before);

    // A bad image among good ones: an error naming it; whatever was written is whole.
    std::fs::write(dir.join("f4.ppm"), b"P6\n4 4\n255\nshort").unwrap();
    let o = parvlc(&[&args[..], &["--force"]].concat(), &dir);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("f4.ppm"), "{}", stderr(&o));
    for (i, (name, img)) in images.iter().enumerate().filter(|(i, _)| *i != 4) {
        let ext = if img.components == 1 { "pgm" } else { "ppm" };
        assert_eq!(
            &opj(&dir, &format!("out/f{i}.j2k"), &format!("again{i}.{ext}")),
            img,
            "{name}"
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".j2k"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");

    // At the default depth (set by the first picture, which is read while the GPU opens)
    // the same codestreams; a bad first picture is an error naming it.
    std::fs::write(dir.join("f4.ppm"), images[4].1.to_pnm()).unwrap();
    let defaults: Vec<&str> = args
        .iter()
        .filter(|a| !matches!(**a, "--depth" | "3"))
        .copied()
        .collect();
    let o = parvlc(&[&defaults[..], &["--force"]].concat(), &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    for i in 0..images.len() {
        assert_eq!(
            std::fs::read(dir.join(format!("out/f{i}.j2k"))).unwrap(),
            std::fs::read(dir.join(format!("single{i}.j2k"))).unwrap(),
            "default depth, picture {i}"
        );
    }
    std::fs::write(dir.join("f0.pgm"), b"P5\n4 4\n255\nshort").unwrap();
    let o = parvlc(&[&defaults[..], &["--force"]].concat(), &dir);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("f0.pgm"), "{}", stderr(&o));
}

/// `image` as one raw frame of `format` (FFmpeg's layouts: 16-bit samples little-endian,
/// `gbrp*` planes in the order G, B, R).
fn raw_frame(image: &Image, format: &str) -> Vec<u8> {
    let planar = format.starts_with("gbrp");
    let wide = image.bit_depth > 8;
    let mut samples: Vec<u16> = Vec::with_capacity(image.samples.len());
    if planar {
        for c in [1, 2, 0] {
            samples.extend(image.plane(c));
        }
    } else {
        samples.extend(&image.samples);
    }
    samples
        .iter()
        .flat_map(|&v| {
            if wide {
                v.to_le_bytes().to_vec()
            } else {
                vec![v as u8]
            }
        })
        .collect()
}

#[test]
fn raw_frames_code_as_the_same_pictures_from_pnm() {
    // Raw files of several frames in each family of formats: each frame's codestream
    // is the one its PGM/PPM gives, and OpenJPEG decodes it to the frame.
    let dir = scratch("raw");
    for (format, comps, depth) in [
        ("rgb24", 3, 8),
        ("gbrp12le", 3, 12),
        ("gray16le", 1, 16),
        ("gray10le", 1, 10),
    ] {
        let (w, h) = (23, 14);
        let frames: Vec<Image> = (0..3)
            .map(|k| {
                let mut img = gradient(w, h, comps, depth);
                for v in img.samples.iter_mut().skip(k as usize).step_by(5) {
                    *v = ((*v as u32 * 3 + k) % (1 << depth)) as u16;
                }
                img
            })
            .collect();
        let raw: Vec<u8> = frames.iter().flat_map(|f| raw_frame(f, format)).collect();
        let name = format!("clip-{format}.raw");
        std::fs::write(dir.join(&name), &raw).unwrap();
        let out = format!("out-{format}");
        std::fs::create_dir_all(dir.join(&out)).unwrap();
        let spec = format!("{w}x{h}:{format}");
        let o = parvlc(&["j2k", &name, "--raw", &spec, "-o", &out], &dir);
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        assert!(stderr(&o).contains("3 images ->"), "{}", stderr(&o));
        for (k, frame) in frames.iter().enumerate() {
            let ext = if comps == 1 { "pgm" } else { "ppm" };
            let pnm = format!("f{k}-{format}.{ext}");
            std::fs::write(dir.join(&pnm), frame.to_pnm()).unwrap();
            let single = format!("f{k}-{format}.j2k");
            let o = parvlc(&["j2k", &pnm, "-o", &single], &dir);
            assert!(o.status.success(), "{}", stderr(&o));
            let from_raw = format!("{out}/clip-{format}_{k:06}.j2k");
            assert!(
                std::fs::read(dir.join(&from_raw)).unwrap()
                    == std::fs::read(dir.join(&single)).unwrap(),
                "{format}, frame {k}"
            );
            if k == 0 {
                let back = opj(&dir, &from_raw, &format!("back-{format}.{ext}"));
                assert!(&back == frame, "{format}: OpenJPEG's decoding");
            }
        }
    }

    // A size that is not a whole number of frames, a bad spec, a 10-bit sample out of
    // range (an error naming its frame): clear errors.
    std::fs::write(dir.join("cut.raw"), vec![0u8; 23 * 14 * 3 + 1]).unwrap();
    std::fs::create_dir_all(dir.join("cut-out")).unwrap();
    let o = parvlc(
        &["j2k", "cut.raw", "--raw", "23x14:rgb24", "-o", "cut-out"],
        &dir,
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("whole number of"), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(dir.join("cut-out")).unwrap().count(), 0);
    let o = parvlc(
        &["j2k", "cut.raw", "--raw", "23x14:yuv420p", "-o", "cut-out"],
        &dir,
    );
    assert!(stderr(&o).contains("raw pixel format"), "{}", stderr(&o));
    let mut hot = raw_frame(&gradient(4, 4, 1, 10), "gray10le");
    hot.extend(vec![0xff; 32]); // frame 1: samples of 65535 in 10 bits
    std::fs::write(dir.join("hot.raw"), &hot).unwrap();
    let o = parvlc(
        &["j2k", "hot.raw", "--raw", "4x4:gray10le", "-o", "cut-out"],
        &dir,
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("frame 1"), "{}", stderr(&o));
}

#[test]
fn a_folder_stands_for_its_images() {
    let dir = scratch("folder");
    std::fs::create_dir_all(dir.join("in/deeper")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let a = gradient(19, 11, 3, 8);
    let b = gradient(13, 17, 1, 12);
    std::fs::write(dir.join("in/b.pgm"), b.to_pnm()).unwrap();
    std::fs::write(dir.join("in/a.ppm"), a.to_pnm()).unwrap();
    std::fs::write(dir.join("in/notes.txt"), b"not an image").unwrap();
    std::fs::write(dir.join("in/deeper/c.ppm"), a.to_pnm()).unwrap();
    let o = parvlc(&["j2k", "in", "-o", "out"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 images -> out"), "{}", stderr(&o));
    assert_eq!(&opj(&dir, "out/a.j2k", "a.ppm"), &a);
    assert_eq!(&opj(&dir, "out/b.j2k", "b.pgm"), &b);
    assert!(
        !dir.join("out/c.j2k").exists(),
        "a folder inside is not read"
    );
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    let o = parvlc(&["j2k", "empty", "-o", "out"], &dir);
    assert!(stderr(&o).contains("no PGM, PPM or PNG"), "{}", stderr(&o));
}
