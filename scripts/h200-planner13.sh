#!/usr/bin/env bash
# (examples/zz_limit_probe was a throwaway probe of this session, not committed.)
# Why the planner is three times slower per frame on the GPU machine than on the
# development machine: each piece of planning per frame (one core), and a perf profile of
# the planner alone (examples/plan_bench, one core) on 1 GiB of system files.
# There, from the project root, .device carried: bash scripts/h200-planner13.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start planner13
D=/tmp/parvlc-planner13
mkdir -p "$D"
for _ in 1 2; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 268435456 > "$D/sys256m"
RAYON_NUM_THREADS=1 .device/zz_limit_probe "$D/sys256m"
RAYON_NUM_THREADS=1 .device/zz_limit_probe "$D/sys256m"
perf() { LD_LIBRARY_PATH=.device/perf/lib .device/perf/perf "$@"; }
echo -1 > /proc/sys/kernel/perf_event_paranoid 2>/dev/null
RAYON_NUM_THREADS=1 perf record -F 4999 -o "$D/p.data" -- .device/plan_bench "$D/sys256m" 2>&1 | grep -v "^\["
perf report -i "$D/p.data" --no-children --stdio --sort sym --percent-limit 0.7 2>/dev/null | grep -v '^#' | grep -v '^$' | head -30
perf stat -e cycles,instructions,cache-misses,L1-dcache-load-misses -- env RAYON_NUM_THREADS=1 .device/plan_bench "$D/sys256m" 2>&1 | tail -14
rm -rf "$D"
date -u
