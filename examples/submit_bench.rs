//! What a submission costs the GPU itself: `K` passes of one kernel (each writes the
//! buffer the next reads, so wgpu puts a barrier between them, as between a chunk's
//! passes), recorded three ways: one command buffer, `K` command buffers in one submit,
//! and `K` submits back to back (queued well ahead: each pass runs `LOOPS` rounds of
//! arithmetic, longer than a submit call takes on the host). Each way: the GPU's span from
//! the first pass's start to the last one's end, the passes' own time, and the median gap
//! between one pass's end and the next one's start, by timestamps. A stream pipeline
//! makes two submissions a chunk; if the gap grows with submissions, they cost the GPU.
//!
//!     cargo run --release --example submit_bench
//!
//! `K` (100) passes, `LOOPS` (4096) rounds a pass, `WORKGROUPS` (264) a pass; a software
//! adapter's defaults are small (10, 16 and 8).

const SHADER: &str = r#"
override LOOPS: u32 = 4096u;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(256)
fn spin(@builtin(global_invocation_id) id: vec3<u32>) {
    var x = data[id.x];
    for (var i = 0u; i < LOOPS; i++) {
        x = x * 1664525u + 1013904223u;
    }
    data[id.x] = x;
}
"#;

#[path = "support/mod.rs"]
mod support;
use support::{env_or, median};

fn main() {
    let adapter = support::high_performance_adapter();
    if !adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
        println!("{}: no timestamp queries", adapter.get_info().name);
        return;
    }
    // A software adapter (the tests' lavapipe) gets small defaults.
    let small = adapter.get_info().device_type == wgpu::DeviceType::Cpu;
    let k = env_or("K", if small { 10u32 } else { 100 }).max(2);
    let loops = env_or("LOOPS", if small { 16u32 } else { 4096 });
    let groups = env_or("WORKGROUPS", if small { 8u32 } else { 264 });
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: wgpu::Features::TIMESTAMP_QUERY,
        ..Default::default()
    }))
    .expect("a device");
    println!(
        "{} ({:?}): {k} passes of {groups} workgroups, {loops} rounds each",
        adapter.get_info().name,
        adapter.get_info().backend
    );
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("submit_bench"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("submit_bench.spin"),
        layout: None,
        module: &module,
        entry_point: Some("spin"),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants: &[("LOOPS", loops as f64)],
            ..Default::default()
        },
        cache: None,
    });
    let data = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: groups as u64 * 256 * 4,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: data.as_entire_binding(),
        }],
    });
    let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
        label: None,
        ty: wgpu::QueryType::Timestamp,
        count: 2 * k,
    });
    let resolved = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16 * k as u64,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16 * k as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let record = |encoder: &mut wgpu::CommandEncoder, i: u32| {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &queries,
                beginning_of_pass_write_index: Some(2 * i),
                end_of_pass_write_index: Some(2 * i + 1),
            }),
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(groups, 1, 1);
    };
    let new_encoder = || device.create_command_encoder(&Default::default());
    let period = queue.get_timestamp_period() as f64 * 1e-3; // microseconds a tick
                                                             // Each way's timestamps resolved and read back; (span, passes, median gap) in us.
    let measure = |submit: &dyn Fn()| -> (f64, f64, f64) {
        submit();
        let mut encoder = new_encoder();
        encoder.resolve_query_set(&queries, 0..2 * k, &resolved, 0);
        encoder.copy_buffer_to_buffer(&resolved, 0, &readback, 0, 16 * k as u64);
        queue.submit([encoder.finish()]);
        readback
            .slice(..)
            .map_async(wgpu::MapMode::Read, |r| r.expect("mapped"));
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        let t: Vec<u64> = bytemuck::pod_collect_to_vec(
            &readback.slice(..).get_mapped_range().expect("mapped range"),
        );
        readback.unmap();
        let us = |i: usize| t[i] as f64 * period;
        let span = us(2 * k as usize - 1) - us(0);
        let passes: f64 = (0..k as usize).map(|i| us(2 * i + 1) - us(2 * i)).sum();
        let gaps = (1..k as usize).map(|i| us(2 * i) - us(2 * i - 1)).collect();
        (span, passes, median(gaps))
    };
    let one_buffer = || {
        let mut encoder = new_encoder();
        for i in 0..k {
            record(&mut encoder, i);
        }
        queue.submit([encoder.finish()]);
    };
    // A command buffer a pass, all recorded before any is submitted.
    let buffers = || -> Vec<wgpu::CommandBuffer> {
        (0..k)
            .map(|i| {
                let mut encoder = new_encoder();
                record(&mut encoder, i);
                encoder.finish()
            })
            .collect()
    };
    let one_submit = || {
        queue.submit(buffers());
    };
    let many_submits = || {
        for b in buffers() {
            queue.submit([b]);
        }
    };
    let ways: [(&str, &dyn Fn()); 3] = [
        ("one command buffer", &one_buffer),
        ("a command buffer each, one submit", &one_submit),
        ("a submit each", &many_submits),
    ];
    // A warm-up round (the GPU's clocks rise with load), then three rounds.
    for round in 0..4 {
        for (name, way) in ways {
            let (span, passes, gap) = measure(way);
            if round > 0 {
                println!(
                    "round {round}, {name}: span {span:.1} us, passes {:.1} us each, gap between passes median {gap:.1} us, span per pass {:.1} us",
                    passes / k as f64,
                    span / k as f64
                );
            }
        }
    }
}
