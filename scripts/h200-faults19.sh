#!/usr/bin/env bash
# Where the library's host CPU goes after the block_crc change (1b4e8bc): page faults and
# CPU of the host-to-host compress of 1 GiB of system files (examples/stream_bench,
# output decoded before timing) by `perf stat`, for the committed build and an
# experiment build keeping 32 readback vectors for reuse instead of 4
# (.device/stream_bench-exp, HOST_POOL_MAX = 32 in src/gpu/pool.rs), alternating; then
# the committed build's page faults and its memcpy's samples by call chain (perf record
# --call-graph dwarf), native.
# There, from the project root, .device carried: bash scripts/h200-faults19.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start faults19
for f in .device/*.gz; do gunzip -f "$f"; done
perf_tools
D=/tmp/parvlc-faults19
sys_files "$D"
for r in 1 2; do
  for b in stream_bench stream_bench-exp; do
    for f in native gzip; do
      echo "== $b $f round $r"
      perf stat -e page-faults,task-clock -x, -- env FORMAT=$f RUNS=5 .device/$b "$D/sys1g" 2>&1 | grep -E "GB/s|page-faults|task-clock"
    done
  done
done
echo "== page faults by call chain, native, committed build"
perf record -e page-faults -c 10 --call-graph dwarf,8192 -o "$D/pf.data" -- env RUNS=3 .device/stream_bench "$D/sys1g" 2>&1 | tail -2
perf report -i "$D/pf.data" --no-children --stdio --percent-limit 3 -G 2>/dev/null | grep -v '^#' | grep -v '^$' | head -120
echo "== CPU by call chain, native, committed build"
perf record -F 499 --call-graph dwarf,8192 -o "$D/cpu.data" -- env RUNS=3 .device/stream_bench "$D/sys1g" 2>&1 | tail -2
perf report -i "$D/cpu.data" --no-children --stdio --percent-limit 4 -G 2>/dev/null | grep -v '^#' | grep -v '^$' | head -150
rm -rf "$D"
date -u
