#!/usr/bin/env bash
# Sixteenth pass, ninth call (2026-11-28): the ninth Intra_4x4 mode predicted by DC's
# invocation instead of vertical's, and only the configured CAVLC variant's pipelines
# built (`.device/parvlc`, `.device/h264_intra_bench`), against the build before (the
# `-old` binaries: 09c1001, the ranking in registers), alternating.
#   A. `h264_intra_bench` GPU time (1080p noise pan, QP 27), batches of 16 and 64, two
#      rounds.
#   B. The CLI at its defaults on 240 and 960 frames of the 1080p pan, QP 27, three
#      rounds, each stream compared with the old build's.
# There, from the project root, .device carried: bash scripts/h200-dc16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start dc16
echo "== A. front end GPU time"
for r in 1 2; do
  for b in h264_intra_bench-old h264_intra_bench; do
    echo "-- $b round $r"
    LUMA=auto BATCHES=16,64 .device/$b 1920 1080 2>&1 | grep intra
  done
done
echo "== B. CLI"
D=/tmp/parvlc-dc16
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
python3 - "$D/p240.y4m" "$D/p960.y4m" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
head = data[: data.index(b"\n") + 1]
open(sys.argv[2], "wb").write(head + data[len(head):] * 4)
PY
cat "$D/p960.y4m" > /dev/null
for n in 240 960; do
  .device/parvlc-old h264 "$D/p$n.y4m" --qp 27 --force -o "$D/old$n.264" 2>/dev/null
  .device/parvlc h264 "$D/p$n.y4m" --qp 27 --force -o "$D/new$n.264" 2>/dev/null
  cmp "$D/old$n.264" "$D/new$n.264" && echo "$n frames: both builds write the same stream ($(stat -c %s "$D/new$n.264") bytes)"
  for r in 1 2 3; do
    for b in parvlc-old parvlc; do
      wall "$n frames defaults, $b, run $r" ".device/$b h264 $D/p$n.y4m --qp 27 --force -o $D/x.264"
      cmp -s "$D/x.264" "$D/old$n.264" || echo "OTHER BYTES"
    done
  done
done
rm -rf "$D"
date -u
