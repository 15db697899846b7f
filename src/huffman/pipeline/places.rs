//! Where each chunk of a stream coded into a vector goes ([`Places`]): a chunk's place
//! starts where the chunk before it ends, so it is known once every earlier chunk's
//! length is. A coder publishes its chunk's length as soon as it knows it and, once its
//! bytes are ready, writes them into its place itself where that place is known within
//! a short wait and lies within the vector's capacity as the run found it; otherwise the
//! writer (`place.rs`) copies them there. No coder waits long for another.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::huffman::chunk::ChunkPlace;
use crate::{Error, Result};

/// Where a chunk's bytes start in the vector's buffer.
pub(super) struct Dest(pub(super) *mut u8);

// SAFETY: each `Dest` points into the vector's buffer at a range no other placement
// overlaps, and the buffer neither moves nor is read there until the bytes are written:
// the writer's copies are all done before it grows the buffer (`InFlight::wait_for_none`)
// and before it sets the length (its copier threads joined), and a coder writes its own
// place before its chunk reaches the writer (`Places::new`'s contract).
unsafe impl Send for Dest {}

/// Each chunk's place in the vector, from the lengths its coders publish.
pub(crate) struct Places {
    /// The vector's buffer and capacity when the run started.
    base: Dest,
    capacity: usize,
    known: Mutex<Known>,
    published: Condvar,
}

// SAFETY: `base` is only offset into places that no two chunks share (see `DirectPlace`).
unsafe impl Sync for Places {}

#[derive(Default)]
struct Known {
    /// Lengths published for chunks after `through`'s unpublished predecessors.
    waiting: BTreeMap<u64, usize>,
    /// Chunks before `through` have places (held here until the writer takes them);
    /// chunk `through`'s starts at `end`.
    through: u64,
    end: usize,
    places: BTreeMap<u64, ChunkPlace>,
}

/// A chunk's place in the vector that its coder writes itself.
pub(crate) struct DirectPlace {
    pub place: ChunkPlace,
    dest: Dest,
}

impl DirectPlace {
    /// The `len` bytes of the place from `at`, not yet written, for a copy to fill
    /// (`assume_written` of them once it has): the CUDA coder's readback.
    #[cfg(feature = "cuda")]
    pub(crate) fn unwritten(
        &mut self,
        at: usize,
        len: usize,
    ) -> Result<&mut [std::mem::MaybeUninit<u8>]> {
        self.check_range(at, len)?;
        // SAFETY: the range lies within the place (just above), which lies within the
        // vector's buffer and no other place overlaps (`Places::direct`), the buffer
        // valid while this lives (`Places::new`'s contract); as `MaybeUninit` its bytes
        // need not be written yet.
        unsafe {
            Ok(std::slice::from_raw_parts_mut(
                self.dest.0.add(at).cast(),
                len,
            ))
        }
    }

    /// The `len` bytes of the place from `at`, once written (by [`Self::unwritten`]'s
    /// copy), to go on working on in place.
    ///
    /// # Safety
    ///
    /// Every byte of the range has been written.
    #[cfg(feature = "cuda")]
    pub(crate) unsafe fn assume_written(&mut self, at: usize, len: usize) -> Result<&mut [u8]> {
        self.check_range(at, len)?;
        // SAFETY: within the place, as `unwritten`'s; written, as the caller promises.
        unsafe { Ok(std::slice::from_raw_parts_mut(self.dest.0.add(at), len)) }
    }

    fn check_range(&self, at: usize, len: usize) -> Result<()> {
        if at.checked_add(len).is_none_or(|end| end > self.place.len) {
            return Err(Error::InvalidArgument(format!(
                "{len} bytes at {at} of a place of {}",
                self.place.len
            )));
        }
        Ok(())
    }

    /// Write `bytes` into the place from `at`; the bytes so written come back, to go on
    /// working on in place.
    pub(crate) fn fill(&mut self, at: usize, bytes: &[u8]) -> Result<&mut [u8]> {
        self.check_range(at, bytes.len())?;
        // SAFETY: the range lies within the place (just above), which lies within the
        // vector's buffer and no other place overlaps (`Places::direct`), the buffer
        // valid while this lives (`Places::new`'s contract); `bytes` cannot overlap it
        // (nothing reads the place but through this). Once written, the range is
        // initialised, so the slice over it is.
        unsafe {
            let dest = self.dest.0.add(at);
            crate::host_copy::copy_streaming_raw(dest, bytes.as_ptr(), bytes.len());
            Ok(std::slice::from_raw_parts_mut(dest, bytes.len()))
        }
    }
}

impl Places {
    /// Places for chunks appended to `out`, from its current length.
    ///
    /// # Safety
    ///
    /// Until every [`DirectPlace`] that [`Self::direct`] hands out is dropped, `out`'s
    /// buffer must neither move nor be freed, and nothing may touch its bytes past its
    /// length within the capacity it has now but through those places.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) unsafe fn new(out: &mut Vec<u8>) -> Places {
        Places {
            base: Dest(out.as_mut_ptr()),
            capacity: out.capacity(),
            known: Mutex::new(Known {
                end: out.len(),
                ..Known::default()
            }),
            published: Condvar::new(),
        }
    }

    /// Chunk `seq` is `len` bytes long in the vector. Publishing it again is an error
    /// unless with the same length.
    pub(crate) fn publish(&self, seq: u64, len: usize) -> Result<()> {
        let mut k = self.known.lock().map_err(|_| poisoned())?;
        let known = k
            .places
            .get(&seq)
            .map(|p| p.len)
            .or(k.waiting.get(&seq).copied());
        match known {
            Some(l) if l == len => return Ok(()),
            Some(l) => {
                return Err(Error::InvalidArgument(format!(
                    "chunk {seq} published as {l} bytes and as {len}"
                )))
            }
            None if seq < k.through => {
                return Err(Error::InvalidArgument(format!(
                    "chunk {seq} published after the writer took its place"
                )))
            }
            None => {}
        }
        let k = &mut *k;
        k.waiting.insert(seq, len);
        while let Some(len) = k.waiting.remove(&k.through) {
            let (seq, offset) = (k.through, k.end);
            k.places.insert(seq, ChunkPlace { offset, len });
            k.end += len;
            k.through += 1;
        }
        self.published.notify_all();
        Ok(())
    }

    /// Chunk `seq`'s place for its coder to write, where it is known (every earlier
    /// chunk's length published) within `wait` and lies within the vector's capacity as
    /// the run found it; None otherwise (the writer copies the chunk there). Asked once a
    /// chunk.
    pub(crate) fn direct(&self, seq: u64, wait: Duration) -> Option<DirectPlace> {
        let deadline = Instant::now() + wait;
        let mut k = self.known.lock().ok()?;
        let place = loop {
            if let Some(&place) = k.places.get(&seq) {
                break place;
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            k = self.published.wait_timeout(k, left).ok()?.0;
        };
        (place.offset + place.len <= self.capacity).then(|| DirectPlace {
            place,
            // SAFETY: `offset + len` is within the buffer's capacity (just above).
            dest: Dest(unsafe { self.base.0.add(place.offset) }),
        })
    }

    /// The writer's side, chunks in order: chunk `seq`'s place, its length published
    /// here where its coder did not (`len` must match where it did).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn take(&self, seq: u64, len: usize) -> Result<ChunkPlace> {
        self.publish(seq, len)?;
        let mut k = self.known.lock().map_err(|_| poisoned())?;
        k.places.remove(&seq).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "chunk {seq} has no place: a chunk before it is lost"
            ))
        })
    }
}

fn poisoned() -> Error {
    Error::InvalidArgument("a chunk's place was lost (a thread stopped)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Places follow the lengths in the chunks' order, whatever the order they are
    /// published in; a coder gets its place only once every earlier length is known and
    /// only within the vector's capacity; the writer takes each place in order.
    #[test]
    fn places_follow_the_lengths_in_order_within_the_capacity() {
        let mut out = b"head".to_vec();
        out.reserve_exact(100);
        let capacity = out.capacity();
        // SAFETY: `out` outlives the places and is not touched while they live.
        let places = unsafe { Places::new(&mut out) };
        let none = Duration::ZERO;
        places.publish(1, 30).unwrap();
        assert!(
            places.direct(1, none).is_none(),
            "chunk 0's length is not known"
        );
        places.publish(0, 20).unwrap();
        let place = |offset, len| ChunkPlace { offset, len };
        assert_eq!(places.direct(1, none).map(|d| d.place), Some(place(24, 30)));
        // Publishing again: the same length is fine, another is an error.
        places.publish(1, 30).unwrap();
        assert!(places.publish(1, 31).is_err());
        // Past the capacity: known, but not for a coder to write.
        places.publish(2, capacity - 54 + 1).unwrap();
        assert!(places.direct(2, none).is_none());
        assert_eq!(places.take(0, 20).unwrap(), place(4, 20));
        assert_eq!(places.take(1, 30).unwrap(), place(24, 30));
        // The writer's length must be the coder's.
        assert!(places.take(2, 7).is_err());
        // A chunk whose predecessor never had a length has no place.
        assert!(places.take(4, 1).is_err());
        // Taken: too late to publish.
        assert!(places.publish(0, 20).is_err());
    }

    /// A coder waits for its place while an earlier chunk's length comes in, up to its
    /// wait.
    #[test]
    fn a_coder_waits_a_while_for_its_place() {
        let mut out = Vec::with_capacity(64);
        // SAFETY: `out` outlives the places and is not touched while they live.
        let places = unsafe { Places::new(&mut out) };
        places.publish(1, 8).unwrap();
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(20));
                places.publish(0, 8).unwrap();
            });
            let got = places.direct(1, Duration::from_secs(10)).map(|d| d.place);
            assert_eq!(got, Some(ChunkPlace { offset: 8, len: 8 }));
        });
        assert!(places.direct(2, Duration::from_millis(5)).is_none());
    }
}
