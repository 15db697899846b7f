// Byte histogram per input chunk: workgroup-private counts (several copies, to spread
// same-address atomics on low-entropy data) merged into global counts.
// CPU twin: src/huffman/histogram.rs `histogram_cpu`.
//!import common/invocation

struct HistogramParams {
    n_bytes: u32,
    words_per_workgroup: u32,
    words_per_chunk: u32,
    hist_base: u32,
}
// keep in sync with src/huffman/histogram.rs `HistogramParams`
@group(0) @binding(0) var<uniform> params: HistogramParams;
// Bound from a chunk boundary, its size rounded up to 16 bytes.
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> histogram: array<atomic<u32>>;

// Four copies of the counts, interleaved (byte b of copy c at b * COPIES + c), so that
// neighbouring invocations counting the same byte hit four banks; with copy c at
// c * 256 + b, 256 words apart, they all hit one. The histogram of a GiB at 2 bits took
// 0.61 ms instead of 0.98 on the H200; 8 copies measured no faster (docs/results.md,
// thirty-ninth pass).
const COPIES: u32 = 4u;
var<workgroup> counts: array<atomic<u32>, 1024>; // 256 * COPIES

// Count the `valid` low bytes of `word` into copy `copy`.
fn count_word(word: u32, valid: u32, copy: u32) {
    let b0 = word & 0xffu;
    if valid == 4u && word == b0 * 0x01010101u {
        atomicAdd(&counts[b0 * COPIES + copy], 4u); // a run of one byte: one atomic
    } else {
        for (var k = 0u; k < valid; k++) {
            atomicAdd(&counts[((word >> (8u * k)) & 0xffu) * COPIES + copy], 1u);
        }
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    for (var i = inv.lid; i < 256u * COPIES; i += WG_SIZE) {
        atomicStore(&counts[i], 0u);
    }
    workgroupBarrier();
    let copy = inv.lid % COPIES;
    let n_words = (params.n_bytes + 3u) / 4u;
    // A workgroup's words start on a multiple of 4 (words_per_workgroup is one).
    let first = inv.wid.x * params.words_per_workgroup;
    let end = min(first + params.words_per_workgroup, n_words);
    // 16-byte loads, four times the bytes in flight of a word a load: one word a load
    // kept the H200's memory about 40% busy.
    let n_vecs = (end - first + 3u) / 4u;
    for (var v = inv.lid; v < n_vecs; v += WG_SIZE) {
        let q = input[first / 4u + v];
        let w = first + 4u * v;
        if w + 4u <= params.n_bytes / 4u { // four whole words
            count_word(q.x, 4u, copy);
            count_word(q.y, 4u, copy);
            count_word(q.z, 4u, copy);
            count_word(q.w, 4u, copy);
        } else {
            for (var k = 0u; k < 4u; k++) {
                let valid = select(0u, min(4u, params.n_bytes - (w + k) * 4u), w + k < end);
                count_word(q[k], valid, copy);
            }
        }
    }
    workgroupBarrier();
    let chunk = first / params.words_per_chunk;
    for (var s = inv.lid; s < 256u; s += WG_SIZE) {
        var total = 0u;
        for (var c = 0u; c < COPIES; c++) {
            total += atomicLoad(&counts[s * COPIES + c]);
        }
        if total != 0u {
            atomicAdd(&histogram[params.hist_base + chunk * 256u + s], total);
        }
    }
}
