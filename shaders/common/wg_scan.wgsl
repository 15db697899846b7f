// Workgroup-wide exclusive scan of one u32 per invocation, in workgroup memory
// (Hillis-Steele). Twin of common/wg_scan_subgroup.wgsl. Call in uniform control flow.
//!import common/invocation

const WG_SCAN_MAX: u32 = 1024u;
var<workgroup> wg_scan_buf: array<u32, WG_SCAN_MAX>;

// Returns (exclusive prefix of `x` in scan order, workgroup total).
fn wg_exclusive_scan(inv: Invocation, x: u32) -> vec2<u32> {
    let scan = wg_exclusive_scan_unfenced(inv, x);
    workgroupBarrier();
    return scan;
}

// wg_exclusive_scan without its closing barrier, for callers where a barrier comes before
// the next scan anyway (one barrier fewer).
fn wg_exclusive_scan_unfenced(inv: Invocation, x: u32) -> vec2<u32> {
    let lane = scan_lane(inv);
    let n = WG_SIZE;
    wg_scan_buf[lane] = x;
    workgroupBarrier();
    for (var offset = 1u; offset < n; offset <<= 1u) {
        var add = 0u;
        if lane >= offset {
            add = wg_scan_buf[lane - offset];
        }
        workgroupBarrier();
        wg_scan_buf[lane] += add;
        workgroupBarrier();
    }
    let inclusive = wg_scan_buf[lane];
    let total = wg_scan_buf[n - 1u];
    return vec2<u32>(inclusive - x, total);
}
