//! A CUVLE output written in place, its blocks' end words placed by the host.
//!
//! Neighbouring blocks share the word where one ends and the next begins, so the kernel
//! normally ORs each block's first and last word into an output cleared beforehand. An
//! output in host memory (read where the kernel wrote it, no copy on the GPU's queue)
//! would need that clear across the link, and atomics across it. Instead the kernel
//! (`STAGE_ENDS_TO_CALLER`, shaders/common/bitwriter.wgsl) stores only the words inside
//! each block and hands the two end words back with its look-back log; here every word
//! the kernel did not store (the ends, and the frames' gaps and tail, which the container
//! fills later) is zeroed, then the ends ORed in. The bytes equal the cleared output's.

use crate::{Error, Result};

/// One block as the kernel wrote it: its code's bit span `[start, end)` and its first and
/// last word in stream order (the last 0 when the code lies in one word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockEnds {
    pub start: u64,
    pub end: u64,
    pub words: [u32; 2],
}

/// Zero every word of `out` (little-endian u32 words) that no block's interior covers,
/// then OR each block's end words in. Blocks come in stream order, none longer than
/// `max_words` words: a longer one was not staged, so its interior is not whole. `out`
/// may stop short of its last word (a stream's bytes placed where the next begins): that
/// word's bytes beyond it are neither zeroed nor written, and no block may end past it.
pub(crate) fn place_block_ends(
    out: &mut [u8],
    blocks: &[BlockEnds],
    max_words: u64,
    stage: &'static str,
) -> Result<()> {
    let bad = |message: String| Error::Gpu { stage, message };
    let n_bits = out.len() as u64 * 8;
    let zero = |from: u64, to: u64, out: &mut [u8]| {
        let (from, to) = ((from * 4) as usize, ((to * 4) as usize).min(out.len()));
        if from < to {
            out[from..to].fill(0);
        }
    };
    // Words below `cursor` are zeroed or a block's interior.
    let (mut cursor, mut prev_end) = (0u64, 0u64);
    for (b, block) in blocks.iter().enumerate() {
        if block.start < prev_end || block.end < block.start || block.end > n_bits {
            return Err(bad(format!(
                "block {b} spans bits {}..{}, after a block ending at {prev_end}, in {} bytes",
                block.start,
                block.end,
                out.len()
            )));
        }
        prev_end = block.end;
        if block.end == block.start {
            continue;
        }
        let (head, tail) = (block.start / 32, (block.end - 1) / 32);
        if tail - head + 1 > max_words {
            return Err(bad(format!(
                "block {b} spans {} words, more than the stage's {max_words}",
                tail - head + 1
            )));
        }
        zero(cursor, head + 1, out);
        zero(tail, tail + 1, out);
        cursor = cursor.max(tail + 1);
    }
    zero(cursor, n_bits.div_ceil(32), out);
    let mut or_word = |word: u64, value: u32| {
        let at = word as usize * 4;
        for (byte, v) in out[at..].iter_mut().zip(value.to_le_bytes()) {
            *byte |= v;
        }
    };
    for block in blocks.iter().filter(|b| b.end > b.start) {
        let (head, tail) = (block.start / 32, (block.end - 1) / 32);
        or_word(head, block.words[0]);
        if tail != head {
            or_word(tail, block.words[1]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::SplitMix64;

    /// A stream of random blocks with gaps between some, written as the kernel writes it
    /// (interior words stored over garbage, ends handed back), against the same blocks
    /// ORed into zeroed words.
    #[test]
    fn placed_ends_equal_a_cleared_output() {
        let mut rng = SplitMix64(13);
        for case in 0..300 {
            let n_blocks = rng.below(12);
            let mut at = rng.below(40);
            let mut spans = Vec::new();
            for _ in 0..n_blocks {
                let gap = if rng.below(10) < 3 { rng.below(100) } else { 0 };
                let len = match rng.below(4) {
                    0 => rng.below(8),
                    1 => 20 + rng.below(20),
                    _ => 1 + rng.below(300),
                };
                spans.push((at + gap, at + gap + len));
                at += gap + len;
            }
            let n_words = (at + rng.below(70)).div_ceil(32) as usize;
            let bits: Vec<bool> = (0..n_words * 32).map(|_| rng.below(2) == 1).collect();
            let word_of = |w: usize, lo: u64, hi: u64| -> u32 {
                (0..32)
                    .filter(|&i| {
                        let bit = (w * 32 + i) as u64;
                        bit >= lo && bit < hi && bits[bit as usize]
                    })
                    .fold(0u32, |acc, i| acc | 1 << i)
            };
            let mut expected = vec![0u8; n_words * 4];
            let mut written = vec![0u8; n_words * 4];
            rng.fill(&mut written);
            let mut blocks = Vec::new();
            for &(s, e) in &spans {
                for w in (s / 32) as usize..e.div_ceil(32) as usize {
                    let v = word_of(w, s, e);
                    let old = u32::from_le_bytes(expected[w * 4..w * 4 + 4].try_into().unwrap());
                    expected[w * 4..w * 4 + 4].copy_from_slice(&(old | v).to_le_bytes());
                }
                let (head, tail) = ((s / 32) as usize, e.saturating_sub(1) as usize / 32);
                if e > s {
                    for w in head + 1..tail {
                        written[w * 4..w * 4 + 4].copy_from_slice(&word_of(w, s, e).to_le_bytes());
                    }
                }
                let ends = match e > s {
                    false => [0, 0],
                    true if tail == head => [word_of(head, s, e), 0],
                    true => [word_of(head, s, e), word_of(tail, s, e)],
                };
                blocks.push(BlockEnds {
                    start: s,
                    end: e,
                    words: ends,
                });
            }
            // Cut short anywhere after the last block's end (the stream's bytes placed
            // before the next stream's): the same bytes up to the cut, none after it.
            let last_end = spans.last().map_or(0, |s| s.1);
            let cut = last_end.div_ceil(8) as usize;
            let cut = cut + rng.below((n_words * 4 - cut) as u64 + 1) as usize;
            let mut short = written.clone();
            let beyond = short[cut..].to_vec();
            place_block_ends(&mut short[..cut], &blocks, 64, "test").unwrap();
            assert_eq!(
                short[..cut],
                expected[..cut],
                "case {case}, cut at {cut}: {spans:?}"
            );
            assert_eq!(
                short[cut..],
                beyond[..],
                "case {case}: bytes past the cut written"
            );
            place_block_ends(&mut written, &blocks, 64, "test").unwrap();
            assert_eq!(written, expected, "case {case}: {spans:?}");
        }
    }

    #[test]
    fn blocks_out_of_order_or_too_long_are_errors() {
        let mut out = vec![0u8; 64];
        let block = |start, end| BlockEnds {
            start,
            end,
            words: [0, 0],
        };
        for blocks in [
            vec![block(40, 80), block(70, 90)],
            vec![block(10, 5)],
            vec![block(0, 513)],
            vec![block(0, 200)],
        ] {
            assert!(
                place_block_ends(&mut out, &blocks, 4, "test").is_err(),
                "{blocks:?}"
            );
        }
        // A block may not end past a short output's last byte.
        assert!(place_block_ends(&mut [0u8; 6], &[block(0, 49)], 4, "test").is_err());
        assert!(place_block_ends(&mut [0u8; 6], &[block(0, 48)], 4, "test").is_ok());
    }
}
