// Workgroup-wide sums of two 64-bit values an invocation, each as (high, low) words
// (common/wide): (x, y) and (z, w) of a vec4, every value below 2^56. Twin of
// huffman/wg_sum64_subgroup.wgsl. Call in uniform control flow; the result is the same
// in every invocation (though not uniform to the analysis: read from workgroup memory).
//!import common/invocation
//!import common/wide

var<workgroup> wg_sum64_partial: array<vec4<u32>, 256>;

fn wg_sum64_pairs(inv: Invocation, v: vec4<u32>) -> vec4<u32> {
    let lid = inv.lid;
    wg_sum64_partial[lid] = v;
    workgroupBarrier();
    for (var stride = WG_SIZE / 2u; stride > 0u; stride >>= 1u) {
        if lid < stride {
            let a = wg_sum64_partial[lid];
            let b = wg_sum64_partial[lid + stride];
            wg_sum64_partial[lid] = vec4<u32>(add_wide(a.xy, b.xy), add_wide(a.zw, b.zw));
        }
        workgroupBarrier();
    }
    let total = wg_sum64_partial[0];
    // Before the next call writes over it.
    workgroupBarrier();
    return total;
}
