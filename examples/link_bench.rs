//! What the link between host and GPU moves through wgpu, each way and each method: the
//! ceiling of a host-to-host compress (issue 13). Every figure is GB/s over `N` chunks of
//! `CHUNK_MIB` (4) submitted back to back, wall clock from the first submission to the
//! GPU's last completion, best of three; each method's bytes are checked once first.
//!
//!     cargo run --release --example link_bench
//!
//! Methods, to the GPU: `queue.write_buffer` (wgpu's staging, then its copy; one thread),
//! a copy from a mapped upload buffer, and a kernel reading a mapped buffer in place
//! (`MAPPABLE_PRIMARY_BUFFERS`, where the adapter has it). Back: a copy into a mappable
//! buffer, a kernel writing a mappable buffer in place, and the encoder's way of writing
//! (atomic stores, every block's first and last word OR-ed) into device memory and copied
//! back, against into a mappable buffer in place. Device to device for scale.

use std::time::Instant;

#[path = "support/mod.rs"]
mod support;
use support::env_or;

const SHADER: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@compute @workgroup_size(256)
fn copy(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let stride = n.x * 256u;
    for (var i = id.x; i < arrayLength(&dst); i += stride) {
        dst[i] = src[i];
    }
}
"#;

/// The encoder's way of writing (shaders/common/bitwriter.wgsl): each word stored as an
/// atomic, the first and last of every block OR-ed in (neighbouring blocks share them).
const EDGES_SHADER: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<atomic<u32>>;
const BLOCK_WORDS: u32 = 640u;
@compute @workgroup_size(256)
fn edges(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let stride = n.x * 256u;
    for (var i = id.x; i < arrayLength(&dst); i += stride) {
        let k = i % BLOCK_WORDS;
        if k == 0u || k + 1u == BLOCK_WORDS {
            atomicOr(&dst[i], src[i]);
        } else {
            atomicStore(&dst[i], src[i]);
        }
    }
}
"#;

fn main() {
    let chunk = env_or("CHUNK_MIB", 4usize) << 20;
    let n = env_or("N", 64usize);
    let adapter = support::high_performance_adapter();
    let mappable = adapter
        .features()
        .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: if mappable {
            wgpu::Features::MAPPABLE_PRIMARY_BUFFERS
        } else {
            wgpu::Features::empty()
        },
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .expect("a device");
    println!(
        "{} ({:?}), chunks of {} MiB x {n}, mappable storage: {mappable}",
        adapter.get_info().name,
        adapter.get_info().backend,
        chunk >> 20
    );
    let data: Vec<u8> = (0..chunk).map(|i| (i * 131 % 251) as u8).collect();
    let buffer = |usage: wgpu::BufferUsages, init: bool| {
        let b = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: chunk as u64,
            usage,
            mapped_at_creation: init,
        });
        if init {
            b.slice(..)
                .get_mapped_range_mut()
                .expect("mapped")
                .copy_from_slice(&data);
            b.unmap();
        }
        b
    };
    use wgpu::BufferUsages as U;
    // The entry point `entry` of the WGSL `source`, its layout the shader's own.
    let compute_pipeline = |source: &str, entry: &str| {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let pipeline = compute_pipeline(SHADER, "copy");
    let edges_pipeline = compute_pipeline(EDGES_SHADER, "edges");
    let wait = || {
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll")
    };
    let read_back = |b: &wgpu::Buffer| -> Vec<u8> {
        let staging = buffer(U::MAP_READ | U::COPY_DST, false);
        let mut e = device.create_command_encoder(&Default::default());
        e.copy_buffer_to_buffer(b, 0, &staging, 0, chunk as u64);
        queue.submit([e.finish()]);
        staging.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        wait();
        let v = staging
            .slice(..)
            .get_mapped_range()
            .expect("mapped")
            .to_vec();
        staging.unmap();
        v
    };
    let read_mapped = |b: &wgpu::Buffer| -> Vec<u8> {
        b.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        wait();
        let v = b.slice(..).get_mapped_range().expect("mapped").to_vec();
        b.unmap();
        v
    };
    let run_kernel = |pipeline: &wgpu::ComputePipeline,
                      e: &mut wgpu::CommandEncoder,
                      src: &wgpu::Buffer,
                      dst: &wgpu::Buffer| {
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: src.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: dst.as_entire_binding(),
                },
            ],
        });
        let mut pass = e.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(1024, 1, 1);
    };
    let kernel = |e: &mut wgpu::CommandEncoder, src: &wgpu::Buffer, dst: &wgpu::Buffer| {
        run_kernel(&pipeline, e, src, dst)
    };
    // The encoder's writes (a destination zeroed once: OR-ing the same words again leaves
    // them as they are, so every run's result is checkable).
    let edges = |e: &mut wgpu::CommandEncoder, src: &wgpu::Buffer, dst: &wgpu::Buffer| {
        run_kernel(&edges_pipeline, e, src, dst)
    };
    let report = |name: &str, f: &mut dyn FnMut()| {
        f();
        wait();
        let best = (0..3)
            .map(|_| {
                let t = Instant::now();
                f();
                wait();
                t.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min);
        println!(
            "{name:<48} {:>7.1} GB/s  ({:.1} us a chunk)",
            (n * chunk) as f64 / best / 1e9,
            best / n as f64 * 1e6
        );
    };
    let device_a = buffer(U::STORAGE | U::COPY_DST | U::COPY_SRC, false);
    let device_b = buffer(U::STORAGE | U::COPY_DST | U::COPY_SRC, false);

    // To the GPU.
    queue.write_buffer(&device_a, 0, &data);
    queue.submit([]);
    assert!(read_back(&device_a) == data, "write_buffer");
    report("up: queue.write_buffer, one thread", &mut || {
        for _ in 0..n {
            queue.write_buffer(&device_a, 0, &data);
            queue.submit([]);
        }
    });
    // `n` submissions of what `record` records.
    let each = |name: &str, record: &dyn Fn(&mut wgpu::CommandEncoder)| {
        report(name, &mut || {
            for _ in 0..n {
                let mut e = device.create_command_encoder(&Default::default());
                record(&mut e);
                queue.submit([e.finish()]);
            }
        })
    };
    let copy = |e: &mut wgpu::CommandEncoder, src: &wgpu::Buffer, dst: &wgpu::Buffer| {
        e.copy_buffer_to_buffer(src, 0, dst, 0, chunk as u64)
    };
    let upload = buffer(U::MAP_WRITE | U::COPY_SRC, true);
    each("up: copy from a mapped upload buffer", &|e| {
        copy(e, &upload, &device_b)
    });
    assert!(read_back(&device_b) == data, "copy from upload");
    each("device to device: copy", &|e| copy(e, &device_a, &device_b));
    each("device to device: kernel", &|e| {
        kernel(e, &device_a, &device_b)
    });
    assert!(read_back(&device_b) == data, "kernel copy");
    if mappable {
        let host_in = buffer(U::MAP_WRITE | U::STORAGE, true);
        each("up: kernel reading a mapped buffer in place", &|e| {
            kernel(e, &host_in, &device_a)
        });
        assert!(read_back(&device_a) == data, "kernel from mapped");
    }

    // Back.
    let staging = buffer(U::MAP_READ | U::COPY_DST, false);
    each("back: copy into a mappable buffer", &|e| {
        copy(e, &device_a, &staging)
    });
    assert!(read_mapped(&staging) == data, "copy back");
    // The encoder's writes into device memory, then the copy back (today's readback),
    // against into mappable memory in place (atomics across the link).
    let zeroed = buffer(U::STORAGE | U::COPY_SRC | U::COPY_DST, false);
    each("back: encoder's writes, then a copy", &|e| {
        edges(e, &device_a, &zeroed);
        copy(e, &zeroed, &staging)
    });
    assert!(read_mapped(&staging) == data, "encoder's writes, copied");
    if mappable {
        let host_out = buffer(U::MAP_READ | U::STORAGE, false);
        each("back: kernel writing a mappable buffer in place", &|e| {
            kernel(e, &device_a, &host_out)
        });
        assert!(read_mapped(&host_out) == data, "kernel to mapped");
        let host_edges = buffer(U::MAP_READ | U::STORAGE, false);
        each("back: encoder's writes into a mappable buffer", &|e| {
            edges(e, &device_a, &host_edges)
        });
        assert!(
            read_mapped(&host_edges) == data,
            "encoder's writes into mappable memory"
        );
        // Both ways at once: a kernel from one mapped buffer into another.
        let host_in = buffer(U::MAP_WRITE | U::STORAGE, true);
        each("both: kernel from a mapped buffer to another", &|e| {
            kernel(e, &host_in, &host_out)
        });
        assert!(read_mapped(&host_out) == data, "kernel mapped to mapped");
    }
    // The host's side: threads each copying chunks into a mapped upload buffer of its
    // own (the upload's copy), and out of a mapped readback buffer (the readback's).
    for threads in [1usize, 2, 4, 8, 16] {
        let ups: Vec<wgpu::Buffer> = (0..threads)
            .map(|_| buffer(U::MAP_WRITE | U::COPY_SRC, true))
            .collect();
        // A readback buffer for every chunk read, so that no read hits the host's caches.
        let per_thread = n.div_ceil(threads);
        let backs: Vec<wgpu::Buffer> = (0..per_thread * threads)
            .map(|_| buffer(U::MAP_READ | U::COPY_DST, false))
            .collect();
        let mut e = device.create_command_encoder(&Default::default());
        for b in &backs {
            e.copy_buffer_to_buffer(&device_a, 0, b, 0, chunk as u64);
        }
        queue.submit([e.finish()]);
        for u in &ups {
            u.slice(..).map_async(wgpu::MapMode::Write, |_| {});
        }
        for b in &backs {
            b.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        }
        wait();
        let targets: Vec<std::sync::Mutex<wgpu::BufferViewMut>> = ups
            .iter()
            .map(|u| std::sync::Mutex::new(u.slice(..).get_mapped_range_mut().expect("mapped")))
            .collect();
        let back_views: Vec<_> = backs
            .iter()
            .map(|b| b.slice(..).get_mapped_range().expect("mapped"))
            .collect();
        let total = (per_thread * threads * chunk) as f64;
        let time = |f: &(dyn Fn(usize) + Sync)| {
            (0..3)
                .map(|_| {
                    let t = Instant::now();
                    std::thread::scope(|s| {
                        for i in 0..threads {
                            s.spawn(move || f(i));
                        }
                    });
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::MAX, f64::min)
        };
        let up = time(&|i| {
            let mut dst = targets[i].lock().expect("lock");
            for _ in 0..per_thread {
                dst.copy_from_slice(&data);
            }
        });
        let sources: Vec<&[u8]> = back_views.iter().map(|v| &v[..]).collect();
        let mut sinks: Vec<std::sync::Mutex<Vec<u8>>> = (0..threads)
            .map(|_| std::sync::Mutex::new(vec![1u8; chunk]))
            .collect();
        let back = time(&|i| {
            let mut dst = sinks[i].lock().expect("lock");
            for k in 0..per_thread {
                dst.copy_from_slice(sources[k * threads + i]);
            }
        });
        assert!(sinks
            .iter_mut()
            .all(|s| *s.get_mut().expect("lock") == data));
        println!(
            "host, {threads:>2} threads: into mapped upload {:>6.1} GB/s, out of mapped readback {:>6.1} GB/s",
            total / up / 1e9,
            total / back / 1e9
        );
        drop(targets);
        drop(back_views);
        for b in ups.iter().chain(&backs) {
            b.unmap();
        }
    }
}
