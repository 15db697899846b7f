//! The GPU context: adapter and device choice, pipelines built once from the generated
//! shader registry, a buffer pool, uploads through mapped staging, async readback, a
//! timestamp profiler, and the [`GpuStage`] trait every GPU stage family implements.

pub mod compose;
mod context;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod disk_cache;
pub mod gather;
mod pipelines;
mod pool;
mod profiler;
mod readback;
pub mod registry;
mod stage;
mod staging;
mod upload;

pub use compose::Flavour;
pub use context::{CacheState, Gpu, GpuOptions};
#[cfg(not(target_arch = "wasm32"))]
pub use disk_cache::default_dir as default_cache_dir;
pub(crate) use pipelines::{BuildingAhead, Built, PipelineKey};
#[cfg(feature = "cuda")]
pub(crate) use pool::size_class;
#[cfg(feature = "cuda")]
pub(crate) use pool::HostVecs;
pub use pool::PooledBuffer;
pub use profiler::{Profiler, Timings};
pub(crate) use readback::{MappedParts, RecordedReads};
pub use registry::Stage;
pub use stage::GpuStage;
pub(crate) use staging::fill_pieces;
pub use staging::StagedUpload;
pub(crate) use upload::Window;

/// Now, for the debug log's timings: none on the web, which has no `Instant`.
pub(crate) fn clock() -> Option<std::time::Instant> {
    #[cfg(not(target_arch = "wasm32"))]
    return Some(std::time::Instant::now());
    #[cfg(target_arch = "wasm32")]
    None
}
