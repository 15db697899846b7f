#!/usr/bin/env bash
# The H.264 front end on the GPU as users run it, on the GPU machine: `parvlc h264
# --luma 16x16` of a 1080p Y4M file (the pan of scripts/h200-h264.sh), whole process,
# files in and files out, the GPU front end at several depths (pictures a batch) beside
# the CPU front end, and libx264 (scripts/x264_intra.c, built on the development machine
# and carried in .device/x264 with its library) on the same file in the same run. Every
# GPU-front-end stream is compared with the CPU front end's first; x264's bytes are
# printed. From the project root, .device carried:  bash scripts/h200-h264-front.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/h264-front.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
P=${PARVLC:-.device/parvlc}
X=.device/x264/x264_intra
D=${DATA:-/tmp/parvlc-h264}
FRAMES=${FRAMES:-240}
DEPTHS=${DEPTHS:-8 16 32 64}
RUNS=${RUNS:-3}
mkdir -p "$D"
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
python3 -c 'import sys; sys.path.insert(0, "scripts"); from h264_rd import write_pan
write_pan(1920, 1080, int(sys.argv[2]), sys.argv[1])' "$D/pan.y4m" "$FRAMES"
ls -l "$D/pan.y4m"
cat "$D/pan.y4m" > /dev/null
wall() { # label, command...
  local label=$1; shift
  /usr/bin/time -f "$label	wall %e s	user %U s	sys %S s	peak %M KiB" "$@" 2>&1 >/dev/null | tail -1
}
for slices in one rows; do
  extra=(--luma 16x16 --qp 27); [ $slices = rows ] && extra+=(--slice-rows 1)
  ref="$D/ref-$slices.264"
  "$P" h264 "$D/pan.y4m" -o "$ref" --force --front-end cpu --depth 16 "${extra[@]}"
  ls -l "$ref"
  for r in $(seq "$RUNS"); do
    for depth in $DEPTHS; do
      out="$D/gpu-$slices-$depth.264"
      cmd=("$P" h264 "$D/pan.y4m" -o "$out" --force --depth "$depth" "${extra[@]}")
      wall "gpu front end, slices $slices, depth $depth, run $r" "${cmd[@]}"
      cmp -s "$out" "$ref" || echo "MISMATCH gpu front end $slices $depth"
    done
    wall "cpu front end, slices $slices, depth 16, run $r" \
      "$P" h264 "$D/pan.y4m" -o "$D/cpu-$slices.264" --force --front-end cpu --depth 16 "${extra[@]}"
  done
  "$P" h264 "$D/pan.y4m" -o "$D/gpu-$slices-report.264" --force --depth 32 "${extra[@]}"
done
wall "gpu front end, slices one, depth 32, with --recon" \
  "$P" h264 "$D/pan.y4m" -o "$D/recon-test.264" --recon "$D/recon.yuv" --force --depth 32 --luma 16x16 --qp 27
cmp -s "$D/recon-test.264" "$D/ref-one.264" || echo "MISMATCH with --recon"
rm -f "$D/recon.yuv"
wall "cpu front end, --luma auto, depth 16" \
  "$P" h264 "$D/pan.y4m" -o "$D/auto.264" --force --depth 16 --qp 27
export LD_LIBRARY_PATH=.device/x264${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for r in $(seq "$RUNS"); do
  for preset in ultrafast medium; do
    wall "x264 $preset, run $r" "$X" "$preset" 27 "$D/pan.y4m" "$D/x264-$preset.264"
  done
done
for preset in ultrafast medium; do "$X" "$preset" 27 "$D/pan.y4m" "$D/x264-$preset.264"; done
ls -l "$D"/*.264
