// Workgroup scans of the bit-stuffing operators (common/bitstuff_ops.wgsl), subgroup flavour
// (twin of common/bitstuff_scan.wgsl): Hillis-Steele by subgroupShuffleUp inside a subgroup,
// subgroup totals through workgroup memory, so one barrier pair instead of two per step.
// Call in uniform control flow.
//!import common/invocation
//!import common/bitstuff_ops
// Its totals come from each subgroup's last lane and count WG_SIZE / sg_size subgroups:
// a stage that uses it runs whole subgroups only.
//!whole_subgroups

// Subgroups of at least 8 invocations, at most 1024 per workgroup.
const BS_MAX_SUBGROUPS: u32 = 128u;
var<workgroup> bs_seg_totals: array<u32, BS_MAX_SUBGROUPS>;
var<workgroup> bs_map_totals: array<vec2<u32>, BS_MAX_SUBGROUPS>;

// Segmented scan of `x`: (exclusive, total), both with `carry` combined in front.
fn bs_seg_scan(inv: Invocation, x: u32, carry: u32) -> vec2<u32> {
    var v = x;
    for (var d = 1u; d < inv.sg_size; d <<= 1u) {
        let o = subgroupShuffleUp(v, d);
        if inv.sg_lane >= d {
            v = bs_seg_combine(o, v);
        }
    }
    var within = subgroupShuffleUp(v, 1u);
    if inv.sg_lane == 0u {
        within = 0u;
    }
    if inv.sg_lane == inv.sg_size - 1u {
        bs_seg_totals[inv.sg_id] = v;
    }
    workgroupBarrier();
    var before = carry;
    var total = carry;
    let n_subgroups = WG_SIZE / inv.sg_size;
    for (var s = 0u; s < n_subgroups; s++) {
        let t = bs_seg_totals[s];
        if s < inv.sg_id {
            before = bs_seg_combine(before, t);
        }
        total = bs_seg_combine(total, t);
    }
    workgroupBarrier();
    return vec2<u32>(bs_seg_combine(before, within), total);
}

// Scan of maps `m` applied to `state`: (the state entering this invocation's chunk, the
// state after the whole workgroup's).
fn bs_map_scan(inv: Invocation, m: vec2<u32>, state: u32) -> vec2<u32> {
    var v = m;
    for (var d = 1u; d < inv.sg_size; d <<= 1u) {
        let o = subgroupShuffleUp(v, d);
        if inv.sg_lane >= d {
            v = bs_map_compose(o, v);
        }
    }
    let within = subgroupShuffleUp(v, 1u);
    if inv.sg_lane == inv.sg_size - 1u {
        bs_map_totals[inv.sg_id] = v;
    }
    workgroupBarrier();
    var incoming = state;
    var out = state;
    let n_subgroups = WG_SIZE / inv.sg_size;
    for (var s = 0u; s < n_subgroups; s++) {
        let t = bs_map_totals[s];
        if s < inv.sg_id {
            incoming = bs_map_apply(t, incoming);
        }
        out = bs_map_apply(t, out);
    }
    workgroupBarrier();
    if inv.sg_lane > 0u {
        incoming = bs_map_apply(within, incoming);
    }
    return vec2<u32>(incoming, out);
}
