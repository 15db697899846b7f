#!/usr/bin/env bash
# The GPU opened while the stream starts, two ways, both with freed allocations of a
# megabyte or more returned at once (mallopt, decompress only): .device/parvlc-v1m (a
# batch taken before the GPU is open decodes on the CPU in its decoder's own pool) and
# .device/parvlc-turnm (one such batch at a time, on all cores), against 4b34819
# (.device/parvlc): the CLI's wgpu decompress of 4 GiB of system files to /dev/null,
# wall and peak, native five rounds and gzip three, alternating. There:
# bash scripts/h200-opening32d.sh
source scripts/h200-lib.sh
h200_start opening32d
unpack_device
D=/dev/shm/dec32; mkdir -p "$D"
sys_compressed "$D"
for b in parvlc-v1m parvlc-turnm; do
  for f in pvl gz; do
    .device/$b decompress --backend wgpu "$D/sys.$f" -o - | cmp - "$D/sys.tar" && echo "$b, $f: equals the input"
  done
done
for round in 1 2 3 4 5; do
  for b in parvlc parvlc-v1m parvlc-turnm; do
    wall "round $round, pvl, $b" ".device/$b decompress --backend wgpu $D/sys.pvl -o - > /dev/null"
  done
done
for round in 1 2 3; do
  for b in parvlc parvlc-v1m; do
    wall "round $round, gz, $b" ".device/$b decompress --backend wgpu $D/sys.gz -o - > /dev/null"
  done
done
date -u
