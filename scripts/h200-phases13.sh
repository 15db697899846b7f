#!/usr/bin/env bash
# Where a chunk's time goes at the defaults (a thread of its own per coder, depth 10,
# chunks of 4 MiB), for the CLI and for the library: one debug-logged `compress -f gzip`
# of 4 GiB of system files from stdin to /dev/null, and one debug-logged library
# compress of their first GiB (examples/stream_bench), per-chunk medians and sums of each
# phase, with timed runs beside them.
# There, from the project root, .device carried: bash scripts/h200-phases13.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start phases13
D=/tmp/parvlc-phases13
sys_files "$D"
B=.device/parvlc
for r in 1 2; do wall "gzip stdin, run $r" "$B compress -f gzip - -o - < $D/sys.tar"; done
echo "== CLI, debug-logged"
RUST_LOG=parvlc=debug "$B" compress -f gzip - -o - < "$D/sys.tar" 2>&1 >/dev/null | chunk_phases
echo "== library host to host, 1 GiB, best of 3"
DEPTHS=10,16 CHUNKS_MIB=4,8 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
echo "== library, debug-logged (depth 10, 4 MiB; every run of the bench)"
RUST_LOG=parvlc=debug RUNS=1 .device/stream_bench "$D/sys1g" 2>&1 | chunk_phases
rm -rf "$D"
date -u
