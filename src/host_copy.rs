//! Large host copies by non-temporal stores. A stream coder copies every input byte into
//! staging that only a copy engine reads next, and every coded byte out of the readback
//! into the caller's vector, from a dozen threads at once; the host's copies bound the
//! library's host-to-host compress (docs/results.md, "Thirteenth pass"). Stored through
//! the caches, each destination line is first read from memory, then written back later:
//! half the traffic again. Non-temporal stores skip the read. glibc's memcpy switches to
//! them only above a threshold it derives from the cache's size (above a chunk's copies
//! on the H200's host, whose L3 holds 300 MiB). There, twelve threads copied 46 GB/s by
//! glibc's copy, 57 with its threshold at 1 MiB and 60 by this one, and the library's GiB
//! ran 3-6% faster on wgpu than with glibc's copies by its best runs, 4-9% by medians
//! (docs/results.md, "Forty-sixth pass").

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

/// The streaming copy on x86_64: by 32-byte stores where the core has AVX, else by
/// SSE2's 16-byte ones (every x86_64 has them).
///
/// # Safety
///
/// As [`copy_streaming_raw`].
#[cfg(target_arch = "x86_64")]
unsafe fn stream_x86_64(dst: *mut u8, src: *const u8, n: usize) {
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the core has AVX (just above); the rest as the caller promises.
        unsafe { stream_avx(dst, src, n) }
    } else {
        // SAFETY: as the caller promises.
        unsafe { stream_sse2(dst, src, n) }
    }
}

/// Bytes of a page: the AVX copy interleaves four at a time.
#[cfg(target_arch = "x86_64")]
const PAGE: usize = 4096;

/// The destination's head copied up to a cache line's alignment; then four pages at a
/// time, a line of each in turn (as glibc's large copy does: four streams of stores keep
/// more of the core's write-combining buffers busy than one), by unaligned loads and
/// aligned non-temporal stores; then a line at a time; then the tail; then a store fence.
///
/// # Safety
///
/// As [`copy_streaming_raw`], on a core with AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn stream_avx(dst: *mut u8, src: *const u8, n: usize) {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_stream_si256, _mm_sfence};
    /// One 64-byte line from `s` to the 32-byte aligned `d`.
    ///
    /// # Safety
    ///
    /// 64 bytes readable at `s`, writable at `d`; `d` 32-byte aligned; AVX.
    #[target_feature(enable = "avx")]
    unsafe fn line(d: *mut u8, s: *const u8) {
        // SAFETY: as the caller promises.
        unsafe {
            let a = _mm256_loadu_si256(s.cast::<__m256i>());
            let b = _mm256_loadu_si256(s.add(32).cast::<__m256i>());
            _mm256_stream_si256(d.cast::<__m256i>(), a);
            _mm256_stream_si256(d.add(32).cast::<__m256i>(), b);
        }
    }
    let head = dst.align_offset(64).min(n);
    // SAFETY: every range below stays within the caller's `n` bytes of each, and every
    // store of a line is to a 64-byte aligned address (after the head).
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, head);
        let (mut d, mut s, mut left) = (dst.add(head), src.add(head), n - head);
        while left >= 4 * PAGE {
            for at in (0..PAGE).step_by(64) {
                for page in 0..4 {
                    line(d.add(page * PAGE + at), s.add(page * PAGE + at));
                }
            }
            (d, s, left) = (d.add(4 * PAGE), s.add(4 * PAGE), left - 4 * PAGE);
        }
        while left >= 64 {
            line(d, s);
            (d, s, left) = (d.add(64), s.add(64), left - 64);
        }
        std::ptr::copy_nonoverlapping(s, d, left);
        // Non-temporal stores are weakly ordered: fenced, they are visible before any
        // later store of this thread (a lock's release, a flag, a queued copy).
        _mm_sfence();
    }
}

/// [`stream_avx`] by SSE2: the head up to 16-byte alignment, then a line at a time by
/// 16-byte non-temporal stores, then the tail; then a store fence.
///
/// # Safety
///
/// As [`copy_streaming_raw`].
#[cfg(target_arch = "x86_64")]
unsafe fn stream_sse2(dst: *mut u8, src: *const u8, n: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
    let head = dst.align_offset(16).min(n);
    // SAFETY: the ranges below stay within the caller's `n` bytes of each; every store
    // of `_mm_stream_si128` is to a 16-byte aligned address (after the head).
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, head);
        let (mut d, mut s, mut left) = (dst.add(head), src.add(head), n - head);
        while left >= 16 {
            _mm_stream_si128(d.cast::<__m128i>(), _mm_loadu_si128(s.cast::<__m128i>()));
            (d, s, left) = (d.add(16), s.add(16), left - 16);
        }
        std::ptr::copy_nonoverlapping(s, d, left);
        _mm_sfence();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "x86_64")]
    type RawCopy = unsafe fn(*mut u8, *const u8, usize);

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

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn both_flavours_equal_the_source_across_pages_and_alignments() {
        let src: Vec<u8> = (0..(5 * PAGE + 300)).map(|i| (i * 7 % 251) as u8).collect();
        for from in [0, 1, 31, 64] {
            for to in [0, 5, 32, 63] {
                for n in [4 * PAGE - 1, 4 * PAGE, 4 * PAGE + 65, 5 * PAGE + 100] {
                    let mut flavours: Vec<(&str, RawCopy)> = vec![("sse2", stream_sse2)];
                    if std::arch::is_x86_feature_detected!("avx") {
                        flavours.push(("avx", |d, s, n| unsafe { stream_avx(d, s, n) }));
                    }
                    for (name, copy) in flavours {
                        let mut dst = vec![0xeeu8; n + 128];
                        // SAFETY: `n` bytes of each from their offsets, distinct vectors.
                        unsafe { copy(dst.as_mut_ptr().add(to), src.as_ptr().add(from), n) };
                        assert!(
                            dst[to..to + n] == src[from..from + n],
                            "{name} {from} {to} {n}"
                        );
                        assert!(dst[..to].iter().all(|&b| b == 0xee), "{name}: before");
                        assert!(dst[to + n..].iter().all(|&b| b == 0xee), "{name}: after");
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
