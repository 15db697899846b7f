//! The framed containers (native v2, framed gzip) and the streaming compressor on the
//! CPU engine: round trips through gzip(1), flate2 and our decoder across chunk and
//! frame boundaries at every alignment, the std::io adapters, old native files, and
//! corrupted frames named in the error.

mod common;

use std::io::{Read, Write};

use common::gzip_members::{members, with_index_v1, with_index_v2, without_index, ENTRY_FIELDS};
use common::judges::{flate2_decode, gzip_tool_decode, gzip_tool_encode, gzip_tool_test};
use common::rng::Rng;
use parvlc::huffman::compress::{compress_cpu, decompress, Format};
use parvlc::huffman::cuvle::CuvleConfig;
use parvlc::huffman::frames::FrameConfig;
use parvlc::huffman::gzip_index::{MAX_INDEX_BYTES, MAX_MEMBER_FRAMES};
use parvlc::huffman::pipeline::{
    compress_framed, compress_stream, compress_to_vec, compress_to_vec_in_room, CompressWriter,
    DecompressReader, FramePlanner, StreamConfig, StreamInput,
};
use parvlc::huffman::stream::{decompress_to, decompress_to_batched, Decompressed};
use parvlc::scan::ScanConfig;
use parvlc::{Engine, Error};

/// 512-byte blocks and cells, 2 KiB frames at most, 4 KiB chunks: small inputs cross
/// many of each.
fn tiny() -> StreamConfig {
    StreamConfig {
        chunk_bytes: 4096,
        depth: 2,
        frames: FrameConfig {
            cell_bytes: 512,
            max_frame_bytes: 2048,
            fixed: false,
        },
        cuvle: CuvleConfig {
            net: 4,
            scan: ScanConfig {
                workgroup_size: 32,
                ..ScanConfig::default()
            },
            ..CuvleConfig::default()
        },
        planner: FramePlanner::default(),
    }
}

/// Mixed data: runs of text-like, random and constant bytes, so frames differ.
fn mixed(len: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut v = Vec::with_capacity(len);
    while v.len() < len {
        let run = 1 + (r.next() % 3000) as usize;
        let kind = r.next() % 4;
        for _ in 0..run.min(len - v.len()) {
            v.push(match kind {
                0 => b"etaoin shrdlu "[(r.next() % 14) as usize],
                1 => r.next() as u8,
                2 => 0x55,
                _ => (r.next() % 8) as u8,
            });
        }
    }
    v
}

fn framed(data: &[u8], format: Format, config: &StreamConfig) -> Vec<u8> {
    let (bytes, summary) =
        pollster::block_on(compress_framed(&Engine::Cpu, data, format, config)).unwrap();
    assert_eq!(summary.bytes_in, data.len() as u64);
    assert_eq!(summary.bytes_out, bytes.len() as u64);
    assert_eq!(summary.crc32, crc32fast::hash(data));
    bytes
}

/// `data` through the threaded pipeline on the CPU, read from a reader.
fn streamed(data: &[u8], format: Format, config: &StreamConfig) -> Vec<u8> {
    streamed_on(&Engine::Cpu, data, format, config).unwrap()
}

/// `data` compressed by `engine` through the streaming pipeline.
fn streamed_on(
    engine: &Engine,
    data: &[u8],
    format: Format,
    config: &StreamConfig,
) -> parvlc::Result<Vec<u8>> {
    let mut out = Vec::new();
    compress_stream(
        engine,
        format,
        config,
        StreamInput::Reader(&mut &data[..]),
        &mut out,
        &mut |_| {},
    )?;
    Ok(out)
}

fn check_round_trip(data: &[u8], format: Format, bytes: &[u8], what: &str) {
    assert!(decompress(bytes).unwrap() == data, "{what}: our decoder");
    if format == Format::Gzip {
        assert!(gzip_tool_decode(bytes) == data, "{what}: gzip -dc");
        assert!(flate2_decode(bytes) == data, "{what}: flate2");
        gzip_tool_test(bytes);
        // Every member carries its index, and our decoder used them all.
        let mut out = Vec::new();
        let done = decompress_to(&mut &bytes[..], &mut out).unwrap();
        assert!(out == data, "{what}: the indexed decoder");
        assert_eq!(done.unindexed_members, 0, "{what}: a member without index");
        assert_eq!(done.members, members(bytes).len() as u64, "{what}");
    }
}

fn decode_gzip(gz: &[u8]) -> parvlc::Result<(Vec<u8>, Decompressed)> {
    let mut out = Vec::new();
    // Small batches: several per member.
    let done = decompress_to_batched(&mut &gz[..], &mut out, 3000)?;
    Ok((out, done))
}

#[test]
fn round_trips_across_chunks_and_frames_at_every_alignment() {
    let config = tiny();
    for format in [Format::Native, Format::Gzip] {
        for len in [
            0usize, 1, 2, 511, 512, 513, 4095, 4096, 4097, 8191, 12_289, 20_000,
        ] {
            let data = mixed(len, len as u64 + 1);
            let bytes = framed(&data, format, &config);
            check_round_trip(&data, format, &bytes, &format!("{format:?}, {len} bytes"));
        }
    }
}

#[test]
fn every_cell_its_own_frame_and_single_symbol_frames() {
    let mut config = tiny();
    config.frames.fixed = true;
    let mut data = vec![7u8; 3000];
    data.extend(mixed(5000, 9));
    data.extend(vec![0u8; 1024]);
    data.push(1);
    for format in [Format::Native, Format::Gzip] {
        let bytes = framed(&data, format, &config);
        check_round_trip(&data, format, &bytes, &format!("{format:?}, fixed frames"));
    }
}

#[test]
fn per_frame_codes_beat_one_code_on_mixed_data() {
    let data = mixed(200_000, 3);
    let config = StreamConfig {
        chunk_bytes: 64 << 10,
        ..tiny()
    };
    for format in [Format::Native, Format::Gzip] {
        let framed_len = framed(&data, format, &config).len();
        let whole = compress_cpu(&data, format, 16 << 10).unwrap().bytes.len();
        assert!(
            framed_len < whole,
            "{format:?}: {framed_len} framed bytes, {whole} with one code"
        );
    }
}

#[test]
fn the_threaded_pipeline_and_the_adapters_give_the_same_bytes() {
    let config = tiny();
    let data = mixed(30_000, 5);
    for format in [Format::Native, Format::Gzip] {
        let want = framed(&data, format, &config);
        let mut out = Vec::new();
        let mut seen = Vec::new();
        let summary = compress_stream(
            &Engine::Cpu,
            format,
            &config,
            StreamInput::Reader(&mut &data[..]),
            &mut out,
            &mut |n| seen.push(n),
        )
        .unwrap();
        assert!(
            out == want,
            "{format:?}: compress_stream differs from compress_framed"
        );
        // A file: coders read their chunks at their offsets.
        let path = std::env::temp_dir().join(format!("parvlc-framed-{}", std::process::id()));
        std::fs::write(&path, &data).unwrap();
        let mut from_file = Vec::new();
        compress_stream(
            &Engine::Cpu,
            format,
            &config,
            StreamInput::File(&std::fs::File::open(&path).unwrap()),
            &mut from_file,
            &mut |_| {},
        )
        .unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(from_file == want, "{format:?}: positional reads differ");
        // Bytes in memory: each coder slices its own chunk. Lengths at and around the
        // chunk size, and none at all.
        let chunk = config.chunk_bytes;
        for len in [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk, data.len()] {
            let part = &data[..len];
            let from_reader = streamed(part, format, &config);
            let mut from_bytes = Vec::new();
            let mut heard = Vec::new();
            compress_stream(
                &Engine::Cpu,
                format,
                &config,
                StreamInput::Bytes(part),
                &mut from_bytes,
                &mut |n| heard.push(n),
            )
            .unwrap();
            assert!(
                from_bytes == from_reader,
                "{format:?}, {len} bytes: bytes in memory differ from a reader"
            );
            // Appended to what the vector holds.
            let mut to_vec = b"kept".to_vec();
            compress_to_vec(
                &Engine::Cpu,
                format,
                &config,
                part,
                &mut to_vec,
                &mut |_| {},
            )
            .unwrap();
            assert!(
                to_vec[..4] == *b"kept" && to_vec[4..] == from_bytes[..],
                "{format:?}, {len} bytes: compress_to_vec differs"
            );
            assert_eq!(
                heard.last().copied(),
                Some(len as u64),
                "{format:?}, {len} bytes"
            );
        }
        assert_eq!(summary.bytes_out, out.len() as u64);
        assert_eq!(seen.last().copied(), Some(data.len() as u64));
        assert!(seen.windows(2).all(|w| w[0] < w[1]));

        let mut w = CompressWriter::new(&Engine::Cpu, format, config, Vec::new()).unwrap();
        for piece in data.chunks(777) {
            w.write_all(piece).unwrap();
        }
        let (_, adapter) = w.finish().unwrap();
        assert!(adapter == want, "{format:?}: CompressWriter differs");

        let mut back = Vec::new();
        DecompressReader::new(std::io::Cursor::new(want))
            .read_to_end(&mut back)
            .unwrap();
        assert!(back == data, "{format:?}: DecompressReader");
    }
}

/// Every engine present (wgpu, CUDA where the feature and a driver are, the CPU) streams
/// the CPU's bytes: chunks coded side by side, frames with their own tables, inputs ending
/// at and around chunk boundaries, from a reader and into a vector; each output decodes.
#[test]
fn every_engine_streams_the_cpu_bytes() {
    let _serial = common::serial();
    let config = StreamConfig { depth: 3, ..tiny() };
    let data = mixed(9 * config.chunk_bytes + 333, 41);
    let chunk = config.chunk_bytes;
    for engine in common::engines() {
        for format in [Format::Native, Format::Gzip] {
            for len in [1, chunk - 1, chunk, 4 * chunk + 1, data.len()] {
                let part = &data[..len];
                let want = streamed(part, format, &config);
                let what = format!("{} {format:?}, {len} bytes", engine.name());
                let mut out = Vec::new();
                compress_stream(
                    engine,
                    format,
                    &config,
                    StreamInput::Reader(&mut &part[..]),
                    &mut out,
                    &mut |_| {},
                )
                .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(out == want, "{what}: other bytes than the CPU's");
                let mut to_vec = Vec::new();
                compress_to_vec(engine, format, &config, part, &mut to_vec, &mut |_| {})
                    .unwrap_or_else(|e| panic!("{what}, compress_to_vec: {e}"));
                assert!(to_vec == want, "{what}: compress_to_vec, other bytes");
                assert!(decompress(&out).unwrap() == part, "{what}: round trip");
            }
        }
    }
}

/// The CUDA coder's two planners (its frame_plan kernels, the coder's core) give the
/// CPU's bytes, in regions of a few cells and of 64 (the default's 1 MiB frames). Runs
/// where a CUDA driver and NVRTC are (PARVLC_REQUIRE_CUDA=1 makes their absence a
/// failure).
#[cfg(feature = "cuda")]
#[test]
fn the_cuda_coder_writes_the_cpus_bytes_with_either_planner() {
    let _serial = common::serial();
    let Some(engine) = common::cuda_engine() else {
        return;
    };
    let big = StreamConfig {
        chunk_bytes: 3 << 20,
        ..StreamConfig::default()
    };
    for (config, lens) in [
        (tiny(), &[1usize, 513, 4096, 9000, 20_001][..]),
        (big, &[(5 << 20) + 4321][..]),
    ] {
        for &len in lens {
            let data = mixed(len, 200 + len as u64);
            for format in [Format::Native, Format::Gzip] {
                let want = streamed(&data, format, &config);
                for planner in [FramePlanner::Gpu, FramePlanner::Host] {
                    let what = format!("{format:?}, {len} bytes, planned by {planner:?}");
                    let config = StreamConfig { planner, ..config };
                    let out = streamed_on(engine, &data, format, &config)
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert!(out == want, "{what}: CUDA differs from the CPU");
                }
            }
        }
    }
}

/// A chunk one of whose frames has a plain Huffman code deeper than 15 bits (Fibonacci
/// counts from the second 1 on, which gzip's end-of-block completes, filling a 32 KiB
/// cell) among frames of mixed data: the GPU planners leave that
/// frame's code, and its table, to the host, which writes the table into the slot the
/// device's tables leave for it. Every GPU coder (wgpu, and CUDA where present) writes
/// the CPU's bytes with either planner.
#[test]
fn a_frame_too_deep_for_the_gpu_is_coded_with_the_hosts_table() {
    use parvlc::huffman::frame_plan::plan_summaries_cpu;
    use parvlc::huffman::gzip::literal_frequencies;
    use parvlc::huffman::Codebook;
    let _serial = common::serial();
    let cell = 32usize << 10;
    let config = StreamConfig {
        chunk_bytes: 256 << 10,
        frames: FrameConfig {
            cell_bytes: cell as u64,
            max_frame_bytes: 2 * cell as u64,
            fixed: false,
        },
        ..StreamConfig::default()
    };
    let mut deep = Vec::with_capacity(cell);
    let (mut a, mut b) = (1usize, 2usize);
    for v in 1..21u8 {
        deep.extend(std::iter::repeat_n(v * 7, a));
        (a, b) = (b, a + b);
    }
    // The rest of the cell in the most frequent value: the code stays as deep.
    deep.resize(cell, 20 * 7);
    let mut data = mixed(3 * cell, 71);
    data.extend(&deep);
    data.extend(mixed(2 * cell + 999, 72));
    #[allow(unused_mut)]
    let mut engines = vec![("wgpu", common::wgpu_engine())];
    #[cfg(feature = "cuda")]
    engines.extend(common::cuda_engine().map(|e| ("CUDA", e)));
    for format in [Format::Native, Format::Gzip] {
        // The case holds: some frame of the plan is deeper than 15 bits as plain Huffman.
        let frames = plan_summaries_cpu(&data[..], format, &config.frames).unwrap();
        let plain_depth = |start: u64, len: u64| {
            let mut hist = [0u64; 256];
            for &x in &data[start as usize..(start + len) as usize] {
                hist[x as usize] += 1;
            }
            let book = match format {
                Format::Native => Codebook::from_frequencies(&hist, 32),
                Format::Gzip => Codebook::from_frequencies(&literal_frequencies(&hist), 32),
            };
            book.unwrap().max_len()
        };
        assert!(
            frames.iter().any(|f| plain_depth(f.start, f.len) > 15),
            "{format:?}: no frame is too deep for the GPU"
        );
        let want = streamed(&data, format, &config);
        for (name, engine) in &engines {
            for planner in [FramePlanner::Gpu, FramePlanner::Host] {
                let what = format!("{name}, {format:?}, planned by {planner:?}");
                let config = StreamConfig { planner, ..config };
                let out = streamed_on(engine, &data, format, &config)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(out == want, "{what}: differs from the CPU");
            }
        }
        check_round_trip(&data, format, &want, &format!("{format:?}"));
    }
}

/// Chunks of several MiB: `compress_to_vec` copies each into the vector on all cores,
/// in parts that do not divide the chunk evenly.
#[test]
fn compress_to_vec_copies_long_chunks_whole_and_in_order() {
    let config = StreamConfig {
        chunk_bytes: 5 << 20,
        depth: 2,
        ..StreamConfig::default()
    };
    let data = mixed((11 << 20) + 12_345, 9);
    for format in [Format::Native, Format::Gzip] {
        let want = streamed(&data, format, &config);
        let mut out = vec![7u8; 3];
        let summary =
            compress_to_vec(&Engine::Cpu, format, &config, &data, &mut out, &mut |_| {}).unwrap();
        assert_eq!(summary.bytes_out, want.len() as u64);
        assert!(out[..3] == [7, 7, 7], "{format:?}: the vector's own bytes");
        assert!(out[3..] == want[..], "{format:?}: compress_to_vec differs");
        check_round_trip(&data, format, &out[3..], "compress_to_vec");
    }
}

/// A sink that takes a few bytes of one piece a call and is interrupted every third
/// call: the writer's vectored writes still put every byte in order.
#[test]
fn a_sink_that_takes_little_at_a_time_gets_every_byte() {
    struct Stingy {
        out: Vec<u8>,
        calls: u64,
    }
    impl Write for Stingy {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            self.write_vectored(&[std::io::IoSlice::new(data)])
        }
        fn write_vectored(&mut self, pieces: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
            self.calls += 1;
            if self.calls.is_multiple_of(3) {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            let Some(piece) = pieces.iter().find(|p| !p.is_empty()) else {
                return Ok(0);
            };
            let n = piece.len().min(1 + (self.calls % 7) as usize * 1000);
            self.out.extend_from_slice(&piece[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let config = StreamConfig {
        chunk_bytes: 16 << 10,
        depth: 4,
        ..tiny()
    };
    let data = mixed(200_000, 13);
    for format in [Format::Native, Format::Gzip] {
        let mut sink = Stingy {
            out: Vec::new(),
            calls: 0,
        };
        let summary = compress_stream(
            &Engine::Cpu,
            format,
            &config,
            StreamInput::Bytes(&data),
            &mut sink,
            &mut |_| {},
        )
        .unwrap();
        let want = streamed(&data, format, &config);
        assert!(sink.out == want, "{format:?}: a stingy sink's bytes differ");
        assert_eq!(summary.bytes_out, want.len() as u64, "{format:?}");
        // At most 6,001 bytes a call: the writer had to come back many times.
        assert!(
            sink.calls as usize > want.len() / 6001,
            "{format:?}: {} calls",
            sink.calls
        );
    }
}

/// Many small chunks appended to a vector that holds bytes of its own, with room for
/// all of the output, for none of it, or for part of it: GPU coders write their chunks
/// into their places themselves where those are known in time and within the room, the
/// writer copies the rest there and grows the vector (again and again while chunks are
/// being copied into it); on the CPU and the GPUs (wgpu, and CUDA where the feature and
/// a driver are), with one coder and with six, the vector holds exactly the stream's
/// bytes after its own.
#[test]
fn compress_to_vec_places_chunks_in_its_room_and_grows_past_it() {
    let mut config = StreamConfig {
        chunk_bytes: 64 << 10,
        ..tiny()
    };
    // The encode's output written where the host reads it: what lets a coder copy it
    // straight into its place.
    config.cuvle.host_output = true;
    let data = mixed((24 << 16) + 777, 12);
    let chunks = data.len().div_ceil(config.chunk_bytes) as u64;
    for depth in [1, 6] {
        let config = StreamConfig { depth, ..config };
        #[allow(unused_mut)]
        let mut engines = vec![("cpu", &Engine::Cpu), ("wgpu", common::wgpu_engine())];
        #[cfg(feature = "cuda")]
        engines.extend(common::cuda_engine().map(|e| ("cuda", e)));
        for &(name, engine) in &engines {
            for format in [Format::Native, Format::Gzip] {
                let want = streamed(&data, format, &config);
                for room in [None, Some(0), Some(want.len() / 2)] {
                    let what = format!("{name} {format:?}, depth {depth}, room {room:?}");
                    let mut out = b"own bytes".to_vec();
                    out.shrink_to_fit();
                    let mut heard = Vec::new();
                    let mut progress = |n| heard.push(n);
                    let summary = match room {
                        None => {
                            compress_to_vec(engine, format, &config, &data, &mut out, &mut progress)
                        }
                        Some(room) => compress_to_vec_in_room(
                            engine,
                            format,
                            &config,
                            &data,
                            &mut out,
                            room,
                            &mut progress,
                        ),
                    }
                    .unwrap();
                    assert_eq!(summary.bytes_out, want.len() as u64, "{what}");
                    assert!(out[..9] == *b"own bytes", "{what}: the vector's own bytes");
                    assert!(out[9..] == want[..], "{what}: compress_to_vec differs");
                    assert!(heard.windows(2).all(|w| w[0] <= w[1]), "{what}: progress");
                    assert_eq!(heard.last().copied(), Some(data.len() as u64), "{what}");
                    // Which path each chunk took. One GPU coder knows every earlier
                    // chunk's place in time: it writes every chunk the room holds, none
                    // past it. Six may not know in time; none past the room either. The
                    // CPU's never.
                    let in_place = summary.chunks_in_place;
                    assert_eq!(summary.chunks, chunks, "{what}");
                    match (name, room, depth) {
                        ("cpu", _, _) | (_, Some(0), _) => assert_eq!(in_place, 0, "{what}"),
                        (_, None, 1) => assert_eq!(in_place, chunks, "{what}"),
                        (_, Some(_), 1) => {
                            assert!(in_place > 0 && in_place < chunks, "{what}: {in_place}")
                        }
                        _ => assert!(in_place < chunks || room.is_none(), "{what}: {in_place}"),
                    }
                }
            }
        }
    }
}

/// The `Write` adapter codes through the whole pipeline on a thread of its own: many
/// MiB written in odd pieces, so that both directions fill and the adapter writes coded
/// bytes while it waits, give `compress_stream`'s bytes, on the CPU and the GPU.
#[test]
fn compress_writer_streams_many_mib_through_the_pipeline() {
    let config = StreamConfig {
        chunk_bytes: 256 << 10,
        depth: 3,
        ..tiny()
    };
    let data = mixed((9 << 20) + 4321, 21);
    for (name, engine) in [("cpu", &Engine::Cpu), ("wgpu", common::wgpu_engine())] {
        for format in [Format::Native, Format::Gzip] {
            let want = streamed(&data, format, &config);
            let mut w = CompressWriter::new(engine, format, config, Vec::new()).unwrap();
            for piece in data.chunks(100_003) {
                w.write_all(piece).unwrap();
            }
            let (summary, got) = w.finish().unwrap();
            assert_eq!(summary.bytes_in, data.len() as u64, "{name} {format:?}");
            assert_eq!(summary.bytes_out, got.len() as u64, "{name} {format:?}");
            assert!(got == want, "{name} {format:?}: CompressWriter differs");
        }
    }
}

/// A sink that takes `room` bytes, then fails.
struct FullAfter {
    room: usize,
    taken: usize,
}

impl Write for FullAfter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.taken + data.len() > self.room {
            return Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "full"));
        }
        self.taken += data.len();
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A sink that fails is an error from `write` or `finish`, never a hang; an adapter
/// dropped halfway stops its pipeline (the test returns).
#[test]
fn compress_writer_reports_a_failing_sink_and_stops_when_dropped() {
    let config = StreamConfig {
        chunk_bytes: 64 << 10,
        ..tiny()
    };
    let data = mixed(6 << 20, 22);
    let mut w = CompressWriter::new(
        &Engine::Cpu,
        Format::Gzip,
        config,
        FullAfter {
            room: 100_000,
            taken: 0,
        },
    )
    .unwrap();
    let written = data.chunks(65_536).try_for_each(|p| w.write_all(p));
    let err = match written {
        Err(e) => e.to_string(),
        Ok(()) => match w.finish() {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a full sink gave no error"),
        },
    };
    assert!(err.contains("full"), "{err}");

    let mut w = CompressWriter::new(&Engine::Cpu, Format::Native, config, Vec::new()).unwrap();
    w.write_all(&data[..(3 << 20) + 5]).unwrap();
    drop(w);
    // A bad configuration is an error before any byte is taken.
    let bad = StreamConfig { depth: 0, ..config };
    assert!(CompressWriter::new(&Engine::Cpu, Format::Native, bad, Vec::new()).is_err());
}

#[test]
fn a_failing_reader_is_an_error_not_a_short_stream() {
    struct Failing(usize);
    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::other("disk on fire"));
            }
            let n = buf.len().min(self.0).min(1000);
            buf[..n].fill(3);
            self.0 -= n;
            Ok(n)
        }
    }
    let mut out = Vec::new();
    let err = compress_stream(
        &Engine::Cpu,
        Format::Gzip,
        &tiny(),
        StreamInput::Reader(&mut Failing(10_000)),
        &mut out,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("disk on fire"), "{err}");
}

#[test]
fn a_corrupted_gzip_frame_is_an_error_naming_its_member_and_frame() {
    // Members of a few frames each: an error names the member and the frame.
    let config = tiny();
    let data = mixed(40_000, 17);
    let bytes = framed(&data, Format::Gzip, &config);
    assert!(decompress(&bytes).unwrap() == data);
    // Member starts: the magic, deflate, FLG.FEXTRA.
    let starts: Vec<usize> = (0..bytes.len() - 12)
        .filter(|&i| bytes[i..i + 4] == [0x1f, 0x8b, 8, 4])
        .collect();
    assert!(starts.len() >= 5, "{} members", starts.len());
    for m in [1usize, 3] {
        let xlen = u16::from_le_bytes([bytes[starts[m] + 10], bytes[starts[m] + 11]]) as usize;
        let mut bad = bytes.clone();
        // Inside the first frame's literals, past its block header.
        bad[starts[m] + 12 + xlen + 60] ^= 0x20;
        let msg = decompress(&bad).unwrap_err().to_string();
        assert!(
            msg.contains(&format!("member {} frame 0", m + 1)),
            "member {}: {msg}",
            m + 1
        );
    }
}

#[test]
fn version_1_native_files_still_decode() {
    let data = mixed(50_000, 11);
    let v1 = compress_cpu(&data, Format::Native, 4096).unwrap().bytes;
    assert_eq!(v1[4], 1, "compress_cpu writes version 1");
    assert!(decompress(&v1).unwrap() == data);
}

#[test]
fn a_corrupted_frame_is_an_error_naming_it() {
    let config = tiny();
    let data = mixed(20_000, 13);
    let bytes = framed(&data, Format::Native, &config);
    // Frame starts: walk the records by their magic.
    let starts: Vec<usize> = (0..bytes.len() - 4)
        .filter(|&i| &bytes[i..i + 4] == b"PVLC" && bytes[i + 4] == 2)
        .collect();
    assert!(starts.len() >= 5, "{} records", starts.len());
    let third = starts[2];
    for (offset, what) in [(30usize, "code lengths"), (200, "payload")] {
        let mut bad = bytes.clone();
        let at = (third + offset).min(starts[3] - 1);
        bad[at] ^= 0x10;
        let err = decompress(&bad).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(err, Error::Corrupt { .. }) && msg.contains("frame 2"),
            "{what} flipped: {msg}"
        );
    }
    // Cut off: the end record is missing.
    let err = decompress(&bytes[..starts[3]]).unwrap_err().to_string();
    assert!(
        err.contains("truncated") && err.contains("frame 3"),
        "{err}"
    );
    // Data after the end record.
    let mut extra = bytes.clone();
    extra.push(0);
    let err = decompress(&extra).unwrap_err().to_string();
    assert!(err.contains("after the end record"), "{err}");
}

/// Where each record of a native v2 stream starts (the end record last).
fn record_starts(bytes: &[u8]) -> Vec<usize> {
    (0..bytes.len() - 4)
        .filter(|&i| &bytes[i..i + 4] == b"PVLC" && bytes[i + 4] == 2)
        .collect()
}

#[test]
fn a_regular_file_decodes_with_its_payloads_read_at_their_offsets() {
    for (len, seed) in [(0usize, 21u64), (1, 22), (20_000, 23), (300_000, 24)] {
        let data = mixed(len, seed);
        let bytes = framed(&data, Format::Native, &tiny());
        // Batches of a frame, of a few (2 KiB frames) and of all; the stream at the
        // file's start and behind bytes someone else read.
        for batch in [1usize, 5000, 1 << 20] {
            for skip in [0usize, 777] {
                let what = format!("{len} bytes, batches of {batch}, the stream at {skip}");
                let (out, done) = common::decode_as_file(&Engine::Cpu, &bytes, skip, batch)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(out == data, "{what}: other bytes");
                assert_eq!(done.format, Format::Native, "{what}");
                assert_eq!(done.bytes_out, len as u64, "{what}");
                assert_eq!(done.data_end, bytes.len() as u64, "{what}");
            }
        }
    }
    // The other formats through the same call: read in order from the file's position.
    let data = mixed(50_000, 25);
    let v1 = compress_cpu(&data, Format::Native, 4096).unwrap().bytes;
    for (what, bytes) in [("gzip", framed(&data, Format::Gzip, &tiny())), ("v1", v1)] {
        let (out, done) = common::decode_as_file(&Engine::Cpu, &bytes, 777, 5000).unwrap();
        assert!(out == data, "{what}: other bytes");
        assert_eq!(done.data_end, bytes.len() as u64, "{what}");
    }
}

#[test]
fn a_damaged_file_read_at_offsets_gives_the_streams_error() {
    let data = mixed(20_000, 13);
    let bytes = framed(&data, Format::Native, &tiny());
    let starts = record_starts(&bytes);
    assert!(starts.len() >= 6, "{} records", starts.len());
    // Frame 2's payload ends where frame 3's header starts.
    let (fourth, end) = (starts[3], starts[starts.len() - 1]);
    let flip = |at: usize| {
        let mut v = bytes.clone();
        v[at] ^= 0x10;
        v
    };
    let mut extra = bytes.clone();
    extra.push(0);
    let cases: [(&str, Vec<u8>, &[&str]); 5] = [
        (
            "payload cut short",
            bytes[..fourth - 10].to_vec(),
            &["frame 2", "payload is", "(the file is truncated)"],
        ),
        ("payload byte flipped", flip(fourth - 10), &["frame 2"]),
        (
            "cut after a frame",
            bytes[..fourth].to_vec(),
            &["frame 3", "without its end record"],
        ),
        ("end record flipped", flip(end + 10), &["end record"]),
        ("data after the end", extra, &["after the end record"]),
    ];
    for (what, bad, said) in cases {
        let want = decompress_to(&mut &bad[..], &mut Vec::new())
            .map(|_| ())
            .expect_err(what)
            .to_string();
        for batch in [1usize, 5000, 1 << 20] {
            let got = common::decode_as_file(&Engine::Cpu, &bad, 777, batch)
                .map(|_| ())
                .expect_err(what)
                .to_string();
            assert_eq!(got, want, "{what}, batches of {batch}");
            for s in said {
                assert!(got.contains(s), "{what}: `{got}` does not say `{s}`");
            }
        }
    }
}

/// Both planners of a GPU coder (the frame_plan stage, the host) give the CPU's bytes,
/// whichever the default picks for a format.
#[test]
fn the_gpu_writes_the_same_bytes_as_the_cpu() {
    let gpu = common::wgpu_engine();
    for (config, lens) in [
        (tiny(), &[0usize, 1, 513, 4096, 9000, 20_001][..]),
        (
            StreamConfig {
                chunk_bytes: 256 << 10,
                ..StreamConfig::default()
            },
            &[300_000usize][..],
        ),
    ] {
        for &len in lens {
            let data = mixed(len, 100 + len as u64);
            for format in [Format::Native, Format::Gzip] {
                let want = framed(&data, format, &config);
                // The output written in place (the default) and into device memory.
                for (planner, host_output) in [
                    (FramePlanner::Gpu, true),
                    (FramePlanner::Host, true),
                    (FramePlanner::Gpu, false),
                ] {
                    let what = format!(
                        "{format:?}, {len} bytes, planned by {planner:?}, host output {host_output}"
                    );
                    let mut config = StreamConfig { planner, ..config };
                    config.cuvle.host_output = host_output;
                    let (got, _) =
                        pollster::block_on(compress_framed(gpu, &data, format, &config)).unwrap();
                    assert!(got == want, "{what}: wgpu differs from the CPU");
                    check_round_trip(&data, format, &got, &what);
                }
            }
        }
    }
}

#[test]
fn many_chunks_coding_at_once_on_the_gpu_give_the_cpus_bytes() {
    // Coders submit to one GPU from several threads: no buffer of one encode may be
    // handed to another while the first is in flight.
    let mut config = tiny();
    config.depth = 6;
    let data = mixed(120_000, 21);
    for format in [Format::Native, Format::Gzip] {
        let want = framed(&data, format, &config);
        let mut out = Vec::new();
        compress_stream(
            common::wgpu_engine(),
            format,
            &config,
            StreamInput::Reader(&mut &data[..]),
            &mut out,
            &mut |_| {},
        )
        .unwrap();
        assert!(
            out == want,
            "{format:?}: six coders on wgpu differ from the CPU"
        );
        let mut from_bytes = Vec::new();
        compress_stream(
            common::wgpu_engine(),
            format,
            &config,
            StreamInput::Bytes(&data),
            &mut from_bytes,
            &mut |_| {},
        )
        .unwrap();
        assert!(
            from_bytes == want,
            "{format:?}: six coders on wgpu slicing bytes in memory differ from the CPU"
        );
    }
}

#[test]
fn gzip_members_one_per_chunk_split_at_the_index_limit() {
    // 512-byte cells, each its own frame: a 3 MiB chunk holds 6144 frames, more than
    // one member's index takes.
    let config = StreamConfig {
        chunk_bytes: 3 << 20,
        frames: FrameConfig {
            fixed: true,
            ..tiny().frames
        },
        ..tiny()
    };
    let data = mixed((3 << 20) + 100_000, 31);
    let (bytes, summary) =
        pollster::block_on(compress_framed(&Engine::Cpu, &data, Format::Gzip, &config)).unwrap();
    let ms = members(&bytes);
    assert_eq!(
        ms.len(),
        3,
        "two members for the first chunk, one for the second"
    );
    // Version 3: each frame's entry of 20 bytes (one block: no block entries), as many as
    // fit.
    assert!(ms.iter().all(|m| m.version == 3 && m.has_blocks()));
    assert!(ms.iter().all(|m| m.index_bytes() <= MAX_INDEX_BYTES));
    assert_eq!(ms[0].index.len(), (MAX_INDEX_BYTES - 8) / 20);
    assert!(
        ms[0].index_bytes() + 20 > MAX_INDEX_BYTES,
        "the first member is full"
    );
    let frames: usize = ms.iter().map(|m| m.index.len()).sum();
    assert_eq!(frames as u64, summary.frames);
    let lens: u64 = ms.iter().flat_map(|m| &m.index).map(|e| e.len as u64).sum();
    assert_eq!(lens, data.len() as u64);
    check_round_trip(
        &data,
        Format::Gzip,
        &bytes,
        "members split at the index limit",
    );
    // The same members with a version-1 index (parvlc's files before version 2), and
    // with version 2's (before version 3).
    let v1 = with_index_v1(&bytes);
    assert!(members(&v1).iter().all(|m| !m.has_blocks()));
    check_round_trip(&data, Format::Gzip, &v1, "version-1 indexes");
    let v2 = with_index_v2(&bytes);
    assert!(members(&v2)
        .iter()
        .all(|m| m.version == 2 && m.has_blocks()));
    check_round_trip(&data, Format::Gzip, &v2, "version-2 indexes");
    // Into a vector on the GPU: the first chunk's two members put a header between its
    // frames' bytes, so the writer places it; the second's coder writes its own (one
    // coder: the first chunk's length is known by then).
    let mut gpu_config = StreamConfig { depth: 1, ..config };
    gpu_config.cuvle.host_output = true;
    let mut out = Vec::new();
    let summary = compress_to_vec(
        common::wgpu_engine(),
        Format::Gzip,
        &gpu_config,
        &data,
        &mut out,
        &mut |_| {},
    )
    .unwrap();
    assert!(
        out == bytes,
        "compress_to_vec on the GPU differs from the CPU"
    );
    assert_eq!((summary.chunks, summary.chunks_in_place), (2, 1));
}

/// A frame whose blocks need more than one index holds is written with a version-1 index
/// (no blocks: it decodes on the CPU).
#[test]
fn a_frame_of_too_many_blocks_for_an_index_gets_version_1() {
    // 35,000 blocks of 512 bytes in one frame: 70,000 bytes of block entries (2 bytes
    // each in version 3), past the 65,531 an index holds.
    let mut r = Rng(5);
    let long: Vec<u8> = (0..35_000 * 512).map(|_| (r.next() % 3) as u8).collect();
    let config = StreamConfig {
        chunk_bytes: long.len(),
        frames: FrameConfig {
            cell_bytes: 512,
            max_frame_bytes: long.len() as u64,
            fixed: false,
        },
        ..tiny()
    };
    let (bytes, _) =
        pollster::block_on(compress_framed(&Engine::Cpu, &long, Format::Gzip, &config)).unwrap();
    let ms = members(&bytes);
    assert_eq!((ms.len(), ms[0].index.len()), (1, 1));
    assert!(!ms[0].has_blocks(), "version 1");
    assert!(ms[0].index.len() <= MAX_MEMBER_FRAMES);
    check_round_trip(&long, Format::Gzip, &bytes, "a frame of 35,000 blocks");
}

#[test]
fn indexed_unindexed_and_foreign_gzip_give_the_same_bytes() {
    let config = tiny();
    let data = mixed(30_000, 17);
    let bytes = framed(&data, Format::Gzip, &config);
    let (out, done) = decode_gzip(&bytes).unwrap();
    assert!(out == data);
    assert!(done.members >= 7, "{} members", done.members);
    assert_eq!(done.unindexed_members, 0);

    let plain = without_index(&bytes);
    assert!(
        gzip_tool_decode(&plain) == data,
        "the stripped stream is still gzip"
    );
    let (out, done) = decode_gzip(&plain).unwrap();
    assert!(out == data, "unindexed members through the fallback");
    assert_eq!(done.unindexed_members, done.members);

    let foreign = gzip_tool_encode(&data);
    let (out, done) = decode_gzip(&foreign).unwrap();
    assert!(out == data, "gzip's own output");
    assert_eq!((done.members, done.unindexed_members), (1, 1));

    // Mixed: ours, gzip's, ours again, in order.
    let mut mixed_members = bytes.clone();
    mixed_members.extend_from_slice(&foreign);
    mixed_members.extend_from_slice(&bytes);
    let mut want = data.clone();
    want.extend_from_slice(&data);
    want.extend_from_slice(&data);
    let (out, done) = decode_gzip(&mixed_members).unwrap();
    assert!(out == want, "a concatenation keeps its order");
    assert_eq!(done.unindexed_members, 1);
}

#[test]
fn a_wrong_index_a_truncated_member_or_a_wrong_crc_is_an_error() {
    let config = tiny();
    let data = mixed(20_000, 19);
    let bytes = framed(&data, Format::Gzip, &config);
    let ms = members(&bytes);
    let m = &ms[1];
    assert!(m.index.len() >= 2, "{} frames", m.index.len());
    assert!(m.has_blocks());
    let entry = |i: usize| m.entry_at(i);
    let expect_error = |bad: &[u8], what: &str| match decode_gzip(bad) {
        Err(e) => assert!(
            matches!(e, Error::Corrupt { .. }),
            "{what}: not a corrupt-data error: {e}"
        ),
        Ok((out, _)) => panic!(
            "{what}: decoded without error ({} bytes, {})",
            out.len(),
            if out == data { "right" } else { "WRONG" }
        ),
    };
    for (field, name) in ENTRY_FIELDS {
        for delta in [1u32, 0xffff_ffff, 0x100] {
            let mut bad = bytes.clone();
            let at = entry(1) + field;
            let v = u32::from_le_bytes(bad[at..at + 4].try_into().unwrap());
            bad[at..at + 4].copy_from_slice(&v.wrapping_add(delta).to_le_bytes());
            expect_error(&bad, &format!("frame 1's {name} + {delta:#x}"));
        }
    }
    // Two frames' entries swapped: lengths and sizes that add up, in the wrong places.
    let mut bad = bytes.clone();
    let (a, b) = (entry(0), entry(1));
    let first: Vec<u8> = bad[a..a + 12].to_vec();
    bad.copy_within(b..b + 12, a);
    bad[b..b + 12].copy_from_slice(&first);
    if bad != bytes {
        expect_error(&bad, "two entries swapped");
    }
    // A flipped bit in a frame's code.
    let mut bad = bytes.clone();
    bad[m.at + m.header + 40] ^= 0x08;
    expect_error(&bad, "a payload bit");
    // Truncated inside a frame, inside the trailer.
    expect_error(&bytes[..m.at + m.header + 30], "cut inside a frame");
    expect_error(&bytes[..m.end() - 3], "cut inside the trailer");
    // The member's CRC32 and ISIZE.
    for (off, what) in [(8usize, "crc32"), (3, "isize")] {
        let mut bad = bytes.clone();
        bad[m.end() - off] ^= 0x01;
        expect_error(&bad, &format!("a wrong member {what}"));
    }
}
