#!/usr/bin/env bash
# compress_to_vec's chunks placed in the vector in order and copied by four threads of
# their own (.device/stream_bench), against the writer copying each batch on all cores
# (.device/stream_bench-batch, commit cccad79) and the session's starting build
# (.device/stream_bench-old): the library's host-to-host compress of 1 GiB of system
# files, native and gzip, alternating, CPU seconds a run beside the speed (the old
# build does not report them); then the per-chunk phases of a debug-logged run of the
# new build, and the CLI's gzip of 4 GiB (stdin to /dev/null) checked and timed. Every
# output is checked first (stream_bench decodes each shape's output before timing it).
# There, from the project root, .device carried: bash scripts/h200-place13.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start place13
D=/tmp/parvlc-place13
sys_files "$D"
for r in 1 2 3; do
  for b in stream_bench-old stream_bench-batch stream_bench; do
    echo "== $b round $r"
    RUNS=3 .device/$b "$D/sys1g" | tail -n +2
    FORMAT=gzip RUNS=3 .device/$b "$D/sys1g" | tail -n +2
  done
done
echo "== depths, new build"
DEPTHS=8,12,16 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
echo "== library, debug-logged (new build)"
RUST_LOG=parvlc=debug RUNS=1 .device/stream_bench "$D/sys1g" 2>&1 | chunk_phases
.device/parvlc compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "CLI gzip: gzip -dc gives the input"
for r in 1 2; do wall "CLI gzip stdin run $r" ".device/parvlc compress -f gzip - -o - < $D/sys.tar"; done
rm -rf "$D"
date -u
