#!/usr/bin/env bash
# Where the H.264 CLI's host time goes at its defaults (2026-11-28): 240 frames of the
# 1080p pan at QP 27, a perf profile (symbols, libraries) and the process's counters.
# (Its one call: the staged perf crashed at start, so only the wall and the debug log's
# waits came back, benches/results/h200-2026-11-28-h264-profile.txt.)
# Here: perf and its libraries in .device/perf. There, from the project root, .device
# carried: bash scripts/h200-h264-profile.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264-profile
perf() { LD_LIBRARY_PATH=.device/perf/lib .device/perf/perf "$@"; }
echo -1 > /proc/sys/kernel/perf_event_paranoid 2>/dev/null
B=.device/parvlc
D=/tmp/parvlc-profile
mkdir -p "$D"
pan_y4m "$D/pan.y4m"
$B h264 "$D/pan.y4m" --qp 27 --force -o "$D/x.264" 2>/dev/null
wall "CLI defaults" "$B h264 $D/pan.y4m --qp 27 --force -o $D/x.264"
perf stat -e task-clock,context-switches,cpu-migrations,page-faults -- $B h264 "$D/pan.y4m" --qp 27 --force -o "$D/x.264" 2>&1 | grep -vE '^\s*$' | tail -12
perf record -F 1999 -o "$D/h.data" -- $B h264 "$D/pan.y4m" --qp 27 --force -o "$D/x.264" > /dev/null 2>&1
perf report -i "$D/h.data" --no-children --stdio --sort dso --percent-limit 1 2>/dev/null | grep -v '^$' | grep -v '^#' | head -20
perf report -i "$D/h.data" --no-children --stdio --sort sym --percent-limit 0.8 2>/dev/null | grep -v '^$' | grep -v '^#' | head -45
RUST_LOG=parvlc=debug $B h264 "$D/pan.y4m" --qp 27 --force -o "$D/x.264" 2>&1 | grep -E "coder waited|GPU opened|done after" | head -12 | cut -c 1-200
rm -rf "$D"
date -u
