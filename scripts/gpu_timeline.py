#!/usr/bin/env python3
"""The GPU's timeline of a trace-logged compress (RUST_LOG=parvlc=trace): each chunk's
two submissions (scan: histograms, block CRC32s, frame plan; encode: the CUVLE pass) as
their first pass's begin and last pass's end on the GPU's clock. Runs are split where
the GPU idled for more than 20 ms. For each run: chunks, the span from the first begin to
the last end, the time inside submissions (their union), the passes' own time, and the
gaps between submissions (where the input's upload, the readback's copy, barriers and
idle fall), by where they sit: before a scan or before an encode; each pass's median.

    python3 scripts/gpu_timeline.py LOG [IDLE_MS]

IDLE_MS (20) is the idle time that separates runs.
"""
import re
import statistics
import sys

LINE = re.compile(r"GPU's clock: scan \[([\d.]+)\.\.([\d.]+)\] (\S*) encode \[([\d.]+)\.\.([\d.]+)\] (\S*)")


def pass_times(text):
    return [(p.split("=")[0], float(p.split("=")[1])) for p in text.split(",") if "=" in p]


idle_us = float(sys.argv[2]) * 1e3 if len(sys.argv) > 2 else 20000.0
subs = []  # (begin us, end us, kind, [(pass, us)])
for line in open(sys.argv[1], errors="replace"):
    m = LINE.search(line)
    if m:
        subs.append((float(m[1]), float(m[2]), "scan", pass_times(m[3])))
        subs.append((float(m[4]), float(m[5]), "encode", pass_times(m[6])))
subs.sort()
runs, run = [], []
for s in subs:
    if run and s[0] - max(r[1] for r in run) > idle_us:
        runs.append(run)
        run = []
    run.append(s)
if run:
    runs.append(run)
for k, run in enumerate(runs):
    span = max(r[1] for r in run) - run[0][0]
    busy, end = 0.0, run[0][0]
    gaps = {"scan": [], "encode": []}
    for b, e, kind, _ in run:
        if b > end:
            gaps[kind].append(b - end)
        busy += max(0.0, e - max(b, end))
        end = max(end, e)
    passes = sum(t for r in run for _, t in r[3])
    print(f"run {k}: {sum(r[2] == 'scan' for r in run)} chunks, span {span / 1e3:.1f} ms, inside submissions "
          f"{busy / 1e3:.1f} ms, passes {passes / 1e3:.1f} ms, between {(span - busy) / 1e3:.1f} ms")
    for kind, g in gaps.items():
        if g:
            print(f"  gaps before a {kind}: {len(g)}, median {statistics.median(g):.1f} us, "
                  f"p90 {sorted(g)[int(len(g) * 0.9)]:.1f} us, sum {sum(g) / 1e3:.1f} ms")
    for kind in ("scan", "encode"):
        d = [r[1] - r[0] for r in run if r[2] == kind]
        if d:
            print(f"  {kind} submissions: median {statistics.median(d):.1f} us, sum {sum(d) / 1e3:.1f} ms")
    by_pass = {}
    for r in run:
        for label, t in r[3]:
            by_pass.setdefault(label, []).append(t)
    print("  passes, median us: " + ", ".join(f"{label} {statistics.median(v):.1f}" for label, v in by_pass.items()))
