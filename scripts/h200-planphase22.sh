#!/usr/bin/env bash
# A coder's plan and record phases taken apart (debug-logged): the GPU's plan read into
# frames, the frames' layout (gzip: each frame's DEFLATE header), and the encode's plan
# and tables; how many frames' GPU lengths were too deep (coded on the host); native and
# gzip at the library's depth (sb-dbg, this build), 1 GiB of system files.
# There, from the project root, .device carried: bash scripts/h200-planphase22.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start planphase22
unpack_device
D=/tmp/parvlc-planphase22
sys_1g "$D"
for f in native gzip; do
  for depth in 12 1; do
    echo "== $f, depth $depth"
    RUST_LOG=parvlc=debug DEPTHS=$depth FORMAT=$f RUNS=2 .device/sb-dbg "$D/sys1g" 2>"$D/d.log" | tail -1
    chunk_phases < "$D/d.log"
    python3 - "$D/d.log" <<'PY'
import re, sys, statistics as st
cols = {"frames": [], "submit call": [], "plan read": [], "layout": [], "tables": []}
deep = []
for line in open(sys.argv[1]):
    m = re.search(r"bytes, (\d+) frames: .*the submit call ([0-9.]+) ms; the GPU's plan read ([0-9.]+) ms, the frames' layout ([0-9.]+) ms, the encode's plan and tables ([0-9.]+) ms", line)
    if m:
        for k, v in zip(cols, m.groups()):
            cols[k].append(float(v))
    m = re.search(r"(\d+) of (\d+) frames deeper than", line)
    if m:
        deep.append(int(m.group(1)))
for k, v in cols.items():
    if v:
        print(f"  {k}: median {st.median(v):.3f}, p90 {sorted(v)[int(len(v)*0.9)]:.3f}")
print(f"  chunks with frames too deep: {len(deep)}, frames {sum(deep)}")
PY
  done
done
rm -rf "$D"
date -u
