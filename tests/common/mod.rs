#![allow(dead_code)]
//! What the test suites run on. Each suite is written once and run against every backend
//! present: wgpu (required: CI runs on lavapipe; a missing adapter fails the tests rather
//! than skipping them, so a broken driver install cannot pass silently), CUDA (the `cuda`
//! feature; skipped with the reason printed where the feature is off or no driver is
//! found, unless `PARVLC_REQUIRE_CUDA=1`), and the CPU.
//!
//! `PARVLC_TEST_BACKENDS=cuda` (a comma list of wgpu, cuda, cpu) restricts the suites to
//! some backends, e.g. for the compute-sanitizer runs.

pub mod cli;
pub mod gzip_members;
pub mod j2k_images;
pub mod j2k_judges;
pub mod judges;
pub mod rng;

use std::sync::{Arc, OnceLock};

use parvlc::gpu::{Gpu, GpuOptions};
use parvlc::huffman::compress::{Compressed, Format, Stage};
use parvlc::huffman::cuvle::{CuvleConfig, Encoded, VleEncoder};
use parvlc::huffman::{BitOrder, CodeTable};
use parvlc::{Backend, Engine};

/// Whether the suites run on `backend` (PARVLC_TEST_BACKENDS; all by default).
pub fn enabled(backend: Backend) -> bool {
    match std::env::var("PARVLC_TEST_BACKENDS") {
        Ok(list) => list.split(',').any(|b| b.trim() == backend.name()),
        Err(_) => true,
    }
}

/// One wgpu engine per test binary.
pub fn wgpu_engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::from(open(GpuOptions::default())))
}

/// The wgpu engine's GPU.
pub fn gpu() -> &'static Gpu {
    match wgpu_engine().gpu() {
        Some(g) => g,
        None => unreachable!("the wgpu engine holds a wgpu GPU"),
    }
}

/// A second context as a browser runs the stages: subgroups off (the workgroup-memory
/// flavour), naga's runtime checks kept in every module, and no mapped buffer used as
/// storage (uploads and outputs copied). The default context proves the modules built
/// without the checks, and the paths that copy less.
pub fn gpu_workgroup_flavour() -> &'static Gpu {
    gpu_workgroup_flavour_shared()
}

/// [`gpu_workgroup_flavour`] for stages that keep the GPU (`Arc<Gpu>`).
pub fn gpu_workgroup_flavour_shared() -> &'static Arc<Gpu> {
    static GPU: OnceLock<Arc<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| {
        Arc::new(open(GpuOptions {
            allow_subgroups: false,
            allow_mapped_storage: false,
            runtime_checks: true,
            ..Default::default()
        }))
    })
}

fn open(options: GpuOptions) -> Gpu {
    let _ = env_logger::builder().is_test(true).try_init();
    match pollster::block_on(Gpu::new(options)) {
        Ok(g) => g,
        Err(e) => {
            panic!("tests need a GPU adapter (lavapipe: apt-get install mesa-vulkan-drivers): {e}")
        }
    }
}

/// Why CUDA is not tested here, printed once per test binary; a failure instead where
/// PARVLC_REQUIRE_CUDA=1 (the GPU machine, where skipping would hide a broken path).
fn skip_cuda(reason: &str) {
    if std::env::var("PARVLC_REQUIRE_CUDA").is_ok_and(|v| v == "1") {
        panic!("PARVLC_REQUIRE_CUDA=1 but CUDA is unavailable: {reason}");
    }
    // Straight to stderr, past the test harness's capture, so the reason is always seen.
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "skipping the CUDA tests: {reason}");
    });
}

/// The CUDA engine, where the suites run on CUDA, this build has the feature and a
/// driver is found (else skipped with the reason printed, or failed under
/// PARVLC_REQUIRE_CUDA=1).
#[cfg(feature = "cuda")]
pub fn cuda_engine() -> Option<&'static Engine> {
    if !enabled(Backend::Cuda) {
        return None;
    }
    static ENGINE: OnceLock<Option<Engine>> = OnceLock::new();
    let engine = ENGINE
        .get_or_init(|| {
            let _ = env_logger::builder().is_test(true).try_init();
            match parvlc::cuda::CudaGpu::new() {
                Ok(c) => Some(Engine::Cuda(Box::new(c), Default::default())),
                Err(e) => {
                    skip_cuda(&e.to_string());
                    None
                }
            }
        })
        .as_ref();
    if engine.is_none() {
        skip_cuda("no CUDA device (see above)");
    }
    engine
}

/// The CUDA device, where this build has the feature and a driver is found.
#[cfg(feature = "cuda")]
pub fn cuda() -> Option<&'static parvlc::cuda::CudaGpu> {
    match cuda_engine()? {
        Engine::Cuda(c, _) => Some(c),
        _ => None,
    }
}

/// A GPU encoder the suites check: the wgpu path, and the CUDA path in both of its
/// write modes.
pub trait Vle: Sync {
    fn name(&self) -> String;
    /// A software adapter, where a chained wait may give up (with an error, never wrong
    /// output): lavapipe cuts every shader loop after 65535 iterations.
    fn software(&self) -> bool;
    /// Whether this configuration is accepted (the encoder's constructor).
    fn accepts(&self, config: &CuvleConfig) -> parvlc::Result<()>;
    fn encode(
        &self,
        data: &[u8],
        table: &CodeTable,
        order: BitOrder,
        start_bit: u32,
        config: &CuvleConfig,
    ) -> parvlc::Result<Encoded>;
}

impl Vle for Gpu {
    fn name(&self) -> String {
        format!("wgpu ({})", self.adapter_name())
    }
    fn software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }
    fn accepts(&self, config: &CuvleConfig) -> parvlc::Result<()> {
        VleEncoder::new(self, *config).map(|_| ())
    }
    fn encode(
        &self,
        data: &[u8],
        table: &CodeTable,
        order: BitOrder,
        start_bit: u32,
        config: &CuvleConfig,
    ) -> parvlc::Result<Encoded> {
        pollster::block_on(VleEncoder::new(self, *config)?.encode(data, table, order, start_bit))
    }
}

/// The CUDA encoder with one tuning.
#[cfg(feature = "cuda")]
pub struct CudaVle {
    pub gpu: &'static parvlc::cuda::CudaGpu,
    pub tuning: parvlc::cuda::CudaConfig,
}

#[cfg(feature = "cuda")]
impl Vle for CudaVle {
    fn name(&self) -> String {
        format!(
            "cuda ({}, {} write, stage {} bits/byte)",
            self.gpu.adapter_name(),
            self.tuning.write.name(),
            self.tuning.stage_bits_per_byte
        )
    }
    fn software(&self) -> bool {
        false
    }
    fn accepts(&self, config: &CuvleConfig) -> parvlc::Result<()> {
        parvlc::cuda::CudaVleEncoder::with_tuning(self.gpu, *config, self.tuning).map(|_| ())
    }
    fn encode(
        &self,
        data: &[u8],
        table: &CodeTable,
        order: BitOrder,
        start_bit: u32,
        config: &CuvleConfig,
    ) -> parvlc::Result<Encoded> {
        parvlc::cuda::CudaVleEncoder::with_tuning(self.gpu, *config, self.tuning)?
            .encode(data, table, order, start_bit)
    }
}

/// The CUDA encoders: warp-cooperative writes (the default) and the paper's direct ones.
pub fn cuda_vles() -> Vec<&'static dyn Vle> {
    #[cfg(feature = "cuda")]
    {
        use parvlc::cuda::{CudaConfig, CudaWrite};
        static VLES: OnceLock<Vec<CudaVle>> = OnceLock::new();
        let Some(gpu) = cuda() else {
            return Vec::new();
        };
        VLES.get_or_init(|| {
            [CudaWrite::Warp, CudaWrite::Direct]
                .into_iter()
                .map(|write| CudaVle {
                    gpu,
                    tuning: CudaConfig {
                        write,
                        ..Default::default()
                    },
                })
                .collect()
        })
        .iter()
        .map(|v| v as &dyn Vle)
        .collect()
    }
    #[cfg(not(feature = "cuda"))]
    {
        if enabled(Backend::Cuda) {
            skip_cuda("this build has no `cuda` feature (cargo test --features cuda)");
        }
        Vec::new()
    }
}

/// Every GPU encoder present: wgpu, then CUDA.
pub fn vles() -> Vec<&'static dyn Vle> {
    let mut v: Vec<&'static dyn Vle> = Vec::new();
    if enabled(Backend::Wgpu) {
        v.push(gpu());
    }
    v.extend(cuda_vles());
    v
}

/// Every backend present, for whole-file compression: wgpu, CUDA, the CPU.
pub fn engines() -> Vec<&'static Engine> {
    static CPU: Engine = Engine::Cpu;
    let mut v: Vec<&'static Engine> = Vec::new();
    if enabled(Backend::Wgpu) {
        v.push(wgpu_engine());
    }
    #[cfg(feature = "cuda")]
    v.extend(cuda_engine());
    #[cfg(not(feature = "cuda"))]
    let _ = cuda_vles();
    if enabled(Backend::Cpu) {
        v.push(&CPU);
    }
    v
}

/// Compress on `engine`, checking the progress stages it reports.
pub fn compress(engine: &Engine, data: &[u8], format: Format, config: &CuvleConfig) -> Compressed {
    let mut stages = Vec::new();
    let out = pollster::block_on(parvlc::huffman::compress(
        engine,
        data,
        format,
        config,
        &mut |s| stages.push(s),
    ))
    .unwrap_or_else(|e| {
        panic!(
            "compress on {} {format:?}, {} bytes: {e}",
            engine.name(),
            data.len()
        )
    });
    let want: &[Stage] = if engine.backend() == Backend::Cpu {
        &[Stage::Encode]
    } else {
        &[
            Stage::Upload,
            Stage::Histogram,
            Stage::Encode,
            Stage::Readback,
            Stage::Container,
        ]
    };
    assert_eq!(stages, want, "progress stages on {}", engine.name());
    out
}

/// GPU tests in one binary run one at a time: lavapipe has two cores, and timing-free
/// tests are still easier to read alone. A failed test must not poison the others.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn histogram(data: &[u8]) -> [u64; 256] {
    use parvlc::huffman::histogram::{histogram_cpu, total_histogram};
    total_histogram(&histogram_cpu(data, data.len().max(1)))
}

/// The optimal code for `data`'s own histogram, no code longer than `max_len`.
pub fn table_for(data: &[u8], max_len: u8) -> parvlc::huffman::CodeTable {
    parvlc::huffman::Codebook::from_frequencies(&histogram(data), max_len)
        .unwrap()
        .table()
        .unwrap()
}

/// Bit-for-bit comparison of two streams, naming the first difference.
pub fn same_bits(
    got: &parvlc::huffman::BitBuf,
    want: &parvlc::huffman::BitBuf,
    what: &str,
) -> Result<(), String> {
    if got.bits != want.bits || got.bytes.len() != want.bytes.len() {
        return Err(format!(
            "{what}: {} bits in {} bytes, expected {} bits in {} bytes",
            got.bits,
            got.bytes.len(),
            want.bits,
            want.bytes.len()
        ));
    }
    match (0..want.bytes.len()).find(|&i| got.bytes[i] != want.bytes[i]) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: first difference in byte {i} of {} (stream bits {}..{}): got {:08b} want {:08b}",
            want.bytes.len(),
            i * 8,
            i * 8 + 8,
            got.bytes[i],
            want.bytes[i]
        )),
    }
}

pub fn assert_same_bits(got: &parvlc::huffman::BitBuf, want: &parvlc::huffman::BitBuf, what: &str) {
    if let Err(e) = same_bits(got, want, what) {
        panic!("{e}");
    }
}

/// `stream` decoded as a regular file on `engine` (native frames and gzip: read at their
/// offsets), the file holding `skip` bytes of something else first, its position at the
/// stream: the output, or the error. For a native framed or a gzip stream on unix, checks
/// that the file's position did not move: every read was positional.
pub fn decode_as_file(
    engine: &Engine,
    stream: &[u8],
    skip: usize,
    batch_bytes: usize,
) -> parvlc::Result<(Vec<u8>, parvlc::huffman::stream::Decompressed)> {
    decode_as_file_with(stream, skip, |file, out| {
        parvlc::huffman::stream::decompress_file_on(engine, file, out, batch_bytes)
    })
}

/// [`decode_as_file`] through `decode` (the file, positioned at the stream, and the
/// output).
pub fn decode_as_file_with(
    stream: &[u8],
    skip: usize,
    decode: impl FnOnce(
        &std::fs::File,
        &mut Vec<u8>,
    ) -> parvlc::Result<parvlc::huffman::stream::Decompressed>,
) -> parvlc::Result<(Vec<u8>, parvlc::huffman::stream::Decompressed)> {
    use std::io::{Seek, SeekFrom};
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "parvlc-decode-as-file-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let mut bytes = vec![0xa5u8; skip];
    bytes.extend_from_slice(stream);
    std::fs::write(&path, &bytes).unwrap();
    let mut file = std::fs::File::open(&path).unwrap();
    file.seek(SeekFrom::Start(skip as u64)).unwrap();
    let mut out = Vec::new();
    let done = decode(&file, &mut out);
    let at = file.stream_position().unwrap();
    drop(file);
    std::fs::remove_file(&path).unwrap();
    if cfg!(unix) && (stream.starts_with(b"PVLC\x02") || stream.starts_with(&[0x1f, 0x8b])) {
        assert_eq!(
            at, skip as u64,
            "the file's position moved: not read at offsets"
        );
    }
    Ok((out, done?))
}

/// `stream` decoded by `decompress_file_opening` (as a regular file) or, without
/// `from_file`, by `decompress_to_opening` (as a reader), with an engine (the tests' wgpu
/// one) whose opening starts at `when` and ends only once the first batch's output is
/// written: the batches before it decode on the CPU cores, the later ones on the GPU.
pub fn decode_while_the_gpu_opens(
    stream: &[u8],
    batch_bytes: usize,
    from_file: bool,
    when: parvlc::huffman::stream::OpenGpu,
) -> Decoded {
    use parvlc::huffman::stream::{decompress_file_opening, decompress_to_opening};
    use std::sync::mpsc;
    use std::time::Duration;
    let Engine::Wgpu(gpu) = wgpu_engine() else {
        unreachable!("the wgpu engine holds a wgpu GPU")
    };
    let (written, first_write) = mpsc::channel::<()>();
    let (opened, open_done) = mpsc::channel::<()>();
    let open = move || {
        // A stream that fails before its first write lets the engine open after a while.
        let _ = first_write.recv_timeout(Duration::from_secs(20));
        let _ = opened.send(());
        Engine::Wgpu(gpu.clone())
    };
    let decode = |file: Option<&std::fs::File>, out: &mut Vec<u8>| {
        let mut gate = Gate {
            out,
            written: Some(written),
            opened: open_done,
        };
        match file {
            Some(f) => decompress_file_opening(open, when, f, &mut gate, batch_bytes),
            None => decompress_to_opening(open, when, &mut &stream[..], &mut gate, batch_bytes),
        }
    };
    match from_file {
        true => decode_as_file_with(stream, 0, |f, out| decode(Some(f), out)),
        false => {
            let mut out = Vec::new();
            let done = decode(None, &mut out)?;
            Ok((out, done))
        }
    }
}

/// A decompression's output and report, or its error.
pub type Decoded = parvlc::Result<(Vec<u8>, parvlc::huffman::stream::Decompressed)>;

/// An output that, at its first write, lets the engine open and waits until it has.
struct Gate<'o> {
    out: &'o mut Vec<u8>,
    written: Option<std::sync::mpsc::Sender<()>>,
    opened: std::sync::mpsc::Receiver<()>,
}

impl std::io::Write for Gate<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.extend_from_slice(buf);
        if let Some(written) = self.written.take() {
            let _ = written.send(());
            // An opening that never starts fails the test's checks, not hangs it.
            let _ = self.opened.recv_timeout(std::time::Duration::from_secs(20));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
