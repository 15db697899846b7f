#!/usr/bin/env python3
"""Write the seed corpora (fuzz/corpus/<target>/): a few small valid inputs per target.

Usage: fuzz/make_seeds.py PATH/TO/parvlc   (the CLI makes the native and gzip seeds)
"""
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib

here = os.path.dirname(os.path.abspath(__file__))
parvlc = os.path.abspath(sys.argv[1])
rng = random.Random(11)


def put(target, name, data):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def noise(n):
    return bytes(rng.randrange(256) for _ in range(n))


def cli(args, data):
    """Run `parvlc ARGS INPUT -o OUTPUT` on `data` on the CPU; the output's bytes."""
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "in"), os.path.join(d, "out")
        with open(src, "wb") as f:
            f.write(data)
        subprocess.run([parvlc, *args, "--backend", "cpu", src, "-o", out], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out, "rb") as f:
            return f.read()


def gzip_cli(data, *flags):
    return subprocess.run(["gzip", "-c", "-n", *flags], input=data, check=True,
                          stdout=subprocess.PIPE).stdout


text = b"the quick brown fox jumps over the lazy dog; " * 6
skewed = bytes(rng.choice(b"aaaaaaab") for _ in range(34000))  # several native blocks

# Native files: text, a single byte, noise (long codes), and a file of several blocks.
for name, data in [("text", text), ("one-byte", b"x"), ("noise", noise(300)),
                   ("blocks", skewed)]:
    put("native_decode", name + ".pvlc", cli(["compress"], data))

# gzip: ours (one literals-only block) and gzip's own (stored, fixed and dynamic blocks,
# two members, an empty member).
put("gzip_decode", "parvlc.gz", cli(["compress", "--format", "gzip"], text))
# Index version 3 (blocks listed by their bits), several blocks: also a GPU decoder
# seed. (parvlc-blocks.gz in both corpora, of index version 2, was written by the CLI
# before version 3, and is kept: those files still decode.)
put("gzip_decode", "parvlc-blocks-v3.gz", cli(["compress", "--format", "gzip"], skewed))
put("vld_decode", "parvlc-blocks-v3.gz", cli(["compress", "--format", "gzip"], skewed))
put("gzip_decode", "gzip-9.gz", gzip_cli(text, "-9"))
put("gzip_decode", "gzip-1-noise.gz", gzip_cli(noise(200), "-1"))
put("gzip_decode", "two-members.gz", gzip_cli(b"abc") + gzip_cli(b"defdefdef"))
put("gzip_decode", "empty.gz", gzip_cli(b""))


def pnm(magic, w, h, maxval, samples, comment=b""):
    head = magic + b"\n" + comment + b"%d %d\n%d\n" % (w, h, maxval)
    if maxval > 255:
        return head + b"".join(struct.pack(">H", s) for s in samples)
    return head + bytes(samples)


def png(w, h, depth, colour, rows, extra=()):
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))
    ihdr = struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, 0)
    raw = b"".join(b"\0" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + b"".join(chunk(k, d) for k, d in extra)
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


put("image_read", "grey8.pgm", pnm(b"P5", 5, 3, 255, [rng.randrange(256) for _ in range(15)]))
put("image_read", "grey10-comment.pgm",
    pnm(b"P5", 3, 2, 1023, [rng.randrange(1024) for _ in range(6)], b"# a comment\n"))
put("image_read", "rgb8.ppm", pnm(b"P6", 4, 4, 255, [rng.randrange(256) for _ in range(48)]))
put("image_read", "rgb16.ppm", pnm(b"P6", 2, 3, 65535, [rng.randrange(65536) for _ in range(18)]))
put("image_read", "grey8.png", png(4, 3, 8, 0, [noise(4) for _ in range(3)]))
put("image_read", "grey1.png", png(9, 2, 1, 0, [noise(2) for _ in range(2)]))
put("image_read", "grey16.png", png(3, 3, 16, 0, [noise(6) for _ in range(3)]))
put("image_read", "rgb8.png", png(3, 2, 8, 2, [noise(9) for _ in range(2)]))
put("image_read", "palette.png",
    png(4, 2, 8, 3, [bytes(rng.randrange(3) for _ in range(4)) for _ in range(2)],
        [(b"PLTE", noise(9))]))


def y4m(header, w, h, frames):
    cw, ch = (w + 1) // 2, (h + 1) // 2
    body = b"".join(b"FRAME\n" + noise(w * h + 2 * cw * ch) for _ in range(frames))
    return header + b"\n" + body


put("y4m_read", "4x2-two-frames.y4m", y4m(b"YUV4MPEG2 W4 H2 F25:1 Ip A1:1 C420jpeg", 4, 2, 2))
put("y4m_read", "3x3-no-colourspace.y4m", y4m(b"YUV4MPEG2 W3 H3 F30000:1001", 3, 3, 1))
put("y4m_read", "5x4-mpeg2-comment.y4m",
    y4m(b"YUV4MPEG2 W5 H4 F0:0 C420mpeg2 XYSCSS=420MPEG2", 5, 4, 1))

# The encoders' inputs: parameter bytes (see each target), then sample bytes.
# j2k_encode: width-1, height-1, RGB if odd, depth-1, levels, log2(cblk/4), MQ if odd.
for name, params, n in [("16x16-grey8-cblk4", [15, 15, 0, 7, 2, 0, 0], 256),
                        ("33x7-rgb12-mq", [32, 6, 1, 11, 5, 4, 1], 600),
                        ("1x1-grey1", [0, 0, 0, 0, 5, 4, 0], 1),
                        ("48x48-rgb16-cblk8", [47, 47, 1, 15, 6, 1, 0], 1024)]:
    put("j2k_encode", name, bytes(params) + noise(n))
# h264_encode: width-1, height-1, QP, slice rows (0: one slice), pictures-1.
for name, params, n in [("16x16-qp26", [15, 15, 26, 0, 0], 384),
                        ("33x17-qp0-rows1-two", [32, 16, 0, 1, 1], 900),
                        ("64x48-qp51", [63, 47, 51, 2, 0], 1024),
                        ("1x1-qp10", [0, 0, 10, 0, 0], 6)]:
    put("h264_encode", name, bytes(params) + noise(n))
