// Device-wide exclusive scan of u32 values (totals below 2^30), one of three strategies
// (common/lookback.wgsl). CPU twin: src/scan.rs `exclusive_scan_cpu`.
//!import common/lookback
//!import common/wg_scan

struct ScanParams {
    n: u32,
    n_blocks: u32,
}
// keep in sync with src/scan.rs `ScanParams`
@group(0) @binding(0) var<uniform> params: ScanParams;
@group(0) @binding(1) var<storage, read> values: array<u32>;
@group(0) @binding(2) var<storage, read_write> prefixes: array<u32>;

// Elements per invocation.
override ITEMS: u32 = 8u;

fn lane_sum(block: u32, lane: u32) -> u32 {
    let first = (block * WG_SIZE + lane) * ITEMS;
    var sum = 0u;
    for (var k = 0u; k < ITEMS; k++) {
        if first + k < params.n {
            sum += values[first + k];
        }
    }
    return sum;
}

fn block_aggregate(inv: Invocation, block: u32) -> u32 {
    return wg_exclusive_scan(inv, lane_sum(block, scan_lane(inv))).y;
}

// reduce_then_scan, first dispatch: one aggregate per block.
@compute @workgroup_size(WG_SIZE)
fn reduce(inv: Invocation) {
    let grid = workgroup_grid(inv);
    for (var block = grid.x; block < params.n_blocks; block += grid.y) {
        let total = block_aggregate(inv, block);
        if inv.lid == 0u {
            atomicStore(&scan_state[STATE_HEADER + block], total);
        }
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    for (var taken = 0u; taken < MAX_BLOCKS_PER_WORKGROUP; taken++) {
        let block = take_block(inv);
        if block >= params.n_blocks {
            break;
        }
        let lane = scan_lane(inv);
        let local = wg_exclusive_scan(inv, lane_sum(block, lane));
        lookback_publish(inv, block, local.y);
        loop {
            let stalled = lookback_wait(inv, block);
            if stalled == 0u {
                break;
            }
            lookback_supply(inv, block_aggregate(inv, stalled - 1u));
        }
        let base = lookback_finish(inv, block, local.y);
        var running = base + local.x;
        let first = (block * WG_SIZE + lane) * ITEMS;
        for (var k = 0u; k < ITEMS; k++) {
            if first + k < params.n {
                prefixes[first + k] = running;
                running += values[first + k];
            }
        }
    }
}
