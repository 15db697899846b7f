// Bindings and records shared by the tier-1 stages (shaders/j2k/tier1.wgsl,
// shaders/j2k/tier1_split.wgsl) and their libraries.

// keep in sync with src/j2k/tier1/gpu.rs `Tier1Params`
struct Tier1Params {
    n_blocks: u32,
    // First bit-plane (1-based from the most significant) whose SPP and MRP bypass the
    // MQ coder; 0: none (all passes MQ-coded).
    bypass_from: u32,
    // The bit-plane (1-based) a three-kernel dispatch works on; unused by the one-kernel.
    plane: u32,
    pad1: u32,
}

// keep in sync with src/j2k/tier1/gpu.rs `BlockDesc`
struct BlockDesc {
    coeff_offset: u32, // first coefficient (row-major) in `coeffs`
    width: u32,
    height: u32,
    orient: u32,       // 0 LL, 1 HL, 2 LH, 3 HH
    out_word: u32,     // first word of the block's output region
    cap_words: u32,    // words in the region
    result: u32,       // first word of the block's result record
    pad: u32,
}

@group(0) @binding(0) var<uniform> params: Tier1Params;
@group(0) @binding(1) var<storage, read> blocks: array<BlockDesc>;
@group(0) @binding(2) var<storage, read> coeffs: array<i32>;
// Bytes of every block, little-endian within words.
@group(0) @binding(3) var<storage, read_write> out_words: array<u32>;
// Per block (keep in sync with src/j2k/tier1/gpu.rs `RESULT_*`): bytes, bit-planes,
// passes, then one word per pass: bits 0-29 its raw rate, bit 30 "MQ pass not
// terminated" (OpenJPEG's rate = bytes + 3), bit 31 terminated.
@group(0) @binding(4) var<storage, read_write> results: array<u32>;

// Pass words of `results`: bits 0-29 the rate, bit 30 an MQ pass that does not end its
// segment (OpenJPEG's rate is then these bytes + 2), bit 31 terminated.
const PASS_MQ_OPEN: u32 = 0x40000000u;
const PASS_TERM: u32 = 0x80000000u;
