// Su et al.'s coding kernel (CAVLC_SU): one invocation per block slot, component by
// component over the frame (all Intra16x16DC slots, then luma, chroma DC, chroma AC: the
// symbol records are laid out slot-major), coding the backward scan's symbols into the
// same per-slot codes and lengths as cavlc/cavlcu. CPU twin: src/cavlc/su.rs `code_cpu`.
//!import cavlc/block

@group(0) @binding(11) var<storage, read> su_sym: array<u32>;

const SYM_WORDS: u32 = 12u;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = (wid.y * nwg.x + wid.x) * 256u + lid;
    let slot = g / params.n_mbs;
    let mb = g % params.n_mbs;
    if slot >= MB_SLOTS {
        return;
    }
    let at = g * SYM_WORDS;
    let head = su_sym[at];
    let out = mb * MB_SLOTS + slot;
    if ((head >> 23u) & 1u) == 0u {
        enc_lens[out] = 0u;
        return;
    }
    let total_coeff = head & 31u;
    let trailing_ones = (head >> 5u) & 3u;
    let signs = (head >> 7u) & 7u;
    let total_zeros = (head >> 10u) & 31u;
    let ct = (head >> 15u) & 7u;
    let n = (head >> 18u) & 31u;
    var w = BlockWriter(out * SLOT_WORDS, 0u, 0u, 0u);
    bw_entry(&w, coeff_token_entry(ct, total_coeff, trailing_ones));
    if total_coeff > 0u {
        if trailing_ones > 0u {
            bw_put(&w, signs, trailing_ones);
        }
        var sl = select(0u, 1u, total_coeff > 10u && trailing_ones < 3u);
        for (var k = trailing_ones; k < total_coeff; k++) {
            let word = su_sym[at + 3u + k / 2u];
            let level = select(lo16(word), hi16(word), (k & 1u) != 0u);
            sl = put_level(&w, level, sl, k == trailing_ones && trailing_ones < 3u);
        }
        if total_coeff < n {
            bw_entry(&w, total_zeros_entry(ct == CT_CHROMA_DC, total_coeff, total_zeros));
        }
        var zeros_left = total_zeros;
        for (var k = 0u; k + 1u < total_coeff; k++) {
            if zeros_left == 0u {
                break;
            }
            let run = (su_sym[at + 1u + k / 8u] >> (4u * (k % 8u))) & 15u;
            bw_entry(&w, run_before_entry(zeros_left, run));
            zeros_left -= run;
        }
    }
    enc_lens[out] = bw_finish(&w);
}
