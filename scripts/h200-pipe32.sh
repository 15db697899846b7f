#!/usr/bin/env bash
# `decompress --backend wgpu -` from a pipe with the GPU opened beside the stream (this
# build, .device/parvlc-new) against 4b34819 (.device/parvlc, which opened it first):
# 4 GiB of system files, native and gzip, `cat FILE |` into the CLI, to /dev/null, the
# new build's output compared first, two rounds alternating. There: bash scripts/h200-pipe32.sh
# Prepared in the thirty-second session and not run: its device time was spent.
source scripts/h200-lib.sh
h200_start pipe32
unpack_device
D=/dev/shm/dec32; mkdir -p "$D"
sys_compressed "$D"
for f in pvl gz; do
  cat "$D/sys.$f" | .device/parvlc-new decompress --backend wgpu - | cmp - "$D/sys.tar" && echo "$f, new, from a pipe: equals the input"
done
for round in 1 2; do
  for f in pvl gz; do
    for b in parvlc parvlc-new; do
      wall "round $round, $f, $b, from a pipe" "cat $D/sys.$f | .device/$b decompress --backend wgpu - > /dev/null"
    done
  done
done
date -u
