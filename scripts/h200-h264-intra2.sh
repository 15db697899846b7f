#!/usr/bin/env bash
# Second H200 run of the GPU intra front end (after the I_NxN blocks went in waves of
# their own): the front end's GPU time by timestamps (examples/h264_intra_bench, batches
# of 16 1080p pictures), then 240 frames of the 1080p pan at QP 27 with `--luma auto` on
# the GPU front end, compared with `cmp` to the CPU front end's stream.
# There, from the project root, .device carried: bash scripts/h200-h264-intra2.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/h264-intra2.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
B=.device/parvlc
D=/tmp/parvlc-h264
mkdir -p "$D"
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
for luma in auto 16x16; do
  LUMA=$luma BATCHES=16 RUNS=2 .device/h264_intra_bench 1920 1080
done
python3 -c 'import sys; sys.path.insert(0, "scripts"); from h264_rd import write_pan
write_pan(1920, 1080, 240, sys.argv[1])' "$D/pan.y4m"
cat "$D/pan.y4m" > /dev/null
t() {
  /usr/bin/time -f "$1	wall %e s	user %U s	sys %S s	peak %M KiB" \
    $B h264 "$D/pan.y4m" --qp 27 --force "${@:2}" 2>&1 | tail -2
}
t "auto, CPU front end" -o "$D/cpu.264" --luma auto --front-end cpu
for r in 1 2; do
  t "auto, GPU front end, depth 16, run $r" -o "$D/gpu.264" --luma auto --depth 16
  cmp "$D/gpu.264" "$D/cpu.264" && echo "auto: GPU front end bytes == CPU front end bytes"
done
t "auto, GPU front end, depth 8" -o "$D/gpu8.264" --luma auto
cmp "$D/gpu8.264" "$D/cpu.264" && echo "depth 8: the same bytes"
date -u
