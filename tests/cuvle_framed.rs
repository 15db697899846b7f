//! Framed CUVLE (a code table per frame, a gap of zero bits before each): the GPU against
//! its CPU twin bit for bit, block and frame offsets included, and the twin decoded back
//! frame by frame with each frame's own table; across gaps, start and tail bits, bit
//! orders, block, frame and segment shapes, and every scan strategy with the decoupled
//! fallback forced.
mod common;
use common::{same_bits, serial, table_for};

use parvlc::gpu::Gpu;
use parvlc::huffman::cpu::Decoder;
use parvlc::huffman::cuvle::{CuvleConfig, Encoded, Pending, Plan, VleEncoder};
use parvlc::huffman::framed::{encode_cuvle_cpu_framed, FrameSpec, FramedBits, Framing};
use parvlc::huffman::histogram::histogram_cpu;
use parvlc::huffman::{BitBuf, BitOrder, CodeTable, Codebook};
use parvlc::scan::{ScanConfig, ScanStrategy};
use parvlc::testdata::{generate, SplitMix64};
use parvlc::Error;

const ORDERS: [BitOrder; 2] = [BitOrder::MsbFirst, BitOrder::LsbFirst];
const GAPS: [u32; 7] = [0, 1, 7, 31, 33, 300, 517];

/// 64 threads of 4 words: 1 KiB blocks, so small inputs have many.
fn config(strategy: ScanStrategy, spin_budget: u32, max_segment_bytes: Option<u64>) -> CuvleConfig {
    CuvleConfig {
        net: 4,
        scan: ScanConfig {
            strategy,
            spin_budget,
            workgroup_size: 64,
            ..ScanConfig::default()
        },
        max_segment_bytes,
        stage_words: None,
        host_output: false,
    }
}

const BLOCK: usize = 1024;

struct Case {
    data: Vec<u8>,
    tables: Vec<CodeTable>,
    frames: Vec<FrameSpec>,
}

impl Case {
    fn framing(&self, order: BitOrder, start_bit: u32, tail_bits: u32) -> Framing<'_> {
        Framing {
            tables: &self.tables,
            frames: &self.frames,
            order,
            start_bit,
            tail_bits,
        }
    }

    /// Byte range of frame `k`.
    fn bytes(&self, k: usize) -> std::ops::Range<usize> {
        let start = self.frames[k].first_block as usize * BLOCK;
        let end = self
            .frames
            .get(k + 1)
            .map_or(self.data.len(), |f| f.first_block as usize * BLOCK);
        start..end.min(self.data.len())
    }
}

/// `n_bytes` bytes in frames of 1..=`max_frame` blocks, none across a multiple of `cut`
/// blocks (a window boundary). Each frame draws its bytes from an alphabet of its own (so
/// a table made for one frame lacks bytes another has) at its own entropy; about one
/// frame in four shares the previous frame's alphabet and table. Gaps cycle through
/// [`GAPS`]; code length limits vary per table.
fn case(seed: u64, n_bytes: usize, max_frame: u64, cut: u64) -> Case {
    let mut rng = SplitMix64(seed);
    let n_blocks = n_bytes.div_ceil(BLOCK) as u64;
    let mut frames = Vec::new();
    let mut groups: Vec<Vec<u8>> = Vec::new();
    let mut data = Vec::with_capacity(n_bytes);
    let mut alphabet: Vec<u8> = Vec::new();
    let mut b = 0u64;
    while b < n_blocks {
        let len = (1 + rng.below(max_frame))
            .min(n_blocks - b)
            .min(cut - b % cut);
        if groups.is_empty() || rng.below(4) != 0 {
            let mut all: Vec<u8> = (0..=255).collect();
            for i in (1..all.len()).rev() {
                all.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let size = [1, 2, 17, 100, 256][rng.below(5) as usize];
            alphabet = all[..size].to_vec();
            groups.push(Vec::new());
        }
        let bytes = ((b + len) as usize * BLOCK).min(n_bytes) - b as usize * BLOCK;
        let raw = generate(bytes, 1.0 + rng.below(7) as f64, rng.next_u64());
        let frame: Vec<u8> = raw
            .iter()
            .map(|&x| alphabet[x as usize % alphabet.len()])
            .collect();
        groups.last_mut().unwrap().extend_from_slice(&frame);
        data.extend_from_slice(&frame);
        frames.push(FrameSpec {
            first_block: b as u32,
            table: groups.len() as u32 - 1,
            gap_bits: GAPS[(seed as usize + frames.len()) % GAPS.len()],
        });
        b += len;
    }
    let tables = groups
        .iter()
        .map(|g| table_for(g, [12u8, 16, 24, 32][rng.below(4) as usize]))
        .collect();
    Case {
        data,
        tables,
        frames,
    }
}

/// Stream bit `i` of an MSB-first stream.
fn bit(msb: &[u8], i: u64) -> u8 {
    (msb[(i / 8) as usize] >> (7 - i % 8)) & 1
}

/// The twin's stream read back: zeros before the start bit, in every gap and in the
/// tail; every frame decoded with its own table, block by block from the reported block
/// offsets, equal to its bytes and ending where the next frame's gap begins.
fn decodes_back(case: &Case, framing: &Framing<'_>, twin: &FramedBits, what: &str) {
    let stream = &twin.stream;
    let msb: Vec<u8> = match framing.order {
        BitOrder::MsbFirst => stream.bytes.clone(),
        BitOrder::LsbFirst => stream.bytes.iter().map(|b| b.reverse_bits()).collect(),
    };
    let zero = |range: std::ops::Range<u64>, name: &str| {
        if let Some(i) = range.clone().find(|&i| bit(&msb, i) != 0) {
            panic!("{what}: bit {i} of the {name} {range:?} is set");
        }
    };
    zero(0..framing.start_bit as u64, "start");
    zero(stream.bits - framing.tail_bits as u64..stream.bits, "tail");
    assert_eq!(twin.frame_offsets.len(), case.frames.len(), "{what}");
    for (k, f) in case.frames.iter().enumerate() {
        let at = twin.frame_offsets[k];
        zero(at - f.gap_bits as u64..at, &format!("gap of frame {k}"));
        let bytes = case.bytes(k);
        let first = f.first_block as usize;
        let blocks = &twin.block_offsets[first..first + bytes.len().div_ceil(BLOCK)];
        assert_eq!(blocks[0], at, "{what}: frame {k} starts at its first block");
        let table = &case.tables[f.table as usize];
        let decoder = Decoder::new(&Codebook::from_lengths(&table.lengths).unwrap()).unwrap();
        let (out, ends) = decoder
            .decode_blocks_ends(&msb, blocks, BLOCK, bytes.len())
            .unwrap_or_else(|e| panic!("{what}: frame {k} does not decode: {e}"));
        assert!(
            out == case.data[bytes],
            "{what}: frame {k} decodes to other bytes"
        );
        let end = match case.frames.get(k + 1) {
            Some(next) => twin.frame_offsets[k + 1] - next.gap_bits as u64,
            None => stream.bits - framing.tail_bits as u64,
        };
        assert_eq!(
            *ends.last().unwrap(),
            end,
            "{what}: frame {k} ends where the next gap begins"
        );
    }
}

/// Encode on the GPU with the step API (chunks of one block, so frames may start at any
/// block) and check it against the twin, which must decode back. None: a chained error
/// accepted on a software adapter (lavapipe cuts long spins; see tests/cuvle.rs).
fn check(
    gpu: &Gpu,
    case: &Case,
    framing: &Framing<'_>,
    config: &CuvleConfig,
    what: &str,
) -> Option<(Encoded, Plan)> {
    let what = format!(
        "{what} [{} bytes, {} frames, {} tables, {:?}, start {}, tail {}, {} spin {} max_segment {:?}]",
        case.data.len(),
        case.frames.len(),
        case.tables.len(),
        framing.order,
        framing.start_bit,
        framing.tail_bits,
        config.scan.strategy.name(),
        config.scan.spin_budget,
        config.max_segment_bytes,
    );
    let twin = encode_cuvle_cpu_framed(&case.data, framing, config)
        .unwrap_or_else(|e| panic!("{what}: twin: {e}"));
    decodes_back(case, framing, &twin, &what);
    let mut got = None;
    // Into device memory, cleared and copied back; and written in place, the block ends
    // placed by the host, where the adapter maps storage.
    for host_output in [false, true] {
        let config = CuvleConfig {
            host_output,
            ..*config
        };
        let what = format!("{what} host_output {host_output}");
        got = Some(check_gpu(gpu, case, framing, &config, &twin, &what)?);
        let in_place = got.as_ref().is_some_and(|(g, _)| g.written_in_place);
        let can = host_output
            && gpu
                .features
                .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS)
            && config.stage_words.is_none();
        assert_eq!(in_place, can, "{what}: written in place");
    }
    got
}

/// The GPU's half of [`check`], on one config.
fn check_gpu(
    gpu: &Gpu,
    case: &Case,
    framing: &Framing<'_>,
    config: &CuvleConfig,
    twin: &FramedBits,
    what: &str,
) -> Option<(Encoded, Plan)> {
    let encoder = VleEncoder::new(gpu, *config)
        .unwrap()
        .with_chunk_bytes(BLOCK as u64)
        .unwrap();
    let input = encoder.upload(&case.data).unwrap();
    let histograms = pollster::block_on(encoder.histograms(&input, None)).unwrap();
    let plan = encoder.plan_framed(&input, &histograms, framing).unwrap();
    assert_eq!(plan.total_bits, twin.stream.bits, "{what}: planned bits");
    let tables = encoder.upload_frames(framing.tables, &plan).unwrap();
    let mut recorder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let pending = encoder
        .encode_framed_into(&mut recorder, &input, &tables, &plan, false)
        .unwrap();
    gpu.queue.submit([recorder.finish()]);
    let got = match pollster::block_on(encoder.finish(pending)) {
        Ok(got) => got,
        Err(e @ (Error::ScanStalled { .. } | Error::Gpu { .. }))
            if config.scan.strategy == ScanStrategy::Chained
                && gpu.info.device_type == wgpu::DeviceType::Cpu =>
        {
            eprintln!("{what}: accepted chained error on a software adapter: {e}");
            return None;
        }
        Err(e) => panic!("{what}: GPU encode failed: {e}"),
    };
    same_bits(&got.stream, &twin.stream, &format!("{what}: GPU vs twin"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        got.block_offsets, twin.block_offsets,
        "{what}: block offsets"
    );
    assert_eq!(
        got.frame_offsets, twin.frame_offsets,
        "{what}: frame offsets"
    );
    assert_eq!(got.block_bytes, BLOCK as u64, "{what}");
    if config.scan.strategy != ScanStrategy::Decoupled {
        assert_eq!(got.fallbacks, 0, "{what}: only decoupled falls back");
    }
    Some((got, plan))
}

#[test]
fn every_strategy_order_and_gap() {
    let _g = serial();
    let gpu = common::gpu();
    for (i, strategy) in ScanStrategy::ALL.into_iter().enumerate() {
        for (j, order) in ORDERS.into_iter().enumerate() {
            let seed = (i * 2 + j) as u64;
            // 30 blocks and a partial one, frames of 1 to 4 blocks.
            let case = case(seed, 30 * BLOCK + 1 + 97 * seed as usize, 4, u64::MAX);
            assert!(case.tables.len() > 2);
            let framing = case.framing(order, (seed * 7 % 32) as u32, [0, 13][j]);
            check(
                gpu,
                &case,
                &framing,
                &config(strategy, 64, None),
                "strategy x order",
            );
        }
    }
}

/// A profiled encode (the stream pipeline's trace-level timeline) writes the same bits,
/// and brings its passes' times back in the output's readback: labelled, and placed on
/// the GPU's clock after the histograms' (read by their own profiler).
#[test]
fn a_profiled_encode_reads_its_times_back_with_its_output() {
    let _g = serial();
    let gpu = common::gpu();
    let config = config(ScanStrategy::Decoupled, 64, None);
    let case = case(5, 40 * BLOCK + 3, 4, u64::MAX);
    let framing = case.framing(BitOrder::LsbFirst, 5, 0);
    let (plain, _) = check(gpu, &case, &framing, &config, "unprofiled").unwrap();
    let encoder = VleEncoder::new(gpu, config)
        .unwrap()
        .with_chunk_bytes(BLOCK as u64)
        .unwrap();
    let input = encoder.upload(&case.data).unwrap();
    let mut profiler = parvlc::gpu::Profiler::new(gpu, 4);
    let histograms = pollster::block_on(encoder.histograms(&input, Some(&mut profiler))).unwrap();
    let scan = pollster::block_on(profiler.timings(gpu)).unwrap();
    let plan = encoder.plan_framed(&input, &histograms, &framing).unwrap();
    let tables = encoder.upload_frames(framing.tables, &plan).unwrap();
    let mut recorder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let mut pending = encoder
        .encode_framed_into(&mut recorder, &input, &tables, &plan, true)
        .unwrap();
    encoder.record_readback(&mut recorder, &mut pending);
    gpu.queue.submit([recorder.finish()]);
    let got = pollster::block_on(encoder.finish(pending)).unwrap();
    same_bits(&got.stream, &plain.stream, "profiled vs unprofiled")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.block_offsets, plain.block_offsets);
    if !gpu.has_timestamps() {
        eprintln!("no timestamp queries on this adapter: times not checked");
        return;
    }
    let encode = &got.timings;
    assert!(
        encode.passes.iter().any(|(label, _)| *label == "cuvle"),
        "{encode:?}"
    );
    assert!(
        scan.passes.iter().any(|(label, _)| *label == "histogram"),
        "{scan:?}"
    );
    for t in [&scan, encode] {
        assert!(t.begin > 0.0 && t.begin <= t.end, "{t:?}");
        assert!(
            (t.end - t.begin - t.span).abs() <= 1e-6 * t.end.max(1.0),
            "{t:?}"
        );
    }
    assert!(
        scan.end <= encode.begin,
        "the encode ran after the histograms: {scan:?} {encode:?}"
    );
}

#[test]
fn decoupled_fallback_uses_each_blocks_own_table_and_gap() {
    let _g = serial();
    // One-block frames, so the predecessor a fallback recomputes mostly has a table of
    // its own; with subgroups where the adapter has them, and in workgroup memory.
    let case = case(20, 24 * BLOCK + 500, 1, u64::MAX);
    for gpu in [common::gpu(), common::gpu_workgroup_flavour()] {
        for (i, order) in ORDERS.into_iter().enumerate() {
            for max_segment in [None, Some(4 * BLOCK as u64)] {
                let framing = case.framing(order, [0, 31][i], 40);
                let config = config(ScanStrategy::Decoupled, 0, max_segment);
                let (got, _) = check(gpu, &case, &framing, &config, "spin 0").unwrap();
                assert!(got.fallbacks > 0, "spin 0 took no fallback");
            }
        }
    }
}

/// More chunks in one window than one dispatch has workgroups: the histogram takes
/// several dispatches, each from its own chunk on.
#[test]
fn small_chunks_histogram_in_several_dispatches() {
    let _g = serial();
    let gpu = common::gpu();
    let max_groups = gpu.limits.max_compute_workgroups_per_dimension.min(8192) as usize;
    let data = generate((max_groups + 3) * BLOCK + 5, 6.0, 21);
    let encoder = VleEncoder::new(gpu, config(ScanStrategy::Decoupled, 64, None))
        .unwrap()
        .with_chunk_bytes(BLOCK as u64)
        .unwrap();
    let input = encoder.upload(&data).unwrap();
    let got = pollster::block_on(encoder.histograms(&input, None)).unwrap();
    assert!(
        got == histogram_cpu(&data, BLOCK),
        "per-chunk histograms differ"
    );
}

#[test]
fn frames_stay_whole_in_many_segments() {
    let _g = serial();
    let gpu = common::gpu();
    for (i, strategy) in [ScanStrategy::Decoupled, ScanStrategy::ReduceThenScan]
        .into_iter()
        .enumerate()
    {
        for (cap_blocks, max_frame) in [(4u64, 3u64), (6, 2)] {
            // Windows are cut every `cap_blocks` blocks; the frames stop there too.
            let case = case(
                30 + cap_blocks + i as u64,
                40 * BLOCK + 3,
                max_frame,
                cap_blocks,
            );
            let order = ORDERS[i];
            let framing = case.framing(order, 17, 300);
            let config = config(strategy, 64, Some(cap_blocks * BLOCK as u64));
            let (got, plan) = check(gpu, &case, &framing, &config, "segments").unwrap();
            assert!(
                got.segments >= 40 / cap_blocks as usize,
                "{} segments",
                got.segments
            );
            let starts: Vec<u64> = case.frames.iter().map(|f| f.first_block as u64).collect();
            let segs = plan.segment_starts();
            for s in &segs {
                assert!(starts.contains(s), "segment at block {s} cuts a frame");
            }
            assert!(
                segs.len() < starts.len(),
                "some segment holds several frames"
            );
        }
    }
}

#[test]
fn a_frame_larger_than_a_segment_is_cut_exactly() {
    let _g = serial();
    let gpu = common::gpu();
    let mut case = case(40, 12 * BLOCK + 10, 1, u64::MAX);
    // Frames at blocks 0, 1 and 9: the middle one spans 8 blocks, segments hold 3.
    case.tables = vec![table_for(&case.data, 16), table_for(&case.data, 12)];
    case.frames = vec![
        FrameSpec {
            first_block: 0,
            table: 0,
            gap_bits: 5,
        },
        FrameSpec {
            first_block: 1,
            table: 1,
            gap_bits: 33,
        },
        FrameSpec {
            first_block: 9,
            table: 0,
            gap_bits: 300,
        },
    ];
    for order in ORDERS {
        let framing = case.framing(order, 3, 8);
        let config = config(ScanStrategy::Decoupled, 64, Some(3 * BLOCK as u64));
        let (_, plan) = check(gpu, &case, &framing, &config, "cut frame").unwrap();
        let segs = plan.segment_starts();
        assert!(segs.iter().any(|&s| s > 1 && s < 9), "{segs:?}");
    }
}

#[test]
fn start_and_tail_bits() {
    let _g = serial();
    let gpu = common::gpu();
    // Three frames over 4 blocks and 3 bytes.
    let case = case(50, 4 * BLOCK + 3, 2, u64::MAX);
    let config = config(ScanStrategy::Decoupled, 64, None);
    for start in 0..32u32 {
        let tail = [0u32, 1, 31, 33, 1000][start as usize % 5];
        let framing = case.framing(ORDERS[start as usize % 2], start, tail);
        check(gpu, &case, &framing, &config, "start x tail");
    }
}

#[test]
fn long_codes_single_symbol_frames_and_short_last_blocks() {
    let _g = serial();
    let gpu = common::gpu();
    let wide = Codebook::from_lengths(&[32u8; 256])
        .unwrap()
        .table()
        .unwrap();
    for last in [1usize, 2, 3, 4, 15, 16, 17, BLOCK - 1] {
        let mut case = case(60 + last as u64, 6 * BLOCK + last, 2, u64::MAX);
        // Frame 1 takes 32-bit codes (no packed table, no pairs); one frame is a single
        // byte value repeated.
        case.tables.push(wide.clone());
        case.frames[1].table = case.tables.len() as u32 - 1;
        let run = case.bytes(0);
        case.data[run.clone()].fill(0x5a);
        case.tables.push(table_for(&case.data[run], 16));
        case.frames[0].table = case.tables.len() as u32 - 1;
        for order in ORDERS {
            let framing = case.framing(order, last as u32 % 32, 7);
            check(
                gpu,
                &case,
                &framing,
                &config(ScanStrategy::Decoupled, 64, None),
                "wide",
            );
        }
    }
}

#[test]
fn an_empty_input_is_its_gap() {
    let _g = serial();
    let gpu = common::gpu();
    let table = table_for(b"ab", 8);
    let frames = [FrameSpec {
        first_block: 0,
        table: 0,
        gap_bits: 40,
    }];
    let framing = Framing {
        tables: std::slice::from_ref(&table),
        frames: &frames,
        order: BitOrder::LsbFirst,
        start_bit: 3,
        tail_bits: 9,
    };
    let config = config(ScanStrategy::Decoupled, 64, None);
    let twin = encode_cuvle_cpu_framed(&[], &framing, &config).unwrap();
    let want = BitBuf {
        bytes: vec![0; 7],
        bits: 52,
    };
    assert_eq!(twin.stream, want);
    assert_eq!(twin.frame_offsets, [43]);
    let encoder = VleEncoder::new(gpu, config)
        .unwrap()
        .with_chunk_bytes(BLOCK as u64)
        .unwrap();
    let got = pollster::block_on(encoder.encode_framed(&[], &framing)).unwrap();
    assert_eq!(got.stream, want);
    assert_eq!(got.frame_offsets, [43]);
    assert!(got.block_offsets.is_empty());
}

#[test]
fn a_single_table_encode_is_one_frame() {
    let _g = serial();
    let gpu = common::gpu();
    let data = generate(5 * BLOCK + 7, 5.0, 70);
    let table = table_for(&data, 16);
    let config = config(ScanStrategy::Decoupled, 64, None);
    let encoder = VleEncoder::new(gpu, config).unwrap();
    let got = pollster::block_on(encoder.encode(&data, &table, BitOrder::MsbFirst, 9)).unwrap();
    assert_eq!(got.frame_offsets, [9]);
    // The same through the framed kernel: one frame, no gap, no tail.
    let frames = [FrameSpec {
        first_block: 0,
        table: 0,
        gap_bits: 0,
    }];
    let framing = Framing {
        tables: std::slice::from_ref(&table),
        frames: &frames,
        order: BitOrder::MsbFirst,
        start_bit: 9,
        tail_bits: 0,
    };
    let framed = pollster::block_on(encoder.encode_framed(&data, &framing)).unwrap();
    assert_eq!(framed.stream, got.stream);
    assert_eq!(framed.block_offsets, got.block_offsets);
}

/// The message of a framed encode's error, on the CPU twin and the GPU alike.
fn framing_error(gpu: &Gpu, case: &Case, framing: &Framing<'_>, chunk: u64) -> [String; 2] {
    let config = config(ScanStrategy::Decoupled, 64, None);
    let encoder = VleEncoder::new(gpu, config)
        .unwrap()
        .with_chunk_bytes(chunk)
        .unwrap();
    let gpu_err = pollster::block_on(encoder.encode_framed(&case.data, framing))
        .expect_err("the GPU accepted bad frames")
        .to_string();
    let cpu_err = match encode_cuvle_cpu_framed(&case.data, framing, &config) {
        // Chunk alignment is the GPU plan's own rule.
        Ok(_) if chunk != BLOCK as u64 => gpu_err.clone(),
        Ok(_) => panic!("the twin accepted bad frames"),
        Err(e) => e.to_string(),
    };
    [gpu_err, cpu_err]
}

#[test]
fn bad_frames_are_named() {
    let _g = serial();
    let gpu = common::gpu();
    let good = case(80, 6 * BLOCK, 2, u64::MAX);
    let with = |f: &dyn Fn(&mut Case)| {
        let mut c = Case {
            data: good.data.clone(),
            tables: good.tables.clone(),
            frames: good.frames.clone(),
        };
        f(&mut c);
        c
    };
    let order = BitOrder::MsbFirst;
    let expect = |case: &Case, chunk: u64, start: u32, words: &[&str]| {
        for e in framing_error(gpu, case, &case.framing(order, start, 0), chunk) {
            assert!(words.iter().all(|w| e.contains(w)), "{words:?} not in: {e}");
        }
    };
    // A byte of frame 1 without a code in its table (another frame's alphabet).
    let lacking = with(&|c| {
        let b = c.bytes(1).start;
        let missing = (0..=255u8)
            .find(|&s| c.tables[c.frames[1].table as usize].lengths[s as usize] == 0)
            .unwrap();
        c.data[b] = missing;
    });
    expect(&lacking, BLOCK as u64, 0, &["frame 1", "has no code"]);
    expect(
        &with(&|c| c.frames[0].first_block = 1),
        BLOCK as u64,
        0,
        &["block 0"],
    );
    expect(
        &with(&|c| c.frames.swap(1, 2)),
        BLOCK as u64,
        0,
        &["no blocks"],
    );
    expect(
        &with(&|c| {
            c.frames.push(FrameSpec {
                first_block: 6,
                table: 0,
                gap_bits: 0,
            })
        }),
        BLOCK as u64,
        0,
        &["frame", "no blocks"],
    );
    expect(
        &with(&|c| c.frames[1].table = 99),
        BLOCK as u64,
        0,
        &["table 99"],
    );
    expect(&good, BLOCK as u64, 32, &["start bit 32"]);
    // Chunks of 2 blocks: a frame starting on an odd block is not on a boundary.
    let odd = with(&|c| {
        c.frames = vec![
            FrameSpec {
                first_block: 0,
                table: 0,
                gap_bits: 0,
            },
            FrameSpec {
                first_block: 3,
                table: 0,
                gap_bits: 0,
            },
        ];
        c.tables = vec![table_for(&c.data, 16)];
    });
    expect(
        &odd,
        2 * BLOCK as u64,
        0,
        &["frame 1", "byte 3072", "chunk"],
    );
    // Chunks that are no power of two, or below a block.
    let encoder = VleEncoder::new(gpu, config(ScanStrategy::Decoupled, 64, None)).unwrap();
    assert!(encoder.with_chunk_bytes(3 * BLOCK as u64).is_err());
    let encoder = VleEncoder::new(gpu, config(ScanStrategy::Decoupled, 64, None)).unwrap();
    assert!(encoder.with_chunk_bytes(BLOCK as u64 / 2).is_err());
}

#[test]
fn plans_and_tables_are_not_mixed_up() {
    let _g = serial();
    let gpu = common::gpu();
    let case = case(90, 5 * BLOCK, 2, u64::MAX);
    let framing = case.framing(BitOrder::LsbFirst, 0, 0);
    let encoder = VleEncoder::new(gpu, config(ScanStrategy::Decoupled, 64, None))
        .unwrap()
        .with_chunk_bytes(BLOCK as u64)
        .unwrap();
    let input = encoder.upload(&case.data).unwrap();
    let histograms = pollster::block_on(encoder.histograms(&input, None)).unwrap();
    let framed = encoder.plan_framed(&input, &histograms, &framing).unwrap();
    let single = encoder
        .plan(
            &input,
            &histograms,
            &table_for(&case.data, 16),
            BitOrder::LsbFirst,
            0,
        )
        .unwrap();
    let mut recorder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let table = encoder.upload_table(&case.tables[0]);
    let e = encoder
        .encode_into(&mut recorder, &input, &table, &framed, false)
        .err()
        .unwrap();
    assert!(e.to_string().contains("encode_framed_into"), "{e}");
    assert!(encoder.upload_frames(&case.tables, &single).is_err());
    let tables = encoder.upload_frames(&case.tables, &framed).unwrap();
    assert!(encoder
        .encode_framed_into(&mut recorder, &input, &tables, &single, false)
        .is_err());
    // Other tables than the plan's, and tables uploaded for another plan.
    let wide = vec![
        Codebook::from_lengths(&[32u8; 256])
            .unwrap()
            .table()
            .unwrap();
        case.tables.len()
    ];
    assert!(encoder.upload_frames(&wide, &framed).is_err());
    assert!(encoder.upload_frames(&case.tables[1..], &framed).is_err());
    let mut swapped = case.tables.clone();
    swapped.swap(0, 1);
    assert_ne!(swapped[0].lengths, swapped[1].lengths);
    let e = encoder.upload_frames(&swapped, &framed).err().unwrap();
    assert!(e.to_string().contains("table 0"), "{e}");
    let mut frames = case.frames.clone();
    frames[1].gap_bits += 1;
    let other = encoder
        .plan_framed(
            &input,
            &histograms,
            &Framing {
                frames: &frames,
                ..framing
            },
        )
        .unwrap();
    assert!(encoder
        .encode_framed_into(&mut recorder, &input, &tables, &other, false)
        .is_err());
    assert!(encoder
        .encode_framed_into(&mut recorder, &input, &tables, &framed, false)
        .is_ok());
}

/// Kernel time of framed coding beside the single-table kernel on the same bytes, for a
/// GPU machine (`--ignored --nocapture`): `PARVLC_FRAMED_BYTES` bytes (1 GiB) at 4.5 bits
/// per byte, in frames of each of `PARVLC_FRAMED_FRAMES` bytes (16 KiB, 1 MiB): one
/// table for the whole input; the framed kernel with that one table (no gap, then 300-bit
/// gaps); and each frame with the table of its own bytes after a 300-bit gap. After a
/// warm-up of 0.3 s, two rounds of each, best of 5 runs of the first kernel's start to
/// the last one's end (as `parvlc bench`); every framed output checked against the twin.
#[test]
#[ignore = "a timing run for a GPU machine"]
fn framed_kernel_time() {
    let _g = serial();
    let gpu = common::gpu();
    let var = |name: &str, default: &str| std::env::var(name).unwrap_or(default.into());
    let n: usize = var("PARVLC_FRAMED_BYTES", "1073741824").parse().unwrap();
    let frame_sizes: Vec<u64> = var("PARVLC_FRAMED_FRAMES", "16384,1048576")
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    let data = generate(n, 4.5, 7);
    let config = CuvleConfig::default();
    let block = config.block_bytes();
    let order = BitOrder::LsbFirst;
    // Recorded, submitted and waited for, as `parvlc bench` times it: no readback between
    // runs, so the GPU stays busy and at its clocks.
    let time = |record: &dyn Fn(&mut wgpu::CommandEncoder) -> Pending| {
        let mut recorder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        let pending = record(&mut recorder);
        gpu.queue.submit([recorder.finish()]);
        gpu.wait_idle().unwrap();
        pollster::block_on(pending.timings(gpu)).unwrap().span
    };
    let best = |record: &dyn Fn(&mut wgpu::CommandEncoder) -> Pending| {
        let start = std::time::Instant::now();
        while start.elapsed().as_secs_f64() < 0.3 {
            time(record);
        }
        (0..5).map(|_| time(record)).fold(f64::MAX, f64::min)
    };
    for frame in frame_sizes {
        let encoder = VleEncoder::new(gpu, config)
            .unwrap()
            .with_chunk_bytes(frame)
            .unwrap();
        let input = encoder.upload(&data).unwrap();
        let histograms = pollster::block_on(encoder.histograms(&input, None)).unwrap();
        let book = |h: &[u64; 256]| Codebook::from_frequencies(h, 15).unwrap().table().unwrap();
        let one = book(&parvlc::huffman::histogram::total_histogram(&histograms));
        let plan = encoder.plan(&input, &histograms, &one, order, 0).unwrap();
        let table = encoder.upload_table(&one);
        let single = |r: &mut wgpu::CommandEncoder| {
            encoder.encode_into(r, &input, &table, &plan, true).unwrap()
        };
        let own: Vec<CodeTable> = histograms.iter().map(book).collect();
        let shared = vec![one.clone()];
        let framed = |tables: &[CodeTable], gap_bits: u32, per_frame: bool| {
            let frames: Vec<FrameSpec> = (0..histograms.len())
                .map(|k| FrameSpec {
                    first_block: (k as u64 * frame / block) as u32,
                    table: if per_frame { k as u32 } else { 0 },
                    gap_bits,
                })
                .collect();
            let framing = Framing {
                tables,
                frames: &frames,
                order,
                start_bit: 0,
                tail_bits: 0,
            };
            let plan = encoder.plan_framed(&input, &histograms, &framing).unwrap();
            let uploaded = encoder.upload_frames(tables, &plan).unwrap();
            let twin = encode_cuvle_cpu_framed(&data, &framing, &config).unwrap();
            (plan, uploaded, twin)
        };
        let variants = [
            (
                "one table, framed kernel, no gaps",
                framed(&shared, 0, false),
            ),
            (
                "one table, framed kernel, gaps",
                framed(&shared, 300, false),
            ),
            ("a table per frame, gaps", framed(&own, 300, true)),
        ];
        // Each framed output checked once, off the clock.
        for (name, (plan, uploaded, twin)) in &variants {
            let mut recorder = gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
            let pending = encoder
                .encode_framed_into(&mut recorder, &input, uploaded, plan, false)
                .unwrap();
            gpu.queue.submit([recorder.finish()]);
            let got = pollster::block_on(encoder.finish(pending)).unwrap();
            same_bits(&got.stream, &twin.stream, name).unwrap();
        }
        let report = |round: usize, name: &str, t: f64| {
            println!(
                "{n} bytes, frames of {frame} bytes, round {round}: {name}: {:.1} GB/s ({:.3} ms)",
                n as f64 / t / 1e9,
                t * 1e3
            )
        };
        for round in 0..2 {
            report(round, "single-table kernel", best(&single));
            for (name, (plan, uploaded, _)) in &variants {
                let t = best(&|r| {
                    encoder
                        .encode_framed_into(r, &input, uploaded, plan, true)
                        .unwrap()
                });
                report(round, name, t);
            }
        }
    }
}
