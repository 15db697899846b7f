//! The CPU reference tier-1 encoder (ISO/IEC 15444-1 Annex D with the selective
//! arithmetic coding bypass style): the twin every GPU tier-1 must equal byte for byte.
//!
//! Its shape is the one a sample-parallel GPU version follows: a code-block is a grid
//! of stripes (4 rows), each stripe a row of stripe columns; every pass walks the stripe
//! columns in order and each column step does its own context modelling (`*_column`)
//! and hands the decisions to a `Sink`: the MQ coder, or for a raw (bypassed) SPP/MRP
//! the raw bit writer of [`crate::bitstuff`].

use super::model::{
    initial_contexts, is_raw, is_terminated, mr_context, pass_sequence, sc_context, zc_table,
    PassKind, ZcTable, CTX_RL, CTX_UNI, NUM_CONTEXTS,
};
use super::{BandOrientation, CodeBlockCoded, PassInfo, Tier1Options};
use crate::j2k::mq::{Context, MqEncoder};
use crate::{Error, Result};

/// Per-sample state word of [`Grid`]: the significance of the eight neighbours (so a
/// context is one table look-up, as in OpenJPEG and in sample-parallel GPU coders),
/// the signs of the four direct neighbours, and the sample's own state.
const N: u16 = 1;
const S: u16 = 1 << 1;
const W: u16 = 1 << 2;
const E: u16 = 1 << 3;
const NW: u16 = 1 << 4;
const NE: u16 = 1 << 5;
const SW: u16 = 1 << 6;
const SE: u16 = 1 << 7;
/// Significant neighbours of any direction.
const NEIGHBOURS: u16 = 0xFF;
/// Sign (1 = negative) of a significant N, S, W, E neighbour: the direct neighbour's
/// bit shifted by 8.
const NEG_SHIFT: u32 = 8;
/// The sample is significant.
const SIG: u16 = 1 << 12;
/// The sample's own sign (1 = negative), set up front for every sample.
const NEG_SELF: u16 = 1 << 13;
/// Coded in this bit-plane's SPP (the standard's "visited"): skipped by MRP and CUP.
const VISITED: u16 = 1 << 14;
/// Refined at least once (selects MR context 16).
const REFINED: u16 = 1 << 15;

/// Largest code-block side and area the standard allows (xcb, ycb <= 10, xcb + ycb <= 12).
pub const MAX_SIDE: usize = 1024;
pub const MAX_AREA: usize = 4096;

/// Zero coding context from the 8 neighbour bits, per orientation (Table D.1).
type ZcLut = [u8; 256];

const fn zc_lut(band: BandOrientation) -> ZcLut {
    let table: ZcTable = zc_table(band);
    let mut lut = [0u8; 256];
    let mut f = 0;
    while f < 256 {
        let h = bit(f, W) + bit(f, E);
        let v = bit(f, N) + bit(f, S);
        let d = bit(f, NW) + bit(f, NE) + bit(f, SW) + bit(f, SE);
        lut[f] = table[(h * 15 + v * 5 + d) as usize];
        f += 1;
    }
    lut
}

const fn bit(f: usize, m: u16) -> u32 {
    (f & m as usize != 0) as u32
}

/// Sign contribution of direct neighbour `m` in a sign-LUT index (significance in bits
/// 0-3, signs in bits 4-7): +1 significant positive, -1 significant negative, else 0.
const fn chi(f: usize, m: u16) -> i32 {
    if f & m as usize == 0 {
        0
    } else if f & (m as usize) << 4 != 0 {
        -1
    } else {
        1
    }
}

/// Sign coding context and XOR bit (Tables D.2, D.3) from the N/S/W/E significance
/// (bits 0-3) and signs (bits 4-7); the context in bits 0-6, the XOR bit in bit 7.
const SC_LUT: [u8; 256] = {
    let mut lut = [0u8; 256];
    let mut f = 0;
    while f < 256 {
        let h = chi(f, W) + chi(f, E);
        let v = chi(f, N) + chi(f, S);
        let h = if h > 1 {
            1
        } else if h < -1 {
            -1
        } else {
            h
        };
        let v = if v > 1 {
            1
        } else if v < -1 {
            -1
        } else {
            v
        };
        let (cx, xor) = sc_context(h, v);
        lut[f] = cx | (xor as u8) << 7;
        f += 1;
    }
    lut
};

/// Sample states with a one-sample border, so the neighbour words of every sample can
/// be updated without bounds checks (the border's words are never read).
struct Grid {
    stride: usize,
    flags: Vec<u16>,
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
    fn zc(&self, i: usize, lut: &ZcLut) -> u8 {
        lut[(self.flags[i] & NEIGHBOURS) as usize]
    }

    /// Sign context and XOR bit of sample `i`.
    #[inline]
    fn sc(&self, i: usize) -> (u8, u32) {
        let f = self.flags[i];
        let e = SC_LUT[((f & 0xF) | ((f >> NEG_SHIFT) & 0xF) << 4) as usize];
        (e & 0x7F, (e >> 7) as u32)
    }

    /// Sample `i` turns significant: mark it and tell its eight neighbours.
    #[inline]
    fn set_significant(&mut self, i: usize, neg: bool) {
        let s = self.stride;
        let n = neg as u16;
        let f = &mut self.flags;
        f[i] |= SIG;
        // i is the south neighbour of the sample above it, and so on.
        f[i - s] |= S | (n * S) << NEG_SHIFT;
        f[i + s] |= N | (n * N) << NEG_SHIFT;
        f[i - 1] |= E | (n * E) << NEG_SHIFT;
        f[i + 1] |= W | (n * W) << NEG_SHIFT;
        f[i - s - 1] |= SE;
        f[i - s + 1] |= SW;
        f[i + s - 1] |= NE;
        f[i + s + 1] |= NW;
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

/// One code-block's encoder state across its passes. `mag` uses the grid's padded
/// indexing; a stripe column is the samples `i0 + r * stride` for `r < rows`.
struct Coder<'a> {
    mag: Vec<u32>,
    width: usize,
    height: usize,
    grid: Grid,
    zc: &'a ZcLut,
}

impl Coder<'_> {
    /// The sign decision of the sample at grid index `i`, then it turns significant.
    #[inline]
    fn code_sign<T: Sink>(&mut self, sink: &mut T, i: usize) {
        let neg = self.grid.flags[i] & NEG_SELF != 0;
        if T::RAW {
            sink.put(0, neg as u32);
        } else {
            let (cx, xor) = self.grid.sc(i);
            sink.put(cx, neg as u32 ^ xor);
        }
        self.grid.set_significant(i, neg);
    }

    #[inline]
    fn bit(&self, i: usize, bpno: u32) -> u32 {
        (self.mag[i] >> bpno) & 1
    }

    /// Significance propagation for one stripe column: insignificant samples with a
    /// significant neighbour code their bit (and sign once significant).
    #[inline]
    fn spp_column<T: Sink>(&mut self, sink: &mut T, i0: usize, rows: usize, bpno: u32) {
        for r in 0..rows {
            let i = i0 + r * self.grid.stride;
            let f = self.grid.flags[i];
            if f & SIG == 0 && f & NEIGHBOURS != 0 {
                let bit = self.bit(i, bpno);
                sink.put(self.grid.zc(i, self.zc), bit);
                if bit != 0 {
                    self.code_sign(sink, i);
                }
                self.grid.flags[i] |= VISITED;
            }
        }
    }

    /// Magnitude refinement for one stripe column: samples significant before this
    /// bit-plane.
    #[inline]
    fn mrp_column<T: Sink>(&mut self, sink: &mut T, i0: usize, rows: usize, bpno: u32) {
        for r in 0..rows {
            let i = i0 + r * self.grid.stride;
            let f = self.grid.flags[i];
            if f & (SIG | VISITED) == SIG {
                let cx = mr_context(f & REFINED != 0, f & NEIGHBOURS != 0);
                sink.put(cx, self.bit(i, bpno));
                self.grid.flags[i] |= REFINED;
            }
        }
    }

    /// Cleanup for one stripe column: every sample not yet coded in this bit-plane, with
    /// run-length coding when a full column is insignificant with an insignificant
    /// neighbourhood. Always MQ-coded. Clears the column's VISITED marks.
    #[inline]
    fn cup_column<T: Sink>(&mut self, sink: &mut T, i0: usize, rows: usize, bpno: u32) {
        let stride = self.grid.stride;
        let mut start = 0;
        if rows == 4
            && (0..4).all(|r| self.grid.flags[i0 + r * stride] & (SIG | VISITED | NEIGHBOURS) == 0)
        {
            let first = (0..4).find(|&r| self.bit(i0 + r * stride, bpno) != 0);
            sink.put(CTX_RL, first.is_some() as u32);
            let Some(r) = first else {
                return;
            };
            sink.put(CTX_UNI, (r >> 1) as u32);
            sink.put(CTX_UNI, (r & 1) as u32);
            self.code_sign(sink, i0 + r * stride);
            start = r + 1;
        }
        for r in start..rows {
            let i = i0 + r * stride;
            if self.grid.flags[i] & (SIG | VISITED) == 0 {
                let bit = self.bit(i, bpno);
                sink.put(self.grid.zc(i, self.zc), bit);
                if bit != 0 {
                    self.code_sign(sink, i);
                }
            }
        }
        for r in 0..rows {
            self.grid.flags[i0 + r * stride] &= !VISITED;
        }
    }

    /// One whole pass: stripes top to bottom, stripe columns left to right.
    fn pass<T: Sink>(&mut self, sink: &mut T, kind: PassKind, bpno: u32) {
        for y0 in (0..self.height).step_by(4) {
            let rows = (self.height - y0).min(4);
            let row0 = self.grid.index(0, y0);
            for i0 in row0..row0 + self.width {
                match kind {
                    PassKind::Significance => self.spp_column(sink, i0, rows, bpno),
                    PassKind::Refinement => self.mrp_column(sink, i0, rows, bpno),
                    PassKind::Cleanup => self.cup_column(sink, i0, rows, bpno),
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
    let mut grid = Grid::new(width, height);
    let mut padded = vec![0u32; grid.flags.len()];
    for y in 0..height {
        let row = grid.index(0, y);
        for x in 0..width {
            padded[row + x] = mag[y * width + x];
            if coeffs[y * width + x] < 0 {
                grid.flags[row + x] |= NEG_SELF;
            }
        }
    }
    let mut coder = Coder {
        mag: padded,
        width,
        height,
        grid,
        zc: zc_lut_for(band),
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

    settle_pass_ends(&mut passes, &data);

    Ok(CodeBlockCoded {
        data,
        num_bitplanes,
        passes,
    })
}

/// The final pass ends, as OpenJPEG sets them (the GPU stages apply the same rule):
/// estimates never exceed a later pass's end, and no pass ends on 0xFF.
pub(crate) fn settle_pass_ends(passes: &mut [PassInfo], data: &[u8]) {
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
}

fn zc_lut_for(band: BandOrientation) -> &'static ZcLut {
    static LL: ZcLut = zc_lut(BandOrientation::LL);
    static HL: ZcLut = zc_lut(BandOrientation::HL);
    static LH: ZcLut = zc_lut(BandOrientation::LH);
    static HH: ZcLut = zc_lut(BandOrientation::HH);
    match band {
        BandOrientation::LL => &LL,
        BandOrientation::HL => &HL,
        BandOrientation::LH => &LH,
        BandOrientation::HH => &HH,
    }
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
