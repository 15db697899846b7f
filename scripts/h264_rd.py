#!/usr/bin/env python3
"""Rate-distortion report of parvlc's H.264 intra encoder against x264 (issue 15).

For each clip and QP: the bytes and the luma PSNR of `parvlc h264`, and of FFmpeg's
libx264 with `-profile:v baseline -g 1` at presets ultrafast and medium (x264's SEI, its
options string, is dropped from the count); then the Bjontegaard delta rate (BD-rate) of
ours against each preset, per clip, and an SVG plot of the curves.

    python3 scripts/h264_rd.py [--clips small|full|hd] [--sources photo,pan,...]
                               [--parvlc PATH] [--backend cpu|wgpu]
                               [--qps 22,27,32,37] [--out DIR]
    python3 scripts/h264_rd.py --self-test

Every stream of ours is decoded by FFmpeg (`-err_detect explode`) to exactly the
reconstruction parvlc wrote (`--recon`), or the script fails. PSNR is FFmpeg's psnr
filter against the source clip: luma, from the mean squared error over all frames.
BD-rate: log10(bytes) fitted as a cubic in PSNR (least squares over the QPs, the classic
Bjontegaard fit), both curves integrated over the PSNR range they share; positive means
we need that many percent more bytes than x264 for the same quality. Stdlib only.
"""

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

# A photograph Debian ships (package python-matplotlib-data: Grace Hopper, a portrait of
# 512x600, public domain), which `photo` pans over, scaled so that the pan fits: down at
# 176x144, up 1.5x at 640x360, 2.7x at 1280x720 and 4x at 1920x1080.
PHOTO = "/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg"

# Clips as FFmpeg lavfi sources, or `pan` (written here). `texture` pans over a fine sine
# pattern; `pan` over a hashed texture smoothed along rows (scripts/h200-h264.sh's clip:
# detail that I_16x16 alone codes poorly); `photo` over the photograph, 4 samples a
# frame (scaled with swscale's bit-exact flags). All but the photograph are synthetic,
# so every machine makes the same bytes.
SOURCES = {
    "testsrc2": "testsrc2=size={w}x{h}:rate=25",
    "mandelbrot": "mandelbrot=size={w}x{h}:rate=25",
    "texture": "nullsrc=size={w}x{h}:rate=25,"
    "geq=lum='128+60*sin((X+6*N)*0.8)*cos(Y*1.1)+50*sin((X+6*N)*Y*0.013)':cb=128:cr=128",
    "pan": None,
    "photo": "movie=" + PHOTO + ",loop=loop=-1:size=1,"
    "scale=w={pw}:h=-2:flags=bicubic+accurate_rnd+full_chroma_int+bitexact,"
    "crop=w={w}:h={h}:x='4*n':y='(ih-oh)/2',setsar=1,fps=25",
}


def write_pan(w, h, frames, path):
    tw = w + 4 * frames
    rows = []
    for y in range(h):
        r, acc = bytearray(tw), 0
        for x in range(tw):
            acc = (acc * 3 + (((x * 2654435761) ^ (y * 40503) ^ ((x * y) >> 3)) & 0xFF)) >> 2
            r[x] = acc
        rows.append(bytes(r))
    chroma = bytes([128]) * (w // 2 * h // 2)
    with open(path, "wb") as f:
        f.write(b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n" % (w, h))
        for k in range(frames):
            f.write(b"FRAME\n" + b"".join(r[4 * k:4 * k + w] for r in rows) + chroma + chroma)
CLIP_SETS = {
    # CI: a few seconds in all.
    "small": [(name, 176, 144, 8) for name in SOURCES],
    "full": [(name, w, h, 30) for name in SOURCES for (w, h) in [(640, 360), (1280, 720)]],
    # The benchmarks' 1080p pan (scripts/h200-lib.sh) and the photograph up 4x.
    "hd": [(name, 1920, 1080, 30) for name in ("pan", "photo")],
}
PRESETS = ["ultrafast", "medium"]


def run(cmd, **kw):
    """Run `cmd`; its stderr in the error if it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.strip()}")
    return p


def make_clip(name, w, h, frames, path):
    if SOURCES[name] is None:
        return write_pan(w, h, frames, path)
    if name == "photo" and not os.path.exists(PHOTO):
        sys.exit(f"{PHOTO} is missing: install Debian's python-matplotlib-data")
    # The photograph's width: the pan's, so that 4 samples a frame stay inside it.
    src = SOURCES[name].format(w=w, h=h, pw=w + 4 * frames)
    run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", src, "-frames:v", str(frames),
         "-pix_fmt", "yuv420p", "-y", path])


def luma_psnr(decoded, source, raw_size=None):
    """FFmpeg's psnr filter: luma PSNR of `decoded` (a stream, or raw yuv420p of
    `raw_size`) against `source`."""
    inp = ["-i", decoded]
    if raw_size:
        inp = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", raw_size, "-r", "25"] + inp
    p = run(["ffmpeg", "-hide_banner", "-nostats"] + inp
            + ["-i", source, "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"])
    m = re.search(r"PSNR y:([0-9.]+|inf)", p.stderr)
    if not m:
        sys.exit(f"no PSNR for {decoded}:\n{p.stderr[-2000:]}")
    return float(m.group(1))


def ours(parvlc, backend, clip, w, h, qp, tmp):
    stream, recon, decoded = (os.path.join(tmp, n) for n in ("ours.264", "recon.yuv", "dec.yuv"))
    run([parvlc, "h264", clip, "-o", stream, "--qp", str(qp), "--recon", recon,
         "--backend", backend, "--force"])
    run(["ffmpeg", "-v", "error", "-err_detect", "explode", "-i", stream, "-f", "rawvideo",
         "-pix_fmt", "yuv420p", "-y", decoded])
    with open(recon, "rb") as a, open(decoded, "rb") as b:
        if a.read() != b.read():
            sys.exit(f"FFmpeg decodes {clip} at QP {qp} to other samples than our recon")
    return os.path.getsize(stream), luma_psnr(decoded, clip, f"{w}x{h}")


def x264(clip, preset, qp, tmp):
    stream = os.path.join(tmp, f"x264-{preset}.264")
    run(["ffmpeg", "-v", "error", "-i", clip, "-c:v", "libx264", "-preset", preset,
         "-profile:v", "baseline", "-g", "1", "-qp", str(qp),
         "-bsf:v", "filter_units=remove_types=6", "-f", "h264", "-y", stream])
    return os.path.getsize(stream), luma_psnr(stream, clip)


def cubic_fit(xs, ys):
    """Least-squares cubic through (xs, ys), as coefficients of (x - centre)^0..3 and the
    centre (centred, so the normal equations stay well conditioned)."""
    c = sum(xs) / len(xs)
    rows = [[(x - c) ** k for k in range(4)] for x in xs]
    a = [[sum(r[i] * r[j] for r in rows) for j in range(4)] for i in range(4)]
    b = [sum(r[i] * y for r, y in zip(rows, ys)) for i in range(4)]
    for col in range(4):  # Gaussian elimination, partial pivoting
        piv = max(range(col, 4), key=lambda r: abs(a[r][col]))
        a[col], a[piv], b[col], b[piv] = a[piv], a[col], b[piv], b[col]
        for r in range(col + 1, 4):
            f = a[r][col] / a[col][col]
            a[r] = [x - f * y for x, y in zip(a[r], a[col])]
            b[r] -= f * b[col]
    coef = [0.0] * 4
    for r in range(3, -1, -1):
        coef[r] = (b[r] - sum(a[r][k] * coef[k] for k in range(r + 1, 4))) / a[r][r]
    return coef, c


def integral(fit, lo, hi):
    coef, c = fit
    prim = lambda x: sum(k_c * (x - c) ** (k + 1) / (k + 1) for k, k_c in enumerate(coef))
    return prim(hi) - prim(lo)


def bd_rate(anchor, test):
    """BD-rate of `test` against `anchor`, each a list of (bytes, psnr), in percent; None
    where the PSNR ranges do not overlap."""
    if len(anchor) < 4 or len(test) < 4:
        return None
    fa = cubic_fit([p for _, p in anchor], [math.log10(r) for r, _ in anchor])
    ft = cubic_fit([p for _, p in test], [math.log10(r) for r, _ in test])
    lo = max(min(p for _, p in anchor), min(p for _, p in test))
    hi = min(max(p for _, p in anchor), max(p for _, p in test))
    if hi <= lo:
        return None
    avg = (integral(ft, lo, hi) - integral(fa, lo, hi)) / (hi - lo)
    return (10 ** avg - 1) * 100


def self_test():
    curve = [(1000, 30.0), (1800, 33.5), (3300, 37.2), (6100, 41.0)]
    assert abs(bd_rate(curve, curve)) < 1e-9
    more = [(r * 1.1, p) for r, p in curve]
    assert abs(bd_rate(curve, more) - 10.0) < 1e-6, bd_rate(curve, more)
    less = [(r * 0.8, p) for r, p in curve]
    assert abs(bd_rate(curve, less) + 20.0) < 1e-6
    # Points along one curve at other PSNRs: the same curve, BD-rate about 0.
    f = lambda p: 10 ** (0.05 * p + 1.2)
    a = [(f(p), p) for p in (30, 33, 36, 39)]
    b = [(f(p), p) for p in (31, 34.5, 37, 40)]
    assert abs(bd_rate(a, b)) < 1e-6
    assert bd_rate(a, [(f(p), p) for p in (50, 51, 52, 53)]) is None
    print("h264_rd self-test: BD-rate of a curve against itself 0, against 1.1x its bytes "
          "+10%, against 0.8x -20%, disjoint ranges none")


def svg_plot(results, clips, path):
    """One panel per clip: PSNR against kilobytes (log scale), a curve per encoder."""
    colours = {"parvlc": "#d62728", "x264 ultrafast": "#1f77b4", "x264 medium": "#2ca02c"}
    pw, ph, cols = 320, 240, 3
    rows = (len(clips) + cols - 1) // cols
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * pw}" '
           f'height="{rows * ph + 30}" font-family="sans-serif" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>']
    for i, clip in enumerate(clips):
        x0, y0 = (i % cols) * pw + 45, (i // cols) * ph + 20
        w, h = pw - 60, ph - 55
        pts = [pt for enc in colours for pt in results[clip].get(enc, [])]
        lr = [math.log10(r / 1000) for r, _ in pts]
        ps = [p for _, p in pts]
        (rmin, rmax), (pmin, pmax) = (min(lr), max(lr)), (min(ps), max(ps))
        sx = lambda v: x0 + (v - rmin) / max(rmax - rmin, 1e-9) * w
        sy = lambda v: y0 + h - (v - pmin) / max(pmax - pmin, 1e-9) * h
        out.append(f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#999"/>')
        out.append(f'<text x="{x0}" y="{y0 - 5}">{clip}</text>')
        out.append(f'<text x="{x0 + w / 2 - 40}" y="{y0 + h + 28}">kB (log scale)</text>')
        out.append(f'<text x="{x0 - 40}" y="{y0 + h / 2}" transform="rotate(-90 {x0 - 32} '
                   f'{y0 + h / 2})">luma PSNR dB</text>')
        for v, anchor in ((rmin, "start"), (rmax, "end")):
            out.append(f'<text x="{sx(v):.1f}" y="{y0 + h + 13}" text-anchor="{anchor}">'
                       f'{10 ** v:.1f}</text>')
        for v in (pmin, pmax):
            out.append(f'<text x="{x0 - 3}" y="{sy(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
        for enc, colour in colours.items():
            curve = sorted(results[clip].get(enc, []))
            line = " ".join(f"{sx(math.log10(r / 1000)):.1f},{sy(p):.1f}" for r, p in curve)
            out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
            for r, p in curve:
                out.append(f'<circle cx="{sx(math.log10(r / 1000)):.1f}" cy="{sy(p):.1f}" r="2.5" '
                           f'fill="{colour}"/>')
    for k, (enc, colour) in enumerate(colours.items()):
        out.append(f'<text x="{10 + k * 150}" y="{rows * ph + 20}" fill="{colour}">{enc}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clips", choices=sorted(CLIP_SETS), default="small")
    ap.add_argument("--parvlc", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", "target"), "release", "parvlc"))
    ap.add_argument("--backend", default="cpu", help="parvlc's --backend (same bytes)")
    ap.add_argument("--qps", default="22,27,32,37")
    ap.add_argument("--sources", default=",".join(SOURCES),
                    help="the clips' sources, a comma list (all by default)")
    ap.add_argument("--out", default=None, help="where rd.tsv, rd.md and rd.svg go")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        self_test()
        return
    qps = [int(q) for q in a.qps.split(",")]
    sources = a.sources.split(",")
    unknown = [s for s in sources if s not in SOURCES]
    if unknown:
        sys.exit(f"unknown sources {unknown}: {', '.join(SOURCES)}")
    out = a.out or tempfile.mkdtemp(prefix="parvlc-rd-")
    os.makedirs(out, exist_ok=True)
    results, clips, tsv = {}, [], ["clip\tencoder\tqp\tbytes\tpsnr_y"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, w, h, frames in (c for c in CLIP_SETS[a.clips] if c[0] in sources):
            clip_id = f"{name} {w}x{h}"
            clips.append(clip_id)
            clip = os.path.join(tmp, f"{name}-{w}x{h}.y4m")
            make_clip(name, w, h, frames, clip)
            res = results.setdefault(clip_id, {})
            for qp in qps:
                points = [("parvlc", ours(a.parvlc, a.backend, clip, w, h, qp, tmp))]
                points += [(f"x264 {p}", x264(clip, p, qp, tmp)) for p in PRESETS]
                for enc, (size, psnr) in points:
                    res.setdefault(enc, []).append((size, psnr))
                    tsv.append(f"{clip_id}\t{enc}\t{qp}\t{size}\t{psnr:.3f}")
            os.remove(clip)
    md = [f"QPs {', '.join(map(str, qps))}; bytes and luma PSNR (dB) per QP; BD-rate of "
          "parvlc against each x264 preset (positive: parvlc needs more bytes).", "",
          "| clip | BD-rate vs ultrafast | BD-rate vs medium | " +
          " | ".join(f"QP {q}: parvlc / ultrafast / medium" for q in qps) + " |",
          "|---|---|---|" + "---|" * len(qps)]
    failed = False
    for clip_id in clips:
        res = results[clip_id]
        bds = []
        for p in PRESETS:
            bd = bd_rate(res[f"x264 {p}"], res["parvlc"])
            failed |= bd is None
            bds.append("n/a" if bd is None else f"{bd:+.1f}%")
        cells = [" / ".join(f"{res[e][i][0]} B {res[e][i][1]:.2f}"
                            for e in ["parvlc"] + [f"x264 {p}" for p in PRESETS])
                 for i in range(len(qps))]
        md.append(f"| {clip_id} | {bds[0]} | {bds[1]} | " + " | ".join(cells) + " |")
        print(f"BD-rate {clip_id}: {bds[0]} against x264 ultrafast, {bds[1]} against medium")
    with open(os.path.join(out, "rd.tsv"), "w") as f:
        f.write("\n".join(tsv) + "\n")
    with open(os.path.join(out, "rd.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    svg_plot(results, clips, os.path.join(out, "rd.svg"))
    print(f"table, points and plot in {out}/rd.md, rd.tsv, rd.svg")
    if failed:
        sys.exit("some curves share no PSNR range: no BD-rate for them")


if __name__ == "__main__":
    main()
