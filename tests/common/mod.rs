#![allow(dead_code)]
use std::sync::OnceLock;

use parvlc::gpu::{Gpu, GpuOptions};

/// One GPU per test binary. CI runs on lavapipe; a missing adapter fails the tests
/// rather than skipping them, so a broken driver install cannot pass silently.
pub fn gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| open(GpuOptions::default()))
}

/// A second context with subgroups off, to prove the workgroup-memory flavour.
pub fn gpu_workgroup_flavour() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        open(GpuOptions {
            allow_subgroups: false,
            ..Default::default()
        })
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
