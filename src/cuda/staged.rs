//! Copies between host bytes and device memory through the pool's pinned buffers, a
//! piece at a time. A copy from or to pageable memory goes through the driver's own
//! staging, at 8 (to the device) and 11 GB/s (back) on the H200 against 55 from pinned
//! memory, and the stream coders' copies waited on one another there. Staged, each coder
//! copies its piece into or out of pinned memory on its own core while the copy engine
//! moves the piece before or after it.

use std::collections::VecDeque;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::Arc;

use bytemuck::Pod;
use cudarc::driver::{CudaSlice, CudaStream, CudaView, CudaViewMut, DeviceRepr, ValidAsZeroBits};

use super::pool::PinnedBuffer;
use super::{driver_error, CudaGpu};
use crate::{Error, Result};

/// Bytes a piece: large enough that a copy's fixed cost is small, small enough that two
/// pieces in flight keep the copy engine and the host's copy side by side.
const PIECE_BYTES: usize = 4 << 20;

/// Pieces read back and not yet copied out: the copy engine fills the next while the
/// host empties the oldest.
const PIECES_IN_FLIGHT: usize = 2;

/// The ranges of `len` elements of `size` bytes each, a piece each.
fn pieces(len: usize, size: usize) -> impl Iterator<Item = Range<usize>> {
    let per = (PIECE_BYTES / size.max(1)).max(1);
    (0..len.div_ceil(per)).map(move |k| k * per..((k + 1) * per).min(len))
}

impl CudaGpu {
    /// Copy `src` into `dst` (as long) on `stream`: each piece copied into pinned memory
    /// here, then queued; returns once the last piece is queued (the pool's buffers wait
    /// for their copies before they are reused).
    pub(crate) fn upload_staged<T: Pod + DeviceRepr>(
        &self,
        stream: &Arc<CudaStream>,
        src: &[T],
        dst: &mut CudaViewMut<'_, T>,
    ) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::InvalidArgument(format!(
                "a staged upload of {} elements into {}",
                src.len(),
                dst.len()
            )));
        }
        let size = std::mem::size_of::<T>();
        for range in pieces(src.len(), size) {
            let mut staging = self.pinned_buffer(range.len() * size)?;
            let host: &mut [T] =
                bytemuck::cast_slice_mut(&mut staging.bytes()?[..range.len() * size]);
            crate::host_copy::copy_streaming(
                bytemuck::cast_slice_mut(host),
                bytemuck::cast_slice(&src[range.clone()]),
            );
            stream
                .memcpy_htod(&*host, &mut dst.slice_mut(range))
                .map_err(driver_error("copying to the device"))?;
            staging.queued(stream)?;
        }
        Ok(())
    }

    /// A new device buffer holding `src` (at least one element), through pinned pieces
    /// ([`Self::upload_staged`]).
    pub(crate) fn clone_staged<T: Pod + DeviceRepr + ValidAsZeroBits>(
        &self,
        stream: &Arc<CudaStream>,
        src: &[T],
    ) -> Result<CudaSlice<T>> {
        if src.is_empty() {
            return stream
                .alloc_zeros::<T>(1)
                .map_err(driver_error("allocating a device buffer"));
        }
        // SAFETY: every element is written by the copy below before a kernel reads it.
        let mut buffer = unsafe { stream.alloc::<T>(src.len()) }
            .map_err(driver_error("allocating a device buffer"))?;
        self.upload_staged(stream, src, &mut buffer.slice_mut(..))?;
        Ok(buffer)
    }

    /// Copy `src` into `dst` (at most as long, counted in bytes: a tail of `src` past
    /// `dst` is not read back) on `stream`, waiting for it: pieces read back into pinned
    /// memory, [`PIECES_IN_FLIGHT`] queued ahead of the one copied out here. Every byte
    /// of `dst` is written (it may be memory not yet written, a stream's place in its
    /// output vector).
    pub(crate) fn download_staged<T: Pod + DeviceRepr>(
        &self,
        stream: &Arc<CudaStream>,
        src: &CudaView<'_, T>,
        dst: &mut [MaybeUninit<u8>],
    ) -> Result<()> {
        let size = std::mem::size_of::<T>();
        if dst.len() > src.len() * size {
            return Err(Error::InvalidArgument(format!(
                "a staged download of {} bytes from {}",
                dst.len(),
                src.len() * size
            )));
        }
        let mut queued: VecDeque<(PinnedBuffer, Range<usize>)> = VecDeque::new();
        let copy_out = |(mut host, range): (PinnedBuffer, Range<usize>),
                        dst: &mut [MaybeUninit<u8>]| {
            let bytes = range.start * size..(range.end * size).min(dst.len());
            let n = bytes.len();
            let from = &host.bytes()?[..n];
            // SAFETY: `from` is n initialised bytes of pinned memory, `dst[bytes]` n bytes
            // of the caller's, which cannot overlap it.
            unsafe {
                crate::host_copy::copy_streaming_raw(
                    dst[bytes].as_mut_ptr().cast(),
                    from.as_ptr(),
                    n,
                )
            };
            Ok::<(), Error>(())
        };
        for range in pieces(dst.len().div_ceil(size), size) {
            let mut host = self.pinned_buffer(range.len() * size)?;
            let words: &mut [T] =
                bytemuck::cast_slice_mut(&mut host.bytes()?[..range.len() * size]);
            stream
                .memcpy_dtoh(&src.slice(range.clone()), words)
                .map_err(driver_error("reading back from the device"))?;
            host.queued(stream)?;
            queued.push_back((host, range));
            if queued.len() > PIECES_IN_FLIGHT {
                if let Some(oldest) = queued.pop_front() {
                    copy_out(oldest, dst)?;
                }
            }
        }
        while let Some(oldest) = queued.pop_front() {
            copy_out(oldest, dst)?;
        }
        Ok(())
    }
}

impl CudaGpu {
    /// Small device buffers `srcs` read back together: every copy queued into one pinned
    /// buffer, then one wait for them all. Read one by one, each copy went through the
    /// driver's pageable staging and waited for the stream on its own (a CUDA stream
    /// chunk's plan read back four such buffers).
    pub(crate) fn download_together<T: Pod + DeviceRepr>(
        &self,
        stream: &Arc<CudaStream>,
        srcs: &[CudaView<'_, T>],
    ) -> Result<Vec<Vec<T>>> {
        let size = std::mem::size_of::<T>();
        let total: usize = srcs.iter().map(|s| s.len()).sum();
        let mut host = self.pinned_buffer(total * size)?;
        {
            let all: &mut [T] = bytemuck::cast_slice_mut(&mut host.bytes()?[..total * size]);
            let mut at = 0;
            for src in srcs {
                stream
                    .memcpy_dtoh(src, &mut all[at..at + src.len()])
                    .map_err(driver_error("reading back from the device"))?;
                at += src.len();
            }
        }
        host.queued(stream)?;
        let all: &[T] = bytemuck::cast_slice(&host.bytes()?[..total * size]);
        let mut at = 0;
        Ok(srcs
            .iter()
            .map(|src| {
                let part = all[at..at + src.len()].to_vec();
                at += src.len();
                part
            })
            .collect())
    }
}

/// Initialised bytes as a destination for [`CudaGpu::download_staged`].
///
/// # Safety
///
/// Only initialised bytes may be written through the result (as that copy writes).
pub(crate) unsafe fn as_uninit(bytes: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: the same layout and length.
    unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast(), bytes.len()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_range_once_in_order() {
        for (len, size) in [
            (0, 4),
            (1, 4),
            (PIECE_BYTES / 4, 4),
            (PIECE_BYTES / 4 + 1, 4),
        ] {
            let all: Vec<Range<usize>> = pieces(len, size).collect();
            let mut at = 0;
            for r in &all {
                assert_eq!(r.start, at);
                assert!(!r.is_empty() && r.len() * size <= PIECE_BYTES);
                at = r.end;
            }
            assert_eq!(at, len);
        }
        assert_eq!(pieces(3 * PIECE_BYTES + 5, 1).count(), 4);
    }
}
