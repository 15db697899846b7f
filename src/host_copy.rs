//! Large host copies by non-temporal stores. A stream coder copies every input byte into
//! staging that only a copy engine reads next, and every coded byte out of the readback
//! into the caller's vector, from a dozen threads at once; the host's copies bound the
//! library's host-to-host compress (docs/results.md, "Thirteenth pass"). Stored through
//! the caches, each destination line is first read from memory, then written back later:
//! half the traffic again. Non-temporal stores skip the read. glibc's memcpy switches to
//! them only above a threshold it derives from the cache's size (well above a chunk's
//! copies on the H200's host, whose L3 holds 300 MiB); there, twelve threads copied 44 GB/s
//! with it and 64 GB/s with the threshold at 1 MiB, and the library's GiB ran 4-15% faster
//! on both engines (docs/results.md, "Forty-sixth pass").

/// Copies shorter than this go through the ordinary copy: a short destination may be read
/// again soon, from the cache. (wgpu's staging writes come in pieces of 256 KiB.)
pub const STREAMING_MIN_BYTES: usize = 256 << 10;

/// Copy `src` into `dst` (of the same length; a different length panics, as
/// `copy_from_slice` does): by non-temporal stores where it is at least
/// [`STREAMING_MIN_BYTES`] long on x86_64, else by the ordinary copy.
pub fn copy_streaming(dst: &mut [u8], src: &[u8]) {
    assert_eq!(dst.len(), src.len(), "a copy between slices of two lengths");
    // SAFETY: two distinct borrows of `src.len()` bytes each: valid, and not overlapping.
    unsafe { copy_streaming_raw(dst.as_mut_ptr(), src.as_ptr(), src.len()) }
}

/// [`copy_streaming`] between pointers: `n` bytes from `src` to `dst`. The stores are
/// fenced before it returns, so that they are seen before anything the thread does next
/// (publishing the bytes, or a copy engine's read of them).
///
/// # Safety
///
/// As [`std::ptr::copy_nonoverlapping`]: `src` valid for `n` reads, `dst` for `n`
/// writes (it need not be initialised, nor readable: mapped write-combining memory), and
/// the two not overlapping.
pub unsafe fn copy_streaming_raw(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: as the caller promises.
    unsafe { copy_with_threshold(dst, src, n, STREAMING_MIN_BYTES) }
}

/// The copy, streaming from `threshold` bytes on (tests force it onto short copies).
///
/// # Safety
///
/// As [`copy_streaming_raw`].
unsafe fn copy_with_threshold(dst: *mut u8, src: *const u8, n: usize, threshold: usize) {
    #[cfg(target_arch = "x86_64")]
    if n >= threshold {
        // SAFETY: as the caller promises.
        unsafe { stream_x86_64(dst, src, n) };
        return;
    }
    let _ = threshold;
    // SAFETY: as the caller promises.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, n) }
}

/// The destination's head copied up to 16-byte alignment, then 64 bytes (a cache line) a
/// step by unaligned loads and aligned non-temporal stores (SSE2, which every x86_64 has),
/// then the tail; then a store fence.
///
/// # Safety
///
/// As [`copy_streaming_raw`].
#[cfg(target_arch = "x86_64")]
unsafe fn stream_x86_64(dst: *mut u8, src: *const u8, n: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
    let head = dst.align_offset(16).min(n);
    // SAFETY: the ranges below stay within the caller's `n` bytes of each; every store
    // of `_mm_stream_si128` is to a 16-byte aligned address (after the head); loads are
    // unaligned.
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, head);
        let (mut d, mut s, mut left) = (dst.add(head), src.add(head), n - head);
        while left >= 64 {
            let a = _mm_loadu_si128(s.cast::<__m128i>());
            let b = _mm_loadu_si128(s.add(16).cast::<__m128i>());
            let c = _mm_loadu_si128(s.add(32).cast::<__m128i>());
            let e = _mm_loadu_si128(s.add(48).cast::<__m128i>());
            _mm_stream_si128(d.cast::<__m128i>(), a);
            _mm_stream_si128(d.add(16).cast::<__m128i>(), b);
            _mm_stream_si128(d.add(32).cast::<__m128i>(), c);
            _mm_stream_si128(d.add(48).cast::<__m128i>(), e);
            (d, s, left) = (d.add(64), s.add(64), left - 64);
        }
        while left >= 16 {
            _mm_stream_si128(d.cast::<__m128i>(), _mm_loadu_si128(s.cast::<__m128i>()));
            (d, s, left) = (d.add(16), s.add(16), left - 16);
        }
        std::ptr::copy_nonoverlapping(s, d, left);
        // Non-temporal stores are weakly ordered: fenced, they are visible before any
        // later store of this thread (a lock's release, a flag, a queued copy).
        _mm_sfence();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_copies_equal_the_source_at_every_alignment() {
        let src: Vec<u8> = (0..4096u32).map(|i| (i * 131 % 251) as u8).collect();
        for threshold in [0, usize::MAX] {
            for from in 0..17 {
                for to in 0..17 {
                    for n in [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 1000, 3000] {
                        let mut dst = vec![0xeeu8; n + 40];
                        // SAFETY: `n` bytes of each from their offsets, distinct vectors.
                        unsafe {
                            copy_with_threshold(
                                dst.as_mut_ptr().add(to),
                                src.as_ptr().add(from),
                                n,
                                threshold,
                            )
                        };
                        assert_eq!(&dst[to..to + n], &src[from..from + n]);
                        assert!(dst[..to].iter().all(|&b| b == 0xee), "before {to}");
                        assert!(dst[to + n..].iter().all(|&b| b == 0xee), "after {n}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_long_copy_streams_and_equals_its_source() {
        let n = STREAMING_MIN_BYTES * 3 + 77;
        let src: Vec<u8> = (0..n).map(|i| (i % 253) as u8).collect();
        let mut dst = vec![0u8; n + 3];
        copy_streaming(&mut dst[3..], &src);
        assert!(dst[3..] == src[..] && dst[..3] == [0, 0, 0]);
    }

    #[test]
    #[should_panic(expected = "two lengths")]
    fn slices_of_two_lengths_panic() {
        copy_streaming(&mut [0u8; 3], &[1u8; 4]);
    }
}
