// The invocation of a 1-D workgroup, workgroup memory flavour.
// Twin of common/invocation_subgroup.wgsl: the same names, so stages compose with either.
// `lane` is the invocation's position in scan order; stages assign work by `lane`.

// Threads per workgroup; every stage uses @workgroup_size(WG_SIZE).
override WG_SIZE: u32 = 256u;

struct Invocation {
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
}

fn scan_lane(inv: Invocation) -> u32 {
    return inv.lid;
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
