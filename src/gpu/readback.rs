use super::{Gpu, PooledBuffer};
use crate::{Error, Result};

/// Reads recorded by [`Gpu::record_reads`], not yet mapped.
pub(crate) struct RecordedReads {
    staging: Option<PooledBuffer>,
    lens: Vec<u64>,
    total: u64,
}

impl RecordedReads {
    /// The same staged bytes, read back as consecutive parts of `lens` bytes (which sum
    /// to what was recorded).
    pub(crate) fn split_as(self, lens: Vec<u64>) -> Result<RecordedReads> {
        let sum: u64 = lens.iter().sum();
        if sum != self.total {
            return Err(Error::Readback(format!(
                "{sum} bytes asked of a readback of {}",
                self.total
            )));
        }
        Ok(RecordedReads { lens, ..self })
    }
}

/// The parts of a readback where they are mapped ([`Gpu::read_recorded_with`]).
pub(crate) struct MappedParts<'a> {
    bytes: &'a [u8],
    /// Where each part starts, and after the last the end.
    starts: Vec<usize>,
}

impl MappedParts<'_> {
    /// Part `k`'s bytes (empty past the last part).
    pub(crate) fn part(&self, k: usize) -> &[u8] {
        match (self.starts.get(k), self.starts.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.bytes[a..b],
            _ => &[],
        }
    }
}

/// Copies at least this long are split across the host's cores: one core's copy out of
/// mapped memory is a visible share of a chunk's time.
const PARALLEL_COPY_BYTES: usize = 4 << 20;
/// Parts smaller than this on average are copied out in runs, a run a task.
#[cfg(not(target_arch = "wasm32"))]
const SMALL_PART_BYTES: usize = 64 << 10;

impl Gpu {
    /// Copy `len` bytes at `offset` of `source` back to the host. The buffer needs
    /// COPY_SRC; offset and len multiples of 4. Async: on the web it yields to the event
    /// loop; natively it polls the device until its own copy has landed.
    pub async fn read_buffer(
        &self,
        source: &wgpu::Buffer,
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>> {
        let mut parts = self.read_buffers(&[(source, offset, len)]).await?;
        Ok(parts.pop().unwrap_or_default())
    }

    /// Several ranges back in one submission and one wait: `(buffer, offset, len)` each,
    /// as [`Self::read_buffer`] takes them; the bytes in the same order.
    pub async fn read_buffers(&self, ranges: &[(&wgpu::Buffer, u64, u64)]) -> Result<Vec<Vec<u8>>> {
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("parvlc.readback"),
            });
        let reads = self.record_reads(&mut encoder, ranges);
        self.queue.submit([encoder.finish()]);
        self.read_recorded(reads).await
    }

    /// Copies of `ranges` (as [`Self::read_buffers`] takes them) into one mappable
    /// buffer, recorded into `encoder`: read them with [`Self::read_recorded`] once it is
    /// submitted. In the same submission as the work that writes them, the readback waits
    /// for that work alone, not for what other threads submit after it.
    pub(crate) fn record_reads(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        ranges: &[(&wgpu::Buffer, u64, u64)],
    ) -> RecordedReads {
        let lens: Vec<u64> = ranges.iter().map(|r| r.2).collect();
        let total: u64 = lens.iter().sum();
        let staging = (total > 0).then(|| {
            let staging = self.pooled_buffer(
                total,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            );
            let mut at = 0u64;
            for &(source, offset, len) in ranges {
                if len > 0 {
                    encoder.copy_buffer_to_buffer(source, offset, &staging, at, len);
                }
                at += len;
            }
            staging
        });
        RecordedReads {
            staging,
            lens,
            total,
        }
    }

    /// The bytes of recorded reads, once their submission is done (after submitting it).
    pub(crate) async fn read_recorded(&self, reads: RecordedReads) -> Result<Vec<Vec<u8>>> {
        self.read_recorded_with(reads, |parts| self.copy_parts_out(parts))
            .await
    }

    /// Recorded reads (after submitting them) lent to `with` where they are mapped, with
    /// no copy: a caller that only moves the bytes on (a codestream's writer) copies them
    /// once, where [`Self::read_recorded`] and then the caller would copy them twice.
    pub(crate) async fn read_recorded_with<R>(
        &self,
        reads: RecordedReads,
        with: impl FnOnce(&MappedParts<'_>) -> R,
    ) -> Result<R> {
        let RecordedReads {
            staging,
            lens,
            total,
        } = reads;
        let mut starts = Vec::with_capacity(lens.len() + 1);
        let mut at = 0usize;
        starts.push(0);
        for &len in &lens {
            at += len as usize;
            starts.push(at);
        }
        let Some(staging) = staging else {
            return Ok(with(&MappedParts { bytes: &[], starts }));
        };
        let t0 = super::clock();
        self.map_polled(&staging, total, wgpu::MapMode::Read)
            .await?;
        let t1 = super::clock();
        let out = {
            let mapped = staging
                .slice(..total)
                .get_mapped_range()
                .map_err(|e| Error::Readback(e.to_string()))?;
            with(&MappedParts {
                bytes: &mapped[..],
                starts,
            })
        };
        staging.unmap();
        if let (Some(t0), Some(t1)) = (t0, t1) {
            if total as usize >= PARALLEL_COPY_BYTES {
                log::debug!(
                    "readback of {total} bytes: mapped after {:.1} ms, used in {:.1} ms",
                    (t1 - t0).as_secs_f64() * 1e3,
                    t1.elapsed().as_secs_f64() * 1e3
                );
            }
        }
        self.check_errors("readback")?;
        Ok(out)
    }

    /// Map the first `len` bytes of `staging` (for reading or writing), once the GPU is
    /// done with it.
    pub(crate) async fn map_polled(
        &self,
        staging: &wgpu::Buffer,
        len: u64,
        mode: wgpu::MapMode,
    ) -> Result<()> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            // Polled, not waited: a `poll(Wait)` holds the device's locks for the whole
            // wait and stalls every other thread's submissions (the stream pipeline's
            // coders share one device). A short poll every 50 us costs nothing by
            // comparison, and fires whichever thread's callbacks are due.
            let (sender, receiver) = std::sync::mpsc::channel();
            staging.slice(..len).map_async(mode, move |r| {
                let _ = sender.send(r);
            });
            let timed = log::log_enabled!(log::Level::Debug);
            let (start, mut polls, mut polling) = (std::time::Instant::now(), 0u32, 0f64);
            loop {
                let t = timed.then(std::time::Instant::now);
                self.device
                    .poll(wgpu::PollType::Poll)
                    .map_err(|e| Error::Readback(e.to_string()))?;
                if let Some(t) = t {
                    polls += 1;
                    polling += t.elapsed().as_secs_f64();
                }
                match receiver.recv_timeout(std::time::Duration::from_micros(50)) {
                    Ok(r) => {
                        if timed {
                            log::debug!(
                                "mapped {len} bytes after {polls} polls, {:.2} ms in them, of {:.2} ms",
                                polling * 1e3,
                                start.elapsed().as_secs_f64() * 1e3
                            );
                        }
                        return r.map_err(|e| Error::Readback(e.to_string()));
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                        return Err(Error::Readback("map callback dropped".into()))
                    }
                }
            }
        }
        #[cfg(target_arch = "wasm32")]
        {
            let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
            staging.slice(..len).map_async(mode, move |r| {
                let _ = sender.send(r);
            });
            match receiver.receive().await {
                Some(r) => r.map_err(|e| Error::Readback(e.to_string())),
                None => Err(Error::Readback("map callback dropped".into())),
            }
        }
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

impl Gpu {
    /// Mapped parts, `total` bytes in all, each into a vector of its own: the parts on all
    /// cores at once when there is much to copy (a batch of 16 1080p pictures reads 16 MB
    /// back in 80 parts, none long enough for `copy_out` to split, and one core copying
    /// them took 7-13 ms of a coder's thread).
    fn copy_parts_out(&self, parts: &MappedParts<'_>) -> Vec<Vec<u8>> {
        let mapped = parts.bytes;
        let spans: Vec<(usize, usize)> = parts.starts.windows(2).map(|w| (w[0], w[1])).collect();
        #[cfg(not(target_arch = "wasm32"))]
        if mapped.len() >= PARALLEL_COPY_BYTES && spans.len() > 1 {
            use rayon::prelude::*;
            if mapped.len() / spans.len() < SMALL_PART_BYTES {
                // Many small parts (a JPEG 2000 picture's code-blocks): a task per part
                // cost more than its copy. Runs of about SMALL_PART_BYTES a task.
                let per_task = (SMALL_PART_BYTES * spans.len() / mapped.len()).max(1);
                return spans
                    .par_chunks(per_task)
                    .flat_map_iter(|run| run.iter().map(|&(a, b)| mapped[a..b].to_vec()))
                    .collect();
            }
            return spans
                .par_iter()
                .map(|&(a, b)| self.copy_out(&mapped[a..b]))
                .collect();
        }
        spans
            .iter()
            .map(|&(a, b)| self.copy_out(&mapped[a..b]))
            .collect()
    }

    /// Mapped bytes into a vector of their own (a recycled one when long), on all cores
    /// when long.
    pub(crate) fn copy_out(&self, mapped: &[u8]) -> Vec<u8> {
        #[cfg(not(target_arch = "wasm32"))]
        if mapped.len() >= PARALLEL_COPY_BYTES {
            use rayon::prelude::*;
            // Every byte of it is overwritten here.
            let mut out = self.host_vec(mapped.len());
            out.par_chunks_mut(1 << 20)
                .zip(mapped.par_chunks(1 << 20))
                .for_each(|(d, s)| crate::host_copy::copy_streaming(d, s));
            return out;
        }
        mapped.to_vec()
    }
}
