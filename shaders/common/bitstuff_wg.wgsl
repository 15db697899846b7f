// JPEG 2000 raw-segment bit-stuffing of one segment in workgroup memory: the EBCOT
// fast-mode paper's Algorithm 2 (parallel bit-stuffing by segmented scan and vote), with
// OpenJPEG's BYPASS termination. CPU twin: src/bitstuff/serial.rs (`stuff`); the stage
// around it: shaders/bitstuff/vote.wgsl <-> src/bitstuff/vote.rs.
//
// Interface (for a tier-1 kernel that builds its raw SPP+MRP segment in workgroup memory):
//   bs_bits: array<atomic<u32>, BS_IN_WORDS>, the segment's raw bits MSB-first: raw bit i
//       is bit 31 - i % 32 of bs_bits[i / 32]. Fill it with atomicStore, or atomicOr into
//       zeroed words; bits at n_bits and beyond are ignored (never read as data).
//   fn bitstuff_wg(inv: Invocation, n_bits: u32, predictable: bool) -> vec2<u32>
//       Call from every invocation in uniform control flow, n_bits and predictable
//       workgroup-uniform, after a barrier that makes bs_bits visible. Returns
//       (bytes written, vote iterations summed over rounds). predictable: ERTERM
//       termination (code-block style PTERM), else the plain BYPASS flush.
//   bs_out: array<u32, BS_OUT_WORDS>, on return the stuffed, terminated bytes in the same
//       order: byte k is bits 31 - 8 * (k % 4) .. 24 - 8 * (k % 4) of bs_out[k / 4]
//       (swap bytes to store to a byte stream); bytes past the returned count in the last
//       word are zero. The function ends with a barrier, so bs_out can be read at once.
//   Limits: n_bits <= 32 * BS_IN_WORDS and 4 * BS_OUT_WORDS >= ceil(n_bits / 7) (the most
//   bytes n_bits can become); the caller enforces both (src/bitstuff/vote.rs).
//   Workgroup memory: BS_IN_WORDS + BS_OUT_WORDS words, plus common/wg_scan.wgsl and
//   common/bitstuff_scan.wgsl (WG_SIZE words each in the workgroup flavour, less with subgroups).
//
// How: each invocation owns 4 output bytes per round of 4 * WG_SIZE bytes. Output byte j
// starts at raw bit p_j = 8 j - S_j, S_j the stuffed bytes before it; it is stuffed (a 0
// MSB and 7 data bits) when byte j - 1 is 0xFF. With a guess of S, every byte reads the 8
// raw bits left of p_j ("lftFF" if all ones); in a run of consecutive lftFF bytes every
// other one is stuffed, the first included, which a segmented scan (a head wherever
// lftFF is false, run parity as the value) decides. An exclusive scan of the new flags
// gives the next guess of S; the round repeats until no invocation changes its vote. The
// first k bytes are right after k iterations, so 4 * WG_SIZE + 1 iterations bound a
// round; on random bits it takes 1-3. Rounds run one after another, carrying S and the
// run parity, so a long segment converges round by round.

//!import common/wg_scan
//!import common/bitstuff_scan

override BS_IN_WORDS: u32 = 1024u;
override BS_OUT_WORDS: u32 = 1172u;

var<workgroup> bs_bits: array<atomic<u32>, BS_IN_WORDS>;
var<workgroup> bs_out: array<u32, BS_OUT_WORDS>;
var<workgroup> bs_uniform: u32;
// (bytes, termination fix-up) of the byte holding the last raw bit, written by its owner.
var<workgroup> bs_end: vec2<u32>;

const BS_FIX_NONE: u32 = 0u;
const BS_FIX_DROP_FF: u32 = 1u;      // drop the final 0xFF
const BS_FIX_DROP_FF7F: u32 = 2u;    // drop the final 0xFF 0x7F
const BS_FIX_ADD_2A: u32 = 3u;       // predictable: 0x2A after the final 0xFF

// 8 raw bits from bit p, MSB-first in the low byte; bits at n_bits and beyond read 0.
fn bs_read8(p: u32, n_bits: u32) -> u32 {
    if p >= n_bits {
        return 0u;
    }
    let w = p >> 5u;
    let s = p & 31u;
    var x = atomicLoad(&bs_bits[w]) << s;
    if s > 24u && (w + 1u) * 32u < n_bits {
        x |= atomicLoad(&bs_bits[w + 1u]) >> (32u - s);
    }
    var v = x >> 24u;
    if p + 8u > n_bits {
        v &= (0xffu << (p + 8u - n_bits)) & 0xffu;
    }
    return v;
}

// Pad bits 0, 1, 0, ... from bit position q (0 = MSB) of a byte to its end.
fn bs_pad(q: u32) -> u32 {
    return select(0x55u, 0xaau, (q & 1u) != 0u) & (0xffu >> q);
}

fn bs_set_byte(k: u32, value: u32) {
    let w = k >> 2u;
    let shift = 24u - 8u * (k & 3u);
    if w < BS_OUT_WORDS {
        bs_out[w] = (bs_out[w] & ~(0xffu << shift)) | (value << shift);
    }
}

fn bitstuff_wg(inv: Invocation, n_bits: u32, predictable: bool) -> vec2<u32> {
    let lane = scan_lane(inv);
    let round_bytes = 4u * WG_SIZE;
    if inv.lid == 0u {
        bs_end = vec2<u32>(0u, BS_FIX_NONE);
    }
    var carry_s = 0u;    // stuffed bytes before the round
    var carry_run = 2u;  // the run before byte 0: a head (no left byte)
    var iterations = 0u;
    // At most ceil(n_bits / 7) bytes hold raw bits: that bounds the rounds.
    for (var round = 0u; round * round_bytes <= n_bits / 7u; round++) {
        let round_first = round * round_bytes;
        // The round's first byte starts past the raw bits: nothing left to place.
        if round_first * 8u - carry_s >= n_bits {
            break;
        }
        let first = round_first + 4u * lane;
        var flags = 0u;   // bit k: byte first + k is stuffed (the current vote)
        var s_in = carry_s;
        var total = 0u;
        var run_out = carry_run;
        for (var it = 0u; it <= round_bytes; it++) {
            // lftFF of the 4 bytes under the current guess of S.
            var lft = 0u;
            var s = s_in;
            for (var k = 0u; k < 4u; k++) {
                let j = first + k;
                let p = 8u * j - s;
                if j > 0u && bs_read8(p - 8u, n_bits) == 0xffu {
                    lft |= 1u << k;
                }
                s += (flags >> k) & 1u;
            }
            // This invocation's element of the segmented scan: its trailing run.
            var elem = 0u;
            for (var k = 0u; k < 4u; k++) {
                elem = bs_seg_combine(elem, select(2u, 1u, ((lft >> k) & 1u) != 0u));
            }
            let seg = bs_seg_scan(inv, elem, carry_run);
            run_out = seg.y;
            var run = seg.x & 1u;
            var new_flags = 0u;
            for (var k = 0u; k < 4u; k++) {
                if ((lft >> k) & 1u) != 0u {
                    new_flags |= select(0u, 1u << k, run == 0u);
                    run ^= 1u;
                } else {
                    run = 0u;
                }
            }
            let changed = select(0u, 1u, new_flags != flags);
            flags = new_flags;
            let sums = wg_exclusive_scan(inv, countOneBits(flags) | (changed << 16u));
            s_in = carry_s + (sums.x & 0xffffu);
            if inv.lid == 0u {
                bs_uniform = sums.y;
            }
            total = workgroupUniformLoad(&bs_uniform);
            iterations += 1u;
            if (total >> 16u) == 0u {
                break;
            }
        }
        // Converged: emit the round's bytes.
        var word = 0u;
        var s = s_in;
        for (var k = 0u; k < 4u; k++) {
            let j = first + k;
            let stuffed = ((flags >> k) & 1u) != 0u;
            let p = 8u * j - s;
            let width = select(8u, 7u, stuffed);
            var v = bs_read8(p, n_bits);
            if stuffed {
                v >>= 1u;
            }
            if p < n_bits && p + width >= n_bits {
                // The byte holding the last raw bit.
                var fix = BS_FIX_NONE;
                if p + width > n_bits {
                    v |= bs_pad(8u - width + n_bits - p);
                } else if !stuffed && v == 0xffu {
                    fix = select(BS_FIX_DROP_FF, BS_FIX_ADD_2A, predictable);
                } else if stuffed && v == 0x7fu && !predictable {
                    fix = BS_FIX_DROP_FF7F;
                }
                bs_end = vec2<u32>(j + 1u, fix);
            }
            word |= v << (24u - 8u * k);
            s += u32(stuffed);
        }
        let w = round_first / 4u + lane;
        if w < BS_OUT_WORDS {
            bs_out[w] = word;
        }
        carry_s += total & 0xffffu;
        carry_run = run_out;
    }
    workgroupBarrier();
    // The termination fix-up, by one invocation, after every byte is in place.
    if inv.lid == 0u {
        var n = bs_end.x;
        switch bs_end.y {
            case BS_FIX_DROP_FF: {
                n -= 1u;
                bs_set_byte(n, 0u);
            }
            case BS_FIX_DROP_FF7F: {
                n -= 2u;
                bs_set_byte(n, 0u);
                bs_set_byte(n + 1u, 0u);
            }
            case BS_FIX_ADD_2A: {
                if (n & 3u) == 0u && (n >> 2u) < BS_OUT_WORDS {
                    bs_out[n >> 2u] = 0u; // a word no round wrote
                }
                bs_set_byte(n, 0x2au);
                n += 1u;
            }
            default: {}
        }
        bs_uniform = n;
    }
    let n_bytes = workgroupUniformLoad(&bs_uniform);
    return vec2<u32>(n_bytes, iterations);
}
