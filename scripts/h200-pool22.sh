#!/usr/bin/env bash
# Readbacks of 256 KiB and more into recycled host vectors, and a pool of 32 (sb-pool)
# against fresh vectors below 4 MiB and a pool of 4 (dcdc120, sb-new), at 10 coders, and
# sb-pool at 12, alternating in one call: the library's 1 GiB of system files, native and
# gzip, three rounds of six runs (stream_bench decodes its output before timing); then a
# perf profile (by object and symbol) of sb-pool's ten runs, native.
# There, from the project root, .device carried: bash scripts/h200-pool22.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start pool22
unpack_device
perf_tools
D=/tmp/parvlc-pool22
sys_1g "$D"
for round in 1 2 3; do
  for f in native gzip; do
    for v in "sb-new 10" "sb-pool 10" "sb-pool 12"; do
      set -- $v
      echo -n "round $round, $f, $1: "
      DEPTHS=$2 FORMAT=$f RUNS=6 ".device/$1" "$D/sys1g" | tail -1
    done
  done
done
for b in sb-new sb-pool; do
  echo "== perf: $b, 1 GiB native, ten runs after the checked one"
  perf record -F 1999 -o "$D/$b.data" -- env RUNS=10 .device/$b "$D/sys1g" 2>&1 | tail -1
  perf report -i "$D/$b.data" --no-children --stdio --sort dso,sym --percent-limit 0.9 2>/dev/null | grep -v '^#' | grep -v '^$' | head -24
done
rm -rf "$D"
date -u
