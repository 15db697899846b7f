use super::{Gpu, PooledBuffer};

/// Part of an input resident on the GPU: at most one storage binding, padded with zeros
/// to 16 bytes (the kernels read 128 bits at a time; the padding is never encoded).
pub(crate) struct Window {
    pub buffer: PooledBuffer,
    /// Byte offset of the window in the input.
    pub offset: u64,
    pub n_bytes: u64,
}

impl Gpu {
    /// Copy `data` into windows of `window_bytes` (the last one shorter).
    pub(crate) fn upload_windows(&self, data: &[u8], window_bytes: u64) -> Vec<Window> {
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let mut windows = Vec::new();
        let mut offset = 0u64;
        while offset < data.len() as u64 {
            let n = (data.len() as u64 - offset).min(window_bytes.max(16));
            let padded = n.next_multiple_of(16);
            let buffer = self.pooled_buffer(padded, usage);
            let body = &data[offset as usize..(offset + n) as usize];
            let whole = body.len() & !3;
            if whole > 0 {
                self.queue.write_buffer(&buffer, 0, &body[..whole]);
            }
            // The last partial word, then zeros up to the padding.
            let padding = (padded - whole as u64) as usize;
            if padding > 0 {
                let mut tail = [0u8; 16];
                tail[..body.len() - whole].copy_from_slice(&body[whole..]);
                self.queue
                    .write_buffer(&buffer, whole as u64, &tail[..padding]);
            }
            windows.push(Window {
                buffer,
                offset,
                n_bytes: n,
            });
            offset += n;
        }
        windows
    }
}
