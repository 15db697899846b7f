// 64-bit arithmetic for the codecs' sums and costs (WGSL has no u64): values as
// (high, low) words.

// a * b.
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

// a + b (modulo 2^64).
fn add_wide(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let low = a.y + b.y;
    return vec2<u32>(a.x + b.x + select(0u, 1u, low < a.y), low);
}

// a <= b.
fn le_wide(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x < b.x || (a.x == b.x && a.y <= b.y);
}
