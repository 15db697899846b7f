#!/usr/bin/env bash
# Where the CPU goes in a compress: the machine's cores (lscpu), then a perf profile
# (by symbol and by thread) of the CLI's `compress -f gzip` of 4 GiB of system files from
# stdin to /dev/null and of the library's host-to-host compress of their first GiB
# (examples/stream_bench, five runs), and the library's per-chunk phases from its debug
# log. perf is staged into .device/perf (the binary and the libraries it links).
# There, from the project root, .device carried: bash scripts/h200-profile13.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start profile13
lscpu | grep -E "Model name|Thread|Core|Socket|MHz|L3"
D=/tmp/parvlc-profile13
sys_files "$D"
B=.device/parvlc
perf() { LD_LIBRARY_PATH=.device/perf/lib .device/perf/perf "$@"; }
echo -1 > /proc/sys/kernel/perf_event_paranoid 2>/dev/null
report() {
  perf report -i "$1" --no-children --stdio --sort sym --percent-limit 0.4 2>/dev/null | grep -v '^#' | grep -v '^$' | head -60
  perf report -i "$1" --no-children --stdio --sort comm --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | head -20
}
wall "gzip stdin" "$B compress -f gzip - -o - < $D/sys.tar"
wall "library 1 GiB x6" "RUNS=5 .device/stream_bench $D/sys1g"
echo "== perf: CLI gzip stdin"
perf record -F 1999 -o "$D/cli.data" -- sh -c "$B compress -f gzip - -o - < $D/sys.tar > /dev/null" 2>&1 | tail -1
report "$D/cli.data"
echo "== perf: library, 1 GiB, six runs"
perf record -F 1999 -o "$D/lib.data" -- env RUNS=5 .device/stream_bench "$D/sys1g" 2>&1 | tail -3
report "$D/lib.data"
echo "== library, debug-logged, one run after the checked one"
RUST_LOG=parvlc=debug RUNS=1 .device/stream_bench "$D/sys1g" 2>&1 | chunk_phases
rm -rf "$D"
date -u
