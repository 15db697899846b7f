//! Reading back the H.264 encoder's output in process: the Annex B byte stream split into
//! NAL units (start codes and emulation prevention checked), and a slice's RBSP parsed
//! (the expected slice header, then slice_data(): macroblock headers and every residual
//! block through the CAVLC decoder, nC from the blocks decoded so far, then the stop bit).
//! What this does not do: inverse transform and prediction, so the reconstruction a decoder
//! would output is not recomputed here (tests/h264_ffmpeg.rs has FFmpeg check that).

use parvlc::cavlc::frame::{
    block_nc, Frame, MbHeader, CHROMA_BLOCK0, INTRA_CBP_BY_CODE_NUM, LUMA_CODING_ORDER, MB_BLOCKS,
    MB_LEVELS, ZIGZAG,
};
use parvlc::cavlc::{decode_residual_block, BitReader, BlockKind};

/// One NAL unit: nal_ref_idc, nal_unit_type and the payload with emulation prevention
/// removed (the RBSP).
pub struct Nal {
    pub ref_idc: u8,
    pub unit_type: u8,
    pub rbsp: Vec<u8>,
}

/// Split an Annex B stream of 4-byte start codes (what the encoder writes) into NAL units.
/// Inside a unit, no `00 00 00`, `00 00 01` or `00 00 02` may appear, `00 00 03` must be
/// followed by a byte of at most 3 or end the unit, and the last byte is not zero.
pub fn split_annexb(stream: &[u8]) -> Result<Vec<Nal>, String> {
    const START: [u8; 4] = [0, 0, 0, 1];
    if !stream.starts_with(&START) {
        return Err("the stream does not start with a start code".into());
    }
    // With emulation prevention, `00 00 00 01` occurs only as a start code.
    let mut starts: Vec<usize> = (0..stream.len().saturating_sub(3))
        .filter(|&i| stream[i..i + 4] == START)
        .collect();
    starts.push(stream.len());
    let mut out = Vec::new();
    for w in starts.windows(2) {
        let unit = &stream[w[0] + 4..w[1]];
        let (&header, ebsp) = unit.split_first().ok_or("an empty NAL unit")?;
        if header & 0x80 != 0 {
            return Err(format!(
                "forbidden_zero_bit set in NAL header {header:#04x}"
            ));
        }
        if ebsp.last() == Some(&0) {
            return Err("a NAL unit ends with a zero byte".into());
        }
        for (i, t) in ebsp.windows(3).enumerate() {
            if t[0] == 0 && t[1] == 0 && t[2] <= 2 {
                return Err(format!("unescaped 00 00 {:02x} inside a NAL unit", t[2]));
            }
            if t[..] == [0, 0, 3] && ebsp.get(i + 3).is_some_and(|&b| b > 3) {
                return Err("00 00 03 followed by a byte above 3".into());
            }
        }
        out.push(Nal {
            ref_idc: header >> 5 & 3,
            unit_type: header & 31,
            rbsp: parvlc::h264::nal::unescape(ebsp),
        });
    }
    Ok(out)
}

fn ue(r: &mut BitReader<'_>) -> Result<u32, String> {
    let mut zeros = 0;
    while r.bit().map_err(|e| e.to_string())? == 0 {
        zeros += 1;
        if zeros > 31 {
            return Err("an Exp-Golomb code longer than 32 bits".into());
        }
    }
    let rest = r.read(zeros).map_err(|e| e.to_string())?;
    Ok(((1u64 << zeros) - 1 + rest as u64) as u32)
}

fn se(r: &mut BitReader<'_>) -> Result<i32, String> {
    let k = ue(r)? as i64;
    Ok(if k % 2 == 1 { (k + 1) / 2 } else { -(k / 2) } as i32)
}

/// Parse the RBSP of the slice of `layout`'s macroblocks `mbs` (the encoder's frame gives
/// the slice layout, for neighbour availability), expecting exactly the header
/// `slice_header(mbs.start, idr_pic_id)`; decoded headers and levels go into `out`, whose
/// `tc` records each block's TotalCoeff for the nC of later blocks.
pub fn parse_slice(
    rbsp: &[u8],
    layout: &Frame,
    mbs: std::ops::Range<usize>,
    idr_pic_id: u32,
    out: &mut Frame,
    tc: &mut [u8],
) -> Result<(), String> {
    let header = parvlc::h264::syntax::slice_header(mbs.start as u32, idr_pic_id);
    let mut r = BitReader::new(rbsp, rbsp.len() as u64 * 8);
    let mut want = BitReader::new(header.as_bytes(), header.bit_len());
    for i in 0..header.bit_len() {
        let (a, b) = (r.bit(), want.bit());
        if a.map_err(|e| e.to_string())? != b.map_err(|e| e.to_string())? {
            return Err(format!(
                "slice header bit {i} differs from the expected header"
            ));
        }
    }
    let err = |mb: usize, e: parvlc::Error| format!("macroblock {mb}: {e}");
    for mb in mbs {
        let mut h = MbHeader {
            slice: layout.mbs[mb].slice,
            ..MbHeader::default()
        };
        h.mb_type = ue(&mut r)?;
        if h.mb_type > 24 {
            return Err(format!("macroblock {mb}: mb_type {}", h.mb_type));
        }
        if !h.is_intra16x16() {
            for i in 0..16 {
                let mode = if r.bit().map_err(|e| err(mb, e))? == 1 {
                    8
                } else {
                    r.read(3).map_err(|e| err(mb, e))?
                };
                h.intra4x4_modes[i / 8] |= mode << (4 * (i % 8));
            }
        }
        h.intra_chroma_pred_mode = ue(&mut r)?;
        if h.intra_chroma_pred_mode > 3 {
            return Err(format!("macroblock {mb}: intra_chroma_pred_mode > 3"));
        }
        if !h.is_intra16x16() {
            let code = ue(&mut r)? as usize;
            let cbp = INTRA_CBP_BY_CODE_NUM.get(code).ok_or(format!(
                "macroblock {mb}: coded_block_pattern codeNum {code}"
            ))?;
            h.coded_block_pattern = *cbp as u32;
        }
        let (cbp_luma, cbp_chroma) = h.cbp();
        let residual = h.is_intra16x16() || cbp_luma != 0 || cbp_chroma != 0;
        if residual {
            h.mb_qp_delta = se(&mut r)?;
        }
        out.mbs[mb] = h;
        if !residual {
            continue;
        }
        let levels = &mut out.levels[mb * MB_LEVELS..(mb + 1) * MB_LEVELS];
        let block = |kind, nc, r: &mut BitReader<'_>| {
            decode_residual_block(r, kind, nc).map_err(|e| err(mb, e))
        };
        if h.is_intra16x16() {
            let dc = block(BlockKind::Intra16x16DC, block_nc(layout, tc, mb, 0), &mut r)?;
            for (s, &pos) in ZIGZAG.iter().enumerate() {
                levels[pos * 16] = dc[s] as i16;
            }
        }
        for &blk in &LUMA_CODING_ORDER {
            let b8 = (blk / 8) * 2 + (blk % 4) / 2;
            if cbp_luma & (1 << b8) == 0 {
                continue;
            }
            let nc = block_nc(layout, tc, mb, blk);
            let (kind, first) = if h.is_intra16x16() {
                (BlockKind::Intra16x16AC, 1)
            } else {
                (BlockKind::Luma4x4, 0)
            };
            let coeffs = block(kind, nc, &mut r)?;
            for (k, &c) in coeffs.iter().enumerate() {
                levels[blk * 16 + ZIGZAG[first + k]] = c as i16;
            }
            tc[mb * MB_BLOCKS + blk] = coeffs.iter().filter(|&&c| c != 0).count() as u8;
        }
        if cbp_chroma >= 1 {
            for comp in 0..2 {
                let dc = block(BlockKind::ChromaDC, -1, &mut r)?;
                for (b, &c) in dc.iter().enumerate() {
                    levels[(CHROMA_BLOCK0 + 4 * comp + b) * 16] = c as i16;
                }
            }
        }
        if cbp_chroma == 2 {
            for blk in CHROMA_BLOCK0..MB_BLOCKS {
                let coeffs = block(BlockKind::ChromaAC, block_nc(layout, tc, mb, blk), &mut r)?;
                for (k, &c) in coeffs.iter().enumerate() {
                    levels[blk * 16 + ZIGZAG[1 + k]] = c as i16;
                }
                tc[mb * MB_BLOCKS + blk] = coeffs.iter().filter(|&&c| c != 0).count() as u8;
            }
        }
    }
    // rbsp_slice_trailing_bits: a one, then zeros to the end.
    if r.bit().map_err(|e| e.to_string())? != 1 {
        return Err("no rbsp_stop_one_bit after the last macroblock".into());
    }
    while r.position() < rbsp.len() as u64 * 8 {
        if r.bit().map_err(|e| e.to_string())? != 0 {
            return Err("a nonzero bit after rbsp_stop_one_bit".into());
        }
    }
    Ok(())
}
