// TotalCoeff of a block's left or upper neighbour inside the same macroblock, subgroup
// flavour (twin of cavlc/nbr.wgsl): a shuffle from the invocation `delta` lanes back
// when it is in the same subgroup, workgroup memory otherwise (subgroups narrower than a
// macroblock's 16 invocations, e.g. 8 on lavapipe, split it).
//!import common/invocation

const MAX_REG: u32 = 16u;
var<workgroup> wg_tc: array<u32, 384>; // MAX_REG * 24

fn mb_neighbour_tc(inv: Invocation, own: u32, delta: u32, index: u32) -> u32 {
    let near = inv.sg_lane >= delta;
    let shuffled = subgroupShuffle(own, select(0u, inv.sg_lane - delta, near));
    if near {
        return shuffled;
    }
    return wg_tc[index];
}
