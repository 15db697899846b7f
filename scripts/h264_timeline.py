#!/usr/bin/env python3
"""The batches of a debug-logged `parvlc h264` run, on a time line or summed up.

    python3 scripts/h264_timeline.py RUN.log[.gz]
    python3 scripts/h264_timeline.py --phases RUN.log[.gz]

On a time line: each batch's start (its end less its phases) and end (its "h264 batch
of" line) by the log's millisecond timestamps, with its phases, for the first twelve and
the last four; then, over the middle half of the batches, how often one ends and each
phase's median and most; and the coders' waits for pictures. With `--phases`: the
coders' waits and each phase over all batches (count, median, 90th percentile, most,
sum), as scripts/h200-lib.sh `batch_phases` prints them.
"""
import gzip
import re
import statistics
import sys
from datetime import datetime

STAMP = re.compile(r"^\[(\S+)Z ")
PHASES = ["upload and record", "CAVLC record", "until the results are read", "status", "pictures written"]


def stamp(line):
    m = STAMP.match(line)
    return datetime.fromisoformat(m.group(1)).timestamp() if m else None


def parse(path):
    """The coders' waits as (time, ms) and the batches as (first picture, start, end,
    phases); times in seconds from the log's first stamp (None without one)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = f.read().splitlines()
    t0 = next((t for t in map(stamp, lines) if t is not None), None)
    waits, batches = [], []
    for line in lines:
        t = stamp(line)
        at = None if t is None else t - t0
        m = re.search(r"coder waited ([\d.]+) ms for (\d+) pictures", line)
        if m:
            waits.append((at, float(m.group(1))))
        m = re.search(r"h264 batch of (\d+) at (\d+): (.*)", line)
        if m:
            ph = {n: float(re.search(re.escape(n) + r" ([\d.]+) ms", m.group(3)).group(1)) for n in PHASES}
            start = None if at is None else at - sum(ph.values()) / 1e3
            batches.append((int(m.group(2)), start, at, ph))
    return waits, batches


def phases(path):
    waits, batches = parse(path)

    def show(label, v):
        v = sorted(v)
        print(f"{label}: {len(v)} times, median {statistics.median(v):.1f} ms, 90th {v[int(0.9 * (len(v) - 1))]:.1f}, max {v[-1]:.1f}, sum {sum(v):.0f} ms")

    show("coder waited for pictures", [ms for _, ms in waits])
    for n in PHASES:
        show(n, [b[3][n] for b in batches])


def timeline(path):
    waits, batches = parse(path)
    batches = sorted((b for b in batches if b[2] is not None), key=lambda b: b[1])
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
    w = sorted(ms for _, ms in waits)
    print(f"coders' waits for pictures: median {w[len(w) // 2]:.1f} ms, sum {sum(w):.0f} ms")


if __name__ == "__main__":
    if sys.argv[1] == "--phases":
        phases(sys.argv[2])
    else:
        timeline(sys.argv[1])
