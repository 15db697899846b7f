//! A frame as CAVLC sees it (macroblock headers and quantized levels of an intra-only
//! 4:2:0 Baseline frame) and the CPU reference for `slice_data()` (clause 7.3.4) of one
//! slice: macroblock headers and residual blocks in bitstream order, nC from the
//! neighbouring blocks' TotalCoeff (clause 9.2.1), slice availability honoured.
//!
//! This is the contract between the H.264 encoder (`crate::h264`) and the CAVLC stages:
//! the CPU reference here and the GPU stages must produce the same bits.

use super::cpu::{encode_residual_block, nc_from_neighbours, BlockKind};
use crate::bits::{BitSink, MsbWriter};
use crate::{Error, Result};

/// 4x4 blocks per macroblock: 16 luma, 4 Cb, 4 Cr.
pub const MB_BLOCKS: usize = 24;
/// Levels per macroblock: [`MB_BLOCKS`] blocks of 16.
pub const MB_LEVELS: usize = MB_BLOCKS * 16;
/// First chroma block of a macroblock (Cb 16..20, Cr 20..24).
pub const CHROMA_BLOCK0: usize = 16;

/// Zigzag scan (clause 8.5.6, frame macroblocks): scan index -> raster index `y * 4 + x`.
pub const ZIGZAG: [usize; 16] = [0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15];

/// luma4x4BlkIdx (coding order, clause 6.4.3) -> raster block index `by * 4 + bx`.
pub const LUMA_CODING_ORDER: [usize; 16] = [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15];

/// mb_type 0: I_NxN (Intra_4x4, residual in LumaLevel4x4 blocks).
pub const MB_TYPE_I_NXN: u32 = 0;

/// One macroblock's header. `#[repr(C)]` because the GPU stages read it as is: keep in
/// sync with `struct MbHeader` in shaders/cavlc/frame.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MbHeader {
    /// mb_type of an I slice (Table 7-11): 0 = I_NxN, 1..=24 = I_16x16
    /// (1 + pred_mode + 4 * cbp_chroma + 12 * (cbp_luma == 15)). I_PCM is not used.
    pub mb_type: u32,
    /// intra_chroma_pred_mode, 0..=3.
    pub intra_chroma_pred_mode: u32,
    /// mb_qp_delta, -26..=25. Written for I_16x16 always, for I_NxN when cbp != 0.
    pub mb_qp_delta: i32,
    /// Slice index; macroblocks of one slice are consecutive in raster order and slice
    /// indices never decrease. Neighbours in another slice are unavailable.
    pub slice: u32,
    /// I_NxN only: coded_block_pattern (bits 0..=3: the luma 8x8 blocks, bits 4..=5:
    /// chroma 0..=2). Ignored (derived from mb_type) for I_16x16.
    pub coded_block_pattern: u32,
    /// I_NxN only: per luma4x4BlkIdx `i`, nibble `i % 8` of word `i / 8`: 8 means
    /// prev_intra4x4_pred_mode_flag = 1, 0..=7 means flag 0 and rem_intra4x4_pred_mode.
    pub intra4x4_modes: [u32; 2],
    pub _pad: u32,
}

impl MbHeader {
    /// An I_16x16 header; cbp_luma is 0 or 15, cbp_chroma 0..=2.
    pub fn intra16x16(
        pred_mode: u32,
        cbp_luma: u32,
        cbp_chroma: u32,
        intra_chroma_pred_mode: u32,
        mb_qp_delta: i32,
        slice: u32,
    ) -> MbHeader {
        MbHeader {
            mb_type: 1 + pred_mode + 4 * cbp_chroma + if cbp_luma == 15 { 12 } else { 0 },
            intra_chroma_pred_mode,
            mb_qp_delta,
            slice,
            ..MbHeader::default()
        }
    }
    /// An I_NxN header: the mode syntax per luma4x4BlkIdx (see
    /// [`MbHeader::intra4x4_modes`]), coded_block_pattern (luma mask | chroma << 4).
    pub fn intra4x4(
        intra4x4_modes: [u32; 2],
        coded_block_pattern: u32,
        intra_chroma_pred_mode: u32,
        mb_qp_delta: i32,
        slice: u32,
    ) -> MbHeader {
        MbHeader {
            mb_type: MB_TYPE_I_NXN,
            intra_chroma_pred_mode,
            mb_qp_delta,
            slice,
            coded_block_pattern,
            intra4x4_modes,
            _pad: 0,
        }
    }
    pub fn is_intra16x16(&self) -> bool {
        self.mb_type != MB_TYPE_I_NXN
    }
    /// (cbp_luma as a 4-bit mask of 8x8 blocks, cbp_chroma 0..=2).
    pub fn cbp(&self) -> (u32, u32) {
        if self.is_intra16x16() {
            let t = self.mb_type - 1;
            (if t >= 12 { 15 } else { 0 }, (t % 12) / 4)
        } else {
            (
                self.coded_block_pattern & 15,
                (self.coded_block_pattern >> 4) & 3,
            )
        }
    }
    fn check(&self, mb: usize) -> Result<()> {
        let bad = |what: String| Err(Error::InvalidArgument(format!("macroblock {mb}: {what}")));
        if self.mb_type > 24 {
            return bad(format!(
                "mb_type {} is not an I-slice type we code (0..=24)",
                self.mb_type
            ));
        }
        if self.intra_chroma_pred_mode > 3 {
            return bad(format!(
                "intra_chroma_pred_mode {}",
                self.intra_chroma_pred_mode
            ));
        }
        if !(-26..=25).contains(&self.mb_qp_delta) {
            return bad(format!("mb_qp_delta {} outside -26..=25", self.mb_qp_delta));
        }
        if !self.is_intra16x16() {
            if self.coded_block_pattern >= 48 || (self.coded_block_pattern >> 4) > 2 {
                return bad(format!("coded_block_pattern {}", self.coded_block_pattern));
            }
            for i in 0..16 {
                if self.intra4x4_mode(i) > 8 {
                    return bad(format!(
                        "intra4x4 mode nibble {} of block {i}",
                        self.intra4x4_mode(i)
                    ));
                }
            }
        }
        Ok(())
    }
    /// Whether level `pos` (raster) of block `blk` (see [`Frame::levels`]) is coded under
    /// this macroblock's pattern; levels that are not must be 0.
    pub fn codes_level(&self, blk: usize, pos: usize) -> bool {
        let (cbp_luma, cbp_chroma) = self.cbp();
        if blk < CHROMA_BLOCK0 {
            if self.is_intra16x16() && pos == 0 {
                return true; // Intra16x16DCLevel is always coded
            }
            let b8 = (blk / 8) * 2 + (blk % 4) / 2; // 8x8 quadrant of raster block `blk`
            cbp_luma & (1 << b8) != 0
        } else if pos == 0 {
            cbp_chroma >= 1
        } else {
            cbp_chroma == 2
        }
    }
    /// The nibble of luma4x4BlkIdx `i` (see [`MbHeader::intra4x4_modes`]).
    pub fn intra4x4_mode(&self, i: usize) -> u32 {
        (self.intra4x4_modes[i / 8] >> (4 * (i % 8))) & 15
    }
}

/// A frame's CAVLC input.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    pub width_mbs: u32,
    pub height_mbs: u32,
    /// Raster order, `width_mbs * height_mbs` entries.
    pub mbs: Vec<MbHeader>,
    /// [`MB_LEVELS`] per macroblock. Blocks 0..16 are luma in raster block order
    /// (`by * 4 + bx`), 16..20 Cb and 20..24 Cr in raster order of the 2x2; each block's 16
    /// levels are in raster order (`y * 4 + x`), not scan order. Level 0 of an I_16x16 luma
    /// block is the Intra16x16DCLevel at that block's position in the 4x4 DC matrix; level
    /// 0 of a chroma block is that component's ChromaDCLevel at the block's position in
    /// the 2x2 DC matrix. Levels that the coded block pattern leaves uncoded must be 0.
    pub levels: Vec<i16>,
}

impl Frame {
    /// An all-zero frame of I_16x16 DC-predicted macroblocks, one slice.
    pub fn new(width_mbs: u32, height_mbs: u32) -> Frame {
        let n = (width_mbs * height_mbs) as usize;
        Frame {
            width_mbs,
            height_mbs,
            mbs: vec![MbHeader::intra16x16(2, 0, 0, 0, 0, 0); n],
            levels: vec![0; n * MB_LEVELS],
        }
    }
    pub fn mb_count(&self) -> usize {
        self.mbs.len()
    }
    pub fn mb_levels(&self, mb: usize) -> &[i16] {
        &self.levels[mb * MB_LEVELS..(mb + 1) * MB_LEVELS]
    }
    pub fn mb_levels_mut(&mut self, mb: usize) -> &mut [i16] {
        &mut self.levels[mb * MB_LEVELS..(mb + 1) * MB_LEVELS]
    }
    /// The macroblock range of each slice, in order.
    pub fn slices(&self) -> Vec<std::ops::Range<usize>> {
        let mut out: Vec<std::ops::Range<usize>> = Vec::new();
        for (i, mb) in self.mbs.iter().enumerate() {
            match out.last_mut() {
                Some(r) if self.mbs[r.start].slice == mb.slice => r.end = i + 1,
                _ => out.push(i..i + 1),
            }
        }
        out
    }
    /// Shape, headers, slice order and uncoded levels all as the contract says.
    pub fn validate(&self) -> Result<()> {
        let n = self.width_mbs as usize * self.height_mbs as usize;
        if n == 0 || self.mbs.len() != n || self.levels.len() != n * MB_LEVELS {
            return Err(Error::InvalidArgument(format!(
                "CAVLC frame of {}x{} macroblocks needs {n} headers and {} levels, got {} and {}",
                self.width_mbs,
                self.height_mbs,
                n * MB_LEVELS,
                self.mbs.len(),
                self.levels.len()
            )));
        }
        for (mb, h) in self.mbs.iter().enumerate() {
            h.check(mb)?;
            if mb > 0 && h.slice < self.mbs[mb - 1].slice {
                return Err(Error::InvalidArgument(format!(
                    "macroblock {mb}: slice index {} after {}; slices must be in raster order",
                    h.slice,
                    self.mbs[mb - 1].slice
                )));
            }
            let levels = self.mb_levels(mb);
            let (cbp_luma, cbp_chroma) = h.cbp();
            for blk in 0..MB_BLOCKS {
                for pos in 0..16 {
                    if levels[blk * 16 + pos] != 0 && !h.codes_level(blk, pos) {
                        return Err(Error::InvalidArgument(format!(
                            "macroblock {mb}: block {blk} level {pos} is nonzero but its \
                             coded block pattern (luma {cbp_luma:#x}, chroma {cbp_chroma}) leaves it uncoded"
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

/// TotalCoeff of every block of every macroblock as a neighbour sees it (clause 9.2.1:
/// the AC count for I_16x16 luma and chroma blocks; 0 for blocks the pattern leaves
/// uncoded), [`MB_BLOCKS`] per macroblock.
pub fn total_coeffs(frame: &Frame) -> Vec<u8> {
    let mut out = vec![0u8; frame.mb_count() * MB_BLOCKS];
    for (mb, tc) in out.chunks_mut(MB_BLOCKS).enumerate() {
        mb_total_coeffs(frame, mb, tc);
    }
    out
}

/// [`total_coeffs`] of macroblock `mb` into `out` ([`MB_BLOCKS`] entries).
pub fn mb_total_coeffs(frame: &Frame, mb: usize, out: &mut [u8]) {
    let h = &frame.mbs[mb];
    let levels = frame.mb_levels(mb);
    for (blk, tc) in out.iter_mut().enumerate() {
        // I_16x16 luma and all chroma blocks count their AC levels only.
        let skip_dc = blk >= CHROMA_BLOCK0 || h.is_intra16x16();
        *tc = levels[blk * 16 + skip_dc as usize..(blk + 1) * 16]
            .iter()
            .filter(|&&l| l != 0)
            .count() as u8;
    }
}

/// nC of block `blk` (raster, see [`Frame::levels`]) of macroblock `mb`, from the
/// neighbours' TotalCoeff `tc` (as returned by [`total_coeffs`]).
pub fn block_nc(frame: &Frame, tc: &[u8], mb: usize, blk: usize) -> i32 {
    let w = frame.width_mbs as usize;
    let slice = frame.mbs[mb].slice;
    let available = |n: usize| frame.mbs[n].slice == slice;
    let left_mb = (!mb.is_multiple_of(w) && available(mb - 1)).then(|| mb - 1);
    let up_mb = (mb >= w && available(mb - w)).then(|| mb - w);
    let (side, base) = if blk < CHROMA_BLOCK0 {
        (4, 0)
    } else {
        (2, CHROMA_BLOCK0 + 4 * ((blk - CHROMA_BLOCK0) / 4))
    };
    let (bx, by) = ((blk - base) % side, (blk - base) / side);
    let at = |m: usize, x: usize, y: usize| tc[m * MB_BLOCKS + base + y * side + x];
    let n_a = if bx > 0 {
        Some(at(mb, bx - 1, by))
    } else {
        left_mb.map(|m| at(m, side - 1, by))
    };
    let n_b = if by > 0 {
        Some(at(mb, bx, by - 1))
    } else {
        up_mb.map(|m| at(m, bx, side - 1))
    };
    nc_from_neighbours(n_a, n_b)
}

/// Exp-Golomb ue(v) (clause 9.1).
pub fn put_ue(w: &mut impl BitSink, value: u32) {
    let v = value as u64 + 1;
    let bits = 64 - v.leading_zeros(); // up to 33
    if bits <= 16 {
        // The usual case, in one call: bits - 1 zeros, then v.
        w.put_bits(v as u32, 2 * bits - 1);
        return;
    }
    w.put_bits(0, bits - 1);
    if bits > 32 {
        w.put_bits(1, 1);
    }
    w.put_bits(v as u32, bits.min(32));
}

/// Exp-Golomb se(v) (clause 9.1.1).
pub fn put_se(w: &mut impl BitSink, value: i32) {
    let code = if value > 0 {
        2 * value as u32 - 1
    } else {
        2 * value.unsigned_abs()
    };
    put_ue(w, code);
}

/// coded_block_pattern of Intra_4x4 macroblocks by codeNum, 4:2:0 (Table 9-4, column
/// Intra_4x4): cbp = luma | chroma << 4.
pub const INTRA_CBP_BY_CODE_NUM: [u8; 48] = [
    47, 31, 15, 0, 23, 27, 29, 30, 7, 11, 13, 14, 39, 43, 45, 46, 16, 3, 5, 10, 12, 19, 21, 26, 28,
    35, 37, 42, 44, 1, 2, 4, 8, 17, 18, 20, 24, 6, 9, 22, 25, 32, 33, 34, 36, 40, 38, 41,
];

/// The codeNum that me(v) writes for an Intra_4x4 coded_block_pattern (< 48).
pub fn intra_cbp_code_num(cbp: u32) -> u32 {
    INTRA_CBP_BY_CODE_NUM
        .iter()
        .position(|&c| c as u32 == cbp)
        .unwrap_or(0) as u32 // every cbp < 48 is in the table; MbHeader::check rejects others
}

/// A macroblock's header (clause 7.3.5: mb_type, the Intra4x4 mode fields, the chroma
/// prediction mode, coded_block_pattern, mb_qp_delta); whether a residual follows.
/// The header must have passed [`Frame::validate`] (or `MbHeader` checks).
pub fn put_mb_header(w: &mut impl BitSink, h: &MbHeader) -> bool {
    put_ue(w, h.mb_type);
    if !h.is_intra16x16() {
        for i in 0..16 {
            match h.intra4x4_mode(i) {
                8 => w.put_bits(1, 1),
                rem => w.put_bits(rem, 4),
            }
        }
    }
    put_ue(w, h.intra_chroma_pred_mode);
    if !h.is_intra16x16() {
        put_ue(w, intra_cbp_code_num(h.coded_block_pattern));
    }
    let (cbp_luma, cbp_chroma) = h.cbp();
    let residual = h.is_intra16x16() || cbp_luma != 0 || cbp_chroma != 0;
    if residual {
        put_se(w, h.mb_qp_delta);
    }
    residual
}

/// The CPU reference: `slice_data()` of the macroblocks `mbs` (one slice) appended to
/// `out`. On error (a level Baseline cannot code, an invalid header) `out` is unchanged.
pub fn encode_slice_data(
    frame: &Frame,
    tc: &[u8],
    mbs: std::ops::Range<usize>,
    out: &mut MsbWriter,
) -> Result<()> {
    let mut w = MsbWriter::new();
    let mut scan = [0i32; 16];
    for mb in mbs {
        let h = &frame.mbs[mb];
        h.check(mb)?;
        let levels = frame.mb_levels(mb);
        let (cbp_luma, cbp_chroma) = h.cbp();
        if !put_mb_header(&mut w, h) {
            continue; // no residual
        }
        let block = |blk: usize, scan: &mut [i32; 16]| {
            for (s, &r) in ZIGZAG.iter().enumerate() {
                scan[s] = levels[blk * 16 + r] as i32;
            }
        };
        let enc = |coeffs: &[i32], kind, nc, w: &mut MsbWriter| {
            encode_residual_block(coeffs, kind, nc, w)
                .map(|_| ())
                .map_err(|e| with_mb(e, mb))
        };
        if h.is_intra16x16() {
            // The DC matrix is zigzag-scanned over block positions.
            for (s, &r) in ZIGZAG.iter().enumerate() {
                scan[s] = levels[r * 16] as i32;
            }
            enc(
                &scan,
                BlockKind::Intra16x16DC,
                block_nc(frame, tc, mb, 0),
                &mut w,
            )?;
        }
        for &blk in &LUMA_CODING_ORDER {
            let b8 = (blk / 8) * 2 + (blk % 4) / 2;
            if cbp_luma & (1 << b8) == 0 {
                continue;
            }
            block(blk, &mut scan);
            let nc = block_nc(frame, tc, mb, blk);
            if h.is_intra16x16() {
                enc(&scan[1..], BlockKind::Intra16x16AC, nc, &mut w)?;
            } else {
                enc(&scan, BlockKind::Luma4x4, nc, &mut w)?;
            }
        }
        if cbp_chroma >= 1 {
            for comp in 0..2 {
                let dc: Vec<i32> = (0..4)
                    .map(|b| levels[(CHROMA_BLOCK0 + 4 * comp + b) * 16] as i32)
                    .collect();
                enc(&dc, BlockKind::ChromaDC, -1, &mut w)?;
            }
        }
        if cbp_chroma == 2 {
            for blk in CHROMA_BLOCK0..MB_BLOCKS {
                block(blk, &mut scan);
                enc(
                    &scan[1..],
                    BlockKind::ChromaAC,
                    block_nc(frame, tc, mb, blk),
                    &mut w,
                )?;
            }
        }
    }
    out.append(&w);
    Ok(())
}

fn with_mb(e: Error, mb: usize) -> Error {
    match e {
        Error::InvalidArgument(m) => Error::InvalidArgument(format!("macroblock {mb}: {m}")),
        other => other,
    }
}
