// Workgroup-wide sums of two 64-bit values an invocation with subgroup operations (twin
// of huffman/wg_sum64.wgsl): each value cut into 24-, 24- and 16-bit pieces, whose sums
// over at most 256 invocations fit a word, summed by subgroups, the subgroups' sums
// through workgroup memory. Call in uniform control flow.
//!import common/invocation
//!import common/wide
// Its totals come from each subgroup's last lane and count WG_SIZE / sg_size subgroups:
// a stage that uses it runs whole subgroups only.
//!whole_subgroups

// Subgroups of a workgroup, at most: 256 invocations in subgroups of at least 4.
const WG_SUM64_MAX_SUBGROUPS: u32 = 64u;
var<workgroup> wg_sum64_pieces: array<vec4<u32>, WG_SUM64_MAX_SUBGROUPS>;
var<workgroup> wg_sum64_tops: array<vec2<u32>, WG_SUM64_MAX_SUBGROUPS>;

// A (high, low) value's bits 0-23 and 24-47 (bits 48 up are summed apart).
fn wg_sum64_low_pieces(a: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.y & 0xffffffu, ((a.y >> 24u) | (a.x << 8u)) & 0xffffffu);
}

// The value whose bits 0-23 sum to `low.x`, 24-47 to `low.y` and 48 up to `top`.
fn wg_sum64_join(low: vec2<u32>, top: u32) -> vec2<u32> {
    let mid = vec2<u32>((low.y >> 8u) + (top << 16u), low.y << 24u);
    return add_wide(vec2<u32>(0u, low.x), mid);
}

fn wg_sum64_pairs(inv: Invocation, v: vec4<u32>) -> vec4<u32> {
    let pieces = subgroupAdd(vec4<u32>(wg_sum64_low_pieces(v.xy), wg_sum64_low_pieces(v.zw)));
    let tops = subgroupAdd(vec2<u32>(v.x >> 16u, v.z >> 16u));
    if inv.sg_lane == 0u {
        wg_sum64_pieces[inv.sg_id] = pieces;
        wg_sum64_tops[inv.sg_id] = tops;
    }
    workgroupBarrier();
    var p = vec4<u32>(0u);
    var t = vec2<u32>(0u);
    for (var s = 0u; s < WG_SIZE / inv.sg_size; s++) {
        p += wg_sum64_pieces[s];
        t += wg_sum64_tops[s];
    }
    // Before the next call writes over them.
    workgroupBarrier();
    return vec4<u32>(wg_sum64_join(p.xy, t.x), wg_sum64_join(p.zw, t.y));
}
