#!/usr/bin/env bash
# Opening the GPU: the build before (281f340, instance with every backend wgpu has) against
# this one (primary backends first, GL only as a fallback), WGPU_BACKEND unset as a user
# runs it (the stage's env sets it to vulkan), then set, for reference.
set -uo pipefail
source .device/env.sh
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=/tmp/o; mkdir -p $D
head -c 65536 /dev/urandom > $D/small.bin
python3 scripts/ppm.py make $D/p4k.ppm 3840 2160
for b in parvlc-old parvlc; do
  env -u WGPU_BACKEND RUST_LOG=parvlc=info .device/$b compress --backend wgpu -f native $D/small.bin -o $D/s.pvlc --force 2>&1 | grep "GPU:"
  env -u WGPU_BACKEND .device/$b j2k $D/p4k.ppm -o $D/$b.j2k --force > /dev/null 2>&1
done
cmp $D/parvlc-old.j2k $D/parvlc.j2k && echo "j2k outputs equal"
for r in 1 2 3 4 5; do for b in parvlc-old parvlc; do
  env -u WGPU_BACKEND /usr/bin/time -f "$b compress 64 KiB, WGPU_BACKEND unset: %e s" .device/$b compress --backend wgpu -f native $D/small.bin -o $D/s.pvlc --force > /dev/null 2>> $D/t.txt; tail -1 $D/t.txt
done; done
for r in 1 2 3; do for b in parvlc-old parvlc; do
  /usr/bin/time -f "$b compress 64 KiB, WGPU_BACKEND=vulkan: %e s" .device/$b compress --backend wgpu -f native $D/small.bin -o $D/s.pvlc --force > /dev/null 2>> $D/t.txt; tail -1 $D/t.txt
done; done
for r in 1 2 3; do for b in parvlc-old parvlc; do
  env -u WGPU_BACKEND /usr/bin/time -f "$b j2k 4K RGB, WGPU_BACKEND unset: %e s" .device/$b j2k $D/p4k.ppm -o $D/x.j2k --force > /dev/null 2>> $D/t.txt; tail -1 $D/t.txt
done; done
