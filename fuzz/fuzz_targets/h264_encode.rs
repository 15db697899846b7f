//! The H.264 encoder with the CPU CAVLC reference on small fuzzed pictures. Checked in
//! process: no panic and no error for any valid picture and configuration; the Annex B
//! structure (start codes, emulation prevention, SPS and PPS before the first picture, one
//! IDR slice NAL unit per slice); each slice parses back (the expected header, then
//! CAVLC-decoded macroblock headers and levels equal to what the encoder coded, then the
//! stop bit); the CPU twins of the GPU stages (CAVLCU's block codes and packing, the
//! multi-core encoder) give the same bits as the reference; the reconstruction has the
//! display size. Not checked here: that a decoder's pictures equal the reconstruction
//! (inverse transform and prediction): tests/h264_ffmpeg.rs has FFmpeg judge that.

#![no_main]

use libfuzzer_sys::fuzz_target;
use parvlc::cavlc::cavlcu::block_codes_cpu;
use parvlc::cavlc::frame::{Frame, MB_BLOCKS};
use parvlc::cavlc::multicore::encode_frame_cpu;
use parvlc::cavlc::pack::pack_cpu;
use parvlc::h264::{cpu_slice_data, Encoder, EncoderConfig, Picture};
use parvlc::Engine;
use parvlc_fuzz::h264::{parse_slice, split_annexb};
use parvlc_fuzz::{cycle, Params};

const SPS: u8 = 7;
const PPS: u8 = 8;
const IDR: u8 = 5;

fuzz_target!(|data: &[u8]| {
    let mut p = Params::new(data);
    let (width, height) = (p.range(1, 64), p.range(1, 64));
    let config = EncoderConfig {
        qp: p.range(0, 51) as u8,
        slice_rows: match p.range(0, 4) {
            0 => None,
            k => Some(k),
        },
        ..Default::default()
    };
    let pictures = p.range(1, 2);
    let mut encoder = Encoder::new(width, height, 25.0, config, &Engine::Cpu).expect("encoder");
    let mut at = 0;
    for n in 0..pictures {
        let mut picture = Picture::new(width, height);
        for plane in [&mut picture.y, &mut picture.u, &mut picture.v] {
            *plane = cycle(p.rest(), &mut at, plane.len());
        }
        let what = format!("{width}x{height}, {config:?}, picture {n}");
        let out =
            pollster::block_on(encoder.encode(&picture)).unwrap_or_else(|e| panic!("{what}: {e}"));
        let g = encoder.geometry();
        // The encoder keeps both by default.
        let recon = out
            .recon
            .as_ref()
            .expect("the reconstruction, kept by default");
        assert_eq!(
            (recon.width, recon.height),
            (g.display_width, g.display_height),
            "{what}"
        );
        recon.validate().expect("reconstruction planes");
        let frame = out.frame.as_ref().expect("the frame, kept by default");
        let slices = frame.slices();

        let nals = split_annexb(&out.bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        let mut types: Vec<u8> = if n == 0 { vec![SPS, PPS] } else { vec![] };
        types.extend(std::iter::repeat_n(IDR, slices.len()));
        let got: Vec<u8> = nals.iter().map(|u| u.unit_type).collect();
        assert_eq!(got, types, "{what}: NAL unit types");
        assert!(nals.iter().all(|u| u.ref_idc == 3), "{what}");

        // Parse every slice back and compare with what the encoder coded.
        let mut decoded = Frame::new(frame.width_mbs, frame.height_mbs);
        let mut tc = vec![0u8; frame.mb_count() * MB_BLOCKS];
        let slice_nals = nals.iter().filter(|u| u.unit_type == IDR);
        for (range, nal) in slices.iter().zip(slice_nals) {
            parse_slice(
                &nal.rbsp,
                frame,
                range.clone(),
                n % 2,
                &mut decoded,
                &mut tc,
            )
            .unwrap_or_else(|e| panic!("{what}: slice at {}: {e}", range.start));
        }
        for (mb, (a, b)) in frame.mbs.iter().zip(&decoded.mbs).enumerate() {
            let residual = b.is_intra16x16() || b.cbp() != (0, 0);
            let key = |h: &parvlc::cavlc::frame::MbHeader| {
                let nxn = !h.is_intra16x16();
                (
                    h.mb_type,
                    h.intra_chroma_pred_mode,
                    if residual { h.mb_qp_delta } else { 0 },
                    h.slice,
                    if nxn { h.coded_block_pattern } else { 0 },
                    if nxn { h.intra4x4_modes } else { [0; 2] },
                )
            };
            assert_eq!(key(a), key(b), "{what}: macroblock {mb} header");
        }
        assert!(decoded.levels == frame.levels, "{what}: levels differ");

        // The CPU twins of the GPU paths: the same bits as the reference.
        let reference = cpu_slice_data(frame).expect("reference slice data");
        let codes = block_codes_cpu(frame).expect("CAVLCU block codes");
        assert!(pack_cpu(frame, &codes) == reference, "{what}: CAVLCU twin");
        for parallel in [false, true] {
            let multicore = encode_frame_cpu(frame, parallel).expect("multi-core encoder");
            assert!(
                multicore == reference,
                "{what}: multi-core encoder ({parallel})"
            );
        }
    }
});
