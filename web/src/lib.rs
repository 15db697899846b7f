//! parvlc in the browser: the same library compiled to wasm, on the GPU through wgpu's
//! WebGPU backend, or on the CPU (one thread) where the browser has no WebGPU.
//!
//! Everything here is async or short: the library never blocks on wasm (its readback
//! awaits the browser's buffer mapping), so the page stays responsive.

use std::cell::RefCell;
use std::sync::Arc;

use js_sys::{Float64Array, Object, Reflect, Uint8Array};
use parvlc::gpu::{Gpu, GpuOptions};
use parvlc::huffman::compress::{compress_cpu, compress_gpu, decompress, Compressed, Format};
use parvlc::huffman::cuvle::CuvleConfig;
use parvlc::huffman::pipeline::{compress_framed, StreamConfig};
use parvlc::huffman::stream::decompress_async;
use parvlc::scan::ScanStrategy;
use parvlc::Engine;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The GPU, opened once by [`open_gpu`]; None: the CPU path. An `Arc`, as the
    /// library's [`Engine`] holds it.
    static GPU: RefCell<Option<Arc<Gpu>>> = const { RefCell::new(None) };
}

/// Panics go to the console instead of "unreachable executed".
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&JsValue::from_str(&format!("parvlc-web panic: {info}")));
    }));
}

fn set(target: &Object, key: &str, value: impl Into<JsValue>) {
    // Setting a plain property on a fresh object cannot fail.
    let _ = Reflect::set(target, &JsValue::from_str(key), &value.into());
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// Open the GPU through WebGPU. Resolves to `{ gpu: bool, adapter, message }`: with
/// `gpu` false, `message` says why and [`compress`] uses the CPU path.
#[wasm_bindgen(js_name = openGpu)]
pub async fn open_gpu() -> Object {
    let result = Object::new();
    let has_webgpu = web_sys::window()
        .map(|w| {
            Reflect::get(&w.navigator(), &JsValue::from_str("gpu"))
                .map(|g| !g.is_undefined() && !g.is_null())
                .unwrap_or(false)
        })
        .unwrap_or(false);
    if !has_webgpu {
        set(&result, "gpu", false);
        set(&result, "adapter", "CPU");
        set(
            &result,
            "message",
            "No WebGPU in this browser (navigator.gpu is missing): compressing on the CPU in wasm.",
        );
        set(&result, "detail", "");
        return result;
    }
    // Browsers want `enable subgroups;` in the WGSL, which the composed shaders (written
    // for naga, which needs none) do not carry: use the workgroup-memory flavour.
    let options = GpuOptions {
        allow_subgroups: false,
        allow_timestamps: true,
        ..Default::default()
    };
    let t0 = now_ms();
    let opened = match Gpu::new(options).await {
        Ok(gpu) => warm_up(&gpu)
            .await
            .map(|()| gpu)
            .map_err(|e| ("its GPU could not run the shaders", e)),
        Err(e @ parvlc::Error::NoAdapter(_)) => Err(("it offers no WebGPU adapter", e.to_string())),
        Err(e) => Err(("its WebGPU device could not be opened", e.to_string())),
    };
    match opened {
        Ok(gpu) => {
            set(&result, "gpu", true);
            set(&result, "adapter", adapter_label(&gpu));
            set(
                &result,
                "fallbackAdapter",
                gpu.info.device_type == wgpu::DeviceType::Cpu,
            );
            set(&result, "timestamps", gpu.has_timestamps());
            set(&result, "warmUpMs", now_ms() - t0);
            set(&result, "message", "");
            // The library's engine holds the device in an `Arc`.
            let engine = Engine::from(gpu);
            if let Engine::Wgpu(gpu) = engine {
                GPU.with(|g| *g.borrow_mut() = Some(gpu));
            }
        }
        Err((why, detail)) => {
            set(&result, "gpu", false);
            set(&result, "adapter", "CPU");
            set(
                &result,
                "message",
                format!(
                    "No usable WebGPU in this browser ({why}): compressing on the CPU in wasm."
                ),
            );
            set(&result, "detail", detail);
        }
    }
    result
}

/// The adapter's name as WebGPU reports it (browsers often leave it empty).
fn adapter_label(gpu: &Gpu) -> String {
    if gpu.info.name.is_empty() {
        "WebGPU adapter".to_string()
    } else {
        gpu.info.name.clone()
    }
}

/// Build the pipelines and prove the GPU path on 64 KiB before the page relies on it:
/// a browser whose WebGPU cannot run the shaders gets the CPU path, not an error later.
async fn warm_up(gpu: &Gpu) -> Result<(), String> {
    let sample = parvlc::testdata::generate(64 << 10, 4.0, 7);
    let out = compress_gpu(gpu, &sample, Format::Gzip, &gpu_config(), &mut |_| {})
        .await
        .map_err(|e| e.to_string())?;
    match decompress(&out.bytes) {
        Ok(back) if back == sample => Ok(()),
        Ok(_) => Err("the GPU's output did not decode to its input".into()),
        Err(e) => Err(format!("the GPU's output did not decode: {e}")),
    }
}

/// cuvle with the decoupled look-back (the default, spelled out).
fn gpu_config() -> CuvleConfig {
    let mut config = CuvleConfig::default();
    config.scan.strategy = ScanStrategy::Decoupled;
    config
}

/// `len` bytes of about `entropy` bits per byte (0..=8), the same bytes as
/// `parvlc::testdata::generate` natively.
#[wasm_bindgen]
pub fn generate(len: usize, entropy: f64, seed: u32) -> Vec<u8> {
    parvlc::testdata::generate(len, entropy, seed as u64)
}

/// Compress `data` to one gzip member: on the GPU (cuvle, decoupled look-back) when
/// [`open_gpu`] found one, else on the CPU. Resolves to an object with `gz` (the file),
/// `path` ("GPU" or "CPU"), `adapter`, `originalBytes`, `compressedBytes`, `ratio`,
/// `wallMs` (call to result, upload and readback included), `gpuMs` (kernel span by
/// timestamp queries, 0 when the adapter has none), `histogram` (256 counts),
/// `codeLengths` (257: bytes and end-of-block) and `passes` (label, ms).
#[wasm_bindgen]
pub async fn compress(data: Vec<u8>) -> Result<Object, JsError> {
    let gpu = GPU.with(|g| g.borrow().clone());
    let t0 = now_ms();
    let (out, path, adapter): (Compressed, &str, String) = match &gpu {
        Some(gpu) => {
            let out = compress_gpu(gpu, &data, Format::Gzip, &gpu_config(), &mut |_| {})
                .await
                .map_err(|e| JsError::new(&e.to_string()))?;
            (out, "GPU", adapter_label(gpu))
        }
        None => {
            let block = CuvleConfig::default().block_bytes();
            let out = compress_cpu(&data, Format::Gzip, block)
                .map_err(|e| JsError::new(&e.to_string()))?;
            (out, "CPU", "CPU (wasm, one thread)".to_string())
        }
    };
    let wall_ms = now_ms() - t0;
    let result = Object::new();
    set(&result, "path", path);
    set(&result, "adapter", adapter);
    set(&result, "originalBytes", data.len() as f64);
    set(&result, "compressedBytes", out.bytes.len() as f64);
    set(
        &result,
        "ratio",
        if out.bytes.is_empty() {
            0.0
        } else {
            data.len() as f64 / out.bytes.len() as f64
        },
    );
    set(&result, "wallMs", wall_ms);
    set(&result, "gpuMs", out.timings.span * 1e3);
    set(&result, "segments", out.segments as f64);
    let hist: Vec<f64> = out.histogram.iter().map(|&c| c as f64).collect();
    set(&result, "histogram", Float64Array::from(&hist[..]));
    set(
        &result,
        "codeLengths",
        Uint8Array::from(&out.code_lengths[..]),
    );
    let passes = js_sys::Array::new();
    for (label, secs) in &out.timings.passes {
        let p = js_sys::Array::new();
        p.push(&JsValue::from_str(label));
        p.push(&JsValue::from_f64(secs * 1e3));
        passes.push(&p);
    }
    set(&result, "passes", passes);
    set(&result, "gz", Uint8Array::from(&out.bytes[..]));
    Ok(result)
}

/// The GPU both ways on `data`: compressed on the GPU into parvlc's native framed format
/// and into its framed gzip (a code per frame, blocks of 4 KiB), each then decoded on the
/// GPU (vld, each batch awaited) and compared with `data`. Resolves to `{ ok,
/// nativeBytes, encodeMs, decodeMs, gzipOk, gzipBytes, gzipEncodeMs, gzipDecodeMs }`
/// (wall, call to result); rejects without a GPU.
#[wasm_bindgen(js_name = gpuRoundTrip)]
pub async fn gpu_round_trip(data: Vec<u8>) -> Result<Object, JsError> {
    let gpu = GPU
        .with(|g| g.borrow().clone())
        .ok_or_else(|| JsError::new("no WebGPU device: the round trip runs on the GPU only"))?;
    let engine = Engine::Wgpu(gpu);
    let fail = |e: parvlc::Error| JsError::new(&e.to_string());
    let t0 = now_ms();
    let (native, _) = compress_framed(&engine, &data, Format::Native, &StreamConfig::default())
        .await
        .map_err(fail)?;
    let t1 = now_ms();
    let back = decompress_async(&engine, &native).await.map_err(fail)?;
    let t2 = now_ms();
    let (gz, _) = compress_framed(&engine, &data, Format::Gzip, &StreamConfig::default())
        .await
        .map_err(fail)?;
    let t3 = now_ms();
    let gz_back = decompress_async(&engine, &gz).await.map_err(fail)?;
    let t4 = now_ms();
    let result = Object::new();
    set(&result, "ok", back == data);
    set(&result, "nativeBytes", native.len() as f64);
    set(&result, "encodeMs", t1 - t0);
    set(&result, "decodeMs", t2 - t1);
    set(&result, "gzipOk", gz_back == data);
    set(&result, "gzipBytes", gz.len() as f64);
    set(&result, "gzipEncodeMs", t3 - t2);
    set(&result, "gzipDecodeMs", t4 - t3);
    Ok(result)
}

/// Decompress with the wasm CPU decoder (any gzip file, or parvlc's native format).
#[wasm_bindgen]
pub fn decompress_bytes(data: &[u8]) -> Result<Vec<u8>, JsError> {
    decompress(data).map_err(|e| JsError::new(&e.to_string()))
}

/// Whether `a` and `b` hold the same bytes (the page's round-trip check).
#[wasm_bindgen]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a == b
}
