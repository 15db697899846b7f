use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::Gpu;

/// Buffers are recycled by (size class, usage): repeated jobs of similar size allocate
/// nothing after the first.
/// Idle buffers by (size class, usage).
type FreeLists = Arc<Mutex<HashMap<(u64, wgpu::BufferUsages), Vec<wgpu::Buffer>>>>;

#[derive(Default)]
pub(crate) struct BufferPool {
    free: FreeLists,
    /// Host vectors that readbacks copy into, given back by their consumers.
    pub(crate) host: HostVecs,
    /// Mapped buffers that uploads write into ([`super::StagedUpload`]).
    pub(crate) staging: super::staging::StagingPool,
}

/// Host vectors kept for reuse at most.
const HOST_POOL_MAX: usize = 4;

/// Host vectors given back for reuse (wgpu's and CUDA's readbacks): a stream reads back a
/// chunk's output every few milliseconds, and fresh pages for each cost more (page
/// faults, zeroing) than the copy itself.
#[derive(Default)]
pub(crate) struct HostVecs(Mutex<Vec<Vec<u8>>>);

impl HostVecs {
    /// A vector of `len` bytes for the caller to overwrite whole, reusing one given back
    /// if one is large enough: its old bytes are kept where they reach (zeroing a 16 MiB
    /// readback first cost a serial pass over it), zeros past them.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(crate) fn take(&self, len: usize) -> Vec<u8> {
        let reused = self.0.lock().ok().and_then(|mut h| {
            let i = h.iter().position(|v| v.capacity() >= len)?;
            Some(h.swap_remove(i))
        });
        let mut v = reused.unwrap_or_default();
        v.truncate(len);
        v.resize(len, 0);
        v
    }

    /// Keep `v` for a later [`HostVecs::take`] (up to a few).
    pub(crate) fn give(&self, v: Vec<u8>) {
        if let Ok(mut h) = self.0.lock() {
            if h.len() < HOST_POOL_MAX {
                h.push(v);
            }
        }
    }

    pub(crate) fn clear(&self) {
        if let Ok(mut h) = self.0.lock() {
            h.clear();
        }
    }
}

/// A buffer on loan from the pool; it goes back when dropped.
pub struct PooledBuffer {
    buffer: Option<wgpu::Buffer>,
    free: FreeLists,
}

impl PooledBuffer {
    pub fn buffer(&self) -> &wgpu::Buffer {
        // Only `drop` takes the buffer out.
        self.buffer.as_ref().unwrap_or_else(|| unreachable!())
    }
}

impl std::ops::Deref for PooledBuffer {
    type Target = wgpu::Buffer;
    fn deref(&self) -> &wgpu::Buffer {
        self.buffer()
    }
}

impl Drop for PooledBuffer {
    fn drop(&mut self) {
        if let (Some(b), Ok(mut free)) = (self.buffer.take(), self.free.lock()) {
            free.entry((b.size(), b.usage())).or_default().push(b);
        }
    }
}

/// Size classes: powers of two up to 1 MiB, then eight steps per power of two (a step
/// of at most 64 MiB), so that a buffer wastes at most an eighth and jobs of similar size
/// still reuse. Whole powers of two doubled a readback of 32 MiB and its status words
/// into 64 MiB of mapped host memory.
pub(crate) fn size_class(size: u64) -> u64 {
    const SMALL: u64 = 1 << 20;
    let size = size.max(256);
    if size <= SMALL {
        return size.next_power_of_two();
    }
    let floor = 1u64 << (63 - size.leading_zeros());
    let step = (floor / 8).min(64 << 20);
    size.div_ceil(step) * step
}

impl Gpu {
    /// A buffer of at least `size` bytes; contents unspecified.
    pub fn pooled_buffer(&self, size: u64, usage: wgpu::BufferUsages) -> PooledBuffer {
        let class = size_class(size);
        let free = self.pool.free.clone();
        let reused = free
            .lock()
            .ok()
            .and_then(|mut f| f.get_mut(&(class, usage)).and_then(|v| v.pop()));
        let buffer = reused.unwrap_or_else(|| {
            let t = super::clock();
            let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("parvlc.pool"),
                size: class,
                usage,
                mapped_at_creation: false,
            });
            // A first run's allocations, where they cost: large buffers only.
            if let Some(t) = t.filter(|_| class >= 1 << 20) {
                log::debug!(
                    "pool: created {class} bytes ({usage:?}) in {:.2} ms",
                    t.elapsed().as_secs_f64() * 1e3
                );
            }
            buffer
        });
        PooledBuffer {
            buffer: Some(buffer),
            free,
        }
    }

    /// Drop every idle pooled buffer.
    pub fn trim_pool(&self) {
        if let Ok(mut f) = self.pool.free.lock() {
            f.clear();
        }
        self.pool.host.clear();
        self.pool.staging.clear();
    }

    /// A host vector of `len` bytes for the caller to overwrite whole ([`HostVecs::take`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn host_vec(&self, len: usize) -> Vec<u8> {
        self.pool.host.take(len)
    }

    /// Give back a vector that a readback returned (a chunk's output once written), so
    /// that the next readback reuses its pages.
    pub fn recycle_host_vec(&self, v: Vec<u8>) {
        self.pool.host.give(v);
    }
}

#[cfg(test)]
mod tests {
    use super::size_class;

    #[test]
    fn size_classes_hold_the_size_and_waste_at_most_an_eighth() {
        let mut sizes: Vec<u64> = (0..40).map(|b| 1u64 << b).collect();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            sizes.push(x % (8 << 30));
        }
        for &s in &sizes {
            let c = size_class(s);
            assert!(c >= s.max(256), "{s} -> {c}");
            if s > 1 << 20 {
                assert!(c - s <= s / 8, "{s} -> {c}");
            }
            assert_eq!(size_class(c), c, "a class is its own class: {s} -> {c}");
        }
        assert_eq!(size_class((32 << 20) + (32 << 10)), 36 << 20);
        assert_eq!(size_class(1000), 1024);
        assert_eq!(size_class(5 << 30), 5 << 30);
    }
}
