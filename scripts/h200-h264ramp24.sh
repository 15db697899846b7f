#!/usr/bin/env bash
# The first two batches of a stream a quarter and a half of --depth (the GPU starts on
# the first pictures while the next are read): .device/parvlc-old (272c63d) against
# .device/parvlc, alternating, three rounds, 240, 960 and 1920 frames of the
# 1080p pan at QP 27, defaults, to /dev/shm; wall and peak. Streams compared first; a
# debug-logged 240-frame run of each build: the pool's creations and the batches'
# time line.
# There, from the project root, .device carried: bash scripts/h200-h264ramp24.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264ramp24
unpack_device
D=/tmp/parvlc-h264ramp24
S=/dev/shm/parvlc-h264ramp24
mkdir -p "$D" "$S"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
pan_y4m_times "$D/p240.y4m" "$D/p1920.y4m" 8
for b in parvlc-old parvlc; do
  .device/$b h264 "$D/p960.y4m" --qp 27 -o "$S/$b.264" --force 2>&1 | tail -1
  .device/$b h264 "$D/p240.y4m" --qp 27 --slice-rows 1 -o "$S/$b-rows.264" --force 2>/dev/null
done
cmp "$S/parvlc-old.264" "$S/parvlc.264" && cmp "$S/parvlc-old-rows.264" "$S/parvlc-rows.264" && echo "both builds write the same streams"
for b in parvlc-old parvlc; do
  RUST_LOG=parvlc=debug .device/$b h264 "$D/p240.y4m" --qp 27 -o "$S/x.264" --force 2> "$D/$b.log"
  echo "== $b: pool creations of 1 MiB or more (count, sum of ms), done"
  grep "pool: created" "$D/$b.log" | awk '{n++; for (i=1;i<=NF;i++) if ($i=="in") s+=$(i+1)} END {print n, s}'
  grep "done after" "$D/$b.log" | cut -c1-120
  python3 scripts/h264_timeline.py "$D/$b.log" > "$D/$b.tl"; head -5 "$D/$b.tl"
done
for r in 1 2 3; do
  for n in 240 960 1920; do
    for b in parvlc-old parvlc; do
      wall "$b, $n frames, run $r" ".device/$b h264 $D/p$n.y4m --qp 27 -o $S/x.264 --force"
    done
  done
done
rm -rf "$S"
date -u
