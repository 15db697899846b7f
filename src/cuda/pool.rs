//! Buffers the CUDA decoders reuse across batches: device memory and page-locked (pinned)
//! host memory in the size classes of the wgpu pool ([`crate::gpu::size_class`]), and the
//! host vectors that readbacks are copied into. The encoder's staged copies take their
//! pinned pieces from here too (`super::staged`). A fresh device buffer, and far more a
//! pinned one, per 32 MiB batch cost more than the batch's copies.
//!
//! Every device buffer is used on [`CudaGpu::stream`] only: one in-order stream, so a
//! buffer handed back while work on it is still queued is safe to hand out again (its
//! next use is queued behind that work). Pinned buffers are touched by the host as well:
//! each carries an event recorded after its last queued copy, and the host reads or
//! writes it only once that event completes.

use std::sync::{Arc, Mutex};

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, PinnedHostSlice};

use super::{driver_error, CudaGpu};
use crate::gpu::size_class;
use crate::{Error, Result};

/// Idle device buffers kept at most (two decoder threads hold a few each).
const MAX_IDLE: usize = 8;
/// Idle pinned buffers kept at most: the stream coders' staged copies hold up to three
/// pieces each (`super::staged`), and a pinned buffer made afresh costs more than its copy.
const MAX_IDLE_PINNED_BUFFERS: usize = 32;
/// Idle pinned bytes kept at most: page-locked memory is taken from the whole machine,
/// and counts in the process's 512 MiB (issue 13). The stream coders' 32 pieces of 4 MiB
/// fit; `decompress --backend cuda` of 4 GiB of native files peaked at 481-496 MiB on the
/// H200 with this bound against 517-574 MiB with 512 MiB, as fast, and compress as fast
/// (docs/results.md, "Forty-third pass").
const MAX_IDLE_PINNED: usize = 128 << 20;
/// A buffer's size in bytes, for the free lists.
pub(crate) trait Bytes {
    fn bytes(&self) -> usize;
}

/// Idle buffers, oldest first.
pub(crate) struct FreeList<T> {
    idle: Vec<T>,
    max_idle: usize,
    max_bytes: usize,
}

impl<T: Bytes> FreeList<T> {
    pub(crate) fn new(max_idle: usize, max_bytes: usize) -> Self {
        FreeList {
            idle: Vec::new(),
            max_idle,
            max_bytes,
        }
    }

    /// The smallest idle buffer of at least `need` bytes and at most twice its size class
    /// (no 1 GiB buffer for a 1 MiB batch) for which `ready` holds.
    pub(crate) fn take(&mut self, need: usize, ready: impl Fn(&T) -> bool) -> Option<T> {
        let most = size_class(need as u64).saturating_mul(2);
        let i = self
            .idle
            .iter()
            .enumerate()
            .filter(|(_, b)| b.bytes() >= need && b.bytes() as u64 <= most && ready(b))
            .min_by_key(|(_, b)| b.bytes())
            .map(|(i, _)| i)?;
        Some(self.idle.remove(i))
    }

    /// Keep `buffer`; returns the oldest ones beyond the count or the byte bound (never
    /// the newest), for the caller to drop outside its lock.
    pub(crate) fn put(&mut self, buffer: T) -> Vec<T> {
        self.idle.push(buffer);
        let mut evicted = Vec::new();
        while self.idle.len() > 1
            && (self.idle.len() > self.max_idle
                || self.idle.iter().map(Bytes::bytes).sum::<usize>() > self.max_bytes)
        {
            evicted.push(self.idle.remove(0));
        }
        evicted
    }

    pub(crate) fn clear(&mut self) -> Vec<T> {
        std::mem::take(&mut self.idle)
    }
}

impl Bytes for CudaSlice<u8> {
    fn bytes(&self) -> usize {
        self.len()
    }
}

/// Page-locked host memory and the event recorded after its last queued copy.
pub(crate) struct Pinned {
    host: PinnedHostSlice<u8>,
    used: CudaEvent,
}

impl Bytes for Pinned {
    fn bytes(&self) -> usize {
        self.host.len()
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // A copy may still read or write it (a batch abandoned on an error).
        let _ = self.used.synchronize();
    }
}

pub(crate) struct CudaPool {
    device: Mutex<FreeList<CudaSlice<u8>>>,
    pinned: Mutex<FreeList<Pinned>>,
    host: crate::gpu::HostVecs,
}

impl CudaPool {
    pub(crate) fn new(total_memory: u64) -> Arc<CudaPool> {
        Arc::new(CudaPool {
            device: Mutex::new(FreeList::new(MAX_IDLE, (total_memory / 8) as usize)),
            pinned: Mutex::new(FreeList::new(MAX_IDLE_PINNED_BUFFERS, MAX_IDLE_PINNED)),
            host: Default::default(),
        })
    }
}

fn poisoned() -> Error {
    Error::Cuda("buffer pool poisoned".into())
}

/// Device memory on loan from the pool, back to it when dropped; contents unspecified.
pub(crate) struct DeviceBuffer {
    buffer: Option<CudaSlice<u8>>,
    pool: Arc<CudaPool>,
}

impl std::ops::Deref for DeviceBuffer {
    type Target = CudaSlice<u8>;
    fn deref(&self) -> &CudaSlice<u8> {
        // Only `drop` takes the buffer out.
        self.buffer.as_ref().unwrap_or_else(|| unreachable!())
    }
}

impl std::ops::DerefMut for DeviceBuffer {
    fn deref_mut(&mut self) -> &mut CudaSlice<u8> {
        self.buffer.as_mut().unwrap_or_else(|| unreachable!())
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // No wait: its next use is queued on the same stream, after this one's work.
        if let (Some(b), Ok(mut free)) = (self.buffer.take(), self.pool.device.lock()) {
            let evicted = free.put(b);
            drop(free);
            drop(evicted);
        }
    }
}

/// Pinned host memory on loan from the pool, back to it when dropped.
pub(crate) struct PinnedBuffer {
    buffer: Option<Pinned>,
    pool: Arc<CudaPool>,
}

impl PinnedBuffer {
    fn pinned(&mut self) -> &mut Pinned {
        self.buffer.as_mut().unwrap_or_else(|| unreachable!())
    }

    /// Its bytes, once its last queued copy is done: for the host, or for the next copy.
    pub(crate) fn bytes(&mut self) -> Result<&mut [u8]> {
        let p = self.pinned();
        p.used
            .synchronize()
            .map_err(driver_error("waiting for a copy"))?;
        p.host
            .as_mut_slice()
            .map_err(driver_error("pinned host memory"))
    }

    /// Records that every copy to or from it so far is queued on `stream`: the host waits
    /// for them before it touches the bytes again ([`PinnedBuffer::bytes`]).
    pub(crate) fn queued(&mut self, stream: &CudaStream) -> Result<()> {
        let recorded = self.pinned().used.record(stream);
        if recorded.is_err() {
            // Without the event, wait for the copies here.
            let _ = stream.synchronize();
        }
        recorded.map_err(driver_error("recording an event"))
    }
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        if let (Some(b), Ok(mut free)) = (self.buffer.take(), self.pool.pinned.lock()) {
            let evicted = free.put(b);
            drop(free);
            // Dropping waits for their copies and frees page-locked memory: not under the lock.
            drop(evicted);
        }
    }
}

impl CudaGpu {
    /// Device memory of at least `bytes` (16 at least), for work on [`CudaGpu::stream`].
    pub(crate) fn device_buffer(&self, bytes: usize) -> Result<DeviceBuffer> {
        let bytes = bytes.max(16);
        let reused = self
            .pool
            .device
            .lock()
            .map_err(|_| poisoned())?
            .take(bytes, |_| true);
        let buffer = match reused {
            Some(b) => b,
            // SAFETY: contents unspecified, as the caller expects; it writes before reading.
            None => unsafe { self.stream.alloc::<u8>(size_class(bytes as u64) as usize) }
                .map_err(driver_error("allocating device memory"))?,
        };
        Ok(DeviceBuffer {
            buffer: Some(buffer),
            pool: self.pool.clone(),
        })
    }

    /// Pinned host memory of at least `bytes`: an idle buffer whose copies are done, or a
    /// new one (zeroed) rather than waiting for one still in use.
    pub(crate) fn pinned_buffer(&self, bytes: usize) -> Result<PinnedBuffer> {
        let bytes = bytes.max(16);
        // The events' queries below need the context current on this thread (a decoder
        // thread's first CUDA call may be this one): an error would read as "not done".
        self.ctx
            .bind_to_thread()
            .map_err(driver_error("binding the CUDA context"))?;
        let reused = self
            .pool
            .pinned
            .lock()
            .map_err(|_| poisoned())?
            .take(bytes, |p| p.used.try_is_complete().unwrap_or(false));
        let buffer = match reused {
            Some(b) => b,
            None => {
                let len = size_class(bytes as u64) as usize;
                // Cached, not write-combined: the host reads the readbacks, and the tables
                // are not written in one sequential sweep.
                // SAFETY: filled with zeros before anything reads it.
                let mut host = unsafe { self.ctx.alloc_pinned_with_flags::<u8>(len, 0) }
                    .map_err(driver_error("allocating pinned host memory"))?;
                host.as_mut_slice()
                    .map_err(driver_error("pinned host memory"))?
                    .fill(0);
                // Blocking: a wait for a readback gives its core to the other batches.
                let used = self
                    .ctx
                    .new_event(Some(CUevent_flags::CU_EVENT_BLOCKING_SYNC))
                    .map_err(driver_error("creating a CUDA event"))?;
                Pinned { host, used }
            }
        };
        Ok(PinnedBuffer {
            buffer: Some(buffer),
            pool: self.pool.clone(),
        })
    }

    /// A host vector of `len` bytes for the caller to overwrite whole, reusing one given
    /// back ([`CudaGpu::recycle_host_vec`]) where one is large enough.
    pub(crate) fn host_vec(&self, len: usize) -> Vec<u8> {
        self.pool.host.take(len)
    }

    /// Give back a vector that a decode returned (a batch's output once written), so that
    /// the next readback reuses its pages instead of faulting in fresh ones.
    pub fn recycle_host_vec(&self, v: Vec<u8>) {
        self.pool.host.give(v);
    }

    /// Drop every idle pooled buffer.
    pub fn trim_pool(&self) {
        let device = self.pool.device.lock().map(|mut f| f.clear());
        let pinned = self.pool.pinned.lock().map(|mut f| f.clear());
        drop((device, pinned));
        self.pool.host.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Bytes for Vec<u8> {
        fn bytes(&self) -> usize {
            self.len()
        }
    }

    fn list(sizes: &[usize]) -> FreeList<Vec<u8>> {
        let mut f = FreeList::new(MAX_IDLE, usize::MAX);
        for &s in sizes {
            assert!(f.put(vec![0; s]).is_empty());
        }
        f
    }

    #[test]
    fn take_gives_the_smallest_ready_buffer_that_holds_the_size() {
        let mut f = list(&[1 << 20, 2 << 20, 5 << 19, 3 << 20, 8 << 20]);
        assert_eq!(f.take(1500 << 10, |_| true).map(|b| b.len()), Some(2 << 20));
        // Not ready: passed over for a larger one.
        assert_eq!(
            f.take(1500 << 10, |b| b.len() != 5 << 19).map(|b| b.len()),
            Some(3 << 20)
        );
        assert_eq!(f.take(9 << 20, |_| true), None, "none holds it");
        assert_eq!(f.take(1500 << 10, |_| false), None, "none ready");
        assert_eq!(f.take(1 << 20, |_| true).map(|b| b.len()), Some(1 << 20));
        assert_eq!(f.idle.len(), 2);
    }

    #[test]
    fn take_passes_over_buffers_far_larger_than_the_size() {
        let mut f = list(&[64 << 20]);
        assert_eq!(f.take(1 << 20, |_| true), None);
        assert_eq!(f.take(31 << 20, |_| true).map(|b| b.len()), Some(64 << 20));
    }

    #[test]
    fn put_keeps_a_bounded_number_and_bytes_newest_first() {
        let mut f = FreeList::new(MAX_IDLE, 10 << 20);
        for i in 0..MAX_IDLE {
            assert!(f.put(vec![i as u8; 1 << 10]).is_empty());
        }
        let evicted = f.put(vec![0xff; 1 << 10]);
        assert_eq!(evicted.len(), 1);
        assert_eq!(evicted[0][0], 0, "the oldest goes first");
        assert_eq!(f.idle.len(), MAX_IDLE);
        // Over the byte bound: everything older goes, the newest stays even on its own.
        let evicted = f.put(vec![1; 20 << 20]);
        assert_eq!(evicted.len(), MAX_IDLE);
        assert_eq!(f.idle.len(), 1);
        assert_eq!(f.clear().len(), 1);
        assert!(f.idle.is_empty());
    }
}
