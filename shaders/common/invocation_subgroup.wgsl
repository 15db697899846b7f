// The invocation of a 1-D workgroup, subgroup flavour (twin of common/invocation.wgsl).
// Scan order is (subgroup_id, subgroup_invocation_id): stages assign work by
// `scan_lane`, so the subgroup scan never depends on how a driver lays out subgroups.
// naga takes subgroup operations without an `enable` directive (gated by Features::SUBGROUP).

// Threads per workgroup; every stage uses @workgroup_size(WG_SIZE).
override WG_SIZE: u32 = 256u;

struct Invocation {
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(subgroup_invocation_id) sg_lane: u32,
    @builtin(subgroup_size) sg_size: u32,
    @builtin(subgroup_id) sg_id: u32,
}

fn scan_lane(inv: Invocation) -> u32 {
    return inv.sg_id * inv.sg_size + inv.sg_lane;
}

// The workgroup's index and the number of workgroups (x), as values that browsers'
// uniformity analysis (Tint) sees as workgroup-uniform: to it a struct parameter that
// also holds local_invocation_index is non-uniform as a whole, so a grid-stride loop
// bounded by `inv.wid.x` and `inv.nwg.x` may not contain a barrier. Call in uniform
// control flow (it is a barrier).
var<workgroup> workgroup_grid_xs: vec2<u32>;

fn workgroup_grid(inv: Invocation) -> vec2<u32> {
    if inv.lid == 0u {
        workgroup_grid_xs = vec2<u32>(inv.wid.x, inv.nwg.x);
    }
    return workgroupUniformLoad(&workgroup_grid_xs);
}
