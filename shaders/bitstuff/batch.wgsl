// The batch both bit-stuffing stages read and write (bitstuff/vote, bitstuff/fsm): one
// workgroup per segment on a 2-D grid; raw bits in memory byte order, each segment from a
// word boundary; outputs at host-planned word offsets, room for the most bytes a segment
// can become. Host side: src/bitstuff/gpu.rs.
//!import common/invocation

// keep in sync with src/bitstuff/gpu.rs `GpuSegment`
struct Segment {
    in_word: u32,  // first input word
    bits: u32,     // raw bits
    out_word: u32, // first output word
    _pad: u32,
}

// keep in sync with src/bitstuff/gpu.rs `BatchParams`
struct BatchParams {
    n_segments: u32,
    grid_x: u32,      // workgroups per row of the 2-D grid
    predictable: u32, // 1: ERTERM termination
    _pad: u32,
}

const BATCH_NO_SEGMENT: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> params: BatchParams;
@group(0) @binding(1) var<storage, read> segments: array<Segment>;
@group(0) @binding(2) var<storage, read> input: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<u32>;
// Per segment: (bytes written, vote iterations; 0 for the fsm stage).
@group(0) @binding(4) var<storage, read_write> results: array<vec2<u32>>;

var<workgroup> batch_segment: Segment;

// Memory order (byte 0 in the low bits) <-> stream order (byte 0 in the high bits).
fn swap_bytes(x: u32) -> u32 {
    return (x >> 24u) | ((x >> 8u) & 0xff00u) | ((x << 8u) & 0xff0000u) | (x << 24u);
}

fn batch_index(inv: Invocation) -> u32 {
    return inv.wid.y * params.grid_x + inv.wid.x;
}

// This workgroup's segment, workgroup-uniform; bits == BATCH_NO_SEGMENT past the batch.
fn batch_segment_of(inv: Invocation) -> Segment {
    if inv.lid == 0u {
        let index = batch_index(inv);
        if index < params.n_segments {
            batch_segment = segments[index];
        } else {
            batch_segment = Segment(0u, BATCH_NO_SEGMENT, 0u, 0u);
        }
    }
    return workgroupUniformLoad(&batch_segment);
}
