// Su et al.'s backward scan (CAVLC_SU): one invocation per block slot (27 per
// macroblock, src/cavlc/gpu.rs `SLOT_*`) reads the forward scan's zigzag arrays and the
// neighbours' TotalCoeff from global memory, derives nC and every symbol (TotalCoeff,
// TrailingOnes and their signs, levels, total_zeros, runs) and writes them to global
// memory for the coding kernel. CPU twin: src/cavlc/su.rs `symbols_cpu`.
//!import cavlc/frame

@group(0) @binding(7) var<storage, read> su_zz: array<vec4<u32>>;
@group(0) @binding(10) var<storage, read> su_tc: array<u32>;
// keep in sync with src/cavlc/su.rs `SYM_WORDS` and `Symbols::from_words`
@group(0) @binding(11) var<storage, read_write> su_sym: array<u32>;

const SYM_WORDS: u32 = 12u;
const LUMA_CODING_ORDER: array<u32, 16> = array<u32, 16>(0u, 1u, 4u, 5u, 2u, 3u, 6u, 7u, 8u, 9u, 12u, 13u, 10u, 11u, 14u, 15u);

fn zz_at(mb: u32, blk: u32, s: u32) -> i32 {
    let q = su_zz[(mb * MB_BLOCKS + blk) * 2u + s / 8u];
    let w = q[(s % 8u) / 2u];
    return select(lo16(w), hi16(w), (s & 1u) != 0u);
}

fn tc_at(mb: u32, blk: u32) -> i32 {
    return i32(su_tc[mb * MB_BLOCKS + blk]);
}

// nC of block `blk` (0..24) of `mb` from the forward scan's TotalCoeffs.
fn block_nc(mb: u32, blk: u32, slice: u32) -> i32 {
    var side = 4u;
    var base = 0u;
    if blk >= 16u {
        side = 2u;
        base = 16u + 4u * ((blk - 16u) / 4u);
    }
    let x = (blk - base) % side;
    let y = (blk - base) / side;
    var na = -1;
    var nb = -1;
    if x > 0u {
        na = tc_at(mb, blk - 1u);
    } else if left_available(mb, slice) {
        na = tc_at(mb - 1u, base + y * side + side - 1u);
    }
    if y > 0u {
        nb = tc_at(mb, blk - side);
    } else if up_available(mb, slice) {
        nb = tc_at(mb - params.width_mbs, base + (side - 1u) * side + x);
    }
    return nc_of(na, nb);
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = (wid.y * nwg.x + wid.x) * 256u + lid;
    let mb = g / MB_SLOTS;
    let slot = g % MB_SLOTS;
    if mb >= params.n_mbs {
        return;
    }
    let h = headers[mb];
    let i16 = is_i16(h);
    var zz = array<i32, 16>();
    var start = 0u;
    var n = 16u;
    var coded = false;
    var nc = 0;
    if slot == 0u {
        for (var s = 0u; s < 16u; s++) {
            zz[s] = zz_at(mb, ZIGZAG[s], 0u);
        }
        coded = i16;
        nc = block_nc(mb, 0u, h.slice);
    } else if slot <= 16u {
        let blk = LUMA_CODING_ORDER[slot - 1u];
        for (var s = 0u; s < 16u; s++) {
            zz[s] = zz_at(mb, blk, s);
        }
        start = select(0u, 1u, i16);
        n = select(16u, 15u, i16);
        coded = ((cbp_luma(h) >> ((blk / 8u) * 2u + (blk % 4u) / 2u)) & 1u) != 0u;
        nc = block_nc(mb, blk, h.slice);
    } else if slot < SLOT_CHROMA_AC {
        let c = slot - SLOT_CB_DC;
        for (var b = 0u; b < 4u; b++) {
            zz[b] = zz_at(mb, 16u + 4u * c + b, 0u);
        }
        n = 4u;
        coded = cbp_chroma(h) >= 1u;
        nc = -1;
    } else {
        let blk = 16u + slot - SLOT_CHROMA_AC;
        for (var s = 0u; s < 16u; s++) {
            zz[s] = zz_at(mb, blk, s);
        }
        start = 1u;
        n = 15u;
        coded = cbp_chroma(h) == 2u;
        nc = block_nc(mb, blk, h.slice);
    }
    // Nonzero coefficients from the last one down: levels (reverse order), the run of
    // zeros before each, trailing ones.
    var total_coeff = 0u;
    var last = 0u;
    var run = 0u;
    var lv = array<i32, 16>();
    var runs = array<u32, 16>();
    var seen = false;
    for (var k = 0u; k < 16u; k++) {
        let s = 15u - k;
        if s < start || s >= start + n {
            continue;
        }
        let v = zz[s];
        if v != 0 {
            if !seen {
                last = s;
                seen = true;
            } else {
                runs[total_coeff - 1u] = run;
            }
            lv[total_coeff] = v;
            total_coeff += 1u;
            run = 0u;
        } else if seen {
            run += 1u;
        }
    }
    var trailing_ones = 0u;
    var signs = 0u;
    for (var k = 0u; k < 3u; k++) {
        if k == trailing_ones && k < total_coeff && abs(lv[k]) == 1 {
            signs = (signs << 1u) | u32(lv[k] < 0);
            trailing_ones += 1u;
        }
    }
    var total_zeros = 0u;
    if total_coeff > 0u {
        total_zeros = last - start + 1u - total_coeff;
    }
    let out = (slot * params.n_mbs + mb) * SYM_WORDS;
    su_sym[out] = total_coeff | (trailing_ones << 5u) | (signs << 7u) | (total_zeros << 10u)
        | (coeff_token_table(nc) << 15u) | (n << 18u) | (u32(coded) << 23u);
    var r0 = 0u;
    var r1 = 0u;
    for (var k = 0u; k < 8u; k++) {
        r0 |= runs[k] << (4u * k);
        r1 |= runs[k + 8u] << (4u * k);
    }
    su_sym[out + 1u] = r0;
    su_sym[out + 2u] = r1;
    for (var k = 0u; k < 8u; k++) {
        su_sym[out + 3u + k] = (u32(lv[2u * k]) & 0xffffu) | (u32(lv[2u * k + 1u]) << 16u);
    }
}
