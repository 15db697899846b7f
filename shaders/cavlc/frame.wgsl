// A frame as the CAVLC stages see it (src/cavlc/frame.rs `Frame`): macroblock headers,
// levels as i16 pairs in u32 words (level 2k in the low half), the code tables, and what
// every stage derives from them (coded block pattern, TotalCoeff, nC, header bits).
// Per-block codes live in 27 slots per macroblock, in bitstream order (src/cavlc/gpu.rs
// `SLOT_*`): 0 Intra16x16DC, 1..=16 luma 4x4 blocks by luma4x4BlkIdx, 17/18 Cb/Cr DC,
// 19..=26 chroma AC (Cb 0..3, Cr 0..3); each slot owns SLOT_WORDS words of MSB-first code.

// keep in sync with src/cavlc/frame.rs `MbHeader`
struct MbHeader {
    mb_type: u32,
    intra_chroma_pred_mode: u32,
    mb_qp_delta: i32,
    slice: u32,
    coded_block_pattern: u32,
    modes0: u32,
    modes1: u32,
    pad: u32,
}

// keep in sync with src/cavlc/gpu.rs `CavlcParams`
struct CavlcParams {
    width_mbs: u32,
    n_mbs: u32,
    n_groups: u32, // workgroup-sized units of work (regions, pack blocks, ...)
    // Macroblocks of each picture: a frame may hold several pictures back to back (whole
    // rows each), none of whose macroblocks neighbours another picture's.
    picture_mbs: u32,
}

@group(0) @binding(0) var<uniform> params: CavlcParams;
@group(0) @binding(1) var<storage, read> headers: array<MbHeader>;
// Two vec4 per 4x4 block, 24 blocks per macroblock (luma raster, then Cb, Cr).
@group(0) @binding(2) var<storage, read> levels: array<vec4<u32>>;
// Code tables, entries `len << 16 | code` (src/cavlc/gpu.rs `table_words`).
@group(0) @binding(4) var<storage, read> cavlc_tables: array<u32>;

const MB_BLOCKS: u32 = 24u;
const MB_SLOTS: u32 = 27u;
const SLOT_WORDS: u32 = 16u;
const SLOT_CB_DC: u32 = 17u;
const SLOT_CHROMA_AC: u32 = 19u;

// keep in sync with src/cavlc/gpu.rs `table_words`
const CT_BASE: u32 = 0u;     // coeff_token [nC 0-1, 2-3, 4-7, chroma DC][TotalCoeff 0..16][T1s]
const TZ_BASE: u32 = 272u;   // total_zeros 4x4 [TotalCoeff - 1][total_zeros 0..15]
const TZC_BASE: u32 = 512u;  // total_zeros chroma DC [TotalCoeff - 1][total_zeros 0..3]
const RB_BASE: u32 = 524u;   // run_before [min(zerosLeft, 7) - 1][run 0..14]
const CBP_BASE: u32 = 629u;  // Intra_4x4 coded_block_pattern -> codeNum (me(v))

// coeff_token table of a block: 0..3 by nC range (3: nC >= 8, fixed length), 4 chroma DC.
const CT_CHROMA_DC: u32 = 4u;

fn is_i16(h: MbHeader) -> bool {
    return h.mb_type != 0u;
}

fn cbp_luma(h: MbHeader) -> u32 {
    if is_i16(h) {
        return select(0u, 15u, h.mb_type - 1u >= 12u);
    }
    return h.coded_block_pattern & 15u;
}

fn cbp_chroma(h: MbHeader) -> u32 {
    if is_i16(h) {
        return ((h.mb_type - 1u) % 12u) / 4u;
    }
    return (h.coded_block_pattern >> 4u) & 3u;
}

fn lo16(w: u32) -> i32 {
    return i32(w << 16u) >> 16u;
}

fn hi16(w: u32) -> i32 {
    return i32(w) >> 16u;
}

fn nz_halves(w: u32) -> u32 {
    return u32((w & 0xffffu) != 0u) + u32((w >> 16u) != 0u);
}

// Nonzero levels of a block (raster order in q0, q1), level 0 left out when `skip_dc`.
fn count_nonzero(q0: vec4<u32>, q1: vec4<u32>, skip_dc: bool) -> u32 {
    let first = select(q0.x, q0.x & 0xffff0000u, skip_dc);
    return nz_halves(first) + nz_halves(q0.y) + nz_halves(q0.z) + nz_halves(q0.w)
        + nz_halves(q1.x) + nz_halves(q1.y) + nz_halves(q1.z) + nz_halves(q1.w);
}

// TotalCoeff of block `blk` (0..24) of macroblock `mb` as a neighbour sees it (clause
// 9.2.1: AC only for I_16x16 luma and for chroma), counted from the levels.
fn block_total_coeff(mb: u32, blk: u32) -> u32 {
    let i = (mb * MB_BLOCKS + blk) * 2u;
    let skip_dc = blk >= 16u || is_i16(headers[mb]);
    return count_nonzero(levels[i], levels[i + 1u], skip_dc);
}

// The block's 16 levels in zigzag scan order (frame.rs `ZIGZAG`), from its raster words.
fn zigzag(q0: vec4<u32>, q1: vec4<u32>) -> array<i32, 16> {
    return array<i32, 16>(
        lo16(q0.x), hi16(q0.x), lo16(q0.z), lo16(q1.x),
        hi16(q0.z), lo16(q0.y), hi16(q0.y), lo16(q0.w),
        hi16(q1.x), lo16(q1.z), hi16(q1.z), lo16(q1.y),
        hi16(q0.w), hi16(q1.y), lo16(q1.w), hi16(q1.w),
    );
}

// Zigzag scan index -> raster index (frame.rs `ZIGZAG`).
const ZIGZAG: array<u32, 16> = array<u32, 16>(0u, 1u, 4u, 8u, 5u, 2u, 3u, 6u, 9u, 12u, 13u, 10u, 7u, 11u, 14u, 15u);

// luma4x4BlkIdx of the raster luma block (bx, by).
fn luma_coding_index(bx: u32, by: u32) -> u32 {
    return (by / 2u) * 8u + (bx / 2u) * 4u + (by % 2u) * 2u + (bx % 2u);
}

// nC from the neighbours' TotalCoeff, -1 where unavailable (clause 9.2.1).
fn nc_of(na: i32, nb: i32) -> i32 {
    if na >= 0 && nb >= 0 {
        return (na + nb + 1) >> 1u;
    }
    return max(max(na, nb), 0);
}

fn coeff_token_table(nc: i32) -> u32 {
    if nc < 0 {
        return CT_CHROMA_DC;
    }
    if nc < 2 {
        return 0u;
    }
    if nc < 4 {
        return 1u;
    }
    if nc < 8 {
        return 2u;
    }
    return 3u;
}

// Whether the left / upper macroblock of `mb` is available (same slice, inside the frame).
fn left_available(mb: u32, slice: u32) -> bool {
    return (mb % params.width_mbs) != 0u && headers[mb - 1u].slice == slice;
}

fn up_available(mb: u32, slice: u32) -> bool {
    return mb % params.picture_mbs >= params.width_mbs && headers[mb - params.width_mbs].slice == slice;
}

// ue(v) as (code, len); code < 2^16.
fn ue_code(v: u32) -> vec2<u32> {
    let x = v + 1u;
    return vec2<u32>(x, 2u * firstLeadingBit(x) + 1u);
}

fn se_code(v: i32) -> vec2<u32> {
    if v > 0 {
        return ue_code(2u * u32(v) - 1u);
    }
    return ue_code(2u * u32(-v));
}

fn intra4x4_mode(h: MbHeader, i: u32) -> u32 {
    let word = select(h.modes0, h.modes1, i >= 8u);
    return (word >> (4u * (i % 8u))) & 15u;
}

fn has_qp_delta(h: MbHeader) -> bool {
    return is_i16(h) || cbp_luma(h) != 0u || cbp_chroma(h) != 0u;
}

// Bits of the macroblock's header (mb_type .. mb_qp_delta), as frame.rs writes it.
fn header_bits(h: MbHeader) -> u32 {
    var bits = ue_code(h.mb_type).y + ue_code(h.intra_chroma_pred_mode).y;
    if !is_i16(h) {
        for (var i = 0u; i < 16u; i++) {
            bits += select(4u, 1u, intra4x4_mode(h, i) == 8u);
        }
        bits += ue_code(cavlc_tables[CBP_BASE + h.coded_block_pattern]).y;
    }
    if has_qp_delta(h) {
        bits += se_code(h.mb_qp_delta).y;
    }
    return bits;
}
