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

use super::places::{DirectPlace, Places};
use super::writer::Piece;
use super::{lost_chunk, CodedChunk, Format, StreamSummary, StreamWriter};

use crate::ordered::{in_order, Window};
use crate::{Error, Result};

/// Threads copying chunks into the vector: one copies at 9-10 GB/s on the H200, and the
/// machine's copies top out near 40 GB/s.
const COPIERS: usize = 4;

/// Chunks placed but not yet copied, at most: the bound on what this writer holds.
const MOST_IN_FLIGHT: usize = 8;

/// A chunk and its pieces, to be copied into `dest` in order.
struct Placement {
    dest: DirectPlace,
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

/// What the placed chunks go into.
pub(super) enum Placed<'o> {
    /// A vector, appended to.
    Vec(&'o mut Vec<u8>),
    /// The file that the places lie in.
    #[cfg(target_os = "linux")]
    File,
}

/// Append the stream's chunks (arriving in any order) to `out` in order, then its
/// trailer. On an error `out` holds what it held before (a vector's capacity may have
/// grown).
pub(super) fn place_in_order(
    from_coders: Receiver<Result<(u64, CodedChunk)>>,
    window: &Window,
    format: Format,
    places: &Places,
    mut out: Placed<'_>,
    progress: &mut dyn FnMut(u64),
    recycle: &(dyn Fn(Vec<u8>) + Sync),
) -> Result<StreamSummary> {
    let start = match &out {
        Placed::Vec(v) => v.len(),
        #[cfg(target_os = "linux")]
        Placed::File => 0,
    };
    let mut writer = StreamWriter::new(std::io::sink(), format);
    let in_flight = InFlight::default();
    let (to_copiers, from_writer) = sync_channel::<Placement>(MOST_IN_FLIGHT);
    let from_writer = Mutex::new(from_writer);
    // A copy that could not be made (its place too short: a bug, never silent).
    let copy_failed = Mutex::new(None::<Error>);
    // Bytes placed so far: `out[start..end]` once their copies are done.
    let mut end = start;
    let placed = std::thread::scope(|s| {
        for _ in 0..COPIERS {
            let (from_writer, in_flight, copy_failed) = (&from_writer, &in_flight, &copy_failed);
            s.spawn(move || loop {
                let next = match from_writer.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok(Placement {
                    mut dest,
                    pieces,
                    chunk,
                }) = next
                else {
                    return;
                };
                let mut at = 0;
                for piece in &pieces {
                    let bytes = piece.bytes(&chunk.bytes);
                    // `dest` has room for every piece (the writer sized it so), checked.
                    if let Err(e) = dest.fill(at, bytes) {
                        if let Ok(mut failed) = copy_failed.lock() {
                            failed.get_or_insert(e);
                        }
                        break;
                    }
                    at += bytes.len();
                }
                drop(dest);
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
                    placed_through(places, end);
                    progress(writer.summary.bytes_in);
                    return Ok(());
                }
                let dest = match &mut out {
                    Placed::Vec(out) => {
                        if end + len > out.capacity() {
                            // Everything placed is copied before the buffer may move; the
                            // length then covers it, so that growing keeps it. (No coder
                            // writes its own place any more: this one is past the run's
                            // capacity.)
                            in_flight.wait_for_none()?;
                            // SAFETY: `out[start..end]` was written by the copies, all done.
                            unsafe { out.set_len(end) };
                            out.reserve(len);
                        }
                        // SAFETY: `end + len` is within the vector's capacity (just
                        // above), which only this writer grows, once the copies are done.
                        unsafe { DirectPlace::at(place, out.as_mut_ptr().add(end)) }
                    }
                    #[cfg(target_os = "linux")]
                    Placed::File => match places.file() {
                        Some(file) => places.mapped(file, place)?,
                        None => {
                            return Err(Error::InvalidArgument(
                                "a file's places without a file".into(),
                            ))
                        }
                    },
                };
                in_flight.add(MOST_IN_FLIGHT)?;
                end += len;
                placed_through(places, end);
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
    let copied = match copy_failed.into_inner() {
        Ok(None) => Ok(()),
        Ok(Some(e)) => Err(e),
        Err(_) => Err(poisoned()),
    };
    let finished = placed.and(copied).and_then(|_| {
        let tail = writer.tail()?;
        match &mut out {
            Placed::Vec(out) => {
                // SAFETY: the copiers have all returned (the scope joined them), and
                // every chunk's coder that wrote its own place did so before it handed
                // the chunk on, so every byte of `out[start..end]` is written.
                unsafe { out.set_len(end) };
                out.extend_from_slice(&tail);
            }
            #[cfg(target_os = "linux")]
            Placed::File => match places.file() {
                Some(file) => file.finish(end, &tail)?,
                None => {
                    return Err(Error::InvalidArgument(
                        "a file's places without a file".into(),
                    ))
                }
            },
        }
        writer.summary.bytes_out += (end - start) as u64;
        Ok(writer.summary)
    });
    if finished.is_err() {
        match out {
            Placed::Vec(out) => out.truncate(start),
            #[cfg(target_os = "linux")]
            Placed::File => {
                if let Some(file) = places.file() {
                    file.undo();
                }
            }
        }
    }
    finished
}

/// Everything before `end` is placed: a file starts writing it back.
fn placed_through(places: &Places, end: usize) {
    #[cfg(target_os = "linux")]
    if let Some(file) = places.file() {
        file.placed_through(end);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (places, end);
}
