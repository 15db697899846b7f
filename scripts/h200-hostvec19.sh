#!/usr/bin/env bash
# Ran an experiment build that was not kept (readback vectors by size class; see
# docs/results.md, "Nineteenth pass"): its measured benefit did not hold in a later call.
# Readback vectors sized by the buffers' size classes, a larger one kept in place of the
# smallest (this build) against 1b4e8bc (.device/*-old): the library's host-to-host
# compress of 1 GiB of system files (examples/stream_bench, output decoded before
# timing), native and gzip, three rounds alternating, with the process's page faults
# (perf stat); the library at depths 10, 12, 14 and 16; the CLI's compress of 4 GiB
# from standard input to /dev/null, outputs checked first (gzip -dc, our decompress),
# three rounds alternating.
# There, from the project root, .device carried: bash scripts/h200-hostvec19.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start hostvec19
for f in .device/*.gz; do gunzip -f "$f"; done
perf_tools
D=/tmp/parvlc-hostvec19
sys_files "$D"
for r in 1 2 3; do
  for b in stream_bench-old stream_bench; do
    for f in native gzip; do
      echo "== $b $f round $r"
      perf stat -e page-faults -x, -- env FORMAT=$f RUNS=3 .device/$b "$D/sys1g" 2>&1 | grep -E "GB/s|page-faults"
    done
  done
done
echo "== depths"
for b in stream_bench-old stream_bench; do
  for f in native gzip; do
    echo "-- $b $f"
    FORMAT=$f DEPTHS=10,12,14,16 RUNS=3 .device/$b "$D/sys1g" | tail -n +2
  done
done
cli_compress_check "$D"
cli_compress_ab "$D" 3
rm -rf "$D"
date -u
