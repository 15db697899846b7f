use std::sync::{Arc, Mutex};

use super::compose::Flavour;
use super::pipelines::PipelineCache;
use super::pool::BufferPool;
use crate::{Error, Result};

/// How to open the GPU. The defaults follow wgpu's environment conventions:
/// `WGPU_BACKEND`, `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`.
#[derive(Clone, Debug)]
pub struct GpuOptions {
    /// Use subgroup operations where the adapter has them (tests turn this off to prove
    /// the workgroup-memory flavour).
    pub allow_subgroups: bool,
    /// Request timestamp queries where the adapter has them.
    pub allow_timestamps: bool,
    /// Let buffers the host maps also be storage where the adapter allows it (wgpu's
    /// `MAPPABLE_PRIMARY_BUFFERS`, native only): shaders then read an upload where it was
    /// written and write some outputs where the host reads them, with no copy (tests
    /// turn this off to prove the copies a browser makes).
    pub allow_mapped_storage: bool,
    /// Where compiled pipelines are kept across processes (one file per adapter), where
    /// the backend can cache them (Vulkan): by default the user's cache directory
    /// (`$PARVLC_CACHE_DIR`, `$XDG_CACHE_HOME/parvlc`, `~/.cache/parvlc`); `None` keeps
    /// nothing.
    pub pipeline_cache: Option<std::path::PathBuf>,
    /// Keep naga's runtime checks in every stage's modules. By default only the stages
    /// that read untrusted bytes keep them all (`Stage::runtime_checks`: the GPU
    /// decoder); the others, whose indices and loops are bounded by construction, are
    /// built natively without the counter naga puts in every loop and, on Vulkan (whose
    /// driver bounds storage buffers itself), without its clamps on workgroup and private
    /// array indices. That made cuvle's encode 17% faster and CAVLC 19% on the H200
    /// (docs/results.md, "Twenty-third pass"). Browsers always check. Default: on when
    /// `PARVLC_RUNTIME_CHECKS=1`.
    pub runtime_checks: bool,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            allow_subgroups: true,
            allow_timestamps: true,
            allow_mapped_storage: true,
            #[cfg(not(target_arch = "wasm32"))]
            pipeline_cache: super::disk_cache::default_dir(),
            #[cfg(target_arch = "wasm32")]
            pipeline_cache: None,
            runtime_checks: std::env::var_os("PARVLC_RUNTIME_CHECKS").is_some_and(|v| v == "1"),
        }
    }
}

/// An open GPU: device, queue, the adapter's real limits, and the caches every
/// encoder shares. Cheap to share by reference; build once per process.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    pub features: wgpu::Features,
    pub(crate) flavour: Flavour,
    /// Every stage keeps naga's runtime checks ([`GpuOptions::runtime_checks`]).
    pub(crate) runtime_checks: bool,
    pub(crate) pipelines: PipelineCache,
    pub(crate) pool: BufferPool,
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) disk_cache: Option<super::disk_cache::DiskCache>,
    errors: Arc<Mutex<Vec<String>>>,
    recording: Mutex<()>,
    /// Read-only tables stages share for the GPU's life (by label), uploaded once.
    resident: Mutex<std::collections::HashMap<String, Arc<wgpu::Buffer>>>,
}

#[cfg(target_arch = "wasm32")]
pub use self::wasm_cache::CacheState;
#[cfg(not(target_arch = "wasm32"))]
pub use super::disk_cache::CacheState;

#[cfg(target_arch = "wasm32")]
mod wasm_cache {
    /// In the browser pipelines are never kept across page loads.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum CacheState {
        Off,
    }
}

impl Gpu {
    /// Open the adapter chosen by the environment, with its own limits and the features
    /// parvlc can use (timestamp queries, subgroups).
    pub async fn new(options: GpuOptions) -> Result<Gpu> {
        // Each phase's time in the debug log: opening the GPU is a large part of a short
        // command's wall (docs/results.md).
        let mut phases = super::clock().map(|t| (t, Vec::new()));
        let mut phase = |name: &'static str| {
            if let (Some((t, done)), Some(now)) = (&mut phases, super::clock()) {
                done.push((name, now - *t));
                *t = now;
            }
        };
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        phase("instance");
        let adapter = choose_adapter(&instance).await?;
        phase("adapter");
        let info = adapter.get_info();
        let available = adapter.features();
        let mut wanted = wgpu::Features::empty();
        if options.allow_timestamps {
            wanted |= wgpu::Features::TIMESTAMP_QUERY;
        }
        // The subgroup flavour keeps one workgroup-memory slot per subgroup, sized for
        // subgroups of at least 8 invocations in the largest workgroups the stages run
        // (common/bitstuff_scan_subgroup.wgsl: 1024 invocations in 128 slots); an adapter
        // with narrower subgroups gets the workgroup flavour.
        if options.allow_subgroups && info.subgroup_min_size >= 8 {
            wanted |= wgpu::Features::SUBGROUP;
        }
        if options.pipeline_cache.is_some() && cfg!(not(target_arch = "wasm32")) {
            wanted |= wgpu::Features::PIPELINE_CACHE;
        }
        // Storage the host maps: an encode's output written where the host reads it
        // (`CuvleConfig::host_output`), an upload read where it was written
        // (`StagedUpload::bind`). Native only; asked for, never required.
        if cfg!(not(target_arch = "wasm32")) && options.allow_mapped_storage {
            wanted |= wgpu::Features::MAPPABLE_PRIMARY_BUFFERS;
        }
        let features = available & wanted;
        // Ask for everything the adapter has: storage bindings reach 2 GiB on NVIDIA.
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("parvlc"),
                required_features: features,
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| Error::RequestDevice(e.to_string()))?;
        phase("device");
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            log::error!("wgpu: {e}");
            if let Ok(mut v) = sink.lock() {
                v.push(e.to_string());
            }
        }));
        let flavour = if features.contains(wgpu::Features::SUBGROUP) {
            Flavour::Subgroup
        } else {
            Flavour::Workgroup
        };
        log::info!(
            "GPU: {} ({:?}, {:?}), {:?} flavour, max storage binding {} bytes",
            info.name,
            info.backend,
            info.device_type,
            flavour,
            limits.max_storage_buffer_binding_size
        );
        #[cfg(not(target_arch = "wasm32"))]
        let disk_cache = match &options.pipeline_cache {
            Some(dir) if features.contains(wgpu::Features::PIPELINE_CACHE) => {
                super::disk_cache::DiskCache::open(&device, &info, dir)
            }
            _ => None,
        };
        phase("pipeline cache");
        if let Some((_, done)) = &phases {
            let parts: Vec<String> = done
                .iter()
                .map(|(name, d)| format!("{name} {:.1} ms", d.as_secs_f64() * 1e3))
                .collect();
            log::debug!("GPU opened: {}", parts.join(", "));
        }
        Ok(Gpu {
            #[cfg(not(target_arch = "wasm32"))]
            disk_cache,
            device,
            queue,
            info,
            limits,
            features,
            flavour,
            runtime_checks: options.runtime_checks,
            pipelines: PipelineCache::default(),
            pool: BufferPool::default(),
            errors,
            recording: Mutex::new(()),
            resident: Mutex::default(),
        })
    }

    /// What became of the on-disk pipeline cache when this GPU was opened.
    pub fn pipeline_cache_state(&self) -> CacheState {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(d) = &self.disk_cache {
            return d.state.clone();
        }
        CacheState::Off
    }

    /// The wgpu pipeline cache new pipelines go through, if any.
    pub(crate) fn wgpu_pipeline_cache(&self) -> Option<&wgpu::PipelineCache> {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(d) = &self.disk_cache {
            return Some(&d.cache);
        }
        None
    }

    /// Whether kernel times from timestamp queries are available.
    pub fn has_timestamps(&self) -> bool {
        self.features.contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    /// Which flavour of workgroup primitives the shaders are built in.
    pub fn flavour(&self) -> Flavour {
        self.flavour
    }

    /// Whether the adapter is a CPU rasterizer (lavapipe, SwiftShader, WARP) rather than a GPU.
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// One line naming the adapter, for logs and benchmark records.
    pub fn adapter_name(&self) -> String {
        format!("{} ({:?})", self.info.name, self.info.backend)
    }

    /// Largest storage binding, in bytes.
    pub fn max_binding(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
    }

    /// A turn to record and submit a large piece of work (a picture's front end and
    /// block coding), held until it is submitted. Pictures in flight each allocate
    /// hundreds of MB of buffers on their first use and build the same pipelines: eight
    /// at once on the H200 each took 90-137 ms and all reached the GPU at the end, where
    /// one alone takes about 30 ms. In turns the first reaches the GPU first and the
    /// others record while it runs. Once the buffers are pooled a turn is about 1 ms.
    pub(crate) fn recording_turn(&self) -> std::sync::MutexGuard<'_, ()> {
        // The lock guards nothing but the order: a poisoned one still orders.
        self.recording
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The storage buffer `label` holding `contents()`, uploaded on first use and shared
    /// by every later caller: a stage's constant table, not one upload per dispatch (the
    /// label names what the contents depend on).
    pub(crate) fn resident_buffer(
        &self,
        label: &str,
        contents: impl FnOnce() -> Vec<u8>,
    ) -> Arc<wgpu::Buffer> {
        use wgpu::util::DeviceExt;
        // A poisoned map still holds whole entries (each is inserted in one step).
        let mut map = self
            .resident
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Looked up before the label is copied: callers ask once a chunk.
        if let Some(buffer) = map.get(label) {
            return buffer.clone();
        }
        let buffer = Arc::new(
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: &contents(),
                    usage: wgpu::BufferUsages::STORAGE,
                }),
        );
        map.insert(label.to_string(), buffer.clone());
        buffer
    }

    /// Record an error of ours beside wgpu's, for the next [`Gpu::check_errors`].
    pub(crate) fn report_error(&self, message: String) {
        log::error!("{message}");
        if let Ok(mut v) = self.errors.lock() {
            v.push(message);
        }
    }

    /// Turn wgpu's reported errors since the last check into one of ours.
    pub(crate) fn check_errors(&self, stage: &'static str) -> Result<()> {
        let mut errors = self.errors.lock().map_err(|_| Error::Gpu {
            stage,
            message: "error log poisoned".into(),
        })?;
        if errors.is_empty() {
            return Ok(());
        }
        let message = errors.join("; ");
        errors.clear();
        Err(Error::Gpu { stage, message })
    }
}

/// The pipelines compiled in this process are kept for the next one.
#[cfg(not(target_arch = "wasm32"))]
impl Drop for Gpu {
    fn drop(&mut self) {
        let t = super::clock();
        if let Some(d) = &self.disk_cache {
            d.save();
        }
        let saved = t.map(|t| t.elapsed());
        // The idle buffers first, timed: a run's end waits for the whole release.
        self.trim_pool();
        if let (Some(t), Some(saved)) = (t, saved) {
            log::debug!(
                "GPU closing: pipeline cache checked in {:.1} ms, idle buffers freed in {:.1} ms",
                saved.as_secs_f64() * 1e3,
                (t.elapsed() - saved).as_secs_f64() * 1e3
            );
        }
    }
}

async fn choose_adapter(instance: &wgpu::Instance) -> Result<wgpu::Adapter> {
    if let Ok(wanted) = std::env::var("WGPU_ADAPTER_NAME") {
        let wanted = wanted.to_lowercase();
        let adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        return adapters
            .into_iter()
            .find(|a| a.get_info().name.to_lowercase().contains(&wanted))
            .ok_or_else(|| {
                Error::NoAdapter(format!(
                    " matching WGPU_ADAPTER_NAME={wanted:?} (adapters: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ))
            });
    }
    instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env()
                .unwrap_or(wgpu::PowerPreference::HighPerformance),
            ..Default::default()
        })
        .await
        .map_err(|e| Error::NoAdapter(format!(": {e}")))
}
