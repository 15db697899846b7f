#!/usr/bin/env bash
# H.264 intra as users run it, on the GPU machine: `parvlc h264` of a 1080p Y4M file (a
# pan over a detailed texture, 48 frames), wall clock of the whole process, for pictures
# in flight (--depth), one slice per picture and a slice per macroblock row, the GPU's
# CAVLC and the CPU's; every stream compared with the depth-1 CPU stream of the same
# slicing, and decoded by ffmpeg where it is on PATH. There, from the project root,
# .device carried:  bash scripts/h200-h264.sh   (FRAMES, DEPTHS knobs)
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
mkdir -p "$D"
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
python3 - "$D/pan.y4m" "$FRAMES" <<'PY'
import sys
path, frames = sys.argv[1], int(sys.argv[2])
w, h, tw = 1920, 1080, 1920 + 4 * frames
# A detailed texture: a hash of the position, smoothed a little along rows.
rows = []
for y in range(h):
    r = bytearray(tw)
    acc = 0
    for x in range(tw):
        v = ((x * 2654435761) ^ (y * 40503) ^ ((x * y) >> 3)) & 0xff
        acc = (acc * 3 + v) >> 2
        r[x] = acc
    rows.append(bytes(r))
chroma = bytes([128]) * (w // 2 * h // 2)
with open(path, "wb") as f:
    f.write(b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n" % (w, h))
    for k in range(frames):
        f.write(b"FRAME\n")
        f.write(b"".join(r[4 * k:4 * k + w] for r in rows))
        f.write(chroma)
        f.write(chroma)
PY
ls -l "$D/pan.y4m"
wall() { # label, command...
  local label=$1; shift
  /usr/bin/time -f "$label	wall %e s	user %U s	sys %S s	peak %M KiB" "$@" 2>&1 >/dev/null | tail -1
}
for slices in one rows; do
  extra=(); [ $slices = rows ] && extra=(--slice-rows 1)
  "$P" h264 "$D/pan.y4m" -o "$D/ref-$slices.264" --force --qp 27 --backend cpu --depth 1 "${extra[@]}" 2>/dev/null
  for backend in wgpu cpu; do
    for depth in $DEPTHS; do
      out="$D/$slices-$backend-$depth.264"
      cmd=("$P" h264 "$D/pan.y4m" -o "$out" --force --qp 27 --backend $backend --depth "$depth" "${extra[@]}")
      "${cmd[@]}" 2>/dev/null
      cmp -s "$out" "$D/ref-$slices.264" || echo "MISMATCH $slices $backend $depth"
      for r in 1 2; do wall "slices $slices, $backend, depth $depth, run $r" "${cmd[@]}"; done
    done
  done
  if command -v ffmpeg >/dev/null; then
    ffmpeg -v error -err_detect explode -i "$D/ref-$slices.264" -f null - && echo "ffmpeg decodes ref-$slices"
  fi
done
