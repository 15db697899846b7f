#!/usr/bin/env bash
# H.264 intra as users run it, on the GPU machine: `parvlc h264` of a 1080p Y4M file (a
# pan over a detailed texture, 48 frames), wall clock of the whole process, for pictures
# in flight (--depth), one slice per picture and a slice per macroblock row, the GPU's
# CAVLC and the CPU's; every stream compared with the depth-1 CPU stream of the same
# slicing, and decoded by ffmpeg where it is on PATH. There, from the project root,
# .device carried:  bash scripts/h200-h264.sh   (FRAMES, DEPTHS, LUMA knobs; LUMA is
# --luma: auto, the default, or 16x16)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/h264.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
P=${PARVLC:-.device/parvlc}
D=${DATA:-/tmp/parvlc-h264}
FRAMES=${FRAMES:-48}
DEPTHS=${DEPTHS:-1 4 8 16}
LUMA=${LUMA:-auto}
mkdir -p "$D"
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
# A detailed texture panning 4 samples a frame (scripts/h264_rd.py's `pan` clip).
python3 -c 'import sys; sys.path.insert(0, "scripts"); from h264_rd import write_pan
write_pan(1920, 1080, int(sys.argv[2]), sys.argv[1])' "$D/pan.y4m" "$FRAMES"
ls -l "$D/pan.y4m"
wall() { # label, command...
  local label=$1; shift
  /usr/bin/time -f "$label	wall %e s	user %U s	sys %S s	peak %M KiB" "$@" 2>&1 >/dev/null | tail -1
}
for slices in one rows; do
  extra=(--luma "$LUMA"); [ $slices = rows ] && extra+=(--slice-rows 1)
  "$P" h264 "$D/pan.y4m" -o "$D/ref-$slices.264" --force --qp 27 --backend cpu --depth 1 "${extra[@]}" 2>/dev/null
  for backend in wgpu cpu; do
    for depth in $DEPTHS; do
      out="$D/$slices-$backend-$depth.264"
      cmd=("$P" h264 "$D/pan.y4m" -o "$out" --force --qp 27 --backend $backend --depth "$depth" "${extra[@]}")
      "${cmd[@]}" 2>/dev/null
      cmp -s "$out" "$D/ref-$slices.264" || echo "MISMATCH $slices $backend $depth"
      for r in 1 2; do wall "luma $LUMA, slices $slices, $backend, depth $depth, run $r" "${cmd[@]}"; done
    done
  done
  if command -v ffmpeg >/dev/null; then
    ffmpeg -v error -err_detect explode -i "$D/ref-$slices.264" -f null - && echo "ffmpeg decodes ref-$slices"
  fi
done
