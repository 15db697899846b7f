#!/usr/bin/env bash
# (An experiment build: PARVLC_CODER_THREADS, the threads of each GPU coder's own pool,
# was a knob; the committed build has one.)
# A coder's planning over two or three threads of its own (its regions in parallel)
# against one, at depths 8, 10 and 12: the library's host-to-host compress of 1 GiB of
# system files (CPU seconds a run beside its speed) and the CLI's compress of 4 GiB from
# stdin to /dev/null, alternating.
# There, from the project root, .device carried: bash scripts/h200-coderpool13.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start coderpool13
D=/tmp/parvlc-coderpool13
sys_files "$D"
for r in 1 2; do
  for t in 1 2 3; do
    echo "== coder threads $t round $r"
    PARVLC_CODER_THREADS=$t DEPTHS=8,10,12 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
    PARVLC_CODER_THREADS=$t FORMAT=gzip RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
  done
done
for r in 1 2; do
  for t in 1 2; do
    for d in 8 10; do
      wall "CLI gzip threads $t depth $d run $r" "PARVLC_CODER_THREADS=$t .device/parvlc compress -f gzip --depth $d - -o - < $D/sys.tar"
    done
  done
done
rm -rf "$D"
date -u
