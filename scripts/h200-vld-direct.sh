#!/usr/bin/env bash
# The vld kernel, two builds side by side on the GPU machine: `.device/parvlc-exp` (the
# build before, with the experiment switch EXP_MAIN=1 that forces its direct entry; the
# patch is benches/results/h200-2026-11-24-vld-experiments.patch) and `.device/parvlc`,
# twice each, 64 MiB and 1 GiB at 4.5 and 7 bits. Every row's output is checked before it
# is timed (the bench's best_checked). Run there: bash scripts/h200-vld-direct.sh
source .device/env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
for round in 1 2; do
for cfg in "parvlc-exp" "parvlc-exp EXP_MAIN=1" "parvlc"; do
  set -- $cfg
  echo "== $cfg (round $round)"
  env $2 ./.device/$1 bench --sizes 67108864,1073741824 --entropies 4.5,7 --strategies decoupled \
    --no-baselines --cpu-max 0 --runs 3 --json "$OUT/vld-$1${2:+-main}-$round.jsonl" 2>&1 | grep "vld "
done
done
