//! The CPU twin of the kernel and the code-table helpers: apart, as they need no GPU.

use super::CuvleConfig;
use crate::huffman::histogram::{histogram_cpu, total_histogram};
use crate::huffman::{BitBuf, BitOrder, CodeTable};
use crate::{Error, Result};

/// Words of a code table as the GPU reads it ([`gpu_table_words`]): the byte values'
/// codes, then their lengths.
/// keep in sync with `TABLE_WORDS` in shaders/huffman/cuvle.wgsl, frame_tables.wgsl,
/// shaders/cuda/vle_cuvle.cu and frame_tables.cu
pub(crate) const TABLE_WORDS: usize = 512;

/// The GPU's view of a code table: codes bit-reversed (first bit in bit 0), then lengths.
pub(crate) fn gpu_table_words(table: &CodeTable) -> [u32; TABLE_WORDS] {
    let mut words = [0u32; TABLE_WORDS];
    for s in 0..256 {
        let len = table.lengths[s] as u32;
        words[s] = reversed_code(table.codes[s], len);
        words[256 + s] = len;
    }
    words
}

fn reversed_code(code: u32, len: u32) -> u32 {
    // `reverse_bits() >> (32 - len)`, 0 for no code, written without the branch: once
    // per symbol of every frame's table.
    (((code.reverse_bits() as u64) << len.min(32)) >> 32) as u32
}

/// Check a code table against a table of byte counts: every byte present needs a code.
pub fn check_table(table: &CodeTable, histogram: &[u64; 256]) -> Result<()> {
    // One pass without early exits, which vectorizes (every frame's table is checked);
    // the symbol at fault is looked for only when there is one.
    let bad = (table.lengths.iter().zip(&table.codes).zip(histogram)).fold(
        false,
        |bad, ((&l, &c), &n)| {
            let fits = (l == 0) | (l >= 32) | (c >> (l & 31) == 0);
            bad | ((n > 0) & (l == 0)) | (l > 32) | !fits
        },
    );
    if !bad {
        return Ok(());
    }
    if let Some(s) = (0..256).find(|&s| histogram[s] > 0 && table.lengths[s] == 0) {
        return Err(Error::InvalidCodeTable(format!(
            "byte 0x{s:02x} occurs in the input but has no code"
        )));
    }
    if let Some(s) = (0..256).find(|&s| table.lengths[s] > 32) {
        return Err(Error::InvalidCodeTable(format!(
            "code of byte 0x{s:02x} is {} bits; at most 32",
            table.lengths[s]
        )));
    }
    if let Some(s) = (0..256).find(|&s| {
        table.lengths[s] > 0 && table.lengths[s] < 32 && table.codes[s] >> table.lengths[s] != 0
    }) {
        return Err(Error::InvalidCodeTable(format!(
            "code of byte 0x{s:02x} has bits above its length"
        )));
    }
    Ok(())
}

/// The CPU twin of huffman/cuvle: the same blocks, thread-inputs, scan and word writes
/// (first and last word OR-ed, the ones between stored), run one invocation at a time.
/// It mirrors the direct path; the staged path packs the same words in workgroup memory
/// first, so its output is the same.
pub fn encode_cuvle_cpu(
    input: &[u8],
    table: &CodeTable,
    order: BitOrder,
    start_bit: u32,
    config: &CuvleConfig,
) -> Result<BitBuf> {
    config.validate()?;
    let hist = histogram_cpu(input, input.len().max(1));
    check_table(table, &total_histogram(&hist))?;
    let total_bits = start_bit as u64 + table.encoded_bits(&total_histogram(&hist));
    let mut out = vec![0u32; total_bits.div_ceil(32) as usize + 1];
    code_blocks(
        &mut out,
        input,
        &gpu_table_words(table),
        order,
        start_bit as u64,
        config,
        &mut Vec::new(),
    );
    Ok(BitBuf::from_words(&out, total_bits))
}

/// Code `input` block after block into the zeroed words `out` from bit `first_bit` on, as
/// the kernel does with `words_table` (the GPU's view of a table); pushes every block's
/// first bit to `block_offsets` and returns the bit after the last code.
pub(crate) fn code_blocks(
    out: &mut [u32],
    input: &[u8],
    words_table: &[u32; TABLE_WORDS],
    order: BitOrder,
    first_bit: u64,
    config: &CuvleConfig,
    block_offsets: &mut Vec<u64>,
) -> u64 {
    let thread_bytes = config.net as usize * 4;
    let block_bytes = config.block_bytes() as usize;
    let bits_of = |chunk: &[u8]| {
        chunk
            .iter()
            .map(|&b| words_table[256 + b as usize])
            .sum::<u32>()
    };
    let stream_word = |x: u32| crate::bits::stream_word(x, order);
    let mut block_base = first_bit;
    for block in input.chunks(block_bytes) {
        block_offsets.push(block_base);
        let mut offset = block_base;
        for thread in block.chunks(thread_bytes) {
            // bitwriter_at / put / flush / finish, as in shaders/common/bitwriter.wgsl: the
            // first full word is held back and OR-ed at the end, like the partial last one.
            let first_word = (offset >> 5) as usize;
            let mut word = first_word;
            let mut fill = (offset & 31) as u32;
            let mut pending = 0u32;
            let mut head = None;
            for &b in thread {
                let code = words_table[b as usize];
                let len = words_table[256 + b as usize];
                pending |= code.checked_shl(fill).unwrap_or(0);
                let total = fill + len;
                if total >= 32 {
                    match head {
                        None => head = Some(pending),
                        Some(_) => out[word] = stream_word(pending),
                    }
                    word += 1;
                    pending = if fill != 0 { code >> (32 - fill) } else { 0 };
                    fill = total - 32;
                } else {
                    fill = total;
                }
            }
            if let Some(h) = head {
                out[first_word] |= stream_word(h);
            }
            if fill != 0 {
                out[word] |= stream_word(pending);
            }
            offset += bits_of(thread) as u64;
        }
        block_base = offset;
    }
    block_base
}
