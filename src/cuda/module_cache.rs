//! Compiled CUDA kernels kept across processes, in the user's cache directory beside the
//! wgpu pipeline cache (`crate::gpu::default_cache_dir`): NVRTC takes seconds for the
//! encoder's kernel (2.0 s on one core of the CI machine), and every process that coded
//! on CUDA paid it again, where a wgpu process starts from its pipeline cache.
//!
//! One file per compiled module, `cuda-<stage>-<hash of its key>`, sealed as the pipeline
//! cache is (magic `b"PVLCCU1\0"`, CRC-32, written atomically), holding the key in full
//! (the stage, NVRTC's version, every compile option, the source's length and hash) and
//! the image NVRTC produced. A file is used only when its key equals the one asked for, so
//! an edited kernel, another NVRTC or other options compile afresh; a damaged or foreign
//! file, or an image the driver refuses, is compiled again and replaced, never an error.

use std::path::PathBuf;

use crate::gpu::disk_cache::{read_sealed, write_sealed};

const MAGIC: &[u8; 8] = b"PVLCCU1\0";

/// What a compiled module depends on, in full, and the file it is kept in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ModuleKey {
    text: String,
    file: String,
}

/// FNV-1a, 64 bits: a file name from a key (the file holds the key itself, so a
/// collision costs a compile, never a wrong module).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl ModuleKey {
    /// The key of `stage` compiled from `source` by `compiler` (NVRTC and its version)
    /// with `options`.
    pub(crate) fn new(stage: &str, source: &str, compiler: &str, options: &[String]) -> Self {
        let text = format!(
            "{stage}\n{compiler}\n{}\nsource {} bytes, fnv1a {:016x}",
            options.join(" "),
            source.len(),
            fnv1a(source.as_bytes())
        );
        let file = format!("cuda-{stage}-{:016x}", fnv1a(text.as_bytes()));
        ModuleKey { text, file }
    }
}

/// Where compiled modules are kept; with no directory, nothing is.
pub(crate) struct ModuleCache {
    dir: Option<PathBuf>,
}

impl ModuleCache {
    pub(crate) fn new(dir: Option<PathBuf>) -> Self {
        ModuleCache { dir }
    }

    /// The image kept for `key`, if a sound file holds exactly that key.
    pub(crate) fn lookup(&self, key: &ModuleKey) -> Option<Vec<u8>> {
        let path = self.dir.as_ref()?.join(&key.file);
        let payload = match read_sealed(&path, MAGIC) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                log::warn!("CUDA module cache {}: {e}; compiling", path.display());
                return None;
            }
            Ok(Err(why)) => {
                log::warn!("CUDA module cache {}: {why}; compiling", path.display());
                return None;
            }
            Ok(Ok(payload)) => payload,
        };
        let (len, rest) = payload.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        if rest.len() < len || &rest[..len] != key.text.as_bytes() {
            log::debug!(
                "CUDA module cache {}: another key; compiling",
                path.display()
            );
            return None;
        }
        Some(rest[len..].to_vec())
    }

    /// Keep `image` as `key`'s; a failure is only logged (the next process compiles).
    pub(crate) fn keep(&self, key: &ModuleKey, image: &[u8]) {
        let Some(dir) = &self.dir else {
            return;
        };
        let path = dir.join(&key.file);
        let mut payload = Vec::with_capacity(4 + key.text.len() + image.len());
        payload.extend_from_slice(&(key.text.len() as u32).to_le_bytes());
        payload.extend_from_slice(key.text.as_bytes());
        payload.extend_from_slice(image);
        if let Err(e) = write_sealed(&path, MAGIC, &payload) {
            log::warn!("CUDA module cache {}: not saved: {e}", path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(wg: u32) -> Vec<String> {
        vec!["--gpu-architecture=sm_90".into(), format!("-DWG_SIZE={wg}")]
    }

    #[test]
    fn a_kept_image_comes_back_for_its_key_alone() {
        let dir = std::env::temp_dir().join(format!("parvlc-module-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = ModuleCache::new(Some(dir.clone()));
        let key = ModuleKey::new("vld", "__global__ void k() {}", "NVRTC 13.0", &options(64));
        assert_eq!(cache.lookup(&key), None, "nothing kept yet");
        cache.keep(&key, b"\x7fELF image");
        assert_eq!(cache.lookup(&key).as_deref(), Some(&b"\x7fELF image"[..]));
        // Anything the image depends on changed: another key, and not this image.
        for other in [
            ModuleKey::new("vld", "__global__ void k() { }", "NVRTC 13.0", &options(64)),
            ModuleKey::new("vld", "__global__ void k() {}", "NVRTC 13.1", &options(64)),
            ModuleKey::new("vld", "__global__ void k() {}", "NVRTC 13.0", &options(128)),
        ] {
            assert_ne!(other, key);
            assert_eq!(cache.lookup(&other), None, "{other:?}");
        }
        // A file under the name but holding another key (a hash collision) is passed by.
        let mut impostor = key.clone();
        impostor.text.push('!');
        assert_eq!(cache.lookup(&impostor), None);
        // Damaged: refused, and replaced by the next keep.
        let path = dir.join(&key.file);
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(cache.lookup(&key), None, "a damaged file is not used");
        cache.keep(&key, b"\x7fELF again");
        assert_eq!(cache.lookup(&key).as_deref(), Some(&b"\x7fELF again"[..]));
        // Truncated to less than its key's length: refused, no panic.
        std::fs::write(&path, b"PVLCCU1\0").unwrap();
        assert_eq!(cache.lookup(&key), None);
        // No directory: nothing kept, nothing found.
        let off = ModuleCache::new(None);
        off.keep(&key, b"x");
        assert_eq!(off.lookup(&key), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
