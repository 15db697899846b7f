// Bit-stuffing of many raw segments at once, one workgroup per segment, by the EBCOT
// fast-mode paper's Algorithm 2 (common/bitstuff_wg.wgsl): each segment's raw bits are
// loaded into workgroup memory, stuffed and terminated there, and copied out.
// CPU twin: src/bitstuff/serial.rs `stuff_batch`; host: src/bitstuff/vote.rs.
//!import bitstuff/batch
//!import common/bitstuff_wg

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    let seg = batch_segment_of(inv);
    if seg.bits == BATCH_NO_SEGMENT {
        return;
    }
    let n_words = (seg.bits + 31u) / 32u;
    for (var i = inv.lid; i < n_words; i += WG_SIZE) {
        atomicStore(&bs_bits[i], swap_bytes(input[seg.in_word + i]));
    }
    workgroupBarrier();
    let r = bitstuff_wg(inv, seg.bits, params.predictable != 0u);
    let out_words = (r.x + 3u) / 4u;
    for (var i = inv.lid; i < out_words; i += WG_SIZE) {
        output[seg.out_word + i] = swap_bytes(bs_out[i]);
    }
    if inv.lid == 0u {
        results[batch_index(inv)] = r;
    }
}
