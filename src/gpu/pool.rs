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
    /// Host vectors that readbacks copy into, given back by their consumers: a stream
    /// reads back a chunk's output every few milliseconds, and fresh pages for each cost
    /// more (page faults, zeroing) than the copy itself.
    host: Mutex<Vec<Vec<u8>>>,
}

/// Host vectors kept for reuse at most.
const HOST_POOL_MAX: usize = 4;

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

/// Size classes: powers of two up to 64 MiB, then multiples of 64 MiB, so large jobs
/// waste little memory and small ones still reuse.
fn size_class(size: u64) -> u64 {
    const LARGE: u64 = 64 << 20;
    let size = size.max(256);
    if size <= LARGE {
        size.next_power_of_two()
    } else {
        size.div_ceil(LARGE) * LARGE
    }
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
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("parvlc.pool"),
                size: class,
                usage,
                mapped_at_creation: false,
            })
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
        if let Ok(mut h) = self.pool.host.lock() {
            h.clear();
        }
    }

    /// A host vector of `len` bytes for the caller to overwrite whole, reusing one given
    /// back if one is large enough: its old bytes are kept where they reach (zeroing a
    /// 16 MiB readback first cost a serial pass over it), zeros past them.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn host_vec(&self, len: usize) -> Vec<u8> {
        let reused = self.pool.host.lock().ok().and_then(|mut h| {
            let i = h.iter().position(|v| v.capacity() >= len)?;
            Some(h.swap_remove(i))
        });
        let mut v = reused.unwrap_or_default();
        v.truncate(len);
        v.resize(len, 0);
        v
    }

    /// Give back a vector that a readback returned (a chunk's output once written), so
    /// that the next readback reuses its pages.
    pub fn recycle_host_vec(&self, v: Vec<u8>) {
        if let Ok(mut h) = self.pool.host.lock() {
            if h.len() < HOST_POOL_MAX {
                h.push(v);
            }
        }
    }
}
