#!/usr/bin/env python3
"""PPM helpers for the H200 scripts' JPEG 2000 runs.

  ppm.py make OUT.ppm WIDTH HEIGHT   the synthetic RGB 8-bit picture they time: a
                                     horizontal ramp with a low-frequency wave, its
                                     row-shifted copy and an xor pattern
  ppm.py pan BASE.ppm DIR N          N frames DIR/f000.ppm... of a vertical pan over
                                     BASE: frame k is BASE's rows rotated by 8k, so
                                     that frames differ
  ppm.py same A.ppm B.ppm            whether two PPMs hold the same raster (headers may
                                     differ in whitespace, as opj_decompress writes them);
                                     prints "A: exact" or "A: MISMATCH", exits 1 on a
                                     mismatch
"""
import math
import sys


def make(path, w, h):
    rows = []
    for y in range(h):
        r = bytearray(3 * w)
        for x in range(w):
            v = (x * 255 // w + int(40 * math.sin(y / 37.0) * math.cos(x / 53.0))) & 255
            r[3 * x] = v
            r[3 * x + 1] = (v + y) & 255
            r[3 * x + 2] = (x ^ y) & 255
        rows.append(bytes(r))
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h) + b"".join(rows))


def pan(base, out_dir, n):
    data = open(base, "rb").read()
    head = data[: data.index(b"255\n") + 4]
    body = data[len(head):]
    w, h = (int(v) for v in head.split()[1:3])
    row = 3 * w
    for k in range(n):
        s = (8 * k % h) * row
        with open(f"{out_dir}/f{k:03d}.ppm", "wb") as f:
            f.write(head + body[s:] + body[:s])


def same(a_path, b_path):
    a, b = open(a_path, "rb").read(), open(b_path, "rb").read()
    n = len(a) - a.index(b"255\n") - 4
    ok = len(b) >= n and a[-n:] == b[-n:]
    print(a_path, "exact" if ok else "MISMATCH")
    return ok


if sys.argv[1] == "make":
    make(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
elif sys.argv[1] == "pan":
    pan(sys.argv[2], sys.argv[3], int(sys.argv[4]))
elif sys.argv[1] == "same":
    sys.exit(0 if same(sys.argv[2], sys.argv[3]) else 1)
else:
    sys.exit(__doc__)
