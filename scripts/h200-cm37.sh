#!/usr/bin/env bash
# Thirty-seventh pass (2026-12-01): the three-kernel tier-1's `cm` with one call site of
# the passes' walks (plane_to_scratch: the raw walks and the pairs' steps in one loop;
# .device/parvlc-cm, built with benches/results/h200-2026-12-01-cm37-exp.patch, not kept)
# against two (.device/parvlc-quads, the pass's build before it): its
# first-run compile (no parvlc pipeline cache, no driver shader cache), six rounds
# alternating, Part 1 of the 4K picture; then tier-1 warmed (`bench j2k --warm-up 1`)
# and the CLI warm, both builds. Every codestream compared with the CPU's.
# There: bash scripts/h200-cm37.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-cm37}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
pic_and_cpu "$D" .device/parvlc-quads
export PARVLC_CACHE_DIR=$D/cache
for round in 1 2 3 4 5 6; do
  order="parvlc-cm parvlc-quads"
  [ $((round % 2)) = 0 ] && order="parvlc-quads parvlc-cm"
  for v in $order; do
    rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
    RUST_LOG=parvlc=debug /usr/bin/time -f "%e" .device/$v j2k "$D/pic.ppm" -o "$D/x.j2k" --force 2> "$D/log"
    cmp -s "$D/x.j2k" "$D/cpu.j2k" || echo "cold $v: NOT the CPU's codestream"
    enc=$(grep -o "encoded in [0-9.]* ms" "$D/log" | grep -o "[0-9.]*")
    ht=$(grep "tier1_split.cm .*built in" "$D/log" | grep -o "built in [0-9.]* ms" | grep -o "[0-9.]*")
    echo "round $round	$v	wall $(tail -1 "$D/log") s	encode $enc ms	cm compiled in $ht ms"
  done
done
for round in 1 2; do
  for v in parvlc-cm parvlc-quads; do
    echo "== bench j2k, $v, round $round"
    .device/$v bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 --warm-up 1 2>&1 | grep -E "three-kernel|tier1-fast|error|panic"
    for r in 1 2 3; do
      wall "warm Part 1 $v, round $round.$r" ".device/$v j2k $D/pic.ppm -o $D/x.j2k --force"
    done
    cmp -s "$D/x.j2k" "$D/cpu.j2k" || echo "warm $v: NOT the CPU's codestream"
  done
done
rm -rf "$D"
date -u
