//! Two decodes side by side on one core. A table-driven Huffman decoder waits on each
//! lookup (the next one needs the bits this one took); two independent chains of
//! lookups, interleaved round by round, keep the core busy through those waits. Each lane
//! takes the next decode when its own ends, so the pair stays a pair to the last one.

/// A decode in progress.
pub(crate) trait Lane {
    type Done;
    /// One round of the hot loop; false once the careful end must take over.
    fn round(&mut self) -> bool;
    /// The careful end, once `round` said false.
    fn finish(self) -> Self::Done;
}

/// Runs every decode `next` starts to its end, two at a time, and hands each end to
/// `done` (in the order they end, not the order they started).
pub(crate) fn two_lanes<S, L: Lane>(
    state: &mut S,
    mut next: impl FnMut(&mut S) -> Option<L>,
    mut done: impl FnMut(&mut S, L::Done),
) {
    let mut lanes = [next(state), next(state)];
    loop {
        match &mut lanes {
            [Some(a), Some(b)] => {
                let (mut more_a, mut more_b) = (true, true);
                while more_a && more_b {
                    more_a = a.round();
                    more_b = b.round();
                }
                for (lane, more) in lanes.iter_mut().zip([more_a, more_b]) {
                    if !more {
                        if let Some(l) = lane.take() {
                            done(state, l.finish());
                        }
                        *lane = next(state);
                    }
                }
            }
            [None, None] => return,
            _ => {
                // One lane left: nothing to pair it with any more.
                for lane in lanes.iter_mut() {
                    if let Some(mut l) = lane.take() {
                        while l.round() {}
                        done(state, l.finish());
                        *lane = next(state);
                    }
                }
            }
        }
    }
}
