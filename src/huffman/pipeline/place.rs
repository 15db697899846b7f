//! [`compress_to_vec`](super::compress_to_vec)'s writer: each coded chunk gets its place
//! in the caller's vector in order, and threads of their own copy it there while the
//! next chunks are placed. One thread copying every chunk bounded a host-to-host
//! compress: on the H200 it was busy for the whole run at 8-9 GB/s, a fork-join over all
//! cores a chunk or a batch of chunks included (docs/results.md, "Thirteenth pass").
//!
//! A GPU coder whose encode is written in place copies its chunk from the mapped output
//! into its place itself where that is known in time ([`Places::direct`]), headers filled
//! there: one copy of the output fewer (the copy into a vector of its own, then this
//! writer's into the caller's, cost about a fifth of the run's CPU time on the H200).

use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Condvar, Mutex};

use super::places::{Dest, Places};
use super::writer::Piece;
use super::{lost_chunk, CodedChunk, Format, StreamSummary, StreamWriter};

use crate::ordered::{in_order, Window};
use crate::{Error, Result};

/// Threads copying chunks into the vector: one copies at 9-10 GB/s on the H200, and the
/// machine's copies top out near 40 GB/s.
const COPIERS: usize = 4;

/// Chunks placed but not yet copied, at most: the bound on what this writer holds.
const MOST_IN_FLIGHT: usize = 8;

/// A chunk and its pieces, to be copied to `dest` in order.
struct Placement {
    dest: Dest,
    pieces: Vec<Piece>,
    chunk: CodedChunk,
}

/// How many placements are being copied.
#[derive(Default)]
struct InFlight {
    count: Mutex<usize>,
    changed: Condvar,
}

impl InFlight {
    /// Count one more, once fewer than `most` are in flight.
    fn add(&self, most: usize) -> Result<()> {
        let mut n = self.count.lock().map_err(|_| poisoned())?;
        while *n >= most {
            n = self.changed.wait(n).map_err(|_| poisoned())?;
        }
        *n += 1;
        Ok(())
    }

    fn done(&self) {
        if let Ok(mut n) = self.count.lock() {
            *n -= 1;
            self.changed.notify_all();
        }
    }

    fn wait_for_none(&self) -> Result<()> {
        let mut n = self.count.lock().map_err(|_| poisoned())?;
        while *n > 0 {
            n = self.changed.wait(n).map_err(|_| poisoned())?;
        }
        Ok(())
    }
}

fn poisoned() -> Error {
    Error::InvalidArgument("a chunk copier stopped".into())
}

/// Append the stream's chunks (arriving in any order) to `out` in order, then its
/// trailer. On an error `out` holds what it held before (its capacity may have grown).
pub(super) fn place_in_order(
    from_coders: Receiver<Result<(u64, CodedChunk)>>,
    window: &Window,
    format: Format,
    places: &Places,
    out: &mut Vec<u8>,
    progress: &mut dyn FnMut(u64),
    recycle: &(dyn Fn(Vec<u8>) + Sync),
) -> Result<StreamSummary> {
    let start = out.len();
    let mut writer = StreamWriter::new(std::io::sink(), format);
    let in_flight = InFlight::default();
    let (to_copiers, from_writer) = sync_channel::<Placement>(MOST_IN_FLIGHT);
    let from_writer = Mutex::new(from_writer);
    // Bytes placed so far: `out[start..end]` once their copies are done.
    let mut end = start;
    let placed = std::thread::scope(|s| {
        for _ in 0..COPIERS {
            let (from_writer, in_flight) = (&from_writer, &in_flight);
            s.spawn(move || loop {
                let next = match from_writer.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok(Placement {
                    dest,
                    pieces,
                    chunk,
                }) = next
                else {
                    return;
                };
                let mut at = 0;
                for piece in &pieces {
                    let bytes = piece.bytes(&chunk.bytes);
                    // SAFETY: `dest` has room for every piece of this chunk (the
                    // writer sized it so, within the vector's capacity), which no other
                    // copy touches, and `bytes` cannot overlap the vector.
                    unsafe {
                        crate::host_copy::copy_streaming_raw(
                            dest.0.add(at),
                            bytes.as_ptr(),
                            bytes.len(),
                        )
                    };
                    at += bytes.len();
                }
                recycle(chunk.bytes);
                in_flight.done();
            });
        }
        let placed = in_order(
            from_coders,
            0,
            window,
            lost_chunk,
            |seq, chunk: CodedChunk| {
                let mut pieces = Vec::with_capacity(3);
                writer.chunk_pieces(&chunk, &mut pieces)?;
                let len: usize = pieces.iter().map(Piece::len).sum();
                let place = places.take(seq, len)?;
                if place.offset != end {
                    return Err(Error::InvalidArgument(format!(
                        "chunk {seq} placed at {}, after the chunks before it at {end}",
                        place.offset
                    )));
                }
                if let Some(written) = chunk.written_at {
                    // Its coder wrote it, where its place is.
                    if written != place {
                        return Err(Error::InvalidArgument(format!(
                            "chunk {seq} written at {written:?}, its place is {place:?}"
                        )));
                    }
                    writer.summary.chunks_in_place += 1;
                    end += len;
                    progress(writer.summary.bytes_in);
                    return Ok(());
                }
                if end + len > out.capacity() {
                    // Everything placed is copied before the buffer may move; the length
                    // then covers it, so that growing keeps it. (No coder writes its own
                    // place any more: this one is past the run's capacity.)
                    in_flight.wait_for_none()?;
                    // SAFETY: `out[start..end]` was written by the copies, all done.
                    unsafe { out.set_len(end) };
                    out.reserve(len);
                }
                in_flight.add(MOST_IN_FLIGHT)?;
                // SAFETY: `end + len` is within the vector's capacity (just above).
                let dest = Dest(unsafe { out.as_mut_ptr().add(end) });
                end += len;
                let placement = Placement {
                    dest,
                    pieces,
                    chunk,
                };
                if to_copiers.send(placement).is_err() {
                    in_flight.done();
                    return Err(poisoned());
                }
                progress(writer.summary.bytes_in);
                Ok(())
            },
        );
        // The copiers finish what was sent, then stop.
        drop(to_copiers);
        placed
    });
    let finished = placed.and_then(|_| {
        // SAFETY: the copiers have all returned (the scope joined them), and every
        // chunk's coder that wrote its own place did so before it handed the chunk on, so
        // every byte of `out[start..end]` is written.
        unsafe { out.set_len(end) };
        let tail = writer.tail()?;
        out.extend_from_slice(&tail);
        writer.summary.bytes_out += (end - start) as u64;
        Ok(writer.summary)
    });
    if finished.is_err() {
        out.truncate(start);
    }
    finished
}
