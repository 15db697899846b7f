#!/usr/bin/env bash
# Batches decoded on the CPU cores beside the GPU's (an experiment build,
# .device/parvlc-beside: PARVLC_CPU_BESIDE=K lets up to K of a native stream's batches
# decode on all cores, in rayon's shared pool, while the GPU's five decoders run; K=0 is
# the committed behaviour): the CLI's wgpu decompress of 4 GiB of system files (native)
# to /dev/null, K = 0, 1, 2, 3, four rounds alternating, wall and peak; one
# debug-logged run each for the batches' split. There: bash scripts/h200-beside32.sh
source scripts/h200-lib.sh
h200_start beside32
unpack_device
D=/dev/shm/dec32; mkdir -p "$D"
sys_compressed "$D" .device/parvlc-beside
for k in 1 2 3; do
  PARVLC_CPU_BESIDE=$k .device/parvlc-beside decompress --backend wgpu "$D/sys.pvl" -o - | cmp - "$D/sys.tar" && echo "K=$k: equals the input"
  PARVLC_CPU_BESIDE=$k RUST_LOG=parvlc=debug .device/parvlc-beside decompress --backend wgpu "$D/sys.pvl" -o - 2> "$D/log" > /dev/null
  echo "K=$k: $(grep -c 'run of' "$D/log") GPU runs of 256 batches; $(grep -E 'done after' "$D/log" | sed 's/.*DEBUG parvlc] //')"
done
for round in 1 2 3 4; do
  for k in 0 1 2 3; do
    wall "round $round, K=$k" "PARVLC_CPU_BESIDE=$k .device/parvlc-beside decompress --backend wgpu $D/sys.pvl -o - > /dev/null"
  done
  wall "round $round, --backend cpu" ".device/parvlc-beside decompress --backend cpu $D/sys.pvl -o - > /dev/null"
done
date -u
