#!/usr/bin/env bash
# The CLI leaves its GPU to the operating system at exit (the pipeline cache saved
# first) instead of tearing the device and its pooled buffers down: .device/parvlc-old
# (683b77a with the pool's debug lines) against .device/parvlc, alternating, three runs
# each: `parvlc j2k` of a 4K RGB picture (Part 1 and --ht), `parvlc h264` of 240 and 960
# frames of the 1080p pan (QP 27, to /dev/shm), `compress -f gzip` of 1 GiB of system
# files from standard input and `decompress` of it. Outputs compared between the builds
# first; the new build's pipeline cache checked: written by a first run into an empty
# folder, and a second run warm from it.
# There, from the project root, .device carried (stage --openjpeg): bash scripts/h200-exit24.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start exit24
unpack_device
D=/tmp/parvlc-exit24
S=/dev/shm/parvlc-exit24
mkdir -p "$D" "$S"
python3 scripts/ppm.py make "$D/4k.ppm" 3840 2160
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
sys_1g "$D"
cat "$D/sys1g" > /dev/null
for b in parvlc-old parvlc; do
  .device/$b j2k "$D/4k.ppm" -o "$S/$b.j2k" --force 2>/dev/null
  .device/$b h264 "$D/p240.y4m" --qp 27 -o "$S/$b.264" --force 2>/dev/null
  .device/$b compress -f gzip - -o - < "$D/sys1g" > "$S/$b.gz" 2>/dev/null
done
cmp "$S/parvlc-old.j2k" "$S/parvlc.j2k" && cmp "$S/parvlc-old.264" "$S/parvlc.264" && cmp "$S/parvlc-old.gz" "$S/parvlc.gz" && echo "both builds write the same files"
gzip -dc "$S/parvlc.gz" | cmp - "$D/sys1g" && echo "gzip -dc gives the input"
export PARVLC_CACHE_DIR=$D/cache-new
RUST_LOG=parvlc=debug .device/parvlc j2k "$D/4k.ppm" -o "$S/c.j2k" --force 2>&1 | grep -E "pipeline cache|done after" | cut -c1-160
ls -la "$D/cache-new"
RUST_LOG=parvlc=debug .device/parvlc j2k "$D/4k.ppm" -o "$S/c.j2k" --force 2>&1 | grep -E "GPU opened|tier1_split.cm|done after" | cut -c1-200
unset PARVLC_CACHE_DIR
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall "$b j2k 4K, run $r" ".device/$b j2k $D/4k.ppm -o $S/x.j2k --force"
    wall "$b j2k 4K --ht, run $r" ".device/$b j2k $D/4k.ppm -o $S/x.jph --ht --force"
    wall "$b h264 240 frames, run $r" ".device/$b h264 $D/p240.y4m --qp 27 -o $S/x.264 --force"
    wall "$b h264 960 frames, run $r" ".device/$b h264 $D/p960.y4m --qp 27 -o $S/x.264 --force"
    wall "$b compress -f gzip 1 GiB stdin, run $r" ".device/$b compress -f gzip - -o - < $D/sys1g"
    wall "$b decompress 1 GiB gzip, run $r" ".device/$b decompress $S/parvlc.gz -o - "
  done
done
rm -rf "$S"
date -u
