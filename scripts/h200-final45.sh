#!/usr/bin/env bash
# Issue 13, the forty-fifth pass's closing call: the pass's final build (block CRC32s on
# the device, the readback into place, the readback's vectors allocated as before), in
# one call:
# 0. The CUDA twins and the stream coders against the CPU (as h200-place45.sh).
# 1. Bytes: the CUDA output against the CPU backend's, and decoded; a GiB decoded on
#    CUDA (the decoder's block CRC32s, whose code block_crc.cu now shares).
# 2. The library host to host (a GiB of system files), CUDA and wgpu, three rounds.
# 3. The CLI's CUDA pipeline shape, 4 GiB of system files from standard input, GNU time
#    (wall and peak): the default (8 chunks of 4 MiB in flight), --depth 12,
#    --chunk-size 8M, both; wgpu's default beside them; rounds alternating.
# Carried in .device: parvlc, stream_bench, stages, framed (gzipped).
# There, from the project root: bash scripts/h200-final45.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-final45}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-final45
echo "== 0. the CUDA twins and the stream coders against the CPU"
PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=cuda .device/stages _cuda_equal 2>&1 | grep -E "^test |test result|panicked|differ" | head -20
for t in every_engine the_cuda_coder a_frame_too_deep compress_to_vec_places; do
  PARVLC_REQUIRE_CUDA=1 .device/framed $t 2>&1 | grep -E "^test |test result|panicked|differ" | head -20
done
cuda_stream_inputs "$D"
echo "== 1. the stream's bytes against the CPU backend's"
stream_bytes cuda "$D" "$P" one r5000 random64m sys100m sys1g
# The decoder's block CRC32s (shaders/cuda/vld.cu, now on shaders/cuda/crc32.cuh shared
# with block_crc.cu) check every frame of a CUDA decode.
for fmt in native gzip; do
  "$P" compress --backend cuda -f $fmt "$D/sys1g" -o "$D/c.$fmt" --force 2>/dev/null
  "$P" decompress --backend cuda "$D/c.$fmt" -o - 2>&1 >"$D/d.out" | tail -1
  cmp "$D/d.out" "$D/sys1g" && echo "decompress --backend cuda, $fmt: the input"
  rm -f "$D/c.$fmt" "$D/d.out"
done
echo "== 2. the library, a GiB, host to host (best and median of five runs)"
for r in 1 2 3; do
  for be in cuda wgpu; do
    library_round $r "$D/sys1g" $be stream_bench
  done
done
echo "== 3. the CLI, 4 GiB of system files from standard input"
for r in 1 2 3; do
  for fmt in gzip native; do
    for shape in "" "--depth 12" "--chunk-size 8M" "--depth 12 --chunk-size 8M"; do
      wall "cuda $fmt ${shape:-default} run $r" "$P compress --backend cuda -f $fmt $shape - -o - < $D/sys.tar"
    done
    wall "wgpu $fmt default run $r" "$P compress --backend wgpu -f $fmt - -o - < $D/sys.tar"
  done
done
rm -rf "$D"
date -u
