//! The per-chunk byte histogram on CUDA (shaders/cuda/vle_histogram.cu), the twin of the
//! wgpu histogram stage.

use cudarc::driver::{CudaSlice, DevicePtr, DeviceRepr, LaunchConfig, PushKernelArg};

use super::{CudaInput, CudaVleEncoder};
use crate::cuda::driver_error;
use crate::Result;

pub(crate) const HISTOGRAM_SOURCE: &str = include_str!("../../../shaders/cuda/vle_histogram.cu");

/// keep in sync with shaders/cuda/vle_histogram.cu `HistogramArgs`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct HistogramArgs {
    n_bytes: u64,
    words_per_tile: u32,
    words_per_chunk: u32,
}
// SAFETY: plain #[repr(C)] integer fields, the layout of the kernel's struct.
unsafe impl DeviceRepr for HistogramArgs {}

impl CudaVleEncoder<'_> {
    /// Byte histogram of every chunk of the input, and its kernel time by CUDA events.
    pub fn histograms(&self, input: &CudaInput) -> Result<(Vec<[u64; 256]>, f64)> {
        if input.n_chunks() == 0 {
            return Ok((Vec::new(), 0.0));
        }
        let stream = &self.stream;
        let (start, end) = self.cuda.timing_events()?;
        start
            .record(stream)
            .map_err(driver_error("recording an event"))?;
        let hist = self.histograms_on_device(input)?;
        end.record(stream)
            .map_err(driver_error("recording an event"))?;
        let cells = self.read_histograms(&hist)?;
        let seconds = start
            .elapsed_ms(&end)
            .map_err(driver_error("reading CUDA events"))? as f64
            / 1e3;
        Ok((cells, seconds))
    }

    /// Counts read back from [`Self::histograms_on_device`], a histogram a chunk.
    pub(crate) fn read_histograms(&self, hist: &CudaSlice<u32>) -> Result<Vec<[u64; 256]>> {
        let counts = self
            .stream
            .clone_dtoh(hist)
            .map_err(driver_error("reading the histogram back"))?;
        Ok(cell_histograms(&counts))
    }

    /// Launch the byte histogram of every chunk of a non-empty input on the encoder's
    /// stream (nothing waits): 256 counts a chunk, on the device.
    pub(crate) fn histograms_on_device(&self, input: &CudaInput) -> Result<CudaSlice<u32>> {
        let n_chunks = input.n_chunks();
        let stream = &self.stream;
        let wg = self.config.scan.workgroup_size;
        let func = self.cuda.function(
            "vle_histogram",
            HISTOGRAM_SOURCE,
            &[("WG_SIZE", wg)],
            "vle_histogram",
        )?;
        let mut hist = stream
            .alloc_zeros::<u32>(n_chunks * 256)
            .map_err(driver_error("allocating the histogram"))?;
        let words_per_chunk = (input.chunk_bytes / 4) as u32;
        let n_words = input.n_bytes.div_ceil(4);
        // Large tiles (few global atomics: one flush of 256 counts per tile), yet at least
        // four per multiprocessor; a power of two that divides the chunk.
        let cap = (wg as u64 * 256).min(words_per_chunk as u64);
        let target = n_words / (4 * self.cuda.sm_count() as u64).max(1);
        let mut words_per_tile = (wg as u64 * 4).min(cap);
        while words_per_tile * 2 <= target.min(cap) {
            words_per_tile *= 2;
        }
        let words_per_tile = words_per_tile as u32;
        let tiles = n_words.div_ceil(words_per_tile as u64);
        let args = HistogramArgs {
            n_bytes: input.n_bytes,
            words_per_tile,
            words_per_chunk,
        };
        let (input_ptr, _in) = input.buffer.device_ptr(stream);
        let mut launch = stream.launch_builder(&func);
        launch.arg(&args).arg(&input_ptr).arg(&mut hist);
        // SAFETY: the kernel reads `tiles * words_per_tile` words at most, within the
        // padded input, and adds into `n_chunks * 256` counts.
        unsafe {
            launch.launch(LaunchConfig {
                grid_dim: (tiles as u32, 1, 1),
                block_dim: (wg, 1, 1),
                shared_mem_bytes: 0,
            })
        }
        .map_err(driver_error("launching vle_histogram"))?;
        drop(launch);
        Ok(hist)
    }
}

/// The device's 256 counts a cell, widened.
pub(super) fn cell_histograms(counts: &[u32]) -> Vec<[u64; 256]> {
    counts
        .chunks_exact(256)
        .map(|c| {
            let mut h = [0u64; 256];
            for (d, &s) in h.iter_mut().zip(c) {
                *d = s as u64;
            }
            h
        })
        .collect()
}
