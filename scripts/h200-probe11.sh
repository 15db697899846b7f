#!/usr/bin/env bash
# Where a short command's and a sequence's time goes on the GPU machine (2026-11-28,
# eleventh pass), one call:
#   A. opening the GPU, phase by phase (the debug log of a compress of nothing), and the
#      GPU's persistence mode;
#   B. the H.264 GPU front end's batch size: its GPU time for batches of 16, 32 and 64
#      1080p pictures (examples/h264_intra_bench), then 240 frames of the 1080p pan at
#      --depth 16, 32 and 64, each stream compared with the depth-16 one;
#   C. JPEG 2000: one 4K RGB picture warm (Part 1, --ht, opj_compress beside), and a
#      sequence of 30 4K frames at depth 8 and 16, the per-picture debug log of one run.
# Here: ../shared/device/stage --openjpeg, the example beside the binary in .device.
# There, from the project root, .device carried: bash scripts/h200-probe11.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start probe11
B=.device/parvlc
D=/tmp/parvlc-probe11
mkdir -p "$D"

echo "== A. opening the GPU"
: > "$D/empty"
for r in 1 2 3 4; do
  /usr/bin/time -f "empty compress $r: wall %e s peak %M KiB" env RUST_LOG=parvlc=debug \
    $B compress -f gzip - -o - < "$D/empty" 2>&1 >/dev/null | grep -E "GPU opened|opened in|done after|wall" | cut -c 1-200
done
wall "parvlc --version" "$B --version"

echo "== B. H.264 front end batches"
LUMA=auto BATCHES=16,32,64 RUNS=2 .device/h264_intra_bench 1920 1080
pan_y4m "$D/pan.y4m"
for r in 1 2; do for depth in 16 32 64; do
  wall "h264 240 frames auto, depth $depth, run $r" "$B h264 $D/pan.y4m --qp 27 --force -o $D/d$depth.264 --luma auto --depth $depth"
  cmp "$D/d$depth.264" "$D/d16.264" && echo "depth $depth: the depth-16 bytes"
done; done
RUST_LOG=parvlc=debug $B h264 "$D/pan.y4m" --qp 27 --force -o "$D/x.264" --luma auto --depth 32 2>&1 \
  | grep -E "h264|GPU opened|done after" | tail -12 | cut -c 1-220
rm -f "$D/pan.y4m"

echo "== C. JPEG 2000"
mkdir -p "$D/in" "$D/seq"
pan_ppm "$D/base.ppm" "$D/in" 30
$B j2k "$D/base.ppm" -o "$D/a.j2k" --force 2>/dev/null
opj_decompress -i "$D/a.j2k" -o "$D/back.ppm" >/dev/null 2>&1
python3 scripts/ppm.py same "$D/base.ppm" "$D/back.ppm"
$B j2k --ht "$D/base.ppm" -o "$D/a.jph" --force 2>/dev/null
for r in 1 2 3; do
  wall "4K parvlc j2k, run $r" "$B j2k $D/base.ppm -o $D/a.j2k --force"
  wall "4K parvlc j2k --ht, run $r" "$B j2k --ht $D/base.ppm -o $D/a.jph --force"
  wall "4K opj_compress -M 1 -threads $(nproc), run $r" "opj_compress -i $D/base.ppm -o $D/o.j2k -M 1 -threads $(nproc)"
done
RUST_LOG=parvlc=debug $B j2k "$D/base.ppm" -o "$D/a.j2k" --force 2>&1 | grep -E "DEBUG" | cut -c 1-200
for r in 1 2; do for depth in 8 16; do
  wall "30 4K frames, j2k sequence, depth $depth, run $r" "$B j2k $D/in/*.ppm -o $D/seq --force --depth $depth"
  wall "30 4K frames, j2k --ht sequence, depth $depth, run $r" "$B j2k --ht $D/in/*.ppm -o $D/seq --force --depth $depth"
done; done
for ht in "" --ht; do
  echo "-- debug log, sequence $ht depth 8"
  RUST_LOG=parvlc=debug $B j2k $ht "$D"/in/*.ppm -o "$D/seq" --force --depth 8 2> "$D/log.txt" >/dev/null
  grep -E "GPU opened|done after" "$D/log.txt" | cut -c 1-200
  python3 - "$D/log.txt" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
def col(pat):
    return [float(x) for l in lines for x in re.findall(pat, l)]
for name, pat in [("read", r"read in ([0-9.]+) ms"), ("front end and tier-1", r"front end and tier-1 ([0-9.]+) ms"),
                  ("tier-2 and codestream", r"tier-2 and codestream ([0-9.]+) ms"), ("encoded", r"encoded in ([0-9.]+) ms"),
                  ("written", r"written in ([0-9.]+) ms")]:
    v = col(pat)
    if v:
        print(f"{name}: n {len(v)}, mean {sum(v)/len(v):.1f} ms, min {min(v):.1f}, max {max(v):.1f}")
PY
  grep -vE "front end and tier-1|read in|written in" "$D/log.txt" | grep DEBUG | tail -6 | cut -c 1-200
done
rm -rf "$D"
date -u
