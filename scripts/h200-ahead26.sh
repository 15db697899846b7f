#!/usr/bin/env bash
# How far the Y4M readers read ahead, and how many read: .device/parvlc-exp (this build
# with PARVLC_Y4M_AHEAD and PARVLC_Y4M_READERS read from the environment, an experiment)
# beside .device/parvlc (16 ahead, 4 readers) and .device/parvlc-old (64c627b); 1920
# frames of the 1080p pan at QP 27 to /dev/shm, the output of the run before removed
# first (replacing a 1.46 GB file on tmpfs costs the rename about 0.16 s), three rounds
# alternating; trace-logged runs for the GPU's time a batch.
# There, from the project root, .device carried: bash scripts/h200-ahead26.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start ahead26
unpack_device
D=/dev/shm/parvlc-ahead26
mkdir -p "$D"
pan_lengths "$D"
for r in 1 2 3; do
  wall_fresh "old, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27"
  wall_fresh "new, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27"
  wall_fresh "old, replacing the output, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27 --force"
  for ahead in 32 64; do
    wall_fresh "exp, ahead $ahead, run $r" "PARVLC_Y4M_AHEAD=$ahead .device/parvlc-exp h264 $D/p1920.y4m --qp 27"
  done
  wall_fresh "exp, ahead 64, 8 readers, run $r" "PARVLC_Y4M_AHEAD=64 PARVLC_Y4M_READERS=8 .device/parvlc-exp h264 $D/p1920.y4m --qp 27"
  wall_fresh "new, a slice per row, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 --slice-rows 1"
  wall_fresh "exp, ahead 64, a slice per row, run $r" "PARVLC_Y4M_AHEAD=64 .device/parvlc-exp h264 $D/p1920.y4m --qp 27 --slice-rows 1"
done
for v in "parvlc:" "parvlc-exp:PARVLC_Y4M_AHEAD=64"; do
  b=${v%%:*}; e=${v#*:}
  echo "-- $b $e, 1920 frames, trace-logged"
  rm -f "$D/x.264"
  env $e RUST_LOG=parvlc=trace ".device/$b" h264 "$D/p1920.y4m" --qp 27 -o "$D/x.264" 2> "$D/$b.log"
  grep -E "Wgpu opened|h264: |done after" "$D/$b.log"
  batch_phases "$D/$b.log"
  gpu_batch_times "$D/$b.log"
done
gzip -c "$D/parvlc-exp.log" > "$OUT/ahead26-trace.log.gz"
rm -rf "$D"
date -u
