//! Native v2 decoding on the GPU (shaders/huffman/vld.wgsl through the streaming decoder):
//! the input back bit for bit across entropies, sizes, codes and block sizes the encoder
//! never makes (streams written here, by hand, from the format's description), and every
//! corruption an error that names its frame and block, never output.
mod common;

use common::cli::{parvlc, scratch, stderr};
use parvlc::huffman::stream::{decompress_async, decompress_to_batched, decompress_to_on, OpenGpu};
use parvlc::huffman::Codebook;
use parvlc::testdata::{self, SplitMix64};
use parvlc::Engine;

/// A frame to write: its bytes, code lengths and block size.
struct Spec<'a> {
    data: &'a [u8],
    lengths: [u8; 256],
    block_symbols: usize,
}

/// MSB-first bits.
#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    n: u64,
}

impl Bits {
    fn put(&mut self, code: u32, len: u8) {
        for i in (0..len).rev() {
            if self.n.is_multiple_of(8) {
                self.bytes.push(0);
            }
            let bit = (code >> i) & 1;
            *self.bytes.last_mut().unwrap() |= (bit as u8) << (7 - self.n % 8);
            self.n += 1;
        }
    }
}

/// Where a written frame's fields lie, to corrupt them.
struct Written {
    /// File offsets of the frame's header, its block offsets and its payload.
    at: usize,
    offsets_at: usize,
    payload_at: usize,
    payload_bits: u64,
}

/// A native v2 stream of `frames`, as src/huffman/framing.rs describes it.
fn stream(frames: &[Spec<'_>]) -> (Vec<u8>, Vec<Written>) {
    let mut file = Vec::new();
    let mut written = Vec::new();
    let mut all = crc32fast::Hasher::new();
    let mut total = 0u64;
    for f in frames {
        let book = Codebook::from_lengths(&f.lengths).unwrap();
        let mut bits = Bits::default();
        let mut offsets = Vec::new();
        for (i, &b) in f.data.iter().enumerate() {
            if i.is_multiple_of(f.block_symbols) {
                offsets.push(bits.n);
            }
            assert!(f.lengths[b as usize] > 0, "byte {b} has no code");
            bits.put(book.codes()[b as usize], f.lengths[b as usize]);
        }
        let at = file.len();
        let mut h = Vec::new();
        h.extend_from_slice(b"PVLC");
        h.extend_from_slice(&[2, 0, 0, 0]);
        h.extend_from_slice(&(f.data.len() as u32).to_le_bytes());
        h.extend_from_slice(&(f.block_symbols as u32).to_le_bytes());
        h.extend_from_slice(&(bits.n as u32).to_le_bytes());
        h.extend_from_slice(&crc32fast::hash(f.data).to_le_bytes());
        for pair in f.lengths.chunks(2) {
            h.push(pair[0] | (pair[1] << 4));
        }
        let offsets_at = at + h.len();
        for &o in &offsets[1..] {
            h.extend_from_slice(&(o as u32).to_le_bytes());
        }
        let crc = crc32fast::hash(&h);
        h.extend_from_slice(&crc.to_le_bytes());
        file.extend_from_slice(&h);
        written.push(Written {
            at,
            offsets_at,
            payload_at: file.len(),
            payload_bits: bits.n,
        });
        file.extend_from_slice(&bits.bytes);
        all.update(f.data);
        total += f.data.len() as u64;
    }
    let mut t = Vec::new();
    t.extend_from_slice(b"PVLC");
    t.extend_from_slice(&[2, 1, 0, 0]);
    t.extend_from_slice(&total.to_le_bytes());
    t.extend_from_slice(&all.finalize().to_le_bytes());
    t.extend_from_slice(&(frames.len() as u64).to_le_bytes());
    let crc = crc32fast::hash(&t);
    t.extend_from_slice(&crc.to_le_bytes());
    file.extend_from_slice(&t);
    (file, written)
}

/// Recomputes the header checksum of the frame `w` (after editing its header).
fn reseal(file: &mut [u8], w: &Written) {
    let end = w.payload_at - 4;
    let crc = crc32fast::hash(&file[w.at..end]);
    file[end..w.payload_at].copy_from_slice(&crc.to_le_bytes());
}

fn decode_gpu(file: &[u8], batch_bytes: usize) -> parvlc::Result<Vec<u8>> {
    let mut out = Vec::new();
    decompress_to_on(common::wgpu_engine(), &mut &file[..], &mut out, batch_bytes)?;
    Ok(out)
}

/// The web's way: batch after batch, each awaited, no threads.
fn decode_gpu_async(file: &[u8]) -> parvlc::Result<Vec<u8>> {
    pollster::block_on(decompress_async(common::wgpu_engine(), file))
}

fn decode_cpu(file: &[u8]) -> parvlc::Result<Vec<u8>> {
    let mut out = Vec::new();
    decompress_to_batched(&mut &file[..], &mut out, 1 << 20)?;
    Ok(out)
}

/// Lengths of an optimal code of at most 15 bits for `data` (every byte of it coded).
fn lengths_for(data: &[u8]) -> [u8; 256] {
    let mut hist = [0u64; 256];
    for &b in data {
        hist[b as usize] += 1;
    }
    let book = Codebook::from_frequencies(&hist, 15).unwrap();
    let mut l = [0u8; 256];
    l.copy_from_slice(book.lengths());
    l
}

/// `data` cut into frames of seeded lengths and block sizes, each with its own code.
fn frames_of(data: &[u8], seed: u64, blocks: &[usize]) -> Vec<(usize, usize, usize)> {
    let mut rng = SplitMix64(seed);
    let mut cuts = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let len = (1 + rng.below(3000) as usize).min(data.len() - at);
        let block = blocks[rng.below(blocks.len() as u64) as usize];
        cuts.push((at, len, block));
        at += len;
    }
    cuts
}

fn check_round_trip(what: &str, specs: &[Spec<'_>], batch_bytes: usize) {
    let want: Vec<u8> = specs.iter().flat_map(|s| s.data.iter().copied()).collect();
    let (file, _) = stream(specs);
    let cpu = decode_cpu(&file).unwrap_or_else(|e| panic!("{what}: CPU decode: {e}"));
    assert!(
        cpu == want,
        "{what}: the CPU decoder differs from the input"
    );
    let gpu = decode_gpu(&file, batch_bytes).unwrap_or_else(|e| panic!("{what}: GPU: {e}"));
    assert!(
        gpu == want,
        "{what}: the GPU decoder differs from the input"
    );
    let gpu = decode_gpu_async(&file).unwrap_or_else(|e| panic!("{what}: GPU, async: {e}"));
    assert!(
        gpu == want,
        "{what}: the GPU decoder, awaited batch by batch, differs from the input"
    );
}

#[test]
fn gpu_decode_equals_input_across_entropies_sizes_and_block_sizes() {
    let _s = common::serial();
    // Block sizes at every alignment of the output words, and the encoder's; then only
    // multiples of 64, whose batches own every output word (nothing OR-ed, no clear).
    let mixed = [1, 2, 3, 4, 5, 7, 8, 13, 64, 100, 1000, 16384];
    let owned = [64, 192, 1024, 16384];
    for (entropy, blocks) in (0..=8).flat_map(|e| [(e, &mixed[..]), (e, &owned[..])]) {
        for (k, len) in [0usize, 1, 3, 17, 4096, 20_000].into_iter().enumerate() {
            let seed = entropy as u64 * 10 + k as u64;
            let data = testdata::generate(len, entropy as f64 + 0.5 * (k % 2) as f64, seed);
            let cuts = frames_of(&data, seed, blocks);
            let specs = specs_of(&data, &cuts);
            // Small batches: several GPU dispatches, frames split among them.
            for batch in [1 << 20, 5000] {
                check_round_trip(
                    &format!("entropy {entropy}, {len} bytes, batch {batch}, blocks {blocks:?}"),
                    &specs,
                    batch,
                );
            }
        }
    }
}

/// The frames `cuts` of `data` (start, length, block size), each with its own code.
fn specs_of<'d>(data: &'d [u8], cuts: &[(usize, usize, usize)]) -> Vec<Spec<'d>> {
    cuts.iter()
        .map(|&(at, len, block_symbols)| {
            let part = &data[at..at + len];
            Spec {
                data: part,
                lengths: lengths_for(part),
                block_symbols,
            }
        })
        .collect()
}

#[test]
fn gpu_decode_of_a_regular_file_equals_the_input() {
    let _s = common::serial();
    // Frames of 1 to 3000 bytes, blocks at several alignments: the payloads read at their
    // offsets, one batch or many, then decoded on the GPU and on the CPU cores.
    let data = testdata::generate(60_000, 4.5, 31);
    let cuts = frames_of(&data, 32, &[7, 1000, 1024, 4096]);
    assert!(cuts.len() > 20, "{} frames", cuts.len());
    let specs = specs_of(&data, &cuts);
    let (file, _) = stream(&specs);
    for (engine, name) in [(common::wgpu_engine(), "GPU"), (&Engine::Cpu, "CPU")] {
        for (batch, skip) in [(1 << 20, 0), (5000, 333), (1, 0)] {
            let what = format!("{name}, batches of {batch}, the stream at {skip}");
            let (out, done) = common::decode_as_file(engine, &file, skip, batch)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(out == data, "{what}: other bytes");
            assert_eq!(done.bytes_out, data.len() as u64, "{what}");
            assert_eq!(done.data_end, file.len() as u64, "{what}");
        }
    }
    // The GPU opening while the stream starts: the first batch on the CPU cores.
    for (batch, from_file) in [(5000, true), (1, true), (5000, false)] {
        let (out, done) = common::decode_while_the_gpu_opens(&file, batch, from_file, OpenGpu::Now)
            .unwrap_or_else(|e| panic!("the GPU opening, batches of {batch}: {e}"));
        assert!(
            out == data,
            "the GPU opening, batches of {batch}: other bytes"
        );
        assert_eq!(done.data_end, file.len() as u64);
    }
}

#[test]
fn gpu_decode_of_one_symbol_and_longest_codes() {
    let _s = common::serial();
    // One symbol with a one-bit code and no other (an incomplete code).
    let ones = vec![b'x'; 5000];
    let mut one = [0u8; 256];
    one[b'x' as usize] = 1;
    // Every code at the maximum length, 15 bits.
    let random = testdata::generate(9000, 8.0, 3);
    let longest = [15u8; 256];
    // Two short codes, the rest long: the primary table and the long search mixed.
    let skew: Vec<u8> = testdata::generate(9000, 8.0, 4)
        .iter()
        .enumerate()
        .map(|(i, &b)| if i % 5 == 0 { b } else { (i % 2) as u8 })
        .collect();
    let mut mixed = [15u8; 256];
    mixed[0] = 1;
    mixed[1] = 2;
    for block_symbols in [1, 3, 16, 4096] {
        let specs = [
            Spec {
                data: &ones,
                lengths: one,
                block_symbols,
            },
            Spec {
                data: &random,
                lengths: longest,
                block_symbols,
            },
            Spec {
                data: &skew,
                lengths: mixed,
                block_symbols,
            },
        ];
        check_round_trip(&format!("blocks of {block_symbols}"), &specs, 1 << 20);
    }
}

#[test]
fn gpu_decode_keeps_frame_order_with_frames_left_to_the_cpu() {
    let _s = common::serial();
    // The middle frame's one block is longer than one GPU thread takes (1 Mi symbols):
    // it decodes on the CPU, between frames decoded on the GPU, in one batch.
    let data = testdata::generate((1 << 20) + 40_000, 3.5, 12);
    let (a, rest) = data.split_at(20_000);
    let (b, c) = rest.split_at((1 << 20) + 1);
    let specs: Vec<Spec<'_>> = [(a, 1024), (b, 2 << 20), (c, 1000)]
        .into_iter()
        .map(|(d, block_symbols)| Spec {
            data: d,
            lengths: lengths_for(d),
            block_symbols,
        })
        .collect();
    check_round_trip("a frame on the CPU between GPU frames", &specs, 4 << 20);
}

/// Three frames of ten blocks (of 1000 bytes, and of 1024: the staged writes); the middle
/// one is corrupted by `damage`, which must make the GPU path fail with an error holding
/// every one of `said`.
fn check_corrupt(what: &str, damage: impl Fn(&mut Vec<u8>, &Written), said: &[&str]) {
    for block_symbols in [1000, 1024] {
        check_corrupt_in(what, block_symbols, &damage, said);
    }
}

/// `data` in frames of 10,000 bytes, each with its own code, in blocks of `block_symbols`.
fn frames_of_10k(data: &[u8], block_symbols: usize) -> Vec<Spec<'_>> {
    data.chunks(10_000)
        .map(|c| Spec {
            data: c,
            lengths: lengths_for(c),
            block_symbols,
        })
        .collect()
}

fn check_corrupt_in(
    what: &str,
    block_symbols: usize,
    damage: &impl Fn(&mut Vec<u8>, &Written),
    said: &[&str],
) {
    let what = format!("{what}, blocks of {block_symbols}");
    let data = testdata::generate(30_000, 4.5, 11);
    let specs = frames_of_10k(&data, block_symbols);
    let (mut file, written) = stream(&specs);
    assert!(decode_gpu(&file, 1 << 20).unwrap() == data);
    damage(&mut file, &written[1]);
    let e = decode_gpu(&file, 1 << 20)
        .map(|_| ())
        .expect_err(&format!("{what}: the GPU path decoded a corrupt stream"))
        .to_string();
    for s in said {
        assert!(e.contains(s), "{what}: `{e}` does not say `{s}`");
    }
    assert!(decode_cpu(&file).is_err(), "{what}: the CPU path took it");
    let awaited = decode_gpu_async(&file)
        .map(|_| ())
        .expect_err(&format!(
            "{what}: the awaited GPU path decoded a corrupt stream"
        ))
        .to_string();
    assert_eq!(awaited, e, "{what}: awaited batch by batch");
    // From a regular file (payloads read at their offsets): the same error.
    let from_file = common::decode_as_file(common::wgpu_engine(), &file, 0, 1 << 20)
        .map(|_| ())
        .expect_err(&format!("{what}: the GPU decoded a corrupt file"))
        .to_string();
    assert_eq!(from_file, e, "{what}: from a file");
}

#[test]
fn gpu_decode_of_corrupt_streams_is_an_error() {
    let _s = common::serial();
    // A flipped payload bit: a code of another length shifts the block's end.
    check_corrupt(
        "flipped bit",
        |f, w| f[w.payload_at + 500] ^= 0x10,
        &["frame 1"],
    );
    // The file ends within the payload: shorter than the header says.
    check_corrupt(
        "truncated",
        |f, w| f.truncate(w.payload_at + 100),
        &["frame 1", "payload is 100 bytes", "truncated"],
    );
    // A block offset moved by one bit (header checksum resealed): the blocks around it
    // no longer end where the next starts.
    check_corrupt(
        "wrong offset",
        |f, w| {
            let o = w.offsets_at + 4 * 3;
            let v = u32::from_le_bytes(f[o..o + 4].try_into().unwrap()) + 1;
            f[o..o + 4].copy_from_slice(&v.to_le_bytes());
            reseal(f, w);
        },
        &["frame 1", "block 3"],
    );
    // Code lengths that no code has (over-subscribed), resealed.
    check_corrupt(
        "bad lengths",
        |f, w| {
            f[w.at + 24..w.at + 24 + 128].fill(0x11);
            reseal(f, w);
        },
        &["frame 1", "bad code lengths"],
    );
    // The last block's end moved: the payload size grows by 8 bits and one zero byte.
    check_corrupt(
        "payload longer than its blocks",
        |f, w| {
            let bits = (w.payload_bits + 8) as u32;
            f[w.at + 16..w.at + 20].copy_from_slice(&bits.to_le_bytes());
            reseal(f, w);
            f.insert(w.payload_at + w.payload_bits.div_ceil(8) as usize, 0);
        },
        &["frame 1", "block 9", "ends at bit"],
    );
}

#[test]
fn gpu_decode_reports_an_invalid_code() {
    let _s = common::serial();
    // One code, `0`: a one bit matches no code. Blocks of 10 (direct writes) and of 64
    // (staged), the last bit of byte 5 and of byte 32: block 4 either way.
    let ones = vec![b'x'; 1000];
    let mut one = [0u8; 256];
    one[b'x' as usize] = 1;
    for (block_symbols, byte) in [(10, 5), (64, 32)] {
        let spec = Spec {
            data: &ones,
            lengths: one,
            block_symbols,
        };
        let (mut file, written) = stream(&[spec]);
        file[written[0].payload_at + byte] = 0x01;
        let e = decode_gpu(&file, 1 << 20).unwrap_err().to_string();
        let bit = format!("invalid code at bit {}", byte * 8 + 7);
        assert!(
            e.contains("frame 0") && e.contains("block 4") && e.contains(&bit),
            "{e}"
        );
    }
}

/// A fresh folder `name` holding `data` as in.bin and the CLI's native file of it,
/// in.bin.pvlc (coded on the CPU).
fn compressed_by_the_cli(name: &str, data: &[u8]) -> std::path::PathBuf {
    let dir = scratch("gpu-decode", name);
    std::fs::write(dir.join("in.bin"), data).unwrap();
    let o = parvlc(&["compress", "--backend", "cpu", "in.bin"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    dir
}

#[test]
fn cli_decompress_on_wgpu_and_cpu_give_the_input() {
    let mut data = testdata::generate(300_000, 3.0, 5);
    data.extend(testdata::generate(200_000, 7.5, 6));
    let dir = compressed_by_the_cli("cli", &data);
    for backend in ["wgpu", "cpu"] {
        let out = format!("out-{backend}.bin");
        let o = parvlc(
            &[
                "decompress",
                "--backend",
                backend,
                "--chunk-size",
                "64K",
                "in.bin.pvlc",
                "-o",
                &out,
            ],
            &dir,
        );
        assert!(o.status.success(), "{backend}: {}", stderr(&o));
        assert!(
            std::fs::read(dir.join(&out)).unwrap() == data,
            "{backend}: other bytes"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `decompress` by default (`--backend auto`), debug-logged, on `input` (a file, or with
/// `pipe` the file's bytes on standard input) with `PARVLC_GPU_DECODE_FROM` set to `from`
/// where given: its output and whether a GPU's opening started.
fn decompress_auto(
    dir: &std::path::Path,
    input: &str,
    pipe: bool,
    from: Option<&str>,
) -> (Vec<u8>, bool) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_parvlc"));
    cmd.current_dir(dir).env("RUST_LOG", "parvlc=debug");
    match from {
        Some(from) => cmd.env("PARVLC_GPU_DECODE_FROM", from),
        None => cmd.env_remove("PARVLC_GPU_DECODE_FROM"),
    };
    if pipe {
        cmd.args(["decompress", "-"])
            .stdin(std::fs::File::open(dir.join(input)).unwrap());
    } else {
        cmd.args(["decompress", input, "-o", "-"]);
    }
    let o = cmd.output().unwrap();
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    let opened = e.contains("the GPU starts opening");
    // A software adapter (lavapipe in CI) is no GPU to auto: the CPU cores decode.
    if opened && !e.contains("is no GPU: decoding on the CPU") {
        assert!(e.contains("opened in"), "{e}");
    }
    (o.stdout, opened)
}

/// `decompress` without `--backend` (auto): a file smaller than `PARVLC_GPU_DECODE_FROM`
/// (160 MiB a core by default) decodes on the CPU cores and opens no GPU; from that size on the
/// GPU opens beside the stream; a pipe opens one once it has decoded that much. The
/// bytes are the input's either way; a bad setting or backend is an error.
#[test]
fn cli_decompress_auto_opens_a_gpu_for_a_large_input_only() {
    let data = testdata::generate(400_000, 4.0, 13);
    let dir = compressed_by_the_cli("auto", &data);
    for pipe in [false, true] {
        for (from, opens) in [(None, false), (Some("1"), true), (Some("512K"), false)] {
            let (out, opened) = decompress_auto(&dir, "in.bin.pvlc", pipe, from);
            assert!(out == data, "pipe {pipe}, from {from:?}: other bytes");
            assert_eq!(opened, opens, "pipe {pipe}, from {from:?}");
        }
    }
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_parvlc"))
        .current_dir(&dir)
        .env("PARVLC_GPU_DECODE_FROM", "lots")
        .args(["decompress", "in.bin.pvlc", "-o", "x"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("PARVLC_GPU_DECODE_FROM"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("x").exists());
    let o = parvlc(&["decompress", "--backend", "opencl", "in.bin.pvlc"], &dir);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("(auto, wgpu, cuda, cpu)"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `decompress --backend cuda` of a file (the device opened beside the stream): where
/// this build lacks the feature or the machine the driver, an error that says so and no
/// output file (the check made before the stream starts); else the input back
/// (PARVLC_REQUIRE_CUDA=1 requires that).
#[test]
fn cli_decompress_on_cuda_decodes_or_says_why_not() {
    let data = testdata::generate(300_000, 4.0, 11);
    let dir = compressed_by_the_cli("cuda", &data);
    let o = parvlc(
        &[
            "decompress",
            "--backend",
            "cuda",
            "in.bin.pvlc",
            "-o",
            "out.bin",
        ],
        &dir,
    );
    let e = stderr(&o);
    assert!(
        cfg!(feature = "cuda") || !o.status.success(),
        "a build without the `cuda` feature decoded with --backend cuda: {e}"
    );
    if o.status.success() {
        assert!(
            std::fs::read(dir.join("out.bin")).unwrap() == data,
            "other bytes"
        );
    } else {
        common::cli::check_cuda_refused(&e, &dir.join("out.bin"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The engine a test decodes on when it asks for the CPU explicitly: no GPU opened.
#[test]
fn decode_on_the_cpu_engine_needs_no_gpu() {
    let data = testdata::generate(10_000, 5.0, 8);
    let spec = Spec {
        lengths: lengths_for(&data),
        data: &data,
        block_symbols: 777,
    };
    let (file, _) = stream(&[spec]);
    let mut out = Vec::new();
    decompress_to_on(&Engine::Cpu, &mut &file[..], &mut out, 4096).unwrap();
    assert!(out == data);
}

/// The streaming decoder on the CUDA engine (shaders/cuda/vld.cu): multi-frame streams
/// back bit for bit from a reader and from a regular file, in one batch or many, a frame
/// left to the CPU among them; a damaged frame an error naming it, the same from a file;
/// `parvlc decompress --backend cuda`. Runs where a CUDA driver and NVRTC are
/// (PARVLC_REQUIRE_CUDA=1 makes their absence a failure).
#[cfg(feature = "cuda")]
#[test]
fn cuda_decode_equals_input_and_names_a_damaged_frame() {
    let _s = common::serial();
    let Some(cuda) = common::cuda_engine() else {
        return;
    };
    let decode = |file: &[u8], batch: usize| {
        let mut out = Vec::new();
        decompress_to_on(cuda, &mut &file[..], &mut out, batch).map(|_| out)
    };
    // Frames of 1 to 3000 bytes at every alignment of the output words, then one block
    // over 1 Mi symbols (decoded on the CPU, between CUDA runs), then more small frames.
    let small = testdata::generate(60_000, 4.5, 41);
    let (head, tail) = small.split_at(30_000);
    let long = testdata::generate((1 << 20) + 1, 3.5, 42);
    let want = [head, &long[..], tail].concat();
    let mut cuts = frames_of(head, 43, &[1, 3, 7, 64, 1000]);
    cuts.push((head.len(), long.len(), 2 << 20));
    let at = head.len() + long.len();
    cuts.extend(
        frames_of(tail, 44, &[5, 1024, 4096])
            .into_iter()
            .map(|(a, len, block)| (at + a, len, block)),
    );
    assert!(cuts.len() > 20, "{} frames", cuts.len());
    let specs = specs_of(&want, &cuts);
    let (file, _) = stream(&specs);
    for batch in [4 << 20, 5000] {
        let out = decode(&file, batch).unwrap_or_else(|e| panic!("batches of {batch}: {e}"));
        assert!(out == want, "batches of {batch}: other bytes");
        let what = format!("from a file, batches of {batch}");
        let (out, done) = common::decode_as_file(cuda, &file, 333, batch)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(out == want, "{what}: other bytes");
        assert_eq!(done.bytes_out, want.len() as u64, "{what}");
        assert_eq!(done.data_end, file.len() as u64, "{what}");
    }

    // Three frames of ten blocks, the middle one damaged: a flipped payload bit, and a
    // block offset moved by one bit (resealed), which blocks 2 and 3 disagree on.
    let data = testdata::generate(30_000, 4.5, 11);
    for block_symbols in [1000, 1024] {
        let specs = frames_of_10k(&data, block_symbols);
        let (file, written) = stream(&specs);
        assert!(decode(&file, 1 << 20).unwrap() == data);
        let w = &written[1];
        let mut flipped = file.clone();
        flipped[w.payload_at + 500] ^= 0x10;
        let mut moved = file.clone();
        let o = w.offsets_at + 4 * 3;
        let v = u32::from_le_bytes(moved[o..o + 4].try_into().unwrap()) + 1;
        moved[o..o + 4].copy_from_slice(&v.to_le_bytes());
        reseal(&mut moved, w);
        for (what, bad, said) in [
            ("flipped bit", &flipped, &["frame 1"][..]),
            ("wrong offset", &moved, &["frame 1", "block 3"][..]),
        ] {
            let what = format!("{what}, blocks of {block_symbols}");
            let e = decode(bad, 1 << 20)
                .map(|_| ())
                .expect_err(&format!("{what}: CUDA decoded a corrupt stream"))
                .to_string();
            for s in said {
                assert!(e.contains(s), "{what}: `{e}` does not say `{s}`");
            }
            let from_file = common::decode_as_file(cuda, bad, 0, 1 << 20)
                .map(|_| ())
                .expect_err(&format!("{what}: CUDA decoded a corrupt file"))
                .to_string();
            assert_eq!(from_file, e, "{what}: from a file");
        }
    }

    // The CLI, from a file compressed on the CPU.
    let dir = compressed_by_the_cli("cli-cuda", &small);
    let o = parvlc(
        &[
            "decompress",
            "--backend",
            "cuda",
            "--chunk-size",
            "16K",
            "in.bin.pvlc",
            "-o",
            "out.bin",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(dir.join("out.bin")).unwrap() == small);
    std::fs::remove_dir_all(&dir).unwrap();
}
