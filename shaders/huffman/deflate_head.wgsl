// A gzip frame's DEFLATE dynamic block header (BFINAL = 0) from the code lengths the
// frame plan built (shaders/huffman/frame_plan.wgsl), in the plan's submission: the host
// then lays frames out and writes their headers without building any (that was a gzip
// chunk's largest host cost before its encode: docs/results.md, "Thirtieth pass").
// CPU twin: src/huffman/gzip.rs `deflate_block_header_with`, bit for bit: the same
// run-length coding of the lengths, the code-length code by code_lengths.rs (sorted by
// count then symbol, two-queue Huffman with the leaf first on a tie, package-merge where
// it is deeper than 7 bits), canonical codes, and the same field order.
// A workgroup a frame, an invocation a code length or two: each run of equal lengths is
// coded by the invocation where it starts, which counts its code-length symbols; each
// used symbol's invocation ranks it; one invocation builds the 19-symbol code-length
// code; then each run sums its bits, finds where they go by a workgroup scan and ORs them
// into the header's words. An invocation a frame, serially, measured 2-3 ms of GPU time
// a chunk on the H200, this shape 37-46 us (docs/results.md, "Thirtieth pass").
//!import common/invocation
//!import common/wg_scan
//!import huffman/plan_words

struct DeflateHeadParams {
    n_cells: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}
// keep in sync with src/huffman/deflate_head.rs `DeflateHeadParams`
@group(0) @binding(0) var<uniform> params: DeflateHeadParams;
// The frame plan's words, laid out as huffman/plan_words.wgsl says.
@group(0) @binding(1) var<storage, read> plan: array<u32>;
// HEAD_WORDS a cell: the header's bits (0: no header, where no frame starts or its code
// is deeper than DEFLATE's 15 bits and the host builds it), then its bits, LSB first,
// four bytes a word, the first in the low byte.
@group(0) @binding(2) var<storage, read_write> heads: array<u32>;

// keep in sync with src/huffman/deflate_head.rs
const HEAD_WORDS: u32 = 117u;
const LITERALS: u32 = 257u;
// The lengths a header codes: the literals', then the one distance code's.
const LENGTHS: u32 = LITERALS + 1u;
const MAX_LITERAL_LEN: u32 = 15u;
// The code-length code: 19 symbols of at most 7 bits.
const CL_SYMBOLS: u32 = 19u;
const CL_MAX_LEN: u32 = 7u;
const NONE: u32 = 0xffffffffu;

// The frame's code lengths, and the 258th: the one distance code's (1 bit).
var<workgroup> lens: array<u32, LENGTHS>;
var<workgroup> cl_count: array<atomic<u32>, 19>;
// The code-length code (one invocation builds it): lengths, codes first bit lowest, and
// the header's bits before the run-length coded lengths.
var<workgroup> cl_len_wg: array<u32, 19>;
var<workgroup> cl_lsb_wg: array<u32, 19>;
var<workgroup> fixed_bits: u32;
var<workgroup> head: array<atomic<u32>, HEAD_WORDS - 1u>;
// The invocation's private copy of the code-length code, for cl_code_lengths.
var<private> cl_freq: array<u32, 19>;
var<private> cl_len: array<u32, 19>;

fn extra_bits(s: u32) -> u32 {
    return select(select(select(0u, 7u, s == 18u), 3u, s == 17u), 2u, s == 16u);
}

// What the run-length coding of one run does: count its symbols (CL_COUNT), sum their
// bits (CL_BITS) or write them from bit `at` (CL_WRITE). Returns the bits summed.
const CL_COUNT: u32 = 0u;
const CL_BITS: u32 = 1u;
const CL_WRITE: u32 = 2u;

fn put_head_bits(at: u32, value: u32, len: u32) {
    let w = at / 32u;
    let b = at % 32u;
    atomicOr(&head[w], value << b);
    if b + len > 32u {
        atomicOr(&head[w + 1u], value >> (32u - b));
    }
}

fn entry(s: u32, extra: u32, mode: u32, at: u32) -> u32 {
    if mode == CL_COUNT {
        atomicAdd(&cl_count[s], 1u);
        return 0u;
    }
    let len = cl_len_wg[s] + extra_bits(s);
    if mode == CL_WRITE {
        put_head_bits(at, cl_lsb_wg[s] | (extra << cl_len_wg[s]), len);
    }
    return len;
}

// RFC 1951's run-length coding of the run of `run` lengths `v`, as gzip.rs
// `rle_code_lengths` codes it: zeros by 17 and 18, repeats of a length by 16 after the
// length itself.
fn code_run(v: u32, run_in: u32, mode: u32, at_in: u32) -> u32 {
    var run = run_in;
    var at = at_in;
    if v == 0u {
        while run >= 11u {
            let r = min(run, 138u);
            at += entry(18u, r - 11u, mode, at);
            run -= r;
        }
        if run >= 3u {
            at += entry(17u, run - 3u, mode, at);
            run = 0u;
        }
    } else {
        at += entry(v, 0u, mode, at);
        run -= 1u;
        while run >= 3u {
            let r = min(run, 6u);
            at += entry(16u, r - 3u, mode, at);
            run -= r;
        }
    }
    for (var k = 0u; k < run; k++) {
        at += entry(v, 0u, mode, at);
    }
    return at - at_in;
}

// The runs that start at this invocation's lengths (consecutive ones, in scan order),
// coded as `mode` says from bit `at`; returns their bits. Counting finds each run's
// length (`run_len`, 0 where no run starts), which the later modes take.
var<workgroup> run_len: array<u32, LENGTHS>;

fn code_runs(lane: u32, mode: u32, at_in: u32) -> u32 {
    var at = at_in;
    let per_lane = (LENGTHS + WG_SIZE - 1u) / WG_SIZE;
    let last = min(lane * per_lane + per_lane, LENGTHS);
    for (var i = lane * per_lane; i < last; i++) {
        let v = lens[i];
        if mode == CL_COUNT {
            var run = 0u;
            if i == 0u || lens[i - 1u] != v {
                run = 1u;
                while i + run < LENGTHS && lens[i + run] == v {
                    run += 1u;
                }
            }
            run_len[i] = run;
        }
        let run = run_len[i];
        if run != 0u {
            at += code_run(v, run, mode, at);
        }
    }
    return at - at_in;
}

// code_lengths.rs `huffman_depths` over the `k` sorted leaves in `weight[..k]`: the
// leaves' depths into `depth[..k]`; returns the deepest.
var<private> weight: array<u32, 40>;
var<private> parent: array<u32, 40>;
var<private> depth: array<u32, 19>;

fn huffman_depths(k: u32) -> u32 {
    let first = k + 2u;
    for (var i = k; i < 2u * k + 2u; i++) {
        weight[i] = NONE;
    }
    var leaf = 0u;
    var inner = first;
    var lw = weight[0];
    var iw = NONE;
    for (var node = first; node < 2u * k + 1u; node++) {
        var sum = 0u;
        for (var p = 0u; p < 2u; p++) {
            let next_lw = weight[leaf + 1u];
            let next_iw = weight[inner + 1u];
            let take_leaf = lw <= iw;
            parent[select(inner, leaf, take_leaf)] = node;
            sum += select(iw, lw, take_leaf);
            lw = select(lw, next_lw, take_leaf);
            iw = select(next_iw, iw, take_leaf);
            leaf += select(0u, 1u, take_leaf);
            inner += select(1u, 0u, take_leaf);
        }
        weight[node] = sum;
        if inner == node {
            iw = sum;
        }
    }
    let root = 2u * k;
    parent[root] = 0u;
    for (var node = root - 1u; node >= first; node--) {
        parent[node] = parent[parent[node]] + 1u;
    }
    var deepest = 0u;
    for (var l = 0u; l < k; l++) {
        let d = parent[parent[l]] + 1u;
        depth[l] = d;
        deepest = max(deepest, d);
    }
    return deepest;
}

// code_lengths.rs `package_merge_small` for the `k` sorted leaves in `leaves[..k]`, codes
// of at most CL_MAX_LEN bits: the leaves' depths into `depth[..k]`. A level's list holds
// at most 2k - 1 < 64 entries, its leaves kept as a two-word mask.
var<private> leaves: array<u32, 20>;
var<private> current: array<u32, 40>;
var<private> packages: array<u32, 20>;

fn package_merge(k: u32) {
    var mask_lo: array<u32, 7>;
    var mask_hi: array<u32, 7>;
    var list_len: array<u32, 7>;
    leaves[k] = NONE;
    for (var i = 0u; i < k; i++) {
        current[i] = leaves[i];
        depth[i] = 0u;
    }
    var current_len = k;
    mask_lo[0] = (1u << k) - 1u;
    mask_hi[0] = 0u;
    list_len[0] = k;
    for (var level = 1u; level < CL_MAX_LEN; level++) {
        let n_packages = current_len / 2u;
        for (var j = 0u; j < 20u; j++) {
            packages[j] = NONE;
        }
        for (var j = 0u; j < n_packages; j++) {
            packages[j] = current[2u * j] + current[2u * j + 1u];
        }
        // Merged, a leaf first on a tie.
        var i = 0u;
        var j = 0u;
        var lo = 0u;
        var hi = 0u;
        for (var at = 0u; at < k + n_packages; at++) {
            let take_leaf = leaves[i] <= packages[j];
            current[at] = select(packages[j], leaves[i], take_leaf);
            if take_leaf {
                if at < 32u {
                    lo |= 1u << at;
                } else {
                    hi |= 1u << (at - 32u);
                }
                i += 1u;
            } else {
                j += 1u;
            }
        }
        current_len = k + n_packages;
        mask_lo[level] = lo;
        mask_hi[level] = hi;
        list_len[level] = current_len;
    }
    // From the shallowest level down.
    var take = 2u * k - 2u;
    for (var level = CL_MAX_LEN; level > 0u; level--) {
        if take == 0u {
            break;
        }
        let l = level - 1u;
        let selected = min(take, list_len[l]);
        var n_leaves = 0u;
        if selected >= 32u {
            n_leaves = countOneBits(mask_lo[l]) + countOneBits(mask_hi[l] & ((1u << (selected - 32u)) - 1u));
        } else {
            n_leaves = countOneBits(mask_lo[l] & ((1u << selected) - 1u));
        }
        for (var d = 0u; d < n_leaves; d++) {
            depth[d] += 1u;
        }
        take = 2u * (selected - n_leaves);
    }
}

// The used code-length symbols by count, ties in symbol order (code_lengths.rs's stable
// sort), each placed at its rank by its own invocation; `cl_used` of them.
var<workgroup> cl_order: array<u32, 19>;
var<workgroup> cl_used: atomic<u32>;

fn rank_cl_symbols(lid: u32) {
    if lid < CL_SYMBOLS {
        let f = atomicLoad(&cl_count[lid]);
        if f > 0u {
            var rank = 0u;
            for (var t = 0u; t < CL_SYMBOLS; t++) {
                let g = atomicLoad(&cl_count[t]);
                rank += select(0u, 1u, g > 0u && (g < f || (g == f && t < lid)));
            }
            cl_order[rank] = lid;
            atomicAdd(&cl_used, 1u);
        }
    }
}

// code_lengths.rs `code_lengths(cl_freq, 7)` into `cl_len`, the symbols ranked.
fn cl_code_lengths() {
    let k = atomicLoad(&cl_used);
    for (var s = 0u; s < CL_SYMBOLS; s++) {
        cl_len[s] = 0u;
    }
    if k == 1u {
        // One symbol: it and the lowest other get a bit each, so the code is complete.
        cl_len[cl_order[0]] = 1u;
        cl_len[select(0u, 1u, cl_order[0] == 0u)] = 1u;
        return;
    }
    for (var i = 0u; i < k; i++) {
        weight[i] = cl_freq[cl_order[i]];
        leaves[i] = weight[i];
    }
    if huffman_depths(k) > CL_MAX_LEN {
        package_merge(k);
    }
    for (var i = 0u; i < k; i++) {
        cl_len[cl_order[i]] = depth[i];
    }
}

// Canonical codes of `cl_len` (RFC 1951 3.2.2), first bit lowest, into `cl_lsb_wg`.
fn cl_codes() {
    var count: array<u32, 8>;
    for (var s = 0u; s < CL_SYMBOLS; s++) {
        count[cl_len[s]] += 1u;
    }
    count[0] = 0u;
    var next: array<u32, 8>;
    var code = 0u;
    for (var bits = 1u; bits <= CL_MAX_LEN; bits++) {
        code = (code + count[bits - 1u]) << 1u;
        next[bits] = code;
    }
    for (var s = 0u; s < CL_SYMBOLS; s++) {
        let l = cl_len[s];
        cl_len_wg[s] = l;
        if l > 0u {
            cl_lsb_wg[s] = reverseBits(next[l]) >> (32u - l);
            next[l] += 1u;
        } else {
            cl_lsb_wg[s] = 0u;
        }
    }
}

// Order in which the code-length code's lengths are stored (RFC 1951 3.2.7).
const CL_ORDER = array<u32, 19>(16u, 17u, 18u, 0u, 8u, 7u, 9u, 6u, 10u, 5u, 11u, 4u, 12u, 3u, 13u, 2u, 14u, 1u, 15u);

// The code-length code and the header's fields before the coded lengths, by one
// invocation: BFINAL, BTYPE, HLIT, HDIST, HCLEN and the code-length code's lengths.
fn code_length_code() {
    for (var s = 0u; s < CL_SYMBOLS; s++) {
        cl_freq[s] = atomicLoad(&cl_count[s]);
    }
    cl_code_lengths();
    cl_codes();
    var n_cl = 4u;
    for (var p = 0u; p < CL_SYMBOLS; p++) {
        if cl_len[CL_ORDER[p]] != 0u {
            n_cl = max(n_cl, p + 1u);
        }
    }
    // BFINAL 0, BTYPE 10 (dynamic), HLIT 0 (257 codes), HDIST 0 (one distance code).
    put_head_bits(0u, 4u, 13u);
    put_head_bits(13u, n_cl - 4u, 4u);
    for (var p = 0u; p < n_cl; p++) {
        put_head_bits(17u + 3u * p, cl_len[CL_ORDER[p]], 3u);
    }
    fixed_bits = 17u + 3u * n_cl;
}

var<workgroup> header_here: u32;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    let lane = scan_lane(inv);
    let grid = workgroup_grid(inv);
    for (var c = grid.x; c < params.n_cells; c += grid.y) {
        let out = c * HEAD_WORDS;
        // No frame starts here, or its code is past DEFLATE's limit (the host builds it):
        // decided by one invocation, so that every browser sees the branch as uniform.
        if inv.lid == 0u {
            let deepest = plan[plan_info(params.n_cells, c) + 1u];
            header_here = select(0u, 1u, plan[c] != 0u && deepest <= MAX_LITERAL_LEN);
        }
        if workgroupUniformLoad(&header_here) == 0u {
            if inv.lid == 0u {
                heads[out] = 0u;
            }
            // Every invocation has read `header_here` before the next cell's is written.
            workgroupBarrier();
            continue;
        }
        let lengths_word = plan_lengths(params.n_cells, c);
        for (var i = inv.lid; i < LENGTHS; i += WG_SIZE) {
            lens[i] = select((plan[lengths_word + i / 4u] >> (8u * (i % 4u))) & 0xffu, 1u, i == LITERALS);
        }
        for (var i = inv.lid; i < HEAD_WORDS - 1u; i += WG_SIZE) {
            atomicStore(&head[i], 0u);
        }
        if inv.lid < CL_SYMBOLS {
            atomicStore(&cl_count[inv.lid], 0u);
        }
        if inv.lid == 0u {
            atomicStore(&cl_used, 0u);
        }
        workgroupBarrier();
        code_runs(lane, CL_COUNT, 0u);
        workgroupBarrier();
        rank_cl_symbols(inv.lid);
        workgroupBarrier();
        if inv.lid == 0u {
            code_length_code();
        }
        workgroupBarrier();
        let bits = code_runs(lane, CL_BITS, 0u);
        let at = wg_exclusive_scan(inv, bits);
        code_runs(lane, CL_WRITE, fixed_bits + at.x);
        workgroupBarrier();
        let total = fixed_bits + at.y;
        for (var i = inv.lid; i < (total + 31u) / 32u; i += WG_SIZE) {
            heads[out + 1u + i] = atomicLoad(&head[i]);
        }
        if inv.lid == 0u {
            heads[out] = total;
        }
        workgroupBarrier();
    }
}
