#!/usr/bin/env bash
# Thirty-seventh pass (2026-12-01): a JPEG 2000 run's pipelines built side by side ahead
# of their use (Gpu::build_ahead: .device/parvlc-ahead) against one after the other as
# the run meets them (.device/parvlc-vbase, c5e3a04). The synthetic 4K RGB picture, Part 1
# and --ht: first runs (no parvlc pipeline cache, no driver shader cache), three rounds
# alternating, debug-logged (each pipeline's build, the encode's time); then warm runs,
# three rounds alternating; then thirty frames of each mode. Every codestream compared
# with the CPU's. There: bash scripts/h200-ahead37.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-ahead37}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
pic_and_cpu "$D" .device/parvlc-vbase
KEEP="opened|pipeline .*built|encoded in"
export PARVLC_CACHE_DIR=$D/cache
for round in 1 2 3; do
  for v in parvlc-ahead parvlc-vbase; do
    for mode in p1 ht; do
      flag=""; [ $mode = ht ] && flag=--ht
      echo "== cold, round $round, $v, $mode"
      rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
      RUST_LOG=parvlc=debug /usr/bin/time -f "cold $mode $v	wall %e s	user %U s	peak %M KiB" .device/$v j2k "$D/pic.ppm" -o "$D/x.j2k" --force $flag 2> "$D/log"
      python3 scripts/log_deltas.py "$D/log" "$KEEP"; tail -1 "$D/log"
      cmp "$D/x.j2k" "$D/cpu${flag:+-ht}.j2k" && echo "cold $mode $v: the CPU's codestream"
    done
  done
done
for round in 1 2 3; do
  for v in parvlc-ahead parvlc-vbase; do
    for mode in p1 ht; do
      flag=""; [ $mode = ht ] && flag=--ht
      wall "warm $mode $v, round $round" ".device/$v j2k $D/pic.ppm -o $D/x.j2k --force $flag"
      cmp "$D/x.j2k" "$D/cpu${flag:+-ht}.j2k" || echo "warm $mode $v: NOT the CPU's codestream"
    done
  done
done
pan_frames "$D" 30
mkdir -p "$D/seq"
for round in 1 2; do
  for v in parvlc-ahead parvlc-vbase; do
    wall "30 frames Part 1 $v, round $round" ".device/$v j2k $D/in/*.ppm -o $D/seq --force"
    wall "30 frames --ht $v, round $round" ".device/$v j2k $D/in/*.ppm -o $D/seq --force --ht"
  done
done
rm -rf "$D"
date -u
