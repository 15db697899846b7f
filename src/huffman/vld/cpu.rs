//! The vld kernel's CPU twin: the same table, payload words and tasks, a block at a time.

use super::{
    VldFrame, VldOutput, VldPlan, COUNT_AT, LAST_BLOCK, LONG_AT, MAX_LEN_AT, PRIMARY_BITS,
    SORTED_AT, STATUS_INVALID_CODE, STATUS_OVERRUN, STATUS_WRONG_END, STEP_AT, TABLE_WORDS,
};
use crate::Result;

/// The CPU twin: every block decoded as the kernel does, from the same table, payload
/// words and tasks.
pub fn decode_cpu(frames: &[VldFrame<'_>]) -> Result<VldOutput> {
    use rayon::prelude::*;
    let plan = VldPlan::new(frames, 1)?;
    let tables = plan.tables(frames)?;
    let words = plan.payload(frames);
    let results: Vec<(Vec<u8>, [u32; 2])> = plan
        .blocks
        .par_iter()
        .enumerate()
        .map(|(b, task)| {
            let frame = plan.first_block.partition_point(|&f| f <= b) - 1;
            let table = &tables[frame * TABLE_WORDS..(frame + 1) * TABLE_WORDS];
            decode_block_cpu(table, &words[plan.frame_words[frame] as usize..], task)
        })
        .collect();
    let mut bytes = vec![0u8; plan.out_bytes as usize];
    let mut status = Vec::with_capacity(results.len());
    let mut crcs = Vec::with_capacity(results.len());
    for (task, (out, s)) in plan.blocks.iter().zip(results) {
        let at = task[2] as usize;
        bytes[at..at + out.len()].copy_from_slice(&out);
        status.push(s);
        // As `block_crcs`: the block's bytes in the output (whole where it decoded).
        let n = (task[3] & !LAST_BLOCK) as usize;
        crcs.push(crc32fast::hash(&bytes[at..at + n]));
    }
    Ok(plan.output(bytes, &status, Some(&crcs)))
}

/// One block as vld.wgsl `decode_block` walks it, `words` from its frame's first payload
/// word: its symbols (those decoded before a fault) and its status.
fn decode_block_cpu(table: &[u32], words: &[u32], task: &[u32; 4]) -> (Vec<u8>, [u32; 2]) {
    let word = |i: u32| words.get(i as usize).copied().unwrap_or(0);
    let n = task[3] & !LAST_BLOCK;
    let mut next = (task[0] >> 5) + 2;
    let (mut hi, mut lo) = (word(next - 2), word(next - 1));
    let mut pos = task[0] & 31;
    let max_len = table[MAX_LEN_AT];
    let mut out = Vec::with_capacity(n as usize);
    let bit = |next: u32, pos: u32| (next - 2) * 32 + pos;
    while (out.len() as u32) < n {
        let window = (hi << pos) | ((lo >> 1) >> (31 - pos));
        let e = table[(window >> (32 - PRIMARY_BITS)) as usize];
        let (mut len, mut symbols) = (e & 15, vec![((e >> 8) & 0xff) as u8]);
        if len == 0 {
            for l in PRIMARY_BITS + 1..=max_len {
                let at = LONG_AT + 3 * (l - PRIMARY_BITS - 1) as usize;
                let d = (window >> (32 - l)).wrapping_sub(table[at]);
                if d < table[at + 1] {
                    len = l;
                    symbols = vec![table[SORTED_AT + (table[at + 2] + d) as usize] as u8];
                    break;
                }
            }
            if len == 0 {
                return (out, [STATUS_INVALID_CODE, bit(next, pos)]);
            }
        } else if n - out.len() as u32 >= 2 {
            len = (e >> STEP_AT) & 15;
            if e >> COUNT_AT == 2 {
                symbols.push((e >> 16) as u8);
            }
        }
        pos += len;
        if pos >= 32 {
            pos -= 32;
            hi = lo;
            lo = word(next);
            next += 1;
        }
        out.extend_from_slice(&symbols);
        if bit(next, pos) > task[1] {
            return (out.clone(), [STATUS_OVERRUN, out.len() as u32]);
        }
    }
    let end = bit(next, pos);
    let status = if end != task[1] {
        [STATUS_WRONG_END, end]
    } else {
        [0, 0]
    };
    (out, status)
}
