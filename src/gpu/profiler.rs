use super::Gpu;
use crate::Result;

/// Kernel times from timestamp queries: each profiled compute pass writes a begin and
/// an end timestamp; `timings` resolves them after the work is submitted.
pub struct Profiler {
    query_set: Option<wgpu::QuerySet>,
    resolve: Option<wgpu::Buffer>,
    labels: Vec<&'static str>,
    capacity: u32,
    /// The times once read back with a caller's data ([`Self::timings_from`]), so that
    /// [`Self::timings`] does not read them a second time.
    read_back: std::sync::OnceLock<Timings>,
}

/// Seconds per profiled pass label, summed over passes with the same label.
#[derive(Clone, Debug, Default)]
pub struct Timings {
    pub passes: Vec<(&'static str, f64)>,
    /// First pass's begin to last pass's end.
    pub span: f64,
    /// The first pass's begin and the last pass's end on the GPU's clock, in seconds
    /// (0 when nothing was timed): timings of different submissions on one GPU line up.
    pub begin: f64,
    pub end: f64,
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
            read_back: std::sync::OnceLock::new(),
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

    /// The resolved queries' range, for a caller that reads it back with its own data
    /// ([`Self::timings_from`] then reads the bytes); None when nothing was timed.
    pub fn resolved_range(&self) -> Option<(&wgpu::Buffer, u64, u64)> {
        let resolve = self.resolve.as_ref()?;
        (!self.labels.is_empty()).then(|| (resolve, 0, self.labels.len() as u64 * 16))
    }

    /// Read the resolved times (after the encoder was submitted); those already read
    /// back with a caller's data come without another read.
    pub async fn timings(&self, gpu: &Gpu) -> Result<Timings> {
        if let Some(t) = self.read_back.get() {
            return Ok(t.clone());
        }
        let Some((resolve, offset, len)) = self.resolved_range() else {
            return Ok(Timings::default());
        };
        let bytes = gpu.read_buffer(resolve, offset, len).await?;
        Ok(self.times_in(gpu, &bytes))
    }

    /// The times in `bytes`, read back from [`Self::resolved_range`] with a caller's
    /// data; kept for [`Self::timings`].
    pub fn timings_from(&self, gpu: &Gpu, bytes: &[u8]) -> Timings {
        let t = self.times_in(gpu, bytes);
        let _ = self.read_back.set(t.clone());
        t
    }

    fn times_in(&self, gpu: &Gpu, bytes: &[u8]) -> Timings {
        if self.labels.is_empty() || bytes.len() < self.labels.len() * 16 {
            return Timings::default();
        }
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes[..self.labels.len() * 16]);
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
        Timings {
            passes,
            span,
            begin: ticks[0] as f64 * period,
            end: last as f64 * period,
        }
    }
}
