#!/usr/bin/env bash
# Issue 13: every planned frame's code table built on the device (the frame_tables stage,
# shaders/huffman/frame_tables.wgsl, and its CUDA twin) and left there for the framed
# encode, against the build before (591045e: the tables built, laid out and uploaded by
# the coder), in one call:
# 0. The CUDA twins against their CPU twins (tests/stages.rs *_cuda_equal*: frame plan,
#    DEFLATE headers, frame tables, vld) and the stream coders against the CPU's bytes
#    (tests/framed.rs: both planners, a frame too deep for the device), CUDA required.
# 1. Bytes: for each input and format, the new build's CUDA and wgpu output equals its CPU
#    backend's byte for byte and decodes (gzip -dc, parvlc decompress); 4 GiB from
#    standard input too.
# 2. The CLI, 4 GiB of system files from standard input, GNU time, arms alternating.
# 3. The library host to host (examples/stream_bench, a GiB of the same files; it decodes
#    its output before timing), new and before alternating, CUDA and wgpu.
# 4. Each chunk's phases, debug-logged (the library's GiB, gzip): CUDA, then wgpu.
# Carried in .device: parvlc, parvlc-before, stream_bench, stream_bench-before, stages,
# framed (gzipped). There, from the project root: bash scripts/h200-tables44.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-tables44}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-tables44
echo "== 0. the CUDA twins and the stream coders against the CPU"
PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=cuda .device/stages _cuda_equal 2>&1 | grep -E "^test |test result|panicked|differ" | head -20
for t in every_engine the_cuda_coder a_frame_too_deep; do
  PARVLC_REQUIRE_CUDA=1 .device/framed $t 2>&1 | grep -E "^test |test result|panicked|differ" | head -20
done
cuda_stream_inputs "$D"
echo "== 1. the stream's bytes against the CPU backend's"
for b in cuda wgpu; do
  stream_bytes $b "$D" "$P" empty one r5000 random64m zero64m sys100m sys1g
done
echo "== 2. the CLI, 4 GiB of system files from standard input"
for r in 1 2 3; do
  for b in parvlc parvlc-before; do
    for be in cuda wgpu; do
      wall "$b $be gzip run $r" ".device/$b compress --backend $be -f gzip - -o - < $D/sys.tar"
      wall "$b $be native run $r" ".device/$b compress --backend $be -f native - -o - < $D/sys.tar"
    done
  done
done
echo "== 3. the library, a GiB, host to host (medians of five runs)"
for r in 1 2 3; do
  for be in cuda wgpu; do
    library_round $r "$D/sys1g" $be stream_bench stream_bench-before
  done
done
echo "== 4. each chunk's phases (the library's GiB, gzip, two runs, debug-logged)"
cuda_phase_runs "$D/sys1g" stream_bench stream_bench-before
for b in stream_bench stream_bench-before; do
  echo "-- $b wgpu"
  BACKEND=wgpu FORMAT=gzip RUNS=2 RUST_LOG=parvlc=debug ".device/$b" "$D/sys1g" 2> "$D/$b.log" | sed -n 2p
  chunk_phases < "$D/$b.log" | grep -v "GB/s"
  plan_parts < "$D/$b.log"
done
rm -rf "$D"
date -u
