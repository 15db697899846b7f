#!/usr/bin/env bash
# Issue 13: the CUDA stream coder's frames planned on the device (shaders/cuda/frame_plan.cu,
# the twin of the wgpu frame plan) against the build before (the frames planned on the
# coder's core), in one call:
# 0. The CUDA twins against their CPU twins (tests/stages.rs *_cuda_equals_its_twin:
#    frame plan, DEFLATE headers, vld) and the stream coders against the CPU's bytes,
#    both planners (tests/framed.rs), PARVLC_REQUIRE_CUDA=1.
# 1. Bytes: for each input and format, the new CUDA output equals the CPU backend's byte
#    for byte and decodes (gzip -dc, parvlc decompress); 4 GiB from standard input too.
# 2. The CLI, 4 GiB of system files from standard input, GNU time, arms alternating.
# 3. The library host to host (examples/stream_bench, a GiB of the same files; it decodes
#    its output before timing), CUDA new and before alternating, new with its frames
#    planned on the host (PLANNER=host), wgpu beside them.
# 4. Each chunk's phases, debug-logged (the library's GiB, gzip).
# Carried in .device: parvlc, parvlc-before, stream_bench, stream_bench-before, stages,
# framed (gzipped). There, from the project root: bash scripts/h200-plan43.sh (BENCHES
# names the stream_bench builds of parts 3 and 4; the third call: NAME=heads43
# BENCHES="stream_bench stream_bench-plan stream_bench-before", -plan the build before
# the CUDA DEFLATE headers, f479f20).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-plan43}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-plan43
echo "== 0. the CUDA frame plan and stream coders against the CPU"
PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=cuda .device/stages _cuda_equals 2>&1 | grep -E "^test |test result|panicked|differ" | head -20
for t in every_engine the_cuda_coder; do
  PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=cuda .device/framed $t 2>&1 | grep -E "^test |test result|panicked|differ" | head -20
done
cuda_stream_inputs "$D"
echo "== 1. the CUDA stream's bytes against the CPU backend's"
cuda_stream_bytes "$D" "$P" empty one r5000 random64m sys100m sys1g
echo "== 2. the CLI, 4 GiB of system files from standard input"
for r in 1 2 3; do
  for b in parvlc parvlc-before; do
    wall "$b cuda gzip run $r" ".device/$b compress --backend cuda -f gzip - -o - < $D/sys.tar"
    wall "$b cuda native run $r" ".device/$b compress --backend cuda -f native - -o - < $D/sys.tar"
  done
  wall "parvlc wgpu gzip run $r" "$P compress --backend wgpu -f gzip - -o - < $D/sys.tar"
  wall "parvlc wgpu native run $r" "$P compress --backend wgpu -f native - -o - < $D/sys.tar"
done
echo "== 3. the library, a GiB, host to host (medians of five runs)"
for r in 1 2; do
  # shellcheck disable=SC2086
  library_round $r "$D/sys1g" cuda ${BENCHES:-stream_bench stream_bench-before}
  for fmt in native gzip; do
    echo "stream_bench cuda, planned on the host, $fmt round $r: $(BACKEND=cuda PLANNER=host FORMAT=$fmt RUNS=5 .device/stream_bench "$D/sys1g" | sed -n 2p)"
  done
  library_round $r "$D/sys1g" wgpu stream_bench
done
echo "== 4. each chunk's phases (the library's GiB, gzip, two runs, debug-logged)"
# shellcheck disable=SC2086
cuda_phase_runs "$D/sys1g" ${BENCHES:-stream_bench stream_bench-before}
rm -rf "$D"
date -u
