#!/usr/bin/env bash
# A coder's chunk, phase by phase (debug-logged, so slower), with the encode's output in
# place at the library's new depth (12) and at 10, native and gzip, on 1 GiB of system
# files (sb-new; stream_bench decodes its output before timing); the readback's map wait
# and copy from the same log.
# There, from the project root, .device carried: bash scripts/h200-phases22.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start phases22
unpack_device
D=/tmp/parvlc-phases22
sys_1g "$D"
for f in native gzip; do
  for depth in 12 10; do
    echo "== $f, depth $depth"
    RUST_LOG=parvlc=debug DEPTHS=$depth FORMAT=$f RUNS=2 .device/sb-new "$D/sys1g" 2>"$D/d.log" | tail -1
    chunk_phases < "$D/d.log"
    grep -o "mapped [0-9]* bytes after [0-9]* polls, [0-9.]* ms in them, of [0-9.]* ms" "$D/d.log" | awk '{p+=$5; w+=$(NF-1); n++} END {if (n) printf "  maps: %d, mean polls %.1f, mean wait %.3f ms\n", n, p/n, w/n}'
  done
done
rm -rf "$D"
date -u
