#!/usr/bin/env bash
# (2026-11-28, twelfth pass: PARVLC_GZ_N and PARVLC_GZ_POOL were an uncommitted
# experiment build.)
# Two probes: the library's host-to-host compress (examples/stream_bench, which checks
# each shape's output first) by depth and chunk size on the first GiB of system files;
# and the GPU decoder of our gzip by decoders and pools of their own (as the native
# decoder's), against the CPU default, 4 GiB to /dev/null, alternating.
# There, from the project root, .device carried: bash scripts/h200-lib-gzip12.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start lib-gzip12
D=/tmp/parvlc-lib-gzip12
sys_files "$D"
echo "== library host to host, 1 GiB, best of 3"
DEPTHS=10,16,24 CHUNKS_MIB=2,4 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
FORMAT=gzip DEPTHS=10,16 CHUNKS_MIB=4 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
B=.device/parvlc
"$B" compress -f gzip - -o "$D/f.gz" --force < "$D/sys.tar" 2>&1 | tail -1
VARIANTS=("X=1|--backend cpu" "X=1|--backend wgpu" "PARVLC_GZ_N=4 PARVLC_GZ_POOL=2|--backend wgpu" "PARVLC_GZ_N=6 PARVLC_GZ_POOL=2|--backend wgpu")
for v in "${VARIANTS[@]}"; do
  env ${v%%|*} "$B" decompress ${v#*|} "$D/f.gz" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "[$v] gives the input"
done
for r in 1 2 3; do
  for v in "${VARIANTS[@]}"; do
    wall "decompress gzip [$v] $r" "env ${v%%|*} $B decompress ${v#*|} $D/f.gz -o -"
  done
done
rm -rf "$D"
date -u
