// The invocation of a 1-D workgroup, workgroup memory flavour.
// Twin of lib/invocation_subgroup.wgsl: the same names, so stages compose with either.
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
