#!/usr/bin/env bash
# The GPU decoder (vld) by block size, on the GPU machine: `parvlc bench` at 1 GiB and
# 4.5 bits for block-inputs of workgroup size x NET words (16, 4, 2 and 1 KiB); the vld
# rows decode native frames of that block size (one invocation per block), the cuvle
# rows encode with it. Every row's output is checked before it is timed (the bench's
# rule). There, from the project root, .device carried:  bash scripts/h200-vld-blocks.sh
# Writes $OUT/vld-blocks.txt and one JSON lines file per configuration.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/vld-blocks.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
P=${PARVLC:-.device/parvlc}
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for cfg in "256 16" "256 4" "128 4" "64 4"; do
  read -r wg net <<< "$cfg"
  echo "== workgroup $wg, NET $net: blocks of $((wg * net * 4)) bytes"
  "$P" bench --backend wgpu --sizes 1073741824 --entropies 4.5 --workgroup-size "$wg" --net "$net" \
    --strategies decoupled --no-baselines --cpu-max 0 --runs 3 --json "$OUT/bench-wg$wg-net$net.jsonl" 2>&1 \
    | grep -E "cuvle|vld|stream" | head -12
done
