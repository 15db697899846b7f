// Bit-stuffing of many raw segments at once, one workgroup per segment, with a depth
// bound the vote lacks: the writer's state between two raw bits is (phase: bits of the
// current output byte so far, 0-7; f: the current byte follows 0xFF, so it is stuffed),
// 16 states. A chunk of raw bits maps every incoming state to an outgoing one; such maps
// compose associatively, so one scan over 16-entry maps gives every chunk its incoming
// state in O(log n) depth whatever the input. A chunk reads the raw bits before it to
// know whether the current byte is all ones so far, so the state needs no more. Each
// invocation then counts its inserted zeros (a second scan places its output) and ORs
// its output bits into the segment's buffer in workgroup memory.
// CPU twin: src/bitstuff/serial.rs `stuff_batch`; host: src/bitstuff/fsm.rs.
//!import bitstuff_batch
//!import wg_scan
//!import bitstuff_scan

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
            var lo = 0u;
            var hi = 0u;
            for (var s = 0u; s < 8u; s++) {
                lo |= fsm_run(a, end, s, false, 0u).x << (4u * s);
                hi |= fsm_run(a, end, s + 8u, false, 0u).x << (4u * s);
            }
            map = vec2<u32>(lo, hi);
        }
        // State indices are f * 8 + phase (lib/bitstuff_ops.wgsl).
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
