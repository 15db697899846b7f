// A texture's texels (copied into a buffer, rows `bytes_per_row` apart) as the samples an
// encoder's front end reads: u16 samples interleaved by component, two per word, the first
// in the low half (src/j2k/dwt_gpu.rs `upload_samples`). Grey textures give one component;
// four-channel ones three (R, G, B; alpha left out), BGRA reordered.
// CPU twin: src/j2k/texture_samples.rs `texture_samples_cpu`.
//
// Each invocation writes whole words, a grid-stride loop over them.

// keep in sync with src/j2k/texture_samples.rs `UnpackParams`
struct UnpackParams {
    width: u32,
    height: u32,
    components: u32,
    texel_bytes: u32, // 1, 2, 4 or 8
    channel_bytes: u32, // 1 or 2
    bytes_per_row: u32,
    swap_rb: u32, // BGRA: the texel's channel 0 is blue
    words: u32,
}

@group(0) @binding(0) var<uniform> params: UnpackParams;
@group(0) @binding(1) var<storage, read> texels: array<u32>;
@group(0) @binding(2) var<storage, read_write> samples: array<u32>;

// Sample `s` (interleaved by component) from its texel's channel.
fn sample_at(s: u32) -> u32 {
    let p = params;
    let pixel = s / p.components;
    let c = s % p.components;
    let x = pixel % p.width;
    let y = pixel / p.width;
    var channel = c;
    if p.swap_rb != 0u && p.components == 3u {
        channel = 2u - c;
    }
    let at = y * p.bytes_per_row + x * p.texel_bytes + channel * p.channel_bytes;
    let value = texels[at / 4u] >> ((at % 4u) * 8u);
    return select(value & 0xffu, value & 0xffffu, p.channel_bytes == 2u);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let p = params;
    let n = p.width * p.height * p.components;
    for (var i = id.x; i < p.words; i += groups.x * 64u) {
        let s = 2u * i;
        var hi = 0u;
        if s + 1u < n {
            hi = sample_at(s + 1u);
        }
        samples[i] = sample_at(s) | (hi << 16u);
    }
}
