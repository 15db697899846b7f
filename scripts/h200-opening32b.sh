#!/usr/bin/env bash
# The build of scripts/h200-opening32.sh with a CPU batch's output kept away from the
# GPU's readback pool (.device/parvlc-new) against 4b34819 (.device/parvlc): the CLI's
# wgpu decompress of 4 GiB of system files, native and gzip, wall and peak memory,
# four rounds alternating. Then the vld rows of the Huffman bench on the first GiB of
# those files in a Vulkan-only process (the CLI's GPU state), blocks of 4 KiB (the
# CLI's), 4b34819 against the quads-and-selects build (.device/parvlc-sel,
# benches/results/vldselect31-unmeasured.patch). There: bash scripts/h200-opening32b.sh
source scripts/h200-lib.sh
h200_start opening32b
unpack_device
D=/dev/shm/dec32; mkdir -p "$D"
sys_compressed "$D"
[ -f "$D/sys1g" ] || head -c 1073741824 "$D/sys.tar" > "$D/sys1g"
for f in pvl gz; do
  .device/parvlc-new decompress --backend wgpu "$D/sys.$f" -o - | cmp - "$D/sys.tar" && echo "$f, new, wgpu: equals the input"
done
decompress_rounds 4 0 parvlc parvlc-new
for b in parvlc parvlc-sel; do
  echo "== $b, sys1g, 4 KiB blocks, --backend wgpu $(date +%T)"
  .device/$b bench --backend wgpu --workgroup-size 64 --sizes 1048576 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3 "$D/sys1g" 2>&1 | grep -E "^[a-z0-9].*bytes|vld|error|panic"
done
date -u
