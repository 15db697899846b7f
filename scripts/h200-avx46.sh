#!/usr/bin/env bash
# Issue 13, the forty-sixth pass: the streaming copy with AVX stores, four pages
# interleaved (src/host_copy.rs), against the build before it (b49c81d: glibc's copies)
# and that build with glibc's own non-temporal copies from 1 MiB on (GLIBC_TUNABLES), in
# one call:
# 0. The stream tests with CUDA required.
# 1. examples/host_copy_bench: glibc's copy against the streaming copy, 1-16 threads;
#    glibc's copy again with its non-temporal threshold at 1 MiB.
# 2. The library host to host (a GiB of system files), wgpu and CUDA, both formats, the
#    three arms alternating, three rounds.
# Carried in .device: stream_bench, host_copy_bench, framed, stream_bench-old (gzipped).
# There, from the project root: bash scripts/h200-avx46.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-avx46}"
unpack_device
D=/dev/shm/parvlc-avx46
NT=glibc.cpu.x86_non_temporal_threshold
echo "== 0. the stream tests, CUDA required"
PARVLC_REQUIRE_CUDA=1 .device/framed 2>&1 | grep -E "test result|panicked|differ|FAILED" | head -10
grep -o -m1 -w "avx2\|avx" /proc/cpuinfo | head -1
echo "== 1. the host's copies"
.device/host_copy_bench 1024
echo "-- glibc's non-temporal threshold at 1 MiB"
GLIBC_TUNABLES=$NT=0x100000 .device/host_copy_bench 1024 | grep "^copy"
sys_1g "$D"
echo "== 2. the library, a GiB, host to host (best and median of five runs)"
for r in 1 2 3; do
  for be in wgpu cuda; do
    library_round $r "$D/sys1g" $be stream_bench stream_bench-old
    echo "(the next two: the build before, glibc's threshold at 1 MiB)"
    GLIBC_TUNABLES=$NT=0x100000 library_round $r "$D/sys1g" $be stream_bench-old
  done
done
rm -rf "$D"
date -u
