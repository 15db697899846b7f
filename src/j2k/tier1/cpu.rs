//! The CPU reference tier-1 encoder (ISO/IEC 15444-1 Annex D with the selective
//! arithmetic coding bypass style): the twin every GPU tier-1 must equal byte for byte.
//!
//! Its shape is the one a sample-parallel GPU version follows: a code-block is a grid
//! of stripes (4 rows), each stripe a row of stripe columns; every pass walks the stripe
//! columns in order and each column step does its own context modelling (`*_column`)
//! and hands the decisions to a [`Sink`]: the MQ coder, or for a raw (bypassed) SPP/MRP
//! the raw bit writer of [`crate::bitstuff`].

use super::model::{
    initial_contexts, is_raw, is_terminated, mr_context, pass_sequence, sc_context, zc_table,
    PassKind, ZcTable, CTX_RL, CTX_UNI, NUM_CONTEXTS,
};
use super::{BandOrientation, CodeBlockCoded, PassInfo, Tier1Options};
use crate::j2k::mq::{Context, MqEncoder};
use crate::{Error, Result};

/// Per-sample state bits of [`Grid`].
const SIG: u8 = 1;
/// Sign of a significant sample (1 = negative).
const NEG: u8 = 2;
/// Coded in this bit-plane's SPP (the standard's "visited"): skipped by MRP and CUP.
const VISITED: u8 = 4;
/// Refined at least once (selects MR context 16).
const REFINED: u8 = 8;

/// Largest code-block side and area the standard allows (xcb, ycb <= 10, xcb + ycb <= 12).
pub const MAX_SIDE: usize = 1024;
pub const MAX_AREA: usize = 4096;

/// Sample states with a one-sample border that is never significant, so the eight
/// neighbours of every sample can be read without bounds checks.
struct Grid {
    stride: usize,
    flags: Vec<u8>,
}

impl Grid {
    fn new(width: usize, height: usize) -> Self {
        let stride = width + 2;
        Grid {
            stride,
            flags: vec![0; stride * (height + 2)],
        }
    }

    #[inline]
    fn index(&self, x: usize, y: usize) -> usize {
        (y + 1) * self.stride + x + 1
    }

    #[inline]
    fn sig(&self, i: usize) -> u32 {
        (self.flags[i] & SIG) as u32
    }

    /// Significant horizontal, vertical and diagonal neighbours of sample `i`.
    #[inline]
    fn neighbour_counts(&self, i: usize) -> (u32, u32, u32) {
        let s = self.stride;
        let h = self.sig(i - 1) + self.sig(i + 1);
        let v = self.sig(i - s) + self.sig(i + s);
        let d =
            self.sig(i - s - 1) + self.sig(i - s + 1) + self.sig(i + s - 1) + self.sig(i + s + 1);
        (h, v, d)
    }

    #[inline]
    fn any_neighbour(&self, i: usize) -> bool {
        let (h, v, d) = self.neighbour_counts(i);
        h + v + d != 0
    }

    #[inline]
    fn zc(&self, i: usize, table: &ZcTable) -> u8 {
        let (h, v, d) = self.neighbour_counts(i);
        table[(h * 15 + v * 5 + d) as usize]
    }

    /// Contribution of one neighbour to the sign context: +1 significant positive,
    /// -1 significant negative, 0 insignificant.
    #[inline]
    fn chi(&self, i: usize) -> i32 {
        let f = self.flags[i];
        if f & SIG == 0 {
            0
        } else if f & NEG != 0 {
            -1
        } else {
            1
        }
    }

    #[inline]
    fn sc(&self, i: usize) -> (u8, u32) {
        let s = self.stride;
        let h = (self.chi(i - 1) + self.chi(i + 1)).clamp(-1, 1);
        let v = (self.chi(i - s) + self.chi(i + s)).clamp(-1, 1);
        sc_context(h, v)
    }
}

/// Where a pass's decisions go.
trait Sink {
    /// Raw sinks write the decision bit itself; the sign is written unpredicted.
    const RAW: bool;
    fn put(&mut self, cx: u8, bit: u32);
}

struct MqSink<'a> {
    enc: &'a mut MqEncoder,
    cx: &'a mut [Context; NUM_CONTEXTS],
}

impl Sink for MqSink<'_> {
    const RAW: bool = false;
    #[inline]
    fn put(&mut self, cx: u8, bit: u32) {
        self.enc.encode(&mut self.cx[cx as usize], bit);
    }
}

struct RawSink<'a>(&'a mut RawWriter);

impl Sink for RawSink<'_> {
    const RAW: bool = true;
    #[inline]
    fn put(&mut self, _cx: u8, bit: u32) {
        self.0.put_bit(bit);
    }
}

use crate::bitstuff::{RawWriter, Termination};

/// One code-block's encoder state across its passes.
struct Coder<'a> {
    mag: Vec<u32>,
    neg: Vec<bool>,
    width: usize,
    height: usize,
    grid: Grid,
    zc: &'a ZcTable,
}

impl Coder<'_> {
    /// The sign decision of sample `(x, y)` at grid index `i`, then it turns significant.
    #[inline]
    fn code_sign<S: Sink>(&mut self, sink: &mut S, x: usize, y: usize, i: usize) {
        let neg = self.neg[y * self.width + x];
        if S::RAW {
            sink.put(0, neg as u32);
        } else {
            let (cx, xor) = self.grid.sc(i);
            sink.put(cx, neg as u32 ^ xor);
        }
        self.grid.flags[i] |= SIG | if neg { NEG } else { 0 };
    }

    #[inline]
    fn bit(&self, x: usize, y: usize, bpno: u32) -> u32 {
        (self.mag[y * self.width + x] >> bpno) & 1
    }

    /// Significance propagation for one stripe column: insignificant samples with a
    /// significant neighbour code their bit (and sign once significant).
    fn spp_column<S: Sink>(&mut self, sink: &mut S, x: usize, y0: usize, bpno: u32) {
        for y in y0..(y0 + 4).min(self.height) {
            let i = self.grid.index(x, y);
            if self.grid.flags[i] & SIG == 0 && self.grid.any_neighbour(i) {
                let bit = self.bit(x, y, bpno);
                sink.put(self.grid.zc(i, self.zc), bit);
                if bit != 0 {
                    self.code_sign(sink, x, y, i);
                }
                self.grid.flags[i] |= VISITED;
            }
        }
    }

    /// Magnitude refinement for one stripe column: samples significant before this
    /// bit-plane.
    fn mrp_column<S: Sink>(&mut self, sink: &mut S, x: usize, y0: usize, bpno: u32) {
        for y in y0..(y0 + 4).min(self.height) {
            let i = self.grid.index(x, y);
            let f = self.grid.flags[i];
            if f & (SIG | VISITED) == SIG {
                let cx = mr_context(f & REFINED != 0, self.grid.any_neighbour(i));
                sink.put(cx, self.bit(x, y, bpno));
                self.grid.flags[i] |= REFINED;
            }
        }
    }

    /// Cleanup for one stripe column: every sample not yet coded in this bit-plane, with
    /// run-length coding when a full column is insignificant with an insignificant
    /// neighbourhood. Always MQ-coded. Clears the column's VISITED marks.
    fn cup_column<S: Sink>(&mut self, sink: &mut S, x: usize, y0: usize, bpno: u32) {
        let y1 = (y0 + 4).min(self.height);
        let mut start = y0;
        if y1 - y0 == 4
            && (y0..y1).all(|y| {
                let i = self.grid.index(x, y);
                self.grid.flags[i] & (SIG | VISITED) == 0 && !self.grid.any_neighbour(i)
            })
        {
            let first = (y0..y1).find(|&y| self.bit(x, y, bpno) != 0);
            sink.put(CTX_RL, first.is_some() as u32);
            let Some(y) = first else {
                return;
            };
            let r = (y - y0) as u32;
            sink.put(CTX_UNI, r >> 1);
            sink.put(CTX_UNI, r & 1);
            let i = self.grid.index(x, y);
            self.code_sign(sink, x, y, i);
            start = y + 1;
        }
        for y in start..y1 {
            let i = self.grid.index(x, y);
            if self.grid.flags[i] & (SIG | VISITED) == 0 {
                let bit = self.bit(x, y, bpno);
                sink.put(self.grid.zc(i, self.zc), bit);
                if bit != 0 {
                    self.code_sign(sink, x, y, i);
                }
            }
        }
        for y in y0..y1 {
            let i = self.grid.index(x, y);
            self.grid.flags[i] &= !VISITED;
        }
    }

    /// One whole pass: stripes top to bottom, stripe columns left to right.
    fn pass<S: Sink>(&mut self, sink: &mut S, kind: PassKind, bpno: u32) {
        for y0 in (0..self.height).step_by(4) {
            for x in 0..self.width {
                match kind {
                    PassKind::Significance => self.spp_column(sink, x, y0, bpno),
                    PassKind::Refinement => self.mrp_column(sink, x, y0, bpno),
                    PassKind::Cleanup => self.cup_column(sink, x, y0, bpno),
                }
            }
        }
    }
}

/// Checks the arguments shared by the encoder and the decoder.
pub(super) fn check_block(width: usize, height: usize, opts: &Tier1Options) -> Result<()> {
    if width == 0
        || height == 0
        || width > MAX_SIDE
        || height > MAX_SIDE
        || width * height > MAX_AREA
    {
        return Err(Error::InvalidArgument(format!(
            "tier-1: a code-block of {width}x{height} is outside the standard's limits \
             (sides 1..={MAX_SIDE}, area <= {MAX_AREA})"
        )));
    }
    if opts.bypass_from == Some(0) {
        return Err(Error::InvalidArgument(
            "tier-1: bypass_from counts bit-planes from 1 (Part 1 uses 5); 0 is not valid".into(),
        ));
    }
    Ok(())
}

pub(super) fn encode(
    coeffs: &[i32],
    width: usize,
    height: usize,
    band: BandOrientation,
    opts: &Tier1Options,
) -> Result<CodeBlockCoded> {
    check_block(width, height, opts)?;
    if coeffs.len() != width * height {
        return Err(Error::InvalidArgument(format!(
            "tier-1: {} coefficients for a {width}x{height} code-block",
            coeffs.len()
        )));
    }
    let mag: Vec<u32> = coeffs.iter().map(|c| c.unsigned_abs()).collect();
    let max = mag.iter().copied().max().unwrap_or(0);
    let num_bitplanes = 32 - max.leading_zeros();
    if num_bitplanes == 0 {
        return Ok(CodeBlockCoded::default());
    }
    let zc = zc_table_for(band);
    let mut coder = Coder {
        mag,
        neg: coeffs.iter().map(|&c| c < 0).collect(),
        width,
        height,
        grid: Grid::new(width, height),
        zc,
    };

    let mut cx = initial_contexts();
    let mut data: Vec<u8> = Vec::new();
    let mut passes: Vec<PassInfo> = Vec::with_capacity(3 * num_bitplanes as usize - 2);
    let mut mq = MqEncoder::new();
    let mut raw: Option<RawWriter> = None;

    for (plane, kind) in pass_sequence(num_bitplanes) {
        let bpno = num_bitplanes - 1 - plane;
        let terminated = is_terminated(plane, kind, num_bitplanes, opts.bypass_from);
        let end = if is_raw(plane, kind, opts.bypass_from) {
            let w = raw.get_or_insert_with(RawWriter::new);
            coder.pass(&mut RawSink(w), kind, bpno);
            if terminated {
                if let Some(w) = raw.take() {
                    data.extend_from_slice(&w.finish(Termination::Plain));
                }
                data.len()
            } else {
                // OpenJPEG's estimate for a truncation inside a raw segment: the bytes
                // so far plus one for a partly filled byte.
                data.len() + w.rate(Termination::Plain)
            }
        } else {
            coder.pass(
                &mut MqSink {
                    enc: &mut mq,
                    cx: &mut cx,
                },
                kind,
                bpno,
            );
            if terminated {
                data.extend_from_slice(&std::mem::take(&mut mq).flush());
                data.len()
            } else {
                // OpenJPEG's estimate inside an MQ segment: the bytes before the
                // register B plus 3 (bytes of the segment so far - 1 + 3).
                data.len() + mq.len() + 2
            }
        };
        passes.push(PassInfo {
            end: end as u32,
            terminated,
        });
    }

    // As OpenJPEG: estimates never exceed a later pass's end, and no pass ends on 0xFF.
    let mut limit = data.len() as u32;
    for p in passes.iter_mut().rev() {
        if p.end > limit {
            p.end = limit;
        } else {
            limit = p.end;
        }
    }
    for p in passes.iter_mut() {
        if p.end > 0 && data[p.end as usize - 1] == 0xFF {
            p.end -= 1;
        }
    }

    Ok(CodeBlockCoded {
        data,
        num_bitplanes,
        passes,
    })
}

pub(super) fn zc_table_for(band: BandOrientation) -> &'static ZcTable {
    static LL: ZcTable = zc_table(BandOrientation::LL);
    static HL: ZcTable = zc_table(BandOrientation::HL);
    static LH: ZcTable = zc_table(BandOrientation::LH);
    static HH: ZcTable = zc_table(BandOrientation::HH);
    match band {
        BandOrientation::LL => &LL,
        BandOrientation::HL => &HL,
        BandOrientation::LH => &LH,
        BandOrientation::HH => &HH,
    }
}
