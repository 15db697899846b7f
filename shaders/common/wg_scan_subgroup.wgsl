// Workgroup-wide exclusive scan with subgroup operations (twin of common/wg_scan.wgsl):
// one subgroup scan, subgroup totals through workgroup memory. Call in uniform control flow.
//!import common/invocation
// Its totals come from each subgroup's last lane and count WG_SIZE / sg_size subgroups:
// a stage that uses it runs whole subgroups only.
//!whole_subgroups

const WG_SCAN_MAX_SUBGROUPS: u32 = 256u;
var<workgroup> wg_scan_totals: array<u32, WG_SCAN_MAX_SUBGROUPS>;

// Returns (exclusive prefix of `x` in scan order, workgroup total).
fn wg_exclusive_scan(inv: Invocation, x: u32) -> vec2<u32> {
    let scan = wg_exclusive_scan_unfenced(inv, x);
    workgroupBarrier();
    return scan;
}

// wg_exclusive_scan without its closing barrier, for callers where a barrier comes before
// the next scan anyway (one barrier fewer).
fn wg_exclusive_scan_unfenced(inv: Invocation, x: u32) -> vec2<u32> {
    let inclusive = subgroupInclusiveAdd(x);
    if inv.sg_lane == inv.sg_size - 1u {
        wg_scan_totals[inv.sg_id] = inclusive;
    }
    workgroupBarrier();
    // Few subgroups (8 at 256 threads on 32-wide hardware): a broadcast read each.
    let n_subgroups = WG_SIZE / inv.sg_size;
    var before = 0u;
    var total = 0u;
    for (var s = 0u; s < n_subgroups; s++) {
        let t = wg_scan_totals[s];
        before += select(0u, t, s < inv.sg_id);
        total += t;
    }
    return vec2<u32>(before + inclusive - x, total);
}
