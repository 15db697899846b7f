//! CAVLCU on the GPU (shaders/cavlc/cavlcu.wgsl; its `RECOMPUTE` override is the
//! `recompute` variant) and the CPU twin of its output: every block's code and length in
//! the frame's 27 slots per macroblock ([`SlotCodes`]).

use super::cpu::BlockKind;
use super::frame::{block_nc, total_coeffs, Frame, CHROMA_BLOCK0, LUMA_CODING_ORDER, ZIGZAG};
use super::layout::FrameBuffers;
use super::tables::{self, CoeffTokenTable};
use crate::gpu::registry::cavlc::CAVLCU;
use crate::gpu::{Gpu, Profiler};
use crate::scan::STATE_BINDING;
use crate::{Error, Result};

pub use super::layout::{
    MB_SLOTS, SLOT_CHROMA_AC, SLOT_CHROMA_DC, SLOT_LUMA, SLOT_LUMA_DC, SLOT_WORDS,
};

/// Every slot's code (MSB-first words, [`SLOT_WORDS`] per slot, bits past the length
/// zero in the last used word, words past it unspecified) and length in bits (0 for
/// blocks the coded block pattern leaves out).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlotCodes {
    pub lens: Vec<u32>,
    pub words: Vec<u32>,
}

impl SlotCodes {
    /// The used words of slot `i`.
    pub fn code(&self, i: usize) -> &[u32] {
        let n = (self.lens[i] as usize).div_ceil(32);
        &self.words[i * SLOT_WORDS..i * SLOT_WORDS + n]
    }
}

/// Per-block writer of the twin: MSB-first words, as shaders/cavlc/block.wgsl.
struct SlotWriter {
    words: [u32; SLOT_WORDS],
    word: usize,
    acc: u32,
    fill: u32,
}

impl SlotWriter {
    fn put(&mut self, code: u32, len: u32) {
        let free = 32 - self.fill;
        if len < free {
            self.acc |= code << (free - len);
            self.fill += len;
        } else {
            let spill = len - free;
            self.acc |= code >> spill;
            self.words[self.word] = self.acc;
            self.word += 1;
            self.fill = spill;
            self.acc = if spill != 0 { code << (32 - spill) } else { 0 };
        }
    }
    fn put_vlc(&mut self, v: tables::Vlc) {
        self.put(v.code as u32, v.len as u32);
    }
    fn finish(mut self) -> ([u32; SLOT_WORDS], u32) {
        if self.fill != 0 {
            self.words[self.word] = self.acc;
        }
        (self.words, self.word as u32 * 32 + self.fill)
    }
}

fn table_for(kind: BlockKind, nc: i32) -> Result<CoeffTokenTable> {
    match (kind, CoeffTokenTable::for_nc(nc)) {
        (BlockKind::ChromaDC, Some(CoeffTokenTable::ChromaDc)) => Ok(CoeffTokenTable::ChromaDc),
        (BlockKind::ChromaDC, _) | (_, Some(CoeffTokenTable::ChromaDc)) | (_, None) => Err(
            Error::InvalidArgument(format!("CAVLC: nC {nc} is not valid for a {kind:?} block")),
        ),
        (_, Some(t)) => Ok(t),
    }
}

/// One block's code as the GPU writes it (the twin of shaders/cavlc/block.wgsl
/// `encode_block`: nonzero mask, coefficients walked from the last one, levels without
/// tables): `coeffs` in scan order, `kind.max_coeffs()` of them. The same bits as
/// [`super::encode_residual_block`], and the same error for a level Baseline cannot code.
pub fn encode_block_words(
    coeffs: &[i32],
    kind: BlockKind,
    nc: i32,
) -> Result<([u32; SLOT_WORDS], u32)> {
    let n = kind.max_coeffs();
    if coeffs.len() != n {
        return Err(Error::InvalidArgument(format!(
            "CAVLC: a {kind:?} block has {n} coefficients, got {}",
            coeffs.len()
        )));
    }
    let table = table_for(kind, nc)?;
    let mask = coeffs
        .iter()
        .enumerate()
        .fold(0u32, |m, (i, &c)| m | (((c != 0) as u32) << i));
    let total_coeff = mask.count_ones();
    let mut w = SlotWriter {
        words: [0; SLOT_WORDS],
        word: 0,
        acc: 0,
        fill: 0,
    };
    let top = |m: u32| 31 - m.leading_zeros();
    let mut rest = mask;
    let (mut trailing_ones, mut signs) = (0u32, 0u32);
    while trailing_ones < 3 && rest != 0 {
        let p = top(rest);
        let v = coeffs[p as usize];
        if v.abs() != 1 {
            break;
        }
        signs = (signs << 1) | (v < 0) as u32;
        trailing_ones += 1;
        rest ^= 1 << p;
    }
    let token = tables::coeff_token(table, trailing_ones as u8, total_coeff as u8)
        .ok_or_else(|| Error::InvalidArgument("CAVLC: no coeff_token".into()))?;
    w.put_vlc(token);
    if total_coeff == 0 {
        return Ok(w.finish());
    }
    if trailing_ones > 0 {
        w.put(signs, trailing_ones);
    }
    let mut suffix_length: u32 = (total_coeff > 10 && trailing_ones < 3) as u32;
    let mut index = trailing_ones as usize;
    while rest != 0 {
        let p = top(rest);
        rest ^= 1 << p;
        let level = coeffs[p as usize];
        let magnitude = level.unsigned_abs();
        let mut level_code = 2 * magnitude - if level > 0 { 2 } else { 1 };
        if index == trailing_ones as usize && trailing_ones < 3 {
            level_code -= 2;
        }
        let escape = if suffix_length == 0 {
            30
        } else {
            15 << suffix_length
        };
        if level_code < escape {
            if suffix_length == 0 {
                if level_code < 14 {
                    w.put(1, level_code + 1);
                } else {
                    w.put(16 | (level_code - 14), 19);
                }
            } else {
                w.put(
                    (1 << suffix_length) | (level_code & ((1 << suffix_length) - 1)),
                    (level_code >> suffix_length) + 1 + suffix_length,
                );
            }
        } else {
            let suffix = level_code - escape;
            if suffix >= 4096 {
                return Err(Error::CavlcLevelTooLarge {
                    kind,
                    index,
                    level,
                    suffix_length,
                });
            }
            w.put(4096 | suffix, 28);
        }
        suffix_length = suffix_length.max(1);
        if magnitude > (3 << (suffix_length - 1)) && suffix_length < 6 {
            suffix_length += 1;
        }
        index += 1;
    }
    let last = top(mask);
    let total_zeros = last + 1 - total_coeff;
    if (total_coeff as usize) < n {
        let chroma_dc = kind == BlockKind::ChromaDC;
        let v = tables::total_zeros(chroma_dc, total_coeff as u8, total_zeros as u8)
            .ok_or_else(|| Error::InvalidArgument("CAVLC: no total_zeros code".into()))?;
        w.put_vlc(v);
    }
    let mut zeros_left = total_zeros;
    let mut runs = mask ^ (1 << last);
    let mut p = last;
    while zeros_left > 0 && runs != 0 {
        let q = top(runs);
        runs ^= 1 << q;
        let run = p - q - 1;
        let v = tables::run_before(zeros_left as u8, run as u8)
            .ok_or_else(|| Error::InvalidArgument("CAVLC: no run_before code".into()))?;
        w.put_vlc(v);
        zeros_left -= run;
        p = q;
    }
    Ok(w.finish())
}

/// The scan-ordered coefficients, kind, raster block (for nC; luma block 0 stands for
/// Intra16x16DC) and coefficient count of slot `slot` of
/// macroblock `mb`, or None where the coded block pattern leaves the slot out.
pub fn slot_block(
    frame: &Frame,
    mb: usize,
    slot: usize,
    scan: &mut [i32; 16],
) -> Option<(BlockKind, usize, usize)> {
    let h = &frame.mbs[mb];
    let levels = frame.mb_levels(mb);
    let (cbp_luma, cbp_chroma) = h.cbp();
    let i16 = h.is_intra16x16();
    let zigzag = |blk: usize, scan: &mut [i32; 16]| {
        for (s, &r) in ZIGZAG.iter().enumerate() {
            scan[s] = levels[blk * 16 + r] as i32;
        }
    };
    match slot {
        SLOT_LUMA_DC => {
            for (s, &r) in ZIGZAG.iter().enumerate() {
                scan[s] = levels[r * 16] as i32;
            }
            i16.then_some((BlockKind::Intra16x16DC, 0, 16))
        }
        s if s < SLOT_CHROMA_DC => {
            let blk = LUMA_CODING_ORDER[s - SLOT_LUMA];
            zigzag(blk, scan);
            let b8 = (blk / 8) * 2 + (blk % 4) / 2;
            if cbp_luma & (1 << b8) == 0 {
                None
            } else if i16 {
                Some((BlockKind::Intra16x16AC, blk, 15))
            } else {
                Some((BlockKind::Luma4x4, blk, 16))
            }
        }
        s if s < SLOT_CHROMA_AC => {
            let comp = s - SLOT_CHROMA_DC;
            for b in 0..4 {
                scan[b] = levels[(CHROMA_BLOCK0 + 4 * comp + b) * 16] as i32;
            }
            (cbp_chroma >= 1).then_some((BlockKind::ChromaDC, usize::MAX, 4))
        }
        s => {
            let blk = CHROMA_BLOCK0 + s - SLOT_CHROMA_AC;
            zigzag(blk, scan);
            (cbp_chroma == 2).then_some((BlockKind::ChromaAC, blk, 15))
        }
    }
}

/// The coefficients of a slot's block within its 16-entry scan array.
pub fn slot_coeffs(scan: &[i32; 16], kind: BlockKind) -> &[i32] {
    match kind {
        BlockKind::Intra16x16AC | BlockKind::ChromaAC => &scan[1..],
        BlockKind::ChromaDC => &scan[..4],
        _ => &scan[..],
    }
}

/// The codes of macroblocks `mbs` (their slots, in order) into `out`, given the frame's
/// TotalCoeffs `tc`.
pub(crate) fn slot_codes_into(
    frame: &Frame,
    tc: &[u8],
    mbs: std::ops::Range<usize>,
    lens: &mut [u32],
    words: &mut [u32],
) -> Result<()> {
    let mut scan = [0i32; 16];
    for (i, mb) in mbs.enumerate() {
        for slot in 0..MB_SLOTS {
            let at = i * MB_SLOTS + slot;
            let Some((kind, blk, _)) = slot_block(frame, mb, slot, &mut scan) else {
                lens[at] = 0;
                continue;
            };
            let nc = match kind {
                BlockKind::ChromaDC => -1,
                BlockKind::Intra16x16DC => block_nc(frame, tc, mb, 0),
                _ => block_nc(frame, tc, mb, blk),
            };
            let (w, len) = encode_block_words(slot_coeffs(&scan, kind), kind, nc)?;
            lens[at] = len;
            words[at * SLOT_WORDS..(at + 1) * SLOT_WORDS].copy_from_slice(&w);
        }
    }
    Ok(())
}

/// The CPU twin of cavlc/cavlcu (and of recompute and su's coding kernel): every slot's
/// code and length. The frame must be valid ([`Frame::validate`]).
pub fn block_codes_cpu(frame: &Frame) -> Result<SlotCodes> {
    let tc = total_coeffs(frame);
    let n = frame.mb_count() * MB_SLOTS;
    let mut codes = SlotCodes {
        lens: vec![0; n],
        words: vec![0; n * SLOT_WORDS],
    };
    slot_codes_into(
        frame,
        &tc,
        0..frame.mb_count(),
        &mut codes.lens,
        &mut codes.words,
    )?;
    Ok(codes)
}

/// Record one cavlc/cavlcu dispatch (`recompute`: the RECOMPUTE override). `state` holds
/// `STATE_HEADER + 4 * n_mbs` words and is cleared here.
#[allow(clippy::too_many_arguments)]
pub(crate) fn encode_cavlcu(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    profiler: Option<&mut Profiler>,
    bufs: &FrameBuffers<'_>,
    reg_size: u32,
    spin_budget: u32,
    recompute: bool,
) -> Result<()> {
    let built = gpu.pipeline(
        &CAVLCU,
        "main",
        &[
            ("REG_SIZE", reg_size as f64),
            ("WG_SIZE", (16 * reg_size) as f64),
            ("SPIN_BUDGET", spin_budget as f64),
            ("RECOMPUTE", if recompute { 1.0 } else { 0.0 }),
        ],
    )?;
    let state_bytes = (crate::scan::STATE_HEADER as u64 + 4 * bufs.n_mbs as u64) * 4;
    encoder.clear_buffer(bufs.state, 0, Some(state_bytes));
    let bind = gpu.bind(
        &built,
        &[
            (0, bufs.params.as_entire_buffer_binding()),
            (1, bufs.headers.clone()),
            (2, bufs.levels.clone()),
            (4, bufs.tables.as_entire_buffer_binding()),
            (5, bufs.enc_words.as_entire_buffer_binding()),
            (6, bufs.enc_lens.as_entire_buffer_binding()),
            (STATE_BINDING, bufs.state.as_entire_buffer_binding()),
            (9, bufs.status.as_entire_buffer_binding()),
        ],
    );
    let label = if recompute { "recompute" } else { "cavlcu" };
    let timestamp_writes = profiler.and_then(|p| p.pass(label));
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes,
    });
    pass.set_pipeline(&built.pipeline);
    pass.set_bind_group(0, &bind, &[]);
    let groups = bufs
        .n_groups
        .min(gpu.limits.max_compute_workgroups_per_dimension);
    pass.dispatch_workgroups(groups, 1, 1);
    Ok(())
}
