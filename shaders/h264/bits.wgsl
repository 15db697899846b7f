// The CAVLC bits of residual blocks, one invocation a block: the count the intra front
// end's rate-distortion decisions make (h264/rate.wgsl `block_bits`), run as a stage of
// its own so that it can be held to its twin, src/cavlc/cpu.rs `block_bits_nc`
// (src/h264/bits.rs runs it).

//!import h264/rate

// keep in sync with src/h264/bits.rs `BitsQuery`
struct BitsQuery {
    // The block's levels in scan order.
    levels: array<i32, 16>,
    // The levels counted: `n` (16, or 15 for an AC block) from position `first`.
    first: u32,
    n: u32,
    nc: u32,
    pad: u32,
}

@group(0) @binding(0) var<storage, read> queries: array<BitsQuery>;
@group(0) @binding(1) var<storage, read_write> bits: array<u32>;

@compute @workgroup_size(64)
fn count(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&queries) {
        return;
    }
    let q = queries[i];
    bits[i] = block_bits(array_block(q.levels), q.first, q.n, q.nc);
}
