use super::Gpu;
use crate::{Error, Result};

impl Gpu {
    /// Copy `len` bytes at `offset` of `source` back to the host. The buffer needs
    /// COPY_SRC; offset and len multiples of 4. Async: on the web it yields to the event
    /// loop; natively wgpu needs the device polled, which this does for its own submission.
    pub async fn read_buffer(
        &self,
        source: &wgpu::Buffer,
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let staging = self.pooled_buffer(
            len,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("parvlc.readback"),
            });
        encoder.copy_buffer_to_buffer(source, offset, &staging, 0, len);
        let submission = self.queue.submit([encoder.finish()]);
        let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
        staging
            .slice(..len)
            .map_async(wgpu::MapMode::Read, move |r| {
                let _ = sender.send(r);
            });
        #[cfg(not(target_arch = "wasm32"))]
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(submission),
                timeout: None,
            })
            .map_err(|e| Error::Readback(e.to_string()))?;
        #[cfg(target_arch = "wasm32")]
        let _ = submission;
        match receiver.receive().await {
            Some(Ok(())) => {}
            Some(Err(e)) => return Err(Error::Readback(e.to_string())),
            None => return Err(Error::Readback("map callback dropped".into())),
        }
        let bytes = staging
            .slice(..len)
            .get_mapped_range()
            .map_err(|e| Error::Readback(e.to_string()))?
            .to_vec();
        staging.unmap();
        self.check_errors("readback")?;
        Ok(bytes)
    }

    /// Wait until all submitted work has finished (natively; a no-op on the web).
    pub fn wait_idle(&self) -> Result<()> {
        #[cfg(not(target_arch = "wasm32"))]
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Readback(e.to_string()))?;
        self.check_errors("wait")
    }
}
