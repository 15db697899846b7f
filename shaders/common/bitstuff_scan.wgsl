// Workgroup scans of the bit-stuffing operators (common/bitstuff_ops.wgsl), workgroup memory
// flavour: Hillis-Steele in scan order. Twin of common/bitstuff_scan_subgroup.wgsl (same
// names). Call in uniform control flow.
//!import common/invocation
//!import common/bitstuff_ops

var<workgroup> bs_seg: array<u32, WG_SIZE>;
var<workgroup> bs_maps: array<vec2<u32>, WG_SIZE>;

// Segmented scan of `x`: (exclusive, total), both with `carry` combined in front.
fn bs_seg_scan(inv: Invocation, x: u32, carry: u32) -> vec2<u32> {
    let lane = scan_lane(inv);
    var v = x;
    bs_seg[lane] = v;
    workgroupBarrier();
    for (var offset = 1u; offset < WG_SIZE; offset <<= 1u) {
        if lane >= offset {
            v = bs_seg_combine(bs_seg[lane - offset], v);
        }
        workgroupBarrier();
        bs_seg[lane] = v;
        workgroupBarrier();
    }
    var before = 0u;
    if lane > 0u {
        before = bs_seg[lane - 1u];
    }
    let total = bs_seg[WG_SIZE - 1u];
    workgroupBarrier();
    return vec2<u32>(bs_seg_combine(carry, before), bs_seg_combine(carry, total));
}

// Scan of maps `m` applied to `state`: (the state entering this invocation's chunk, the
// state after the whole workgroup's).
fn bs_map_scan(inv: Invocation, m: vec2<u32>, state: u32) -> vec2<u32> {
    let lane = scan_lane(inv);
    var v = m;
    bs_maps[lane] = v;
    workgroupBarrier();
    for (var offset = 1u; offset < WG_SIZE; offset <<= 1u) {
        if lane >= offset {
            v = bs_map_compose(bs_maps[lane - offset], v);
        }
        workgroupBarrier();
        bs_maps[lane] = v;
        workgroupBarrier();
    }
    var incoming = state;
    if lane > 0u {
        incoming = bs_map_apply(bs_maps[lane - 1u], state);
    }
    let out = bs_map_apply(bs_maps[WG_SIZE - 1u], state);
    workgroupBarrier();
    return vec2<u32>(incoming, out);
}
