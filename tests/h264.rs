//! The H.264 encoder's pieces and edges: the byte-wise bit appender, a random frame with
//! I_NxN macroblocks through the CPU slice_data() reference (FFmpeg must decode it
//! without an error), the command line with --recon and an odd picture size, and bad
//! input (not Y4M, 4:4:4, 10-bit, truncated, interlaced, over-long lines): a clear error,
//! exit status 1 and no output file; hostile headers refused in small memory.

mod common;
mod h264_common;

use std::path::Path;
use std::process::Command;

use common::cli::{files, parvlc, parvlc_measured, stderr};
use h264_common::{clip, ffmpeg_decode, scratch};
use parvlc::bits::MsbWriter;
use parvlc::cavlc::frame::{Frame, MbHeader, MB_LEVELS};
use parvlc::h264::syntax::level_idc;
use parvlc::h264::y4m::Y4mReader;
use parvlc::h264::{cpu_slice_data, write_picture, Geometry};
use parvlc::Error;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn append_bytes_matches_bit_by_bit() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..2000 {
        let mut a = MsbWriter::new();
        let mut b = MsbWriter::new();
        let lead = rng.below(20) as u32;
        let v = rng.next() as u32;
        a.put(v, lead);
        b.put(v, lead);
        let bits = rng.below(200);
        // Garbage past `bits` in the source must not leak into the result.
        let src: Vec<u8> = (0..bits.div_ceil(8) + rng.below(3))
            .map(|_| rng.next() as u8)
            .collect();
        a.append_bytes(&src, bits);
        for i in 0..bits {
            b.put(((src[(i / 8) as usize] >> (7 - i % 8)) & 1) as u32, 1);
        }
        let tail = rng.next() as u32;
        a.put(tail, 7);
        b.put(tail, 7);
        assert_eq!(a.bit_len(), b.bit_len());
        assert_eq!(a.as_bytes(), b.as_bytes(), "lead {lead}, bits {bits}");
    }
}

/// Intra4x4PredMode values a block may use given which neighbours exist (FFmpeg rejects
/// the others): vertical and the diagonals down-left/vertical-left need the top, the
/// horizontals the left, the rest both (and so the corner).
fn allowed_4x4(top: bool, left: bool) -> Vec<u32> {
    (0..9)
        .filter(|m| match m {
            0 | 3 | 7 => top,
            1 | 8 => left,
            2 => true,
            _ => top && left,
        })
        .collect()
}

/// A frame of random I_NxN and I_16x16 macroblocks with random levels (some needing the
/// level escape codes) and patterns, prediction modes valid for their neighbours.
fn random_frame(wm: u32, hm: u32, slice_rows: u32, rng: &mut Rng) -> Frame {
    let mut f = Frame::new(wm, hm);
    let w = wm as usize;
    // Intra4x4PredMode of every 4x4 block (raster within the picture); 2 (DC) stands in
    // for I_16x16 macroblocks, as clause 8.3.1.1 says.
    let bw = w * 4;
    let mut modes = vec![2u32; bw * hm as usize * 4];
    for mb in 0..f.mb_count() {
        let (mx, my) = (mb % w, mb / w);
        let slice = my as u32 / slice_rows;
        let top_mb = my > 0 && (my - 1) as u32 / slice_rows == slice;
        let left_mb = mx > 0;
        let mut h = if rng.below(2) == 0 {
            let mut h = MbHeader {
                mb_type: 0,
                coded_block_pattern: rng.below(48) as u32,
                ..MbHeader::default()
            };
            for i in 0..16 {
                let raster = parvlc::cavlc::frame::LUMA_CODING_ORDER[i];
                let (bx, by) = (mx * 4 + raster % 4, my * 4 + raster / 4);
                let top = by % 4 > 0 || top_mb;
                let left = bx % 4 > 0 || left_mb;
                let pred = if top && left {
                    modes[(by - 1) * bw + bx].min(modes[by * bw + bx - 1])
                } else {
                    2
                };
                let options = allowed_4x4(top, left);
                let mode = options[rng.below(options.len() as u64) as usize];
                modes[by * bw + bx] = mode;
                let nibble = if mode == pred {
                    8
                } else if mode < pred {
                    mode
                } else {
                    mode - 1
                };
                h.intra4x4_modes[i / 8] |= nibble << (4 * (i % 8));
            }
            h
        } else {
            let pred: Vec<u32> = [(0, top_mb), (1, left_mb), (2, true), (3, top_mb && left_mb)]
                .into_iter()
                .filter(|&(_, ok)| ok)
                .map(|(m, _)| m)
                .collect();
            MbHeader::intra16x16(
                pred[rng.below(pred.len() as u64) as usize],
                if rng.below(2) == 0 { 0 } else { 15 },
                rng.below(3) as u32,
                0,
                0,
                0,
            )
        };
        let chroma: Vec<u32> = [(0, true), (1, left_mb), (2, top_mb), (3, top_mb && left_mb)]
            .into_iter()
            .filter(|&(_, ok)| ok)
            .map(|(m, _)| m)
            .collect();
        h.intra_chroma_pred_mode = chroma[rng.below(chroma.len() as u64) as usize];
        h.mb_qp_delta = rng.below(52) as i32 - 26;
        h.slice = slice;
        f.mbs[mb] = h;
        let (cbp_luma, cbp_chroma) = h.cbp();
        let levels = f.mb_levels_mut(mb);
        for blk in 0..24 {
            for pos in 0..16 {
                let coded = if blk < 16 {
                    let b8 = (blk / 8) * 2 + (blk % 4) / 2;
                    (h.is_intra16x16() && pos == 0) || cbp_luma & (1 << b8) != 0
                } else if pos == 0 {
                    cbp_chroma >= 1
                } else {
                    cbp_chroma == 2
                };
                if coded && rng.below(3) == 0 {
                    let big = rng.below(40) == 0;
                    let mag = if big {
                        1 + rng.below(2000)
                    } else {
                        1 + rng.below(4)
                    } as i16;
                    levels[blk * 16 + pos] = if rng.below(2) == 0 { mag } else { -mag };
                }
            }
        }
        assert_eq!(levels.len(), MB_LEVELS);
    }
    f
}

#[test]
fn random_intra_nxn_frame_is_accepted_by_ffmpeg() {
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    for (wm, hm, slice_rows) in [(5u32, 4u32, 4u32), (7, 6, 2), (3, 5, 1)] {
        let frame = random_frame(wm, hm, slice_rows, &mut rng);
        frame.validate().unwrap();
        assert!(frame.mbs.iter().any(|m| m.mb_type == 0));
        let slices = cpu_slice_data(&frame).unwrap();
        let g = Geometry::new(wm * 16, hm * 16).unwrap();
        let stream = write_picture(&frame, &slices, Some((&g, level_idc(wm, hm, 25.0), 26)), 0);
        let path = scratch().join(format!("random-{wm}x{hm}.264"));
        std::fs::write(&path, &stream).unwrap();
        let decoded = ffmpeg_decode(&path);
        assert_eq!(decoded.len(), (wm * hm * 256 * 3 / 2) as usize);
    }
}

/// Only `keep` (and nothing else, no temporary files) in `dir`.
fn dir_holds_only(dir: &Path, keep: &[&str]) {
    let mut want: Vec<String> = keep.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(files(dir), want);
}

fn fresh_dir(name: &str) -> std::path::PathBuf {
    common::cli::fresh_dir(scratch().join(name))
}

/// A Y4M of `frames` frames of an odd-sized gradient, written by hand (FFmpeg's sources
/// round sizes to even).
fn odd_y4m(w: u32, h: u32, frames: u32) -> Vec<u8> {
    let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
    let mut out = format!("YUV4MPEG2 W{w} H{h} F30:1 Ip A1:1 C420mpeg2\n").into_bytes();
    for f in 0..frames {
        out.extend_from_slice(b"FRAME\n");
        for y in 0..h {
            for x in 0..w {
                out.push(((x * 7 + y * 3 + f * 11) % 256) as u8);
            }
        }
        for c in 0..2 {
            for y in 0..ch {
                for x in 0..cw {
                    out.push(((x * 13 + y * 5 + c * 90) % 256) as u8);
                }
            }
        }
    }
    out
}

#[test]
fn cli_recon_is_what_ffmpeg_decodes_including_odd_sizes() {
    let dir = fresh_dir("cli-ok");
    std::fs::write(dir.join("odd.y4m"), odd_y4m(37, 21, 3)).unwrap();
    std::fs::copy(clip("mandelbrot", 198, 110), dir.join("m.y4m")).unwrap();
    for (input, args) in [
        ("odd.y4m", vec!["--qp", "18", "--backend", "cpu"]),
        (
            "odd.y4m",
            vec!["--qp", "0", "--slice-rows", "1", "--backend", "cpu"],
        ),
        (
            "m.y4m",
            vec!["--qp", "30", "--slice-rows", "3", "--backend", "cpu"],
        ),
        // Luma modes: one Intra_4x4 mode forced, I_16x16 alone.
        (
            "odd.y4m",
            vec!["--luma", "4x4:5", "--slice-rows", "1", "--backend", "cpu"],
        ),
        (
            "m.y4m",
            vec!["--luma", "16x16", "--qp", "22", "--backend", "cpu"],
        ),
        // The default engine: cavlcu on the GPU (lavapipe in CI).
        ("odd.y4m", vec!["--qp", "7", "--slice-rows", "1"]),
        ("m.y4m", vec!["--cavlc", "su"]),
    ] {
        let mut a = vec![
            "h264", input, "-o", "out.264", "--recon", "r.yuv", "--force",
        ];
        a.extend(args.iter());
        let o = parvlc(&a, &dir);
        assert!(o.status.success(), "{}", stderr(&o));
        let recon = std::fs::read(dir.join("r.yuv")).unwrap();
        assert_eq!(
            recon,
            ffmpeg_decode(&dir.join("out.264")),
            "{input} {args:?}"
        );
        if input == "odd.y4m" {
            // Displayed at the next even size: 38x22, 3 frames.
            assert_eq!(recon.len(), 3 * (38 * 22 + 2 * 19 * 11));
        }
    }
    // A luma mode that does not exist is refused, naming the range.
    let o = parvlc(&["h264", "m.y4m", "-o", "bad.264", "--luma", "4x4:9"], &dir);
    assert!(
        !o.status.success() && stderr(&o).contains("0..=8"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("bad.264").exists());
    // No adapter (a backend this build lacks): the GPU engine falls back to the CPU.
    let o = Command::new(env!("CARGO_BIN_EXE_parvlc"))
        .args(["h264", "m.y4m", "-o", "fb.264", "--recon", "fb.yuv"])
        .env("WGPU_BACKEND", "metal")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("CAVLC cpu"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(dir.join("fb.yuv")).unwrap(),
        ffmpeg_decode(&dir.join("fb.264"))
    );
    // Without --force the outputs are left alone.
    std::fs::write(dir.join("out.264"), b"keep").unwrap();
    let o = parvlc(
        &["h264", "m.y4m", "-o", "out.264", "--backend", "cpu"],
        &dir,
    );
    assert!(
        !o.status.success() && stderr(&o).contains("refusing to overwrite"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(dir.join("out.264")).unwrap(), b"keep");
}

#[test]
fn pictures_in_flight_give_one_stream_in_order() {
    // Nine different pictures: any one out of place changes the stream and the recon.
    let dir = fresh_dir("cli-depth");
    std::fs::write(dir.join("odd.y4m"), odd_y4m(37, 21, 9)).unwrap();
    let mut streams = Vec::new();
    for args in [
        vec!["--depth", "1", "--backend", "cpu"],
        vec!["--depth", "4", "--backend", "cpu"],
        vec!["--depth", "3", "--slice-rows", "1"],
        vec![],
    ] {
        let mut a = vec![
            "h264", "odd.y4m", "-o", "out.264", "--recon", "r.yuv", "--force",
        ];
        a.extend(args.iter());
        let o = parvlc(&a, &dir);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("9 frames"), "{}", stderr(&o));
        let recon = std::fs::read(dir.join("r.yuv")).unwrap();
        assert!(recon == ffmpeg_decode(&dir.join("out.264")), "{args:?}");
        streams.push((args, std::fs::read(dir.join("out.264")).unwrap()));
    }
    // The depth and the engine change no byte (slices do: they cut prediction).
    let (_, one) = &streams[0];
    for (args, bytes) in &streams[1..] {
        if !args.contains(&"--slice-rows") {
            assert!(bytes == one, "{args:?}");
        }
    }
    let o = parvlc(&["h264", "odd.y4m", "-o", "z.264", "--depth", "0"], &dir);
    assert!(!o.status.success());
}

#[test]
fn gpu_front_end_batches_give_the_cpu_front_ends_stream() {
    // The GPU front end (batches of --depth pictures, two in flight) against the CPU
    // front end and CPU CAVLC, for each luma mode: the same bytes, in order, and FFmpeg
    // decodes each stream to the recon the GPU wrote.
    let dir = fresh_dir("cli-front-end");
    std::fs::write(dir.join("odd.y4m"), odd_y4m(37, 21, 9)).unwrap();
    for (rows, luma) in [
        (None, "16x16"),
        (Some("1"), "16x16"),
        (None, "auto"),
        (Some("1"), "4x4"),
        (None, "4x4:8"),
    ] {
        let mut streams = Vec::new();
        for args in [
            vec!["--front-end", "cpu", "--backend", "cpu", "--depth", "1"],
            vec!["--depth", "1"],
            vec!["--depth", "4"],
            vec!["--depth", "64"],
            vec!["--front-end", "cpu", "--depth", "3"],
        ] {
            let mut a = vec![
                "h264", "odd.y4m", "-o", "out.264", "--recon", "r.yuv", "--force", "--luma", luma,
                "--qp", "20",
            ];
            a.extend(args.iter());
            if let Some(r) = rows {
                a.extend(["--slice-rows", r]);
            }
            let o = parvlc(&a, &dir);
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
            assert!(stderr(&o).contains("9 frames"), "{}", stderr(&o));
            let gpu = !args.contains(&"cpu");
            assert_eq!(
                stderr(&o).contains("front end gpu"),
                gpu,
                "{args:?}: {}",
                stderr(&o)
            );
            let recon = std::fs::read(dir.join("r.yuv")).unwrap();
            assert!(
                recon == ffmpeg_decode(&dir.join("out.264")),
                "{args:?} {rows:?} {luma}"
            );
            streams.push((args, std::fs::read(dir.join("out.264")).unwrap()));
        }
        let (_, one) = &streams[0];
        for (args, bytes) in &streams[1..] {
            assert!(bytes == one, "{args:?} {rows:?} {luma}");
        }
    }
}

#[test]
fn bad_input_is_a_clear_error_and_leaves_no_output() {
    let good = std::fs::read(clip("testsrc2", 176, 144)).unwrap();
    let frame = 176 * 144 * 3 / 2 + 6;
    let mut ten_bit = b"YUV4MPEG2 W16 H16 F25:1 Ip A1:1 C420p10 XYSCSS=420P10\nFRAME\n".to_vec();
    ten_bit.extend(vec![0u8; 16 * 16 * 3]);
    let mut yuv444 = b"YUV4MPEG2 W16 H16 F25:1 Ip A1:1 C444\nFRAME\n".to_vec();
    yuv444.extend(vec![0u8; 16 * 16 * 3]);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "not-y4m",
            b"RIFF\x00\x00\x00\x00WAVEfmt ".to_vec(),
            "not a Y4M file",
        ),
        ("yuv444", yuv444, "colour space C444 is not supported"),
        ("ten-bit", ten_bit, "colour space C420p10 is not supported"),
        // The last of the two frames loses its final 100 bytes.
        (
            "truncated-last",
            good[..good.len() - 100].to_vec(),
            "frame 1 is truncated",
        ),
        // The first frame is cut inside its samples.
        (
            "truncated-first",
            good[..good.len() - frame - 5000].to_vec(),
            "frame 0 is truncated",
        ),
        (
            "no-frames",
            good[..good.len() - 2 * frame].to_vec(),
            "holds no frames",
        ),
    ];
    for (name, bytes, message) in cases {
        let dir = fresh_dir(&format!("bad-{name}"));
        std::fs::write(dir.join("in.y4m"), &bytes).unwrap();
        // The library.
        let lib = Y4mReader::open(&dir.join("in.y4m")).and_then(|mut r| {
            while r.read_frame()?.is_some() {}
            Ok(r.frames_read())
        });
        match (&lib, name) {
            (Ok(0), "no-frames") => {}
            (Err(e), _) => {
                assert!(e.to_string().contains(message), "{name}: {e}");
                assert!(e.to_string().contains("in.y4m"), "{name}: {e}");
                let kind_ok = match name {
                    "not-y4m" => matches!(e, Error::BadMagic { .. }),
                    "yuv444" | "ten-bit" => matches!(e, Error::InvalidArgument(_)),
                    _ => matches!(e, Error::Corrupt { .. }),
                };
                assert!(kind_ok, "{name}: {e:?}");
            }
            other => panic!("{name}: {other:?}"),
        }
        // The command line: exit status 1, the message, no output and no temporary file.
        let o = parvlc(
            &[
                "h264",
                "in.y4m",
                "-o",
                "out.264",
                "--recon",
                "r.yuv",
                "--backend",
                "cpu",
            ],
            &dir,
        );
        assert_eq!(o.status.code(), Some(1), "{name}");
        assert!(stderr(&o).contains(message), "{name}: {}", stderr(&o));
        dir_holds_only(&dir, &["in.y4m"]);
        // The GPU front end's coders (the others wait for the first one's first batch)
        // stop with the same error where a frame is cut.
        if name.starts_with("truncated") {
            let o = parvlc(&["h264", "in.y4m", "-o", "out.264", "--depth", "2"], &dir);
            assert_eq!(o.status.code(), Some(1), "{name}");
            assert!(stderr(&o).contains(message), "{name}: {}", stderr(&o));
            dir_holds_only(&dir, &["in.y4m"]);
        }
    }
}

/// Peak memory allowed to a run refused from its header. A tiny CPU encode peaks near
/// 6 MB here and opening lavapipe alone takes about 100 MB, so this bound also shows that
/// a refusal from the header comes before the GPU is opened.
const SMALL_RSS: u64 = 32 << 20;

/// A fifo at `path` whose writer (a thread) sends `data` once a reader opens it.
fn fifo_feeding(path: &Path, data: Vec<u8>) -> std::thread::JoinHandle<()> {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo touches nothing else.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    let path = path.to_path_buf();
    // A reader that quits early makes the write fail: that is its business.
    std::thread::spawn(move || {
        let _ = std::fs::write(path, data);
    })
}

/// Release a fifo writer that may still wait for a reader, and join it.
fn finish_fifo(path: &Path, writer: std::thread::JoinHandle<()>) {
    use std::os::unix::fs::OpenOptionsExt;
    let _reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .unwrap();
    writer.join().unwrap();
    std::fs::remove_file(path).unwrap();
}

#[test]
fn hostile_y4m_headers_are_refused_in_small_memory() {
    let dir = fresh_dir("hostile");
    let with_kb = |header: &str| {
        let mut v = format!("{header}\nFRAME\n").into_bytes();
        v.resize(v.len() + 1000, 16);
        v
    };
    // 402 MB frames: beyond every H.264 level.
    std::fs::write(
        dir.join("huge.y4m"),
        with_kb("YUV4MPEG2 W16384 H16384 F25:1 Ip C420jpeg"),
    )
    .unwrap();
    // The largest frame level 6.2 allows (53 MB), 1 kB of it present.
    let big = with_kb("YUV4MPEG2 W8192 H4352 F25:1 Ip C420jpeg");
    std::fs::write(dir.join("big.y4m"), &big).unwrap();
    let cases: [(&str, &[&str]); 2] = [
        (
            "huge.y4m",
            &["too large", "16384x16384", "at most 139264 macroblocks"],
        ),
        (
            "big.y4m",
            &[
                "frame 0 is truncated",
                "at least 53477382 bytes",
                "holds 1006",
            ],
        ),
    ];
    for (name, words) in cases {
        let before = files(&dir);
        // The default engine (the GPU): refused before it is opened.
        let m = parvlc_measured(&["h264", name, "-o", "out.264"], &dir, None);
        let e = stderr(&m.output);
        assert_eq!(m.output.status.code(), Some(1), "{name}: {e}");
        for w in words.iter().chain([&name]) {
            assert!(e.contains(w), "{name}: {e:?} should say {w:?}");
        }
        assert_eq!(files(&dir), before, "{name} left files behind");
        assert!(m.peak_rss < SMALL_RSS, "{name}: peak RSS {}", m.peak_rss);
    }

    // Through a fifo (no length known): buffers grow only as data arrives. The CLI opens
    // the GPU before it reads the first frame, so the CPU engine keeps lavapipe out of
    // the measure.
    let fifo = dir.join("pipe.y4m");
    let writer = fifo_feeding(&fifo, big);
    let m = parvlc_measured(
        &["h264", "pipe.y4m", "-o", "out.264", "--backend", "cpu"],
        &dir,
        None,
    );
    finish_fifo(&fifo, writer);
    let e = stderr(&m.output);
    assert_eq!(m.output.status.code(), Some(1), "{e}");
    assert!(
        e.contains("pipe.y4m: frame 0 is truncated: 1000 of 53477376 bytes"),
        "{e}"
    );
    assert!(m.peak_rss < SMALL_RSS, "fifo: peak RSS {}", m.peak_rss);
    dir_holds_only(&dir, &["big.y4m", "huge.y4m"]);
}

#[test]
fn interlaced_y4m_and_over_long_lines_are_clear_errors() {
    let dir = fresh_dir("interlaced");
    let frame = |header: &[u8], frame_line: &[u8]| {
        let mut v = header.to_vec();
        v.extend_from_slice(frame_line);
        v.resize(v.len() + 16 * 16 * 3 / 2, 100);
        v
    };
    let mut long_header = b"YUV4MPEG2 W16 H16 X".to_vec();
    long_header.resize(5000, b'a');
    long_header.push(b'\n');
    let mut long_frame = b"FRAME X".to_vec();
    long_frame.resize(5000, b'b');
    long_frame.push(b'\n');
    let cases: Vec<(&str, Vec<u8>, &[&str])> = vec![
        (
            "top.y4m",
            frame(b"YUV4MPEG2 W16 H16 F25:1 It C420jpeg\n", b"FRAME\n"),
            &[
                "It",
                "interlaced, top field first",
                "progressive frames only",
            ],
        ),
        (
            "bottom.y4m",
            frame(b"YUV4MPEG2 W16 H16 Ib\n", b"FRAME\n"),
            &["Ib", "bottom field first", "progressive frames only"],
        ),
        (
            "mixed.y4m",
            frame(b"YUV4MPEG2 W16 H16 Im\n", b"FRAME\n"),
            &["Im", "mixed", "progressive frames only"],
        ),
        (
            "long-header.y4m",
            frame(&long_header, b"FRAME\n"),
            &["header line is too long", "4096 bytes"],
        ),
        (
            "long-frame.y4m",
            frame(b"YUV4MPEG2 W16 H16\n", &long_frame),
            &["frame 0: the FRAME line is too long", "4096 bytes"],
        ),
    ];
    for (name, bytes, words) in cases {
        std::fs::write(dir.join(name), bytes).unwrap();
        let before = files(&dir);
        let o = parvlc(&["h264", name, "-o", "out.264", "--backend", "cpu"], &dir);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {e}");
        for w in words.iter().chain([&name]) {
            assert!(e.contains(w), "{name}: {e:?} should say {w:?}");
        }
        assert_eq!(files(&dir), before, "{name} left files behind");
    }
    // Progressive (Ip) and unknown (I?, with a warning) are coded.
    for (name, tag, warns) in [("p.y4m", "Ip", false), ("unknown.y4m", "I?", true)] {
        let header = format!("YUV4MPEG2 W16 H16 F25:1 {tag}\n");
        std::fs::write(dir.join(name), frame(header.as_bytes(), b"FRAME\n")).unwrap();
        let (out, recon) = (format!("{name}.264"), format!("{name}.yuv"));
        let o = parvlc(
            &[
                "h264",
                name,
                "-o",
                &out,
                "--recon",
                &recon,
                "--backend",
                "cpu",
            ],
            &dir,
        );
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert_eq!(
            stderr(&o).contains("interlacing is unknown (I?)"),
            warns,
            "{name}: {}",
            stderr(&o)
        );
        assert_eq!(
            ffmpeg_decode(&dir.join(&out)),
            std::fs::read(dir.join(&recon)).unwrap()
        );
    }
}
