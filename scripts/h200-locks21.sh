#!/usr/bin/env bash
# Where the library compress's host side waits on wgpu: a debug-logged build (the submit
# calls of a chunk's scan and encode timed alone, and every readback's polls counted and
# timed; sb-new, this build) on the library's 1 GiB of system files at its default
# shape, native and gzip, two runs each (stream_bench decodes its output before timing):
# the submit calls' and the polls' distributions.
# There, from the project root, .device carried: bash scripts/h200-locks21.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start locks21
unpack_device
D=/tmp/parvlc-locks21
sys_1g "$D"
for f in native gzip; do
  echo "== $f"
  RUST_LOG=parvlc=debug FORMAT=$f RUNS=2 .device/sb-new "$D/sys1g" 2>"$D/l.log" | tail -1
  chunk_phases < "$D/l.log"
  python3 - "$D/l.log" <<'PY'
import re, statistics as st, sys
scan, enc, polls, in_poll, wait = [], [], [], [], []
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"scan submitted in ([\d.]+) ms", line)
    if m: scan.append(float(m[1]))
    m = re.search(r"the submit call ([\d.]+) ms", line)
    if m: enc.append(float(m[1]))
    m = re.search(r"mapped (\d+) bytes after (\d+) polls, ([\d.]+) ms in them, of ([\d.]+) ms", line)
    if m:
        polls.append(int(m[2])); in_poll.append(float(m[3])); wait.append(float(m[4]))
def show(name, v):
    if v:
        s = sorted(v)
        print(f"  {name}: {len(v)}, median {st.median(v):.3f}, p90 {s[int(len(s)*0.9)]:.3f}, max {s[-1]:.3f}, sum {sum(v):.1f}")
show("scan submit call, ms", scan)
show("encode submit call, ms", enc)
show("polls a readback", polls)
show("ms in polls a readback", in_poll)
show("ms a readback's wait", wait)
PY
done
date -u
