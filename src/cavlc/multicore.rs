//! The CPU encoder of the benchmark's CPU rows, on one core or all of them (rayon):
//! TotalCoeff of every block, then runs of macroblock rows coded into separate writers
//! (the block codes of `super::cavlcu::slot_codes_into`, the headers and packing of
//! `super::pack::pack_mbs`) and concatenated per slice. The same bits as
//! [`super::frame::encode_slice_data`] (the reference, a bit-at-a-time writer), faster.

use rayon::prelude::*;

use super::cavlcu::{slot_codes_into, MB_SLOTS, SLOT_WORDS};
use super::frame::{mb_total_coeffs, total_coeffs, Frame, MB_BLOCKS};
use super::pack::{pack_mbs, FastWriter};
use crate::Result;

/// Code every slice of `frame` on one core (`parallel` false) or on all cores.
pub fn encode_frame_cpu(frame: &Frame, parallel: bool) -> Result<Vec<(Vec<u8>, u64)>> {
    frame.validate()?;
    let tc = if parallel {
        total_coeffs_parallel(frame)
    } else {
        total_coeffs(frame)
    };
    let w = frame.width_mbs as usize;
    let mut out = Vec::new();
    for slice in frame.slices() {
        // Runs of whole rows (cut at the slice's ends).
        let mut runs = Vec::new();
        let mut start = slice.start;
        while start < slice.end {
            let end = ((start / w + 1) * w).min(slice.end);
            runs.push(start..end);
            start = end;
        }
        let code_run = |r: std::ops::Range<usize>| -> Result<(Vec<u8>, u64)> {
            let n = r.len() * MB_SLOTS;
            let mut lens = vec![0u32; n];
            let mut words = vec![0u32; n * SLOT_WORDS];
            slot_codes_into(frame, &tc, r.clone(), &mut lens, &mut words)?;
            let mut writer = FastWriter::with_capacity(r.len() * 64);
            pack_mbs(&mut writer, frame, r, &lens, &words);
            Ok(writer.finish())
        };
        let pieces: Vec<(Vec<u8>, u64)> = if parallel {
            runs.into_par_iter().map(code_run).collect::<Result<_>>()?
        } else {
            runs.into_iter().map(code_run).collect::<Result<_>>()?
        };
        let mut writer = FastWriter::with_capacity(pieces.iter().map(|p| p.0.len()).sum());
        for (bytes, bits) in &pieces {
            writer.append(bytes, *bits);
        }
        out.push(writer.finish());
    }
    Ok(out)
}

/// [`total_coeffs`] with the macroblocks spread over all cores.
pub fn total_coeffs_parallel(frame: &Frame) -> Vec<u8> {
    let mut out = vec![0u8; frame.mb_count() * MB_BLOCKS];
    out.par_chunks_mut(MB_BLOCKS)
        .enumerate()
        .for_each(|(mb, tc)| mb_total_coeffs(frame, mb, tc));
    out
}
