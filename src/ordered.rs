//! Work finished out of order by several threads, handed on in order: the stream
//! compressor's chunks, the H.264 encoder's pictures, the gzip and GPU decoders' batches,
//! a Y4M file's frames read ahead.
//! A [`Window`] keeps the reader from running ahead of the oldest unfinished item, so
//! what waits to be handed on stays bounded however long one item takes.

use std::collections::BTreeMap;
use std::sync::mpsc::Receiver;
use std::sync::{Condvar, Mutex};

use crate::{Error, Result};

/// How far work may start ahead of what the sink has taken: item `seq` starts only once
/// `seq < taken + size`. Without it, items finished after a slow one (a cold pipeline
/// compile, a picture whose slices wait for the thread pool) pile up in [`in_order`]'s
/// waiting room without limit.
pub(crate) struct Window {
    size: u64,
    /// Items the sink has taken (from the first), and whether the sink has stopped.
    state: Mutex<(u64, bool)>,
    moved: Condvar,
}

impl Window {
    /// A window of `size` items (at least 1) from item `first`.
    pub(crate) fn new(first: u64, size: usize) -> Window {
        Window {
            size: size.max(1) as u64,
            state: Mutex::new((first, false)),
            moved: Condvar::new(),
        }
    }

    /// Waits until item `seq` may start; false once the sink has stopped (stop reading).
    pub(crate) fn admit(&self, seq: u64) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        while !state.1 && seq >= state.0 + self.size {
            state = match self.moved.wait(state) {
                Ok(s) => s,
                Err(_) => return false,
            };
        }
        !state.1
    }

    /// The sink has taken the items before `taken`: later ones may start.
    pub(crate) fn taken(&self, taken: u64) {
        if let Ok(mut state) = self.state.lock() {
            state.0 = taken;
        }
        self.moved.notify_all();
    }

    /// The sink has stopped: every wait at [`Window::admit`] ends, false.
    pub(crate) fn close(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.1 = true;
        }
        self.moved.notify_all();
    }
}

/// Closes the window when the sink stops, however it stops.
struct Closing<'w>(&'w Window);

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Hands every `(seq, item)` from `from` to `sink` in sequence, from `first`, holding
/// those that arrive early; returns how many went. Each item taken moves `window` on;
/// when this returns, however it returns, the window closes, so a reader waiting at it
/// stops. An error received is returned at once. A gap left when the senders are gone
/// (a worker that stopped early) is the error `lost` makes.
pub(crate) fn in_order<T>(
    from: Receiver<Result<(u64, T)>>,
    first: u64,
    window: &Window,
    lost: impl FnOnce() -> Error,
    mut sink: impl FnMut(u64, T) -> Result<()>,
) -> Result<u64> {
    in_order_batches(from, first, window, 1, lost, |start, batch| {
        (start..)
            .zip(batch)
            .try_for_each(|(seq, item)| sink(seq, item))
    })
}

/// [`in_order`] by batches: the items that are next in order when the sink is free, up
/// to `most` of them, go to it at once (`sink(first seq, items)`), so that a sink whose
/// cost is mostly per call (a parallel copy's fork-join) keeps up with many workers. The
/// window moves on after each batch.
pub(crate) fn in_order_batches<T>(
    from: Receiver<Result<(u64, T)>>,
    first: u64,
    window: &Window,
    most: usize,
    lost: impl FnOnce() -> Error,
    mut sink: impl FnMut(u64, Vec<T>) -> Result<()>,
) -> Result<u64> {
    let _closing = Closing(window);
    let mut waiting = BTreeMap::new();
    let mut next = first;
    while let Ok(item) = from.recv() {
        let (seq, item) = item?;
        waiting.insert(seq, item);
        // What arrived while the sink was busy joins this batch.
        while let Ok(item) = from.try_recv() {
            let (seq, item) = item?;
            waiting.insert(seq, item);
        }
        loop {
            let start = next;
            let mut batch = Vec::new();
            while batch.len() < most.max(1) {
                let Some(item) = waiting.remove(&next) else {
                    break;
                };
                batch.push(item);
                next += 1;
            }
            if batch.is_empty() {
                break;
            }
            sink(start, batch)?;
            window.taken(next);
        }
    }
    if waiting.is_empty() {
        Ok(next - first)
    } else {
        Err(lost())
    }
}

/// `work` run in a rayon pool of `threads` threads of its own (with None, here, in
/// rayon's shared pool), so that a pipeline worker's fork-joins run there. Short
/// fork-joins from many workers in the shared pool wait on each other: on the H200, the
/// stream compressor's coders took 0.94-1.06 s for 4 GiB in the shared pool and
/// 0.83-0.85 s with a thread each (docs/results.md, "Twelfth pass"). The pool's threads
/// are joined before this returns (a scoped pool: none outlives the work). Where the
/// system refuses a thread, the work runs here.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn in_own_pool<T: Send>(threads: Option<usize>, work: impl Fn() -> T + Sync) -> T {
    if let Some(n) = threads {
        let ran = rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .thread_name(|_| "parvlc-worker".into())
            .build_scoped(|thread| thread.run(), |pool| pool.install(&work));
        if let Ok(out) = ran {
            return out;
        }
    }
    work()
}

/// `work` with its fork-joins in rayon's shared pool (all cores), also when called from a
/// thread of [`in_own_pool`]: then it runs on a thread of its own (where the system
/// refuses one, here).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn in_shared_pool<T: Send>(work: impl Fn() -> T + Sync) -> T {
    if rayon::current_thread_index().is_some() {
        let ran = std::thread::scope(|s| {
            let thread = std::thread::Builder::new()
                .name("parvlc-shared".into())
                .spawn_scoped(s, &work)
                .ok()?;
            Some(
                thread
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            )
        });
        if let Some(out) = ran {
            return out;
        }
    }
    work()
}

/// Jobs made in order on this thread by `read` (which hands each to the function it is
/// given), done by `workers` threads in any order (`work`; with `own_threads`, each
/// worker's fork-joins in a pool of that many threads of its own: [`in_own_pool`]), and
/// their results handed to `write` in order on a writer thread, at most `window` jobs
/// from the oldest one not yet written. The first worker that fails stops taking jobs for all of them, so the
/// reader's next hand-off fails rather than waits. Returns what the writer and what the
/// reader came to, in that order: a write or work error explains a reader that stopped
/// early, so callers report it first.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn work_in_order<J: Send, O: Send, R>(
    workers: usize,
    own_threads: Option<usize>,
    window: usize,
    work: impl Fn(J) -> Result<O> + Sync,
    mut write: impl FnMut(O) -> Result<()> + Send,
    stopped: impl Fn() -> Error + Sync,
    read: impl FnOnce(&mut dyn FnMut(J) -> Result<()>) -> Result<R>,
) -> (Result<u64>, Result<R>) {
    let window = Window::new(0, window);
    let (to_workers, from_reader) = std::sync::mpsc::sync_channel::<(u64, J)>(1);
    // Shared by the workers; the first that stops drops it, so the reader stops too.
    let from_reader = Mutex::new(Some(from_reader));
    let (to_writer, from_workers) = std::sync::mpsc::sync_channel::<Result<(u64, O)>>(1);
    std::thread::scope(|s| {
        for _ in 0..workers.max(1) {
            let (from_reader, to_writer, work) = (&from_reader, to_writer.clone(), &work);
            let hang_up = move || {
                *from_reader.lock().unwrap_or_else(|e| e.into_inner()) = None;
            };
            s.spawn(move || {
                in_own_pool(own_threads, || loop {
                    let next = match &*from_reader.lock().unwrap_or_else(|e| e.into_inner()) {
                        Some(rx) => rx.recv(),
                        None => return,
                    };
                    let Ok((seq, job)) = next else { return };
                    let done = work(job);
                    let failed = done.is_err();
                    if to_writer.send(done.map(|o| (seq, o))).is_err() || failed {
                        return hang_up();
                    }
                })
            });
        }
        drop(to_writer);
        let (window, stopped) = (&window, &stopped);
        let writer =
            s.spawn(move || in_order(from_workers, 0, window, stopped, |_, out| write(out)));
        let mut seq = 0u64;
        let read = read(&mut |job| {
            if !window.admit(seq) {
                return Err(stopped());
            }
            to_workers.send((seq, job)).map_err(|_| stopped())?;
            seq += 1;
            Ok(())
        });
        drop(to_workers);
        let written = writer.join().unwrap_or_else(|_| Err(stopped()));
        (written, read)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::mpsc::sync_channel;

    /// Workers with pools of their own fork there, not in rayon's shared pool; without,
    /// in the shared one; results come out in order either way.
    #[test]
    fn workers_fork_in_their_own_pools() {
        // One more thread than the shared pool has, so that the two cannot be confused.
        let shared = rayon::current_num_threads();
        for (own, threads) in [(Some(shared + 1), shared + 1), (None, shared)] {
            let mut seen = Vec::new();
            let (written, read) = work_in_order(
                3,
                own,
                6,
                |job: u64| {
                    // A fork-join, as a coder's: it runs where the worker's pool is.
                    let (a, b) = rayon::join(rayon::current_num_threads, || job);
                    Ok((a, b))
                },
                |out| {
                    seen.push(out);
                    Ok(())
                },
                || Error::InvalidArgument("stopped".into()),
                |send| {
                    for job in 0..20 {
                        send(job)?;
                    }
                    Ok(())
                },
            );
            assert_eq!(written.unwrap(), 20);
            read.unwrap();
            let expected: Vec<(usize, u64)> = (0..20).map(|j| (threads, j)).collect();
            assert_eq!(seen, expected, "own pool {own:?}");
        }
        assert_eq!(in_own_pool(Some(1), rayon::current_num_threads), 1);
    }

    /// Four workers, the first item slow: the reader never runs more than the window
    /// ahead of the sink, and the sink sees every item in order.
    #[test]
    fn the_window_bounds_what_runs_ahead_and_order_is_kept() {
        const ITEMS: u64 = 200;
        const SIZE: usize = 6;
        let window = Window::new(0, SIZE);
        let taken = AtomicU64::new(0);
        let ahead = AtomicU64::new(0);
        let (to_workers, from_reader) = sync_channel::<u64>(1);
        let from_reader = Mutex::new(from_reader);
        let (to_sink, from_workers) = sync_channel::<Result<(u64, u64)>>(1);
        let seen = std::thread::scope(|s| {
            // The reader owns its sender, so the workers see the channel close when it ends.
            let (window, taken, ahead) = (&window, &taken, &ahead);
            s.spawn(move || {
                for seq in 0..ITEMS {
                    if !window.admit(seq) {
                        return;
                    }
                    let gap = seq - taken.load(Ordering::SeqCst);
                    ahead.fetch_max(gap, Ordering::SeqCst);
                    if to_workers.send(seq).is_err() {
                        return;
                    }
                }
            });
            for _ in 0..4 {
                let (from_reader, to_sink) = (&from_reader, to_sink.clone());
                s.spawn(move || loop {
                    let Ok(seq) = from_reader.lock().unwrap().recv() else {
                        return;
                    };
                    if seq % 50 == 0 {
                        std::thread::sleep(std::time::Duration::from_millis(20));
                    }
                    if to_sink.send(Ok((seq, seq * 3))).is_err() {
                        return;
                    }
                });
            }
            drop(to_sink);
            let mut seen = Vec::new();
            let n = in_order(
                from_workers,
                0,
                window,
                || Error::InvalidArgument("lost".into()),
                |seq, v| {
                    assert_eq!(v, seq * 3);
                    seen.push(seq);
                    taken.store(seq + 1, Ordering::SeqCst);
                    Ok(())
                },
            );
            assert_eq!(n.unwrap(), ITEMS);
            seen
        });
        assert_eq!(seen, (0..ITEMS).collect::<Vec<_>>());
        let ahead = ahead.load(Ordering::SeqCst);
        assert!(ahead < SIZE as u64, "the reader ran {ahead} items ahead");
    }

    /// Items queued out of order go to the sink in order, in batches of consecutive
    /// items no larger than asked; a gap left at the end is the `lost` error.
    #[test]
    fn batches_are_consecutive_bounded_and_a_gap_is_lost() {
        const ITEMS: u64 = 23;
        let window = Window::new(0, ITEMS as usize + 1);
        let (to_sink, from_workers) = sync_channel::<Result<(u64, u64)>>(ITEMS as usize);
        // All queued before the sink starts, in a scrambled order (7 is prime to 23).
        for i in 0..ITEMS {
            let seq = (i * 7) % ITEMS;
            to_sink.send(Ok((seq, seq + 100))).unwrap();
        }
        drop(to_sink);
        let mut batches: Vec<(u64, Vec<u64>)> = Vec::new();
        let n = in_order_batches(
            from_workers,
            0,
            &window,
            4,
            || Error::InvalidArgument("lost".into()),
            |first, items| {
                batches.push((first, items));
                Ok(())
            },
        );
        assert_eq!(n.unwrap(), ITEMS);
        let mut next = 0;
        for (first, items) in &batches {
            assert_eq!(*first, next);
            assert!(
                !items.is_empty() && items.len() <= 4,
                "a batch of {}",
                items.len()
            );
            for (k, v) in items.iter().enumerate() {
                assert_eq!(*v, next + k as u64 + 100);
            }
            next += items.len() as u64;
        }
        assert_eq!(next, ITEMS);
        // Everything was queued when the sink started: full batches but the last.
        assert_eq!(batches.len(), (ITEMS as usize).div_ceil(4));

        let (to_sink, from_workers) = sync_channel::<Result<(u64, u64)>>(4);
        for seq in [1, 0, 3] {
            to_sink.send(Ok((seq, seq))).unwrap();
        }
        drop(to_sink);
        let mut seen = Vec::new();
        let r = in_order_batches(
            from_workers,
            0,
            &Window::new(0, 8),
            8,
            || Error::InvalidArgument("lost".into()),
            |_, items| {
                seen.extend(items);
                Ok(())
            },
        );
        assert!(matches!(r, Err(Error::InvalidArgument(m)) if m == "lost"));
        assert_eq!(seen, [0, 1]);
    }

    /// A sink that fails closes the window: a reader waiting at it stops.
    #[test]
    fn a_failing_sink_releases_the_reader() {
        let window = Window::new(0, 2);
        let (to_sink, from_workers) = sync_channel::<Result<(u64, u64)>>(4);
        std::thread::scope(|s| {
            let reader = s.spawn(|| (0..100).take_while(|&seq| window.admit(seq)).count());
            to_sink.send(Ok((0, 0))).unwrap();
            drop(to_sink);
            let r = in_order(
                from_workers,
                0,
                &window,
                || Error::InvalidArgument("lost".into()),
                |_, _| Err(Error::InvalidArgument("disk full".into())),
            );
            assert!(r.is_err());
            // Admitted 0 and 1 at most, then stopped by the close, not by item 100.
            assert!(reader.join().unwrap() <= 2);
        });
    }
}
