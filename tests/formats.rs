//! Whole-file compression on every backend present (wgpu, CUDA, CPU): both containers
//! round-trip, gzip output is read by gzip(1) and flate2, every backend's bytes equal the
//! CPU path's, and damaged files are errors that say what is wrong, never a panic or
//! wrong data.
mod common;
use common::judges::{flate2_decode, gzip_tool_decode, GZIP};
use common::serial;

use std::io::Write;
use std::process::{Command, Stdio};

use parvlc::gpu::Gpu;
use parvlc::huffman::compress::{
    compress_cpu, compress_gpu, decompress, detect_format, Compressed, Format, Stage,
};
use parvlc::huffman::cuvle::CuvleConfig;
use parvlc::huffman::native;
use parvlc::huffman::stream::{decompress_to, decompress_to_batched, Decompressed, Trailing};
use parvlc::scan::{ScanConfig, ScanStrategy};
use parvlc::testdata::{generate, SplitMix64};
use parvlc::{Engine, Error};

const FORMATS: [Format; 2] = [Format::Native, Format::Gzip];

/// 1 KiB blocks, so small inputs have many.
fn small_config() -> CuvleConfig {
    CuvleConfig {
        net: 4,
        scan: ScanConfig {
            workgroup_size: 64,
            ..ScanConfig::default()
        },
        max_segment_bytes: None,
        stage_words: None,
        host_output: false,
    }
}

fn gpu_compress(gpu: &Gpu, data: &[u8], format: Format, config: &CuvleConfig) -> Compressed {
    let mut stages = Vec::new();
    let out = pollster::block_on(compress_gpu(gpu, data, format, config, &mut |s| {
        stages.push(s)
    }))
    .unwrap_or_else(|e| panic!("compress_gpu {format:?}, {} bytes: {e}", data.len()));
    assert_eq!(
        stages,
        [
            Stage::Upload,
            Stage::Histogram,
            Stage::Encode,
            Stage::Readback,
            Stage::Container
        ],
        "progress stages"
    );
    out
}

/// A way to compress: a backend, or a particular GPU context.
type CompressFn = dyn Fn(&[u8], Format, &CuvleConfig) -> Compressed;
type Compress<'a> = &'a (dyn Fn(&[u8], Format, &CuvleConfig) -> Compressed + 'a);

/// Every backend present (wgpu, CUDA, CPU), as a compress function and its name.
fn backends() -> Vec<(String, Box<CompressFn>)> {
    common::engines()
        .into_iter()
        .map(|engine| {
            let f: Box<CompressFn> = Box::new(move |data, format, config| {
                common::compress(engine, data, format, config)
            });
            (engine.name(), f)
        })
        .collect()
}

/// Compress, check every reader returns the input and that the CPU path writes the same
/// bytes.
fn round_trip(
    compress: Compress,
    data: &[u8],
    config: &CuvleConfig,
    what: &str,
) -> [Compressed; 2] {
    FORMATS.map(|format| {
        let what = format!("{what}, {format:?}, {} bytes", data.len());
        let gpu_out = compress(data, format, config);
        let bytes = &gpu_out.bytes;
        assert_eq!(detect_format(bytes), Some(format), "{what}: detect_format");
        let back = decompress(bytes).unwrap_or_else(|e| panic!("{what}: decompress: {e}"));
        assert!(back == data, "{what}: decompress returned other data");
        match format {
            Format::Native => {
                let info = native::info_native(bytes).unwrap();
                assert!(info.contains("parvlc native"), "{what}: info: {info}");
            }
            Format::Gzip => {
                assert!(
                    flate2_decode(bytes) == data,
                    "{what}: flate2 returned other data"
                );
                assert!(
                    gzip_tool_decode(bytes) == data,
                    "{what}: gzip -dc returned other data"
                );
            }
        }
        let cpu_out = compress_cpu(data, format, config.block_bytes())
            .unwrap_or_else(|e| panic!("{what}: compress_cpu: {e}"));
        if let Some(i) =
            (0..bytes.len().min(cpu_out.bytes.len())).find(|&i| bytes[i] != cpu_out.bytes[i])
        {
            panic!("{what}: GPU and CPU files differ first at byte {i}");
        }
        assert_eq!(
            bytes.len(),
            cpu_out.bytes.len(),
            "{what}: GPU and CPU file sizes"
        );
        gpu_out
    })
}

#[test]
fn round_trips() {
    let _g = serial();
    for (name, compress) in backends() {
        let what = |w: &str| format!("{w} on {name}");
        let config = small_config();
        round_trip(compress.as_ref(), b"", &config, &what("empty"));
        round_trip(compress.as_ref(), b"x", &config, &what("one byte"));
        round_trip(compress.as_ref(), &[0], &config, &what("one zero byte"));
        round_trip(compress.as_ref(), &[255], &config, &what("one 0xff byte"));
        round_trip(
            compress.as_ref(),
            &vec![b'q'; 10_000],
            &config,
            &what("single symbol"),
        );
        round_trip(
            compress.as_ref(),
            &(0..=255u8).collect::<Vec<u8>>(),
            &config,
            &what("every byte once"),
        );
        for (i, entropy) in [0.5, 2.0, 4.5, 7.0, 8.0].into_iter().enumerate() {
            let n = [20_000usize, 33_333, 50_001, 4096, 65_536][i];
            round_trip(
                compress.as_ref(),
                &generate(n, entropy, 80 + i as u64),
                &config,
                &what(&format!("entropy {entropy}")),
            );
        }
        let mut rng = SplitMix64(81);
        for n in [1usize, 2, 3, 5, 1023, 1024, 1025, 3 * 1024 + 1] {
            let mut data = vec![0u8; n];
            rng.fill(&mut data);
            round_trip(compress.as_ref(), &data, &config, &what("random bytes"));
        }
    }
}

/// Skewed enough that both length limits bind (24 bits native, 15 bits DEFLATE).
#[test]
fn length_limits_bind() {
    let _g = serial();
    // 26 symbols at frequencies 1, 2, 3, 5, 8, ... (about 500k bytes): an unlimited
    // Huffman code is a chain 25 bits deep, with or without DEFLATE's end-of-block (1).
    let mut fib = vec![1usize, 2];
    while fib.len() < 26 {
        let k = fib.len();
        fib.push(fib[k - 1] + fib[k - 2]);
    }
    let mut data: Vec<u8> = Vec::new();
    for (i, &f) in fib.iter().enumerate() {
        data.extend(std::iter::repeat_n((i * 9 + 1) as u8, f));
    }
    let mut rng = SplitMix64(82);
    for i in (1..data.len()).rev() {
        data.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let book = parvlc::huffman::Codebook::from_frequencies(
        &parvlc::huffman::gzip::literal_frequencies(&parvlc::huffman::gzip::histogram(&data)),
        15,
    )
    .unwrap();
    assert_eq!(book.max_len(), 15, "the DEFLATE limit binds");
    for (name, compress) in backends() {
        let what = format!("Fibonacci-skewed on {name}");
        let [native_file, _] = round_trip(compress.as_ref(), &data, &small_config(), &what);
        let (header, _) = native::parse_native(&native_file.bytes).unwrap();
        let longest = header.lengths.iter().copied().max().unwrap();
        assert_eq!(
            longest,
            parvlc::huffman::compress::NATIVE_MAX_CODE_LEN,
            "{what}: the native limit binds"
        );
    }
}

/// Chained look-back on a software adapter may exhaust llvmpipe's loop budget while it
/// waits (docs/huffman.md, "Scan strategies"): detected and reported as an error, never
/// as wrong output, and accepted for chained on software adapters alone, as in
/// tests/cuvle.rs and tests/scan.rs (tests/scan.rs requires chained to be exact with one
/// workgroup, where nothing waits). For that case, each format's output made once here:
/// None when that error came up (the case is skipped), the outputs for the round trip's
/// checks otherwise; any other error fails. Outside that case, None of None: compress as
/// usual.
#[allow(clippy::type_complexity)]
fn chained_on_software(
    engine: &Engine,
    data: &[u8],
    config: &CuvleConfig,
) -> Option<Option<Vec<Compressed>>> {
    let software = match engine {
        Engine::Wgpu(gpu) => gpu.info.device_type == wgpu::DeviceType::Cpu,
        _ => false,
    };
    if config.scan.strategy != ScanStrategy::Chained || !software {
        return None;
    }
    let mut outs = Vec::new();
    for format in FORMATS {
        let mut progress = |_| {};
        let run = parvlc::huffman::compress(engine, data, format, config, &mut progress);
        match pollster::block_on(run) {
            Ok(out) => outs.push(out),
            Err(e @ (Error::ScanStalled { .. } | Error::Gpu { .. })) => {
                eprintln!(
                    "chained on {}: accepted error on a software adapter: {e}",
                    engine.name()
                );
                return Some(None);
            }
            Err(e) => panic!("chained on {}, {format:?}: {e}", engine.name()),
        }
    }
    Some(Some(outs))
}

#[test]
fn many_segments_and_strategies() {
    let _g = serial();
    let data = generate(60_003, 5.0, 83);
    for engine in common::engines() {
        let compress = |d: &[u8], f: Format, c: &CuvleConfig| common::compress(engine, d, f, c);
        let name = engine.name();
        for strategy in ScanStrategy::ALL {
            let mut config = small_config();
            config.scan.strategy = strategy;
            config.max_segment_bytes = Some(4096);
            let made = chained_on_software(engine, &data, &config);
            if matches!(made, Some(None)) {
                continue;
            }
            let made = made.flatten();
            let compress = |d: &[u8], f: Format, c: &CuvleConfig| match &made {
                Some(outs) => outs[FORMATS.iter().position(|&g| g == f).unwrap()].clone(),
                None => common::compress(engine, d, f, c),
            };
            for out in round_trip(
                &compress,
                &data,
                &config,
                &format!("{} segments on {name}", strategy.name()),
            ) {
                if engine.backend() != parvlc::Backend::Cpu {
                    assert!(out.segments > 1, "{} segments on {name}", out.segments);
                }
            }
        }
        round_trip(
            &compress,
            &data,
            &CuvleConfig::default(),
            &format!("default config on {name}"),
        );
    }
    if common::enabled(parvlc::Backend::Wgpu) {
        let wg = common::gpu_workgroup_flavour();
        let config = CuvleConfig {
            max_segment_bytes: Some(8192),
            stage_words: None,
            ..small_config()
        };
        round_trip(
            &|d: &[u8], f: Format, c: &CuvleConfig| gpu_compress(wg, d, f, c),
            &data,
            &config,
            "workgroup flavour, segments",
        );
    }
}

/// A small multi-block native file made on the GPU.
fn small_native(gpu: &Gpu, data: &[u8]) -> Vec<u8> {
    let config = CuvleConfig {
        net: 4,
        scan: ScanConfig {
            workgroup_size: 32,
            ..ScanConfig::default()
        },
        max_segment_bytes: None,
        stage_words: None,
        host_output: false,
    };
    gpu_compress(gpu, data, Format::Native, &config).bytes
}

fn message(e: &Error) -> String {
    e.to_string()
}

/// `decompress` of damaged data: an error (never a panic, never data).
fn must_fail(file: &[u8], what: &str) -> Error {
    match std::panic::catch_unwind(|| decompress(file)) {
        Err(_) => panic!("{what}: decompress panicked"),
        Ok(Ok(out)) => panic!(
            "{what}: decompress returned {} bytes instead of an error",
            out.len()
        ),
        Ok(Err(e)) => e,
    }
}

#[test]
fn every_single_bit_flip_of_a_native_file_is_an_error() {
    let _g = serial();
    let gpu = common::gpu();
    let inputs = [
        Vec::new(),
        vec![b'z'],
        vec![7u8; 700],
        generate(1500, 4.0, 84), // three 512-byte blocks
    ];
    for data in &inputs {
        let file = small_native(gpu, data);
        assert_eq!(decompress(&file).unwrap(), *data);
        let mut flips = 0;
        for bit in 0..file.len() * 8 {
            let mut bad = file.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            let e = must_fail(
                &bad,
                &format!(
                    "{} bytes, flip of bit {bit} of {}",
                    data.len(),
                    file.len() * 8
                ),
            );
            assert!(!message(&e).is_empty());
            flips += 1;
        }
        assert_eq!(flips, file.len() * 8);
    }
}

#[test]
fn truncated_files_are_errors() {
    let _g = serial();
    let gpu = common::gpu();
    let data = generate(1500, 4.0, 85);
    let file = small_native(gpu, &data);
    let (header, _) = native::parse_native(&file).unwrap();
    let header_len = header.encoded_len();
    for cut in 0..file.len() {
        let what = format!("native file cut to {cut} of {} bytes", file.len());
        let e = must_fail(&file[..cut], &what);
        let msg = message(&e);
        if cut < native::MAGIC.len() {
            assert!(msg.contains("not a"), "{what}: {msg}");
        } else if cut < header_len {
            assert!(msg.contains("truncated"), "{what}: {msg}");
        } else {
            // The header is whole; the payload is short.
            assert!(
                msg.contains("truncated")
                    || (msg.contains("payload") && msg.contains("header says")),
                "{what}: {msg}"
            );
        }
    }
    // Trailing bytes are an error too.
    let mut long = file.clone();
    long.push(0);
    let msg = message(&must_fail(&long, "native file with a trailing byte"));
    assert!(msg.contains("payload"), "{msg}");

    for format in [Format::Gzip] {
        let gz = gpu_compress(gpu, &data, format, &small_config()).bytes;
        for cut in 0..gz.len() {
            let what = format!("gzip file cut to {cut} of {} bytes", gz.len());
            let msg = message(&must_fail(&gz[..cut], &what));
            assert!(msg.contains("gzip"), "{what}: {msg}");
        }
    }
}

#[test]
fn errors_name_the_problem() {
    let _g = serial();
    let gpu = common::gpu();
    let data = generate(3000, 3.0, 86);
    let file = small_native(gpu, &data);

    // Not ours at all.
    for junk in [
        &b""[..],
        b"P",
        b"PVL",
        b"GZIP",
        b"hello world",
        &[0x1f][..],
        &[0u8; 64][..],
    ] {
        let e = must_fail(junk, &format!("{junk:02x?}"));
        assert!(matches!(e, Error::BadMagic { .. }), "{junk:02x?}: {e:?}");
        assert!(message(&e).contains("not a"), "{}", message(&e));
    }
    let mut v = file.clone();
    v[0] = b'Q';
    let e = must_fail(&v, "wrong magic");
    assert!(message(&e).contains("not a"), "{}", message(&e));
    assert!(matches!(
        native::decompress_native(&v),
        Err(Error::BadMagic { .. })
    ));

    // A version this build does not read (1 is the whole-file format, 2 the framed one).
    let mut v = file.clone();
    v[4] = parvlc::huffman::framing::VERSION_FRAMED + 1;
    let msg = message(&must_fail(&v, "version"));
    assert!(
        msg.contains("unsupported") && msg.contains("version"),
        "{msg}"
    );

    // A damaged header: its checksum says so.
    let mut v = file.clone();
    v[12] ^= 0x10;
    let msg = message(&must_fail(&v, "header byte"));
    assert!(msg.contains("checksum"), "{msg}");

    // A valid header whose data checksum does not match the decoded data.
    let (mut header, payload) = native::parse_native(&file).unwrap();
    header.crc32 ^= 0x8000_0000;
    let mut v = Vec::new();
    native::write_native(&mut v, &header, payload).unwrap();
    let e = must_fail(&v, "data checksum");
    assert!(matches!(e, Error::Checksum { .. }), "{e:?}");
    assert!(message(&e).contains("checksum"), "{}", message(&e));

    // Payload damage: an error whatever it hits.
    let (header, payload) = native::parse_native(&file).unwrap();
    let start = header.encoded_len();
    for at in [0usize, 1, payload.len() / 2, payload.len() - 1] {
        let mut v = file.clone();
        v[start + at] ^= 0xa5;
        let msg = message(&must_fail(&v, &format!("payload byte {at}")));
        assert!(
            msg.contains("corrupt") || msg.contains("checksum"),
            "payload byte {at}: {msg}"
        );
    }

    // Garbage after a valid magic and version, and random files: errors, no panic.
    let mut rng = SplitMix64(87);
    for n in [5usize, 8, 40, 300, 400, 2000] {
        for _ in 0..20 {
            let mut v = vec![0u8; n];
            rng.fill(&mut v);
            v[..4].copy_from_slice(native::MAGIC);
            v[4] = native::VERSION;
            must_fail(&v, &format!("{n} random bytes after the magic"));
            v[..2].copy_from_slice(&[0x1f, 0x8b]);
            must_fail(&v, &format!("{n} random bytes after the gzip magic"));
        }
    }

    // A damaged gzip body or trailer.
    let gz = gpu_compress(gpu, &data, Format::Gzip, &small_config()).bytes;
    let n = gz.len();
    for at in [n - 8, n - 5, n - 1] {
        let mut v = gz.clone();
        v[at] ^= 0x01;
        let msg = message(&must_fail(&v, &format!("gzip trailer byte {at}")));
        assert!(msg.contains("gzip"), "{msg}");
    }
}

/// A writer that keeps what it is given and the size of every write.
#[derive(Debug, Default)]
struct Recorder {
    data: Vec<u8>,
    writes: Vec<usize>,
}

impl Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.data.extend_from_slice(buf);
        self.writes.push(buf.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Streaming decode of `file` in batches of `batch` bytes, every write within a batch.
fn stream_native(file: &[u8], batch: usize) -> Result<(Decompressed, Recorder), Error> {
    let mut out = Recorder::default();
    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        decompress_to_batched(&mut &file[..], &mut out, batch)
    }))
    .unwrap_or_else(|_| panic!("decompress_to_batched panicked (batch {batch})"))?;
    assert!(
        out.writes.iter().all(|&w| w <= batch),
        "batch {batch}: writes of {:?} bytes",
        out.writes
    );
    Ok((done, out))
}

/// Native files decode in batches of any size: whole blocks per batch, blocks longer
/// than a batch in parts, every alignment of batch and block boundaries.
#[test]
fn native_streams_in_batches_of_any_size() {
    let data = generate(3001, 4.0, 90);
    for block in [1u64, 7, 64, 1000, 4096] {
        let file = compress_cpu(&data, Format::Native, block).unwrap().bytes;
        let mut batches: Vec<usize> = (1..=70).collect();
        batches.extend([
            127,
            128,
            129,
            999,
            1000,
            1001,
            2999,
            3000,
            3001,
            3002,
            1 << 20,
        ]);
        for batch in batches {
            let (done, out) = stream_native(&file, batch)
                .unwrap_or_else(|e| panic!("block {block}, batch {batch}: {e}"));
            assert!(out.data == data, "block {block}, batch {batch}: other data");
            // Whole blocks fill a batch as far as they fit; a longer block goes in
            // batch-sized parts: every write is a full batch or ends at a block's end.
            let (n, block) = (data.len(), block as usize);
            let mut pos = 0;
            for (i, &w) in out.writes.iter().enumerate() {
                pos += w;
                let what = format!("block {block}, batch {batch}, write {i} of {w} bytes");
                assert!(w == batch || pos % block == 0 || pos == n, "{what}");
                if block <= batch && pos < n {
                    assert!(w > batch - block, "{what}: the batch is not filled");
                }
            }
            assert_eq!(
                (done.format, done.bytes_out, done.data_end, done.trailing),
                (Format::Native, 3001, file.len() as u64, Trailing::None)
            );
        }
    }
    // The empty file and the one-shot API share the same decoder.
    let empty = compress_cpu(b"", Format::Native, 64).unwrap().bytes;
    let (done, out) = stream_native(&empty, 1).unwrap();
    assert_eq!((done.bytes_out, out.data.len()), (0, 0));
    let big = generate(300_000, 5.0, 91);
    let file = compress_cpu(&big, Format::Native, 4096).unwrap().bytes;
    assert!(decompress(&file).unwrap() == big);
    assert!(decompress_to(&mut &file[..], &mut Recorder::default()).is_ok());
}

/// Damage anywhere is an error in every batch layout, also where earlier batches were
/// already written (the caller discards them), and never a panic.
#[test]
fn native_stream_damage_is_an_error_in_every_batch() {
    let data = generate(400, 4.0, 92);
    let file = compress_cpu(&data, Format::Native, 32).unwrap().bytes;
    let (header, _) = native::parse_native(&file).unwrap();
    let payload_start = header.encoded_len();
    for batch in [1usize, 5, 32, 33, 100, 1000] {
        for bit in 0..file.len() * 8 {
            let mut bad = file.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(
                stream_native(&bad, batch).is_err(),
                "batch {batch}: flip of bit {bit} went unnoticed"
            );
        }
        for cut in 0..file.len() {
            let e = stream_native(&file[..cut], batch).unwrap_err();
            let msg = message(&e);
            if cut >= payload_start {
                assert!(
                    msg.contains("truncated") && msg.contains("header says"),
                    "cut {cut}: {msg}"
                );
            }
        }
        let mut long = file.clone();
        long.push(0);
        let msg = message(&stream_native(&long, batch).unwrap_err());
        assert!(msg.contains("payload is longer"), "{msg}");
    }
    // A flip in the last block: the first batches are written before the error.
    let mut bad = file.clone();
    let last = bad.len() - 1;
    bad[last - 1] ^= 0x04;
    let mut out = Recorder::default();
    let e = decompress_to_batched(&mut &bad[..], &mut out, 32).unwrap_err();
    assert!(
        out.data.len() >= 32 && out.data[..32] == data[..32],
        "{e}: {} bytes written before the error",
        out.data.len()
    );
    // A header whose data checksum is wrong: the error comes after all data was written.
    let (mut header, payload) = native::parse_native(&file).unwrap();
    header.crc32 ^= 1;
    let mut v = Vec::new();
    native::write_native(&mut v, &header, payload).unwrap();
    let mut out = Recorder::default();
    let e = decompress_to_batched(&mut &v[..], &mut out, 7).unwrap_err();
    assert!(matches!(e, Error::Checksum { .. }), "{e:?}");
    assert!(out.data == data);
}

/// A header that claims many blocks allocates only what the file holds.
#[test]
fn native_header_allocation_follows_the_bytes_present() {
    let file = compress_cpu(&generate(1000, 3.0, 93), Format::Native, 64)
        .unwrap()
        .bytes;
    // n_blocks at bytes 24..28: u32::MAX blocks (32 GiB of offsets) in a 1 kB file.
    let mut v = file.clone();
    v[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
    let msg = message(&must_fail(&v, "4 billion blocks"));
    assert!(msg.contains("truncated header"), "{msg}");
    let msg = message(&stream_native(&v, 64).unwrap_err());
    assert!(msg.contains("truncated header"), "{msg}");
}

/// `gzip -dc` of `gz`: its exit status and output.
fn gzip_dc(gz: &[u8]) -> (i32, Vec<u8>) {
    let mut child = Command::new(GZIP)
        .arg("-dc")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {GZIP}: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let data = gz.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (out.status.code().unwrap(), out.stdout)
}

/// What follows a gzip member, decided as gzip decides it: the same output, and our
/// outcome (success, success with a trailing-garbage warning, error) matching gzip's exit
/// status (0, 2, 1).
#[test]
fn gzip_trailing_data_as_gzip_reads_it() {
    let a = generate(5000, 3.0, 94);
    let b = generate(3000, 6.0, 95);
    let ga = compress_cpu(&a, Format::Gzip, 1024).unwrap().bytes;
    let gb = compress_cpu(&b, Format::Gzip, 1024).unwrap().bytes;
    let cat = |parts: &[&[u8]]| parts.concat();
    let cases: Vec<(&str, Vec<u8>, Trailing)> = vec![
        ("one member", ga.clone(), Trailing::None),
        ("two members", cat(&[&ga, &gb]), Trailing::None),
        ("one zero byte", cat(&[&ga, &[0]]), Trailing::Zeros),
        ("zeros", cat(&[&ga, &[0; 1000]]), Trailing::Zeros),
        (
            "two members, zeros",
            cat(&[&ga, &gb, &[0; 9]]),
            Trailing::Zeros,
        ),
        ("garbage", cat(&[&ga, b"garbage"]), Trailing::Garbage),
        (
            "two members, garbage",
            cat(&[&ga, &gb, b"xy"]),
            Trailing::Garbage,
        ),
        (
            "zeros then garbage",
            cat(&[&ga, &[0; 10], b"x"]),
            Trailing::Garbage,
        ),
        (
            "zeros then a member",
            cat(&[&ga, &[0; 3], &gb]),
            Trailing::Garbage,
        ),
        (
            "a zip header",
            cat(&[&ga, b"PK\x03\x04abcd"]),
            Trailing::Garbage,
        ),
        (
            "0x1f and a letter",
            cat(&[&ga, b"\x1fA"]),
            Trailing::Garbage,
        ),
    ];
    for (what, gz, trailing) in &cases {
        let mut out = Vec::new();
        let done = decompress_to(&mut &gz[..], &mut out).unwrap_or_else(|e| panic!("{what}: {e}"));
        let (status, gzip_out) = gzip_dc(gz);
        assert_eq!(done.trailing, *trailing, "{what}");
        let want_status = if *trailing == Trailing::Garbage { 2 } else { 0 };
        assert_eq!(status, want_status, "{what}: gzip -dc's exit status");
        assert!(out == gzip_out, "{what}: other output than gzip -dc");
        assert_eq!(done.bytes_out, out.len() as u64, "{what}");
        let members = if gz.starts_with(&cat(&[&ga, &gb])) {
            2
        } else {
            1
        };
        assert_eq!(done.members, members, "{what}");
        let end = if members == 2 {
            ga.len() + gb.len()
        } else {
            ga.len()
        };
        assert_eq!(done.data_end, end as u64, "{what}: where the members end");
        // The one-shot API: trailing zeros are fine, garbage an error that says so.
        match (decompress(gz), trailing) {
            (Ok(v), Trailing::None | Trailing::Zeros) => assert!(v == out, "{what}"),
            (Err(e), Trailing::Garbage) => {
                assert!(message(&e).contains("trailing garbage"), "{what}: {e}")
            }
            (r, _) => panic!("{what}: decompress gave {:?}", r.map(|v| v.len())),
        }
    }
    // Errors where gzip fails too (status 1): a lone byte, a cut or damaged second
    // member, a format gzip reads and we do not.
    let mut damaged = cat(&[&ga, &gb]);
    let at = damaged.len() - 3;
    damaged[at] ^= 1;
    let errors: Vec<(&str, Vec<u8>)> = vec![
        ("one byte", cat(&[&ga, b"A"])),
        ("a lone 0x1f", cat(&[&ga, &[0x1f]])),
        ("a gzip magic only", cat(&[&ga, &[0x1f, 0x8b]])),
        ("a cut member", cat(&[&ga, &gb[..gb.len() / 2]])),
        ("a damaged member", damaged),
        (
            "a bad method",
            cat(&[&ga, &[0x1f, 0x8b, 9, 0, 0, 0, 0, 0, 0, 3, 1, 2]]),
        ),
        ("compress data", cat(&[&ga, b"\x1f\x9d\x90abc"])),
    ];
    for (what, gz) in &errors {
        let (status, _) = gzip_dc(gz);
        assert_eq!(status, 1, "{what}: gzip -dc's exit status");
        let mut out = Vec::new();
        let e = decompress_to(&mut &gz[..], &mut out).expect_err(what);
        assert!(message(&e).contains("gzip"), "{what}: {e}");
        must_fail(gz, what);
    }
}

/// A block that claims more payload bits than its symbols can fill is refused before its
/// bytes are read: what a batch reads is bounded by its output.
#[test]
fn native_block_spans_are_bounded_before_reading() {
    let data = generate(1000, 3.0, 96);
    let file = compress_cpu(&data, Format::Native, 64).unwrap().bytes;
    let (mut header, payload) = native::parse_native(&file).unwrap();
    let pad = 1 << 20;
    header.payload_bits += 8 * pad as u64;
    let mut v = Vec::new();
    native::write_native(&mut v, &header, &[payload, &vec![0; pad]].concat()).unwrap();
    // Only the header and the real payload are there; the padding is not.
    let cut = &v[..file.len()];
    let last = header.block_offsets.len() - 1;
    for batch in [1, 64, 1 << 20] {
        let msg = message(&stream_native(cut, batch).unwrap_err());
        assert!(
            msg.contains(&format!("block {last} has bits")) && msg.contains("at most"),
            "batch {batch}: {msg}"
        );
    }
    let msg = message(&must_fail(&v, "a padded last block"));
    assert!(msg.contains(&format!("block {last} has bits")), "{msg}");
}

/// Hostile headers with valid header checksums (fields changed, then re-signed), read
/// in random batch sizes: errors or the right length, never a panic.
#[test]
fn native_stream_survives_resigned_hostile_headers() {
    let data = generate(2000, 4.0, 97);
    let file = compress_cpu(&data, Format::Native, 100).unwrap().bytes;
    let (header, payload) = native::parse_native(&file).unwrap();
    let mut rng = SplitMix64(98);
    let (mut decoded, mut reached) = (0, 0);
    for i in 0..3000 {
        let mut h = header.clone();
        let mut p = payload.to_vec();
        for _ in 0..1 + rng.below(3) {
            let r = rng.next_u64();
            match rng.below(7) {
                0 => h.original_len = [r % 4000, r, u64::MAX, 0][rng.below(4) as usize],
                1 => {
                    h.block_symbols = [r as u32 % 300, r as u32, u32::MAX, 0][rng.below(4) as usize]
                }
                2 => {
                    h.payload_bits =
                        [r % 40_000, r >> 40, h.payload_bits + 1][rng.below(3) as usize]
                }
                3 if !h.block_offsets.is_empty() => {
                    let k = rng.below(h.block_offsets.len() as u64) as usize;
                    h.block_offsets[k] =
                        [r % 20_000, r, h.block_offsets[k] + 1][rng.below(3) as usize];
                }
                4 => h.block_offsets.truncate(rng.below(25) as usize),
                5 => h.lengths[rng.below(256) as usize] = (r % 40) as u8,
                _ => {
                    let k = rng.below(p.len() as u64) as usize;
                    p[k] ^= r as u8;
                }
            }
        }
        // Mostly a consistent block count, so that most cases reach the decoder.
        if h.block_symbols > 0 && rng.below(4) != 0 {
            let n = h.original_len.div_ceil(h.block_symbols as u64);
            if n <= 5000 {
                let step = 1 + rng.below(2 * h.block_symbols as u64);
                let at = |k: usize| k as u64 * step;
                h.block_offsets = (0..n as usize).map(at).collect();
                h.payload_bits = h.payload_bits.max(h.original_len);
            }
        }
        // The payload as long as the header says, where that is small enough to make.
        let want = h.payload_bits.div_ceil(8);
        if want > 1 << 16 {
            continue;
        }
        p.resize(want as usize, 0);
        let mut v = Vec::new();
        native::write_native(&mut v, &h, &p).unwrap();
        let batch = [1, 7, 64, 100, 101, 1 << 20][rng.below(6) as usize];
        let mut out = Vec::new();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            decompress_to_batched(&mut &v[..], &mut out, batch)
        }))
        .unwrap_or_else(|_| panic!("case {i}: panic on {h:?} (batch {batch})"));
        if native::parse_native(&v).is_ok() {
            reached += 1;
        }
        if let Ok(done) = r {
            assert_eq!(done.bytes_out, out.len() as u64, "case {i}");
            assert_eq!(done.bytes_out, h.original_len, "case {i}");
            decoded += 1;
        }
        assert_eq!(
            decompress(&v).is_ok(),
            r.is_ok(),
            "case {i}: one-shot and stream differ"
        );
    }
    assert!(decoded < 3000, "no case was refused");
    assert!(reached > 1000, "{reached} headers reached the decoder");
}
