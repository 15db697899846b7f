#!/usr/bin/env bash
# The library's depth with the encode's output in place (dcdc120, sb-new): 10, 12, 14 and
# 16 coders on 1 GiB of system files, native and gzip, three rounds of six runs
# (stream_bench decodes its output before timing); then a perf profile (by object and
# symbol) of ten runs at the default depth, native and gzip.
# There, from the project root, .device carried: bash scripts/h200-depth22.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start depth22
unpack_device
perf_tools
D=/tmp/parvlc-depth22
sys_1g "$D"
for round in 1 2 3; do
  for f in native gzip; do
    echo "== round $round, $f"
    DEPTHS=10,12,14,16 FORMAT=$f RUNS=6 .device/sb-new "$D/sys1g" | tail -n 4
  done
done
for f in native gzip; do
  echo "== perf: library, 1 GiB $f, ten runs after the checked one"
  perf record -F 1999 -o "$D/$f.data" -- env FORMAT=$f RUNS=10 .device/sb-new "$D/sys1g" 2>&1 | tail -2
  perf report -i "$D/$f.data" --no-children --stdio --sort dso,sym --percent-limit 0.7 2>/dev/null | grep -v '^#' | grep -v '^$' | head -40
  perf report -i "$D/$f.data" --no-children --stdio --sort comm --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12
done
rm -rf "$D"
date -u
