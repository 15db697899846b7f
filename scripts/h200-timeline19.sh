#!/usr/bin/env bash
# Where the library's host-to-host compress waits (issue 13, 15 GB/s): the GPU's
# timeline of a trace-logged run (scripts/gpu_timeline.py: each chunk's scan and encode
# submissions on the GPU's clock, the time inside them and between them), native and
# gzip, 1 GiB of system files at the library's default shape and at 8 MiB x 10; the
# CLI's compress of 4 GiB from standard input likewise; then a perf profile (by symbol
# and by thread) of the library's runs. stream_bench decodes its output before timing.
# perf travels as .device/perf.tgz (the binary and the libraries it links, not libc).
# There, from the project root, .device carried: bash scripts/h200-timeline19.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start timeline19
for f in .device/*.gz; do gunzip -f "$f"; done
perf_tools
D=/tmp/parvlc-timeline19
sys_files "$D"
for f in native gzip; do
  for c in 4 8; do
    echo "== library $f, chunks of $c MiB, depth 10, trace-logged"
    RUST_LOG=parvlc=trace FORMAT=$f CHUNKS_MIB=$c RUNS=2 .device/stream_bench "$D/sys1g" 2>"$D/t.log" | tail -n +2
    python3 scripts/gpu_timeline.py "$D/t.log"
  done
done
echo "== library without the trace, for comparison"
for f in native gzip; do FORMAT=$f CHUNKS_MIB=4,8 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2; done
echo "== CLI gzip, 4 GiB stdin, trace-logged"
RUST_LOG=parvlc=trace .device/parvlc compress -f gzip - -o - < "$D/sys.tar" 2>"$D/c.log" >/dev/null
grep -E "GB/s" "$D/c.log" | tail -2
python3 scripts/gpu_timeline.py "$D/c.log"
report() {
  perf report -i "$1" --no-children --stdio --sort sym --percent-limit 0.5 2>/dev/null | grep -v '^#' | grep -v '^$' | head -45
  perf report -i "$1" --no-children --stdio --sort comm --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12
}
for f in native gzip; do
  echo "== perf: library, 1 GiB $f, six runs"
  perf record -F 1999 -o "$D/$f.data" -- env FORMAT=$f RUNS=5 .device/stream_bench "$D/sys1g" 2>&1 | tail -3
  report "$D/$f.data"
done
rm -rf "$D"
date -u
