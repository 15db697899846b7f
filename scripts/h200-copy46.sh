#!/usr/bin/env bash
# Issue 13, the forty-sixth pass: whether glibc's memcpy strategy bounds the library's
# host-to-host compress. Both engines copy every input byte into pinned or mapped staging
# and every coded byte out of it, from a dozen threads; glibc switches to non-temporal
# stores only above a size threshold (GLIBC_TUNABLES glibc.cpu.x86_non_temporal_threshold).
# In one call:
# 1. The machine: glibc, caches; examples/host_copy_bench at the default threshold, at
#    1 MiB (every large copy non-temporal) and at 4 GiB (none).
# 2. The library host to host (a GiB of system files), wgpu and CUDA, both formats, the
#    three thresholds, two rounds.
# 3. The CLI, 4 GiB of system files from standard input, gzip, wgpu and CUDA, default and
#    1 MiB.
# Carried in .device: parvlc, stream_bench, host_copy_bench (gzipped).
# There, from the project root: bash scripts/h200-copy46.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-copy46}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-copy46
sys_files "$D"
NT=glibc.cpu.x86_non_temporal_threshold
echo "== 1. the machine"
ldd --version | head -1
for i in 0 1 2 3; do
  c=/sys/devices/system/cpu/cpu0/cache/index$i
  [ -d $c ] && echo "cache L$(cat $c/level) $(cat $c/type): $(cat $c/size), shared by cpus $(cat $c/shared_cpu_list)"
done
lscpu | grep -E "Model name|Socket|NUMA node|Thread" | head -8
for t in default 0x100000 0x100000000; do
  echo "-- host_copy_bench, threshold $t"
  if [ $t = default ]; then .device/host_copy_bench 1024; else GLIBC_TUNABLES=$NT=$t .device/host_copy_bench 1024; fi
done
echo "== 2. the library, a GiB, host to host (best and median of five runs)"
for r in 1 2; do
  for t in default 0x100000 0x100000000; do
    echo "-- threshold $t"
    for be in wgpu cuda; do
      if [ $t = default ]; then library_round $r "$D/sys1g" $be stream_bench
      else GLIBC_TUNABLES=$NT=$t library_round $r "$D/sys1g" $be stream_bench; fi
    done
  done
done
echo "== 3. the CLI, 4 GiB of system files from standard input, gzip"
"$P" compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "wgpu gzip: gzip -dc gives the input"
GLIBC_TUNABLES=$NT=0x100000 "$P" compress --backend cuda -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "cuda gzip, 1 MiB: gzip -dc gives the input"
for r in 1 2 3; do
  for be in wgpu cuda; do
    wall "$be gzip default run $r" "$P compress --backend $be -f gzip - -o - < $D/sys.tar"
    wall "$be gzip 1 MiB run $r" "GLIBC_TUNABLES=$NT=0x100000 $P compress --backend $be -f gzip - -o - < $D/sys.tar"
  done
done
rm -rf "$D"
date -u
