#!/usr/bin/env bash
# JPEG 2000 first runs and warm runs on the GPU machine, per binary: each binary in
# BINS (default .device/parvlc) on a 4K, a 2K and a 1K RGB 8-bit picture with
#   cold:  no parvlc pipeline cache and no driver shader cache (a fresh machine), with the
#          debug log's pipeline build times
#   warm:  three runs, one-kernel and three-kernel tier-1
# every output compared with the CPU's codestream and decoded by opj_decompress where it
# is on PATH; opj_compress -M 1 beside it. Here: ../shared/device/stage --openjpeg.
# There, from the project root:  bash scripts/h200-j2k-cold.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/j2k-cold.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
BINS=${BINS:-.device/parvlc}
D=${DATA:-/tmp/parvlc-j2k}
mkdir -p "$D"
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
for pic in "4k 3840 2160" "2k 1920 1080" "1k 1024 1024"; do
  read -r name w h <<< "$pic"
  python3 scripts/ppm.py make "$D/$name.ppm" "$w" "$h"
done
wall() { # label, command...: one run's wall, user and sys seconds
  local label=$1; shift
  /usr/bin/time -f "$label	wall %e s	user %U s	sys %S s" "$@" 2>&1 >/dev/null | tail -1
}
P0=${BINS%% *}
for pic in 4k 2k 1k; do
  $P0 j2k --backend cpu "$D/$pic.ppm" -o "$D/$pic-cpu.j2k" --force 2>/dev/null
  if command -v opj_decompress >/dev/null; then
    opj_decompress -i "$D/$pic-cpu.j2k" -o "$D/$pic-back.ppm" >/dev/null 2>&1
    python3 scripts/ppm.py same "$D/$pic.ppm" "$D/$pic-back.ppm"
  fi
done
for P in $BINS; do
  echo "== $P"
  for strategy in one-kernel three-kernel; do
    export PARVLC_CACHE_DIR="$D/cache-$strategy"
    rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
    J=("$P" j2k --tier1 "$strategy" "$D/4k.ppm" -o "$D/4k.j2k" --force)
    RUST_LOG=parvlc=debug /usr/bin/time -f "4k $strategy cold	wall %e s" "${J[@]}" 2> "$D/cold.log" >/dev/null
    grep -o "pipeline parvlc.j2k.tier1[^ ]* .*built in.*" "$D/cold.log" | sed 's/\[.*\]//'
    tail -1 "$D/cold.log"
    cmp -s "$D/4k.j2k" "$D/4k-cpu.j2k" || echo "MISMATCH 4k $strategy"
    for pic in 4k 2k 1k; do
      J=("$P" j2k --tier1 "$strategy" "$D/$pic.ppm" -o "$D/$pic.j2k" --force)
      "${J[@]}" 2>/dev/null
      cmp -s "$D/$pic.j2k" "$D/$pic-cpu.j2k" || echo "MISMATCH $pic $strategy"
      for r in 1 2 3; do wall "$pic $strategy warm $r" "${J[@]}"; done
    done
    RUST_LOG=parvlc=debug "$P" j2k --tier1 "$strategy" "$D/4k.ppm" -o "$D/4k.j2k" --force 2>&1 | grep -e "read in" -e "opened in" -e "tier-1" -e "encoded in" | sed 's/^\[[^]]*\] //'
  done
done
for pic in 4k 2k 1k; do
  wall "$pic cpu" "$P0" j2k --backend cpu "$D/$pic.ppm" -o "$D/$pic-cpu.j2k" --force
  if command -v opj_compress >/dev/null; then
    for r in 1 2 3; do
      wall "$pic opj_compress -M 1 -threads $(nproc) $r" opj_compress -i "$D/$pic.ppm" -o "$D/$pic-opj.j2k" -M 1 -threads "$(nproc)"
    done
  fi
done
