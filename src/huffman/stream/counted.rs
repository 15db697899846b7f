//! [`Counted`]: the input, counting the bytes consumed and keeping a failed read's error.

use std::io::{BufRead, Read};

/// The input, counting the bytes consumed (offsets for messages) and keeping the error
/// of a failed read, which flate2 would otherwise report as if the data were corrupt.
pub(super) struct Counted<R> {
    pub(super) inner: R,
    pub(super) count: u64,
    pub(super) failed: Option<std::io::Error>,
}

impl<R> Counted<R> {
    fn stash(&mut self, e: std::io::Error) -> std::io::Error {
        let copy = std::io::Error::new(e.kind(), e.to_string());
        if e.kind() != std::io::ErrorKind::Interrupted {
            self.failed = Some(e);
        }
        copy
    }
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.count += n as u64;
                Ok(n)
            }
            Err(e) => Err(self.stash(e)),
        }
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        // Two steps: the borrow of a successful fill_buf may not outlive the error path.
        if let Err(e) = self.inner.fill_buf() {
            return Err(self.stash(e));
        }
        self.inner.fill_buf()
    }
    fn consume(&mut self, n: usize) {
        self.count += n as u64;
        self.inner.consume(n);
    }
}
