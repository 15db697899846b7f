#!/usr/bin/env bash
# HTJ2K (Part 15, reversible) on the GPU machine, files in and files out, wall clock: a
# 4K and a 2K RGB 8-bit picture through `parvlc j2k --ht` (all on the GPU; with
# --ht-cpu the HT coder on the CPU's cores beside the GPU front end; with --backend cpu
# all on the CPU), our Part 1 fast mode on the GPU,
# `ojph_compress -reversible true` (OpenJPH, the issue's CPU anchor) and `opj_compress -M 1`
# on all cores, in one run. Our HT outputs are decoded by ojph_expand and opj_decompress
# and compared with the source before anything is timed. Here: ../shared/device/stage
# --openjpeg, plus the openjph-tools and libopenjph debs in .device/debs.
# There, from the project root:  bash scripts/h200-htj2k.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/htj2k.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
P=${P:-.device/parvlc}
RUNS=${RUNS:-3}
D=${DATA:-/tmp/parvlc-ht}
mkdir -p "$D"
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
wall() { # label, command...: one run's wall, user and sys seconds
  local label=$1; shift
  /usr/bin/time -f "$label	wall %e s	user %U s	sys %S s" "$@" 2>&1 >/dev/null | tail -1
}
for pic in "4k 3840 2160" "2k 1920 1080"; do
  read -r name w h <<< "$pic"
  python3 scripts/ppm.py make "$D/$name.ppm" "$w" "$h"
  $P j2k --ht --backend cpu "$D/$name.ppm" -o "$D/$name-ht.j2k" --force 2>/dev/null
  $P j2k --ht "$D/$name.ppm" -o "$D/$name-ht-gpu.j2k" --force 2>/dev/null
  cmp "$D/$name-ht.j2k" "$D/$name-ht-gpu.j2k" && echo "$name: --ht on the GPU writes the CPU's bytes"
  ojph_expand -i "$D/$name-ht.j2k" -o "$D/$name-back.ppm" >/dev/null 2>&1
  python3 scripts/ppm.py same "$D/$name.ppm" "$D/$name-back.ppm" && echo "$name: ojph_expand gives the source"
  opj_decompress -i "$D/$name-ht.j2k" -o "$D/$name-back.ppm" >/dev/null 2>&1
  python3 scripts/ppm.py same "$D/$name.ppm" "$D/$name-back.ppm" && echo "$name: opj_decompress gives the source"
  ojph_compress -i "$D/$name.ppm" -o "$D/$name-ojph.j2c" -reversible true -num_decomps 5 -block_size "{64,64}" >/dev/null 2>&1
  echo "$name sizes: ours $(stat -c %s "$D/$name-ht.j2k"), ojph_compress $(stat -c %s "$D/$name-ojph.j2c") bytes"
  for r in $(seq "$RUNS"); do
    wall "$name parvlc j2k --ht --backend cpu $r" "$P" j2k --ht --backend cpu "$D/$name.ppm" -o "$D/$name-ht.j2k" --force
    wall "$name parvlc j2k --ht (GPU) $r" "$P" j2k --ht "$D/$name.ppm" -o "$D/$name-ht.j2k" --force
    wall "$name parvlc j2k --ht --ht-cpu (GPU front end) $r" "$P" j2k --ht --ht-cpu "$D/$name.ppm" -o "$D/$name-ht.j2k" --force
    wall "$name parvlc j2k (Part 1, GPU) $r" "$P" j2k "$D/$name.ppm" -o "$D/$name-p1.j2k" --force
    wall "$name ojph_compress -reversible true $r" ojph_compress -i "$D/$name.ppm" -o "$D/$name-ojph.j2c" -reversible true -num_decomps 5 -block_size "{64,64}"
    wall "$name opj_compress -M 1 -threads $(nproc) $r" opj_compress -i "$D/$name.ppm" -o "$D/$name-opj.j2k" -M 1 -threads "$(nproc)"
  done
done
rm -rf "$D"
