//! Tier-1 (EBCOT) CPU reference: round trips through the independent tier-1 decoder over
//! seeded random, flat, sparse and full-range code-blocks of all sizes and orientations,
//! with and without the bypass style, and the pass/segment bookkeeping tier-2 relies on.

use parvlc::j2k::tier1::model::{is_terminated, pass_sequence};
use parvlc::j2k::tier1::{
    decode_code_block, encode_code_block, BandOrientation, CodeBlockCoded, Tier1Options,
};
use parvlc::testdata::SplitMix64;

const BANDS: [BandOrientation; 4] = [
    BandOrientation::LL,
    BandOrientation::HL,
    BandOrientation::LH,
    BandOrientation::HH,
];

fn options() -> Vec<Tier1Options> {
    let mut v = vec![Tier1Options { bypass_from: None }];
    for k in 1..=6 {
        v.push(Tier1Options {
            bypass_from: Some(k),
        });
    }
    v
}

/// Kinds of code-block content.
#[derive(Clone, Copy, Debug)]
enum Content {
    /// Uniform over +-2^bits.
    Uniform(u32),
    /// Mostly zero with a few large values.
    Sparse,
    /// Every coefficient the same value.
    Flat,
    /// Small two-sided geometric values, like real high-pass bands.
    Laplacian,
    /// Values at the extremes of i32.
    Extreme,
    /// Runs of zero columns broken by isolated values (exercises run-length coding).
    Runs,
}

fn block(rng: &mut SplitMix64, w: usize, h: usize, content: Content) -> Vec<i32> {
    let n = w * h;
    let signed = |rng: &mut SplitMix64, m: i64| -> i32 {
        if rng.below(2) == 0 {
            m as i32
        } else {
            (-m) as i32
        }
    };
    match content {
        Content::Uniform(bits) => (0..n)
            .map(|_| {
                let m = rng.below(1u64 << bits) as i64;
                signed(rng, m)
            })
            .collect(),
        Content::Sparse => (0..n)
            .map(|_| {
                if rng.below(40) == 0 {
                    let m = rng.below(1 << 14) as i64;
                    signed(rng, m)
                } else {
                    0
                }
            })
            .collect(),
        Content::Flat => {
            let m = rng.below(1 << 12) as i64;
            let v = signed(rng, m);
            vec![v; n]
        }
        Content::Laplacian => (0..n)
            .map(|_| {
                let mut m = 0i64;
                while rng.below(3) != 0 && m < 1 << 20 {
                    m = m * 2 + 1 + rng.below(2) as i64;
                }
                signed(rng, m)
            })
            .collect(),
        Content::Extreme => (0..n)
            .map(|_| match rng.below(5) {
                0 => i32::MIN,
                1 => i32::MAX,
                2 => -i32::MAX,
                3 => 0,
                _ => rng.next_u64() as i32,
            })
            .collect(),
        Content::Runs => (0..n)
            .map(|i| {
                if (i / w) % 9 == 4 && rng.below(6) == 0 {
                    let m = rng.below(300) as i64 + 1;
                    signed(rng, m)
                } else {
                    0
                }
            })
            .collect(),
    }
}

/// Everything tier-2 and the decoders rely on, checked on one coded block.
fn check_bookkeeping(coded: &CodeBlockCoded, coeffs: &[i32], opts: &Tier1Options) {
    let max = coeffs.iter().map(|c| c.unsigned_abs()).max().unwrap_or(0);
    let n = 32 - max.leading_zeros();
    assert_eq!(coded.num_bitplanes, n, "num_bitplanes");
    if n == 0 {
        assert!(coded.passes.is_empty() && coded.data.is_empty());
        return;
    }
    assert_eq!(coded.passes.len(), 3 * n as usize - 2, "pass count");
    let mut prev = 0;
    let mut seg_start = 0;
    for (i, ((plane, kind), p)) in pass_sequence(n).zip(&coded.passes).enumerate() {
        assert_eq!(
            p.terminated,
            is_terminated(plane, kind, n, opts.bypass_from),
            "pass {i}"
        );
        assert!(p.end >= prev, "pass {i} ends before pass {}", i.max(1) - 1);
        assert!(p.end as usize <= coded.data.len());
        if p.end > 0 {
            assert_ne!(
                coded.data[p.end as usize - 1],
                0xFF,
                "pass {i} ends after 0xFF"
            );
        }
        prev = p.end;
        if p.terminated {
            let seg = &coded.data[seg_start..p.end as usize];
            for w in seg.windows(2) {
                assert!(!(w[0] == 0xFF && w[1] > 0x8F), "marker code inside segment");
            }
            seg_start = p.end as usize;
        }
    }
    let last = coded.passes.last().unwrap();
    assert!(last.terminated);
    assert_eq!(
        last.end as usize,
        coded.data.len(),
        "last pass ends the data"
    );
}

fn round_trip(coeffs: &[i32], w: usize, h: usize, band: BandOrientation, opts: &Tier1Options) {
    let coded = encode_code_block(coeffs, w, h, band, opts).unwrap();
    check_bookkeeping(&coded, coeffs, opts);
    let back = decode_code_block(&coded, w, h, band, opts).unwrap();
    if back != coeffs {
        let k = back.iter().zip(coeffs).position(|(a, b)| a != b).unwrap();
        panic!(
            "{w}x{h} {band:?} {opts:?}: coefficient {k} (x {}, y {}) decoded {} expected {}",
            k % w,
            k / w,
            back[k],
            coeffs[k]
        );
    }
}

#[test]
fn round_trip_standard_sizes() {
    let mut rng = SplitMix64(0x7131);
    let contents = [
        Content::Uniform(3),
        Content::Uniform(9),
        Content::Uniform(17),
        Content::Sparse,
        Content::Flat,
        Content::Laplacian,
        Content::Runs,
        Content::Extreme,
    ];
    for &(w, h) in &[(64, 64), (32, 32), (16, 16), (64, 32), (4, 4)] {
        for band in BANDS {
            for opts in options() {
                for &content in &contents {
                    let coeffs = block(&mut rng, w, h, content);
                    round_trip(&coeffs, w, h, band, &opts);
                }
            }
        }
    }
}

#[test]
fn round_trip_edge_sizes() {
    // Edge code-blocks of any size >= 1, including partial stripes (heights not a
    // multiple of 4, where the cleanup pass has no run-length mode).
    let mut rng = SplitMix64(0xED6E);
    for trial in 0..3000 {
        let w = 1 + rng.below(64) as usize;
        let h = 1 + rng.below(64) as usize;
        let band = BANDS[trial % 4];
        let opts = options()[rng.below(7) as usize];
        let content = match rng.below(6) {
            0 => Content::Uniform(1 + rng.below(20) as u32),
            1 => Content::Sparse,
            2 => Content::Flat,
            3 => Content::Laplacian,
            4 => Content::Runs,
            _ => Content::Extreme,
        };
        let coeffs = block(&mut rng, w, h, content);
        round_trip(&coeffs, w, h, band, &opts);
    }
}

#[test]
fn unusual_shapes_within_the_standard() {
    let mut rng = SplitMix64(9);
    for &(w, h) in &[
        (1024, 4),
        (4, 1024),
        (1, 1024),
        (1024, 1),
        (128, 32),
        (1, 1),
        (2, 3),
    ] {
        for opts in [Tier1Options::default(), Tier1Options::PART1_BYPASS] {
            let coeffs = block(&mut rng, w, h, Content::Laplacian);
            round_trip(&coeffs, w, h, BandOrientation::HH, &opts);
        }
    }
}

#[test]
fn zero_block_has_no_passes() {
    let coded = encode_code_block(
        &[0; 64],
        8,
        8,
        BandOrientation::LL,
        &Tier1Options::PART1_BYPASS,
    )
    .unwrap();
    assert_eq!(coded, CodeBlockCoded::default());
    assert_eq!(
        decode_code_block(
            &coded,
            8,
            8,
            BandOrientation::LL,
            &Tier1Options::PART1_BYPASS
        )
        .unwrap(),
        vec![0; 64]
    );
}

#[test]
fn bypass_produces_raw_segments() {
    // With bypass from plane 5, a 12-plane block has one MQ segment for passes 0..=9,
    // then per plane a raw SPP+MRP segment and an MQ cleanup segment.
    let mut rng = SplitMix64(3);
    let coeffs: Vec<i32> = (0..4096)
        .map(|i| {
            if i == 0 {
                4095
            } else {
                rng.below(4096) as i32 - 2048
            }
        })
        .collect();
    let coded = encode_code_block(
        &coeffs,
        64,
        64,
        BandOrientation::HL,
        &Tier1Options::PART1_BYPASS,
    )
    .unwrap();
    assert_eq!(coded.num_bitplanes, 12);
    let terminated: Vec<usize> = coded
        .passes
        .iter()
        .enumerate()
        .filter(|(_, p)| p.terminated)
        .map(|(i, _)| i)
        .collect();
    let mut want = vec![9];
    for plane in 4..12 {
        let spp = 1 + 3 * (plane - 1);
        want.extend([spp + 1, spp + 2]);
    }
    assert_eq!(terminated, want);
    // Uniform data: a raw segment holds about one bit per coded symbol, so it is not
    // empty for these planes.
    let ends: Vec<u32> = terminated.iter().map(|&i| coded.passes[i].end).collect();
    for w in ends.windows(2) {
        assert!(w[1] > w[0], "empty segment in {ends:?}");
    }
    // And no bypass: a single segment.
    let plain = encode_code_block(
        &coeffs,
        64,
        64,
        BandOrientation::HL,
        &Tier1Options::default(),
    )
    .unwrap();
    assert_eq!(plain.passes.iter().filter(|p| p.terminated).count(), 1);
}

#[test]
fn rejects_bad_arguments() {
    let o = Tier1Options::default();
    assert!(encode_code_block(&[1; 10], 3, 3, BandOrientation::LL, &o).is_err());
    assert!(encode_code_block(&[], 0, 0, BandOrientation::LL, &o).is_err());
    assert!(encode_code_block(&vec![1; 2048 * 2], 2048, 2, BandOrientation::LL, &o).is_err());
    assert!(encode_code_block(&vec![1; 128 * 64], 128, 64, BandOrientation::LL, &o).is_err());
    let k0 = Tier1Options {
        bypass_from: Some(0),
    };
    assert!(encode_code_block(&[1; 9], 3, 3, BandOrientation::LL, &k0).is_err());
}

#[test]
fn decoder_rejects_inconsistent_passes() {
    let coeffs: Vec<i32> = (0..256).map(|i| (i * 37 % 201) - 100).collect();
    let o = Tier1Options::PART1_BYPASS;
    let coded = encode_code_block(&coeffs, 16, 16, BandOrientation::LH, &o).unwrap();
    let mut bad = coded.clone();
    bad.passes.pop();
    assert!(decode_code_block(&bad, 16, 16, BandOrientation::LH, &o).is_err());
    let mut bad = coded.clone();
    bad.passes[0].terminated = !bad.passes[0].terminated;
    assert!(decode_code_block(&bad, 16, 16, BandOrientation::LH, &o).is_err());
    let mut bad = coded;
    bad.passes.last_mut().unwrap().end += 1;
    assert!(decode_code_block(&bad, 16, 16, BandOrientation::LH, &o).is_err());
}

/// Writes `samples` (w x h, `depth` bits) as a PGM, runs OpenJPEG's encoder on it with
/// `args` and returns the codestream.
fn opj_compress(
    dir: &std::path::Path,
    samples: &[u32],
    w: usize,
    h: usize,
    depth: u32,
    args: &[&str],
) -> Vec<u8> {
    let opj = "opj_compress";
    let maxval = (1u32 << depth) - 1;
    let mut pgm = format!("P5\n{w} {h}\n{maxval}\n").into_bytes();
    for &s in samples {
        if depth > 8 {
            pgm.extend_from_slice(&(s as u16).to_be_bytes());
        } else {
            pgm.push(s as u8);
        }
    }
    let input = dir.join("in.pgm");
    let output = dir.join("out.j2k");
    std::fs::write(&input, &pgm).unwrap();
    let out = std::process::Command::new(opj)
        .arg("-i")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {opj} (libopenjp2-tools): {e}"));
    assert!(
        out.status.success(),
        "{opj}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(&output).unwrap()
}

/// Test images: noise, a ramp, sparse spikes on a flat field, small deviations.
fn test_image(rng: &mut SplitMix64, w: usize, h: usize, depth: u32, style: u32) -> Vec<u32> {
    let maxval = (1u32 << depth) - 1;
    (0..w * h)
        .map(|i| match style {
            0 => rng.below(maxval as u64 + 1) as u32,
            1 => ((i % w) * maxval as usize / w + (i / w) * 3 % 7) as u32 % (maxval + 1),
            2 => {
                if rng.below(30) == 0 {
                    rng.below(maxval as u64 + 1) as u32
                } else {
                    1 << (depth - 1)
                }
            }
            _ => {
                let m = rng.below(1 << (depth / 2)) as i64;
                ((1i64 << (depth - 1)) + if rng.below(2) == 0 { m } else { -m }) as u32
            }
        })
        .collect()
}

fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("parvlc-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// OpenJPEG's own encoder as the judge of our bytes: with no wavelet decomposition
/// (`-n 1`) a component's only subband is LL and its coefficients are the samples minus
/// the DC level shift, so the codestream's single packet body is the code-blocks' data
/// back to back, right before EOC. Our encoder must produce exactly those bytes.
#[test]
fn code_block_bytes_equal_openjpeg_encoder() {
    let dir = scratch_dir("j2k-tier1-ll");
    let mut rng = SplitMix64(0x0BE1);
    let mut cases = 0;
    for &(w, h, depth) in &[
        (64usize, 64usize, 8u32),
        (37, 23, 8),
        (64, 5, 16),
        (3, 64, 12),
        (128, 64, 8),
        (64, 64, 16),
        (50, 61, 10),
    ] {
        for style in 0..4 {
            let samples = test_image(&mut rng, w, h, depth, style);
            for bypass in [false, true] {
                let mut args = vec!["-n", "1", "-b", "64,64"];
                if bypass {
                    args.extend(["-M", "1"]);
                }
                let j2k = opj_compress(&dir, &samples, w, h, depth, &args);
                let opts = if bypass {
                    Tier1Options::PART1_BYPASS
                } else {
                    Tier1Options::default()
                };
                let shift = 1i64 << (depth - 1);
                let mut body = Vec::new();
                for bx in (0..w).step_by(64) {
                    let bw = 64.min(w - bx);
                    let coeffs: Vec<i32> = (0..h)
                        .flat_map(|y| (bx..bx + bw).map(move |x| (y, x)))
                        .map(|(y, x)| (samples[y * w + x] as i64 - shift) as i32)
                        .collect();
                    let coded =
                        encode_code_block(&coeffs, bw, h, BandOrientation::LL, &opts).unwrap();
                    body.extend_from_slice(&coded.data);
                }
                body.extend_from_slice(&[0xFF, 0xD9]);
                assert!(
                    body.len() > 2 && j2k.ends_with(&body),
                    "{w}x{h} depth {depth} style {style} bypass {bypass}: our {} bytes are not \
                     the end of OpenJPEG's codestream",
                    body.len()
                );
                cases += 1;
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(cases, 56);
}

/// One level of the reversible 5/3 wavelet (ISO/IEC 15444-1 F.3, lifting with symmetric
/// extension) along a line: returns (low-pass, high-pass) for a line that
/// starts at an even coordinate.
fn dwt53_line(x: &[i32]) -> (Vec<i32>, Vec<i32>) {
    let n = x.len();
    if n == 1 {
        return (vec![x[0]], vec![]);
    }
    let at = |i: isize| -> i32 {
        // Whole-sample symmetric extension.
        let p = 2 * (n as isize - 1);
        let mut i = i.rem_euclid(p);
        if i >= n as isize {
            i = p - i;
        }
        x[i as usize]
    };
    let d: Vec<i32> = (0..n / 2)
        .map(|k| {
            let k = k as isize;
            at(2 * k + 1) - ((at(2 * k) + at(2 * k + 2)) >> 1)
        })
        .collect();
    // d extended symmetrically: d[-1] = d[0], and past the end (odd n) the last one.
    let dd = |k: isize| d[k.clamp(0, d.len() as isize - 1) as usize];
    let s: Vec<i32> = (0..n.div_ceil(2))
        .map(|k| {
            let k = k as isize;
            at(2 * k) + ((dd(k - 1) + dd(k) + 2) >> 2)
        })
        .collect();
    (s, d)
}

/// One 2-D level (vertical, then horizontal, as OpenJPEG and F.3.2 do it): the LL, HL,
/// LH and HH bands as (coefficients, width, height).
fn dwt53_level(img: &[i32], w: usize, h: usize) -> [(Vec<i32>, usize, usize); 4] {
    let (lh_rows, hh_rows) = (h.div_ceil(2), h / 2);
    let mut v = vec![0i32; w * h]; // low rows on top, high rows below
    for x in 0..w {
        let col: Vec<i32> = (0..h).map(|y| img[y * w + x]).collect();
        let (lo, hi) = dwt53_line(&col);
        for (y, &c) in lo.iter().chain(&hi).enumerate() {
            v[y * w + x] = c;
        }
    }
    let (lw, hw) = (w.div_ceil(2), w / 2);
    let mut bands: [(Vec<i32>, usize, usize); 4] = [
        (Vec::new(), lw, lh_rows),
        (Vec::new(), hw, lh_rows),
        (Vec::new(), lw, hh_rows),
        (Vec::new(), hw, hh_rows),
    ];
    for y in 0..h {
        let (lo, hi) = dwt53_line(&v[y * w..(y + 1) * w]);
        let (l, hband) = if y < lh_rows { (0, 1) } else { (2, 3) };
        bands[l].0.extend(lo);
        bands[hband].0.extend(hi);
    }
    bands
}

/// The other orientations judged by OpenJPEG: one decomposition level (`-n 2`) on images
/// up to 128x128, so each band is one code-block; the last packet's body is the HL, LH
/// and HH code-blocks' data in that order, right before EOC, and the LL data is the
/// first packet's body.
#[test]
fn subband_code_blocks_equal_openjpeg_encoder() {
    let dir = scratch_dir("j2k-tier1-bands");
    let mut rng = SplitMix64(0xB4D5);
    let mut cases = 0;
    for &(w, h, depth) in &[
        (128usize, 128usize, 8u32),
        (37, 23, 8),
        (100, 9, 12),
        (6, 127, 16),
        (2, 2, 8),
    ] {
        for style in 0..4 {
            let samples = test_image(&mut rng, w, h, depth, style);
            let shift = 1i64 << (depth - 1);
            let img: Vec<i32> = samples.iter().map(|&s| (s as i64 - shift) as i32).collect();
            let bands = dwt53_level(&img, w, h);
            for bypass in [false, true] {
                let mut args = vec!["-n", "2", "-b", "64,64"];
                if bypass {
                    args.extend(["-M", "1"]);
                }
                let j2k = opj_compress(&dir, &samples, w, h, depth, &args);
                let opts = if bypass {
                    Tier1Options::PART1_BYPASS
                } else {
                    Tier1Options::default()
                };
                let coded: Vec<Vec<u8>> = bands
                    .iter()
                    .zip(BANDS)
                    .map(|((c, bw, bh), band)| {
                        encode_code_block(c, *bw, *bh, band, &opts).unwrap().data
                    })
                    .collect();
                let mut tail = coded[1..].concat();
                tail.extend_from_slice(&[0xFF, 0xD9]);
                let what = format!("{w}x{h} depth {depth} style {style} bypass {bypass}");
                assert!(
                    j2k.ends_with(&tail),
                    "{what}: HL+LH+HH ({} bytes) differ from OpenJPEG's",
                    tail.len()
                );
                assert!(
                    coded[0].is_empty() || j2k.windows(coded[0].len()).any(|win| win == coded[0]),
                    "{what}: LL ({} bytes) not in OpenJPEG's codestream",
                    coded[0].len()
                );
                cases += 1;
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(cases, 40);
}

#[test]
fn batch_encoders_equal_single_blocks() {
    use parvlc::j2k::tier1::{encode_code_blocks, encode_code_blocks_serial, CodeBlockInput};
    let mut rng = SplitMix64(0xBA7C);
    let data: Vec<(Vec<i32>, usize, usize, BandOrientation)> = (0..200)
        .map(|i| {
            let (w, h) = (1 + rng.below(64) as usize, 1 + rng.below(64) as usize);
            (
                block(&mut rng, w, h, Content::Laplacian),
                w,
                h,
                BANDS[i % 4],
            )
        })
        .collect();
    let inputs: Vec<CodeBlockInput> = data
        .iter()
        .map(|(c, w, h, band)| CodeBlockInput {
            coeffs: c,
            width: *w,
            height: *h,
            band: *band,
        })
        .collect();
    let opts = Tier1Options::PART1_BYPASS;
    let par = encode_code_blocks(&inputs, &opts).unwrap();
    let ser = encode_code_blocks_serial(&inputs, &opts).unwrap();
    assert_eq!(par, ser);
    for (b, coded) in inputs.iter().zip(&par) {
        assert_eq!(
            coded,
            &encode_code_block(b.coeffs, b.width, b.height, b.band, &opts).unwrap()
        );
    }
    // A bad block is reported, not skipped.
    let mut bad = inputs.clone();
    bad[7].width += 1;
    assert!(encode_code_blocks(&bad, &opts).is_err());
}
