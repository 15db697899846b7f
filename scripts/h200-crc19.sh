#!/usr/bin/env bash
# The block_crc stage a workgroup a block (each invocation a run of the block's words,
# the registers shifted and XORed) against one invocation a block (.device/*-old: the
# session's first build, 0d7a75c with the trace-level GPU timeline): the GPU timeline of
# a trace-logged library compress (scripts/gpu_timeline.py), native and gzip, 1 GiB of
# system files; the library's host-to-host compress (examples/stream_bench, output
# decoded before timing), three rounds alternating; the CLI's compress of 4 GiB from
# standard input to /dev/null, outputs checked first (gzip -dc, our decompress), three
# rounds alternating; a perf profile of ten library runs (by object and symbol).
# There, from the project root, .device carried: bash scripts/h200-crc19.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start crc19
for f in .device/*.gz; do gunzip -f "$f"; done
perf_tools
D=/tmp/parvlc-crc19
sys_files "$D"
for b in stream_bench-old stream_bench; do
  for f in native gzip; do
    echo "== $b library $f, trace-logged"
    RUST_LOG=parvlc=trace FORMAT=$f RUNS=2 .device/$b "$D/sys1g" 2>"$D/t.log" | tail -n +2
    python3 scripts/gpu_timeline.py "$D/t.log" | tail -9
  done
done
library_ab "$D/sys1g" 3
echo "== 8 MiB x 10"
for b in stream_bench-old stream_bench; do
  CHUNKS_MIB=8 RUNS=3 .device/$b "$D/sys1g" | tail -n +2
  FORMAT=gzip CHUNKS_MIB=8 RUNS=3 .device/$b "$D/sys1g" | tail -n +2
done
cli_compress_check "$D"
cli_compress_ab "$D" 3
for f in native gzip; do
  echo "== perf: library, 1 GiB $f, ten runs after the checked one"
  perf record -F 1999 -o "$D/$f.data" -- env FORMAT=$f RUNS=10 .device/stream_bench "$D/sys1g" 2>&1 | tail -3
  perf report -i "$D/$f.data" --no-children --stdio --sort dso,sym --percent-limit 0.7 2>/dev/null | grep -v '^#' | grep -v '^$' | head -40
done
rm -rf "$D"
date -u
