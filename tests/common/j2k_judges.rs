//! Decoders nobody here wrote, as judges of our JPEG 2000 codestreams: OpenJPEG's
//! `opj_decompress`, OpenJPH's `ojph_expand` (HTJ2K only) and Grok's `grk_decompress`.

use std::path::Path;
use std::process::Command;

use parvlc::j2k::Image;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judge {
    OpenJpeg,
    OpenJph,
    Grok,
}

impl Judge {
    pub const ALL: [Judge; 3] = [Judge::OpenJpeg, Judge::OpenJph, Judge::Grok];

    pub fn tool(self) -> &'static str {
        match self {
            Judge::OpenJpeg => "opj_decompress",
            Judge::OpenJph => "ojph_expand",
            Judge::Grok => "grk_decompress",
        }
    }

    fn package(self) -> &'static str {
        match self {
            Judge::OpenJpeg => "libopenjp2-tools",
            Judge::OpenJph => "openjph-tools",
            Judge::Grok => "grokj2k-tools",
        }
    }
}

/// `judge`'s decoding of `codestream` (written as `name`.j2k in `dir`) to a PGM/PPM,
/// read back as an image; panics with the tool's log if it fails or warns.
pub fn decode(judge: Judge, dir: &Path, name: &str, codestream: &[u8], components: u32) -> Image {
    decode_file(judge, dir, &format!("{name}.j2k"), codestream, components)
}

/// [`decode`] of a file named `file` (its extension as the decoder should see it, `.jph`
/// for a JPH file).
pub fn decode_file(judge: Judge, dir: &Path, file: &str, bytes: &[u8], components: u32) -> Image {
    let input = dir.join(file);
    let name = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
    let ext = if components == 1 { "pgm" } else { "ppm" };
    let output = dir.join(format!("{name}-{}.{ext}", judge.tool()));
    std::fs::write(&input, bytes).unwrap();
    let _ = std::fs::remove_file(&output);
    let o = Command::new(judge.tool())
        .arg("-i")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "{} is needed by the JPEG 2000 tests (package {}): {e}",
                judge.tool(),
                judge.package()
            )
        });
    let log = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "{name}: {} failed:\n{log}",
        judge.tool()
    );
    let lower = log.to_lowercase();
    assert!(
        !lower.contains("error") && !lower.contains("warn"),
        "{name}: {}:\n{log}",
        judge.tool()
    );
    let bytes = std::fs::read(&output)
        .unwrap_or_else(|e| panic!("{name}: {} wrote no output: {e}\n{log}", judge.tool()));
    let _ = std::fs::remove_file(&output);
    Image::from_bytes(&bytes)
        .unwrap_or_else(|e| panic!("{name}: {}'s output unreadable: {e}", judge.tool()))
}
