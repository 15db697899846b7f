// The JPEG 2000 encoder's front end on the GPU: DC level shift + RCT, the reversible 5/3
// DWT (all levels) and the gather into the code-block batch. CPU twin: src/j2k/rct.rs,
// src/j2k/dwt.rs and `gather` in src/j2k/mod.rs; host: src/j2k/dwt_gpu.rs.
//
// Planes are `components` row-major `width` x `height` arrays of i32, back to back. Each
// level is two passes, columns (src -> dst) then rows (dst -> src): every invocation
// computes one low/high output pair straight from its five inputs (the lifting steps
// with the whole-sample symmetric extension folded into the index), so no invocation
// waits for another and every access is coalesced along x. The ping-pong leaves each
// level's result in the first buffer; what lies outside the level's LL region is never
// touched there, so earlier levels' subbands stay in place (Mallat layout, as dwt.rs).

// keep in sync with src/j2k/dwt_gpu.rs `DwtParams`
struct Params {
    // Region being transformed (the current LL), and the plane's full width.
    region_w: u32,
    region_h: u32,
    stride: u32,
    plane: u32,
    components: u32,
    // Invocations in x of the 2-D grid (workgroups in x times WG_SIZE).
    grid_x: u32,
    bit_depth: u32,
    n_blocks: u32,
    // 1: a byte a sample, four a word; 2: u16 samples, two a word.
    sample_bytes: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// keep in sync with src/j2k/dwt_gpu.rs `GpuBlock`
struct Block {
    offset: u32,
    x0: u32,
    y0: u32,
    width: u32,
    height: u32,
    component: u32,
    pad0: u32,
    pad1: u32,
}

override WG_SIZE: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
// Image samples interleaved by component: u16 two per word (the first in the low half),
// or bytes four per word (params.sample_bytes).
@group(0) @binding(1) var<storage, read> samples: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<i32>;
@group(0) @binding(3) var<storage, read_write> dst: array<i32>;
@group(0) @binding(4) var<storage, read> blocks: array<Block>;

fn linear_id(gid: vec3<u32>) -> u32 {
    return gid.x + gid.y * params.grid_x;
}

fn sample(i: u32) -> i32 {
    if params.sample_bytes == 1u {
        return i32((samples[i >> 2u] >> ((i & 3u) * 8u)) & 0xFFu);
    }
    return i32((samples[i >> 1u] >> ((i & 1u) * 16u)) & 0xFFFFu);
}

// DC level shift, and for RGB the RCT (T.800 G.1.2, G.2.1): samples -> dst planes.
@compute @workgroup_size(WG_SIZE)
fn rct(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = linear_id(gid);
    if p >= params.plane {
        return;
    }
    let shift = 1i << (params.bit_depth - 1u);
    if params.components == 1u {
        dst[p] = sample(p) - shift;
        return;
    }
    let r = sample(3u * p) - shift;
    let g = sample(3u * p + 1u) - shift;
    let b = sample(3u * p + 2u) - shift;
    // Arithmetic shift: floor division by 4, as div_euclid.
    dst[p] = (r + 2i * g + b) >> 2u;
    dst[params.plane + p] = b - g;
    dst[2u * params.plane + p] = r - g;
}

// One line of the 5/3 analysis in src: `n` samples at base + i * step.
struct Line {
    base: u32,
    step: u32,
    n: i32,
}

fn x_at(line: Line, i: i32) -> i32 {
    return src[line.base + u32(i) * line.step];
}

// Whole-sample symmetric extension of index i in -1..=n (n >= 2).
fn mirror(i: i32, n: i32) -> i32 {
    if i < 0 {
        return -i;
    }
    if i >= n {
        return 2i * (n - 1i) - i;
    }
    return i;
}

// The predicted (high-pass) value at odd index j < n.
fn predict(line: Line, j: i32) -> i32 {
    return x_at(line, j) - ((x_at(line, j - 1i) + x_at(line, mirror(j + 1i, line.n))) >> 1u);
}

// Low output k (at k) and high output k (at ceil(n/2) + k, when 2k + 1 < n) of the line.
fn analyse(line: Line, k: i32, out_base: u32) {
    let n = line.n;
    let l = (n + 1i) / 2i;
    if n == 1i {
        // A single sample passes through (F.3.7, even start).
        dst[out_base] = x_at(line, 0i);
        return;
    }
    let i = 2i * k;
    let d_left = predict(line, mirror(i - 1i, n));
    let d_right = predict(line, mirror(i + 1i, n));
    dst[out_base + u32(k) * line.step] = x_at(line, i) + ((d_left + d_right + 2i) >> 2u);
    if i + 1i < n {
        // mirror(i + 1) == i + 1 here, so d_right is this pair's high-pass value.
        dst[out_base + u32(l + k) * line.step] = d_right;
    }
}

// Vertical pass of one level: every column x < region_w, ceil(region_h / 2) pairs each.
@compute @workgroup_size(WG_SIZE)
fn columns(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = linear_id(gid);
    let w = params.region_w;
    let pairs = (params.region_h + 1u) / 2u;
    if t >= w * pairs * params.components {
        return;
    }
    let x = t % w;
    let rest = t / w;
    let k = rest % pairs;
    let c = rest / pairs;
    let base = c * params.plane + x;
    analyse(Line(base, params.stride, i32(params.region_h)), i32(k), base);
}

// Horizontal pass of one level: every row y < region_h, ceil(region_w / 2) pairs each.
@compute @workgroup_size(WG_SIZE)
fn rows(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = linear_id(gid);
    let pairs = (params.region_w + 1u) / 2u;
    if t >= pairs * params.region_h * params.components {
        return;
    }
    let k = t % pairs;
    let rest = t / pairs;
    let y = rest % params.region_h;
    let c = rest / params.region_h;
    let base = c * params.plane + y * params.stride;
    analyse(Line(base, 1u, i32(params.region_w)), i32(k), base);
}

// Copy each code-block out of the planes (src), row-major, to its batch offset in dst:
// one workgroup per block.
@compute @workgroup_size(WG_SIZE)
fn gather(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let index = wid.x + wid.y * nwg.x;
    if index >= params.n_blocks {
        return;
    }
    let b = blocks[index];
    let n = b.width * b.height;
    let base = b.component * params.plane + b.y0 * params.stride + b.x0;
    for (var i = lid; i < n; i += WG_SIZE) {
        let y = i / b.width;
        let x = i - y * b.width;
        dst[b.offset + i] = src[base + y * params.stride + x];
    }
}
