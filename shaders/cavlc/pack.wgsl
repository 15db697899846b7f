// Packing: every macroblock's header (mb_type, the Intra_4x4 mode fields,
// intra_chroma_pred_mode, me(v) coded_block_pattern, mb_qp_delta) and its coded blocks
// (the slots the CAVLC stages wrote) in bitstream order, as slice_data() of
// src/cavlc/frame.rs `encode_slice_data`. 32 invocations per macroblock: lane 0 the
// header, lanes 1..=27 the slots. Bit offsets by a workgroup scan and the device-wide
// look-back (common/lookback.wgsl) over blocks of WG_SIZE / 32 macroblocks; codes written by
// common/bitwriter.wgsl (MSB-first). The offset of every macroblock goes to `mb_offsets`
// (the host splits slices there). CPU twin: src/cavlc/pack.rs `pack_cpu`.
//!import common/lookback
//!import common/wg_scan
//!import common/bitwriter
//!import cavlc/frame

@group(0) @binding(5) var<storage, read> enc_words: array<u32>;
@group(0) @binding(6) var<storage, read> enc_lens: array<u32>;
@group(0) @binding(7) var<storage, read_write> mb_offsets: array<u32>;

const ITEMS: u32 = 32u;

fn item_bits(mb: u32, item: u32) -> u32 {
    if mb >= params.n_mbs || item > MB_SLOTS {
        return 0u;
    }
    if item == 0u {
        return header_bits(headers[mb]);
    }
    return enc_lens[mb * MB_SLOTS + item - 1u];
}

// The decoupled fallback: a stalled predecessor's bits, from its slots' lengths.
fn block_aggregate(inv: Invocation, block: u32) -> u32 {
    let lane = scan_lane(inv);
    let mb = block * (WG_SIZE / ITEMS) + lane / ITEMS;
    return wg_exclusive_scan(inv, item_bits(mb, lane % ITEMS)).y;
}

// `code` MSB-first (right-aligned, `len` 1..32 bits) into the LSB-first bit writer.
fn put_msb(w: ptr<function, BitWriter>, code: u32, len: u32) {
    bitwriter_put(w, reverseBits(code) >> (32u - len), len);
}

fn put_header(w: ptr<function, BitWriter>, h: MbHeader) {
    let t = ue_code(h.mb_type);
    put_msb(w, t.x, t.y);
    if !is_i16(h) {
        for (var i = 0u; i < 16u; i++) {
            let m = intra4x4_mode(h, i);
            if m == 8u {
                put_msb(w, 1u, 1u);
            } else {
                put_msb(w, m, 4u);
            }
        }
    }
    let c = ue_code(h.intra_chroma_pred_mode);
    put_msb(w, c.x, c.y);
    if !is_i16(h) {
        let p = ue_code(cavlc_tables[CBP_BASE + h.coded_block_pattern]);
        put_msb(w, p.x, p.y);
    }
    if has_qp_delta(h) {
        let q = se_code(h.mb_qp_delta);
        put_msb(w, q.x, q.y);
    }
}

// Zero the output's first `params.n_groups` words before the pack writes it (its writer
// ORs the words neighbouring codes share): a pass of its own, so that it is timed.
@compute @workgroup_size(WG_SIZE)
fn zero(inv: Invocation) {
    let stride = inv.nwg.x * WG_SIZE;
    for (var i = inv.wid.x * WG_SIZE + inv.lid; i < params.n_groups; i += stride) {
        atomicStore(&output[i], 0u);
    }
}

// reduce_then_scan, first dispatch: every block's bits.
@compute @workgroup_size(WG_SIZE)
fn reduce(inv: Invocation) {
    let grid = workgroup_grid(inv);
    for (var block = grid.x; block < params.n_groups; block += grid.y) {
        let total = block_aggregate(inv, block);
        if inv.lid == 0u {
            atomicStore(&scan_state[STATE_HEADER + block], total);
        }
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    let lane = scan_lane(inv);
    let item = lane % ITEMS;
    for (var taken = 0u; taken < MAX_BLOCKS_PER_WORKGROUP; taken++) {
        let block = take_block(inv);
        if block >= params.n_groups {
            break;
        }
        let mb = block * (WG_SIZE / ITEMS) + lane / ITEMS;
        let bits = item_bits(mb, item);
        let local = wg_exclusive_scan(inv, bits);
        lookback_publish(inv, block, local.y);
        loop {
            let stalled = lookback_wait(inv, block);
            if stalled == 0u {
                break;
            }
            lookback_supply(inv, block_aggregate(inv, stalled - 1u));
        }
        let base = lookback_finish(inv, block, local.y);
        let position = base + local.x;
        if item == 0u && mb < params.n_mbs {
            mb_offsets[mb] = position;
        }
        if bits != 0u {
            var writer = bitwriter_at(position);
            if item == 0u {
                put_header(&writer, headers[mb]);
            } else {
                let first = (mb * MB_SLOTS + item - 1u) * SLOT_WORDS;
                let full = bits / 32u;
                for (var j = 0u; j < full; j++) {
                    bitwriter_put(&writer, reverseBits(enc_words[first + j]), 32u);
                }
                let tail = bits % 32u;
                if tail != 0u {
                    bitwriter_put(&writer, reverseBits(enc_words[first + full]), tail);
                }
            }
            bitwriter_finish(&writer, position >> 5u);
        }
    }
}
