// Inter-workgroup exclusive prefix of per-block aggregates: the three strategies of
// DESIGN.md behind one function, `block_prefix`. Blocks are handed out by ticket
// (`take_block`), so a workgroup only ever waits on blocks that running workgroups hold.
//
// A stage drives it like this (all in workgroup-uniform control flow):
//     lookback_publish(inv, block, aggregate);
//     loop {
//         let j = lookback_wait(inv, block);          // 0: done; else block j - 1 stalled
//         if j == 0u { break; }
//         lookback_supply(inv, my_block_aggregate(j - 1u)); // the decoupled fallback
//     }
//     let exclusive_prefix = lookback_finish(inv, block, aggregate);
// The fallback recomputes a stalled predecessor's aggregate from its input, which only
// the stage knows how to do; that is why the loop lives in the stage.
//
// A stage that takes blocks in a loop can do the wait, the finish and the next ticket in
// one barrier (lookback_resolve):
//     var block = take_block(inv);
//     while block < n_blocks {
//         lookback_publish(inv, block, aggregate);
//         var look = lookback_resolve(inv, block, aggregate, more_blocks_allowed);
//         while look.x != 0u {
//             lookback_supply(inv, my_block_aggregate(look.x - 1u));
//             look = lookback_resolve(inv, block, aggregate, more_blocks_allowed);
//         }
//         // look.y: exclusive prefix, look.z: aggregate, look.w: the next block
//         block = look.w;
//     }
//
// scan_state layout (keep in sync with src/scan.rs `ScanState`):
//   [0] ticket counter   [1] stalled flag   [2] fallbacks taken
//   [3] reduce_then_scan: the grand total, written by scan/spine (checked by the host)
//   [4 + b] block b: flag in the top two bits, value in the low 30 bits;
//           reduce_then_scan: the block's exclusive prefix, written by scan/spine.
//   [4 + n + 2b], [4 + n + 2b + 1] (n blocks; cuvle with STAGE_ENDS_TO_CALLER): block b's
//           first and last output word, placed by the host.
//!import common/invocation

const STRATEGY_CHAINED: u32 = 0u;
const STRATEGY_DECOUPLED: u32 = 1u;
const STRATEGY_REDUCE_THEN_SCAN: u32 = 2u;

override SCAN_STRATEGY: u32 = STRATEGY_DECOUPLED;
// Polls of a predecessor's flag before the decoupled strategy computes its aggregate
// itself. 0: never wait, and always recompute the nearest predecessor, so that every
// block but the first takes the fallback (the test of that path).
override SPIN_BUDGET: u32 = 64u;
// Blocks one workgroup takes before it exits; the host launches enough workgroups.
// Unbounded on GPUs (persistent workgroups). llvmpipe gives each invocation 65535 loop
// iterations in all, then silently leaves every loop, so on CPU adapters it is small.
override MAX_BLOCKS_PER_WORKGROUP: u32 = 0xffffffffu;
// Polls before the chained strategy gives up and reports a stall instead of hanging.
// Chained needs every running workgroup to make progress while another spins.
override CHAINED_SPIN_LIMIT: u32 = 0x4000000u;

const STATE_HEADER: u32 = 4u;
const FLAG_AGGREGATE: u32 = 0x40000000u;
const FLAG_PREFIX: u32 = 0x80000000u;
const VALUE_MASK: u32 = 0x3fffffffu;

@group(0) @binding(8) var<storage, read_write> scan_state: array<atomic<u32>>;

var<workgroup> lookback_status: u32;
var<workgroup> lookback_value: u32;
var<workgroup> lookback_next: u32;   // predecessor to look at next, plus one
var<workgroup> lookback_prefix: u32; // sum found so far (leader writes)
var<workgroup> lookback_resolved: vec4<u32>; // lookback_resolve's answer

fn take_block(inv: Invocation) -> u32 {
    if inv.lid == 0u {
        lookback_value = atomicAdd(&scan_state[0], 1u);
    }
    return workgroupUniformLoad(&lookback_value);
}

const LOOK_PREFIX: u32 = 1u;     // found an inclusive prefix: done
const LOOK_AGGREGATE: u32 = 2u;  // found an aggregate: add, look further back
const LOOK_FALLBACK: u32 = 3u;   // predecessor not ready: compute its aggregate ourselves
const LOOK_STALLED: u32 = 4u;    // chained wait gave up

// Leader only: poll block j's slot on behalf of `block`.
fn poll_predecessor(block: u32, j: u32) -> vec2<u32> {
    if SCAN_STRATEGY == STRATEGY_DECOUPLED && SPIN_BUDGET == 0u && j + 1u == block {
        // The test of the fallback: the nearest predecessor is always recomputed.
        return vec2<u32>(LOOK_FALLBACK, 0u);
    }
    let limit = select(CHAINED_SPIN_LIMIT, max(SPIN_BUDGET, 1u), SCAN_STRATEGY == STRATEGY_DECOUPLED);
    for (var spins = 0u; spins < limit; spins++) {
        let v = atomicLoad(&scan_state[STATE_HEADER + j]);
        if (v & FLAG_PREFIX) != 0u {
            return vec2<u32>(LOOK_PREFIX, v & VALUE_MASK);
        }
        if SCAN_STRATEGY == STRATEGY_DECOUPLED && (v & FLAG_AGGREGATE) != 0u {
            return vec2<u32>(LOOK_AGGREGATE, v & VALUE_MASK);
        }
    }
    if SCAN_STRATEGY == STRATEGY_DECOUPLED {
        return vec2<u32>(LOOK_FALLBACK, 0u);
    }
    return vec2<u32>(LOOK_STALLED, 0u);
}

// Announce this block's aggregate (decoupled), or its inclusive prefix (block 0).
fn lookback_publish(inv: Invocation, block: u32, aggregate: u32) {
    if inv.lid == 0u {
        lookback_next = block;
        lookback_prefix = 0u;
        if SCAN_STRATEGY != STRATEGY_REDUCE_THEN_SCAN {
            if block == 0u {
                atomicStore(&scan_state[STATE_HEADER], FLAG_PREFIX | aggregate);
            } else if SCAN_STRATEGY == STRATEGY_DECOUPLED {
                atomicStore(&scan_state[STATE_HEADER + block], FLAG_AGGREGATE | aggregate);
            }
        }
    }
}

// Walk back over predecessors until an inclusive prefix is found. Returns 0 when done,
// or j + 1 when block j must have its aggregate supplied (lookback_supply).
fn lookback_wait(inv: Invocation, block: u32) -> u32 {
    if SCAN_STRATEGY == STRATEGY_REDUCE_THEN_SCAN {
        return 0u;
    }
    if inv.lid == 0u {
        lookback_status = lookback_walk(block);
    }
    return workgroupUniformLoad(&lookback_status);
}

// Leader only: lookback_wait's walk.
fn lookback_walk(block: u32) -> u32 {
    var next = lookback_next;
    var status = LOOK_PREFIX;
    while next != 0u {
        let look = poll_predecessor(block, next - 1u);
        status = look.x;
        if status == LOOK_FALLBACK {
            break;
        }
        lookback_prefix += look.y;
        next -= 1u;
        if status == LOOK_PREFIX {
            next = 0u;
        } else if status == LOOK_STALLED {
            // Publish anyway so no successor waits forever; the host sees the flag
            // and reports an error instead of wrong output.
            atomicStore(&scan_state[1], 1u);
            next = 0u;
        }
    }
    lookback_next = next;
    return select(0u, next, status == LOOK_FALLBACK);
}

// The aggregate of the block lookback_wait asked for.
fn lookback_supply(inv: Invocation, aggregate: u32) {
    if inv.lid == 0u {
        lookback_prefix += aggregate;
        lookback_next -= 1u;
        atomicAdd(&scan_state[2], 1u);
    }
}

// Publish this block's inclusive prefix; returns its exclusive prefix to every invocation.
fn lookback_finish(inv: Invocation, block: u32, aggregate: u32) -> u32 {
    if SCAN_STRATEGY == STRATEGY_REDUCE_THEN_SCAN {
        return atomicLoad(&scan_state[STATE_HEADER + block]);
    }
    if inv.lid == 0u && block != 0u {
        atomicStore(&scan_state[STATE_HEADER + block], FLAG_PREFIX | ((lookback_prefix + aggregate) & VALUE_MASK));
    }
    return workgroupUniformLoad(&lookback_prefix);
}

// No block: what lookback_resolve gives as the next block when it took no ticket.
const NO_BLOCK: u32 = 0xffffffffu;

// lookback_wait, lookback_finish and take_block behind one barrier. Returns, uniformly,
// (j + 1, 0, 0, 0) when block j stalled (supply its aggregate and call again), else
// (0, this block's exclusive prefix, `aggregate`, the workgroup's next block: a new
// ticket when `take_next`, NO_BLOCK otherwise). The ticket is taken once this block's
// inclusive prefix is out, so no successor ever waits on a block not yet begun.
fn lookback_resolve(inv: Invocation, block: u32, aggregate: u32, take_next: bool) -> vec4<u32> {
    if inv.lid == 0u {
        var stalled = 0u;
        if SCAN_STRATEGY != STRATEGY_REDUCE_THEN_SCAN {
            stalled = lookback_walk(block);
        }
        if stalled != 0u {
            lookback_resolved = vec4<u32>(stalled, 0u, 0u, 0u);
        } else {
            var prefix = lookback_prefix;
            if SCAN_STRATEGY == STRATEGY_REDUCE_THEN_SCAN {
                prefix = atomicLoad(&scan_state[STATE_HEADER + block]);
            } else if block != 0u {
                atomicStore(&scan_state[STATE_HEADER + block], FLAG_PREFIX | ((prefix + aggregate) & VALUE_MASK));
            }
            var next = NO_BLOCK;
            if take_next {
                next = atomicAdd(&scan_state[0], 1u);
            }
            lookback_resolved = vec4<u32>(0u, prefix, aggregate, next);
        }
    }
    return workgroupUniformLoad(&lookback_resolved);
}

// Published words beside the look-back (CAVLC's neighbour TotalCoeffs): a workgroup
// stores a word with FLAG_PREFIX set once its value is final; a later ticket polls it.
// Returns the word, or 0 when it was not published within SPIN_BUDGET polls (never
// waited for when SPIN_BUDGET is 0): the caller then recomputes the value from its
// input (the decoupled fallback) and counts that with lookback_count_fallback.
fn lookback_poll_word(index: u32) -> u32 {
    for (var spins = 0u; spins < SPIN_BUDGET; spins++) {
        let v = atomicLoad(&scan_state[index]);
        if (v & FLAG_PREFIX) != 0u {
            return v;
        }
    }
    return 0u;
}

fn lookback_publish_word(index: u32, value: u32) {
    atomicStore(&scan_state[index], FLAG_PREFIX | value);
}

fn lookback_count_fallback() {
    atomicAdd(&scan_state[2], 1u);
}
