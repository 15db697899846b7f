#!/usr/bin/env bash
# The GPU route's peak once CPU batches' outputs are no longer kept after the GPU opens
# (.device/parvlc-peak, with the vld kernel's load under a branch) against aa35b5b
# (.device/parvlc-auto2, five kept until the writer saw a GPU batch) and 4b34819
# (.device/parvlc): `decompress --backend wgpu` of 4 GiB of system files, native and gzip,
# to /dev/null, three rounds alternating, outputs compared first; then this build without
# an adapter against --backend cpu. There: bash scripts/h200-peak33.sh
source scripts/h200-lib.sh
h200_start peak33
unpack_device
D=/dev/shm/dec33; mkdir -p "$D"
sys_compressed "$D" .device/parvlc-peak
for f in pvl gz; do
  .device/parvlc-peak decompress --backend wgpu "$D/sys.$f" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$f, parvlc-peak: equals the input"
done
decompress_rounds 3 0 parvlc-peak parvlc-auto2 parvlc 2>&1 | grep -v MAPPABLE
no_adapter_rounds 3 .device/parvlc-peak "$D/sys.pvl" "$D/sys.gz"
date -u
