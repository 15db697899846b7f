//! `parvlc j2k` as a user meets it: a PGM, a PPM and a PNG encoded and decoded by
//! OpenJPEG to the source; unsupported kinds, zero-sized and truncated images each a clear
//! error with no output file (and no temporary file) left behind; refusal to overwrite.

mod common;

use std::path::{Path, PathBuf};

use common::cli::{files, opj_decompress, parvlc, stderr};

use parvlc::j2k::Image;

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
    let o = parvlc(&["j2k", "g.pgm", "-o", "g.j2k", "--cpu"], &dir);
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
    let o = parvlc(&["j2k", "p.png", "-o", "p.j2k", "--cpu"], &dir);
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
        let o = parvlc(&["j2k", name, "-o", "out.j2k", "--cpu"], &dir);
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
