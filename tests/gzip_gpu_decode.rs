//! Our gzip decoded on the GPU (src/huffman/inflate_gpu.rs through the streaming
//! decoder): members whose index lists blocks (version 2) have their frames' literals
//! decoded by the VLD kernel, the input back bit for bit across entropies, sizes, block
//! sizes, one-symbol and longest codes; gzip(1) still reads every file; version-1,
//! index-less and gzip's own members decode on the CPU; every corruption is an error
//! that names its member and frame, never output.
mod common;

use common::cli::{parvlc, scratch, stderr};
use common::gzip_members::{
    members, ours_among_foreign, with_index_v1, with_index_v2, Member, ENTRY_FIELDS,
};
use common::judges::gzip_tool_decode;
use parvlc::huffman::compress::Format;
use parvlc::huffman::cuvle::CuvleConfig;
use parvlc::huffman::frames::FrameConfig;
use parvlc::huffman::pipeline::{compress_framed, StreamConfig};
use parvlc::huffman::stream::{
    decompress_async, decompress_file_opening, decompress_to_batched, decompress_to_on, OpenGpu,
};
use parvlc::scan::ScanConfig;
use parvlc::testdata::{self, SplitMix64};
use parvlc::{Engine, Error};

/// Blocks of `block` bytes (32 threads and NET 4 make 512), cells of 512, frames of at
/// most `frame` bytes, chunks of `chunk`.
fn config(block_threads: u32, frame: u64, chunk: usize) -> StreamConfig {
    StreamConfig {
        chunk_bytes: chunk,
        depth: 2,
        frames: FrameConfig {
            cell_bytes: 512.max(block_threads as u64 * 16),
            max_frame_bytes: frame,
            fixed: false,
        },
        cuvle: CuvleConfig {
            net: 4,
            scan: ScanConfig {
                workgroup_size: block_threads,
                ..ScanConfig::default()
            },
            ..CuvleConfig::default()
        },
        ..StreamConfig::default()
    }
}

fn gzip_of(data: &[u8], config: &StreamConfig) -> Vec<u8> {
    let (bytes, _) =
        pollster::block_on(compress_framed(&Engine::Cpu, data, Format::Gzip, config)).unwrap();
    bytes
}

fn decode_gpu(gz: &[u8], batch_bytes: usize) -> parvlc::Result<Vec<u8>> {
    decode_on(common::wgpu_engine(), gz, batch_bytes)
}

fn decode_on(engine: &Engine, gz: &[u8], batch_bytes: usize) -> parvlc::Result<Vec<u8>> {
    let mut out = Vec::new();
    decompress_to_on(engine, &mut &gz[..], &mut out, batch_bytes)?;
    Ok(out)
}

fn decode_cpu(gz: &[u8]) -> parvlc::Result<Vec<u8>> {
    let mut out = Vec::new();
    decompress_to_batched(&mut &gz[..], &mut out, 1 << 20)?;
    Ok(out)
}

fn check(what: &str, data: &[u8], gz: &[u8]) {
    for batch in [3000, 1 << 20] {
        let out = decode_gpu(gz, batch).unwrap_or_else(|e| panic!("{what}, batch {batch}: {e}"));
        assert!(out == data, "{what}, batch {batch}: other bytes");
    }
}

#[test]
fn gpu_gzip_equals_input_across_entropies_sizes_and_blocks() {
    let _s = common::serial();
    let mut tried = 0;
    for (threads, frame, chunk) in [
        (32, 2048, 4096),
        (32, 64 << 10, 20_480),
        (64, 1 << 20, 6 << 20),
    ] {
        let config = config(threads, frame, chunk);
        for (k, entropy) in [0.0, 1.0, 4.5, 7.0, 8.0].into_iter().enumerate() {
            for len in [0usize, 1, 2, 3, 511, 513, 4097, 20_001, 70_003] {
                let seed = (tried + k * 7 + len) as u64;
                let data = testdata::generate(len, entropy, seed);
                let gz = gzip_of(&data, &config);
                assert!(members(&gz).iter().all(|m| m.has_blocks()), "version 3");
                let what = format!(
                    "{entropy} bits, {len} bytes, blocks of {threads} threads, frames of {frame}"
                );
                check(&what, &data, &gz);
                if len == 20_001 {
                    assert!(gzip_tool_decode(&gz) == data, "{what}: gzip -dc");
                }
                tried += 1;
            }
        }
    }
}

/// Codes of one bit (a frame of one byte value: it and the end-of-block), and codes of
/// up to 15 bits (Fibonacci frequencies), at several block sizes.
#[test]
fn gpu_gzip_of_one_symbol_and_longest_codes() {
    let _s = common::serial();
    let mut fib = Vec::new();
    let (mut a, mut b) = (1usize, 1usize);
    for s in 0..24u8 {
        fib.extend(std::iter::repeat_n(s, a));
        (a, b) = (b, a + b);
    }
    let mut rng = SplitMix64(3);
    for i in (1..fib.len()).rev() {
        fib.swap(i, rng.below(i as u64 + 1) as usize);
    }
    fib.truncate(200_000);
    let constant = vec![0x41u8; 30_000];
    let mut two = vec![0u8; 30_000];
    for x in two.iter_mut() {
        *x = (rng.below(2) * 255) as u8;
    }
    for (name, data) in [
        ("fibonacci", &fib),
        ("one byte value", &constant),
        ("two", &two),
    ] {
        for config in [
            config(32, 64 << 10, 128 << 10),
            config(64, 1 << 20, 1 << 20),
        ] {
            let gz = gzip_of(data, &config);
            check(name, data, &gz);
        }
    }
}

/// Members the GPU does not take (a version-1 index, none, gzip's own) decode on the
/// CPU, in order among members it does; those of version 2 (block offsets as `u32`,
/// written before version 3) decode on the GPU as version 3's do.
#[test]
fn gpu_gzip_of_old_and_foreign_members() {
    let _s = common::serial();
    let data = testdata::generate(50_000, 5.0, 9);
    let gz = gzip_of(&data, &config(32, 8192, 16384));
    assert!(members(&gz).iter().all(|m| m.version == 3));
    let v2 = with_index_v2(&gz);
    assert!(members(&v2)
        .iter()
        .all(|m| m.version == 2 && m.has_blocks()));
    assert!(v2.len() > gz.len(), "version 3 is the smaller");
    let (mut all, mut want) = ours_among_foreign(&gz, &data);
    all.extend(with_index_v1(&gz));
    all.extend(&v2);
    want.extend(&data);
    want.extend(&data);
    check(
        "ours, no index, gzip's, ours, version 1, version 2",
        &want,
        &all,
    );
    // Version 2's offsets are read by the GPU: one moved is an error there.
    let m = members(&v2).swap_remove(0);
    let i = m.a_frame_of_four_blocks();
    let e = decode_gpu(&m.with_block_2_moved(&v2, i, 1), 1 << 20)
        .expect_err("a moved version-2 offset")
        .to_string();
    assert!(
        e.contains(&format!("member 1 frame {i}")) && e.contains("block 1"),
        "{e}"
    );
}

/// From a regular file (members walked by one thread, frames read at their offsets by
/// the decoders), on the GPU and the CPU: ours among foreign members, after other bytes,
/// in small batches and large; a file cut short is an error that says so.
#[test]
fn gzip_from_a_file_reads_frames_at_their_offsets() {
    let _s = common::serial();
    let data = testdata::generate(60_000, 5.0, 21);
    let gz = gzip_of(&data, &config(32, 8192, 16384));
    let (all, want) = ours_among_foreign(&gz, &data);
    for engine in [common::wgpu_engine(), &Engine::Cpu] {
        for (skip, batch) in [(0, 3000), (777, 1 << 20)] {
            let (out, done) = common::decode_as_file(engine, &all, skip, batch)
                .unwrap_or_else(|e| panic!("skip {skip}, batch {batch}: {e}"));
            assert!(out == want, "skip {skip}, batch {batch}: other bytes");
            assert_eq!(done.data_end, all.len() as u64);
            // The stripped copy's members and gzip's one.
            let unindexed = members(&gz).len() as u64 + 1;
            assert_eq!(
                (done.members, done.unindexed_members),
                (ms(&all), unindexed)
            );
        }
        let cut = &gz[..gz.len() - 1000];
        let e = common::decode_as_file(engine, cut, 5, 1 << 20)
            .map(|_| ())
            .expect_err("a cut file decoded")
            .to_string();
        assert!(e.contains("truncated"), "{e}");
    }
}

/// The GPU opening while a file's stream starts (`decompress_file_opening`, the CLI's
/// wgpu decompress of a file), held until the first batch is written: the batches before
/// decode on the CPU cores, the later ones on the GPU. A moved block offset (read by the
/// GPU alone) in the first member's first frame decodes; in the last member it is an
/// error naming that member: the first batch went to the CPU, the last to the GPU. The
/// same from a reader (`decompress_to_opening`, a pipe's).
#[test]
fn gzip_from_a_file_while_the_gpu_opens() {
    let _s = common::serial();
    decodes_while_the_gpu_opens(29, OpenGpu::Now);
}

/// An opening that starts after some output (`OpenGpu::After`, the CLI's `auto` from a
/// pipe): after the first batch's output it starts there, and the same checks hold (the
/// first batch on the CPU, the last on the GPU); after more than the stream holds it
/// never starts (an opener that panics is never called), and a moved block offset in the
/// last member decodes (on the CPU).
#[test]
fn gzip_opens_the_gpu_only_after_enough_output() {
    let _s = common::serial();
    let (data, gz, all) = decodes_while_the_gpu_opens(31, OpenGpu::After(1));
    let last = moved_offset(&gz, &all[all.len() - 1]);
    for bytes in [&gz, &last] {
        let never = OpenGpu::After(data.len() as u64 + 1);
        let (out, done) = common::decode_as_file_with(bytes, 0, |f, out| {
            decompress_file_opening(
                || -> Engine { panic!("the GPU opened") },
                never,
                f,
                out,
                3000,
            )
        })
        .unwrap();
        assert!(out == data, "other bytes");
        assert_eq!(done.data_end, gz.len() as u64);
    }
}

/// Seeded data's gzip decoded from a file and from a reader with the GPU opening from
/// `when` and open once the first batch is written, through
/// [`check_while_the_gpu_opens`]: the data, the gzip and its members. The opener lets the
/// first write go on before the stream holds the engine it returns, so a stream of few
/// batches could end on the cores if the opening thread waited for a core that long (a
/// run at 200,000 bytes failed once in some fifteen on two busy cores, most likely so): a
/// megabyte is some 350 batches of 3000 bytes.
fn decodes_while_the_gpu_opens(seed: u64, when: OpenGpu) -> (Vec<u8>, Vec<u8>, Vec<Member>) {
    let data = testdata::generate(1_000_000, 4.5, seed);
    let gz = gzip_of(&data, &config(32, 8192, 20_480));
    let all = members(&gz);
    assert!(all.len() >= 8, "{} members", all.len());
    for from_file in [true, false] {
        let decode =
            |bytes: &[u8]| common::decode_while_the_gpu_opens(bytes, 3000, from_file, when);
        check_while_the_gpu_opens(&data, &gz, &all, &decode);
    }
    (data, gz, all)
}

/// `gz` with member `m`'s frame 0's block 2 one bit later (an offset only the GPU reads).
fn moved_offset(gz: &[u8], m: &Member) -> Vec<u8> {
    m.with_block_2_moved(gz, 0, 1)
}

/// [`gzip_from_a_file_while_the_gpu_opens`]'s checks through `decode`.
fn check_while_the_gpu_opens(
    data: &[u8],
    gz: &[u8],
    all: &[Member],
    decode: &dyn Fn(&[u8]) -> common::Decoded,
) {
    let (out, done) = decode(gz).unwrap();
    assert!(out == data, "other bytes");
    assert_eq!(done.data_end, gz.len() as u64);
    let first = moved_offset(gz, &all[0]);
    assert!(
        decode(&first).unwrap().0 == data,
        "the first batch on the CPU"
    );
    let last = moved_offset(gz, &all[all.len() - 1]);
    let e = decode(&last)
        .expect_err("the last batch on the GPU")
        .to_string();
    assert!(
        e.contains(&format!("member {} frame 0", all.len())) && e.contains("block 1"),
        "{e}"
    );
}

/// Members in a stream, foreign ones included.
fn ms(all: &[u8]) -> u64 {
    let mut out = Vec::new();
    decompress_to_batched(&mut &all[..], &mut out, 1 << 20)
        .unwrap()
        .members
}

/// The async call (the web's): our members decode on the GPU among foreign ones; a moved
/// block offset (read by the GPU only) and trailing garbage are errors.
#[test]
fn gzip_async_decodes_on_the_gpu() {
    let _s = common::serial();
    let data = testdata::generate(60_000, 4.5, 23);
    let gz = gzip_of(&data, &config(32, 8192, 16384));
    let (all, want) = ours_among_foreign(&gz, &data);
    let decode = |bytes: &[u8]| pollster::block_on(decompress_async(common::wgpu_engine(), bytes));
    assert!(decode(&all).unwrap() == want);
    let (data, gz, m, i) = with_a_four_block_frame();
    assert!(decode(&gz).unwrap() == data);
    let bad = m.with_block_2_moved(&gz, i, 1);
    let e = decode(&bad).unwrap_err().to_string();
    assert!(
        e.contains(&format!("member 2 frame {i}")) && e.contains("block 1"),
        "{e}"
    );
    let mut garbage = gz.clone();
    garbage.extend_from_slice(b"garbage");
    let e = decode(&garbage).unwrap_err().to_string();
    assert!(e.contains("trailing garbage"), "{e}");
}

/// 40,000 bytes as our gzip in small members, its second member, and in that member a
/// frame of four blocks or more: the corruption cases' input.
fn with_a_four_block_frame() -> (Vec<u8>, Vec<u8>, Member, usize) {
    let data = testdata::generate(40_000, 4.5, 13);
    let gz = gzip_of(&data, &config(32, 8192, 20_480));
    let m = members(&gz).swap_remove(1);
    let i = m.a_frame_of_four_blocks();
    (data, gz, m, i)
}

/// Every field of a version-2 entry, the member's block size, a flipped payload bit and
/// a moved end-of-block: errors on the GPU path that name the member and frame. A moved
/// block offset is an error on the GPU (which reads it) and not on the CPU (which does
/// not): proof that the GPU decoded these members.
#[test]
fn gpu_gzip_of_corrupt_members_is_an_error() {
    let _s = common::serial();
    let (data, gz, m, i) = with_a_four_block_frame();
    assert!(decode_gpu(&gz, 1 << 20).unwrap() == data);
    let frame_at = m.at + m.header + m.index[..i].iter().map(|e| e.bytes as usize).sum::<usize>();
    let said = format!("member 2 frame {i}");
    let expect_error = |bad: &[u8], what: &str| {
        let e = match decode_gpu(bad, 1 << 20) {
            Err(e) => e,
            Ok(out) => panic!(
                "{what}: decoded on the GPU without error ({})",
                if out == data { "right" } else { "WRONG" }
            ),
        };
        assert!(matches!(e, Error::Corrupt { .. }), "{what}: {e}");
        e.to_string()
    };
    let bump = |at: usize, delta: u32| {
        let mut bad = gz.clone();
        let v = u32::from_le_bytes(bad[at..at + 4].try_into().unwrap());
        bad[at..at + 4].copy_from_slice(&v.wrapping_add(delta).to_le_bytes());
        bad
    };
    for (field, name) in ENTRY_FIELDS {
        for delta in [1u32, 0xffff_ffff, 0x100] {
            expect_error(
                &bump(m.entry_at(i) + field, delta),
                &format!("{name} + {delta:#x}"),
            );
        }
    }
    for delta in [1u32, 0xffff_ffff] {
        expect_error(&bump(m.at + 20, delta), &format!("block size + {delta:#x}"));
    }
    // Block 2's start one bit off: blocks 1 and 2 disagree on where 1 ends.
    for delta in [1u32, 0xffff_ffff] {
        let bad = m.with_block_2_moved(&gz, i, delta);
        let e = expect_error(&bad, &format!("block offset + {delta:#x}"));
        assert!(e.contains(&said) && e.contains("block 1"), "{e}");
        assert!(
            decode_cpu(&bad).unwrap() == data,
            "the CPU reads no block offsets"
        );
    }
    // Payload bits: in the code, the literals, the end-of-block.
    let sym = m.index[i].code.as_ref().unwrap();
    let bits = [
        20,
        sym.symbol_start as usize + 5,
        sym.symbol_start as usize + sym.symbol_bits as usize / 2,
        sym.symbol_start as usize + sym.symbol_bits as usize,
    ];
    for bit in bits {
        let mut bad = gz.clone();
        bad[frame_at + bit / 8] ^= 1 << (bit % 8);
        let e = expect_error(&bad, &format!("frame bit {bit}"));
        assert!(e.contains(&said), "bit {bit}: {e}");
    }
}

#[test]
fn cli_decompress_of_gzip_on_wgpu() {
    let _s = common::serial();
    let dir = scratch("gzip-gpu", "cli");
    let mut data = testdata::generate(300_000, 3.0, 5);
    data.extend(testdata::generate(200_000, 7.5, 6));
    std::fs::write(dir.join("in.bin"), &data).unwrap();
    let o = parvlc(
        &["compress", "-f", "gzip", "--backend", "cpu", "in.bin"],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = parvlc(
        &[
            "decompress",
            "--backend",
            "wgpu",
            "--chunk-size",
            "64K",
            "in.bin.gz",
            "-o",
            "out.bin",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("one core"), "{}", stderr(&o));
    assert!(std::fs::read(dir.join("out.bin")).unwrap() == data);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same on the CUDA engine (shaders/cuda/vld.cu): several members and entropies back
/// bit for bit, a moved block offset an error that names the frame and block. Runs where
/// a CUDA driver and NVRTC are (PARVLC_REQUIRE_CUDA=1 makes their absence a failure).
#[cfg(feature = "cuda")]
#[test]
fn cuda_gzip_equals_input_and_names_a_damaged_block() {
    let _s = common::serial();
    let Some(cuda) = common::cuda_engine() else {
        return;
    };
    for (threads, frame, chunk) in [(32, 8192, 20_480), (64, 1 << 20, 6 << 20)] {
        for entropy in [0.0, 4.5, 8.0] {
            let data = testdata::generate(100_003, entropy, threads as u64);
            let gz = gzip_of(&data, &config(threads, frame, chunk));
            for batch in [3000, 1 << 20] {
                let out = decode_on(cuda, &gz, batch).unwrap();
                assert!(out == data, "{entropy} bits, batch {batch}");
            }
        }
    }
    let (_, gz, m, i) = with_a_four_block_frame();
    let bad = m.with_block_2_moved(&gz, i, 1);
    let e = decode_on(cuda, &bad, 1 << 20).unwrap_err().to_string();
    assert!(
        e.contains(&format!("member 2 frame {i}")) && e.contains("block 1"),
        "{e}"
    );
}
