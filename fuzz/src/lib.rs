//! What the fuzz targets share: parameters drawn from the fuzz bytes ([`Params`]), the
//! OpenJPEG library as an in-memory judge of JPEG 2000 codestreams ([`opj_decode`]), and an
//! in-process reader of the H.264 encoder's Annex B output ([`h264`]).

pub mod h264;
pub mod opj;

pub use opj::opj_decode;

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
