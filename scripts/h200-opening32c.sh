#!/usr/bin/env bash
# The build of scripts/h200-opening32.sh with the batches taken before the GPU is open
# decoded one at a time on all the cores (rayon's shared pool), as the CPU decoder runs
# (.device/parvlc-new), against 4b34819 (.device/parvlc): the CLI's wgpu decompress of
# 4 GiB of system files, native and gzip, wall and peak memory, five rounds
# alternating; --backend cpu beside them; one debug-logged run each (batches on the CPU).
# There: bash scripts/h200-opening32c.sh
source scripts/h200-lib.sh
h200_start opening32c
unpack_device
D=/dev/shm/dec32; mkdir -p "$D"
if [ ! -f "$D/sys.pvl" ]; then
  sys_files "$D"
  .device/parvlc compress -f native "$D/sys.tar" -o "$D/sys.pvl" 2>&1 | tail -1
  .device/parvlc compress -f gzip "$D/sys.tar" -o "$D/sys.gz" 2>&1 | tail -1
fi
cat "$D/sys.tar" "$D/sys.pvl" "$D/sys.gz" > /dev/null
for f in pvl gz; do
  .device/parvlc-new decompress --backend wgpu "$D/sys.$f" -o - | cmp - "$D/sys.tar" && echo "$f, new, wgpu: equals the input"
  RUST_LOG=parvlc=debug .device/parvlc-new decompress --backend wgpu "$D/sys.$f" -o - 2> "$D/log" > /dev/null
  echo "$f: $(grep -c 'CPU cores: the GPU is opening' "$D/log") batches on the CPU, $(grep -c 'run of' "$D/log") GPU runs; $(grep -E 'opened in|done after' "$D/log" | sed 's/.*DEBUG parvlc] //' | tr '\n' ' ')"
done
for round in 1 2 3 4 5; do
  for f in pvl gz; do
    for b in parvlc parvlc-new; do
      wall "round $round, $f, $b --backend wgpu" ".device/$b decompress --backend wgpu $D/sys.$f -o - > /dev/null"
    done
    wall "round $round, $f, --backend cpu" ".device/parvlc-new decompress --backend cpu $D/sys.$f -o - > /dev/null"
  done
done
date -u
