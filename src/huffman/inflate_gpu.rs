//! Our gzip frames on a GPU, wgpu's or CUDA's ([`super::vld`]): each frame's code read on
//! the CPU cores, its literals decoded by the VLD kernel a block per invocation, from the
//! offsets its index entry (version 2 or 3, [`super::gzip_index`]) lists, then what follows
//! its literals (the end-of-block code, the empty stored block) checked on the CPU cores,
//! and its CRC32 (folded from its blocks', taken on the GPU). The kernel takes DEFLATE's codes as they are: the payload's bytes go up
//! bit-reversed, and the end-of-block code keeps its place in the canonical order as a
//! code that no block may decode. What the GPU accepts, [`super::inflate_frame`] accepts
//! too: the same header checks, every block must end exactly at the next one's offset,
//! and the literals exactly where the index says the end-of-block starts.

use rayon::prelude::*;

use super::framed_decode::{DecodeGpu, Decoder, Run};
use super::gzip_index::IndexEntry;
use super::inflate_frame::{self, check_frame_end, read_code};
use super::vld::VldFrame;
use crate::bits::BitOrder;
use crate::{Error, Result};

/// A frame ready for the kernel: its code and block offsets (from bit 0 of its bytes).
struct Prepared<'a> {
    lengths: [u8; 256],
    other_codes: [u8; 16],
    offsets: Vec<u64>,
    payload_bits: u64,
    block_symbols: u64,
    len: u64,
    data: &'a [u8],
}

impl Prepared<'_> {
    fn view(&self) -> VldFrame<'_> {
        VldFrame {
            lengths: &self.lengths,
            other_codes: self.other_codes,
            len: self.len,
            block_symbols: self.block_symbols,
            payload_bits: self.payload_bits,
            offsets: &self.offsets,
            payload: self.data,
            order: BitOrder::LsbFirst,
        }
    }
}

/// Whether every frame of `entries` has what a GPU decode needs: its blocks (index
/// version 2 or 3).
pub(crate) fn takes(entries: &[IndexEntry]) -> bool {
    entries.iter().all(|e| e.code.is_some())
}

/// Decodes `frames` (each its index entry and exactly its bytes) into `out`, one after
/// the other, on `gpu`; a frame that the GPU does not take (blocks too long, a frame too
/// large for a dispatch) on the CPU. An error names the frame by `name(frame index in
/// frames, reason)`.
pub(crate) async fn decode_frames(
    gpu: DecodeGpu<'_>,
    frames: &[(&IndexEntry, &[u8])],
    out: &mut Vec<u8>,
    name: &(dyn Fn(usize, String) -> Error + Sync),
) -> Result<()> {
    let named = |i: usize| {
        move |e: Error| match e {
            Error::Corrupt { reason, .. } => name(i, reason),
            e => e,
        }
    };
    let t0 = crate::gpu::clock();
    let prepared = frames
        .par_iter()
        .enumerate()
        .map(|(i, &(entry, data))| prepare(entry, data).map_err(named(i)))
        .collect::<Result<Vec<_>>>()?;
    let views: Vec<VldFrame<'_>> = prepared.iter().map(Prepared::view).collect();
    // The caller's buffer goes back to the readbacks whole (its pages, not zeroed again)
    // where the first run's output takes its place.
    let mut spare = Some(std::mem::take(out));
    let dec = Decoder::of(gpu);
    let t1 = crate::gpu::clock();
    let (mut gpu_ms, mut check_ms) = (0.0, 0.0);
    let ms = |a: Option<std::time::Instant>, b: Option<std::time::Instant>| match (a, b) {
        (Some(a), Some(b)) => (b - a).as_secs_f64() * 1e3,
        _ => 0.0,
    };
    for run in dec.runs(&views) {
        match run {
            Run::Gpu(r) => {
                let t = crate::gpu::clock();
                let decoded = dec.decode(&views[r.clone()]).await?;
                let t_gpu = crate::gpu::clock();
                gpu_ms += ms(t, t_gpu);
                if let Some(e) = decoded.errors.first() {
                    return Err(name(
                        r.start + e.frame,
                        format!("block {} {}", e.block, e.fault),
                    ));
                }
                // Taken on the GPU (both decoders do); else after the copy.
                if let Some(crcs) = &decoded.frame_crcs {
                    for (i, (&crc, (e, _))) in crcs.iter().zip(&frames[r.clone()]).enumerate() {
                        check_crc(e, crc, r.start + i, name)?;
                    }
                }
                let crcs_done = decoded.frame_crcs.is_some();
                let at = out.len();
                // Frames lie from word boundaries; one batch of whole words (all but
                // the input's last frame) is the output as it came back.
                let contiguous = decoded.frames.windows(2).all(|w| w[0].end == w[1].start);
                let end = decoded.frames.last().map_or(0, |f| f.end);
                let bytes = if at == 0 && contiguous {
                    *out = decoded.bytes;
                    out.truncate(end);
                    spare.take()
                } else {
                    if at == 0 {
                        let total = frames.iter().map(|(e, _)| e.len as usize).sum();
                        out.reserve(total);
                    }
                    for range in &decoded.frames {
                        out.extend_from_slice(&decoded.bytes[range.clone()]);
                    }
                    Some(decoded.bytes)
                };
                // Its pages go to the next readback.
                match (gpu, bytes) {
                    (DecodeGpu::Wgpu(g), Some(bytes)) => g.recycle_host_vec(bytes),
                    #[cfg(feature = "cuda")]
                    (DecodeGpu::Cuda(c), Some(bytes)) => c.recycle_host_vec(bytes),
                    _ => {}
                }
                if !crcs_done {
                    check_crcs(&frames[r.clone()], &out[at..], r.start, name)?;
                }
                check_ms += ms(t_gpu, crate::gpu::clock());
            }
            Run::Cpu(r) => {
                for (i, &(entry, data)) in frames[r.clone()].iter().enumerate() {
                    let at = out.len();
                    out.resize(at + entry.len as usize, 0);
                    inflate_frame::decode_frames(&mut [(data, &mut out[at..])])
                        .remove(0)
                        .and_then(|span| span.check(entry.code.as_ref()))
                        .map_err(named(r.start + i))?;
                    check_crcs(&frames[r.start + i..][..1], &out[at..], r.start + i, name)?;
                }
            }
        }
    }
    log::debug!(
        "gzip run of {} frames, {} bytes: codes read {:.1} ms, GPU round trip {:.1} ms, \
         output and CRCs {:.1} ms",
        frames.len(),
        out.len(),
        ms(t0, t1),
        gpu_ms,
        check_ms
    );
    Ok(())
}

/// A frame's code read and its end checked where its index entry puts them.
fn prepare<'a>(entry: &IndexEntry, data: &'a [u8]) -> Result<Prepared<'a>> {
    let corrupt = |reason: String| Error::corrupt("gzip", reason);
    let code = entry
        .code
        .as_ref()
        .ok_or_else(|| corrupt("the index lists no blocks".into()))?;
    let literal_code = read_code(data)?;
    let symbol_start = literal_code.symbol_start;
    if symbol_start != code.symbol_start as u64 {
        return Err(corrupt(format!(
            "its literals start at bit {symbol_start}, the index says {} (a wrong index entry?)",
            code.symbol_start
        )));
    }
    let end = symbol_start + code.symbol_bits as u64;
    check_frame_end(&literal_code, data, end)?;
    let all = &literal_code.lengths;
    let mut lengths = [0u8; 256];
    lengths.copy_from_slice(&all[..256]);
    // At most 30 symbols above the bytes (RFC 1951: 286 literal/length codes).
    let mut other_codes = [0u8; 16];
    for &l in &all[256..] {
        other_codes[l as usize & 15] += 1;
    }
    other_codes[0] = 0;
    let offsets = std::iter::once(symbol_start)
        .chain(code.block_offsets.iter().map(|&o| symbol_start + o as u64))
        .collect();
    Ok(Prepared {
        lengths,
        other_codes,
        offsets,
        payload_bits: end,
        block_symbols: code.block_symbols as u64,
        len: entry.len as u64,
        data,
    })
}

/// A frame's checksum, `computed`, against its entry's.
fn check_crc(
    e: &IndexEntry,
    computed: u32,
    i: usize,
    name: &(dyn Fn(usize, String) -> Error + Sync),
) -> Result<()> {
    if computed != e.crc32 {
        return Err(name(
            i,
            format!(
                "checksum mismatch (index {:08x}, computed {computed:08x})",
                e.crc32
            ),
        ));
    }
    Ok(())
}

/// Each frame's checksum against its entry, `out` their output one after the other.
fn check_crcs(
    frames: &[(&IndexEntry, &[u8])],
    out: &[u8],
    first: usize,
    name: &(dyn Fn(usize, String) -> Error + Sync),
) -> Result<()> {
    let mut at = 0usize;
    let spans: Vec<(usize, usize)> = frames
        .iter()
        .map(|(e, _)| {
            let s = (at, e.len as usize);
            at += e.len as usize;
            s
        })
        .collect();
    spans
        .par_iter()
        .zip(frames.par_iter())
        .enumerate()
        .try_for_each(|(i, (&(at, len), (e, _)))| {
            check_crc(e, crc32fast::hash(&out[at..at + len]), first + i, name)
        })
}
