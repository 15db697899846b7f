#!/usr/bin/env bash
# Twenty-seventh pass, first call: the run's start and end, and the front end's source
# read before its neighbours' edges. .device/parvlc-old (1ac43ce) against this build:
# streams compared first (960 frames of the 1080p pan, one slice and a slice per row);
# the front end's GPU time (h264_intra_bench, two rounds alternating, batches of 16 and
# 32); the CLI on 1920 frames to /dev/shm, three rounds alternating, one slice and a
# slice per row; then as a user without WGPU_BACKEND in the environment (the old build
# starts GL's EGL beside Vulkan); a debug-logged run of each build (where the start and
# the end go, the process's exit timed against the log's last line).
# There, from the project root, .device carried: bash scripts/h200-exit27.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start exit27
unpack_device
D=/dev/shm/parvlc-exit27
mkdir -p "$D"
pan_lengths "$D"
same_streams
same_streams --slice-rows 1
intra_bench_ab 2 auto 16,32
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall_fresh "$b, 1920 frames, run $r" ".device/$b h264 $D/p1920.y4m --qp 27"
    wall_fresh "$b, 1920 frames, a slice per row, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --slice-rows 1"
  done
done
for r in 1 2; do
  for b in parvlc-old parvlc; do
    wall_fresh "$b, 1920 frames, no WGPU_BACKEND, run $r" "env -u WGPU_BACKEND .device/$b h264 $D/p1920.y4m --qp 27"
  done
done
for b in parvlc-old parvlc; do
  for env in "" "env -u WGPU_BACKEND"; do
    echo "-- $b debug-logged ${env:-WGPU_BACKEND=vulkan}"
    rm -f "$D/x.264"
    /usr/bin/time -f "wall %e s" $env env RUST_LOG=parvlc=debug .device/$b h264 "$D/p1920.y4m" --qp 27 -o "$D/x.264" 2> "$D/log"
    grep -E "GPU opened|Wgpu opened|h264: |done after|GPU closing|wall" "$D/log" | cut -c 12-200
    python3 scripts/h264_timeline.py "$D/log" | tail -8
    gzip -c "$D/log" > "$OUT/exit27-$b${env:+-noenv}.log.gz"
  done
done
rm -rf "$D"
date -u
