#!/usr/bin/env bash
# The CLI's GPU decompress of a file with the GPU opened while the stream starts (this
# build, .device/parvlc-new: the batches ready before wgpu is open decode on the CPU
# cores) against 4b34819 (.device/parvlc: the stream waits for the GPU), 4 GiB of the
# machine's system files, native and our gzip, to /dev/null; --backend cpu beside them.
# Outputs compared with the input first; four rounds alternating; one debug-logged run
# each (how many batches the CPU took). Both builds with the `cuda` feature.
# There: bash scripts/h200-opening32.sh
source scripts/h200-lib.sh
h200_start opening32
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
for round in 1 2 3 4; do
  for f in pvl gz; do
    for b in parvlc parvlc-new; do
      wall "round $round, $f, $b --backend wgpu" ".device/$b decompress --backend wgpu $D/sys.$f -o - > /dev/null"
    done
    wall "round $round, $f, --backend cpu" ".device/parvlc-new decompress --backend cpu $D/sys.$f -o - > /dev/null"
  done
done
date -u
