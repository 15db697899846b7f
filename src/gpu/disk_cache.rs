//! Compiled pipelines kept across processes: wgpu's pipeline cache (the driver's compiled
//! code), loaded from and saved to a file per adapter in the user's cache directory, so a
//! second process does not compile its shaders again.
//!
//! File: `b"PVLCPC1\0"`, the CRC-32 of the rest (u32 LE), then exactly what
//! `wgpu::PipelineCache::get_data` returned. wgpu checks its own header (magic, version,
//! adapter, sizes) but not the contents; the CRC makes a damaged file a fallback to an
//! empty cache, never data handed to the driver. Saved atomically (a temporary file
//! renamed into place), so concurrent processes never read a half-written file. The CUDA
//! path's compiled kernels are kept the same way (`crate::cuda`'s module cache).

use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"PVLCPC1\0";
/// Larger files are not ours (the cache of every parvlc pipeline is a few MiB).
const MAX_BYTES: u64 = 256 << 20;

/// What became of the cache file when the GPU was opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheState {
    /// No directory given, the backend cannot cache pipelines, or no key for this adapter.
    Off,
    /// No file yet: pipelines are compiled and the cache is saved when the `Gpu` drops.
    Empty,
    /// A file was loaded and handed to wgpu.
    Loaded,
    /// A file was there but not used (damaged, foreign, too large): pipelines are
    /// compiled and the file is replaced when the `Gpu` drops.
    Rejected(String),
}

pub(crate) struct DiskCache {
    pub(crate) cache: wgpu::PipelineCache,
    path: PathBuf,
    pub(crate) state: CacheState,
    /// The CRC of the payload loaded, if any: the file is rewritten only when the cache
    /// holds something else by the end (a pipeline this process compiled).
    loaded_crc: Option<u32>,
}

/// `$PARVLC_CACHE_DIR`, else `$XDG_CACHE_HOME/parvlc`, else `$HOME/.cache/parvlc`.
pub fn default_dir() -> Option<PathBuf> {
    let env = |k| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("PARVLC_CACHE_DIR")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("parvlc")))
        .or_else(|| env("HOME").map(|d| d.join(".cache").join("parvlc")))
}

/// The payload of a file sealed by [`write_sealed`] with `magic` (the magic, then the
/// CRC-32 of the payload, then the payload), or why it is not usable.
pub(crate) fn read_sealed(
    path: &Path,
    magic: &[u8; 8],
) -> std::io::Result<Result<Vec<u8>, String>> {
    let meta = std::fs::metadata(path)?;
    if meta.len() > MAX_BYTES {
        return Ok(Err(format!(
            "{} bytes, more than a cache of ours",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path)?;
    if bytes.len() < 12 || &bytes[..8] != magic {
        return Ok(Err("not a parvlc cache file of this kind".into()));
    }
    let stored = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    let payload = bytes[12..].to_vec();
    if crc32fast::hash(&payload) != stored {
        return Ok(Err("checksum mismatch (damaged)".into()));
    }
    Ok(Ok(payload))
}

/// Write `payload` to `path` behind `magic` and its CRC-32, atomically: a temporary file
/// beside it renamed into place, so that concurrent processes never read half a file.
pub(crate) fn write_sealed(path: &Path, magic: &[u8; 8], payload: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut bytes = Vec::with_capacity(12 + payload.len());
    bytes.extend_from_slice(magic);
    bytes.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    bytes.extend_from_slice(payload);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = dir.join(format!(".tmp-{}-{nanos}", std::process::id()));
    std::fs::write(&tmp, &bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

impl DiskCache {
    /// The cache for `info`'s adapter in `dir`, on a device opened with
    /// `Features::PIPELINE_CACHE`.
    pub(crate) fn open(
        device: &wgpu::Device,
        info: &wgpu::AdapterInfo,
        dir: &Path,
    ) -> Option<Self> {
        let key = wgpu::util::pipeline_cache_key(info)?;
        let path = dir.join(key);
        let (data, state) = match read_sealed(&path, MAGIC) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, CacheState::Empty),
            Err(e) => (None, CacheState::Rejected(e.to_string())),
            Ok(Err(why)) => (None, CacheState::Rejected(why)),
            Ok(Ok(data)) => (Some(data), CacheState::Loaded),
        };
        if let CacheState::Rejected(why) = &state {
            log::warn!(
                "pipeline cache {}: {why}; compiling the shaders",
                path.display()
            );
        }
        // SAFETY: `data` is what `get_data` returned for an adapter with this key (our
        // magic and CRC hold, and the file name is wgpu's key); wgpu checks its own header
        // again and `fallback` turns data it does not accept into an empty cache.
        let cache = unsafe {
            device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                label: Some("parvlc"),
                data: data.as_deref(),
                fallback: true,
            })
        };
        let loaded_crc = data.as_deref().map(crc32fast::hash);
        Some(DiskCache {
            cache,
            path,
            state,
            loaded_crc,
        })
    }

    /// Write the cache unless it is what was loaded; errors are only logged (a cache
    /// that cannot be saved costs the next process time, nothing else).
    pub(crate) fn save(&self) {
        let Some(data) = self.cache.get_data() else {
            return;
        };
        if self.loaded_crc == Some(crc32fast::hash(&data)) {
            return;
        }
        if let Err(e) = write_sealed(&self.path, MAGIC, &data) {
            log::warn!("pipeline cache {}: not saved: {e}", self.path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &Path) -> std::io::Result<Result<Vec<u8>, String>> {
        read_sealed(path, MAGIC)
    }

    #[test]
    fn damaged_foreign_and_oversized_files_are_refused() {
        let dir = std::env::temp_dir().join(format!("parvlc-disk-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f");
        write_sealed(&p, MAGIC, b"payload").unwrap();
        let good = std::fs::read(&p).unwrap();
        assert_eq!(&good[..8], MAGIC);
        assert_eq!(read(&p).unwrap().unwrap(), b"payload");
        assert!(
            read_sealed(&p, b"PVLCXX1\0")
                .unwrap()
                .unwrap_err()
                .contains("not a parvlc"),
            "another kind's magic"
        );
        let mut bad = good.clone();
        *bad.last_mut().unwrap() ^= 1;
        std::fs::write(&p, &bad).unwrap();
        assert!(read(&p).unwrap().unwrap_err().contains("checksum"));
        std::fs::write(&p, b"not ours at all").unwrap();
        assert!(read(&p).unwrap().unwrap_err().contains("not a parvlc"));
        std::fs::write(&p, &good[..10]).unwrap();
        assert!(read(&p).unwrap().is_err());
        std::fs::File::create(&p)
            .unwrap()
            .set_len(MAX_BYTES + 1)
            .unwrap();
        assert!(read(&p).unwrap().unwrap_err().contains("more than"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
