#!/usr/bin/env bash
# Where the library's host-to-host compress spends its CPU (issue 13): perf over the
# timed runs alone (stream_bench's PERF_CTL), 1 GiB of system files at the default shape,
# native and gzip: by symbol, by shared object, by thread; then the callers of the
# top symbols (dwarf call graphs). stream_bench decodes its output before timing.
# There, from the project root, .device carried: bash scripts/h200-profile20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start profile20
unpack_device
perf_tools
D=/tmp/parvlc-profile20
sys_1g "$D"
rm -f "$D/ctl"; mkfifo "$D/ctl"
for f in native gzip; do
  echo "== $f, flat"
  perf record -F 1999 -a --control=fifo:"$D/ctl" -D -1 -o "$D/$f.data" -- env PERF_CTL="$D/ctl" FORMAT=$f RUNS=8 .device/sb "$D/sys1g" 2>&1 | grep -v "^\[" | tail -2
  perf report -i "$D/$f.data" --no-children --stdio --sort dso,sym --percent-limit 0.7 2>/dev/null | grep -v '^#' | grep -v '^$' | head -40
  perf report -i "$D/$f.data" --no-children --stdio --sort comm --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12
done
echo "== native, call graphs"
perf record -F 499 --call-graph dwarf,12288 --control=fifo:"$D/ctl" -D -1 -o "$D/cg.data" -- env PERF_CTL="$D/ctl" FORMAT=native RUNS=4 .device/sb "$D/sys1g" 2>&1 | grep -v "^\[" | tail -1
perf report -i "$D/cg.data" --no-children --stdio --sort sym --percent-limit 3 -G 2>/dev/null | grep -v '^#' | grep -v '^$' | head -150
date -u
