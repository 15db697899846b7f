#!/usr/bin/env bash
# First run against later runs, as a user meets them: `parvlc j2k` of one 4K RGB 8-bit
# picture, `parvlc h264` of 8 frames of 1080p and `parvlc compress` of 64 MiB, each timed
# (wall clock, the whole process) with
#   cold:        no parvlc pipeline cache and no driver shader cache (a fresh machine)
#   ours only:   the parvlc pipeline cache from the cold run, the driver's cache off
#   warm:        both caches, the second and third runs
# and opj_compress -M 1 on the same picture where it is on PATH. Run on the GPU machine
# from the project root after ../shared/device/stage --openjpeg (carry .device/parvlc,
# .device/gl, .device/env.sh, .device/debs). Writes $OUT/cold-start.txt.
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/cold-start.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
P=.device/parvlc
W=$(mktemp -d)
python3 scripts/ppm.py make "$W/pic.ppm" 3840 2160
python3 - "$W" <<'PY'
import sys
d = sys.argv[1]
fw, fh, n = 1920, 1080, 8
with open(f"{d}/clip.y4m", "wb") as f:
    f.write(b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n" % (fw, fh))
    y = bytes((i * 7 + (i // fw) * 3) & 255 for i in range(fw * fh))
    c = bytes(128 for _ in range(fw * fh // 2))
    for k in range(n):
        f.write(b"FRAME\n" + y[k * 64:] + y[:k * 64] + c)
open(f"{d}/data.bin", "wb").write(bytes((i * i >> 7) & 255 for i in range(64 << 20)))
PY
# Seconds of wall clock of one run (a failure is printed, never timed silently).
t() {
  local s=$EPOCHREALTIME
  "$@" >/dev/null 2>"$W/err" || { echo "FAILED: $* ($(tail -1 "$W/err"))"; return; }
  awk -v a="$s" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'
}
driver_cache=("$HOME/.cache/nvidia" "$HOME/.nv")
for job in j2k h264 compress; do
  case $job in
    j2k) cmd=("$P" j2k "$W/pic.ppm" -o "$W/out.j2k" --force) ;;
    h264) cmd=("$P" h264 "$W/clip.y4m" -o "$W/out.264" --force) ;;
    compress) cmd=("$P" compress -f gzip "$W/data.bin" -o "$W/out.gz" --force) ;;
  esac
  export PARVLC_CACHE_DIR="$W/cache-$job"
  rm -rf "$PARVLC_CACHE_DIR" "${driver_cache[@]}"
  cold=$(t "${cmd[@]}")
  rm -rf "${driver_cache[@]}"
  ours=$(__GL_SHADER_DISK_CACHE=0 t "${cmd[@]}")
  t "${cmd[@]}" >/dev/null
  warm1=$(t "${cmd[@]}"); warm2=$(t "${cmd[@]}")
  echo "$job: cold ${cold}s, parvlc cache only ${ours}s, warm ${warm1}s / ${warm2}s"
done
if command -v opj_compress >/dev/null; then
  for i in 1 2; do
    echo "opj_compress -M 1 -threads $(nproc): $(t opj_compress -i "$W/pic.ppm" -o "$W/opj.j2k" -M 1 -threads "$(nproc)")s"
  done
fi
ls -la "$W"/cache-*
rm -rf "$W"
