// Bit-stuffing of many raw segments at once, one workgroup per segment, with a depth
// bound the vote lacks: the writer's state between two raw bits is (phase: bits of the
// current output byte so far, 0-7; f: the current byte follows 0xFF, so it is stuffed),
// 16 states. A chunk of raw bits maps every incoming state to an outgoing one; such maps
// compose associatively, so one scan over 16-entry maps gives every chunk its incoming
// state in O(log n) depth whatever the input. A chunk reads the raw bits before it to
// know whether the current byte is all ones so far, so the state needs no more. Each
// invocation then counts its inserted zeros (a second scan places its output) and ORs
// its output bits into the segment's buffer in workgroup memory. A chunk's map needs 8
// runs, not 16 (`fsm_map`).
// CPU twin: src/bitstuff/serial.rs `stuff_batch`; host: src/bitstuff/fsm.rs.
//!import bitstuff/batch
//!import common/wg_scan
//!import common/bitstuff_scan

override FSM_IN_WORDS: u32 = 1024u;
override FSM_OUT_WORDS: u32 = 1172u;
// Raw words per invocation per round.
override FSM_WORDS: u32 = 1u;

var<workgroup> fsm_bits: array<u32, FSM_IN_WORDS>;
var<workgroup> fsm_out: array<atomic<u32>, FSM_OUT_WORDS>;
var<workgroup> fsm_uniform: vec2<u32>;

// `take` (1..8) raw bits from bit p, right-aligned; the caller keeps p + take <= n_bits.
fn fsm_read(p: u32, take: u32) -> u32 {
    let w = p >> 5u;
    let s = p & 31u;
    var x = fsm_bits[w] << s;
    if s + take > 32u {
        x |= fsm_bits[w + 1u] >> (32u - s);
    }
    return x >> (32u - take);
}

// OR `take` bits (right-aligned) into the output at bit q.
fn fsm_put(q: u32, bits: u32, take: u32) {
    let w = q >> 5u;
    let s = q & 31u;
    if s + take <= 32u {
        atomicOr(&fsm_out[w], bits << (32u - s - take));
    } else {
        let spill = s + take - 32u;
        atomicOr(&fsm_out[w], bits >> spill);
        atomicOr(&fsm_out[w + 1u], bits << (32u - spill));
    }
}

// Run raw bits [p0, end) from state `st`: returns (state after, zeros inserted). With
// `emit`, the output bits go to the buffer from output bit `q0` on.
fn fsm_run(p0: u32, end: u32, st: u32, emit: bool, q0: u32) -> vec2<u32> {
    var phase = st & 7u;
    var f = st >> 3u;
    // An unstuffed byte is all ones so far when the raw bits before p0 are; from an
    // unreachable state (phase > p0) anything will do.
    var ones = true;
    if f == 0u && phase > 0u {
        ones = phase <= p0 && fsm_read(p0 - phase, phase) == (1u << phase) - 1u;
    }
    var p = p0;
    var q = q0;
    var inserts = 0u;
    while p < end {
        if f == 1u && phase == 0u {
            // The byte after 0xFF: its MSB is the stuffed 0 (the buffer is zeroed).
            inserts += 1u;
            phase = 1u;
            q += 1u;
        }
        let take = min(8u - phase, end - p);
        let bits = fsm_read(p, take);
        if f == 0u {
            ones = ones && bits == (1u << take) - 1u;
        }
        if emit {
            fsm_put(q, bits, take);
        }
        p += take;
        q += take;
        phase += take;
        if phase == 8u {
            f = select(0u, 1u, f == 0u && ones);
            phase = 0u;
            ones = true;
        }
    }
    return vec2<u32>(f * 8u + phase, inserts);
}

// The map of raw bits [a, end) (end > a) over the 16 states. Every state first completes
// its current byte, which ends at a + r (r = 8 - phase, or 7 after an insertion), unless
// the chunk ends first; from that byte boundary on, its path depends only on r and on
// whether the byte was 0xFF. So 8 runs from the boundaries a + 1 .. a + 8 serve all
// states, and a run from a 0xFF boundary is made only where a byte is all ones.
fn fsm_map(a: u32, end: u32) -> vec2<u32> {
    let len = end - a;
    // The state after a run from the byte boundary a + r (not after 0xFF), r = 1..8.
    var cont = 0u;
    for (var r = 1u; r <= 8u; r++) {
        var st = 0u;
        if r <= len {
            st = fsm_run(a + r, end, 0u, false, 0u).x;
        }
        cont |= st << (4u * (r - 1u));
    }
    // Ones just before a (at most 7) and at the start of the chunk (at most 8).
    let nb = min(a, 7u);
    var back = 0u;
    if nb > 0u {
        back = min(countTrailingZeros(~fsm_read(a - nb, nb)), nb);
    }
    let nh = min(len, 8u);
    let lead = min(countLeadingZeros(~(fsm_read(a, nh) << (32u - nh))), nh);
    var lo = 0u;
    var hi = 0u;
    for (var phase = 0u; phase < 8u; phase++) {
        // f = 0: an unstuffed byte with `phase` bits so far.
        let r = 8u - phase;
        var st0 = phase + len;
        if r <= len {
            if back >= phase && lead >= r {
                st0 = fsm_run(a + r, end, 8u, false, 0u).x; // the byte is 0xFF
            } else {
                st0 = (cont >> (4u * (r - 1u))) & 15u;
            }
        }
        lo |= st0 << (4u * phase);
        // f = 1: a stuffed byte (after 0xFF) with `phase` bits so far, its 0 MSB included;
        // at phase 0 the 0 is inserted first.
        let p1 = max(phase, 1u);
        let r1 = 8u - p1;
        var st1 = 8u + p1 + len;
        if r1 <= len {
            st1 = (cont >> (4u * (r1 - 1u))) & 15u;
        }
        hi |= st1 << (4u * phase);
    }
    return vec2<u32>(lo, hi);
}

fn fsm_set_byte(k: u32, value: u32) {
    let w = k >> 2u;
    let shift = 24u - 8u * (k & 3u);
    if w < FSM_OUT_WORDS {
        atomicAnd(&fsm_out[w], ~(0xffu << shift));
        atomicOr(&fsm_out[w], value << shift);
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    let seg = batch_segment_of(inv);
    if seg.bits == BATCH_NO_SEGMENT {
        return;
    }
    let n = seg.bits;
    let lane = scan_lane(inv);
    let n_words = (n + 31u) / 32u;
    for (var i = inv.lid; i < n_words; i += WG_SIZE) {
        fsm_bits[i] = swap_bytes(input[seg.in_word + i]);
    }
    // Room for the most bytes n raw bits can become (ceil(n / 7)).
    let cap_words = min(((n + 6u) / 7u + 3u) / 4u, FSM_OUT_WORDS);
    for (var i = inv.lid; i < cap_words; i += WG_SIZE) {
        atomicStore(&fsm_out[i], 0u);
    }
    workgroupBarrier();

    let chunk_bits = 32u * FSM_WORDS;
    let round_bits = chunk_bits * WG_SIZE;
    var state = 0u;   // the writer's state before the round
    var inserted = 0u; // zeros inserted before the round
    let rounds = (n + round_bits - 1u) / round_bits;
    for (var round = 0u; round < rounds; round++) {
        let a = round * round_bits + lane * chunk_bits;
        let end = min(a + chunk_bits, n);
        var map = BS_MAP_IDENTITY;
        if a < n {
            map = fsm_map(a, end);
        }
        // State indices are f * 8 + phase (common/bitstuff_ops.wgsl).
        let states = bs_map_scan(inv, map, state);
        let incoming = states.x;
        let round_out = states.y;
        var mine = 0u;
        if a < n {
            mine = fsm_run(a, end, incoming, false, 0u).y;
        }
        let placed = wg_exclusive_scan(inv, mine);
        if a < n {
            fsm_run(a, end, incoming, true, a + inserted + placed.x);
        }
        state = round_out;
        inserted += placed.y;
        workgroupBarrier();
    }

    // Termination (OpenJPEG's BYPASS flush), by one invocation.
    if inv.lid == 0u {
        let phase = state & 7u;
        let total = n + inserted;
        var n_bytes = (total + 7u) / 8u;
        if n == 0u {
            n_bytes = 0u;
        } else if phase != 0u {
            // Pad the partial byte with 0, 1, 0, ... from bit `phase` on.
            let pad = select(0x55u, 0xaau, (phase & 1u) != 0u) & (0xffu >> phase);
            let k = total / 8u;
            atomicOr(&fsm_out[k >> 2u], pad << (24u - 8u * (k & 3u)));
        } else if (state >> 3u) == 1u {
            // The last byte is 0xFF with nothing after it.
            if params.predictable != 0u {
                fsm_set_byte(n_bytes, 0x2au);
                n_bytes += 1u;
            } else {
                n_bytes -= 1u;
                fsm_set_byte(n_bytes, 0u);
            }
        } else if params.predictable == 0u && n >= 8u && fsm_read(n - 8u, 8u) == 0xffu {
            // The last byte ends on 8 one bits but is not 0xFF: it is a stuffed 0x7F after
            // 0xFF; both go.
            n_bytes -= 2u;
            fsm_set_byte(n_bytes, 0u);
            fsm_set_byte(n_bytes + 1u, 0u);
        }
        fsm_uniform = vec2<u32>(n_bytes, 0u);
    }
    let r = workgroupUniformLoad(&fsm_uniform);
    let out_words = (r.x + 3u) / 4u;
    for (var i = inv.lid; i < out_words; i += WG_SIZE) {
        output[seg.out_word + i] = swap_bytes(atomicLoad(&fsm_out[i]));
    }
    if inv.lid == 0u {
        results[batch_index(inv)] = r;
    }
}
