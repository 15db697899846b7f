#!/usr/bin/env bash
# Issue 13: the CUDA stream coder's host work cut to the wgpu coder's: every block's
# CRC32 on the device (shaders/cuda/block_crc.cu, the twin of the wgpu block_crc stage),
# a chunk coded into a vector read back straight into its place there (no writer's
# copy), the readback's vectors reused; and how a host thread waits for the device
# (PARVLC_CUDA_WAIT), against the build before (7658c0c), in one call:
# 0. The CUDA twins against their CPU twins (tests/stages.rs *_cuda_equal*, block_crc
#    among them) and the stream coders against the CPU's bytes (tests/framed.rs), CUDA
#    required.
# 1. Bytes: for each input and format, the new build's CUDA output (and wgpu's, whose
#    placing code moved) equals its CPU backend's byte for byte and decodes.
# 2. The library host to host (examples/stream_bench, a GiB of system files; it decodes
#    its output before timing): new, new waiting blocked (PARVLC_CUDA_WAIT=blocking),
#    new yielding, before, alternating; then wgpu new and before.
# 3. The CLI, 4 GiB of system files from standard input, GNU time, arms alternating.
# 4. Each chunk's phases, debug-logged (the library's GiB, gzip, CUDA).
# Carried in .device: parvlc, parvlc-before, stream_bench, stream_bench-before, stages,
# framed (gzipped). There, from the project root: bash scripts/h200-place45.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-place45}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-place45
for w in blocking yield; do
  printf '#!/bin/sh\nPARVLC_CUDA_WAIT=%s exec .device/stream_bench "$@"\n' $w > .device/stream_bench-$w
  chmod +x .device/stream_bench-$w
done
echo "== 0. the CUDA twins and the stream coders against the CPU"
PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=cuda .device/stages _cuda_equal 2>&1 | grep -E "^test |test result|panicked|differ" | head -20
for t in every_engine the_cuda_coder a_frame_too_deep compress_to_vec_places; do
  PARVLC_REQUIRE_CUDA=1 .device/framed $t 2>&1 | grep -E "^test |test result|panicked|differ" | head -20
done
cuda_stream_inputs "$D"
echo "== 1. the stream's bytes against the CPU backend's"
stream_bytes cuda "$D" "$P" empty one r5000 random64m zero64m sys100m sys1g
PARVLC_CUDA_WAIT=blocking "$P" compress --backend cuda -f gzip "$D/sys100m" -o "$D/c.gpu" --force 2>/dev/null
"$P" compress --backend cpu -f gzip "$D/sys100m" -o "$D/c.cpu" --force 2>/dev/null
cmp "$D/c.gpu" "$D/c.cpu" && echo "cuda waiting blocked, sys100m gzip: the CPU's bytes"
stream_bytes wgpu "$D" "$P" one r5000 sys100m
echo "== 2. the library, a GiB, host to host (best and median of five runs)"
for r in 1 2 3; do
  library_round $r "$D/sys1g" cuda stream_bench stream_bench-blocking stream_bench-before stream_bench-yield
done
for r in 1 2; do
  library_round $r "$D/sys1g" wgpu stream_bench stream_bench-before
done
echo "== 3. the CLI, 4 GiB of system files from standard input"
for r in 1 2 3; do
  for b in parvlc parvlc-before; do
    for be in cuda wgpu; do
      wall "$b $be gzip run $r" ".device/$b compress --backend $be -f gzip - -o - < $D/sys.tar"
      wall "$b $be native run $r" ".device/$b compress --backend $be -f native - -o - < $D/sys.tar"
    done
  done
  wall "parvlc cuda blocking gzip run $r" "PARVLC_CUDA_WAIT=blocking $P compress --backend cuda -f gzip - -o - < $D/sys.tar"
done
echo "== 4. each chunk's phases (the library's GiB, gzip, two runs, debug-logged)"
cuda_phase_runs "$D/sys1g" stream_bench stream_bench-blocking stream_bench-before
rm -rf "$D"
date -u
