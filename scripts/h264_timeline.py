#!/usr/bin/env python3
"""The batches of a debug-logged `parvlc h264` run on a time line.

    python3 scripts/h264_timeline.py RUN.log[.gz]

Each batch's start (its coder's "waited ... for N pictures" line) and end (its "h264
batch of" line) by the log's millisecond timestamps, its phases, and how many batches
were between their upload and their results at each moment: where a coder waits on the
GPU and where on the host.
"""
import gzip
import re
import sys
from datetime import datetime

STAMP = re.compile(r"^\[(\S+)Z ")
PHASES = ["upload and record", "CAVLC record", "until the results are read", "status", "pictures written"]


def stamp(line):
    m = STAMP.match(line)
    return datetime.fromisoformat(m.group(1)).timestamp() if m else None


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = f.read().splitlines()
    t0 = next(t for t in map(stamp, lines) if t is not None)
    batches, waits = [], []
    for line in lines:
        t = stamp(line)
        if t is None:
            continue
        m = re.search(r"coder waited ([\d.]+) ms for (\d+) pictures", line)
        if m:
            waits.append((t - t0, float(m.group(1))))
        m = re.search(r"h264 batch of (\d+) at (\d+): (.*)", line)
        if m:
            ph = {n: float(re.search(re.escape(n) + r" ([\d.]+) ms", m.group(3)).group(1)) for n in PHASES}
            end = t - t0
            start = end - sum(ph.values()) / 1e3
            batches.append((int(m.group(2)), start, end, ph))
    batches.sort(key=lambda b: b[1])
    print(f"{len(batches)} batches; first starts at {batches[0][1]:.3f} s, last ends at {batches[-1][2]:.3f} s")
    for at, start, end, ph in batches[:12] + batches[-4:]:
        print(f"  at {at:5d}: {start:7.3f}-{end:7.3f} s  " + ", ".join(f"{n} {v:.1f}" for n, v in ph.items()))
    # Steady state: the middle half of the batches.
    mid = batches[len(batches) // 4 : 3 * len(batches) // 4]
    span = mid[-1][2] - mid[0][2]
    print(f"middle {len(mid)} batches: one ends every {1e3 * span / (len(mid) - 1):.1f} ms")
    for n in PHASES:
        v = sorted(b[3][n] for b in mid)
        print(f"  {n}: median {v[len(v) // 2]:.1f} ms, max {v[-1]:.1f}")
    w = sorted(x for _, x in waits)
    print(f"coders' waits for pictures: median {w[len(w) // 2]:.1f} ms, sum {sum(w):.0f} ms")


if __name__ == "__main__":
    main(sys.argv[1])
