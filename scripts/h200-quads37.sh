#!/usr/bin/env bash
# Thirty-seventh pass (2026-12-01): the HT kernel with one call site each of code_quad,
# quad_v and stage_quad (a pair's quads in a loop; .device/parvlc-quads) against two
# (.device/parvlc-head, the pass's build before it): its first-run compile (no parvlc
# pipeline cache, no driver shader cache), six rounds alternating; then the kernel warmed
# (`bench j2k --warm-up 1`) and the CLI warm, both builds. Every codestream compared
# with the CPU's. There: bash scripts/h200-quads37.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-quads37}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
pic_and_cpu "$D" .device/parvlc-head
export PARVLC_CACHE_DIR=$D/cache
for round in 1 2 3 4 5 6; do
  order="parvlc-quads parvlc-head"
  [ $((round % 2)) = 0 ] && order="parvlc-head parvlc-quads"
  for v in $order; do
    rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
    RUST_LOG=parvlc=debug /usr/bin/time -f "%e" .device/$v j2k "$D/pic.ppm" -o "$D/x.j2k" --force --ht 2> "$D/log"
    cmp -s "$D/x.j2k" "$D/cpu-ht.j2k" || echo "cold $v: NOT the CPU's codestream"
    enc=$(grep -o "encoded in [0-9.]* ms" "$D/log" | grep -o "[0-9.]*")
    ht=$(grep "ht_cleanup.main.*built in" "$D/log" | grep -o "built in [0-9.]* ms" | grep -o "[0-9.]*")
    echo "round $round	$v	wall $(tail -1 "$D/log") s	encode $enc ms	ht_cleanup compiled in $ht ms"
  done
done
for round in 1 2; do
  for v in parvlc-quads parvlc-head; do
    echo "== bench j2k, $v, round $round"
    .device/$v bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 --warm-up 1 2>&1 | grep -E "ht_cleanup|error|panic"
    for r in 1 2 3; do
      wall "warm --ht $v, round $round.$r" ".device/$v j2k $D/pic.ppm -o $D/x.j2k --force --ht"
    done
    cmp -s "$D/x.j2k" "$D/cpu-ht.j2k" || echo "warm $v: NOT the CPU's codestream"
  done
done
rm -rf "$D"
date -u
