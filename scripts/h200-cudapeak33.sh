#!/usr/bin/env bash
# The final code's (.device/parvlc-peak, `--features cuda`) decompress of 4 GiB of system
# files, native and gzip, to /dev/null: --backend cuda, wgpu and auto (the default), two
# rounds alternating, GNU time's wall and peak, outputs compared first.
# There: bash scripts/h200-cudapeak33.sh
source scripts/h200-lib.sh
h200_start cudapeak33
unpack_device
D=/dev/shm/dec33; mkdir -p "$D"
B=.device/parvlc-peak
sys_compressed "$D" $B
for f in pvl gz; do
  $B decompress --backend cuda "$D/sys.$f" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$f, cuda: equals the input"
done
for round in 1 2; do
  for f in pvl gz; do
    for b in cuda wgpu auto; do
      wall "round $round, $f, $b" "$B decompress --backend $b $D/sys.$f -o - 2>/dev/null > /dev/null"
    done
  done
done
date -u
