//! Where the work runs: wgpu (any GPU, the default), CUDA (NVIDIA, the `cuda` feature) or
//! the CPU. The same API and the same output bytes on each.

use crate::gpu::{Gpu, GpuOptions};
use crate::huffman::compress::{compress_cpu, compress_gpu, Compressed, Format, Stage};
use crate::huffman::cuvle::CuvleConfig;
use crate::{Error, Result};

#[cfg(feature = "cuda")]
use crate::cuda::{compress_cuda, CudaConfig, CudaGpu};

/// A backend, as `--backend` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Backend {
    /// WGSL through wgpu: Vulkan, Metal, DX12, WebGPU.
    Wgpu,
    /// CUDA C through NVRTC (the `cuda` feature).
    Cuda,
    /// All CPU cores.
    Cpu,
}

impl Backend {
    pub const ALL: [Backend; 3] = [Backend::Wgpu, Backend::Cuda, Backend::Cpu];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Wgpu => "wgpu",
            Backend::Cuda => "cuda",
            Backend::Cpu => "cpu",
        }
    }

    /// Whether this build can run the backend at all (CUDA needs the `cuda` feature).
    pub fn compiled(self) -> bool {
        self != Backend::Cuda || cfg!(feature = "cuda")
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Backend {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| {
                Error::InvalidArgument(format!("unknown backend `{s}` (wgpu, cuda, cpu)"))
            })
    }
}

/// An opened backend.
pub enum Engine {
    Wgpu(Box<Gpu>),
    #[cfg(feature = "cuda")]
    Cuda(Box<CudaGpu>, CudaConfig),
    Cpu,
}

impl Engine {
    /// Open `backend`: wgpu's adapter as its environment chooses it, the first CUDA
    /// device, or the CPU. A missing adapter or driver is an error that says so.
    pub async fn open(backend: Backend) -> Result<Engine> {
        match backend {
            Backend::Wgpu => Ok(Engine::Wgpu(Box::new(
                Gpu::new(GpuOptions::default()).await?,
            ))),
            Backend::Cuda => Self::open_cuda(),
            Backend::Cpu => Ok(Engine::Cpu),
        }
    }

    #[cfg(feature = "cuda")]
    fn open_cuda() -> Result<Engine> {
        Ok(Engine::Cuda(
            Box::new(CudaGpu::new()?),
            CudaConfig::default(),
        ))
    }

    #[cfg(not(feature = "cuda"))]
    fn open_cuda() -> Result<Engine> {
        Err(Error::Cuda(
            "this parvlc was built without the `cuda` feature (cargo build --features cuda)".into(),
        ))
    }

    pub fn backend(&self) -> Backend {
        match self {
            Engine::Wgpu(_) => Backend::Wgpu,
            #[cfg(feature = "cuda")]
            Engine::Cuda(..) => Backend::Cuda,
            Engine::Cpu => Backend::Cpu,
        }
    }

    /// The device, for messages: "NVIDIA H200 (Vulkan)", "NVIDIA H200 (CUDA, sm_90)",
    /// "the CPU".
    pub fn name(&self) -> String {
        match self {
            Engine::Wgpu(g) => g.adapter_name(),
            #[cfg(feature = "cuda")]
            Engine::Cuda(c, _) => c.adapter_name(),
            Engine::Cpu => "the CPU".into(),
        }
    }

    /// Compress `data` on this backend. The output is the same bytes on every backend;
    /// on the CPU, native files use `config.block_bytes()` per block as the GPUs do.
    pub async fn compress(
        &self,
        data: &[u8],
        format: Format,
        config: &CuvleConfig,
        progress: &mut dyn FnMut(Stage),
    ) -> Result<Compressed> {
        match self {
            Engine::Wgpu(g) => compress_gpu(g, data, format, config, progress).await,
            #[cfg(feature = "cuda")]
            Engine::Cuda(c, tuning) => compress_cuda(c, data, format, config, tuning, progress),
            Engine::Cpu => {
                progress(Stage::Encode);
                compress_cpu(data, format, config.block_bytes())
            }
        }
    }
}
