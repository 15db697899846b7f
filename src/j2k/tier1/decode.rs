//! Tier-1 decoder (ISO/IEC 15444-1 D.3-D.6 read as decoding procedures): rebuilds a
//! code-block's coefficients from its passes. It proves the encoder by round trip and
//! is written apart from it (plain per-sample state, bounds-checked neighbours), so a
//! slip in one is unlikely to be mirrored in the other.

use super::cpu::{check_block, zc_table_for};
use super::model::{
    initial_contexts, is_raw, is_terminated, mr_context, pass_sequence, sc_context, PassKind,
    ZcTable, CTX_RL, CTX_UNI, NUM_CONTEXTS,
};
use super::{BandOrientation, CodeBlockCoded, Tier1Options};
use crate::j2k::mq::{Context, MqDecoder};
use crate::{Error, Result};

/// Reads raw (bypassed) bits: MSB first, 7 bits from a byte that follows 0xFF, and 1s
/// past the segment's end (as after OpenJPEG's artificial 0xFF 0xFF).
struct RawReader<'a> {
    data: &'a [u8],
    pos: usize,
    byte: u32,
    left: u32,
    after_ff: bool,
}

impl<'a> RawReader<'a> {
    fn new(data: &'a [u8]) -> Self {
        RawReader {
            data,
            pos: 0,
            byte: 0,
            left: 0,
            after_ff: false,
        }
    }

    fn bit(&mut self) -> u32 {
        if self.left == 0 {
            let b = self.data.get(self.pos).copied().unwrap_or(0xFF);
            self.pos += 1;
            self.byte = b as u32;
            self.left = if self.after_ff { 7 } else { 8 };
            self.after_ff = b == 0xFF;
        }
        self.left -= 1;
        (self.byte >> self.left) & 1
    }
}

enum Source<'a> {
    Mq(MqDecoder<'a>),
    Raw(RawReader<'a>),
}

struct State<'a> {
    width: usize,
    height: usize,
    sig: Vec<bool>,
    neg: Vec<bool>,
    visited: Vec<bool>,
    refined: Vec<bool>,
    mag: Vec<u32>,
    zc: &'static ZcTable,
    cx: [Context; NUM_CONTEXTS],
    src: Source<'a>,
}

impl State<'_> {
    fn sig_at(&self, x: isize, y: isize) -> u32 {
        if x < 0 || y < 0 || x >= self.width as isize || y >= self.height as isize {
            0
        } else {
            self.sig[y as usize * self.width + x as usize] as u32
        }
    }

    fn chi_at(&self, x: isize, y: isize) -> i32 {
        if self.sig_at(x, y) == 0 {
            0
        } else if self.neg[y as usize * self.width + x as usize] {
            -1
        } else {
            1
        }
    }

    fn counts(&self, x: usize, y: usize) -> (u32, u32, u32) {
        let (x, y) = (x as isize, y as isize);
        let h = self.sig_at(x - 1, y) + self.sig_at(x + 1, y);
        let v = self.sig_at(x, y - 1) + self.sig_at(x, y + 1);
        let d = self.sig_at(x - 1, y - 1)
            + self.sig_at(x + 1, y - 1)
            + self.sig_at(x - 1, y + 1)
            + self.sig_at(x + 1, y + 1);
        (h, v, d)
    }

    fn zc(&self, x: usize, y: usize) -> u8 {
        let (h, v, d) = self.counts(x, y);
        self.zc[(h * 15 + v * 5 + d) as usize]
    }

    fn any(&self, x: usize, y: usize) -> bool {
        let (h, v, d) = self.counts(x, y);
        h + v + d > 0
    }

    fn read(&mut self, cx: u8) -> u32 {
        match &mut self.src {
            Source::Mq(d) => d.decode(&mut self.cx[cx as usize]),
            Source::Raw(r) => r.bit(),
        }
    }

    /// Reads the sign of a sample that just turned significant at bit-plane `bpno`.
    fn sign(&mut self, x: usize, y: usize, bpno: u32) {
        let raw = matches!(self.src, Source::Raw(_));
        let negative = if raw {
            self.read(0)
        } else {
            let (xi, yi) = (x as isize, y as isize);
            let h = (self.chi_at(xi - 1, yi) + self.chi_at(xi + 1, yi)).clamp(-1, 1);
            let v = (self.chi_at(xi, yi - 1) + self.chi_at(xi, yi + 1)).clamp(-1, 1);
            let (cx, xor) = sc_context(h, v);
            self.read(cx) ^ xor
        };
        let k = y * self.width + x;
        self.neg[k] = negative != 0;
        self.sig[k] = true;
        self.mag[k] |= 1 << bpno;
    }

    /// Positions of a pass in scan order: stripes of 4 rows, columns, rows.
    fn scan(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::with_capacity(self.width * self.height);
        for y0 in (0..self.height).step_by(4) {
            for x in 0..self.width {
                for y in y0..(y0 + 4).min(self.height) {
                    v.push((x, y));
                }
            }
        }
        v
    }

    fn spp(&mut self, bpno: u32) {
        for (x, y) in self.scan() {
            let k = y * self.width + x;
            if !self.sig[k] && self.any(x, y) {
                let cx = self.zc(x, y);
                if self.read(cx) == 1 {
                    self.sign(x, y, bpno);
                }
                self.visited[k] = true;
            }
        }
    }

    fn mrp(&mut self, bpno: u32) {
        for (x, y) in self.scan() {
            let k = y * self.width + x;
            if self.sig[k] && !self.visited[k] {
                let cx = mr_context(self.refined[k], self.any(x, y));
                self.mag[k] |= self.read(cx) << bpno;
                self.refined[k] = true;
            }
        }
    }

    fn cup(&mut self, bpno: u32) {
        for y0 in (0..self.height).step_by(4) {
            for x in 0..self.width {
                let y1 = (y0 + 4).min(self.height);
                let mut y = y0;
                let run = y1 - y0 == 4
                    && (y0..y1).all(|yy| {
                        let k = yy * self.width + x;
                        !self.sig[k] && !self.visited[k] && !self.any(x, yy)
                    });
                if run {
                    if self.read(CTX_RL) == 0 {
                        y = y1;
                    } else {
                        let r = (self.read(CTX_UNI) << 1) | self.read(CTX_UNI);
                        let yy = y0 + r as usize;
                        self.sign(x, yy, bpno);
                        y = yy + 1;
                    }
                }
                while y < y1 {
                    let k = y * self.width + x;
                    if !self.sig[k] && !self.visited[k] {
                        let cx = self.zc(x, y);
                        if self.read(cx) == 1 {
                            self.sign(x, y, bpno);
                        }
                    }
                    y += 1;
                }
                for yy in y0..y1 {
                    self.visited[yy * self.width + x] = false;
                }
            }
        }
    }
}

/// Decodes a code-block coded by [`super::encode_code_block`] with the same size,
/// orientation and options. The pass list must follow the termination rule of `opts`;
/// each segment runs from the end of the previous terminated pass to the end of the
/// pass that terminates it.
pub fn decode_code_block(
    coded: &CodeBlockCoded,
    width: usize,
    height: usize,
    band: BandOrientation,
    opts: &Tier1Options,
) -> Result<Vec<i32>> {
    check_block(width, height, opts)?;
    let n = coded.num_bitplanes;
    if n > 32 {
        return Err(Error::corrupt(
            "tier-1",
            format!("{n} bit-planes (at most 32)"),
        ));
    }
    let expected = if n == 0 { 0 } else { 3 * n as usize - 2 };
    if coded.passes.len() != expected {
        return Err(Error::corrupt(
            "tier-1",
            format!(
                "{} passes for {n} bit-planes (expected {expected})",
                coded.passes.len()
            ),
        ));
    }
    let sequence: Vec<(u32, PassKind)> = pass_sequence(n).collect();
    for (i, (&(plane, kind), p)) in sequence.iter().zip(&coded.passes).enumerate() {
        if p.terminated != is_terminated(plane, kind, n, opts.bypass_from) {
            return Err(Error::corrupt(
                "tier-1",
                format!(
                    "pass {i}: terminated = {} breaks the termination rule",
                    p.terminated
                ),
            ));
        }
        if p.end as usize > coded.data.len() || (i > 0 && p.end < coded.passes[i - 1].end) {
            return Err(Error::corrupt(
                "tier-1",
                format!("pass {i}: end {} out of order", p.end),
            ));
        }
    }

    let area = width * height;
    let mut st = State {
        width,
        height,
        sig: vec![false; area],
        neg: vec![false; area],
        visited: vec![false; area],
        refined: vec![false; area],
        mag: vec![0; area],
        zc: zc_table_for(band),
        cx: initial_contexts(),
        src: Source::Raw(RawReader::new(&[])),
    };
    let mut seg_start = 0usize;
    let mut open = false;
    for (i, &(plane, kind)) in sequence.iter().enumerate() {
        let raw = is_raw(plane, kind, opts.bypass_from);
        if !open {
            // The segment ends with the next terminated pass.
            let end_pass = (i..sequence.len())
                .find(|&j| coded.passes[j].terminated)
                .ok_or_else(|| Error::corrupt("tier-1", "the last pass is not terminated"))?;
            let seg = &coded.data[seg_start..coded.passes[end_pass].end as usize];
            st.src = if raw {
                Source::Raw(RawReader::new(seg))
            } else {
                Source::Mq(MqDecoder::new(seg))
            };
            open = true;
        } else if raw != matches!(st.src, Source::Raw(_)) {
            return Err(Error::corrupt(
                "tier-1",
                format!("pass {i} changes coder inside a segment"),
            ));
        }
        let bpno = n - 1 - plane;
        match kind {
            PassKind::Significance => st.spp(bpno),
            PassKind::Refinement => st.mrp(bpno),
            PassKind::Cleanup => st.cup(bpno),
        }
        if coded.passes[i].terminated {
            seg_start = coded.passes[i].end as usize;
            open = false;
        }
    }
    Ok(st
        .mag
        .iter()
        .zip(&st.neg)
        .map(|(&m, &neg)| {
            let v = m as i64;
            (if neg { -v } else { v }) as i32
        })
        .collect())
}
