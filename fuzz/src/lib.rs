//! What the fuzz targets share: parameters drawn from the fuzz bytes ([`Params`]), the
//! OpenJPEG library as an in-memory judge of JPEG 2000 codestreams ([`opj_decode`]), and an
//! in-process reader of the H.264 encoder's Annex B output ([`h264`]).

pub mod h264;
pub mod opj;

pub use opj::opj_decode;

/// Defines LeakSanitizer's default suppressions in the target that invokes it (the symbol
/// must be the binary's own). None of these leaks is ours to find:
/// - lavapipe (Mesa's software Vulkan driver) keeps a few dozen bytes per submission that
///   it never frees;
/// - a thread's thread-local values (std's lazily built ones, such as the channel
///   context `mpmc::context::Context` that a blocking `recv` makes, and glibc's list of
///   their destructors, `__cxa_thread_atexit_impl`): they are freed by the thread's TLS
///   destructors, which run after `std::thread::scope` has seen the thread's closure
///   finish. libFuzzer's per-input leak check can run in that window, when the exiting
///   thread no longer roots them. Seen about once in 3-5 minutes of fuzzing the GPU
///   decoder, and within a minute of the gzip decoder once its seeds reached the
///   threaded frame decoder, each time with the allocation inside a thread-local's first
///   use; among them the decode tables' work space, a `const`-initialised thread-local
///   (`huffman/decode_table.rs`), whose stack names no std storage type;
/// - a scoped thread's own handle (`Thread::new`'s `Arc`), whose last reference is the
///   thread's `current` thread-local, dropped in the same window (framed_decode met it
///   in CI on an empty input);
/// - a scoped thread's boxed closure (`std::thread::lifecycle::spawn_unchecked`), which
///   the thread frees after the closure returns, in the same window (vld_decode met it
///   in CI, in a frame decoder's own pool, `ordered::in_own_pool`).
#[macro_export]
macro_rules! lsan_suppressions {
    () => {
        #[no_mangle]
        pub extern "C" fn __lsan_default_suppressions() -> *const std::ffi::c_char {
            c"leak:libvulkan_lvp.so\nleak:__cxa_thread_atexit_impl\nleak:std::sys::thread_local::native::lazy::Storage\nleak:huffman/decode_table.rs\nleak:std::thread::thread::Thread>::new\nleak:std::thread::lifecycle::spawn_unchecked\n"
                .as_ptr()
        }
    };
}

/// The fuzz bytes as a source of parameters, then of samples.
pub struct Params<'a> {
    data: &'a [u8],
}

impl<'a> Params<'a> {
    pub fn new(data: &'a [u8]) -> Params<'a> {
        Params { data }
    }

    /// The next byte; 0 once the bytes run out (short inputs are still valid cases).
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// A value in `lo..=hi`.
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.byte() as u32 % (hi - lo + 1)
    }

    /// The bytes not yet taken.
    pub fn rest(&self) -> &'a [u8] {
        self.data
    }
}

/// `n` values from `bytes`, taken cyclically from `*at` on (all zero when `bytes` is
/// empty): small inputs still give whole pictures, and their structure repeats.
pub fn cycle(bytes: &[u8], at: &mut usize, n: usize) -> Vec<u8> {
    if bytes.is_empty() {
        return vec![0; n];
    }
    (0..n)
        .map(|_| {
            let b = bytes[*at % bytes.len()];
            *at += 1;
            b
        })
        .collect()
}
