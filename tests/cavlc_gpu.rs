//! CAVLC on the GPU (`parvlc::cavlc::gpu`: cavlcu, recompute, su, and the packing stage)
//! against the CPU reference `encode_slice_data`, bit for bit: every slot's code (against
//! `encode_residual_block` per block) and every slice, on seeded random frames that give
//! each block kind at least 10^5 blocks, with one and several slices; the cavlcu fallback
//! forced; both shader flavours; the CPU twins and the multi-core CPU encoder; bad frames.
mod common;

use std::collections::HashMap;
use std::sync::OnceLock;

use parvlc::bits::MsbWriter;
use parvlc::cavlc::cavlcu::{block_codes_cpu, slot_block, slot_coeffs, SlotCodes, MB_SLOTS};
use parvlc::cavlc::frame::{block_nc, encode_slice_data, total_coeffs, Frame, MbHeader};
use parvlc::cavlc::gpu::{CavlcConfig, CavlcGpu, GpuVariant};
use parvlc::cavlc::multicore::encode_frame_cpu;
use parvlc::cavlc::pack::pack_cpu;
use parvlc::cavlc::su::forward_cpu;
use parvlc::cavlc::testframes::RandomFrame;
use parvlc::cavlc::{encode_residual_block, BlockKind};
use parvlc::gpu::Gpu;
use parvlc::scan::{ScanConfig, ScanStrategy};
use parvlc::Error;

/// Per slice: bytes and bits.
type Slices = Vec<(Vec<u8>, u64)>;
/// Per slot: bits and MSB-first words.
type Slots = Vec<(u32, Vec<u32>)>;

/// The reference, slice by slice: what each slice's slice_data() is.
fn reference(frame: &Frame) -> Slices {
    let tc = total_coeffs(frame);
    frame
        .slices()
        .into_iter()
        .map(|r| {
            let mut w = MsbWriter::new();
            encode_slice_data(frame, &tc, r, &mut w).expect("reference encodes");
            let bits = w.bit_len();
            (w.as_bytes().to_vec(), bits)
        })
        .collect()
}

/// Every slot's code by the reference block coder (encode_residual_block), as MSB-first
/// words; and how many coded blocks of each kind the frame has.
fn reference_slots(frame: &Frame) -> (Slots, HashMap<BlockKind, usize>, Coverage) {
    let tc = total_coeffs(frame);
    let mut scan = [0i32; 16];
    let mut out = Vec::with_capacity(frame.mb_count() * MB_SLOTS);
    let mut kinds = HashMap::new();
    let mut coverage = Coverage::default();
    for mb in 0..frame.mb_count() {
        for slot in 0..MB_SLOTS {
            let Some((kind, blk, _)) = slot_block(frame, mb, slot, &mut scan) else {
                out.push((0, Vec::new()));
                continue;
            };
            *kinds.entry(kind).or_insert(0) += 1;
            let nc = match kind {
                BlockKind::ChromaDC => -1,
                BlockKind::Intra16x16DC => block_nc(frame, &tc, mb, 0),
                _ => block_nc(frame, &tc, mb, blk),
            };
            cover(&mut coverage, slot_coeffs(&scan, kind), nc);
            let mut w = MsbWriter::new();
            encode_residual_block(slot_coeffs(&scan, kind), kind, nc, &mut w).expect("codable");
            let mut bytes = w.as_bytes().to_vec();
            bytes.resize(bytes.len().next_multiple_of(4), 0);
            let words = bytes
                .chunks_exact(4)
                .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            out.push((w.bit_len() as u32, words));
        }
    }
    (out, kinds, coverage)
}

/// Which hard cases the coded blocks hit.
#[derive(Debug, Default, Clone, Copy)]
struct Coverage {
    /// Blocks per coeff_token table: nC 0-1, 2-3, 4-7, >= 8, chroma DC.
    tables: [usize; 5],
    all_zero: usize,
    all_nonzero: usize,
    /// Three trailing ones, then a level of magnitude 1 (not a trailing one).
    ones_after_t1s: usize,
    /// The first level after the trailing ones needs the suffixLength-0 escapes
    /// (level_prefix 14: levelCode 14..=29; level_prefix 15: levelCode >= 30).
    prefix14: usize,
    prefix15: usize,
    /// A level within 64 of the largest Baseline codes everywhere.
    near_limit: usize,
}

fn cover(c: &mut Coverage, coeffs: &[i32], nc: i32) {
    let table = match nc {
        -1 => 4,
        0..=1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        _ => 3,
    };
    c.tables[table] += 1;
    let nonzero: Vec<i32> = coeffs.iter().rev().copied().filter(|&l| l != 0).collect();
    c.all_zero += nonzero.is_empty() as usize;
    c.all_nonzero += (nonzero.len() == coeffs.len()) as usize;
    let t1 = nonzero.iter().take(3).take_while(|l| l.abs() == 1).count();
    if t1 == 3 && nonzero.get(3).is_some_and(|l| l.abs() == 1) {
        c.ones_after_t1s += 1;
    }
    if let Some(&first) = nonzero.get(t1) {
        // suffixLength 0 unless more than 10 coefficients and fewer than 3 trailing ones.
        if !(nonzero.len() > 10 && t1 < 3) {
            let mut code = 2 * first.unsigned_abs() - if first > 0 { 2 } else { 1 };
            if t1 < 3 {
                code -= 2;
            }
            c.prefix14 += (14..30).contains(&code) as usize;
            c.prefix15 += (code >= 30) as usize;
        }
    }
    c.near_limit += nonzero
        .iter()
        .any(|l| l.abs() > parvlc::cavlc::testframes::MAX_CODABLE_LEVEL - 64)
        as usize;
}

fn check_slots(got: &SlotCodes, want: &[(u32, Vec<u32>)], what: &str) {
    assert_eq!(got.lens.len(), want.len(), "{what}: slot count");
    for (i, (len, words)) in want.iter().enumerate() {
        if got.lens[i] != *len || got.code(i) != &words[..] {
            panic!(
                "{what}: macroblock {} slot {}: got {} bits {:08x?}, want {} bits {:08x?}",
                i / MB_SLOTS,
                i % MB_SLOTS,
                got.lens[i],
                got.code(i),
                len,
                words
            );
        }
    }
}

fn check_slices(got: &[(Vec<u8>, u64)], want: &[(Vec<u8>, u64)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: slice count");
    for (s, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.1, w.1, "{what}: slice {s} bit count");
        if g.0 != w.0 {
            let at = g.0.iter().zip(&w.0).position(|(a, b)| a != b);
            panic!(
                "{what}: slice {s} ({} bits) differs from byte {at:?} on",
                w.1
            );
        }
    }
}

/// The big seeded frames: together at least 10^5 coded blocks of every kind.
struct Case {
    frame: Frame,
    slices: Vec<(Vec<u8>, u64)>,
    slots: Vec<(u32, Vec<u32>)>,
}

fn cases() -> &'static Vec<Case> {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let mut cases = Vec::new();
        let mut kinds: HashMap<BlockKind, usize> = HashMap::new();
        let mut coverage = Coverage::default();
        let mut seed = 1u64;
        // Mostly I_16x16 (one Intra16x16DC block each, the scarcest kind), some frames
        // mostly I_NxN; one slice and several.
        while cases.len() < 4
            || BlockKind::ALL
                .iter()
                .any(|k| kinds.get(k).copied().unwrap_or(0) < 100_000)
        {
            let mut spec = RandomFrame::new(128, 64);
            spec.intra16x16 = if seed.is_multiple_of(4) { 0.3 } else { 0.97 };
            spec.slices = if seed.is_multiple_of(2) {
                1
            } else {
                1 + (seed as u32 % 7)
            };
            spec.sparsity = [0.2, 0.5, 0.8][seed as usize % 3];
            let frame = spec.generate(seed);
            let (slots, k, c) = reference_slots(&frame);
            for (kind, n) in k {
                *kinds.entry(kind).or_insert(0) += n;
            }
            for t in 0..5 {
                coverage.tables[t] += c.tables[t];
            }
            coverage.all_zero += c.all_zero;
            coverage.all_nonzero += c.all_nonzero;
            coverage.ones_after_t1s += c.ones_after_t1s;
            coverage.prefix14 += c.prefix14;
            coverage.prefix15 += c.prefix15;
            coverage.near_limit += c.near_limit;
            cases.push(Case {
                slices: reference(&frame),
                frame,
                slots,
            });
            seed += 1;
        }
        eprintln!(
            "{} frames, coded blocks per kind: {kinds:?}, {coverage:?}",
            cases.len()
        );
        // Every hard case, many times over (the generator is drawn to hit them).
        assert!(coverage.tables.iter().all(|&n| n >= 10_000), "{coverage:?}");
        for n in [
            coverage.all_zero,
            coverage.all_nonzero,
            coverage.ones_after_t1s,
            coverage.prefix14,
            coverage.prefix15,
            coverage.near_limit,
        ] {
            assert!(n >= 1_000, "{coverage:?}");
        }
        cases
    })
}

fn encoder(gpu: &Gpu, config: CavlcConfig) -> CavlcGpu {
    CavlcGpu::with_config(gpu, config).expect("pipelines build")
}

/// Encode on the GPU: the slots, the slices, and the fallbacks taken.
fn run(
    gpu: &Gpu,
    enc: &CavlcGpu,
    frame: &Frame,
    variant: GpuVariant,
) -> parvlc::Result<(SlotCodes, Slices, u32)> {
    let input = enc.upload(gpu, frame)?;
    let mut ce = gpu.device.create_command_encoder(&Default::default());
    let pending = enc.encode_into(gpu, &mut ce, &input, variant, true, false)?;
    gpu.queue.submit([ce.finish()]);
    let slots = pollster::block_on(enc.read_slots(gpu, &pending, frame))?;
    let encoded = pollster::block_on(enc.finish(gpu, pending, frame))?;
    Ok((slots, encoded.slices, encoded.fallbacks))
}

fn check_variant(gpu: &Gpu, config: CavlcConfig, variant: GpuVariant) {
    let enc = encoder(gpu, config);
    for (i, case) in cases().iter().enumerate() {
        let what = format!("{} frame {i} ({:?})", variant.name(), gpu.flavour());
        let (slots, slices, _) = run(gpu, &enc, &case.frame, variant).expect("GPU encodes");
        check_slots(&slots, &case.slots, &what);
        check_slices(&slices, &case.slices, &what);
    }
}

#[test]
fn cpu_twins_equal_reference() {
    for case in cases().iter().take(3) {
        let codes = block_codes_cpu(&case.frame).expect("twin encodes");
        check_slots(&codes, &case.slots, "block_codes_cpu");
        check_slices(&pack_cpu(&case.frame, &codes), &case.slices, "pack_cpu");
        for parallel in [false, true] {
            let got = encode_frame_cpu(&case.frame, parallel).expect("CPU encodes");
            check_slices(
                &got,
                &case.slices,
                &format!("encode_frame_cpu parallel={parallel}"),
            );
        }
    }
}

#[test]
fn cavlcu_equals_reference() {
    check_variant(common::gpu(), CavlcConfig::default(), GpuVariant::Cavlcu);
}

#[test]
fn recompute_equals_reference() {
    check_variant(common::gpu(), CavlcConfig::default(), GpuVariant::Recompute);
}

#[test]
fn su_equals_reference() {
    check_variant(common::gpu(), CavlcConfig::default(), GpuVariant::Su);
}

/// cavlcu with the spin budget 0: every neighbour in an earlier region is recomputed.
#[test]
fn cavlcu_fallback_forced() {
    let gpu = common::gpu();
    let enc = encoder(
        gpu,
        CavlcConfig {
            spin_budget: 0,
            ..CavlcConfig::default()
        },
    );
    for (i, case) in cases().iter().take(3).enumerate() {
        let what = format!("cavlcu spin 0, frame {i}");
        let (slots, slices, fallbacks) =
            run(gpu, &enc, &case.frame, GpuVariant::Cavlcu).expect("GPU encodes");
        check_slots(&slots, &case.slots, &what);
        check_slices(&slices, &case.slices, &what);
        // Every region but the first has a left or upper neighbour in an earlier one.
        let regions = case.frame.mb_count().div_ceil(8);
        assert!(
            fallbacks as usize >= regions - 1,
            "{what}: {fallbacks} fallbacks for {regions} regions"
        );
    }
}

/// The workgroup-memory flavour (subgroups off), and the subgroup flavour where the
/// adapter has subgroups, on every variant.
#[test]
fn both_flavours() {
    let flavours = [common::gpu(), common::gpu_workgroup_flavour()];
    eprintln!(
        "flavours: {:?} and {:?}",
        flavours[0].flavour(),
        flavours[1].flavour()
    );
    assert_eq!(flavours[1].flavour(), parvlc::gpu::Flavour::Workgroup);
    if flavours[0].features.contains(wgpu::Features::SUBGROUP) {
        assert_eq!(flavours[0].flavour(), parvlc::gpu::Flavour::Subgroup);
    }
    for gpu in flavours {
        let enc = encoder(gpu, CavlcConfig::default());
        for variant in GpuVariant::ALL {
            for (i, case) in cases().iter().take(2).enumerate() {
                let what = format!("{} {:?} frame {i}", variant.name(), gpu.flavour());
                let (slots, slices, _) = run(gpu, &enc, &case.frame, variant).expect("GPU encodes");
                check_slots(&slots, &case.slots, &what);
                check_slices(&slices, &case.slices, &what);
            }
        }
    }
}

/// Region sizes from 1 to 16 macroblocks on frames narrower and wider than a region (the
/// upper neighbour in the same workgroup, in the previous one, further back), odd shapes,
/// many slices, and the packing stage's three scan strategies and forced fallback.
#[test]
fn shapes_regions_and_pack_scans() {
    let gpu = common::gpu();
    let shapes = [(1, 1), (1, 37), (3, 5), (7, 9), (17, 3), (40, 11)];
    let mut seed = 1000;
    for reg_size in [1, 3, 8, 16] {
        for strategy in [ScanStrategy::Decoupled, ScanStrategy::ReduceThenScan] {
            for spin in [0, 64] {
                let config = CavlcConfig {
                    reg_size,
                    spin_budget: spin,
                    pack_scan: ScanConfig {
                        strategy,
                        spin_budget: spin,
                        workgroup_size: if reg_size == 3 { 64 } else { 256 },
                        ..ScanConfig::default()
                    },
                };
                let enc = encoder(gpu, config);
                for &(w, h) in &shapes {
                    let mut spec = RandomFrame::new(w, h);
                    spec.slices = 1 + (seed % 5) as u32;
                    let frame = spec.generate(seed);
                    seed += 1;
                    let want = reference(&frame);
                    let (want_slots, _, _) = reference_slots(&frame);
                    for variant in GpuVariant::ALL {
                        let what = format!(
                            "{} {w}x{h} reg {reg_size} pack {} spin {spin}",
                            variant.name(),
                            strategy.name()
                        );
                        let (slots, slices, _) =
                            run(gpu, &enc, &frame, variant).expect("GPU encodes");
                        check_slots(&slots, &want_slots, &what);
                        check_slices(&slices, &want, &what);
                    }
                }
            }
        }
    }
}

/// encode_frame returns what encode_slice_data writes, per slice.
#[test]
fn encode_frame_api() {
    let gpu = common::gpu();
    let enc = CavlcGpu::new(gpu).expect("pipelines build");
    let case = &cases()[1];
    for variant in GpuVariant::ALL {
        let got = pollster::block_on(enc.encode_frame(gpu, &case.frame, variant)).expect("encodes");
        check_slices(&got, &case.slices, variant.name());
    }
    assert!("cavlcu".parse::<GpuVariant>().is_ok());
    assert!(matches!(
        "nope".parse::<GpuVariant>(),
        Err(Error::InvalidArgument(_))
    ));
}

/// Bad frames: clear errors from every path, never bits.
#[test]
fn bad_frames() {
    let gpu = common::gpu();
    let enc = CavlcGpu::new(gpu).expect("pipelines build");
    let encode_all = |frame: &Frame| -> Vec<parvlc::Result<Slices>> {
        let mut r: Vec<_> = GpuVariant::ALL
            .iter()
            .map(|&v| pollster::block_on(enc.encode_frame(gpu, frame, v)))
            .collect();
        r.push(encode_frame_cpu(frame, false));
        r.push(encode_frame_cpu(frame, true));
        r
    };
    let good = RandomFrame::new(6, 4).generate(77);
    let invalid = |frame: &Frame, needle: &str| {
        for r in encode_all(frame) {
            match r {
                Err(Error::InvalidArgument(m)) => {
                    assert!(m.contains(needle), "message {m:?} should name {needle:?}")
                }
                other => panic!("expected InvalidArgument naming {needle:?}, got {other:?}"),
            }
        }
    };
    let mut f = good.clone();
    f.levels.pop();
    invalid(&f, "levels");
    let mut f = good.clone();
    f.mbs.pop();
    invalid(&f, "headers");
    let mut f = good.clone();
    f.width_mbs = 0;
    invalid(&f, "macroblocks");
    let mut f = good.clone();
    f.mbs[5].mb_type = 25;
    invalid(&f, "mb_type");
    let mut f = good.clone();
    f.mbs[5] = MbHeader {
        coded_block_pattern: 48,
        ..MbHeader::default()
    };
    f.mbs[5].slice = good.mbs[5].slice;
    invalid(&f, "coded_block_pattern");
    let mut f = good.clone();
    f.mbs[3].mb_qp_delta = 26;
    invalid(&f, "mb_qp_delta");
    let mut f = good.clone();
    f.mbs[2].slice = 9;
    invalid(&f, "slice");
    let mut f = good.clone();
    f.mbs[4] = MbHeader::intra16x16(0, 0, 0, 0, 0, good.mbs[4].slice);
    f.mb_levels_mut(4).fill(0);
    f.mb_levels_mut(4)[16 * 3 + 5] = 1; // an AC level the pattern leaves uncoded
    invalid(&f, "uncoded");

    // Levels Baseline cannot code: the same CavlcLevelTooLarge as the reference.
    for (blk, pos, level) in [
        (5usize, 3usize, 3000i16),
        (16 + 2, 0, -2100),
        (20, 7, 32767),
    ] {
        let mut f = good.clone();
        f.mbs[1] = MbHeader {
            mb_type: 0,
            coded_block_pattern: 15 | (2 << 4),
            slice: good.mbs[1].slice,
            ..MbHeader::default()
        };
        f.mb_levels_mut(1)[blk * 16 + pos] = level;
        let tc = total_coeffs(&f);
        let want = f
            .slices()
            .into_iter()
            .find_map(|r| encode_slice_data(&f, &tc, r, &mut MsbWriter::new()).err())
            .expect("the reference refuses the level");
        assert!(matches!(want, Error::CavlcLevelTooLarge { .. }), "{want:?}");
        for r in encode_all(&f) {
            match r {
                Err(e) => assert_eq!(e.to_string(), want.to_string()),
                Ok(_) => panic!("level {level} coded instead of refused"),
            }
        }
    }
}

/// The benchmark's CAVLC suite runs, checks every variant against the CPU encoder, and
/// fills its records.
#[test]
fn bench_cavlc_runs() {
    let options = parvlc::bench::CavlcBenchOptions {
        sizes: vec![(64, 48), (100, 36)],
        qps: vec![27],
        variants: GpuVariant::ALL.to_vec(),
        slice_rows: Some(1),
        runs: 1,
        cpu_rows: true,
        config: CavlcConfig::default(),
    };
    let mut seen = 0;
    let records = parvlc::bench::run_cavlc(Some(common::gpu()), &options, &mut |r| seen += r.len())
        .expect("bench runs");
    assert_eq!(seen, records.len());
    // Per frame: 3 scopes per GPU variant, 2 CPU rows.
    assert_eq!(records.len(), 2 * (3 * 3 + 2));
    for r in &records {
        assert!(r.seconds_wall > 0.0 && r.frames_per_s > 0.0, "{r:?}");
        assert!(r.bits > 0 && r.macroblocks > 0, "{r:?}");
        assert!(r.speedup_vs_su.is_some(), "{r:?}");
        if common::gpu().has_timestamps() && r.scope != "end-to-end" {
            assert!(r.seconds_gpu.is_some(), "{r:?}");
        }
    }
    let table = parvlc::bench::cavlc_table(&records[..11]);
    assert!(
        table.contains("cavlcu") && table.contains("cpu-all-cores"),
        "{table}"
    );
}

/// su's forward scan (zigzag arrays and TotalCoeff in global memory) equals its CPU twin.
#[test]
fn su_forward_equals_twin() {
    let gpu = common::gpu();
    let enc = encoder(gpu, CavlcConfig::default());
    for case in cases().iter().take(2) {
        let input = enc.upload(gpu, &case.frame).expect("uploads");
        let mut ce = gpu.device.create_command_encoder(&Default::default());
        let pending = enc
            .encode_into(gpu, &mut ce, &input, GpuVariant::Su, false, false)
            .expect("encodes");
        gpu.queue.submit([ce.finish()]);
        let (zz, tc) = pollster::block_on(enc.read_su_forward(gpu, &pending)).expect("reads");
        let (want_zz, want_tc) = forward_cpu(&case.frame);
        assert!(zz == want_zz, "su forward: zigzag arrays differ");
        assert!(tc == want_tc, "su forward: TotalCoeffs differ");
        // Only an su encode has them.
        let mut ce = gpu.device.create_command_encoder(&Default::default());
        let other = enc
            .encode_into(gpu, &mut ce, &input, GpuVariant::Cavlcu, false, false)
            .expect("encodes");
        gpu.queue.submit([ce.finish()]);
        assert!(pollster::block_on(enc.read_su_forward(gpu, &other)).is_err());
    }
}

#[test]
fn frames_read_back_with_their_work_at_any_stream_quota() {
    // finish_recorded reads each stream's first `quota` bytes with the frames' work and
    // the rest of a longer one in a second readback: every quota gives the reference
    // slices, for several frames at once (all streams longer than the quota, some, none).
    let gpu = common::gpu();
    let enc = encoder(gpu, CavlcConfig::default());
    let frames: Vec<&Case> = cases().iter().take(3).collect();
    for quota in [0u64, 4, 1000, 40_000, 1 << 30] {
        let inputs: Vec<_> = frames
            .iter()
            .map(|c| enc.upload(gpu, &c.frame).expect("uploads"))
            .collect();
        let mut ce = gpu.device.create_command_encoder(&Default::default());
        let pending = inputs
            .iter()
            .map(|i| {
                enc.encode_into(gpu, &mut ce, i, GpuVariant::Cavlcu, true, false)
                    .expect("records")
            })
            .collect::<Vec<_>>();
        let recorded = enc
            .record_finish(gpu, &mut ce, &pending, quota)
            .expect("records the readback");
        gpu.queue.submit([ce.finish()]);
        let got = pollster::block_on(enc.finish_recorded(gpu, pending, recorded)).expect("reads");
        assert_eq!(got.len(), frames.len());
        for (k, (g, c)) in got.iter().zip(&frames).enumerate() {
            check_slices(&g.slices, &c.slices, &format!("quota {quota}, frame {k}"));
        }
    }
}
