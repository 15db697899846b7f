//! Where per-lane streams lose their speed: a read probe for the GPU's memory system.
//!
//! Each invocation reads `words` words of its own stream, the streams `stride` bytes
//! apart (the access shape of the vld decoder, the HT cleanup pass and bit-stuffing's
//! vote: every lane walks its own block), or the same words interleaved (coalesced), or
//! with a warp's lanes spread over the whole buffer. On the H200 those per-lane kernels
//! run 4-5x faster in a process that also holds a CUDA context; `--cuda` opens one in
//! several ways (needs `--features cuda`) so the probe can say which step matters.
//!
//!     cargo run --release --example memory_probe   (small shapes: --small, or a CPU adapter)
//!     cargo run --release --features cuda --example memory_probe -- --cuda ctx
//!
//! `--cuda none|init|ctx|ctx-drop|ctx-after`: no CUDA, `cuInit` alone, a context held from
//! the start, one created and dropped before the GPU opens, one created after the buffers.
//! `--hold SECS`: only hold the CUDA context (a second process beside a probe).
//! `--loop SECS [--gap MS] [--ramp SECS] [--late-cuda AT]`: the two own-stream reads of
//! 65,536 lanes, one kernel after another for SECS, each time printed, MS of idle between
//! them, after RAMP seconds of back-to-back kernels, a CUDA context opened AT seconds in.
//! `docs/results.md` ("The GPU's performance state") has what it showed on the H200.

use std::time::{Duration, Instant};

use parvlc::gpu::{Gpu, GpuOptions};

const SHADER: &str = r#"
struct Params { lanes: u32, stride_words: u32, words: u32, pattern: u32, zero: u32 }
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> p: Params;

// Reads (the sum lands in dst[lane]): 0 own stream, independent loads; 1 interleaved
// (coalesced); 2 own stream, each address depending on the load before (as a decoder's
// refill does); 3 own stream, a warp's 32 lanes spread over the whole buffer.
// Writes to dst: 4 own stream; 5 interleaved; 6 own stream read and own stream written;
// 7 own stream, 16 bytes a store; 8 own stream, a 128-byte line a lane at once (eight
// 16-byte stores); 9 a warp's 32 lanes writing their 32 streams a whole line at a time
// (each store instruction one stream's line, coalesced: a decoder staging its lanes'
// output and copying it out together); 10 as 9, four lines of a stream back to back.
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let lane = gid.x;
    if lane >= p.lanes { return; }
    if p.pattern >= 7u {
        wide_writes(lane);
        return;
    }
    var block = lane;
    if p.pattern == 3u {
        block = (lane % 32u) * (p.lanes / 32u) + lane / 32u;
    }
    let base = block * p.stride_words;
    var acc = 0u;
    for (var j = 0u; j < p.words; j++) {
        var w = base + j;
        if p.pattern == 1u || p.pattern == 5u {
            w = j * p.lanes + lane;
        } else if p.pattern == 2u {
            w = base + j + ((acc >> 31u) & p.zero);
        }
        if p.pattern >= 4u {
            var v = (lane * 2654435761u) ^ j;
            if p.pattern == 6u {
                v = v ^ src[w];
            }
            dst[w >> 2u][w & 3u] = v;
        } else {
            acc = (acc ^ src[w]) + j;
        }
    }
    if p.pattern < 4u {
        dst[lane >> 2u][lane & 3u] = acc;
    }
}

fn wide_writes(lane: u32) {
    let units = p.words / 4u;
    let stride = p.stride_words / 4u;
    let v = vec4<u32>(lane * 2654435761u) ^ vec4<u32>(0u, 1u, 2u, 3u);
    if p.pattern == 7u {
        for (var j = 0u; j < units; j++) {
            dst[lane * stride + j] = v ^ vec4<u32>(j);
        }
    } else if p.pattern == 8u {
        for (var j = 0u; j < units; j += 8u) {
            for (var k = 0u; k < 8u; k++) {
                dst[lane * stride + j + k] = v ^ vec4<u32>(j + k);
            }
        }
    } else {
        // Lane t of a warp writes word t of each line: a word a lane, a line a store.
        let first = lane & ~31u;
        let t = lane & 31u;
        let run = select(1u, 4u, p.pattern == 10u);
        for (var line = 0u; line < p.words / 32u; line += run) {
            for (var owner = 0u; owner < 32u; owner++) {
                for (var k = 0u; k < run; k++) {
                    let w = (first + owner) * p.stride_words + (line + k) * 32u + t;
                    dst[w >> 2u][w & 3u] = lane ^ line;
                }
            }
        }
    }
}
"#;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    lanes: u32,
    stride_words: u32,
    words: u32,
    pattern: u32,
    zero: u32,
    _pad: [u32; 3],
}

struct Case {
    name: &'static str,
    lanes: u32,
    stride: u32,
    words: u32,
    pattern: u32,
}

fn cases(small: bool) -> Vec<Case> {
    let k = |x: u32| x << 10;
    let scale = if small { 64 } else { 1 };
    let c = |name, lanes: u32, stride, words, pattern| Case {
        name,
        lanes: lanes / scale,
        stride,
        words,
        pattern,
    };
    vec![
        c("own 16K x 4096 lanes (64 MiB)", 4096, k(16), 2304, 0),
        c("own 16K x 16384 lanes (256 MiB)", 16384, k(16), 2304, 0),
        c("own 16K x 65536 lanes (1 GiB)", 65536, k(16), 2304, 0),
        c("own 16K x 65536, dependent", 65536, k(16), 2304, 2),
        c("own 16K x 65536, warp spread", 65536, k(16), 2304, 3),
        c("own 4K x 65536 lanes (256 MiB)", 65536, k(4), 1024, 0),
        c("own 64K x 16384 lanes (1 GiB)", 16384, k(64), 2304, 0),
        c("own 2M x 512 lanes (1 GiB)", 512, k(2048), 2304, 0),
        c("interleaved x 65536 lanes", 65536, 4, 2304, 1),
        c("write own 16K x 4096 lanes", 4096, k(16), 4096, 4),
        c("write own 16K x 65536 lanes", 65536, k(16), 4096, 4),
        c("write interleaved x 65536 lanes", 65536, 4, 4096, 5),
        c("read+write own 16K x 65536 lanes", 65536, k(16), 4096, 6),
        c("write own 16K x 65536, 16 B a store", 65536, k(16), 4096, 7),
        c(
            "write own 16K x 65536, a line a lane",
            65536,
            k(16),
            4096,
            8,
        ),
        c(
            "write own 16K x 65536, a line a warp",
            65536,
            k(16),
            4096,
            9,
        ),
        c(
            "write own 16K x 65536, 4 lines a warp",
            65536,
            k(16),
            4096,
            10,
        ),
    ]
}

struct Options {
    cuda: String,
    small: bool,
    looping: Option<f64>,
    gap: Duration,
    ramp: Option<f64>,
    late_cuda: Option<f64>,
}

/// The GPU, its pipeline and buffers.
struct Probe {
    gpu: Gpu,
    pipeline: wgpu::ComputePipeline,
    src: wgpu::Buffer,
    dst: wgpu::Buffer,
    bytes: u64,
    small: bool,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let secs = |name: &str| flag(name).map(|v| v.parse::<f64>()).transpose();
    let options = Options {
        cuda: flag("--cuda").unwrap_or_else(|| "none".into()),
        small: args.iter().any(|a| a == "--small"),
        looping: secs("--loop")?,
        gap: Duration::from_secs_f64(secs("--gap")?.unwrap_or(0.0) / 1e3),
        ramp: secs("--ramp")?,
        late_cuda: secs("--late-cuda")?,
    };
    #[cfg(not(feature = "cuda"))]
    if options.cuda != "none" || options.late_cuda.is_some() {
        return Err("CUDA options need --features cuda".into());
    }
    #[cfg(feature = "cuda")]
    let mut held = cuda_step(&options.cuda, "before")?;
    if let Some(hold) = secs("--hold")? {
        std::thread::sleep(Duration::from_secs_f64(hold));
        return Ok(());
    }
    let probe = Probe::new(options.small)?;
    #[cfg(feature = "cuda")]
    if options.cuda == "ctx-after" {
        held = cuda_step("ctx", "after")?;
    }
    println!(
        "adapter: {}; cuda: {}; buffer {} MiB",
        probe.gpu.adapter_name(),
        options.cuda,
        probe.bytes >> 20
    );
    for case in cases(probe.small) {
        let span = case.lanes as u64 * case.stride as u64;
        // Bytes read or written, whichever the pattern moves (each, for 6).
        let moved = case.lanes as u64 * case.words as u64 * 4;
        // --loop: the two own-stream reads of all lanes.
        let loop_case = case.name.starts_with("own") && case.name.contains("x 65536 lanes");
        if span.max(moved) > probe.bytes || options.looping.is_some() && !loop_case {
            continue;
        }
        let bind = probe.bind(&case);
        if let Some(ramp) = options.ramp {
            let t = Instant::now();
            let mut n = 0;
            while t.elapsed().as_secs_f64() < ramp {
                probe.submit(&case, &bind);
                n += 1;
                if n % 8 == 0 {
                    probe.wait()?;
                }
            }
            probe.wait()?;
            println!("ramp: {n} kernels back to back in {ramp} s");
        }
        let began = Instant::now();
        let mut best = Duration::MAX;
        let mut runs = 0;
        while match options.looping {
            Some(secs) => began.elapsed().as_secs_f64() < secs,
            None => runs < 5,
        } {
            runs += 1;
            #[cfg(feature = "cuda")]
            if held.is_none()
                && options
                    .late_cuda
                    .is_some_and(|at| began.elapsed().as_secs_f64() >= at)
            {
                println!(
                    "{:.3} opening a CUDA context",
                    began.elapsed().as_secs_f64()
                );
                held = cuda_step("ctx", "late")?;
            }
            let start = Instant::now();
            probe.submit(&case, &bind);
            probe.wait()?;
            let took = start.elapsed();
            best = best.min(took);
            if options.looping.is_some() {
                println!(
                    "{:.3} {:.3} ms {:.1} GB/s",
                    began.elapsed().as_secs_f64(),
                    took.as_secs_f64() * 1e3,
                    moved as f64 / took.as_secs_f64() / 1e9
                );
                std::thread::sleep(options.gap);
            }
        }
        println!(
            "{:<36} {:>8.1} GB/s ({:.2} ms)",
            case.name,
            moved as f64 / best.as_secs_f64() / 1e9,
            best.as_secs_f64() * 1e3
        );
    }
    #[cfg(feature = "cuda")]
    drop(held);
    Ok(())
}

impl Probe {
    fn new(small: bool) -> Result<Probe, Box<dyn std::error::Error>> {
        let gpu = pollster::block_on(Gpu::new(GpuOptions {
            pipeline_cache: None,
            ..Default::default()
        }))?;
        // A software adapter (the tests' lavapipe) gets the small shapes.
        let small = small || gpu.info.device_type == wgpu::DeviceType::Cpu;
        let bytes: u64 = if small { 16 << 20 } else { 1 << 30 };
        let buffer = |label| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let (src, dst) = (buffer("probe src"), buffer("probe dst"));
        // Real bytes, not zeroes a driver could keep compressed.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let noise: Vec<u8> = (0..bytes)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        gpu.queue.write_buffer(&src, 0, &noise);
        let module = gpu
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("memory probe"),
                source: wgpu::ShaderSource::Wgsl(SHADER.into()),
            });
        let pipeline = gpu
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("memory probe"),
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        Ok(Probe {
            gpu,
            pipeline,
            src,
            dst,
            bytes,
            small,
        })
    }

    fn bind(&self, case: &Case) -> wgpu::BindGroup {
        let params = Params {
            lanes: case.lanes,
            stride_words: case.stride / 4,
            words: case.words,
            pattern: case.pattern,
            zero: 0,
            _pad: [0; 3],
        };
        let uniform = wgpu::util::DeviceExt::create_buffer_init(
            &self.gpu.device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("probe params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            },
        );
        self.gpu
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("memory probe"),
                layout: &self.pipeline.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: self.src.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: self.dst.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: uniform.as_entire_binding(),
                    },
                ],
            })
    }

    fn submit(&self, case: &Case, bind: &wgpu::BindGroup) {
        let mut commands = self.gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = commands.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("memory probe"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, bind, &[]);
            pass.dispatch_workgroups(case.lanes.div_ceil(64), 1, 1);
        }
        self.gpu.queue.submit([commands.finish()]);
    }

    fn wait(&self) -> Result<(), wgpu::PollError> {
        self.gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
    }
}

/// Opens CUDA as `mode` says at the `when` step; what it returns is held until the end.
#[cfg(feature = "cuda")]
fn cuda_step(
    mode: &str,
    when: &str,
) -> Result<Option<parvlc::cuda::CudaGpu>, Box<dyn std::error::Error>> {
    match (mode, when) {
        ("init", "before") => {
            // SAFETY: cuInit has no preconditions; the library is loaded by cudarc.
            let status = unsafe { cudarc::driver::sys::cuInit(0) };
            println!("cuInit: {status:?}");
            Ok(None)
        }
        ("ctx", _) => Ok(Some(parvlc::cuda::CudaGpu::new()?)),
        ("ctx-drop", "before") => {
            drop(parvlc::cuda::CudaGpu::new()?);
            Ok(None)
        }
        _ => Ok(None),
    }
}
