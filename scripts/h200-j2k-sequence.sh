#!/usr/bin/env bash
# A sequence of 4K RGB 8-bit frames through `parvlc j2k FRAMES... -o FOLDER` on the GPU
# machine, files in and files out, wall clock of the whole process, at several depths
# (frames in flight), Part 1 fast mode and --ht; beside it one process per frame (the
# single-image CLI) and opj_compress -M 1 -threads 16 per frame, in one run. Every output
# of the sequence run equals the single-image run's bytes (cmp) and the first frame's is
# decoded by opj_decompress to its source before anything is timed.
# Here: ../shared/device/stage --openjpeg. There:  bash scripts/h200-j2k-sequence.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/j2k-sequence.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
P=${P:-.device/parvlc}
N=${N:-30}
D=${DATA:-/tmp/parvlc-seq}
mkdir -p "$D/in"
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
python3 scripts/ppm.py make "$D/base.ppm" 3840 2160
# Frame k: the base picture's rows rotated by 8k (a vertical pan), so frames differ.
python3 - "$D" "$N" <<'PY'
import sys
d, n = sys.argv[1], int(sys.argv[2])
data = open(f"{d}/base.ppm", "rb").read()
head = data[: data.index(b"255\n") + 4]
body = data[len(head):]
row = 3 * 3840
for k in range(n):
    s = (8 * k % 2160) * row
    open(f"{d}/in/f{k:03d}.ppm", "wb").write(head + body[s:] + body[:s])
PY
wall() { # label, command (a shell string)
  /usr/bin/time -f "$1	wall %e s	user %U s	sys %S s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1
}
mkdir -p "$D/one" "$D/seq"
for f in "$D"/in/*.ppm; do b=$(basename "$f" .ppm); $P j2k "$f" -o "$D/one/$b.j2k" --force 2>/dev/null; done
$P j2k "$D"/in/*.ppm -o "$D/seq" --force 2>/dev/null
bad=0; for f in "$D"/one/*.j2k; do cmp -s "$f" "$D/seq/$(basename "$f")" || bad=1; done
[ $bad = 0 ] && echo "the sequence's $N outputs equal the single-image runs'"
opj_decompress -i "$D/seq/f000.j2k" -o "$D/back.ppm" >/dev/null 2>&1
python3 scripts/ppm.py same "$D/in/f000.ppm" "$D/back.ppm"
for r in 1 2; do
  for depth in 2 4 8; do
    wall "$N frames, parvlc j2k sequence, depth $depth, run $r" "$P j2k $D/in/*.ppm -o $D/seq --force --depth $depth"
    wall "$N frames, parvlc j2k --ht sequence, depth $depth, run $r" "$P j2k --ht $D/in/*.ppm -o $D/seq --force --depth $depth"
  done
  wall "$N frames, parvlc j2k one process per frame, run $r" "for f in $D/in/*.ppm; do $P j2k \$f -o $D/one/x.j2k --force; done"
  wall "$N frames, opj_compress -M 1 -threads $(nproc) per frame, run $r" "for f in $D/in/*.ppm; do opj_compress -i \$f -o $D/one/x.j2k -M 1 -threads $(nproc); done"
done
rm -rf "$D"
