#!/usr/bin/env bash
# Thirty-seventh pass (2026-12-01), the first runs again, more of them: the 4K picture's
# first run (no parvlc pipeline cache, no driver shader cache) with the pipelines built
# ahead side by side (.device/parvlc-ahead) against one after the other
# (.device/parvlc-vbase, c5e3a04), Part 1 and --ht, six rounds alternating (the order of
# the builds swapped every round); each run's wall by GNU time and its encode's time and
# longest compile from the debug log. There: bash scripts/h200-ahead37b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-ahead37b}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
pic_and_cpu "$D" .device/parvlc-vbase
export PARVLC_CACHE_DIR=$D/cache
for round in 1 2 3 4 5 6; do
  order="parvlc-ahead parvlc-vbase"
  [ $((round % 2)) = 0 ] && order="parvlc-vbase parvlc-ahead"
  for v in $order; do
    for mode in p1 ht; do
      flag=""; [ $mode = ht ] && flag=--ht
      rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
      RUST_LOG=parvlc=debug /usr/bin/time -f "%e" .device/$v j2k "$D/pic.ppm" -o "$D/x.j2k" --force $flag 2> "$D/log"
      cmp -s "$D/x.j2k" "$D/cpu${flag:+-ht}.j2k" || echo "cold $mode $v: NOT the CPU's codestream"
      enc=$(grep -o "encoded in [0-9.]* ms" "$D/log" | grep -o "[0-9.]*")
      longest=$(grep -o "built in [0-9.]* ms" "$D/log" | grep -o "[0-9.]*" | sort -n | tail -1)
      echo "round $round	$mode	$v	wall $(tail -1 "$D/log") s	encode $enc ms	longest compile $longest ms"
    done
  done
done
rm -rf "$D"
date -u
