//! Work finished out of order by several threads, handed on in order: the stream
//! compressor's chunks, the H.264 encoder's pictures, the gzip decoders' batches.

use std::collections::BTreeMap;
use std::sync::mpsc::Receiver;

use crate::{Error, Result};

/// Hands every `(seq, item)` from `from` to `sink` in sequence, from `first`, holding
/// those that arrive early; returns how many went. An error received is returned at
/// once. A gap left when the senders are gone (a worker that stopped early) is the
/// error `lost` makes.
pub(crate) fn in_order<T>(
    from: Receiver<Result<(u64, T)>>,
    first: u64,
    lost: impl FnOnce() -> Error,
    mut sink: impl FnMut(u64, T) -> Result<()>,
) -> Result<u64> {
    let mut waiting = BTreeMap::new();
    let mut next = first;
    for item in from {
        let (seq, item) = item?;
        waiting.insert(seq, item);
        while let Some(item) = waiting.remove(&next) {
            sink(next, item)?;
            next += 1;
        }
    }
    if waiting.is_empty() {
        Ok(next - first)
    } else {
        Err(lost())
    }
}
