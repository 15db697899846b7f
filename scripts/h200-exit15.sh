#!/usr/bin/env bash
# Fifteenth pass (2026-11-28): what the end of a one-picture `parvlc j2k` costs. An
# experiment build (.device/parvlc-exit, PARVLC_EXP_EXIT): unset drops the GPU as now
# (the debug log times the drop); `forget` writes the pipeline cache and leaves the GPU
# and the picture to the process's end; `_exit` also ends the process without its exit
# handlers. One 4K RGB picture, Part 1 and --ht, four runs of each alternating; the
# codestreams compared across the modes and decoded by opj_decompress first.
# There, from the project root, .device carried (staged with --openjpeg):
#   bash scripts/h200-exit15.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start exit15
B=.device/parvlc-exit
D=/tmp/parvlc-exit15
mkdir -p "$D"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
for ht in "" "--ht"; do
  $B j2k "$D/pic.ppm" -o "$D/ref.j2k" --force $ht 2>&1 | tail -1
  opj_decompress -i "$D/ref.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/pic.ppm" && echo "opj_decompress gives the source ($ht)"
  for mode in forget _exit; do
    PARVLC_EXP_EXIT=$mode $B j2k "$D/pic.ppm" -o "$D/x.j2k" --force $ht 2>/dev/null
    cmp -s "$D/x.j2k" "$D/ref.j2k" && echo "$mode: same codestream ($ht)" || echo "$mode: OTHER BYTES ($ht)"
  done
  for r in 1 2 3 4; do
    for mode in drop forget _exit; do
      wall "4K $ht, $mode, run $r" "PARVLC_EXP_EXIT=$mode $B j2k $D/pic.ppm -o $D/x.j2k --force $ht"
    done
  done
  for mode in drop forget _exit; do
    echo "-- debug, $mode $ht"
    PARVLC_EXP_EXIT=$mode RUST_LOG=parvlc=debug $B j2k "$D/pic.ppm" -o "$D/x.j2k" --force $ht 2>&1 | grep -E "opened in|encoded in|EXP|done after" | cut -c 30-200
  done
done
rm -rf "$D"
date -u
