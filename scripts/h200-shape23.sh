#!/usr/bin/env bash
# cuvle's launch shape with the modules built without runtime checks (52bc6fc): input
# words per invocation (--net), invocations per workgroup (--workgroup-size) and
# persistent workgroups (--resident), 1 GiB at 4.5 and 8 bits, decoupled look-back, GPU
# time; the bench checks every output before timing it. Two rounds, the default shape
# (16 x 256, 1024 resident) in each.
# There, from the project root, .device carried: bash scripts/h200-shape23.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start shape23
unpack_device
row() {
  echo -n "$* : "
  timeout 100 .device/parvlc bench --sizes 1073741824 --entropies 4.5,8 --strategies decoupled --no-baselines --cpu-max 0 --runs 3 "$@" 2>&1 \
    | grep -E "^  cuvle-decoupled +encode" | awk '{printf "%s ", $3}'
  echo
}
for round in 1 2; do
  row
  for shape in "8 256" "32 256" "16 128" "16 512" "8 512" "32 128"; do
    set -- $shape
    row --net "$1" --workgroup-size "$2"
  done
  for res in 512 2048 4096; do row --resident "$res"; done
done
date -u
