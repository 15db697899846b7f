#!/usr/bin/env bash
# (2026-11-28, twelfth pass: the knobs PARVLC_DEC_N, PARVLC_DEC_MIB and PARVLC_DEC_POOL
# were an uncommitted experiment build.)
# The GPU decoder of native files by decoders, batch size, and each decoder's host work
# (payload reads, tables, checks) on a rayon pool of its own of N threads against
# rayon's shared pool: 4 GiB of system files compressed once, decoded to /dev/null,
# alternating, every variant's output compared with the input first.
# There, from the project root, .device carried: bash scripts/h200-decode-pools.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start decode-pools
D=/tmp/parvlc-decode-pools
sys_files "$D"
B=.device/parvlc
"$B" compress -f native - -o "$D/f.pvlc" --force < "$D/sys.tar" 2>&1 | tail -1
VARIANTS=("X=1" "PARVLC_DEC_POOL=4" "PARVLC_DEC_N=3 PARVLC_DEC_POOL=4" "PARVLC_DEC_N=4 PARVLC_DEC_MIB=16 PARVLC_DEC_POOL=2"
  "PARVLC_DEC_N=4 PARVLC_DEC_POOL=3" "PARVLC_DEC_N=6 PARVLC_DEC_MIB=16 PARVLC_DEC_POOL=2" "PARVLC_DEC_N=3")
for v in "${VARIANTS[@]}"; do
  env $v "$B" decompress --backend wgpu "$D/f.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "[$v] gives the input"
done
for r in 1 2 3; do
  for v in "${VARIANTS[@]}"; do
    wall "decompress wgpu [$v] $r" "env $v $B decompress --backend wgpu $D/f.pvlc -o -"
  done
done
for r in 1 2; do
  wall "decompress cpu $r" "$B decompress --backend cpu $D/f.pvlc -o -"
done
rm -rf "$D"
date -u
