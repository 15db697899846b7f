#!/usr/bin/env bash
# Issue 13, the forty-seventh pass: the CUDA stream coder's plan read back in one wait
# (its words, the gzip headers, the cell histograms and the block CRC32s queued into one
# pinned buffer: `CudaGpu::download_together`) against the build before (four
# synchronous copies through the driver's pageable staging), in one call:
# 0. The stream and stage tests with CUDA required.
# 1. The library host to host (a GiB of system files), CUDA then wgpu, both formats, the
#    two builds alternating, three rounds (best and median of five runs).
# 2. Each build's CUDA gzip chunk phases (two debug-logged runs).
# 3. The CLI, 4 GiB from standard input to /dev/null, CUDA, both formats, three runs.
# Carried in .device: stream_bench, stream_bench-old, framed, stages, parvlc (gzipped).
# There, from the project root: bash scripts/h200-together47.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-together47}"
unpack_device
D=/dev/shm/parvlc-together47
echo "== 0. the tests, CUDA required"
PARVLC_REQUIRE_CUDA=1 .device/framed 2>&1 | grep -E "test result|panicked|differ|FAILED" | head -10
PARVLC_REQUIRE_CUDA=1 .device/stages cuda 2>&1 | grep -E "test result|panicked|differ|FAILED" | head -10
sys_files "$D"
echo "== 1. the library, a GiB, host to host (best and median of five runs)"
for r in 1 2 3; do
  for be in cuda wgpu; do
    library_round $r "$D/sys1g" $be stream_bench stream_bench-old
  done
done
echo "== 2. CUDA gzip chunk phases"
cuda_phase_runs "$D/sys1g" stream_bench stream_bench-old
echo "== 3. the CLI, 4 GiB from standard input, output thrown away"
for r in 1 2 3; do
  for fmt in gzip native; do
    wall "cli cuda $fmt run $r" ".device/parvlc compress --backend cuda -f $fmt - -o - < $D/sys.tar > /dev/null"
  done
done
.device/parvlc compress --backend cuda -f gzip - -o - < "$D/sys.tar" | gzip -dc | cmp - "$D/sys.tar" && echo "cli cuda gzip: gzip -dc gives the input"
rm -rf "$D"
date -u
