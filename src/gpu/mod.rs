//! The GPU context: adapter and device choice, pipelines built once from the generated
//! shader registry, a buffer pool, async readback and a timestamp profiler.

pub mod compose;
mod context;
mod pipelines;
mod pool;
mod profiler;
mod readback;
pub mod registry;
mod upload;

pub use compose::Flavour;
pub use context::{Gpu, GpuOptions};
pub use pool::PooledBuffer;
pub use profiler::{Profiler, Timings};
pub use registry::Stage;
pub(crate) use upload::Window;
