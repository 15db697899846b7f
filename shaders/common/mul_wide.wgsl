// A full 32 x 32-bit product, for the codecs' 64-bit sums and costs (WGSL has no u64).

// a * b as (high, low) words.
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let al = a & 0xffffu;
    let ah = a >> 16u;
    let bl = b & 0xffffu;
    let bh = b >> 16u;
    let ll = al * bl;
    let lh = al * bh;
    let hl = ah * bl;
    let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
    return vec2<u32>(ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u), (ll & 0xffffu) | (mid << 16u));
}
