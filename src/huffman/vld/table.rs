//! The decode tables of a batch (layout in [`super`] and shaders/huffman/vld.wgsl),
//! built on the host, one per frame. A batch of small frames holds hundreds: 16 MiB of
//! system files is some 570 frames, most of 16 KiB, and 5 MB of tables. So a table is
//! built with no allocation, no zeroing and no lookup, and a batch's tables go straight
//! into the upload, many frames in parallel.

use rayon::prelude::*;

use super::{
    VldFrame, COUNT_AT, LONG_AT, MAX_LEN, MAX_LEN_AT, PRIMARY, PRIMARY_BITS, SORTED_AT, STEP_AT,
    TABLE_WORDS,
};
use crate::huffman::decode_table::Canonical;
use crate::{Error, Result};

/// Bytes of a decode table.
pub(super) const TABLE_BYTES: usize = TABLE_WORDS * 4;

/// Tables a task of [`write_tables`] builds: 32 take some 30 us, worth a task; a batch
/// of 1 MiB frames (16) is built on the caller's thread.
const TASK_TABLES: usize = 32;

/// Symbols in a quarter of the byte values.
const QUARTER: usize = 64;

/// Codes of each length (index 0: none) of a frame's code in each quarter of the
/// symbols, checked: no code longer than a native frame holds, not over-subscribed
/// (incomplete codes decode until a lookup finds no code). Four counts, so that four
/// increments are under way at once rather than one after the other.
pub(super) fn code_counts(lengths: &[u8; 256], other: &[u8; 16]) -> Result<[[u32; 16]; 4]> {
    const MAX: usize = MAX_LEN as usize;
    const _: () = assert!(MAX == 15);
    if let Some(s) = lengths.iter().position(|&l| l > MAX_LEN) {
        return Err(Error::InvalidCodeTable(format!(
            "symbol {s} has a {}-bit code; a native frame holds at most {MAX_LEN}",
            lengths[s]
        )));
    }
    let mut count = [[0u32; 16]; 4];
    for i in 0..QUARTER {
        for (q, c) in count.iter_mut().enumerate() {
            c[lengths[q * QUARTER + i] as usize & MAX] += 1;
        }
    }
    if other[0] != 0 {
        return Err(Error::InvalidCodeTable(format!(
            "{} codes of no length",
            other[0]
        )));
    }
    let kraft: u32 = (1..=MAX)
        .map(|l| (count.iter().map(|c| c[l]).sum::<u32>() + other[l] as u32) << (MAX - l))
        .sum();
    if kraft > 1 << MAX {
        // The shared builder's error names the fault.
        return Err(Canonical::new(lengths)
            .err()
            .unwrap_or_else(|| Error::InvalidCodeTable("over-subscribed code lengths".into())));
    }
    Ok(count)
}

/// Writes the tables of `frames` one after the other into `out` ([`TABLE_BYTES`] each),
/// [`TASK_TABLES`] frames a task; an error names the first frame whose code has none.
pub(super) fn write_tables(frames: &[VldFrame<'_>], out: wgpu::WriteOnly<'_, [u8]>) -> Result<()> {
    if out.len() != frames.len() * TABLE_BYTES {
        return Err(Error::InvalidArgument(format!(
            "vld: tables of {} frames into {} bytes",
            frames.len(),
            out.len()
        )));
    }
    // A writer per table: one of a sized array can go to another thread.
    let (whole, _) = out.into_chunks::<TABLE_BYTES>();
    let mut to = whole.into_iter();
    let tasks: Vec<Task<'_, '_, '_>> = frames
        .chunks(TASK_TABLES)
        .enumerate()
        .map(|(c, part)| {
            (
                c * TASK_TABLES,
                part,
                to.by_ref().take(part.len()).collect(),
            )
        })
        .collect();
    let done: Vec<Result<()>> = if tasks.len() > 1 {
        tasks.into_par_iter().map(build_task).collect()
    } else {
        tasks.into_iter().map(build_task).collect()
    };
    done.into_iter().collect()
}

/// A task of [`write_tables`]: its first frame's index in the batch, its frames, a
/// writer for each one's table.
type Task<'a, 'f, 'w> = (
    usize,
    &'a [VldFrame<'f>],
    Vec<wgpu::WriteOnly<'w, [u8; TABLE_BYTES]>>,
);

fn build_task((first, frames, to): Task<'_, '_, '_>) -> Result<()> {
    let mut builder = TableBuilder::new();
    for (i, (f, to)) in frames.iter().zip(to).enumerate() {
        let table = builder
            .build(f.lengths, &f.other_codes)
            .map_err(|e| Error::corrupt("native", format!("frame {}: {e}", first + i)))?;
        wgpu::WriteOnly::<[u8]>::from(to).copy_from_slice(bytemuck::cast_slice(table));
    }
    Ok(())
}

/// Builds decode tables one at a time in place, every word written. Canonical codes
/// cover the primary table from index 0 in canonical order, a code of `l` bits a run of
/// `2^(11 - l)` entries; and the second codes after a first code of `l0` bits are the
/// same for every such code: the table of `11 - l0` bits, built once per length (by
/// halving the largest).
struct TableBuilder {
    table: [u32; TABLE_WORDS],
    /// The tables of second codes, the one of `k` bits at `2^k..2^(k+1)`.
    second: [u32; PRIMARY],
}

impl TableBuilder {
    fn new() -> Box<TableBuilder> {
        Box::new(TableBuilder {
            table: [0; TABLE_WORDS],
            second: [0; PRIMARY],
        })
    }

    /// The table of `lengths`, with `other` codes (per length) after the bytes'.
    fn build(&mut self, lengths: &[u8; 256], other: &[u8; 16]) -> Result<&[u32; TABLE_WORDS]> {
        write_frame_table(lengths, other, &mut self.table, &mut self.second)?;
        Ok(&self.table)
    }
}

/// [`TableBuilder::build`] into `t`, `second` its work space (whatever it holds). The
/// `other` codes (symbols above the bytes) count where the codes after them start, and
/// their places in the tables stay empty: no lookup finds them.
fn write_frame_table(
    lengths: &[u8; 256],
    other: &[u8; 16],
    t: &mut [u32; TABLE_WORDS],
    second: &mut [u32; PRIMARY],
) -> Result<()> {
    const P: u32 = PRIMARY_BITS;
    const MAX: usize = MAX_LEN as usize;
    let quarters = code_counts(lengths, other)?;
    let mut count = [0u32; MAX + 1];
    for (l, c) in count.iter_mut().enumerate().skip(1) {
        *c = quarters.iter().map(|q| q[l]).sum();
    }
    let other: [u32; MAX + 1] = std::array::from_fn(|l| other[l] as u32);
    // Per length: first code, where its symbols start among the sorted ones.
    let (mut first, mut index) = ([0u32; MAX + 1], [0u32; MAX + 1]);
    let (mut code, mut idx) = (0u32, 0u32);
    for l in 1..=MAX {
        code = (code + count[l - 1] + other[l - 1]) << 1;
        first[l] = code;
        index[l] = idx;
        idx += count[l];
    }
    let (primary, rest) = t.split_at_mut(PRIMARY);
    let (long, rest) = rest.split_at_mut(MAX_LEN_AT - LONG_AT);
    let (max_len, sorted) = rest.split_at_mut(SORTED_AT - MAX_LEN_AT);
    // Symbols by (length, symbol), the rest zero. No branch on the length: symbols
    // without a code are sorted after the others (256 places for 256 symbols), then
    // cleared. Each quarter of the symbols from where the quarters before it end.
    let mut fill = [[0u32; 16]; 4];
    let mut start = index;
    start[0] = idx;
    for (f, q) in fill.iter_mut().zip(&quarters) {
        *f = start;
        for (s, c) in start.iter_mut().zip(q) {
            *s += c;
        }
    }
    for i in 0..QUARTER {
        for (q, f) in fill.iter_mut().enumerate() {
            let at = &mut f[lengths[q * QUARTER + i] as usize & MAX];
            if let Some(d) = sorted.get_mut(*at as usize) {
                *d = (q * QUARTER + i) as u32;
            }
            *at += 1;
        }
    }
    sorted.get_mut(idx as usize..).unwrap_or_default().fill(0);
    // Canonical decoding of the longer codes.
    for (l, d) in (P as usize + 1..=MAX).zip(long.chunks_exact_mut(3)) {
        d.copy_from_slice(&[first[l], count[l], index[l]]);
    }
    max_len.fill(0);
    max_len[0] = (1..=MAX).rev().find(|&l| count[l] > 0).unwrap_or(0) as u32;
    // Second codes: `second[2^k + j]` for the `k` bits `j` after a first code of
    // `11 - k` bits (k from min_len up to 11 - min_len): the code of at most `k` bits
    // there, as the fields a pair adds to the first code's entry (both lengths at 4, the
    // second symbol at 16), or 0. Codes of at most `top` bits cover the table of `top`
    // bits in canonical order; the shorter tables by halving.
    let min_len = (1..=P).find(|&l| count[l as usize] > 0).unwrap_or(P);
    let top = P - min_len;
    if top >= min_len {
        let table = &mut second[1 << top..2 << top];
        let pair = |s, l| {
            let both = min_len + l;
            (both << 4) | (s << 16) | (both << STEP_AT) | (2u32 << COUNT_AT)
        };
        let at = runs(table, sorted, &count, &other, &index, top, pair);
        table.get_mut(at..).unwrap_or_default().fill(0);
        for k in (min_len..top).rev() {
            // From k + 1 bits to k: the code after k bits and a zero, if it fits k bits
            // (both lengths at most 11 before the first grows by one).
            let (lower, upper) = second.split_at_mut(2 << k);
            let fits = |e: u32| {
                let both = (e >> 4) & 15;
                if both.wrapping_sub(1) < P - 1 {
                    e + (1 << 4) + (1 << STEP_AT)
                } else {
                    0
                }
            };
            let (lower, upper) = (&mut lower[1 << k..], &upper[..2 << k]);
            // Eight at a time where there are eight: no iterator to step per entry.
            let (d8, e16) = (lower.chunks_exact_mut(8), upper.chunks_exact(16));
            for (d, e) in d8.zip(e16) {
                for i in 0..8 {
                    d[i] = fits(e[2 * i]);
                }
            }
            if k < 3 {
                for (d, e) in lower.iter_mut().zip(upper.chunks_exact(2)) {
                    *d = fits(e[0]);
                }
            }
        }
    }
    // The primary table: each code of at most 11 bits, its run; a code of `l0` bits with
    // the second code that fits the `11 - l0` bits after it, where one does.
    let mut at = 0usize;
    for l0 in 1..=P {
        let k = P - l0;
        let n = 1usize << k;
        let start = index[l0 as usize] as usize;
        let symbols = sorted.get(start..start + count[l0 as usize] as usize);
        let pairs = second.get(n..2 * n).filter(|_| k >= min_len);
        for &s in symbols.unwrap_or(&[]) {
            let Some(run) = primary.get_mut(at..at + n) else {
                break;
            };
            at += n;
            let e1 = l0 | (s << 8);
            let single = e1 | (l0 << STEP_AT) | (1u32 << COUNT_AT);
            match pairs {
                Some(pairs) => {
                    for (d, &p) in run.iter_mut().zip(pairs) {
                        *d = if p != 0 { e1 | p } else { single };
                    }
                }
                None => run.fill(single),
            }
        }
        at = skip_runs(primary, at, other[l0 as usize] as usize * n);
    }
    primary.get_mut(at..).unwrap_or_default().fill(0);
    Ok(())
}

/// Fills `table` (of `bits` bits) with the runs of the codes of at most `bits` bits, in
/// canonical order from index 0 (`2^(bits - l)` entries for a code of `l` bits), each
/// entry `entry(symbol, length)`, the `other` codes' runs empty; returns where the runs
/// end.
fn runs(
    table: &mut [u32],
    sorted: &[u32],
    count: &[u32; MAX_LEN as usize + 1],
    other: &[u32; MAX_LEN as usize + 1],
    index: &[u32; MAX_LEN as usize + 1],
    bits: u32,
    entry: impl Fn(u32, u32) -> u32,
) -> usize {
    let mut at = 0usize;
    for l in 1..=bits {
        let n = 1usize << (bits - l);
        let start = index[l as usize] as usize;
        for &s in sorted
            .get(start..start + count[l as usize] as usize)
            .unwrap_or(&[])
        {
            let Some(run) = table.get_mut(at..at + n) else {
                return at;
            };
            run.fill(entry(s, l));
            at += n;
        }
        at = skip_runs(table, at, other[l as usize] as usize * n);
    }
    at
}

/// Empties `n` entries of `table` from `at` (as far as it goes); returns their end.
fn skip_runs(table: &mut [u32], at: usize, n: usize) -> usize {
    if n == 0 {
        return at;
    }
    let end = (at + n).min(table.len());
    table.get_mut(at..end).unwrap_or_default().fill(0);
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::huffman::Codebook;
    use crate::testdata::SplitMix64;

    /// The table builder before [`TableBuilder`], kept as its reference: a table of
    /// single codes, then a lookup per entry for its second code.
    fn frame_table_before(lengths: &[u8; 256]) -> Result<Vec<u32>> {
        frame_table_with_others(lengths, &[0; 16])
    }

    /// [`frame_table_before`] with `other` codes after the bytes: the canonical code of
    /// all the symbols, in which only the bytes' codes are looked up.
    fn frame_table_with_others(lengths: &[u8; 256], other: &[u8; 16]) -> Result<Vec<u32>> {
        if let Some(s) = lengths.iter().position(|&l| l > MAX_LEN) {
            return Err(Error::InvalidCodeTable(format!(
                "symbol {s} has a {}-bit code; a native frame holds at most {MAX_LEN}",
                lengths[s]
            )));
        }
        let mut all = lengths.to_vec();
        for (l, &n) in other.iter().enumerate() {
            all.extend(std::iter::repeat_n(l as u8, n as usize));
        }
        let code = Canonical::new(&all)?;
        let mut single = vec![0u32; PRIMARY];
        code.for_each_code(PRIMARY_BITS, |s, l, c| {
            if s > 255 {
                return;
            }
            let base = (c as usize) << (PRIMARY_BITS - l);
            if let Some(run) = single.get_mut(base..base + (1 << (PRIMARY_BITS - l))) {
                run.fill(l | (s << 8));
            }
        });
        let mut t = vec![0u32; TABLE_WORDS];
        for (i, &e) in single.iter().enumerate() {
            let l0 = e & 15;
            t[i] = e;
            if l0 != 0 && l0 < PRIMARY_BITS {
                // The bits after the first code, as a lookup of their own: valid where the
                // second code lies within the bits this index holds.
                let e2 = single[(i << l0) & (PRIMARY - 1)];
                let l1 = e2 & 15;
                if l1 != 0 && l0 + l1 <= PRIMARY_BITS {
                    t[i] |= ((l0 + l1) << 4) | (((e2 >> 8) & 0xff) << 16);
                }
            }
            // The step where two symbols fit the block: the pair's, else the first code's.
            if l0 != 0 {
                let both = (t[i] >> 4) & 15;
                t[i] |= match both {
                    0 => (l0 << STEP_AT) | (1 << COUNT_AT),
                    _ => (both << STEP_AT) | (2 << COUNT_AT),
                };
            }
        }
        // Canonical decoding of the longer codes: per length its first code, its count and
        // where its symbols start among the symbols sorted by (length, symbol).
        let bytes_of = |f: &dyn Fn(u8) -> bool| lengths.iter().filter(|&&l| f(l)).count() as u32;
        for l in PRIMARY_BITS as usize + 1..=MAX_LEN as usize {
            let at = LONG_AT + 3 * (l - PRIMARY_BITS as usize - 1);
            let (first, _, _) = code.at_len(l);
            let count = bytes_of(&|b| b as usize == l);
            let index = bytes_of(&|b| b > 0 && (b as usize) < l);
            t[at..at + 3].copy_from_slice(&[first as u32, count, index]);
        }
        t[MAX_LEN_AT] = lengths.iter().copied().max().unwrap_or(0) as u32;
        let sorted = code.sorted().iter().filter(|&&s| s < 256);
        for (d, &s) in t[SORTED_AT..].iter_mut().zip(sorted) {
            *d = s as u32;
        }
        Ok(t)
    }

    /// The builder's table, from a builder holding garbage (every word must be written).
    fn built(lengths: &[u8; 256]) -> Result<Vec<u32>> {
        built_with_others(lengths, &[0; 16])
    }

    fn built_with_others(lengths: &[u8; 256], other: &[u8; 16]) -> Result<Vec<u32>> {
        let mut b = TableBuilder::new();
        b.table.fill(0xdead_beef);
        b.second.fill(0xdead_beef);
        Ok(b.build(lengths, other)?.to_vec())
    }

    /// Code lengths of many shapes from a seed: codes from random frequencies (complete,
    /// some at 15 bits), with symbols dropped (incomplete), one symbol, every symbol at one
    /// length (15 bits: the longest; 8 bits), short codes only, and no code.
    fn lengths_of(seed: u64) -> [u8; 256] {
        let mut rng = SplitMix64(seed);
        let mut lengths = [0u8; 256];
        match seed % 8 {
            0..=2 => {
                let used = 1 + rng.below(256) as usize;
                let skew = 1 + rng.below(40) as u32;
                let freqs: Vec<u64> = (0..256)
                    .map(|s| {
                        if s < used {
                            1 + (rng.next_u64() >> (rng.below(skew as u64) + 24))
                        } else {
                            0
                        }
                    })
                    .collect();
                let book = Codebook::from_frequencies(&freqs, MAX_LEN).unwrap();
                lengths.copy_from_slice(book.lengths());
                if seed % 8 == 2 {
                    for l in lengths.iter_mut() {
                        if rng.below(4) == 0 {
                            *l = 0;
                        }
                    }
                }
            }
            3 => lengths[rng.below(256) as usize] = 1 + rng.below(MAX_LEN as u64) as u8,
            4 => lengths.fill(MAX_LEN),
            5 => lengths.fill(8),
            6 => {
                // Random lengths, kept only while the code stays valid.
                let mut kraft = 0u64;
                for d in lengths.iter_mut() {
                    let l = 1 + rng.below(MAX_LEN as u64) as u8;
                    let w = 1u64 << (MAX_LEN - l);
                    if rng.below(3) != 0 && kraft + w <= 1 << MAX_LEN {
                        kraft += w;
                        *d = l;
                    }
                }
            }
            _ => {
                if seed % 16 == 7 {
                    lengths[..2].fill(1);
                }
            }
        }
        lengths
    }

    #[test]
    fn tables_equal_the_builder_before() {
        for seed in 0..4000 {
            let lengths = lengths_of(seed);
            assert_eq!(
                built(&lengths).unwrap(),
                frame_table_before(&lengths).unwrap(),
                "seed {seed}: {lengths:?}"
            );
        }
    }

    /// Codes above the bytes (a gzip frame's end-of-block and length codes) wherever
    /// the bytes' code leaves room, shorter and longer than the bytes' and the primary
    /// table's bits: the bytes' entries are where the whole code puts them, and the
    /// others' places stay empty.
    #[test]
    fn tables_with_other_codes_equal_the_builder_before() {
        let mut rng = SplitMix64(77);
        let mut tried = 0;
        for seed in 0..4000 {
            let mut lengths = lengths_of(seed);
            if seed % 3 == 0 {
                // Room for others: some bytes' codes dropped.
                for l in lengths.iter_mut() {
                    if rng.below(3) == 0 {
                        *l = 0;
                    }
                }
            }
            let mut kraft: u64 = lengths
                .iter()
                .filter(|&&l| l > 0)
                .map(|&l| 1u64 << (MAX_LEN - l))
                .sum();
            let mut other = [0u8; 16];
            for _ in 0..1 + rng.below(30) {
                let l = 1 + rng.below(MAX_LEN as u64) as usize;
                if kraft + (1 << (MAX_LEN as usize - l)) <= 1 << MAX_LEN {
                    kraft += 1 << (MAX_LEN as usize - l);
                    other[l] += 1;
                }
            }
            tried += (other != [0; 16]) as u32;
            assert_eq!(
                built_with_others(&lengths, &other).unwrap(),
                frame_table_with_others(&lengths, &other).unwrap(),
                "seed {seed}: {lengths:?}, others {other:?}"
            );
        }
        assert!(tried > 1000, "{tried} code sets with other codes");
        // Over-subscribed by the others alone.
        let mut full = [0u8; 256];
        full[..2].fill(1);
        let mut other = [0u8; 16];
        other[9] = 1;
        assert!(built_with_others(&full, &other).is_err());
    }

    #[test]
    fn bad_lengths_get_the_errors_before() {
        let mut over = [0u8; 256];
        over[..3].fill(1);
        let mut long = [3u8; 256];
        long[7] = 16;
        for lengths in [over, long] {
            assert_eq!(
                built(&lengths).unwrap_err().to_string(),
                frame_table_before(&lengths).unwrap_err().to_string()
            );
        }
    }

    fn frame(lengths: &[u8; 256]) -> VldFrame<'_> {
        VldFrame {
            lengths,
            other_codes: [0; 16],
            order: crate::bits::BitOrder::MsbFirst,
            len: 1,
            block_symbols: 1,
            payload_bits: 0,
            offsets: &[0],
            payload: &[],
        }
    }

    /// A batch of several tasks' frames: each frame's table in its place, and a bad code
    /// named by its frame (the first of two).
    #[test]
    fn batch_tables_are_each_frames_in_order() {
        let lengths: Vec<[u8; 256]> = (0..3 * TASK_TABLES as u64 + 5).map(lengths_of).collect();
        let frames: Vec<VldFrame<'_>> = lengths.iter().map(frame).collect();
        let plan = super::super::VldPlan::new(&frames, 64).unwrap();
        let want: Vec<u32> = lengths
            .iter()
            .flat_map(|l| frame_table_before(l).unwrap())
            .collect();
        assert_eq!(plan.tables(&frames).unwrap(), want);
        let mut bad = lengths.clone();
        bad[2 * TASK_TABLES + 1][..3].fill(1);
        bad[TASK_TABLES + 3][9] = 16;
        let frames: Vec<VldFrame<'_>> = bad.iter().map(frame).collect();
        let mut out = vec![0u8; frames.len() * TABLE_BYTES];
        let e = write_tables(&frames, (&mut out[..]).into()).unwrap_err();
        let (e, at) = (e.to_string(), TASK_TABLES + 3);
        assert!(e.contains(&format!("frame {at}: ")), "{e}");
        assert!(e.contains("symbol 9 has a 16-bit code"), "{e}");
    }

    /// Host time of the plan and tables per batch of about 16 MiB (the streaming
    /// decoder's GPU batch) of the native file at `PARVLC_VLD_PLAN_FILE`, against the
    /// builder before; the tables checked against it. `cargo test --release --lib
    /// plan_time_per_batch -- --ignored --nocapture`.
    #[cfg(feature = "bench")]
    #[test]
    #[ignore]
    fn plan_time_per_batch() {
        let Ok(path) = std::env::var("PARVLC_VLD_PLAN_FILE") else {
            return;
        };
        let file = std::fs::read(path).unwrap();
        let frames = crate::huffman::framed_decode::read_all_frames(&file).unwrap();
        let views: Vec<VldFrame<'_>> = frames.iter().map(|f| f.view()).collect();
        let mut batches = Vec::new();
        let (mut start, mut len) = (0, 0u64);
        for (i, v) in views.iter().enumerate() {
            len += v.len;
            if len >= 16 << 20 || i + 1 == views.len() {
                batches.push(&views[start..=i]);
                (start, len) = (i + 1, 0);
            }
        }
        let most = batches.iter().map(|b| b.len()).max().unwrap_or(0) * TABLE_BYTES;
        // As the upload writes them: into a buffer already there.
        let out = std::sync::Mutex::new(vec![0u8; most]);
        // The best of 20 rounds: the machine may be shared.
        let time = |what: &str, f: &dyn Fn(&[VldFrame<'_>], &mut [u8])| {
            let mut best = f64::MAX;
            for _ in 0..20 {
                let mut out = out.lock().unwrap();
                let t = std::time::Instant::now();
                for b in &batches {
                    f(b, &mut out[..b.len() * TABLE_BYTES]);
                }
                best = best.min(t.elapsed().as_secs_f64());
            }
            let ms = best * 1e3 / batches.len() as f64;
            println!("{what}: {ms:.3} ms per batch");
        };
        println!("{} frames, {} batches", views.len(), batches.len());
        time("builder before, tables copied out", &|b, out| {
            for (f, to) in b.iter().zip(out.chunks_exact_mut(TABLE_BYTES)) {
                let t = frame_table_before(f.lengths).unwrap();
                to.copy_from_slice(bytemuck::cast_slice(&t));
            }
        });
        time("VldPlan::new", &|b, _| {
            std::hint::black_box(super::super::VldPlan::new(b, 64).unwrap());
        });
        time("VldPlan::new and write_tables", &|b, out| {
            let plan = super::super::VldPlan::new(b, 64).unwrap();
            plan.write_tables(b, out.into()).unwrap();
        });
        time("VldPlan::new and the tables on one thread", &|b, out| {
            super::super::VldPlan::new(b, 64).unwrap();
            let to = out.chunks_exact_mut(TABLE_BYTES);
            let to = to.map(|t| <&mut [u8; TABLE_BYTES]>::try_from(t).unwrap().into());
            build_task((0, b, to.collect())).unwrap();
        });
        for b in &batches {
            let mut out = out.lock().unwrap();
            write_tables(b, (&mut out[..b.len() * TABLE_BYTES]).into()).unwrap();
            for (f, t) in b.iter().zip(out.chunks_exact(TABLE_BYTES)) {
                let before = frame_table_before(f.lengths).unwrap();
                assert_eq!(t, bytemuck::cast_slice::<u32, u8>(&before));
            }
        }
    }
}
