//! The GPU intra front end (h264/intra) against its CPU twin: the same headers, levels
//! and reconstruction, picture for picture, for batches of pictures of odd and even
//! sizes, at every QP (QP 0 and full-range noise take the coarser-QP path), one slice and
//! several, for every luma mode: I_16x16 alone, I_NxN alone, both (the rate-distortion
//! choice), and each Intra4x4PredMode forced where its neighbours allow it.

mod common;

use parvlc::gpu::Gpu;
use parvlc::h264::intra::{IntraGpu, MbSchedule};
use parvlc::h264::{encode_picture_levels, EncoderConfig, Geometry, LumaModes, Picture};
use parvlc::testdata::SplitMix64;

/// A picture with flat patches, gradients, noise and hard edges, so that every mode and
/// both chroma shapes win somewhere.
fn picture(w: u32, h: u32, seed: u64) -> Picture {
    let mut rng = SplitMix64(seed);
    let mut p = Picture::new(w, h);
    let wide = w as usize;
    for (i, v) in p.y.iter_mut().enumerate() {
        let (x, y) = (i % wide, i / wide);
        *v = match (x / 19 + y / 13 + seed as usize) % 5 {
            0 => 90,
            1 => (x * 7 + y * 3) as u8,
            2 => rng.below(256) as u8,
            3 => {
                if (x / 4 + y / 4) % 2 == 0 {
                    16
                } else {
                    240
                }
            }
            _ => (y * 11) as u8 ^ (rng.below(8) as u8),
        };
    }
    let cw = w.div_ceil(2) as usize;
    for (i, v) in p.u.iter_mut().enumerate() {
        let (x, y) = (i % cw, i / cw);
        *v = if (x / 5 + y / 3) % 3 == 0 {
            128
        } else {
            (x * 9 + y) as u8
        };
    }
    rng.fill(&mut p.v);
    for v in p.v.iter_mut().step_by(3) {
        *v = 60;
    }
    p
}

fn check(
    w: u32,
    h: u32,
    qp: u8,
    slice_rows: Option<u32>,
    batch: usize,
    luma: LumaModes,
) -> (usize, usize) {
    check_with(
        common::gpu(),
        MbSchedule::Chained,
        w,
        h,
        qp,
        slice_rows,
        batch,
        luma,
    )
}

#[allow(clippy::too_many_arguments)]
fn check_with(
    gpu: &Gpu,
    schedule: MbSchedule,
    w: u32,
    h: u32,
    qp: u8,
    slice_rows: Option<u32>,
    batch: usize,
    luma: LumaModes,
) -> (usize, usize) {
    let config = EncoderConfig {
        qp,
        slice_rows,
        luma,
        ..EncoderConfig::default()
    };
    let geometry = Geometry::new(w, h).unwrap();
    let front = IntraGpu::with_schedule(gpu, geometry, &config, schedule).expect("front end");
    let pictures: Vec<Picture> = (0..batch)
        .map(|k| {
            let mut p = picture(w, h, (qp as u64) << 8 | k as u64);
            if qp == 0 && k == 0 {
                p.y.fill(255); // levels beyond Baseline's reach at QP 0: a coarser QP
            }
            p
        })
        .collect();
    let refs: Vec<&Picture> = pictures.iter().collect();
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let batch_gpu = front
        .encode_into(gpu, &mut encoder, None, &refs)
        .expect("recorded");
    gpu.queue.submit([encoder.finish()]);
    pollster::block_on(batch_gpu.check(gpu)).expect("every macroblock codable");
    let what = format!("{w}x{h} QP {qp} slices {slice_rows:?} luma {luma:?} {schedule:?}");
    let (mut requant, mut nxn, mut i16) = (0, 0, 0);
    for (k, p) in pictures.iter().enumerate() {
        let (frame, recon) = encode_picture_levels(p, &config).expect("CPU twin");
        let got = pollster::block_on(batch_gpu.read_frame(gpu, k)).unwrap();
        for (mb, (a, b)) in frame.mbs.iter().zip(&got.mbs).enumerate() {
            assert_eq!(a, b, "{what}, picture {k}: header of macroblock {mb}");
        }
        for (i, (a, b)) in frame.levels.iter().zip(&got.levels).enumerate() {
            assert_eq!(
                a,
                b,
                "{what}, picture {k}: macroblock {} block {} level {}",
                i / 384,
                i / 16 % 24,
                i % 16
            );
        }
        let got_recon = pollster::block_on(batch_gpu.read_recon(gpu, k)).unwrap();
        assert!(got_recon == recon, "{what}, picture {k}: reconstruction");
        requant += frame.mbs.iter().filter(|m| m.mb_qp_delta != 0).count();
        nxn += frame.mbs.iter().filter(|m| !m.is_intra16x16()).count();
        i16 += frame.mbs.iter().filter(|m| m.is_intra16x16()).count();
    }
    // A flat white picture has I_16x16 DC levels beyond Baseline's reach at QP 0 (its
    // 4x4 blocks do not: I_NxN codes it there).
    if qp == 0 && luma == LumaModes::Intra16x16 {
        assert!(requant > 0, "{what}: the coarser-QP path was taken");
    }
    match luma {
        LumaModes::Intra16x16 => assert_eq!(nxn, 0, "{what}"),
        LumaModes::Auto => {}
        _ => assert_eq!(i16, 0, "{what}"),
    }
    (nxn, i16)
}

const ALL: [LumaModes; 3] = [LumaModes::Auto, LumaModes::Intra16x16, LumaModes::Intra4x4];

#[test]
fn pictures_read_where_written_or_from_a_copy_code_the_same() {
    // The default context binds a batch's staging buffer as the front end's input; the
    // browser-like one (no mapped storage) copies it to GPU memory first.
    let staged = |gpu: &Gpu| {
        let mut upload = gpu.staged_upload(256).unwrap();
        upload.bind().is_some()
    };
    assert!(
        staged(common::gpu()),
        "the default context reads uploads in place"
    );
    let copying = common::gpu_workgroup_flavour();
    assert!(!staged(copying), "the browser-like context copies uploads");
    for (w, h, rows) in [(48, 32, None), (37, 21, Some(1))] {
        check_with(
            copying,
            MbSchedule::Chained,
            w,
            h,
            26,
            rows,
            3,
            LumaModes::Auto,
        );
    }
}

#[test]
fn one_picture_one_macroblock() {
    for luma in ALL {
        check(16, 16, 26, None, 1, luma);
        check(1, 1, 30, None, 1, luma);
    }
}

#[test]
fn batches_of_odd_and_even_sizes_at_every_qp() {
    let (mut nxn, mut i16) = (0, 0);
    for qp in 0..=51u8 {
        let (w, h) = [(48, 32), (37, 21), (80, 48)][qp as usize % 3];
        let slices = [None, Some(1), Some(2)][qp as usize / 3 % 3];
        for luma in ALL {
            let (a, b) = check(w, h, qp, slices, 1 + qp as usize % 3, luma);
            if luma == LumaModes::Auto {
                (nxn, i16) = (nxn + a, i16 + b);
            }
        }
    }
    // The choice between the two went both ways.
    assert!(
        nxn > 0 && i16 > 0,
        "auto: {nxn} I_NxN, {i16} I_16x16 macroblocks"
    );
}

#[test]
fn every_intra4x4_mode_forced_at_picture_and_slice_edges() {
    for mode in 0..9 {
        for (w, h, slices) in [(48, 32, Some(1)), (37, 21, None)] {
            check(w, h, 27, slices, 2, LumaModes::Intra4x4Forced(mode));
        }
    }
}

/// The fallback schedule, a dispatch per wave, codes what the chained one does (every
/// other test runs the chained one): several pictures, slices, both luma kinds, a
/// coarser QP.
#[test]
fn the_wave_schedule_codes_the_same() {
    for luma in ALL {
        check_with(
            common::gpu(),
            MbSchedule::Waves,
            37,
            21,
            0,
            Some(1),
            2,
            luma,
        );
        check_with(common::gpu(), MbSchedule::Waves, 80, 48, 27, None, 3, luma);
    }
    check_with(
        common::gpu(),
        MbSchedule::Waves,
        48,
        32,
        27,
        Some(2),
        2,
        LumaModes::Intra4x4Forced(3),
    );
}

#[test]
fn a_wide_picture_in_slices_of_several_rows() {
    for luma in ALL {
        check(200, 100, 22, Some(3), 2, luma);
        check(200, 100, 37, None, 2, luma);
    }
}

/// The front end's CAVLC bit count (h264/rate.wgsl `block_bits`, run alone as the
/// h264/bits stage) equals its twin, `block_bits_nc`: every pattern of nonzero levels
/// in 16 positions (so every run_before with every count of zeros left), and seeded
/// blocks of every density with levels from +-1 to past what Baseline can code, for 16
/// levels and for the 15 of an AC block, at nC 0 to 16.
#[test]
fn block_bits_equal_their_twin() {
    use parvlc::h264::bits::{count_block_bits, count_block_bits_cpu, BitsQuery};
    let mut rng = SplitMix64(0xb175);
    let mut queries = Vec::new();
    for mask in 0u32..1 << 16 {
        let mut levels = [0i32; 16];
        for (i, level) in levels.iter_mut().enumerate() {
            if mask >> i & 1 != 0 {
                // Mostly +-1 (trailing ones, their count capped at three), some larger.
                let magnitude = [1, 1, 1, 2, 1, 3, 1, 9][(i + mask as usize) % 8];
                *level = if (mask >> (i + 3)) & 1 != 0 {
                    -magnitude
                } else {
                    magnitude
                };
            }
        }
        let (first, n) = if mask % 3 == 0 { (1, 15) } else { (0, 16) };
        queries.push(BitsQuery {
            levels,
            first,
            n,
            nc: (mask % 17),
            pad: 0,
        });
    }
    for k in 0..40_000u32 {
        let density = [0, 1, 3, 6, 10][k as usize % 5];
        let mut levels = [0i32; 16];
        for level in levels.iter_mut() {
            if rng.below(10) < density {
                let magnitude = match rng.below(100) {
                    0..=59 => 1,
                    60..=84 => 2 + rng.below(4) as i32,
                    85..=96 => 6 + rng.below(120) as i32,
                    97 => 1000 + rng.below(1100) as i32,
                    _ => 2000 + rng.below(70_000) as i32,
                };
                *level = if rng.below(2) == 0 {
                    magnitude
                } else {
                    -magnitude
                };
            }
        }
        let (first, n) = if k % 2 == 0 { (0, 16) } else { (1, 15) };
        queries.push(BitsQuery {
            levels,
            first,
            n,
            nc: rng.below(17) as u32,
            pad: 0,
        });
    }
    // A count of levels no block has is an error on both sides, before any work.
    let odd = [BitsQuery {
        first: 2,
        n: 14,
        ..BitsQuery::default()
    }];
    assert!(count_block_bits_cpu(&odd).is_err());
    assert!(pollster::block_on(count_block_bits(common::gpu(), &odd)).is_err());
    // So is an nC past what the twin takes.
    let wild = [BitsQuery {
        n: 16,
        nc: u32::MAX,
        ..BitsQuery::default()
    }];
    assert!(count_block_bits_cpu(&wild).is_err());
    assert!(pollster::block_on(count_block_bits(common::gpu(), &wild)).is_err());
    assert_eq!(
        pollster::block_on(count_block_bits(common::gpu(), &[])).unwrap(),
        Vec::<u32>::new()
    );
    let want = count_block_bits_cpu(&queries).unwrap();
    let got = pollster::block_on(count_block_bits(common::gpu(), &queries)).unwrap();
    let uncodable = want.iter().filter(|&&b| b == 0).count();
    assert!(
        uncodable > 100,
        "only {uncodable} blocks past Baseline's levels"
    );
    for (i, q) in queries.iter().enumerate() {
        assert_eq!(got[i], want[i], "query {i}: {q:?}");
    }
}

/// CAVLC of `frames` recorded into `encoder` (after what it already holds), with
/// `room` for each output and streams of up to `quota` bytes read back with the results;
/// the whole submitted and read back.
fn cavlc_coded(
    gpu: &Gpu,
    stages: &parvlc::cavlc::CavlcGpu,
    mut encoder: wgpu::CommandEncoder,
    frames: &[parvlc::cavlc::GpuFrame],
    variant: parvlc::cavlc::GpuVariant,
    room: Option<u64>,
    quota: u64,
) -> Vec<parvlc::cavlc::gpu::Encoded> {
    let pending = stages
        .encode_frames_into(gpu, &mut encoder, frames, variant, false, room)
        .expect("CAVLC recorded");
    let recorded = stages
        .record_finish(gpu, &mut encoder, &pending, quota)
        .expect("readback recorded");
    gpu.queue.submit([encoder.finish()]);
    pollster::block_on(stages.finish_recorded(gpu, pending, recorded)).expect("coded")
}

/// CAVLC codes a batch's frames from their ranges of the front end's buffers (bound at an
/// offset) or, where a device's storage alignment misses those ranges, from copies; one
/// scratch serves all the frames of `encode_frames_into`. Both ways give each picture
/// the slices the CPU reference writes for the levels the front end made.
#[test]
fn cavlc_codes_a_batch_from_its_ranges_or_from_copies() {
    use parvlc::cavlc::{CavlcGpu, GpuVariant};
    use parvlc::h264::cpu_slice_data;
    let gpu = common::gpu();
    let config = EncoderConfig {
        qp: 24,
        slice_rows: Some(1),
        ..EncoderConfig::default()
    };
    let (w, h) = (37, 21);
    let geometry = Geometry::new(w, h).unwrap();
    let front = IntraGpu::new(gpu, geometry, &config).expect("front end");
    let stages = CavlcGpu::new(gpu).expect("CAVLC stages");
    let pictures: Vec<Picture> = (0..3).map(|k| picture(w, h, 90 + k)).collect();
    let refs: Vec<&Picture> = pictures.iter().collect();
    let starts = config.slice_starts(&geometry);
    for copied in [false, true] {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let batch = front
            .encode_into(gpu, &mut encoder, None, &refs)
            .expect("recorded");
        let frames: Vec<_> = match copied {
            false => (0..refs.len())
                .map(|k| batch.gpu_frame(gpu, &mut encoder, k, starts.clone()))
                .collect(),
            true => batch.gpu_frames(gpu, &mut encoder, 1, &starts, true),
        };
        let coded = cavlc_coded(
            gpu,
            &stages,
            encoder,
            &frames,
            GpuVariant::Cavlcu,
            None,
            1 << 20,
        );
        for (k, c) in coded.iter().enumerate() {
            let frame = pollster::block_on(batch.read_frame(gpu, k)).expect("levels");
            let want = cpu_slice_data(&frame).expect("CPU reference");
            assert_eq!(c.slices, want, "copied {copied}, picture {k}");
        }
    }
}

/// A front end that keeps no reconstruction (`IntraGpu::keep_recon(false)`, what the
/// encoder asks for unless `--recon` does) codes the CPU twin's headers and levels, as one
/// that keeps it does: neighbours read each other's published edges, never the
/// reconstruction. (Without it first: pooled buffers keep the bytes of the run before.)
/// Asking such a batch for its reconstruction is an error.
#[test]
fn a_batch_without_its_reconstruction_codes_the_same() {
    let gpu = common::gpu();
    let config = EncoderConfig {
        qp: 22,
        slice_rows: Some(2),
        ..EncoderConfig::default()
    };
    let (w, h) = (50, 34);
    let geometry = Geometry::new(w, h).unwrap();
    let pictures: Vec<Picture> = (0..2).map(|k| picture(w, h, 700 + k)).collect();
    let refs: Vec<&Picture> = pictures.iter().collect();
    for keep in [false, true] {
        let mut front = IntraGpu::new(gpu, geometry, &config).expect("front end");
        front.keep_recon(keep);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let batch = front
            .encode_into(gpu, &mut encoder, None, &refs)
            .expect("recorded");
        gpu.queue.submit([encoder.finish()]);
        pollster::block_on(batch.check(gpu)).expect("every macroblock codable");
        for (k, p) in pictures.iter().enumerate() {
            let (want, recon) = encode_picture_levels(p, &config).expect("CPU twin");
            let got = pollster::block_on(batch.read_frame(gpu, k)).expect("levels");
            assert!(got.mbs == want.mbs, "kept {keep}, picture {k}: headers");
            assert!(
                got.levels == want.levels,
                "kept {keep}, picture {k}: levels"
            );
            let got_recon = pollster::block_on(batch.read_recon(gpu, k));
            match keep {
                true => assert!(got_recon.expect("kept") == recon, "picture {k}"),
                false => assert!(got_recon.is_err(), "picture {k}: no reconstruction"),
            }
        }
    }
}

/// CAVLC codes a batch's pictures grouped into frames (`IntraBatch::gpu_frames`: several
/// pictures back to back as one frame, one stream) exactly as each picture alone: no
/// macroblock takes another picture's as its upper neighbour, even where both are in a
/// slice of the same index (one slice a picture). Groupings by ranges and by copies, each
/// CAVLC variant.
#[test]
fn cavlc_codes_pictures_grouped_into_frames_as_each_alone() {
    use parvlc::cavlc::{CavlcGpu, GpuVariant};
    use parvlc::h264::cpu_slice_data;
    let gpu = common::gpu();
    let (w, h) = (45, 30);
    let geometry = Geometry::new(w, h).unwrap();
    let stages = CavlcGpu::new(gpu).expect("CAVLC stages");
    let pictures: Vec<Picture> = (0..5).map(|k| picture(w, h, 300 + k)).collect();
    let refs: Vec<&Picture> = pictures.iter().collect();
    for slice_rows in [None, Some(1)] {
        let config = EncoderConfig {
            qp: 20,
            slice_rows,
            ..EncoderConfig::default()
        };
        let front = IntraGpu::new(gpu, geometry, &config).expect("front end");
        let starts = config.slice_starts(&geometry);
        let shapes = [
            (2, false, GpuVariant::Cavlcu),
            (3, true, GpuVariant::Su),
            (usize::MAX, false, GpuVariant::Recompute),
        ];
        for (group, copied, variant) in shapes {
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            let batch = front
                .encode_into(gpu, &mut encoder, None, &refs)
                .expect("recorded");
            let frames = batch.gpu_frames(gpu, &mut encoder, group, &starts, copied);
            let want_frames = refs.len().div_ceil(group.min(refs.len()));
            assert_eq!(frames.len(), want_frames, "group {group}");
            let coded = cavlc_coded(gpu, &stages, encoder, &frames, variant, None, 1 << 20);
            let slices: Vec<_> = coded.into_iter().flat_map(|c| c.slices).collect();
            assert_eq!(slices.len(), refs.len() * starts.len(), "group {group}");
            for (k, got) in slices.chunks(starts.len()).enumerate() {
                let frame = pollster::block_on(batch.read_frame(gpu, k)).expect("levels");
                let want = cpu_slice_data(&frame).expect("CPU reference");
                assert!(
                    got == want.as_slice(),
                    "slices {slice_rows:?}, group {group}, copied {copied}, {variant:?}, picture {k}"
                );
            }
        }
    }
}

/// CAVLC's output sized by a room (`encode_frames_into`'s): a group whose stream does
/// not fit comes back flagged, with no slices, and the encoder codes it again. Forced
/// through the encoder with a tiny quota, every batch's bytes are the CPU engine's.
#[test]
fn groups_that_outgrow_their_room_are_flagged_and_coded_again() {
    use parvlc::cavlc::{CavlcGpu, GpuVariant};
    use parvlc::h264::Encoder;
    use parvlc::Engine;
    let gpu = common::gpu();
    let (w, h) = (45, 30);
    let config = EncoderConfig {
        qp: 18,
        ..EncoderConfig::default()
    };
    let geometry = Geometry::new(w, h).unwrap();
    let pictures: Vec<Picture> = (0..4).map(|k| picture(w, h, 500 + k)).collect();
    let refs: Vec<&Picture> = pictures.iter().collect();
    let front = IntraGpu::new(gpu, geometry, &config).expect("front end");
    let stages = CavlcGpu::new(gpu).expect("CAVLC stages");
    let starts = config.slice_starts(&geometry);
    for room in [64, 64 << 20] {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let batch = front
            .encode_into(gpu, &mut encoder, None, &refs)
            .expect("recorded");
        let frames = batch.gpu_frames(gpu, &mut encoder, 2, &starts, false);
        let variant = GpuVariant::Cavlcu;
        let coded = cavlc_coded(gpu, &stages, encoder, &frames, variant, Some(room), 1 << 10);
        assert_eq!(coded.len(), 2);
        for (g, c) in coded.iter().enumerate() {
            assert_eq!(c.room_exceeded, room == 64, "room {room}, group {g}");
            assert_eq!(c.slices.is_empty(), room == 64, "room {room}, group {g}");
        }
    }
    // Through the encoder: the first batch's groups outgrow a room of 64 bytes a picture
    // and are read back past a quota of 32; later batches' quota has grown.
    let code = |engine: &Engine, quota: Option<u64>| -> Vec<u8> {
        let encoder = Encoder::new(w, h, 25.0, config, engine).expect("encoder");
        if let Some(q) = quota {
            encoder.set_stream_quota(q);
        }
        let mut bytes = Vec::new();
        for first in [0, 4] {
            let coded =
                pollster::block_on(encoder.encode_batch_at(&pictures, first)).expect("coded");
            bytes.extend(coded.into_iter().flat_map(|c| c.bytes));
        }
        bytes
    };
    let want = code(&Engine::Cpu, None);
    assert!(
        code(common::wgpu_engine(), Some(32)) == want,
        "a tiny quota"
    );
    assert!(
        code(common::wgpu_engine(), None) == want,
        "the default quota"
    );
}
