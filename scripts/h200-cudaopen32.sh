#!/usr/bin/env bash
# `decompress --backend cuda` of a file with the CUDA device opened beside the stream
# (this build, .device/parvlc-new; the batches ready before it is open decode on the CPU
# cores) against 4b34819 (.device/parvlc, which opened it first), both with the `cuda`
# feature: 4 GiB of system files, native and our gzip, to /dev/null, outputs compared
# first, one debug-logged run (batches on the CPU), three rounds alternating.
# There: bash scripts/h200-cudaopen32.sh
source scripts/h200-lib.sh
h200_start cudaopen32
unpack_device
D=/dev/shm/dec32; mkdir -p "$D"
sys_compressed "$D"
for f in pvl gz; do
  .device/parvlc-new decompress --backend cuda "$D/sys.$f" -o - | cmp - "$D/sys.tar" && echo "$f, new, cuda: equals the input"
  RUST_LOG=parvlc=debug .device/parvlc-new decompress --backend cuda "$D/sys.$f" -o - 2> "$D/log" > /dev/null
  echo "$f: $(grep -c 'CPU cores: the GPU is opening' "$D/log") batches on the CPU, $(grep -c 'run of' "$D/log") GPU runs; $(grep -E 'opened in|done after' "$D/log" | sed 's/.*DEBUG parvlc] //' | tr '\n' ' ')"
done
for round in 1 2 3; do
  for f in pvl gz; do
    for b in parvlc parvlc-new; do
      wall "round $round, $f, $b --backend cuda" ".device/$b decompress --backend cuda $D/sys.$f -o - > /dev/null"
    done
  done
done
date -u
