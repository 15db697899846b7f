// Spans of a buffer's words packed into one buffer, a workgroup a span: what a readback
// of many small ranges (a picture's code-blocks) runs first, so that one copy brings them
// all back instead of a copy command per range. Host and CPU twin: src/gpu/gather.rs.

// keep in sync with src/gpu/gather.rs `GatherSpan`
struct Span {
    src_word: u32,
    dst_word: u32,
    words: u32,
    pad: u32,
}

override WG_SIZE: u32 = 64u;

@group(0) @binding(0) var<storage, read> spans: array<Span>;
@group(0) @binding(1) var<storage, read> source: array<u32>;
@group(0) @binding(2) var<storage, read_write> packed: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let n = arrayLength(&spans);
    for (var s = wg.x; s < n; s += groups.x) {
        let span = spans[s];
        for (var w = lid; w < span.words; w += WG_SIZE) {
            packed[span.dst_word + w] = source[span.src_word + w];
        }
    }
}
