use super::{Gpu, PooledBuffer};
use crate::{Error, Result};

/// Part of an input resident on the GPU: at most one storage binding, padded with zeros
/// to 16 bytes (the kernels read 128 bits at a time; the padding is never encoded).
pub(crate) struct Window {
    pub buffer: PooledBuffer,
    /// Byte offset of the window in the input.
    pub offset: u64,
    pub n_bytes: u64,
}

impl Gpu {
    /// Copy `data` into windows of `window_bytes` (the last one shorter): into the queue's
    /// staging by the streaming copy (only the GPU reads it), then the padding's zeros.
    pub(crate) fn upload_windows(&self, data: &[u8], window_bytes: u64) -> Result<Vec<Window>> {
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let mut windows = Vec::new();
        let mut offset = 0u64;
        while offset < data.len() as u64 {
            let n = (data.len() as u64 - offset).min(window_bytes.max(16));
            let padded = n.next_multiple_of(16);
            let buffer = self.pooled_buffer(padded, usage);
            let body = &data[offset as usize..(offset + n) as usize];
            let mut view = wgpu::BufferSize::new(padded)
                .and_then(|size| self.queue.write_buffer_with(&buffer, 0, size))
                .ok_or_else(|| Error::Gpu {
                    stage: "upload",
                    message: format!("wgpu refused a write of {padded} bytes of input"),
                })?;
            let mut body_part = view.slice(..);
            let padding = body_part.split_off(body.len()..);
            super::staging::write_mapped(&mut body_part, body);
            if let Some(mut padding) = padding {
                padding.fill(0);
            }
            windows.push(Window {
                buffer,
                offset,
                n_bytes: n,
            });
            offset += n;
        }
        Ok(windows)
    }
}
