#!/usr/bin/env bash
# What a chunk's GPU calls cost the library compress's host side: perf over the timed
# runs alone (stream_bench's PERF_CTL), 1 GiB of system files at the default shape,
# native: flat by shared object and by symbol, then inclusive (dwarf call graphs) for
# the wgpu calls and the coder's own steps. stream_bench decodes its output before timing.
# There, from the project root, .device carried: bash scripts/h200-wgpucost21.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start wgpucost21
unpack_device
perf_tools
D=/tmp/parvlc-wgpucost21
sys_1g "$D"
rm -f "$D/ctl"; mkfifo "$D/ctl"
echo "== native, flat"
perf record -F 1999 --control=fifo:"$D/ctl" -D -1 -o "$D/flat.data" -- env PERF_CTL="$D/ctl" FORMAT=native RUNS=8 .device/sb-new "$D/sys1g" 2>&1 | grep -v "^\[" | tail -1
perf report -i "$D/flat.data" --no-children --stdio --sort dso --percent-limit 0.5 2>/dev/null | grep -v '^#' | grep -v '^$' | head -20
perf report -i "$D/flat.data" --no-children --stdio --sort dso,sym --percent-limit 0.4 2>/dev/null | grep -v '^#' | grep -v '^$' | head -60
echo "== native, inclusive"
perf record -F 499 --call-graph dwarf,16384 --control=fifo:"$D/ctl" -D -1 -o "$D/cg.data" -- env PERF_CTL="$D/ctl" FORMAT=native RUNS=4 .device/sb-new "$D/sys1g" 2>&1 | grep -v "^\[" | tail -1
perf report -i "$D/cg.data" --children --stdio --sort sym --percent-limit 0.5 -g none 2>/dev/null | grep -v '^#' | grep -v '^$' \
  | grep -E 'wgpu|parvlc|memcpy|memmove|futex|pthread|poll|malloc|free|page_fault|mmap|munmap|ioctl' | head -90
date -u
