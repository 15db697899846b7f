//! Where the work runs, for every codec: wgpu (any GPU, the default), CUDA (NVIDIA, the
//! `cuda` feature) or the CPU. A [`Backend`] names one; an [`Engine`] is one opened, and
//! every codec's top-level entry takes `&Engine` ([`crate::huffman::compress()`],
//! [`crate::h264::Encoder::new`], [`crate::j2k::encode`]). The same output bytes on each.

use std::sync::Arc;

use crate::gpu::{Gpu, GpuOptions};
use crate::{Error, Result};

#[cfg(feature = "cuda")]
use crate::cuda::{CudaConfig, CudaGpu};

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

/// An opened backend: what every codec's entry point takes.
pub enum Engine {
    /// A wgpu device, shared (a codec may keep it beyond the call, e.g. an H.264 encoder).
    Wgpu(Arc<Gpu>),
    /// A CUDA device and the tuning of its kernels (Huffman only).
    #[cfg(feature = "cuda")]
    Cuda(Box<CudaGpu>, CudaConfig),
    /// All CPU cores.
    Cpu,
}

impl Engine {
    /// Open `backend`: wgpu's adapter as its environment chooses it, the first CUDA
    /// device, or the CPU. A missing adapter or driver is an error that says so.
    pub async fn open(backend: Backend) -> Result<Engine> {
        match backend {
            Backend::Wgpu => Ok(Engine::Wgpu(Arc::new(
                Gpu::new(GpuOptions::default()).await?,
            ))),
            Backend::Cuda => Self::open_cuda(),
            Backend::Cpu => Ok(Engine::Cpu),
        }
    }

    /// The errors [`Engine::open`] would give at once, looked for without opening
    /// anything: for CUDA the feature, the driver's library and NVRTC; nothing for wgpu
    /// and the CPU (wgpu's adapter is known only once the instance is made). For a caller
    /// that opens the engine on another thread while it starts its work
    /// (`huffman::stream::decompress_file_opening`).
    pub fn probe(backend: Backend) -> Result<()> {
        match backend {
            #[cfg(feature = "cuda")]
            Backend::Cuda => crate::cuda::probe(),
            #[cfg(not(feature = "cuda"))]
            Backend::Cuda => Self::open_cuda().map(|_| ()),
            Backend::Wgpu | Backend::Cpu => Ok(()),
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

    /// The wgpu device, if this is the wgpu engine.
    pub fn gpu(&self) -> Option<&Arc<Gpu>> {
        match self {
            Engine::Wgpu(g) => Some(g),
            _ => None,
        }
    }

    /// For a codec with a wgpu path and a CPU path only (`what` names it): the wgpu
    /// device, `None` for the CPU, or an error on CUDA, which it has no path for.
    #[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
    pub fn wgpu_or_cpu(&self, what: &str) -> Result<Option<&Arc<Gpu>>> {
        match self {
            Engine::Wgpu(g) => Ok(Some(g)),
            Engine::Cpu => Ok(None),
            #[cfg(feature = "cuda")]
            Engine::Cuda(..) => Err(Error::InvalidArgument(format!(
                "{what} has no CUDA path: use the wgpu or cpu backend"
            ))),
        }
    }
}

impl From<Gpu> for Engine {
    fn from(gpu: Gpu) -> Engine {
        Engine::Wgpu(Arc::new(gpu))
    }
}

impl From<Arc<Gpu>> for Engine {
    fn from(gpu: Arc<Gpu>) -> Engine {
        Engine::Wgpu(gpu)
    }
}
