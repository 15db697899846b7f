//! Packing on the GPU (shaders/cavlc/pack.wgsl): macroblock headers and block codes in
//! bitstream order at offsets from the look-back scan, and its CPU twin ([`pack_cpu`]).

use wgpu::util::DeviceExt;

use super::cavlcu::SlotCodes;
use super::frame::{put_mb_header, Frame};
use super::layout::{CavlcParams, FrameBuffers, MB_MAX_BITS, MB_SLOTS, SLOT_WORDS};
use crate::bits::BitSink;
use crate::gpu::registry::cavlc::PACK;
use crate::gpu::{Gpu, PooledBuffer, Profiler};
use crate::scan::{
    encode_lookback, read_state, LookbackStage, ScanConfig, ScanStrategy, STATE_BINDING,
    STATE_HEADER, VALUE_MASK,
};
use crate::{Error, Result};

/// A packed frame on the GPU.
pub(crate) struct Packed {
    output: PooledBuffer,
    output_bytes: u64,
    mb_offsets: PooledBuffer,
    state: PooledBuffer,
    n_blocks: u32,
    n_mbs: u32,
}

impl Packed {
    /// Blocks of the packing scan.
    pub(crate) fn n_blocks(&self) -> u32 {
        self.n_blocks
    }
}

/// Record the packing stage (its look-back state and output are its own). The output
/// has room for every macroblock's longest code, or for `room` bytes where the caller
/// bounds it: a longer stream's writes past the end are dropped (the device bounds
/// them), and [`super::CavlcGpu::finish_recorded`] flags the frame.
pub(crate) fn encode_pack(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    profiler: Option<&mut Profiler>,
    bufs: &FrameBuffers<'_>,
    scan: &ScanConfig,
    room: Option<u64>,
) -> Result<Packed> {
    let storage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let worst = (bufs.n_mbs as u64 * MB_MAX_BITS).div_ceil(32) * 4 + 64;
    let out_bytes = room.map_or(worst, |r| r.next_multiple_of(4).clamp(64, worst));
    let output = gpu.pooled_buffer(out_bytes, storage);
    let mb_offsets = gpu.pooled_buffer(bufs.n_mbs as u64 * 4, storage);
    let state = gpu.pooled_buffer((STATE_HEADER as u64 + bufs.n_groups as u64) * 4, storage);
    let mut profiler = profiler;
    zero_output(
        gpu,
        encoder,
        profiler.as_deref_mut(),
        bufs,
        &output,
        &mb_offsets,
        out_bytes / 4,
    )?;
    encode_lookback(
        gpu,
        encoder,
        profiler,
        LookbackStage {
            shader: &PACK,
            label: "pack",
            constants: vec![("MSB_FIRST", 1.0)],
            bindings: vec![
                (0, bufs.params.as_entire_buffer_binding()),
                (1, bufs.headers.clone()),
                (
                    3,
                    wgpu::BufferBinding {
                        buffer: &output,
                        offset: 0,
                        size: wgpu::BufferSize::new(out_bytes),
                    },
                ),
                (4, bufs.tables.as_entire_buffer_binding()),
                (5, bufs.enc_words.as_entire_buffer_binding()),
                (6, bufs.enc_lens.as_entire_buffer_binding()),
                (7, mb_offsets.as_entire_buffer_binding()),
            ],
            n_blocks: bufs.n_groups,
        },
        &state,
        scan,
    )?;
    Ok(Packed {
        output,
        output_bytes: out_bytes,
        mb_offsets,
        state,
        n_blocks: bufs.n_groups,
        n_mbs: bufs.n_mbs,
    })
}

/// The `zero` entry point over the output's first `words` words (a timed pass, where a
/// clear_buffer would not be).
fn zero_output(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    profiler: Option<&mut Profiler>,
    bufs: &FrameBuffers<'_>,
    output: &wgpu::Buffer,
    mb_offsets: &wgpu::Buffer,
    words: u64,
) -> Result<()> {
    const WG: u32 = 256;
    let words = u32::try_from(words)
        .map_err(|_| Error::TooLarge("CAVLC: packed output above 2^32 words".into()))?;
    let built = gpu.pipeline(&PACK, "zero", &[("WG_SIZE", WG as f64)])?;
    let params = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("parvlc.cavlc.pack.zero"),
            contents: bytemuck::bytes_of(&CavlcParams {
                width_mbs: 1,
                n_mbs: bufs.n_mbs,
                n_groups: words,
                picture_mbs: bufs.n_mbs.max(1),
            }),
            usage: wgpu::BufferUsages::UNIFORM,
        });
    let bind = gpu.bind(
        &built,
        &[
            (0, params.as_entire_buffer_binding()),
            (1, bufs.headers.clone()),
            (3, output.as_entire_buffer_binding()),
            (4, bufs.tables.as_entire_buffer_binding()),
            (5, bufs.enc_words.as_entire_buffer_binding()),
            (6, bufs.enc_lens.as_entire_buffer_binding()),
            (7, mb_offsets.as_entire_buffer_binding()),
            (STATE_BINDING, bufs.state.as_entire_buffer_binding()),
        ],
    );
    let timestamp_writes = profiler.and_then(|p| p.pass("pack_zero"));
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some("pack_zero"),
        timestamp_writes,
    });
    pass.set_pipeline(&built.pipeline);
    pass.set_bind_group(0, &bind, &[]);
    let groups = words
        .div_ceil(WG * 4)
        .clamp(1, gpu.limits.max_compute_workgroups_per_dimension);
    pass.dispatch_workgroups(groups, 1, 1);
    Ok(())
}

/// Read a packed frame back: per slice (first macroblocks `slice_starts`) its bytes and
/// bits, and every macroblock's offset in the frame's stream.
pub(crate) async fn read_packed(
    gpu: &Gpu,
    packed: &Packed,
    slice_starts: &[usize],
    scan: &ScanConfig,
) -> Result<(Vec<(Vec<u8>, u64)>, Vec<u32>)> {
    let heads = gpu.read_buffers(&packed_heads(packed)).await?;
    let (total, offsets) = packed_total(packed.n_blocks, &heads[0], &heads[1], scan)?;
    let (buffer, at, len) = packed_stream(packed, total);
    let stream = gpu.read_buffer(buffer, at, len).await?;
    Ok((
        split_slices(&stream, total, &offsets, slice_starts)?,
        offsets,
    ))
}

/// The ranges [`read_packed`] reads first (scan state, then macroblock offsets), for
/// reading several frames' in one readback.
pub(crate) fn packed_heads(packed: &Packed) -> [(&wgpu::Buffer, u64, u64); 2] {
    let n = packed.n_blocks as u64;
    [
        (&packed.state, 0, (STATE_HEADER as u64 + n) * 4),
        (&packed.mb_offsets, 0, packed.n_mbs as u64 * 4),
    ]
}

/// From the bytes of [`packed_heads`] of a frame packed in `n_blocks` blocks
/// ([`Packed::n_blocks`]; plain data, so that a batch's frames are checked on all cores):
/// the frame's stream length in bits (checked against the scan's state) and every
/// macroblock's offset.
pub(crate) fn packed_total(
    n_blocks: u32,
    state: &[u8],
    offsets: &[u8],
    scan: &ScanConfig,
) -> Result<(u64, Vec<u32>)> {
    let n = n_blocks as usize;
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(state);
    let total = match scan.strategy {
        ScanStrategy::ReduceThenScan => words[3],
        _ => words[STATE_HEADER + n - 1] & VALUE_MASK,
    } as u64;
    read_state(PACK.name, scan.strategy, &words, n, total)?;
    Ok((total, bytemuck::pod_collect_to_vec(offsets)))
}

/// The first `quota` bytes of the packed output (all of it where it is shorter).
pub(crate) fn packed_prefix(packed: &Packed, quota: u64) -> (&wgpu::Buffer, u64, u64) {
    (&packed.output, 0, quota.min(packed.output_bytes) & !3)
}

/// Whether the packed stream `total` bits long fits the output's room.
pub(crate) fn fits(packed: &Packed, total: u64) -> bool {
    packed_stream(packed, total).2 <= packed.output_bytes
}

/// The range of the packed stream `total` bits long.
pub(crate) fn packed_stream(packed: &Packed, total: u64) -> (&wgpu::Buffer, u64, u64) {
    (&packed.output, 0, total.div_ceil(32) * 4)
}

/// Cut the frame's stream (`bits` bits, slices back to back) at every slice's first
/// macroblock; each slice starts at bit 0 of its own bytes.
pub fn split_slices(
    stream: &[u8],
    bits: u64,
    mb_offsets: &[u32],
    slice_starts: &[usize],
) -> Result<Vec<(Vec<u8>, u64)>> {
    let mut out = Vec::with_capacity(slice_starts.len());
    for (s, &mb) in slice_starts.iter().enumerate() {
        let start = *mb_offsets.get(mb).ok_or_else(|| Error::Gpu {
            stage: PACK.name,
            message: "macroblock offsets truncated".into(),
        })? as u64;
        let end = match slice_starts.get(s + 1) {
            Some(&next) => mb_offsets[next] as u64,
            None => bits,
        };
        if end < start || end > bits {
            return Err(Error::Gpu {
                stage: PACK.name,
                message: format!("slice {s} spans bits {start}..{end} of {bits}"),
            });
        }
        out.push((extract_bits(stream, start, end - start), end - start));
    }
    Ok(out)
}

/// `len` bits of `stream` (MSB-first) from bit `start`, as bytes from bit 0 (zeros past
/// the end of `stream`). A whole 1080p picture's slice is most of a megabyte: a byte
/// aligned start is one copy, any other a shift of byte pairs the compiler vectorizes (a
/// loop of checked reads took 1-2 ms a picture of a coder's thread).
pub fn extract_bits(stream: &[u8], start: u64, len: u64) -> Vec<u8> {
    let n = len.div_ceil(8) as usize;
    let from = stream.get((start / 8) as usize..).unwrap_or(&[]);
    let shift = (start % 8) as u32;
    let mut out = vec![0u8; n];
    let k = n.min(from.len());
    if shift == 0 {
        out[..k].copy_from_slice(&from[..k]);
    } else {
        for (o, pair) in out.iter_mut().zip(from.windows(2)) {
            *o = (pair[0] << shift) | (pair[1] >> (8 - shift));
        }
        // The last byte of `stream` has no byte after it.
        if k == from.len() && k > 0 {
            out[k - 1] = from[k - 1] << shift;
        }
    }
    if !len.is_multiple_of(8) {
        if let Some(last) = out.last_mut() {
            *last &= 0xff << (8 - len % 8);
        }
    }
    out
}

/// A fast MSB-first writer: a 64-bit accumulator, whole bytes out.
#[derive(Clone, Debug, Default)]
pub struct FastWriter {
    bytes: Vec<u8>,
    acc: u64,
    fill: u32,
    bits: u64,
}

impl FastWriter {
    pub fn with_capacity(bytes: usize) -> Self {
        FastWriter {
            bytes: Vec::with_capacity(bytes),
            ..Default::default()
        }
    }
    /// Append the low `len` (<= 32) bits of `code`, which has no bits above `len`.
    #[inline]
    pub fn put(&mut self, code: u32, len: u32) {
        self.acc = (self.acc << len) | code as u64;
        self.fill += len;
        self.bits += len as u64;
        while self.fill >= 8 {
            self.fill -= 8;
            self.bytes.push((self.acc >> self.fill) as u8);
        }
    }
    /// Append `bits` bits of MSB-first `bytes`.
    pub fn append(&mut self, bytes: &[u8], bits: u64) {
        let whole = (bits / 8) as usize;
        if self.fill == 0 {
            self.bytes.extend_from_slice(&bytes[..whole]);
            self.bits += whole as u64 * 8;
        } else {
            for &b in &bytes[..whole] {
                self.put(b as u32, 8);
            }
        }
        let rest = (bits % 8) as u32;
        if rest != 0 {
            self.put((bytes[whole] >> (8 - rest)) as u32, rest);
        }
    }
    pub fn bit_len(&self) -> u64 {
        self.bits
    }
    /// The bytes (the last one zero-padded) and the bit count.
    pub fn finish(mut self) -> (Vec<u8>, u64) {
        if self.fill > 0 {
            self.bytes.push((self.acc << (8 - self.fill)) as u8);
        }
        (self.bytes, self.bits)
    }
}

impl BitSink for FastWriter {
    fn put_bits(&mut self, value: u32, len: u32) {
        self.put(value, len);
    }
}

/// Header and slots of macroblocks `mbs` (their slots `lens`/`words` from index 0).
pub(crate) fn pack_mbs(
    w: &mut FastWriter,
    frame: &Frame,
    mbs: std::ops::Range<usize>,
    lens: &[u32],
    words: &[u32],
) {
    for (i, mb) in mbs.enumerate() {
        // The header as shaders/cavlc/pack.wgsl `put_header` writes it.
        put_mb_header(w, &frame.mbs[mb]);
        for slot in 0..MB_SLOTS {
            let at = i * MB_SLOTS + slot;
            let len = lens[at];
            let code = &words[at * SLOT_WORDS..];
            for &word in &code[..(len / 32) as usize] {
                w.put(word >> 16, 16);
                w.put(word & 0xffff, 16);
            }
            let tail = len % 32;
            if tail != 0 {
                w.put(code[(len / 32) as usize] >> (32 - tail), tail);
            }
        }
    }
}

/// The CPU twin of cavlc_pack: every slice's slice_data() from the frame's headers and
/// its slot codes.
pub fn pack_cpu(frame: &Frame, codes: &SlotCodes) -> Vec<(Vec<u8>, u64)> {
    frame
        .slices()
        .into_iter()
        .map(|r| {
            let mut w = FastWriter::with_capacity(r.len() * 64);
            let first = r.start * MB_SLOTS;
            pack_mbs(
                &mut w,
                frame,
                r,
                &codes.lens[first..],
                &codes.words[first * SLOT_WORDS..],
            );
            w.finish()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::extract_bits;

    /// Bit by bit: bit `start + i` of `stream` (0 past its end) as bit `i` of the output.
    fn extract_bitwise(stream: &[u8], start: u64, len: u64) -> Vec<u8> {
        let mut out = vec![0u8; len.div_ceil(8) as usize];
        for i in 0..len {
            let at = start + i;
            let bit = stream
                .get((at / 8) as usize)
                .map_or(0, |b| (b >> (7 - at % 8)) & 1);
            out[(i / 8) as usize] |= bit << (7 - i % 8);
        }
        out
    }

    #[test]
    fn extract_bits_is_bit_by_bit_at_every_alignment_and_past_the_end() {
        let mut rng = crate::testdata::SplitMix64(0xe7);
        for _ in 0..3000 {
            let stream: Vec<u8> = (0..rng.below(40)).map(|_| rng.below(256) as u8).collect();
            let bits = stream.len() as u64 * 8;
            let start = rng.below(bits + 24);
            let len = rng.below(bits + 24);
            assert_eq!(
                extract_bits(&stream, start, len),
                extract_bitwise(&stream, start, len),
                "{stream:?} from bit {start}, {len} bits"
            );
        }
    }
}
