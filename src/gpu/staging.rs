//! Uploads through host-writable buffers that stay mapped between uses.
//!
//! `Queue::write_buffer` creates a new staging buffer for every call, and a large one costs
//! more to create and to touch for the first time than to fill: each 100 MB batch of
//! H.264 pictures took 7.8 ms to upload and record that way on the H200, 4.0 ms through a
//! buffer kept mapped (docs/results.md, "Twenty-sixth pass"). A
//! [`StagedUpload`] takes a buffer from a pool of buffers that are already mapped, is
//! written in place, records its copy into the caller's encoder (or, where mapped memory
//! can be storage, is bound where it lies: [`StagedUpload::bind`]), and once its
//! submission is made goes back to be mapped again when the GPU is done with it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::pool::size_class;
use super::Gpu;
use crate::{Error, Result};

/// Uploads at least this long are written on all cores, in pieces of `PIECE` bytes.
const PARALLEL_BYTES: usize = 1 << 20;
const PIECE: usize = 256 << 10;

/// Uploads of at least this many bytes take a larger idle buffer where none of their own
/// size class is idle (smaller ones are quick to create).
const LARGER_REUSED_BYTES: u64 = 1 << 20;

/// New staging buffers of at least this many bytes made ahead are cleared by the GPU where
/// it can.
const GPU_CLEARED_BYTES: u64 = 16 << 20;

/// Larger staging buffers are not kept once used: a one-shot upload of a whole input would
/// otherwise hold its size in mapped memory for the GPU's life.
const KEPT_BYTES_MAX: u64 = 512 << 20;

/// A piece of a mapping written on a core of its own.
struct MappedPiece<'a>(wgpu::WriteOnly<'a, [u8]>);

/// Write `src` into mapped memory `dst` (as long; another length panics, as
/// `copy_from_slice` does) by the streaming copy ([`crate::host_copy`]): what is written
/// there is read next by the GPU, not the cores.
pub(crate) fn write_mapped(dst: &mut wgpu::WriteOnly<'_, [u8]>, src: &[u8]) {
    assert_eq!(dst.len(), src.len(), "a mapped write of another length");
    // SAFETY: a `WriteOnly`'s pointer may be written for its length (and is only written
    // here); `src` is other memory, borrowed.
    unsafe {
        crate::host_copy::copy_streaming_raw(
            dst.as_raw_element_ptr().as_ptr(),
            src.as_ptr(),
            src.len(),
        )
    }
}

// SAFETY: a `WriteOnly` of bytes is a pointer to memory only it may write (wgpu leaves
// `WriteOnly<[u8]>` without `Send` only because its `Send` impl is for sized types); the
// pieces of one mapping are disjoint, and each is written by one thread while the view
// they were split from lives.
unsafe impl Send for MappedPiece<'_> {}

/// Give each piece of `view` (at most `PIECE` bytes) to `fill` with its offset, on all
/// cores where the view is long.
pub(crate) fn fill_pieces(
    view: wgpu::WriteOnly<'_, [u8]>,
    fill: &(impl Fn(usize, wgpu::WriteOnly<'_, [u8]>) + Sync),
) {
    let len = view.len();
    let mut rest = view;
    let mut pieces = Vec::with_capacity(len.div_ceil(PIECE));
    let mut offset = 0;
    while offset < len {
        let n = PIECE.min(len - offset);
        let (piece, tail) = rest.split_at(n);
        pieces.push((offset, MappedPiece(piece)));
        rest = tail;
        offset += n;
    }
    #[cfg(not(target_arch = "wasm32"))]
    if len >= PARALLEL_BYTES {
        use rayon::prelude::*;
        pieces
            .into_par_iter()
            .for_each(|(offset, MappedPiece(piece))| fill(offset, piece));
        return;
    }
    for (offset, MappedPiece(piece)) in pieces {
        fill(offset, piece);
    }
}

/// Idle staging buffers by size class, every one of them mapped for writing.
type MappedLists = Arc<Mutex<HashMap<u64, Vec<wgpu::Buffer>>>>;

/// Put a mapped, idle `buffer` back on its size class's list.
fn keep_mapped(lists: &MappedLists, buffer: wgpu::Buffer) {
    if let Ok(mut m) = lists.lock() {
        m.entry(buffer.size()).or_default().push(buffer);
    }
}

/// Staging buffers of one size class made ahead ([`Gpu::stage_ahead`]) at most.
const AHEAD_PER_CLASS: u32 = 2;

#[derive(Default)]
pub(crate) struct StagingPool {
    mapped: MappedLists,
    /// Per size class: uploads that found no idle buffer ([`Gpu::idle_staged_upload`]),
    /// and buffers made ahead.
    missed: Mutex<HashMap<u64, u32>>,
    ahead: Mutex<HashMap<u64, u32>>,
    /// Buffers given back whose mapping has not completed yet.
    remapping: Arc<AtomicUsize>,
    /// Buffers created (the tests' proof of reuse).
    created: AtomicUsize,
}

impl StagingPool {
    pub(crate) fn clear(&self) {
        if let Ok(mut m) = self.mapped.lock() {
            m.clear();
        }
        if let Ok(mut m) = self.ahead.lock() {
            m.clear();
        }
    }

    /// An idle buffer of size class `class`; for a large one, of the smallest class that
    /// holds it (a batch shorter than the others, the last of a stream, takes one of
    /// theirs rather than waiting for a new one).
    fn take(&self, class: u64) -> Option<wgpu::Buffer> {
        let mut m = self.mapped.lock().ok()?;
        let fits = match class >= LARGER_REUSED_BYTES {
            true => m
                .iter()
                .filter(|(&c, idle)| c >= class && !idle.is_empty())
                .map(|(&c, _)| c)
                .min()?,
            false => class,
        };
        m.get_mut(&fits).and_then(|v| v.pop())
    }
}

/// A mapped buffer of [`Gpu::staged_upload`], on loan. Write it with [`Self::write`], record
/// its copy with [`Self::copy_to`], and keep it until the encoder that copy went into has
/// been submitted: dropping it asks for it to be mapped again, which a submission still
/// to come would find in the way.
pub struct StagedUpload {
    buffer: Option<wgpu::Buffer>,
    len: u64,
    mapped: bool,
    mapped_free: MappedLists,
    remapping: Arc<AtomicUsize>,
}

impl Gpu {
    /// A mapped buffer for an upload of `len` bytes (rounded up to a multiple of 4, as
    /// copies are): from the staging pool if one of its size class is mapped and idle,
    /// otherwise a new one (zeroed by wgpu: see [`Self::prewarm_staging`]). Never waits.
    pub fn staged_upload(&self, len: u64) -> Result<StagedUpload> {
        let len = len.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let buffer = match self.idle_staging(size_class(len)) {
            Some(b) => b,
            None => self.new_staging(size_class(len)),
        };
        Ok(self.staged(buffer, len))
    }

    /// [`Self::staged_upload`] where the pool has an idle buffer for it; `None` (and the
    /// miss counted for [`Self::stage_ahead`]) where it would have to make one. For an
    /// upload that `Queue::write_buffer` does as well the first time: a new staging buffer
    /// is zeroed on one core when mapped, and costs more than that call.
    pub(crate) fn idle_staged_upload(&self, len: u64) -> Option<StagedUpload> {
        let len = len.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let class = size_class(len);
        match self.idle_staging(class) {
            Some(buffer) => Some(self.staged(buffer, len)),
            None => {
                if let Ok(mut m) = self.pool.staging.missed.lock() {
                    *m.entry(class).or_default() += 1;
                }
                None
            }
        }
    }

    /// Make a staging buffer for uploads of `len` bytes behind the work already submitted,
    /// for later uploads to find idle: where uploads of its size class have missed twice
    /// ([`Self::idle_staged_upload`]: a size seen again is likely to come back), fewer
    /// than [`AHEAD_PER_CLASS`] were made ahead, and the GPU can clear mappable memory.
    /// The GPU clears it (nothing on the host's cores), and it joins the pool mapped once
    /// that is done. Call it after the submission it should not delay.
    pub(crate) fn stage_ahead(&self, len: u64) {
        let len = len.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let class = size_class(len);
        let pool = &self.pool.staging;
        let clearable = self.gpu_clears_staging(class);
        let missed = pool
            .missed
            .lock()
            .map_or(0, |m| m.get(&class).copied().unwrap_or(0));
        if !clearable || missed < 2 {
            return;
        }
        match pool.ahead.lock() {
            Ok(mut ahead) => {
                let made = ahead.entry(class).or_default();
                if *made >= AHEAD_PER_CLASS {
                    return;
                }
                *made += 1;
            }
            Err(_) => return,
        }
        let buffer = self.staging_cleared_by_the_gpu(class);
        // Unmapped on loan: given back, it is mapped once the clear is done and then
        // idle in the pool.
        let mut loan = self.staged(buffer, len);
        loan.mapped = false;
        drop(loan);
    }

    /// An idle mapped staging buffer of size class `class` (or a larger one for a large
    /// upload), if the pool has one.
    fn idle_staging(&self, class: u64) -> Option<wgpu::Buffer> {
        let pool = &self.pool.staging;
        let reused = pool.take(class);
        // A buffer given back may have finished its copy without anyone polling since:
        // one poll that does not wait runs its mapping's callback.
        #[cfg(not(target_arch = "wasm32"))]
        let reused = match reused {
            None if pool.remapping.load(Ordering::Acquire) > 0 => {
                let _ = self.device.poll(wgpu::PollType::Poll);
                pool.take(class)
            }
            reused => reused,
        };
        reused
    }

    fn staged(&self, buffer: wgpu::Buffer, len: u64) -> StagedUpload {
        let pool = &self.pool.staging;
        StagedUpload {
            buffer: Some(buffer),
            len,
            mapped: true,
            mapped_free: pool.mapped.clone(),
            remapping: pool.remapping.clone(),
        }
    }

    /// Have `count` staging buffers for uploads of `len` bytes mapped and idle, made now
    /// rather than when the first uploads need them. Call it while the GPU's queue is
    /// idle (before a stream's first batch): a new buffer of 16 MiB or more is then
    /// cleared by the GPU, where the adapter lets a mappable buffer be a copy's
    /// destination, in a few milliseconds; wgpu zeroes one that [`Self::staged_upload`]
    /// creates on one core where it maps it (28 ms for 100 MB on the H200, whose staging
    /// memory lies across the link), and a clear then would wait for the work queued
    /// before it.
    pub async fn prewarm_staging(&self, len: u64, count: usize) -> Result<()> {
        let len = len.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let class = size_class(len);
        let mut made = Vec::with_capacity(count);
        for _ in 0..count {
            let buffer = match self.idle_staging(class) {
                Some(b) => b,
                None => self.new_staging_cleared(class).await?,
            };
            made.push(self.staged(buffer, len));
        }
        // Back to the pool, still mapped.
        drop(made);
        Ok(())
    }

    /// A new staging buffer of `size` bytes, mapped at its creation: wgpu zeroes it where
    /// it maps it.
    fn new_staging(&self, size: u64) -> wgpu::Buffer {
        let t = super::clock();
        let buffer = self.create_staging(size, false);
        if let Some(t) = t.filter(|_| size >= 1 << 20) {
            log::debug!(
                "staging: created {size} bytes (zeroed by wgpu) in {:.2} ms",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        buffer
    }

    /// A new staging buffer of `size` bytes, mapped: where it is large and the adapter
    /// allows it, cleared by the GPU first, so that the mapping finds it initialized;
    /// else as [`Self::new_staging`].
    async fn new_staging_cleared(&self, size: u64) -> Result<wgpu::Buffer> {
        if !self.gpu_clears_staging(size) {
            return Ok(self.new_staging(size));
        }
        let t = super::clock();
        let buffer = self.staging_cleared_by_the_gpu(size);
        self.map_polled(&buffer, size, wgpu::MapMode::Write).await?;
        if let Some(t) = t {
            log::debug!(
                "staging: created {size} bytes (cleared by the GPU) in {:.2} ms",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        Ok(buffer)
    }

    /// A new staging buffer of `size` bytes, unmapped, its clear by the GPU submitted
    /// (behind the work already queued).
    fn staging_cleared_by_the_gpu(&self, size: u64) -> wgpu::Buffer {
        let buffer = self.create_staging(size, true);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("parvlc.staging.clear"),
            });
        encoder.clear_buffer(&buffer, 0, None);
        self.queue.submit([encoder.finish()]);
        buffer
    }

    /// Whether a new staging buffer of `size` bytes is cleared by the GPU: large, and the
    /// adapter lets a mappable buffer be a copy's destination.
    fn gpu_clears_staging(&self, size: u64) -> bool {
        size >= GPU_CLEARED_BYTES
            && self
                .features
                .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS)
    }

    /// The buffer itself: a copy's source, mapped at creation unless `cleared` (then a
    /// copy's destination too, for the GPU's clear); where the adapter allows it, also
    /// storage that a shader reads in place (`StagedUpload::bind`).
    fn create_staging(&self, size: u64, cleared: bool) -> wgpu::Buffer {
        self.pool.staging.created.fetch_add(1, Ordering::Relaxed);
        let mut usage = wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC;
        if cleared {
            usage |= wgpu::BufferUsages::COPY_DST;
        }
        if self
            .features
            .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS)
        {
            usage |= wgpu::BufferUsages::STORAGE;
        }
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("parvlc.staging"),
            size,
            usage,
            mapped_at_creation: !cleared,
        })
    }
}

impl StagedUpload {
    fn buffer(&self) -> &wgpu::Buffer {
        // Only `drop` takes the buffer out.
        self.buffer.as_ref().unwrap_or_else(|| unreachable!())
    }

    /// Bytes this upload copies (a multiple of 4).
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Write `parts` one after another from the start of the upload, and zeros after them
    /// up to its length; large uploads on all cores (a batch of 32 1080p pictures is
    /// 100 MB, and one core writing through a mapping reaches a fraction of the link).
    pub fn write(&self, parts: &[&[u8]]) -> Result<()> {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        if total as u64 > self.len {
            return Err(Error::InvalidArgument(format!(
                "{total} bytes written to a staged upload of {}",
                self.len
            )));
        }
        let Some(mut view) = self.mapped_view()? else {
            return Ok(());
        };
        // Pieces of at most PIECE bytes, each with its own part of the mapping.
        let mut rest = view.slice(..);
        let mut pieces = Vec::new();
        for part in parts {
            for piece in part.chunks(PIECE) {
                let (dst, tail) = rest.split_at(piece.len());
                pieces.push((MappedPiece(dst), piece));
                rest = tail;
            }
        }
        if total >= PARALLEL_BYTES {
            use rayon::prelude::*;
            pieces
                .into_par_iter()
                .for_each(|(MappedPiece(mut dst), src)| write_mapped(&mut dst, src));
        } else {
            for (MappedPiece(mut dst), src) in pieces {
                write_mapped(&mut dst, src);
            }
        }
        rest.fill(0);
        Ok(())
    }

    /// Write the whole upload through `fill`, which gets each piece of it (at most
    /// `PIECE` bytes) with the offset where it starts and must write all of it; large
    /// uploads on all cores. For bytes made on the way (samples narrowed to one byte),
    /// where [`Self::write`] copies bytes that exist.
    pub fn fill(&self, fill: &(impl Fn(usize, wgpu::WriteOnly<'_, [u8]>) + Sync)) -> Result<()> {
        if let Some(mut view) = self.mapped_view()? {
            fill_pieces(view.slice(..), fill);
        }
        Ok(())
    }

    /// The upload's mapping to write (`None` for an empty upload); an error once its
    /// copy was recorded.
    fn mapped_view(&self) -> Result<Option<wgpu::BufferViewMut>> {
        if !self.mapped {
            return Err(Error::InvalidArgument(
                "a staged upload written after its copy was recorded".into(),
            ));
        }
        if self.len == 0 {
            return Ok(None);
        }
        self.buffer()
            .slice(..self.len)
            .get_mapped_range_mut()
            .map(Some)
            .map_err(|e| Error::Gpu {
                stage: "staging",
                message: e.to_string(),
            })
    }

    /// Whether [`Self::bind`] gives a binding: the adapter lets mapped memory be storage
    /// and the upload holds bytes.
    pub fn bindable(&self) -> bool {
        self.len > 0 && self.buffer().usage().contains(wgpu::BufferUsages::STORAGE)
    }

    /// Hand the buffer to the GPU: no more writes (a copy or a binding reads it).
    fn unmap(&mut self) {
        if self.mapped {
            self.buffer().unmap();
            self.mapped = false;
        }
    }

    /// The upload's bytes as a storage binding that shaders read across the link, with
    /// no copy, where the adapter lets mapped memory be storage; `None` elsewhere (copy
    /// it with [`Self::copy_to`]). Keep the upload until the work that reads it is
    /// submitted, as after a copy.
    pub fn bind(&mut self) -> Option<wgpu::BufferBinding<'_>> {
        if !self.bindable() {
            return None;
        }
        self.unmap();
        Some(wgpu::BufferBinding {
            buffer: self.buffer(),
            offset: 0,
            size: wgpu::BufferSize::new(self.len),
        })
    }

    /// Record the copy of the upload's bytes to `offset` of `dst` (COPY_DST) into
    /// `encoder`.
    pub fn copy_to(&mut self, encoder: &mut wgpu::CommandEncoder, dst: &wgpu::Buffer, offset: u64) {
        self.unmap();
        if self.len > 0 {
            encoder.copy_buffer_to_buffer(self.buffer(), 0, dst, offset, self.len);
        }
    }
}

impl Drop for StagedUpload {
    fn drop(&mut self) {
        let Some(buffer) = self.buffer.take() else {
            return;
        };
        if buffer.size() > KEPT_BYTES_MAX {
            return;
        }
        if self.mapped {
            keep_mapped(&self.mapped_free, buffer);
            return;
        }
        // Mapped again once the GPU has finished the copy, then idle in the pool; a
        // mapping that fails (a lost device) drops the buffer.
        let free = self.mapped_free.clone();
        let remapping = self.remapping.clone();
        remapping.fetch_add(1, Ordering::AcqRel);
        let again = buffer.clone();
        buffer.map_async(wgpu::MapMode::Write, .., move |mapped| {
            remapping.fetch_sub(1, Ordering::AcqRel);
            if mapped.is_ok() {
                keep_mapped(&free, again);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu() -> Gpu {
        pollster::block_on(Gpu::new(crate::gpu::GpuOptions {
            pipeline_cache: None,
            ..Default::default()
        }))
        .expect("a wgpu adapter (lavapipe: mesa-vulkan-drivers)")
    }

    /// `parts` staged, copied into a fresh buffer of the upload's length, and read back.
    fn through_staging(gpu: &Gpu, len: u64, parts: &[&[u8]]) -> Vec<u8> {
        let mut staging = gpu.staged_upload(len).expect("staged");
        staging.write(parts).expect("written");
        let dst = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("test.staging"),
            size: staging.len().max(4),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        staging.copy_to(&mut encoder, &dst, 0);
        gpu.queue.submit([encoder.finish()]);
        drop(staging);
        pollster::block_on(gpu.read_buffer(&dst, 0, len.next_multiple_of(4))).expect("read")
    }

    fn bytes(seed: u32, n: usize) -> Vec<u8> {
        let mut x = seed.wrapping_mul(2654435761) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x >> 24) as u8 | 1
            })
            .collect()
    }

    fn uploads_land_whole_with_zeros_after_and_reuse_their_buffers(gpu: &Gpu) {
        // Past PARALLEL_BYTES and not a whole number of pieces: written on all cores;
        // large enough for the GPU to clear where it makes it ahead.
        let len = GPU_CLEARED_BYTES + 3 * PIECE as u64 + 4 * 1001;
        let full = bytes(1, len as usize);
        assert!(through_staging(gpu, len, &[&full]) == full);
        let created = gpu.pool.staging.created.load(Ordering::Relaxed);
        for round in 0..4u32 {
            // Odd parts that end short of the upload: the rest reads as zeros, not as the
            // earlier upload's bytes that the reused buffer still holds.
            let a = bytes(10 + round, PIECE + 3 + round as usize);
            let b = bytes(20 + round, 2 * PIECE + 7);
            let c = bytes(30 + round, 5);
            let mut want = [a.clone(), b.clone(), c.clone()].concat();
            want.resize(len as usize, 0);
            assert!(
                through_staging(gpu, len, &[&a, &b, &c]) == want,
                "round {round}"
            );
            // Small uploads take the serial path.
            let small = bytes(40 + round, 37);
            let mut want = small.clone();
            want.resize(40, 0);
            assert_eq!(
                through_staging(gpu, 40, &[&small[..30], &small[30..]]),
                want
            );
        }
        // Each size class's buffer came back mapped and served the later rounds, and a
        // shorter upload of another class takes the larger idle one.
        let short = bytes(50, (len / 3) as usize & !3);
        assert!(through_staging(gpu, short.len() as u64, &[&short]) == short);
        assert_eq!(
            gpu.pool.staging.created.load(Ordering::Relaxed),
            created + 1
        );
    }

    #[test]
    fn staged_uploads_land_whole_with_zeros_after_and_reuse_their_buffers() {
        // Buffers made as uploads need them: zeroed by wgpu.
        uploads_land_whole_with_zeros_after_and_reuse_their_buffers(&gpu());
    }

    #[test]
    fn prewarmed_staging_serves_the_first_uploads_the_same() {
        let gpu = gpu();
        assert!(
            gpu.features
                .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS),
            "the tests' adapter lets the GPU clear staging made ahead"
        );
        // Two of the uploads' size, made ahead: cleared by the GPU.
        let len = GPU_CLEARED_BYTES + 3 * PIECE as u64 + 4 * 1001;
        pollster::block_on(gpu.prewarm_staging(len, 2)).expect("prewarmed");
        assert_eq!(gpu.pool.staging.created.load(Ordering::Relaxed), 2);
        let held: Vec<_> = (0..2)
            .map(|_| gpu.staged_upload(len).expect("staged"))
            .collect();
        assert_eq!(gpu.pool.staging.created.load(Ordering::Relaxed), 2);
        drop(held);
        // They serve as buffers made on demand do.
        uploads_land_whole_with_zeros_after_and_reuse_their_buffers(&gpu);
        assert_eq!(gpu.pool.staging.created.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn sizes_that_miss_twice_get_staging_made_ahead_and_then_find_it_idle() {
        let gpu = gpu();
        let len = GPU_CLEARED_BYTES + 4 * 1001;
        // No idle buffer: the callers upload otherwise; one miss makes nothing ahead.
        assert!(gpu.idle_staged_upload(len).is_none());
        gpu.stage_ahead(len);
        assert_eq!(gpu.pool.staging.created.load(Ordering::Relaxed), 0);
        assert!(gpu.idle_staged_upload(len).is_none());
        // Two misses: made ahead, at most AHEAD_PER_CLASS of them, whatever is asked.
        for _ in 0..4 {
            gpu.stage_ahead(len);
        }
        assert_eq!(
            gpu.pool.staging.created.load(Ordering::Relaxed),
            AHEAD_PER_CLASS as usize
        );
        // Smaller classes the GPU does not clear are never made ahead.
        for _ in 0..3 {
            assert!(gpu.idle_staged_upload(4096).is_none());
            gpu.stage_ahead(4096);
        }
        assert_eq!(
            gpu.pool.staging.created.load(Ordering::Relaxed),
            AHEAD_PER_CLASS as usize
        );
        gpu.wait_idle().expect("idle");
        // Once cleared and mapped they are idle; each carries an upload whole.
        let mut loans = Vec::new();
        for round in 0..AHEAD_PER_CLASS {
            let mut staged = gpu.idle_staged_upload(len).expect("made ahead, now idle");
            let data = bytes(60 + round, len as usize - 3);
            staged.write(&[&data]).expect("written");
            let dst = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("test.staging"),
                size: staged.len(),
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            staged.copy_to(&mut encoder, &dst, 0);
            gpu.queue.submit([encoder.finish()]);
            let mut want = data;
            want.resize(staged.len() as usize, 0);
            let got = pollster::block_on(gpu.read_buffer(&dst, 0, staged.len())).expect("read");
            assert!(got == want, "round {round}");
            loans.push(staged);
        }
        // Both on loan: none idle, and no more made ahead.
        assert!(gpu.idle_staged_upload(len).is_none());
        gpu.stage_ahead(len);
        assert_eq!(
            gpu.pool.staging.created.load(Ordering::Relaxed),
            AHEAD_PER_CLASS as usize
        );
    }

    #[test]
    fn a_staged_upload_refuses_what_it_cannot_hold() {
        let gpu = gpu();
        let mut staging = gpu.staged_upload(10).expect("staged");
        assert_eq!(staging.len(), 12);
        let e = staging.write(&[&[1u8; 8], &[2u8; 5]]).unwrap_err();
        assert!(e.to_string().contains("13 bytes"), "{e}");
        let dst = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("test.staging"),
            size: 12,
            usage: wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        staging.copy_to(&mut encoder, &dst, 0);
        let e = staging.write(&[&[1u8; 4]]).unwrap_err();
        assert!(e.to_string().contains("after its copy"), "{e}");
    }
}
