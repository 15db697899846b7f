//! A tier-1 batch read back: each block's result record and bytes into the CPU twin's
//! form, checked, and the blocks that outgrew their room coded again.

use super::super::{CodeBlockCoded, CodeBlockInput, PassInfo, Tier1Options};
use super::{
    BlockDesc, Tier1Batch, Tier1Kernels, PASS_MQ_OPEN, PASS_RATE, PASS_TERM, RESULT_HEAD,
    RESULT_STRIDE,
};
use crate::gpu::registry::j2k::TIER1;
use crate::gpu::Gpu;
use crate::{Error, Result};

impl Tier1Kernels {
    /// Read the coded blocks of an encoded, submitted batch. Blocks that outgrew their
    /// region come back as `Err(needed bytes)`.
    pub async fn finish(
        &self,
        gpu: &Gpu,
        batch: &Tier1Batch,
    ) -> Result<Vec<std::result::Result<CodeBlockCoded, u32>>> {
        let started = crate::gpu::clock();
        // The results first (a few words per block), then only each block's coded bytes:
        // the output's room is several times what the blocks code to (a 4K picture: 53
        // MB of room for a 7.7 MB codestream).
        let result_ranges: Vec<_> = batch
            .dispatches
            .iter()
            .map(|d| (&*d.results, 0, (d.blocks.len() * RESULT_STRIDE * 4) as u64))
            .collect();
        let results: Vec<Vec<u32>> = gpu
            .read_buffers(&result_ranges)
            .await?
            .iter()
            .map(|r| bytemuck::pod_collect_to_vec::<u8, u32>(r))
            .collect();
        let record = |di: usize, j: usize| -> Result<&[u32]> {
            results
                .get(di)
                .and_then(|r| r.get(j * RESULT_STRIDE..(j + 1) * RESULT_STRIDE))
                .ok_or_else(|| corrupt("a code-block's result lies outside the results".into()))
        };
        // Blocks that fit their room, in the batch's order, and where their bytes are.
        let mut ranges = Vec::new();
        let mut part_of = Vec::with_capacity(batch.at.len());
        for &(di, j) in &batch.at {
            let d = &batch.dispatches[di];
            let desc = &d.blocks[j];
            let len = record(di, j)?[0] as u64;
            if len > 0 && len <= desc.cap_words as u64 * 4 {
                part_of.push(Some(ranges.len()));
                ranges.push((
                    &*d.output,
                    desc.out_word as u64 * 4,
                    len.next_multiple_of(4),
                ));
            } else {
                part_of.push(None);
            }
        }
        let parts = gpu.read_gathered(&ranges).await?;
        if let Some(t) = started {
            log::debug!(
                "tier-1: {} dispatch(es) done and {} bytes read back in {:.1} ms",
                batch.dispatches.len(),
                ranges.iter().map(|r| r.2).sum::<u64>(),
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        batch
            .at
            .iter()
            .zip(&part_of)
            .map(|(&(di, j), part)| {
                let bytes = part.and_then(|p| parts.get(p)).map_or(&[][..], |b| &b[..]);
                decode_result(&batch.dispatches[di].blocks[j], record(di, j)?, bytes)
            })
            .collect()
    }

    /// The first results of `blocks`, those that outgrew their room coded again with
    /// exactly the room they need.
    pub(super) async fn retry_outgrown(
        &self,
        gpu: &Gpu,
        first: Vec<std::result::Result<CodeBlockCoded, u32>>,
        blocks: &[CodeBlockInput<'_>],
        opts: &Tier1Options,
    ) -> Result<Vec<CodeBlockCoded>> {
        let retry: Vec<(usize, u32)> = first
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.as_ref().err().map(|&need| (i, need)))
            .collect();
        let mut out: Vec<Option<CodeBlockCoded>> = first.into_iter().map(|r| r.ok()).collect();
        if !retry.is_empty() {
            log::debug!(
                "tier-1: {} code-blocks re-encoded with more room",
                retry.len()
            );
            let jobs: Vec<CodeBlockInput<'_>> = retry.iter().map(|&(i, _)| blocks[i]).collect();
            let caps: Vec<u32> = retry.iter().map(|&(_, need)| need.max(4)).collect();
            let again = self.upload_with(gpu, &jobs, &caps, opts)?;
            for (&(i, _), r) in retry.iter().zip(self.run(gpu, &again).await?) {
                out[i] = Some(r.map_err(|need| Error::Gpu {
                    stage: TIER1.name,
                    message: format!(
                        "code-block {i} needed {need} bytes after a re-encode with that room"
                    ),
                })?);
            }
        }
        out.into_iter()
            .enumerate()
            .map(|(i, b)| {
                b.ok_or_else(|| Error::Gpu {
                    stage: TIER1.name,
                    message: format!("code-block {i} has no result"),
                })
            })
            .collect()
    }
}

pub(super) fn corrupt(message: String) -> Error {
    Error::Gpu {
        stage: TIER1.name,
        message,
    }
}

/// One block's record and bytes into the CPU twin's form, with the same final pass-end
/// rules (OpenJPEG's: estimates never exceed a later pass's end, no pass ends on 0xFF).
/// A block's result record and its bytes as read back (its coded length, rounded up
/// to whole words; nothing for a block that outgrew its room).
fn decode_result(
    desc: &BlockDesc,
    record: &[u32],
    bytes: &[u8],
) -> Result<std::result::Result<CodeBlockCoded, u32>> {
    let len = record[0];
    let num_bitplanes = record[1];
    let n_passes = record[2] as usize;
    let expected = if num_bitplanes == 0 {
        0
    } else {
        3 * num_bitplanes as usize - 2
    };
    if num_bitplanes > 32 || n_passes != expected {
        return Err(corrupt(format!(
            "a {}x{} code-block reported {n_passes} passes for {num_bitplanes} bit-planes",
            desc.width, desc.height
        )));
    }
    if len > desc.cap_words * 4 {
        return Ok(Err(len));
    }
    let data = bytes
        .get(..len as usize)
        .ok_or_else(|| corrupt("a code-block's bytes lie outside the output".into()))?
        .to_vec();
    let mut passes: Vec<PassInfo> = record[RESULT_HEAD..RESULT_HEAD + n_passes]
        .iter()
        .map(|&w| PassInfo {
            end: (w & PASS_RATE) + if w & PASS_MQ_OPEN != 0 { 2 } else { 0 },
            terminated: w & PASS_TERM != 0,
        })
        .collect();
    // data holds exactly `len` bytes.
    crate::j2k::tier1::cpu::settle_pass_ends(&mut passes, &data);
    Ok(Ok(CodeBlockCoded {
        data,
        num_bitplanes,
        passes,
    }))
}
