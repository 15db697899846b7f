// The operators the bit-stuffing scans combine (common/bitstuff_scan.wgsl and its subgroup
// twin): the vote's segmented run parity and the fsm's 16-state maps.

// Segmented scan element: head << 1 | run parity; a head restarts the run. Identity 0.
fn bs_seg_combine(a: u32, b: u32) -> u32 {
    if (b & 2u) != 0u {
        return b;
    }
    return (a & 2u) | ((a ^ b) & 1u);
}

// A map of the 16 writer states (f * 8 + phase): nibble s of .x (s < 8) or .y (s >= 8)
// is the image of s.
const BS_MAP_IDENTITY: vec2<u32> = vec2<u32>(0x76543210u, 0xfedcba98u);

fn bs_map_apply(m: vec2<u32>, s: u32) -> u32 {
    return (select(m.x, m.y, s >= 8u) >> (4u * (s & 7u))) & 15u;
}

// `b` after `a`.
fn bs_map_compose(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    var lo = 0u;
    var hi = 0u;
    for (var s = 0u; s < 8u; s++) {
        lo |= bs_map_apply(b, bs_map_apply(a, s)) << (4u * s);
        hi |= bs_map_apply(b, bs_map_apply(a, s + 8u)) << (4u * s);
    }
    return vec2<u32>(lo, hi);
}
