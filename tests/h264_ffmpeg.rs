//! FFmpeg, which no one here wrote, decodes our H.264 streams (`-err_detect explode`) to
//! exactly our reconstruction: FFmpeg's testsrc2 and mandelbrot clips at QP 0, 12, 26,
//! 40 and 51, four sizes (one not a multiple of 16), one slice and several, CAVLC by
//! the CPU reference (`Engine::Cpu`); and a subset with every GPU CAVLC variant on the
//! wgpu engine (lavapipe in CI), whose streams must also equal the CPU's byte for byte.

mod common;
mod h264_common;

use h264_common::{check_against_ffmpeg, clip, encode_file};
use parvlc::cavlc::GpuVariant;
use parvlc::h264::EncoderConfig;
use parvlc::Engine;

const QPS: [u8; 5] = [0, 12, 26, 40, 51];

/// The whole matrix at one size; returns the requantized macroblocks at QP 0.
fn matrix(w: u32, h: u32, several: u32) -> usize {
    let mut requant_qp0 = 0;
    for source in ["testsrc2", "mandelbrot"] {
        let y4m = clip(source, w, h);
        for qp in QPS {
            for slice_rows in [None, Some(several)] {
                let config = EncoderConfig {
                    qp,
                    slice_rows,
                    ..Default::default()
                };
                let tag = format!("{source}-{w}x{h}-qp{qp}-rows{slice_rows:?}");
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
    matrix(176, 144, 2);
}

#[test]
fn cif_352x288() {
    matrix(352, 288, 4);
}

#[test]
fn hd_1280x720() {
    // Bright flat areas against a DC prediction of 128 need more than Baseline's largest
    // level at QP 0: the mb_qp_delta path must have run and decoded right.
    let requant = matrix(1280, 720, 7);
    assert!(requant > 0, "no macroblock was requantized at QP 0");
}

#[test]
fn not_a_multiple_of_16_198x110() {
    matrix(198, 110, 1);
}

#[test]
fn gpu_engines_match_ffmpeg_and_the_cpu() {
    let gpu = common::wgpu_engine();
    for (source, w, h, several) in [("testsrc2", 176, 144, 2), ("mandelbrot", 198, 110, 1)] {
        let y4m = clip(source, w, h);
        for qp in [0, 26, 51] {
            for slice_rows in [None, Some(several)] {
                let cpu = EncoderConfig {
                    qp,
                    slice_rows,
                    ..Default::default()
                };
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
    }
}
