#!/usr/bin/env bash
# The committed build of the eighteenth pass (0d7a75c, never timed there as a whole)
# against the build before its frame_plan stage (aba1ea8, .device/*-old): the library's
# host-to-host compress of 1 GiB of system files (examples/stream_bench, output decoded
# before timing), three rounds alternating; the CLI's compress of 4 GiB from standard
# input to /dev/null, outputs checked first (gzip -dc, our decompress), three rounds
# alternating; then where the library's CPU goes now: a perf profile (by symbol and by
# thread) of six native and six gzip runs of the committed build. perf travels as
# .device/perf.tgz (the binary and the libraries it links). Its perf part segfaulted in
# that call: its perf.tgz carried the development machine's libc, which perf_tools now
# leaves out.
# There, from the project root, .device carried: bash scripts/h200-base19.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start base19
# The binaries travel gzipped (the call's 64 MiB limit).
for f in .device/*.gz; do gunzip -f "$f"; done
perf_tools
D=/tmp/parvlc-base19
sys_files "$D"
library_ab "$D/sys1g" 3
cli_compress_check "$D"
cli_compress_ab "$D" 3
report() {
  perf report -i "$1" --no-children --stdio --sort sym --percent-limit 0.5 2>/dev/null | grep -v '^#' | grep -v '^$' | head -45
  perf report -i "$1" --no-children --stdio --sort comm --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12
}
for f in native gzip; do
  echo "== perf: library, 1 GiB $f, six runs"
  perf record -F 1999 -g -o "$D/$f.data" -- env FORMAT=$f RUNS=5 .device/stream_bench "$D/sys1g" 2>&1 | tail -3
  report "$D/$f.data"
done
rm -rf "$D"
date -u
