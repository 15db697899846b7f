//! The GPU context: adapter and device choice, pipelines built once, a buffer pool,
//! async readback and a timestamp profiler.

pub mod compose;
mod context;
mod pipelines;
mod pool;
mod profiler;
mod readback;
mod upload;

pub use compose::Flavour;
pub use context::{Gpu, GpuOptions};
pub use pipelines::{Binding, StageLayout};
pub use pool::PooledBuffer;
pub use profiler::{Profiler, Timings};
pub(crate) use upload::Window;
