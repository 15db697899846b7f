// Su et al.'s forward scan (the CAVLCU paper's baseline, CAVLC_SU): one invocation per
// 4x4 block; a workgroup loads its macroblocks' levels coalesced into workgroup memory,
// each invocation zigzag-orders its block and writes the zigzag array and TotalCoeff
// (as neighbours count it) back to global memory for the backward scan.
// CPU twin: src/cavlc/su.rs `forward_cpu`.
//!import cavlc/frame

// Two vec4 per block: the 16 levels in scan order, i16 pairs.
@group(0) @binding(7) var<storage, read_write> su_zz: array<vec4<u32>>;
@group(0) @binding(10) var<storage, read_write> su_tc: array<u32>;

const SU_MBS: u32 = 8u; // macroblocks per workgroup: 8 * 24 = 192 invocations
var<workgroup> staged: array<vec4<u32>, 384>;

fn pair(a: i32, b: i32) -> u32 {
    return (u32(a) & 0xffffu) | (u32(b) << 16u);
}

@compute @workgroup_size(192)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let group = wid.y * nwg.x + wid.x;
    let first = group * SU_MBS * MB_BLOCKS * 2u;
    let n_vec = params.n_mbs * MB_BLOCKS * 2u;
    for (var k = 0u; k < 2u; k++) {
        let i = first + lid + k * 192u;
        if i < n_vec {
            staged[lid + k * 192u] = levels[i];
        }
    }
    workgroupBarrier();
    let mb = group * SU_MBS + lid / MB_BLOCKS;
    let blk = lid % MB_BLOCKS;
    if mb >= params.n_mbs {
        return;
    }
    let q0 = staged[lid * 2u];
    let q1 = staged[lid * 2u + 1u];
    let skip_dc = blk >= 16u || is_i16(headers[mb]);
    su_tc[mb * MB_BLOCKS + blk] = count_nonzero(q0, q1, skip_dc);
    let z = zigzag(q0, q1);
    let out = (mb * MB_BLOCKS + blk) * 2u;
    su_zz[out] = vec4<u32>(pair(z[0], z[1]), pair(z[2], z[3]), pair(z[4], z[5]), pair(z[6], z[7]));
    su_zz[out + 1u] = vec4<u32>(pair(z[8], z[9]), pair(z[10], z[11]), pair(z[12], z[13]), pair(z[14], z[15]));
}
