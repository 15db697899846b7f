//! Many byte slices copied into one, on all cores when there is much to copy.
//!
//! A codestream is thousands of small pieces (a 4K JPEG 2000 picture: 6,339 packet headers
//! and code-blocks, 8.6 MB); one core copying them, each page of a fresh output faulted in
//! on the way, took 2.5-3.5 ms of the encoder's time.

use std::mem::MaybeUninit;

use rayon::prelude::*;

/// Totals at least this long are copied on all cores.
const PARALLEL_BYTES: usize = 1 << 20;
/// A task copies runs of pieces of about this many bytes (a piece longer than that is
/// split).
const RUN_BYTES: usize = 64 << 10;

/// `pieces` one after another in a new vector. Its bytes are written once, by the copies:
/// not zeroed first (on the allocator's heap, zeroing is a pass over the whole on one core).
pub(crate) fn concat(pieces: &[&[u8]]) -> Vec<u8> {
    let total: usize = pieces.iter().map(|p| p.len()).sum();
    let mut out: Vec<u8> = Vec::with_capacity(total);
    copy_runs(&mut out.spare_capacity_mut()[..total], pieces);
    // SAFETY: `copy_runs` wrote every one of the first `total` bytes: the pieces are
    // `total` bytes together, written back to back from the start.
    unsafe { out.set_len(total) };
    out
}

/// A part of the destination and the pieces (or parts of pieces) that fill it.
type Run<'d, 'p> = (&'d mut [MaybeUninit<u8>], Vec<&'p [u8]>);

/// Copy `pieces` one after another into `dst`, exactly their length, on all cores where
/// they are long together.
fn copy_runs(dst: &mut [MaybeUninit<u8>], pieces: &[&[u8]]) {
    let total = dst.len();
    if total < PARALLEL_BYTES {
        copy_run(dst, pieces.iter().copied());
        return;
    }
    // Runs of whole pieces (and parts of long ones), each with its part of `dst`.
    let mut runs: Vec<Run<'_, '_>> = Vec::with_capacity(total / RUN_BYTES + 1);
    let mut rest = dst;
    let mut run: Vec<&[u8]> = Vec::new();
    let mut run_bytes = 0;
    for piece in pieces.iter().flat_map(|p| p.chunks(RUN_BYTES)) {
        run.push(piece);
        run_bytes += piece.len();
        if run_bytes >= RUN_BYTES {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(run_bytes);
            runs.push((head, std::mem::take(&mut run)));
            rest = tail;
            run_bytes = 0;
        }
    }
    if !run.is_empty() {
        runs.push((rest, run));
    }
    runs.into_par_iter()
        .for_each(|(dst, run)| copy_run(dst, run.into_iter()));
}

fn copy_run<'p>(dst: &mut [MaybeUninit<u8>], pieces: impl Iterator<Item = &'p [u8]>) {
    let mut at = 0;
    for p in pieces {
        // A loop the compiler turns into a copy (`write_copy_of_slice` is newer than the
        // crate's minimum Rust).
        for (d, &b) in dst[at..at + p.len()].iter_mut().zip(p) {
            d.write(b);
        }
        at += p.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_of_every_size_land_in_order() {
        // Small and empty pieces, pieces across run edges and pieces of several runs; a
        // total under and over the parallel threshold.
        let mut rng = crate::testdata::SplitMix64(7);
        let mut next = || rng.next_u64() as usize;
        for scale in [1usize, 40, 400] {
            let owned: Vec<Vec<u8>> = (0..300)
                .map(|i| {
                    let len = match i % 7 {
                        0 => 0,
                        1 => RUN_BYTES + next() % 5,
                        2 => 3 * RUN_BYTES + 1,
                        _ => next() % (scale * 100 + 1),
                    } / if scale == 1 { 64 } else { 1 };
                    (0..len).map(|_| next() as u8).collect()
                })
                .collect();
            let pieces: Vec<&[u8]> = owned.iter().map(|p| &p[..]).collect();
            let want = owned.concat();
            let got = concat(&pieces);
            assert!(got == want, "scale {scale}: {} bytes differ", want.len());
        }
        assert!(concat(&[]).is_empty());
        assert_eq!(concat(&[&[], &[1, 2], &[], &[3]]), [1, 2, 3]);
    }
}
