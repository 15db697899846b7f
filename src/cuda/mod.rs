//! The `cuda` feature: a thin NVIDIA-specific path behind the same API as the wgpu one.
//!
//! The CUDA driver (`libcuda.so.1`) and NVRTC (`libnvrtc.so.13`) are loaded at run time
//! (cudarc's dynamic loading), so the crate builds on machines without CUDA; without a
//! driver, [`CudaGpu::new`] is a clear error. NVRTC compiles the kernels in
//! `shaders/cuda/` for the device's own architecture (`sm_90` on an H200), once per
//! configuration (the modules are cached in the [`CudaGpu`]).
//!
//! NVRTC is found by its library name, `libnvrtc.so.13`, on the loader's path. Where it is
//! installed but not on that path (a CUDA toolkit under `/usr/local/cuda-13.0`, say),
//! parvlc loads it from `$PARVLC_NVRTC` (a file), `$CUDA_HOME`, `$CUDA_PATH`, or the usual
//! toolkit folders, so that the name resolves to the loaded library.

mod cuvle;
mod module_cache;
mod pool;
mod staged;
mod vld;

pub use cuvle::{
    compress_cuda, CudaConfig, CudaEncoded, CudaFramedTables, CudaInput, CudaPending,
    CudaVleEncoder, CudaWrite,
};
pub use vld::{CudaVldDecoder, CudaVldInput};

use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags};
use cudarc::driver::{CudaContext, CudaEvent, CudaFunction, CudaModule, CudaStream, DriverError};
use cudarc::nvrtc::sys::{self as nvrtc, nvrtcResult};

use crate::{Error, Result};

/// An open CUDA device: context, stream, what the kernels need to know about it, the
/// compiled modules, and buffers kept for reuse.
pub struct CudaGpu {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    name: String,
    compute_capability: (i32, i32),
    sm_count: u32,
    max_threads_per_sm: u32,
    total_memory: u64,
    /// NVRTC's target: `sm_XY` (machine code for this device) or, where this NVRTC does
    /// not know the device, `compute_XY` (PTX the driver compiles).
    target: String,
    modules: Mutex<HashMap<String, Arc<CudaModule>>>,
    /// Compiled modules kept across processes ([`module_cache`]).
    module_cache: module_cache::ModuleCache,
    /// NVRTC and its version, part of every cached module's key.
    compiler: String,
    /// Device, pinned and host buffers for the decoders' batches ([`pool`]).
    pool: Arc<pool::CudaPool>,
}

impl std::fmt::Debug for CudaGpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaGpu")
            .field("name", &self.name)
            .field("compute_capability", &self.compute_capability)
            .field("sm_count", &self.sm_count)
            .field("target", &self.target)
            .finish()
    }
}

pub(crate) fn driver_error(what: &str) -> impl Fn(DriverError) -> Error + '_ {
    move |e| Error::Cuda(format!("{what}: {e:?}"))
}

/// Buffers come from the device's default pool (stream-ordered allocation), which by
/// default hands freed memory back to the driver at every synchronisation. A compress
/// synchronises on its histograms' readback, so each one's output, hundreds of MB, was
/// mapped afresh: the compress's wall 1.8 ms above its kernels' time at 1 GiB and 4.5
/// bits on the H200, 0.2 ms since (docs/results.md, thirty-ninth pass). Kept, the pool
/// holds at most this process's peak.
fn keep_freed_memory(ctx: &CudaContext) -> Result<()> {
    use cudarc::driver::result::{device, mem_pool};
    use cudarc::driver::sys::CUmemPool_attribute;
    if !ctx.has_async_alloc() {
        return Ok(());
    }
    let mut threshold = u64::MAX;
    // SAFETY: the device is this context's; the release threshold is a u64 attribute.
    unsafe {
        let pool = device::get_default_mem_pool(ctx.cu_device())
            .map_err(driver_error("the default memory pool"))?;
        mem_pool::set_attribute(
            pool,
            CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&mut threshold as *mut u64).cast(),
        )
        .map_err(driver_error("the memory pool's release threshold"))
    }
}

/// How a host thread waits for the device (`PARVLC_CUDA_WAIT`: `auto`, the driver's
/// default, which spins while the process has fewer CUDA contexts than cores; `spin`;
/// `yield`; `blocking`, asleep until an interrupt). The stream coders wait on their
/// chunks from a dozen threads at once: on the H200 `auto` and `yield` coded the library's
/// GiB as fast, `blocking` 8-17% slower (docs/results.md, "Forty-fifth pass"), so the
/// default stays the driver's; the variable serves a process that shares its cores.
fn wait_as_configured(ctx: &CudaContext) -> Result<()> {
    use cudarc::driver::sys::CUctx_flags;
    let flags = match std::env::var("PARVLC_CUDA_WAIT").as_deref() {
        Err(_) | Ok("auto") => return Ok(()),
        Ok("spin") => CUctx_flags::CU_CTX_SCHED_SPIN,
        Ok("yield") => CUctx_flags::CU_CTX_SCHED_YIELD,
        Ok("blocking") => CUctx_flags::CU_CTX_SCHED_BLOCKING_SYNC,
        Ok(other) => {
            return Err(Error::InvalidArgument(format!(
                "PARVLC_CUDA_WAIT={other}: auto, spin, yield or blocking"
            )))
        }
    };
    ctx.set_flags(flags)
        .map_err(driver_error("setting how the host waits for the device"))
}

impl CudaGpu {
    /// Open the first CUDA device.
    pub fn new() -> Result<CudaGpu> {
        Self::with_ordinal(0)
    }

    /// Open CUDA device `ordinal`. Errors say what is missing: the driver, a device, NVRTC.
    pub fn with_ordinal(ordinal: usize) -> Result<CudaGpu> {
        // cudarc panics when a library or a symbol is missing: look first, and turn any
        // panic left (an older driver without a CUDA 13 function, say) into an error.
        probe()?;
        std::panic::catch_unwind(|| Self::open(ordinal)).unwrap_or_else(|p| {
            let why = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(Error::Cuda(format!(
                "the CUDA driver or NVRTC lacks something parvlc needs (CUDA 13 expected): {why}"
            )))
        })
    }

    fn open(ordinal: usize) -> Result<CudaGpu> {
        let count = CudaContext::device_count().map_err(driver_error("cuInit"))?;
        if count <= ordinal as i32 {
            return Err(Error::Cuda(format!(
                "no CUDA device {ordinal} ({count} found)"
            )));
        }
        let ctx = CudaContext::new(ordinal).map_err(driver_error("creating a CUDA context"))?;
        // One stream, used in order: no cross-stream event tracking needed.
        // SAFETY: every buffer of this context is used on this context's one stream.
        unsafe { ctx.disable_event_tracking() };
        keep_freed_memory(&ctx)?;
        wait_as_configured(&ctx)?;
        let stream = ctx.default_stream();
        let name = ctx.name().map_err(driver_error("device name"))?;
        let compute_capability = ctx
            .compute_capability()
            .map_err(driver_error("compute capability"))?;
        let sm_count = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(driver_error("multiprocessor count"))? as u32;
        let max_threads_per_sm =
            ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
                .map_err(driver_error("threads per multiprocessor"))? as u32;
        let total_memory = ctx.total_mem().map_err(driver_error("memory size"))? as u64;
        let target = nvrtc_target(compute_capability)?;
        let compiler = nvrtc_version()?;
        log::info!(
            "CUDA: {name}, compute capability {}.{}, {sm_count} multiprocessors, NVRTC target {target}",
            compute_capability.0,
            compute_capability.1
        );
        Ok(CudaGpu {
            ctx,
            stream,
            name,
            compute_capability,
            sm_count,
            max_threads_per_sm,
            total_memory,
            target,
            modules: Mutex::new(HashMap::new()),
            module_cache: module_cache::ModuleCache::new(crate::gpu::default_cache_dir()),
            compiler,
            pool: pool::CudaPool::new(total_memory),
        })
    }

    /// "NVIDIA H200 (CUDA, sm_90)".
    pub fn adapter_name(&self) -> String {
        format!("{} (CUDA, {})", self.name, self.target)
    }

    pub fn compute_capability(&self) -> (i32, i32) {
        self.compute_capability
    }

    pub fn sm_count(&self) -> u32 {
        self.sm_count
    }

    /// Threads one multiprocessor holds at once (2048 on an H200).
    pub fn max_threads_per_sm(&self) -> u32 {
        self.max_threads_per_sm
    }

    pub fn total_memory(&self) -> u64 {
        self.total_memory
    }

    /// A stream of its own, for work that should neither wait for the device's stream nor
    /// hold it up (a stream coder's chunk). Not for the pooled buffers, which belong to
    /// the device's stream.
    pub(crate) fn new_stream(&self) -> Result<Arc<CudaStream>> {
        self.ctx
            .new_stream()
            .map_err(driver_error("creating a CUDA stream"))
    }

    /// Wait for all work on the stream.
    pub fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(driver_error("synchronizing the stream"))
    }

    /// Kernel `name` of the module compiled from `source` with these `-D` defines.
    pub(crate) fn function(
        &self,
        stage: &'static str,
        source: &str,
        defines: &[(&str, u32)],
        name: &str,
    ) -> Result<CudaFunction> {
        self.module(stage, source, defines)?
            .load_function(name)
            .map_err(driver_error(&format!("loading {name}")))
    }

    /// Two events to time work on the stream between.
    pub(crate) fn timing_events(&self) -> Result<(CudaEvent, CudaEvent)> {
        let make = || {
            self.ctx
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(driver_error("creating a CUDA event"))
        };
        Ok((make()?, make()?))
    }

    /// The module compiled from `source` with these `-D` defines: loaded once per
    /// process, from the module cache on disk where it holds it, else compiled (and kept).
    pub(crate) fn module(
        &self,
        stage: &'static str,
        source: &str,
        defines: &[(&str, u32)],
    ) -> Result<Arc<CudaModule>> {
        let key = format!("{stage}{defines:?}");
        let mut modules = self
            .modules
            .lock()
            .map_err(|_| Error::Cuda("module cache poisoned".into()))?;
        if let Some(m) = modules.get(&key) {
            return Ok(m.clone());
        }
        let load = |image: Vec<u8>| {
            self.ctx
                .load_module(cudarc::nvrtc::Ptx::from_binary(image))
                .map_err(driver_error(&format!("loading {stage}")))
        };
        let options = compile_options(&self.target, defines);
        let kept = module_cache::ModuleKey::new(stage, source, &self.compiler, &options);
        let t = std::time::Instant::now();
        // A kept image the driver refuses is compiled again and replaced.
        let cached = self.module_cache.lookup(&kept).and_then(|image| {
            load(image)
                .inspect_err(|e| log::warn!("a cached {stage} module: {e}; compiling"))
                .ok()
        });
        let module = match cached {
            Some(module) => {
                log::debug!(
                    "{stage} {defines:?}: from the module cache in {:.1} ms",
                    t.elapsed().as_secs_f64() * 1e3
                );
                module
            }
            None => {
                let image = compile(stage, source, &self.target, defines)?;
                log::debug!(
                    "{stage} {defines:?}: compiled by NVRTC in {:.0} ms",
                    t.elapsed().as_secs_f64() * 1e3
                );
                self.module_cache.keep(&kept, &image);
                load(image)?
            }
        };
        modules.insert(key, module.clone());
        Ok(module)
    }
}

/// What NVRTC compiles for a device: its own `sm_XY` where NVRTC knows it, else PTX for
/// the newest architecture NVRTC knows below it.
fn nvrtc_target((major, minor): (i32, i32)) -> Result<String> {
    let want = major * 10 + minor;
    let mut n = 0i32;
    // SAFETY: plain NVRTC queries into buffers of the size NVRTC reported.
    let archs = unsafe {
        nvrtc_ok(nvrtc::nvrtcGetNumSupportedArchs(&mut n), "NVRTC")?;
        let mut archs = vec![0i32; n.max(0) as usize];
        nvrtc_ok(nvrtc::nvrtcGetSupportedArchs(archs.as_mut_ptr()), "NVRTC")?;
        archs
    };
    if archs.contains(&want) {
        return Ok(format!("sm_{want}"));
    }
    archs
        .iter()
        .copied()
        .filter(|&a| a <= want)
        .max()
        .map(|a| format!("compute_{a}"))
        .ok_or_else(|| {
            Error::Cuda(format!(
                "this NVRTC cannot compile for compute capability {major}.{minor} (it knows {archs:?})"
            ))
        })
}

fn nvrtc_ok(r: nvrtcResult, what: &str) -> Result<()> {
    if r == nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(Error::Cuda(format!("{what}: {r:?}")))
    }
}

/// NVRTC's options for `target` with `defines`.
fn compile_options(target: &str, defines: &[(&str, u32)]) -> Vec<String> {
    let mut options = vec![
        format!("--gpu-architecture={target}"),
        "--std=c++17".to_string(),
        "-lineinfo".to_string(),
    ];
    options.extend(defines.iter().map(|(k, v)| format!("-D{k}={v}")));
    options
}

/// "NVRTC 13.0": the compiler of every module, part of a kept module's key.
fn nvrtc_version() -> Result<String> {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: a plain NVRTC query into two integers.
    nvrtc_ok(
        unsafe { nvrtc::nvrtcVersion(&mut major, &mut minor) },
        "nvrtcVersion",
    )?;
    Ok(format!("NVRTC {major}.{minor}"))
}

/// Compile `source` with NVRTC: a cubin for an `sm_` target, PTX (NUL-terminated) for a
/// `compute_` one; both load with cuModuleLoadData.
pub(crate) fn compile(
    stage: &str,
    source: &str,
    target: &str,
    defines: &[(&str, u32)],
) -> Result<Vec<u8>> {
    let bad = |what: &str| Error::Cuda(format!("{stage}: {what} contains a NUL byte"));
    let src = CString::new(source).map_err(|_| bad("the source"))?;
    let name = CString::new(format!("{stage}.cu")).map_err(|_| bad("the name"))?;
    let options: Vec<CString> = compile_options(target, defines)
        .into_iter()
        .map(|o| CString::new(o).map_err(|_| bad("an option")))
        .collect::<Result<_>>()?;
    let pointers: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    let mut prog: nvrtc::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: NVRTC's C API with valid NUL-terminated strings that outlive the program;
    // buffers are sized from NVRTC's own size queries; the program is destroyed once.
    unsafe {
        nvrtc_ok(
            nvrtc::nvrtcCreateProgram(
                &mut prog,
                src.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            ),
            "nvrtcCreateProgram",
        )?;
        let compiled = nvrtc::nvrtcCompileProgram(prog, pointers.len() as i32, pointers.as_ptr());
        let result = (|| {
            if compiled != nvrtcResult::NVRTC_SUCCESS {
                let mut size = 0usize;
                let mut log = String::new();
                if nvrtc::nvrtcGetProgramLogSize(prog, &mut size) == nvrtcResult::NVRTC_SUCCESS {
                    let mut buf = vec![0 as c_char; size.max(1)];
                    if nvrtc::nvrtcGetProgramLog(prog, buf.as_mut_ptr())
                        == nvrtcResult::NVRTC_SUCCESS
                    {
                        log = CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
                    }
                }
                return Err(Error::Cuda(format!(
                    "NVRTC could not compile {stage} for {target} ({compiled:?}): {log}"
                )));
            }
            let mut size = 0usize;
            if target.starts_with("sm_") {
                nvrtc_ok(
                    nvrtc::nvrtcGetCUBINSize(prog, &mut size),
                    "nvrtcGetCUBINSize",
                )?;
                let mut image = vec![0u8; size];
                nvrtc_ok(
                    nvrtc::nvrtcGetCUBIN(prog, image.as_mut_ptr() as *mut c_char),
                    "nvrtcGetCUBIN",
                )?;
                Ok(image)
            } else {
                nvrtc_ok(nvrtc::nvrtcGetPTXSize(prog, &mut size), "nvrtcGetPTXSize")?;
                let mut image = vec![0u8; size];
                nvrtc_ok(
                    nvrtc::nvrtcGetPTX(prog, image.as_mut_ptr() as *mut c_char),
                    "nvrtcGetPTX",
                )?;
                Ok(image)
            }
        })();
        nvrtc::nvrtcDestroyProgram(&mut prog);
        result
    }
}

/// Make `libnvrtc.so.13` resolvable by name: if the loader cannot find it, load it from a
/// known place (the dynamic loader then resolves the name to the loaded library by its
/// soname). Kept loaded for the life of the process.
/// What opening a device needs and can be looked for at once: the driver's library and
/// NVRTC (loaded here if it is not yet).
pub(crate) fn probe() -> Result<()> {
    // SAFETY: probing for a shared library by name has no other effect.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(Error::Cuda(
            "no CUDA driver found (libcuda.so.1 could not be loaded): install the NVIDIA \
             driver, or use --backend wgpu or cpu"
                .into(),
        ));
    }
    load_nvrtc()
}

pub(crate) fn load_nvrtc() -> Result<()> {
    // SAFETY: probing for and loading NVRTC, a library without load-time side effects.
    if unsafe { nvrtc::is_culib_present() } {
        return Ok(());
    }
    let name = "libnvrtc.so.13";
    let mut places: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("PARVLC_NVRTC") {
        places.push(PathBuf::from(p));
    }
    for var in ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"] {
        if let Some(root) = std::env::var_os(var) {
            let root = PathBuf::from(root);
            places.push(root.join("lib64").join(name));
            places.push(root.join("targets/x86_64-linux/lib").join(name));
        }
    }
    let mut roots = vec![PathBuf::from("/usr/local/cuda")];
    if let Ok(dir) = std::fs::read_dir("/usr/local") {
        let mut versioned: Vec<PathBuf> = dir
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("cuda-13"))
            })
            .collect();
        versioned.sort();
        versioned.reverse();
        roots.extend(versioned);
    }
    for root in roots {
        places.push(root.join("lib64").join(name));
        places.push(root.join("targets/x86_64-linux/lib").join(name));
    }
    for place in &places {
        if !place.is_file() {
            continue;
        }
        // NVRTC opens its builtins library by name at compile time: load the one beside
        // it first, so that name resolves too.
        if let Some(dir) = place.parent() {
            if let Ok(entries) = std::fs::read_dir(dir) {
                for e in entries.flatten() {
                    let file = e.file_name();
                    let file = file.to_string_lossy();
                    if file.starts_with("libnvrtc-builtins.so.13") && !file.contains("alt") {
                        // SAFETY: as above; kept loaded for the life of the process.
                        if let Ok(lib) = unsafe { libloading::Library::new(e.path()) } {
                            std::mem::forget(lib);
                        }
                    }
                }
            }
        }
        // SAFETY: as above; the library stays loaded (forgotten) so the name resolves.
        if let Ok(lib) = unsafe { libloading::Library::new(place) } {
            std::mem::forget(lib);
            if unsafe { nvrtc::is_culib_present() } {
                log::info!("NVRTC loaded from {}", place.display());
                return Ok(());
            }
        }
    }
    Err(Error::Cuda(format!(
        "NVRTC ({name}) not found: add its folder to LD_LIBRARY_PATH or set PARVLC_NVRTC to the \
         file (looked in {})",
        places
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernels compile for the H200's architecture in every shape the encoder uses.
    /// Needs NVRTC only, no GPU: skipped (with the reason printed) where NVRTC is absent,
    /// a failure instead where PARVLC_REQUIRE_CUDA=1, as in the integration suites.
    #[test]
    fn kernels_compile_for_sm_90() {
        if let Err(e) = load_nvrtc() {
            assert!(
                std::env::var("PARVLC_REQUIRE_CUDA").as_deref() != Ok("1"),
                "PARVLC_REQUIRE_CUDA=1 but NVRTC is unavailable: {e}"
            );
            eprintln!("skipping: {e}");
            return;
        }
        let target = nvrtc_target((9, 0)).unwrap();
        assert_eq!(target, "sm_90", "NVRTC 13 knows the H200");
        let compiler = nvrtc_version().unwrap();
        assert!(compiler.starts_with("NVRTC 13."), "{compiler}");
        for (wg, net, warp, blocks) in [
            (256u32, 16u32, 1u32, 1u32),
            (256, 16, 0, 1),
            (32, 4, 1, 1),
            (1024, 32, 0, 2),
            (128, 8, 1, 8),
        ] {
            let defines = [
                ("WG_SIZE", wg),
                ("NET", net),
                ("WARP_WRITE", warp),
                ("MIN_BLOCKS", blocks),
            ];
            let cubin = compile("vle_cuvle", cuvle::CUVLE_SOURCE, &target, &defines)
                .unwrap_or_else(|e| panic!("{defines:?}: {e}"));
            assert!(cubin.starts_with(b"\x7fELF"), "a cubin is an ELF file");
        }
        for wg in [32u32, 256, 1024] {
            compile(
                "vle_histogram",
                cuvle::HISTOGRAM_SOURCE,
                &target,
                &[("WG_SIZE", wg)],
            )
            .unwrap();
        }
        for wg in [32u32, 64, 256] {
            let cubin = compile("vld", vld::VLD_SOURCE, &target, &[("WG_SIZE", wg)])
                .unwrap_or_else(|e| panic!("vld, WG_SIZE {wg}: {e}"));
            assert!(cubin.starts_with(b"\x7fELF"), "a cubin is an ELF file");
        }
        for (stage, source) in [
            ("frame_plan", cuvle::FRAME_PLAN_SOURCE),
            ("deflate_head", cuvle::DEFLATE_HEAD_SOURCE),
            ("frame_tables", cuvle::FRAME_TABLES_SOURCE),
            ("block_crc", cuvle::BLOCK_CRC_SOURCE),
        ] {
            let cubin =
                compile(stage, source, &target, &[]).unwrap_or_else(|e| panic!("{stage}: {e}"));
            assert!(cubin.starts_with(b"\x7fELF"), "a cubin is an ELF file");
        }
        // PTX for an architecture this NVRTC may not know as machine code.
        let ptx = compile("vle_histogram", cuvle::HISTOGRAM_SOURCE, "compute_90", &[]).unwrap();
        assert!(String::from_utf8_lossy(&ptx).contains(".entry vle_histogram"));
        // A broken source is an error that carries NVRTC's log.
        let e = compile("broken", "__global__ void k() { nope; }", &target, &[]).unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
    }
}
