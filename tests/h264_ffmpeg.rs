//! FFmpeg, which no one here wrote, decodes our H.264 streams (`-err_detect explode`) to
//! exactly our reconstruction: FFmpeg's testsrc2 and mandelbrot clips at QP 0, 12, 26,
//! 40 and 51, four sizes (one not a multiple of 16), one slice and several, CAVLC by
//! the CPU reference (`Engine::Cpu`), with the luma mode decision (I_16x16 and I_4x4
//! mixed) and I_16x16 alone; every Intra_4x4 mode forced at picture and slice edges;
//! every QP; and a subset with every GPU CAVLC variant on the wgpu engine (lavapipe in
//! CI), whose streams must also equal the CPU's byte for byte.

mod common;
mod h264_common;

use h264_common::{check_against_ffmpeg, clip, encode_file, mb_kinds};
use parvlc::cavlc::GpuVariant;
use parvlc::h264::{EncoderConfig, LumaModes};
use parvlc::Engine;

const QPS: [u8; 5] = [0, 12, 26, 40, 51];

/// The whole matrix at one size with each of `lumas`; returns the requantized
/// macroblocks at QP 0.
fn matrix(w: u32, h: u32, several: u32, lumas: &[LumaModes]) -> usize {
    let mut requant_qp0 = 0;
    for source in ["testsrc2", "mandelbrot"] {
        let y4m = clip(source, w, h);
        for (qp, &luma) in QPS
            .into_iter()
            .flat_map(|q| lumas.iter().map(move |l| (q, l)))
        {
            for slice_rows in [None, Some(several)] {
                let config = EncoderConfig {
                    qp,
                    slice_rows,
                    luma,
                    ..Default::default()
                };
                let tag = format!("{source}-{w}x{h}-qp{qp}-rows{slice_rows:?}-{luma:?}");
                let n = check_against_ffmpeg(&y4m, config, &Engine::Cpu, &tag);
                if qp == 0 {
                    requant_qp0 += n;
                }
            }
        }
    }
    requant_qp0
}

#[test]
fn qcif_176x144() {
    matrix(176, 144, 2, &[LumaModes::Auto, LumaModes::Intra16x16]);
}

#[test]
fn cif_352x288() {
    matrix(352, 288, 4, &[LumaModes::Auto]);
}

#[test]
fn hd_1280x720() {
    // Bright flat areas against a DC prediction of 128 need more than Baseline's largest
    // level at QP 0: the mb_qp_delta path must have run and decoded right.
    let requant = matrix(1280, 720, 7, &[LumaModes::Intra16x16]);
    assert!(requant > 0, "no macroblock was requantized at QP 0");
}

#[test]
fn not_a_multiple_of_16_198x110() {
    matrix(198, 110, 1, &[LumaModes::Auto, LumaModes::Intra16x16]);
}

#[test]
fn hd_1280x720_mode_decision() {
    matrix(1280, 720, 7, &[LumaModes::Auto]);
}

/// Every Intra_4x4 mode forced wherever its neighbours allow it: blocks at the picture's
/// and the slices' top and left edges and at the right edge (no top-right), a size that
/// is a multiple of 16 and an odd one, one slice and a slice per macroblock row.
#[test]
fn every_intra4x4_mode_at_picture_and_slice_edges() {
    for (source, w, h) in [("testsrc2", 48, 32), ("mandelbrot", 37, 21)] {
        let y4m = clip(source, w, h);
        for mode in 0..9 {
            for qp in [0, 26, 51] {
                for slice_rows in [None, Some(1)] {
                    let config = EncoderConfig {
                        qp,
                        slice_rows,
                        luma: LumaModes::Intra4x4Forced(mode),
                        ..Default::default()
                    };
                    let tag = format!("{source}-{w}x{h}-qp{qp}-rows{slice_rows:?}-i4x4-{mode}");
                    check_against_ffmpeg(&y4m, config, &Engine::Cpu, &tag);
                    let (nxn, i16) = mb_kinds(&y4m, config);
                    assert!(nxn > 0 && i16 == 0, "{tag}: {nxn} I_NxN, {i16} I_16x16");
                }
            }
        }
    }
}

/// The mode decision and I_4x4 alone at every QP, one slice and a slice per row; with
/// the decision, both macroblock kinds appear.
#[test]
fn every_qp_with_and_without_the_mode_decision() {
    let y4m = clip("testsrc2", 64, 48);
    let (mut nxn, mut i16) = (0, 0);
    for qp in 0..=51 {
        for slice_rows in [None, Some(1)] {
            for luma in [LumaModes::Auto, LumaModes::Intra4x4] {
                let config = EncoderConfig {
                    qp,
                    slice_rows,
                    luma,
                    ..Default::default()
                };
                let tag = format!("qp{qp}-{slice_rows:?}-{luma:?}");
                check_against_ffmpeg(&y4m, config, &Engine::Cpu, &tag);
                if luma == LumaModes::Auto {
                    let (n, i) = mb_kinds(&y4m, config);
                    (nxn, i16) = (nxn + n, i16 + i);
                }
            }
        }
    }
    assert!(nxn > 0 && i16 > 0, "{nxn} I_NxN, {i16} I_16x16 macroblocks");
}

#[test]
fn gpu_engines_match_ffmpeg_and_the_cpu() {
    let gpu = common::wgpu_engine();
    for (source, w, h, several) in [("testsrc2", 176, 144, 2), ("mandelbrot", 198, 110, 1)] {
        let y4m = clip(source, w, h);
        let mut nxn = 0;
        for qp in [0, 26, 51] {
            for slice_rows in [None, Some(several)] {
                let cpu = EncoderConfig {
                    qp,
                    slice_rows,
                    ..Default::default()
                };
                nxn += mb_kinds(&y4m, cpu).0;
                let (want, _, _) = encode_file(&y4m, cpu, &Engine::Cpu);
                for cavlc in GpuVariant::ALL {
                    let config = EncoderConfig { cavlc, ..cpu };
                    let tag = format!("{source}-{w}x{h}-qp{qp}-rows{slice_rows:?}-{cavlc}");
                    check_against_ffmpeg(&y4m, config, gpu, &tag);
                    let (got, _, _) = encode_file(&y4m, config, gpu);
                    assert!(got == want, "{tag}: stream differs from the CPU engine's");
                }
            }
        }
        assert!(nxn > 0, "{source}: the GPU engines saw no I_NxN macroblock");
    }
}
