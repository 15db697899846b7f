#!/usr/bin/env bash
# The Intra_4x4 candidates named by their own invocations (2026-11-28) against the build
# before (.device/parvlc-line, .device/h264_intra_bench-line: predictions from the edge
# line, four batches in flight), alternating: the front end's GPU time for batches of 16
# and 64 1080p pictures (examples/h264_intra_bench, `auto`), then 240 frames of the 1080p
# pan at QP 27 with the CLI's defaults (--luma auto, --depth 16), each stream compared.
# There, from the project root, .device carried: bash scripts/h200-h264-rank.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/h264-rank.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
D=/tmp/parvlc-rank
mkdir -p "$D"
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
wall() { # label, command (a shell string)
  /usr/bin/time -f "$1	wall %e s	user %U s	sys %S s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1
}
for r in 1 2; do
  for b in -line ""; do
    echo "h264_intra_bench${b:-} run $r"
    LUMA=auto BATCHES=16,64 RUNS=2 .device/h264_intra_bench$b 1920 1080 | grep "slices one"
  done
done
python3 -c 'import sys; sys.path.insert(0, "scripts"); from h264_rd import write_pan
write_pan(1920, 1080, 240, sys.argv[1])' "$D/pan.y4m"
cat "$D/pan.y4m" > /dev/null
.device/parvlc-line h264 "$D/pan.y4m" --qp 27 --force -o "$D/line.264" 2>/dev/null
.device/parvlc h264 "$D/pan.y4m" --qp 27 --force -o "$D/new.264" 2>/dev/null
cmp "$D/line.264" "$D/new.264" && echo "the new build's stream equals the line build's"
for r in 1 2 3; do
  wall "line build, CLI defaults, run $r" ".device/parvlc-line h264 $D/pan.y4m --qp 27 --force -o $D/x.264"
  wall "new build, CLI defaults, run $r" ".device/parvlc h264 $D/pan.y4m --qp 27 --force -o $D/x.264"
done
rm -rf "$D"
date -u
