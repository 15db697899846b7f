// A chunk's frames planned on the GPU from its cell histograms: `merge` (a workgroup a
// region) joins neighbouring cells while one code for both is estimated to cost less
// than two codes and a second header, and `code_lengths` (a workgroup a frame) builds
// each frame's code lengths, so that the host only turns lengths into codes and headers.
// CPU twin: src/huffman/frames.rs `plan_frames`: the same estimate in the same fixed
// point (exact integer sums, so any order gives the same cuts), and the lengths of
// code_lengths.rs's plain Huffman construction (sorted by count then symbol, two queues,
// the leaf first on a tie). A frame whose plain code is longer than the limit is left
// to the host (package-merge), flagged by its deepest leaf.
// Both run at WG_SIZE = 256: an invocation a byte value.
//!import common/invocation
//!import huffman/wg_sum64
//!import common/wide
//!import huffman/plan_words

struct FramePlanParams {
    n_cells: u32,
    cells_per_region: u32, // frames never cross a region
    cell_bytes: u32,
    last_cell_bytes: u32,
    alphabet: u32,     // 256, or 257: the end-of-block symbol, counted once
    fixed: u32,        // 1: every cell a frame
    threshold_lo: u32, // what a second header costs, in the estimate's fixed point
    threshold_hi: u32,
}
// keep in sync with src/huffman/frame_plan.rs `FramePlanParams`
@group(0) @binding(0) var<uniform> params: FramePlanParams;
// round(log2(1 + i / 256) * 2^16) for i in 0..=256 (src/huffman/frames.rs
// `log2_segments`).
@group(0) @binding(1) var<storage, read> log2_segments: array<u32>;
// 256 counts a cell.
@group(0) @binding(2) var<storage, read> cells: array<u32>;
// The plan, laid out as huffman/plan_words.wgsl says.
@group(0) @binding(3) var<storage, read_write> plan: array<u32>;

// a - b, or 0 where b > a: (high, low) words, as common/wide.
fn sub_sat_wide(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if le_wide(a, b) {
        return vec2<u32>(0u, 0u);
    }
    return vec2<u32>(a.x - b.x - select(0u, 1u, a.y < b.y), a.y - b.y);
}

var<workgroup> segments: array<u32, 257>;

// Call first, in uniform control flow.
fn load_segments(lid: u32) {
    for (var i = lid; i < 257u; i += WG_SIZE) {
        segments[i] = log2_segments[i];
    }
    workgroupBarrier();
}

// log2(f) in fixed point: the leading bit's place, then the 24 bits below it between
// the nearest two of 256 segments' ends (frames.rs `fixed_log2`).
fn fixed_log2(f: u32) -> u32 {
    if f < 2u {
        return 0u;
    }
    let e = 31u - countLeadingZeros(f);
    var below = f << (24u - min(e, 24u));
    if e > 24u {
        below = f >> (e - 24u);
    }
    below &= 0xffffffu;
    let i = below >> 16u;
    let a = segments[i];
    let b = segments[i + 1u];
    return (e << 16u) + a + (((b - a) * (below & 0xffffu)) >> 16u);
}

fn term(f: u32) -> vec2<u32> {
    return mul_wide(f, fixed_log2(f));
}

// Estimated code bits of `n` bytes whose counts' terms sum to `sum`.
fn entropy_bits(n: u32, sum: vec2<u32>) -> vec2<u32> {
    return sub_sat_wide(term(n), sum);
}

fn cell_len(c: u32) -> u32 {
    return select(params.cell_bytes, params.last_cell_bytes, c + 1u == params.n_cells);
}

// A frame of `n` cells from cell `first`, whose count of this invocation's byte value is
// `count`.
fn emit(s: u32, first: u32, n: u32, count: u32) {
    plan[plan_hist(params.n_cells, first) + s] = count;
    if s == 0u {
        plan[first] = n;
    }
}

// One region at a time (its cells a serial chain of decisions), an invocation a byte
// value: a decision's terms spread over the workgroup (one warp's serial arithmetic
// measured slower than the wider reduction). The next cell's counts are loaded while a
// decision is made.
@compute @workgroup_size(WG_SIZE)
fn merge(inv: Invocation) {
    let s = inv.lid;
    load_segments(s);
    let grid = workgroup_grid(inv);
    let per_region = params.cells_per_region;
    let n_regions = (params.n_cells + per_region - 1u) / per_region;
    let threshold = vec2<u32>(params.threshold_hi, params.threshold_lo);
    for (var r = grid.x; r < n_regions; r += grid.y) {
        let begin = r * per_region;
        let end = min(begin + per_region, params.n_cells);
        let last = end - 1u;
        var acc = cells[begin * 256u + s];
        var acc_n = cell_len(begin);
        var cost_acc = entropy_bits(acc_n, wg_sum64_pairs(inv, vec4<u32>(term(acc), 0u, 0u)).xy);
        var first = begin;
        var n = 1u;
        var next = cells[min(begin + 1u, last) * 256u + s];
        for (var c = begin + 1u; c < end; c++) {
            let h = next;
            next = cells[min(c + 1u, last) * 256u + s];
            let h_n = cell_len(c);
            var take = false;
            var cost_h = vec2<u32>(0u, 0u);
            if params.fixed == 0u {
                // The cell's estimate and the merged one, from one reduction.
                let total = wg_sum64_pairs(inv, vec4<u32>(term(h), term(acc + h)));
                cost_h = entropy_bits(h_n, total.xy);
                let cost_merged = entropy_bits(acc_n + h_n, total.zw);
                take = le_wide(cost_merged, add_wide(add_wide(cost_acc, cost_h), threshold));
                if take {
                    cost_acc = cost_merged;
                }
            }
            if take {
                acc += h;
                acc_n += h_n;
                n += 1u;
            } else {
                emit(s, first, n, acc);
                acc = h;
                acc_n = h_n;
                cost_acc = cost_h;
                first = c;
                n = 1u;
            }
        }
        emit(s, first, n, acc);
    }
}

var<workgroup> frame_cells: u32;
// The frame's counts, four a word (symbols 4q to 4q + 3 at q), zero past the alphabet:
// the rank sort reads four a load.
var<workgroup> counts: array<vec4<u32>, 65>;
// The sorted leaves; once the tree is built, its nodes' distances to `jump` (nodes from
// `k + 2`, as code_lengths.rs `huffman_depths` numbers them).
var<workgroup> weight: array<u32, 516>;
var<workgroup> parent: array<u32, 516>;
// Pointer jumping over the inner nodes: each one's farthest ancestor reached so far.
var<workgroup> jump: array<u32, 516>;
var<workgroup> leaf_symbol: array<u32, 260>;
var<workgroup> used: u32;
var<workgroup> lengths: array<u32, 260>;
var<workgroup> deepest: atomic<u32>;
var<workgroup> code_bits: atomic<u32>;

// The tree's build in rounds: the front of both queues (leaves, then nodes made) as one
// ordered sequence, two of them to swap between, and the entries each front's round
// pairs (two, to swap with them).
var<workgroup> front_weight: array<array<u32, 260>, 2>;
var<workgroup> front_node: array<array<u32, 260>, 2>;
var<workgroup> round_items: array<u32, 2>;

// Of front `f`, whose first `2 pairs` entries a round pairs: the weight of the node
// made from pair `j`, and of the `i`th entry left after the pairs. Both sorted.
fn made_weight(f: u32, j: u32) -> u32 {
    return front_weight[f][2u * j] + front_weight[f][2u * j + 1u];
}

fn rest_weight(f: u32, pairs: u32, i: u32) -> u32 {
    return front_weight[f][2u * pairs + i];
}

// How many of the round's made nodes weigh less than `w` (or at most `w`, `or_equal`).
fn made_below(f: u32, pairs: u32, w: u32, or_equal: bool) -> u32 {
    var lo = 0u;
    var hi = pairs;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        let m = made_weight(f, mid);
        if m < w || (or_equal && m == w) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// How many of the `rest` entries left after the round's pairs weigh at most `w`.
fn rest_at_most(f: u32, pairs: u32, rest: u32, w: u32) -> u32 {
    var lo = 0u;
    var hi = rest;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if rest_weight(f, pairs, mid) <= w {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// The entries of the next front (the rest of front `f` merged with the nodes made from
// its `pairs`) that its round pairs: those of at most its two lightest together.
fn next_round_items(f: u32, pairs: u32, rest: u32) -> u32 {
    var i = 0u;
    var j = 0u;
    var t = 0u;
    for (var taken = 0u; taken < 2u; taken++) {
        // (Which of two of one weight comes first does not change the sum.)
        if i < rest && (j >= pairs || rest_weight(f, pairs, i) <= made_weight(f, j)) {
            t += rest_weight(f, pairs, i);
            i++;
        } else {
            t += made_weight(f, j);
            j++;
        }
    }
    return rest_at_most(f, pairs, rest, t) + made_below(f, pairs, t, true);
}

// The tree over the `k >= 2` sorted leaves in `weight`: each node's parent in `parent`,
// nodes numbered from `k + 2` in the order the twin makes them (two queues, the smaller
// front first, the leaf on a tie). In rounds, by the whole workgroup, in uniform control
// flow: the first node made weighs t = the two lightest, and every entry of the front
// that weighs at most t comes before it (a leaf on a tie, or a node made earlier), so the
// twin pairs those entries in order before it uses any node it makes now: a round makes
// all those pairs at once and merges them into the rest of the front, while one
// invocation finds what the next round pairs, so a round costs one barrier. Rounds are
// as many as the tree's levels on most data; a chain of one pair a round (Fibonacci
// counts) is as long as the serial build. Returns the rounds: no leaf is deeper (a node
// made in a round is paired in a later one).
fn huffman_tree(lid: u32, k: u32) -> u32 {
    for (var i = lid; i < k; i += WG_SIZE) {
        front_weight[0][i] = weight[i];
        front_node[0][i] = i;
    }
    if lid == 0u {
        // The first round: the leaves of at most the two lightest together.
        let t = weight[0] + weight[1];
        var lo = 2u;
        var hi = k;
        while lo < hi {
            let mid = (lo + hi) / 2u;
            if weight[mid] <= t {
                lo = mid + 1u;
            } else {
                hi = mid;
            }
        }
        round_items[0] = lo;
    }
    var cur = 0u;
    var n = k;
    var next_node = k + 2u;
    var rounds = 0u;
    var pairs = workgroupUniformLoad(&round_items[0]) / 2u;
    loop {
        let rest = n - 2u * pairs;
        let to = cur ^ 1u;
        // Each made node goes after the rest's entries of at most its weight (leaves, or
        // made earlier), each entry of the rest before the made nodes of at least its
        // weight.
        for (var j = lid; j < pairs; j += WG_SIZE) {
            let node = next_node + j;
            parent[front_node[cur][2u * j]] = node;
            parent[front_node[cur][2u * j + 1u]] = node;
            let w = made_weight(cur, j);
            let at = j + rest_at_most(cur, pairs, rest, w);
            front_weight[to][at] = w;
            front_node[to][at] = node;
        }
        for (var i = lid; i < rest; i += WG_SIZE) {
            let w = rest_weight(cur, pairs, i);
            let at = i + made_below(cur, pairs, w, false);
            front_weight[to][at] = w;
            front_node[to][at] = front_node[cur][2u * pairs + i];
        }
        let left = n - pairs;
        if lid == 0u && left > 1u {
            round_items[to] = next_round_items(cur, pairs, rest);
        }
        rounds += 1u;
        next_node += pairs;
        n = left;
        cur = to;
        if n <= 1u {
            break;
        }
        pairs = workgroupUniformLoad(&round_items[cur]) / 2u;
    }
    return rounds;
}

@compute @workgroup_size(WG_SIZE)
fn code_lengths(inv: Invocation) {
    let lid = inv.lid;
    let grid = workgroup_grid(inv);
    let alphabet = params.alphabet;
    for (var c = grid.x; c < params.n_cells; c += grid.y) {
        if lid == 0u {
            frame_cells = plan[c];
            atomicStore(&deepest, 0u);
            atomicStore(&code_bits, 0u);
        }
        if workgroupUniformLoad(&frame_cells) == 0u {
            continue;
        }
        for (var s = lid; s < 260u; s += WG_SIZE) {
            var f = 0u;
            if s < alphabet {
                f = select(1u, plan[plan_hist(params.n_cells, c) + s], s < 256u);
            }
            counts[s / 4u][s % 4u] = f;
            lengths[s] = 0u;
        }
        workgroupBarrier();
        // The used symbols in order of (count, symbol), by rank: each invocation counts
        // the used symbols before its own in one pass over the counts (four a load, the
        // same words for the whole workgroup) and places its own; one barrier, where a
        // sorting network of the 512 entries took 45.
        var used_seen = 0u;
        for (var s = lid; s < alphabet; s += WG_SIZE) {
            let f = counts[s / 4u][s % 4u];
            let mine = vec4<u32>(f);
            var rank = 0u;
            var nonzero = vec4<u32>(0u);
            for (var q = 0u; q < 65u; q++) {
                let g = counts[q];
                let e = vec4<u32>(4u * q) + vec4<u32>(0u, 1u, 2u, 3u);
                let before = (g != vec4<u32>(0u)) & ((g < mine) | ((g == mine) & (e < vec4<u32>(s))));
                let b = select(vec4<u32>(0u), vec4<u32>(1u), before);
                rank += b.x + b.y + b.z + b.w;
                nonzero += select(vec4<u32>(0u), vec4<u32>(1u), g != vec4<u32>(0u));
            }
            if f > 0u {
                weight[rank] = f;
                leaf_symbol[rank] = s;
            }
            used_seen = nonzero.x + nonzero.y + nonzero.z + nonzero.w;
        }
        if lid == 0u {
            used = used_seen;
        }
        let k = workgroupUniformLoad(&used);
        if lid == 0u && k == 1u {
            // One symbol: it and the first other symbol get one bit each.
            let s = leaf_symbol[0];
            lengths[s] = 1u;
            lengths[select(0u, 1u, s == 0u)] = 1u;
            atomicStore(&deepest, 1u);
        }
        var rounds = 0u;
        if k >= 2u {
            rounds = huffman_tree(lid, k);
        }
        workgroupBarrier();
        // Inner nodes' depths by pointer jumping (the tree is done with `weight`: it
        // holds the distance to `jump`): no inner node is deeper than the tree's rounds
        // less one, and each jump doubles the reach.
        let root = 2u * k;
        let x = k + 2u + lid;
        let in_tree = k >= 2u && x <= root;
        if in_tree {
            jump[x] = select(parent[x], x, x == root);
            weight[x] = select(1u, 0u, x == root);
        }
        workgroupBarrier();
        for (var reach = 1u; reach < rounds; reach *= 2u) {
            var to = 0u;
            var gained = 0u;
            if in_tree {
                let j = jump[x];
                gained = weight[j];
                to = jump[j];
            }
            workgroupBarrier();
            if in_tree {
                weight[x] += gained;
                jump[x] = to;
            }
            workgroupBarrier();
        }
        // Each leaf's depth: its parent's, plus one.
        if k >= 2u {
            for (var r = lid; r < k; r += WG_SIZE) {
                let d = weight[parent[r]] + 1u;
                lengths[leaf_symbol[r]] = d;
                atomicMax(&deepest, d);
            }
        }
        workgroupBarrier();
        // Code bits of the frame's bytes (no end-of-block).
        var bits = 0u;
        for (var s = lid; s < 256u; s += WG_SIZE) {
            bits += counts[s / 4u][s % 4u] * lengths[s];
        }
        atomicAdd(&code_bits, bits);
        for (var w = lid; w < PLAN_LENGTH_WORDS; w += WG_SIZE) {
            let b = 4u * w;
            plan[plan_lengths(params.n_cells, c) + w] = lengths[b] | (lengths[b + 1u] << 8u)
                | (lengths[b + 2u] << 16u) | (lengths[b + 3u] << 24u);
        }
        workgroupBarrier();
        if lid == 0u {
            plan[plan_info(params.n_cells, c)] = atomicLoad(&code_bits);
            plan[plan_info(params.n_cells, c) + 1u] = atomicLoad(&deepest);
        }
    }
}
