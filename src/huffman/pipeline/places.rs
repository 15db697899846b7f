//! Where each chunk of a stream coded into a vector goes ([`Places`]): handed out in
//! order, each right after the one before it, so that a coder may write its chunk there
//! itself (`place.rs` is the writer that places the rest).

use std::sync::{Condvar, Mutex};

use crate::huffman::chunk::ChunkPlace;
use crate::{Error, Result};

/// Where a chunk's bytes start in the vector's buffer.
pub(super) struct Dest(pub(super) *mut u8);

// SAFETY: each `Dest` points into the vector's buffer at a range no other placement
// overlaps, and the buffer neither moves nor is read until every copy into it is done
// (`InFlight::wait_for_none` before it grows and before its length is set; a coder's
// own place is written before its chunk reaches the writer).
unsafe impl Send for Dest {}

/// Where each chunk goes in the vector: chunks take their places in order, each right
/// after the one before it. A coder takes its chunk's place once the chunk's length is
/// known and writes the chunk there itself where it fits the vector's capacity as the
/// run found it; the writer takes the places of the chunks their coders did not place.
pub(crate) struct Places {
    /// The vector's buffer and capacity when the run started.
    base: Dest,
    capacity: usize,
    taken: Mutex<Taken>,
    changed: Condvar,
}

// SAFETY: `base` is only offset into places that `take` hands out once each (see
// `DirectPlace`).
unsafe impl Sync for Places {}

struct Taken {
    /// The next chunk to take its place, and where that place starts.
    next: u64,
    end: usize,
    /// Every place so far within the capacity: until one is not, coders may write
    /// theirs (after it the writer may grow the vector, which moves it).
    within: bool,
    stopped: bool,
}

/// A chunk's place in the vector that its coder writes itself.
pub(crate) struct DirectPlace {
    pub place: ChunkPlace,
    dest: Dest,
}

impl DirectPlace {
    /// The place's bytes, for its coder to fill before it hands the chunk on.
    pub(crate) fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: the place lies within the vector's buffer as the run found it (`take`),
        // no other place overlaps it, and the writer neither moves the buffer nor reads
        // past its length until every chunk before the first place outside that
        // capacity has come in, which this one, inside it, has not until its coder is
        // done with it.
        unsafe { std::slice::from_raw_parts_mut(self.dest.0, self.place.len) }
    }
}

impl Places {
    /// Places for chunks appended to `out`, from its current length.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn new(out: &mut Vec<u8>) -> Places {
        Places {
            base: Dest(out.as_mut_ptr()),
            capacity: out.capacity(),
            taken: Mutex::new(Taken {
                next: 0,
                end: out.len(),
                within: true,
                stopped: false,
            }),
            changed: Condvar::new(),
        }
    }

    /// Chunk `seq`'s place of `len` bytes, right after chunk `seq - 1`'s once that one
    /// has it; with the bytes to write it into where every place so far fits the
    /// vector's capacity. An error once the run has stopped.
    pub(crate) fn take(&self, seq: u64, len: usize) -> Result<(ChunkPlace, Option<DirectPlace>)> {
        let mut t = self.taken.lock().map_err(|_| poisoned())?;
        while !t.stopped && t.next != seq {
            t = self.changed.wait(t).map_err(|_| poisoned())?;
        }
        if t.stopped {
            return Err(Error::InvalidArgument(
                "the stream stopped before this chunk's place".into(),
            ));
        }
        let place = ChunkPlace { offset: t.end, len };
        t.end += len;
        t.next += 1;
        t.within &= t.end <= self.capacity;
        let direct = t.within.then(|| DirectPlace {
            place,
            // SAFETY: `offset + len` is within the buffer's capacity (just above).
            dest: Dest(unsafe { self.base.0.add(place.offset) }),
        });
        self.changed.notify_all();
        Ok((place, direct))
    }

    /// No more places: every coder waiting for one gets an error.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn stop(&self) {
        if let Ok(mut t) = self.taken.lock() {
            t.stopped = true;
        }
        self.changed.notify_all();
    }
}

fn poisoned() -> Error {
    Error::InvalidArgument("a chunk's place was lost (a thread stopped)".into())
}
