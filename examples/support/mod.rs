//! What the benchmark examples share (each includes it: `#[path = "support/mod.rs"] mod
//! support;`). Not an example of its own: Cargo takes `examples/*.rs` and
//! `examples/*/main.rs`.
// Each example uses a part of it.
#![allow(dead_code)]

/// The environment variable `name` parsed, or `default` where it is unset or not a `T`.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The first adapter of high performance the environment allows (wgpu's `WGPU_BACKEND`
/// and the like), for the examples that open wgpu themselves.
pub fn high_performance_adapter() -> wgpu::Adapter {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .expect("an adapter")
}

/// The median of `v` (the upper one of an even count); 0 for none.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}
