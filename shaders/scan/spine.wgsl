// reduce_then_scan, middle dispatch: one workgroup turns the per-block aggregates in
// scan_state (written by the stage's reduce entry point) into exclusive prefixes, in place.
//!import common/lookback
//!import common/wg_scan

struct SpineParams {
    n_blocks: u32,
}
// keep in sync with src/scan.rs `SpineParams`
@group(0) @binding(0) var<uniform> spine: SpineParams;

var<workgroup> spine_carry: u32;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    if inv.lid == 0u {
        spine_carry = 0u;
    }
    let n = spine.n_blocks;
    for (var base = 0u; base < n; base += WG_SIZE) {
        let i = base + scan_lane(inv);
        var x = 0u;
        if i < n {
            x = atomicLoad(&scan_state[STATE_HEADER + i]);
        }
        let carry = workgroupUniformLoad(&spine_carry);
        let s = wg_exclusive_scan(inv, x);
        if i < n {
            atomicStore(&scan_state[STATE_HEADER + i], carry + s.x);
        }
        if inv.lid == 0u {
            spine_carry = carry + s.y;
        }
    }
    let total = workgroupUniformLoad(&spine_carry);
    if inv.lid == 0u {
        atomicStore(&scan_state[3], total);
    }
}

