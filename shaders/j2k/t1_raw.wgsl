// A raw (bypassed) SPP+MRP segment of EBCOT tier-1: its bits in `bs_bits`, stuffed
// in parallel by common/bitstuff_wg.wgsl (the fast-mode paper's Algorithm 2), terminated
// as OpenJPEG does, appended to the code-block's output, its two passes recorded.
//!import common/wg_scan
//!import common/bitstuff_wg
//!import j2k/t1_model
//!import j2k/mq

var<workgroup> wg_out_len: u32;
var<workgroup> wg_out_tail: u32;

// Byte k of the stuffed segment in bs_out (common/bitstuff_wg.wgsl: big-endian words).
fn stuffed_byte(k: u32) -> u32 {
    return (bs_out[k >> 2u] >> (24u - 8u * (k & 3u))) & 255u;
}

var<workgroup> wg_spp_bytes: atomic<u32>;

// Bytes of the stuffed segment (n_bytes long) that hold its first n_spp raw bits: byte j
// holds 7 bits after a 0xFF, else 8. Past the terminated bytes (a dropped final 0xFF or
// 0xFF 0x7F) any larger count does: tier-2 never lets an open pass end beyond the
// segment's end. Each invocation walks its own bytes after a scan of the 0xFF counts.
fn spp_bytes(inv: Invocation, n_bytes: u32, n_spp: u32) -> u32 {
    let per = (n_bytes + WG_SIZE - 1u) / WG_SIZE;
    let first = min(lane * per, n_bytes);
    let end = min(first + per, n_bytes);
    var ff = 0u;
    for (var j = first; j < end; j++) {
        ff += select(0u, 1u, stuffed_byte(j) == 255u);
    }
    let before = wg_exclusive_scan(inv, ff);
    if lane == 0u {
        atomicStore(&wg_spp_bytes, select(n_bytes + 1u, 0u, n_spp == 0u));
    }
    workgroupBarrier();
    // Raw bits before byte `first`: 8 per byte but one per byte after a 0xFF, and the
    // scan counted a 0xFF at first - 1, which only stuffs byte `first` itself.
    var bits = 8u * first - before.x;
    if first > 0u && stuffed_byte(first - 1u) == 255u {
        bits += 1u;
    }
    for (var j = first; j < end; j++) {
        let next = bits + select(8u, 7u, j > 0u && stuffed_byte(j - 1u) == 255u);
        if bits < n_spp && n_spp <= next {
            atomicStore(&wg_spp_bytes, j + 1u);
        }
        bits = next;
    }
    workgroupBarrier();
    return atomicLoad(&wg_spp_bytes);
}

// Place plane p's raw SPP then MRP bits by scan offset into `bs_bits` (cleared first);
// returns their total (uniform) and sets `n_spp` to the SPP's. Call in uniform control
// flow; `bs_bits` is complete after the next barrier.
fn raw_place(inv: Invocation, p: u32, n_spp: ptr<function, u32>) -> u32 {
    // Counts, then placement: one walk call site (see pairs_step).
    var counts = vec2<u32>(0u, 0u);
    var spp = vec2<u32>(0u, 0u);
    var mrp = vec2<u32>(0u, 0u);
    var total = 0u;
    for (var placing = 0u; placing < 2u; placing++) {
        if placing == 1u {
            spp = wg_exclusive_scan(inv, counts.x);
            mrp = wg_exclusive_scan(inv, counts.y);
            if lane == 0u {
                wg_value = spp.y + mrp.y;
            }
            total = workgroupUniformLoad(&wg_value);
            for (var w = lane; w < (total + 31u) / 32u; w += WG_SIZE) {
                atomicStore(&bs_bits[w], 0u);
            }
            workgroupBarrier();
        }
        for (var kind = PASS_SPP; kind <= PASS_MRP; kind++) {
            if placing == 0u {
                sink = SINK_COUNT;
                sink_pos = 0u;
            } else {
                sink = SINK_RAW;
                sink_pos = select(spp.y + mrp.x, spp.x, kind == PASS_SPP);
            }
            walk(kind, p, true);
            if placing == 0u {
                counts[kind] = sink_pos;
            }
        }
    }
    *n_spp = spp.y;
    return total;
}

// Stuff, terminate and append the segment of `total` bits in `bs_bits` (visible to all
// after a barrier), the SPP's n_spp first; invocation 0 records the SPP (open) and MRP
// (terminated) passes and moves `out_len` / `out_tail`. Call in uniform control flow.
fn raw_segment(inv: Invocation, total: u32, n_spp: u32) {
    if lane == 0u {
        wg_out_len = out_len;
        wg_out_tail = out_tail;
    }
    workgroupBarrier();
    let n_bytes = bitstuff_wg(inv, total, false).x;
    let spp_end = spp_bytes(inv, n_bytes, n_spp);
    // Append: invocation j writes output word j of the region from the old length on.
    let start = workgroupUniformLoad(&wg_out_len);
    let tail = wg_out_tail;
    let end = start + n_bytes;
    let first_word = start >> 2u;
    let n_words = ((end + 3u) >> 2u) - first_word;
    for (var j = lane; j < n_words; j += WG_SIZE) {
        let word_index = first_word + j;
        var word = 0u;
        if j == 0u {
            word = tail;
        }
        for (var b = 0u; b < 4u; b++) {
            let at = word_index * 4u + b;
            if at >= start && at < end {
                word |= stuffed_byte(at - start) << (b * 8u);
            }
        }
        if word_index < out_cap_words {
            out_words[out_base + word_index] = word;
        }
        if j + 1u == n_words {
            wg_out_tail = select(0u, word, (end & 3u) != 0u);
        }
    }
    workgroupBarrier();
    if lane == 0u {
        // SPP: OpenJPEG's rate of an open raw pass is the bytes holding its bits.
        record_pass(start + spp_end);
        record_pass(end | PASS_TERM);
        out_len = end;
        out_tail = wg_out_tail;
        prev_term = true;
    }
    workgroupBarrier();
}

