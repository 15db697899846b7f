#!/usr/bin/env bash
# Where the end of an H.264 run goes: debug-logged runs of the CLI (this build, which
# logs when the stream is coded, the output committed, the encoder dropped and the GPU
# closed), 240 and 960 frames of the 1080p pan at QP 27, defaults, to /dev/shm.
# There, from the project root, .device carried: bash scripts/h200-tail25.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start tail25
unpack_device
D=/dev/shm/parvlc-tail25
mkdir -p "$D"
pan_lengths "$D"
for n in 240 960 960 1920; do
  /usr/bin/time -f "wall %e s user %U s sys %S s peak %M KiB" env RUST_LOG=parvlc=debug .device/parvlc h264 "$D/p$n.y4m" --qp 27 -o "$D/x.264" --force 2> "$D/log"
  echo "== $n frames"
  grep -E "Wgpu opened|waited .* for 32 pictures|h264: |done after|wall " "$D/log" | head -3
  grep -E "h264 batch of" "$D/log" | tail -1 | cut -c1-60
  grep -E "h264: |done after|wall " "$D/log"
done
rm -rf "$D"
date -u
