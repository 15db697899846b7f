#!/usr/bin/env bash
# Seventeenth pass, fourth call (2026-11-28): whether the CLI's allocations bound it. A
# 1080p picture (3.1 MB), a picture's stream (0.76 MB here) and a batch's readback (16 MB
# and more) are each past glibc's mmap threshold, so each is a fresh mapping faulted in
# page by page and unmapped after (TLB shootdowns across the process's threads). Runs
# with glibc's defaults alternate with runs that keep allocations up to 32 MiB in the
# heap (MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824, no code
# changed): `parvlc h264` at QP 27 on 1920 frames of the 1080p pan at several batch
# shapes, streams compared byte for byte; then a debug-logged run of each at --depth 64
# with 3 batches in flight, summarized (coders' waits for pictures, batch phases).
# There, from the project root, .device carried: bash scripts/h200-alloc17.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start alloc17
D=/tmp/parvlc-alloc17
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p1920.y4m" 8
rm "$D/p240.y4m"
.device/parvlc h264 "$D/p1920.y4m" --qp 27 --force -o "$D/ref.264" 2>/dev/null
HEAP="MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824"
for shape in "16 4" "32 4" "64 2" "64 3"; do
  set -- $shape
  for r in 1 2; do
    for env in "" "$HEAP"; do
      wall "1920 frames, depth $1, $2 in flight, ${env:-glibc defaults}, run $r" \
        "env $env PARVLC_H264_CODERS=$2 .device/parvlc h264 $D/p1920.y4m --qp 27 --force --depth $1 -o $D/x.264"
      cmp -s "$D/x.264" "$D/ref.264" || echo "OTHER BYTES"
    done
  done
done
for env in "" "$HEAP"; do
  echo "-- debug-logged, depth 64, 3 in flight, ${env:-glibc defaults}"
  env $env PARVLC_H264_CODERS=3 RUST_LOG=parvlc=debug /usr/bin/time -f "wall %e s user %U s sys %S s" \
    .device/parvlc h264 "$D/p1920.y4m" --qp 27 --force --depth 64 -o "$D/x.264" 2> "$D/log.txt"
  tail -1 "$D/log.txt"
  batch_phases "$D/log.txt"
  grep "readback of" "$D/log.txt" | tail -3 | cut -c 1-160
done
rm -rf "$D"
date -u
