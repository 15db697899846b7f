// TotalCoeff of a block's left or upper neighbour inside the same macroblock, workgroup
// memory flavour (twin of cavlc/nbr_subgroup.wgsl, the same names): every block's
// TotalCoeff is in `wg_tc` (24 per macroblock of the workgroup) after a barrier.
//!import common/invocation

// Macroblocks per workgroup, at most.
const MAX_REG: u32 = 16u;
var<workgroup> wg_tc: array<u32, 384>; // MAX_REG * 24

// `own`: this invocation's TotalCoeff; `delta`: how many invocations back the neighbour
// is; `index`: the neighbour's entry in wg_tc. Call in uniform control flow.
fn mb_neighbour_tc(inv: Invocation, own: u32, delta: u32, index: u32) -> u32 {
    return wg_tc[index];
}
