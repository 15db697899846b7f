#!/usr/bin/env bash
# A row's four Intra_4x4 taps in one word (2026-11-28) against the build before
# (.device/parvlc-rank, .device/h264_intra_bench-rank), alternating: the front end's GPU
# time for batches of 16 and 64 1080p pictures (examples/h264_intra_bench, `auto`), then
# 240 frames of the 1080p pan at QP 27 with the CLI's defaults, each stream compared.
# There, from the project root, .device carried: bash scripts/h200-h264-pack.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/h264-pack.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
D=/tmp/parvlc-rank
mkdir -p "$D"
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
wall() { # label, command (a shell string)
  /usr/bin/time -f "$1	wall %e s	user %U s	sys %S s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1
}
for r in 1 2; do
  for b in -rank ""; do
    echo "h264_intra_bench${b:-} run $r"
    LUMA=auto BATCHES=16,64 RUNS=2 .device/h264_intra_bench$b 1920 1080 | grep "slices one"
  done
done
python3 -c 'import sys; sys.path.insert(0, "scripts"); from h264_rd import write_pan
write_pan(1920, 1080, 240, sys.argv[1])' "$D/pan.y4m"
cat "$D/pan.y4m" > /dev/null
.device/parvlc-rank h264 "$D/pan.y4m" --qp 27 --force -o "$D/rank.264" 2>/dev/null
.device/parvlc h264 "$D/pan.y4m" --qp 27 --force -o "$D/new.264" 2>/dev/null
cmp "$D/rank.264" "$D/new.264" && echo "the new build's stream equals the rank build's"
for r in 1 2 3; do
  wall "rank build, CLI defaults, run $r" ".device/parvlc-rank h264 $D/pan.y4m --qp 27 --force -o $D/x.264"
  wall "new build, CLI defaults, run $r" ".device/parvlc h264 $D/pan.y4m --qp 27 --force -o $D/x.264"
done
rm -rf "$D"
date -u
