#!/usr/bin/env bash
# Where a short run's first fraction of a second goes: debug-logged runs (the pool now
# logs each buffer of 1 MiB or more that it creates, with its time) of `parvlc h264` on
# 240 frames of the 1080p pan (QP 27, defaults) and of `parvlc j2k` on a 4K RGB picture
# (Part 1 and --ht), each warm (its second run); the logs kept whole.
# There, from the project root, .device carried: bash scripts/h200-startup24.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start startup24
unpack_device
D=/tmp/parvlc-startup24
mkdir -p "$D"
B=.device/parvlc
pan_y4m "$D/p240.y4m"
python3 scripts/ppm.py make "$D/4k.ppm" 3840 2160
for r in 1 2; do
  RUST_LOG=parvlc=debug $B h264 "$D/p240.y4m" --qp 27 --force -o /dev/shm/x.264 2> "$D/h264-$r.log"
  RUST_LOG=parvlc=debug $B j2k "$D/4k.ppm" -o /dev/shm/x.j2k --force 2> "$D/j2k-$r.log"
  RUST_LOG=parvlc=debug $B j2k "$D/4k.ppm" -o /dev/shm/x.jph --ht --force 2> "$D/ht-$r.log"
done
for f in h264 j2k ht; do
  echo "== $f, warm: pool creations (count, sum of ms)"
  grep "pool: created" "$D/$f-2.log" | awk '{n++; for (i=1;i<=NF;i++) if ($i=="in") s+=$(i+1)} END {print n, s}'
  gzip -c "$D/$f-2.log" > "$OUT/startup24-$f.log.gz"
done
python3 scripts/h264_timeline.py "$D/h264-2.log"
grep -v "pool: created" "$D/j2k-2.log" | cut -c1-220
grep -v "pool: created" "$D/ht-2.log" | cut -c1-220
rm -f /dev/shm/x.*
date -u
