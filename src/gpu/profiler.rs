use super::Gpu;
use crate::Result;

/// Kernel times from timestamp queries: each profiled compute pass writes a begin and
/// an end timestamp; `timings` resolves them after the work is submitted.
pub struct Profiler {
    query_set: Option<wgpu::QuerySet>,
    resolve: Option<wgpu::Buffer>,
    labels: Vec<&'static str>,
    capacity: u32,
}

/// Seconds per profiled pass label, summed over passes with the same label.
#[derive(Clone, Debug, Default)]
pub struct Timings {
    pub passes: Vec<(&'static str, f64)>,
    /// First pass's begin to last pass's end.
    pub span: f64,
}

impl Timings {
    pub fn total(&self) -> f64 {
        self.passes.iter().map(|(_, s)| s).sum()
    }
    pub fn get(&self, label: &str) -> f64 {
        self.passes
            .iter()
            .filter(|(l, _)| *l == label)
            .map(|(_, s)| s)
            .sum()
    }
}

impl Profiler {
    /// Room for `capacity` passes; without TIMESTAMP_QUERY it records nothing.
    pub fn new(gpu: &Gpu, capacity: u32) -> Profiler {
        let (query_set, resolve) = if gpu.has_timestamps() && capacity > 0 {
            let count = capacity * 2;
            (
                Some(gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("parvlc.profiler"),
                    ty: wgpu::QueryType::Timestamp,
                    count,
                })),
                Some(gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("parvlc.profiler.resolve"),
                    size: count as u64 * 8,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                })),
            )
        } else {
            (None, None)
        };
        Profiler {
            query_set,
            resolve,
            labels: Vec::new(),
            capacity,
        }
    }

    /// Timestamp writes for the next pass, or None when the profiler is full or off.
    pub fn pass(&mut self, label: &'static str) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        let index = self.labels.len() as u32;
        if index >= self.capacity {
            return None;
        }
        let query_set = self.query_set.as_ref()?;
        self.labels.push(label);
        Some(wgpu::ComputePassTimestampWrites {
            query_set,
            beginning_of_pass_write_index: Some(index * 2),
            end_of_pass_write_index: Some(index * 2 + 1),
        })
    }

    /// Resolve the queries into the readback buffer; call once, at the end of encoding.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        if let (Some(q), Some(r)) = (&self.query_set, &self.resolve) {
            if !self.labels.is_empty() {
                encoder.resolve_query_set(q, 0..self.labels.len() as u32 * 2, r, 0);
            }
        }
    }

    /// Read the resolved times (after the encoder was submitted).
    pub async fn timings(&self, gpu: &Gpu) -> Result<Timings> {
        let Some(resolve) = &self.resolve else {
            return Ok(Timings::default());
        };
        if self.labels.is_empty() {
            return Ok(Timings::default());
        }
        let bytes = gpu
            .read_buffer(resolve, 0, self.labels.len() as u64 * 16)
            .await?;
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
        let period = gpu.queue.get_timestamp_period() as f64 * 1e-9;
        let mut passes: Vec<(&'static str, f64)> = Vec::new();
        for (i, label) in self.labels.iter().enumerate() {
            let secs = ticks[2 * i + 1].saturating_sub(ticks[2 * i]) as f64 * period;
            match passes.iter_mut().find(|(l, _)| l == label) {
                Some(p) => p.1 += secs,
                None => passes.push((label, secs)),
            }
        }
        let last = ticks[2 * self.labels.len() - 1];
        let span = last.saturating_sub(ticks[0]) as f64 * period;
        Ok(Timings { passes, span })
    }
}
