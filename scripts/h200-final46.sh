#!/usr/bin/env bash
# Issue 13, the forty-sixth pass's closing call: the streaming copy (src/host_copy.rs:
# non-temporal stores for the stream coders' large copies, wgpu's input through
# `write_buffer_with`) and the gzip index's version 3, in one call:
# 0. The CUDA twins and the stream tests with CUDA required.
# 1. examples/host_copy_bench: glibc's copy against the streaming copy, 1-16 threads.
# 2. Bytes: the CLI's output on wgpu and CUDA against the CPU backend's, and decoded.
# 3. The library host to host (a GiB of system files), wgpu and CUDA, both formats, new
#    against before (b49c81d: version 3, glibc's copies), three rounds alternating.
# 4. The CLI, 4 GiB of system files from standard input, new against before: compress
#    (gzip, native; wgpu, CUDA) and decompress (wgpu), two rounds.
# Carried in .device: parvlc, stream_bench, host_copy_bench, stages, framed, and the
# build before's parvlc-old, stream_bench-old (gzipped).
# There, from the project root: bash scripts/h200-final46.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-final46}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-final46
echo "== 0. the CUDA twins and the stream tests, CUDA required"
PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=cuda .device/stages _cuda_equal 2>&1 | grep -E "test result|panicked|differ" | head -5
PARVLC_REQUIRE_CUDA=1 .device/framed 2>&1 | grep -E "test result|panicked|differ|FAILED" | head -10
echo "== 1. the host's copies"
.device/host_copy_bench 1024
cuda_stream_inputs "$D"
echo "== 2. the stream's bytes against the CPU backend's"
stream_bytes wgpu "$D" "$P" one r5000 random64m sys100m
stream_bytes cuda "$D" "$P" one r5000 sys100m
echo "== 3. the library, a GiB, host to host (best and median of five runs)"
for r in 1 2 3; do
  for be in wgpu cuda; do
    library_round $r "$D/sys1g" $be stream_bench stream_bench-old
  done
done
echo "== 4. the CLI, 4 GiB of system files from standard input"
"$P" compress -f native - -o "$D/sys.pvlc" < "$D/sys.tar" 2>/dev/null
"$P" compress -f gzip - -o "$D/sys.gz" < "$D/sys.tar" 2>/dev/null
"$P" decompress --backend wgpu "$D/sys.gz" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "gzip, version 3: decompress --backend wgpu gives the input"
for r in 1 2; do
  for b in parvlc parvlc-old; do
    for be in wgpu cuda; do
      for fmt in gzip native; do
        wall "$b $be $fmt run $r" ".device/$b compress --backend $be -f $fmt - -o - < $D/sys.tar"
      done
    done
    wall "$b decompress wgpu gzip run $r" ".device/$b decompress --backend wgpu $D/sys.gz -o -"
    wall "$b decompress wgpu native run $r" ".device/$b decompress --backend wgpu $D/sys.pvlc -o -"
  done
done
rm -rf "$D"
date -u
