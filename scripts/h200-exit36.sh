#!/usr/bin/env bash
# Thirty-sixth pass (2026-12-01): the CLI leaves its GPU to the process's exit, and
# takes the opened engine without waiting for the opening thread's exit.
# .device/parvlc (this build) against .device/parvlc-prev (the build before, 2bf2328
# with a debug line at the start), alternating: the 4K picture, Part 1 and --ht
# (codestreams compared with the CPU's first), a 16x16 picture, `compress -f gzip` and
# `decompress` of a GiB of system files (outputs checked), five rounds; then the new
# build debug-logged (scripts/log_deltas.py), and the pipeline cache it saves used by the
# next process.
# There, from the project root, .device carried:  bash scripts/h200-exit36.sh [NAME]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-exit36}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
mkdir -p "$D"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
python3 scripts/ppm.py make "$D/tiny.ppm" 16 16
sys_1g "$D"
.device/parvlc j2k --backend cpu "$D/pic.ppm" -o "$D/cpu.j2k" --force 2>/dev/null
.device/parvlc j2k --backend cpu "$D/pic.ppm" -o "$D/cpu-ht.j2k" --force --ht 2>/dev/null
for b in parvlc-prev parvlc; do
  .device/$b j2k "$D/pic.ppm" -o "$D/x.j2k" --force 2>/dev/null; cmp "$D/x.j2k" "$D/cpu.j2k" && echo "$b Part 1: the CPU's codestream"
  .device/$b j2k "$D/pic.ppm" -o "$D/x.j2k" --force --ht 2>/dev/null; cmp "$D/x.j2k" "$D/cpu-ht.j2k" && echo "$b --ht: the CPU's codestream"
  .device/$b compress -f gzip "$D/sys1g" -o "$D/$b.gz" --force 2>/dev/null
  gzip -dc "$D/$b.gz" | cmp - "$D/sys1g" && echo "$b gzip: gzip -d gives the input"
  .device/$b decompress "$D/$b.gz" -o - 2>/dev/null | cmp - "$D/sys1g" && echo "$b decompress: the input"
done
for r in 1 2 3 4 5; do
  for b in parvlc-prev parvlc; do
    wall "round $r, $b, 4K Part 1" ".device/$b j2k $D/pic.ppm -o $D/x.j2k --force"
    wall "round $r, $b, 4K --ht" ".device/$b j2k $D/pic.ppm -o $D/x.j2k --force --ht"
    wall "round $r, $b, 16x16" ".device/$b j2k $D/tiny.ppm -o $D/t.j2k --force"
    wall "round $r, $b, compress -f gzip 1 GiB" ".device/$b compress -f gzip $D/sys1g -o $D/c.gz --force"
    wall "round $r, $b, decompress 1 GiB gzip, to /dev/null" ".device/$b decompress $D/parvlc.gz -o - > /dev/null"
  done
done
KEEP="started|read in|opened|ready|encoding|pipeline .*built|HT|tier-1|tier-2|front end|encoded in|GPU closing|done after|upload"
for mode in "" --ht; do
  for r in 1 2; do
    echo "== new build, debug log, ${mode:-Part 1}, run $r"
    RUST_LOG=parvlc=debug .device/parvlc j2k "$D/pic.ppm" -o "$D/x.j2k" --force $mode 2> "$D/log"
    python3 scripts/log_deltas.py "$D/log" "$KEEP"
  done
done
echo "== the pipeline cache a run saves, used by the next"
export PARVLC_CACHE_DIR=$D/cache
RUST_LOG=parvlc=debug .device/parvlc j2k "$D/pic.ppm" -o "$D/x.j2k" --force --ht 2> "$D/log"
grep -o "pipeline parvlc.j2k.ht_cleanup.*" "$D/log"; ls -l "$D/cache"
RUST_LOG=parvlc=debug .device/parvlc j2k "$D/pic.ppm" -o "$D/x.j2k" --force --ht 2> "$D/log"
grep -o "pipeline parvlc.j2k.ht_cleanup.*" "$D/log"
rm -rf "$D"
date -u
