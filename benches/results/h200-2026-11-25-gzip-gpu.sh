#!/usr/bin/env bash
# GPU decode of our gzip (index version 2) and the pooled, pinned CUDA decoder, on 4 GiB
# of system files (page cache, output to /dev/null), outputs checked first. Builds: the
# session's (.device/parvlc, with the cuda feature) and d433547 before it
# (.device/parvlc-old), alternating. Then the CUDA and wgpu tests of these paths.
set -uo pipefail
source .device/env.sh
export PATH=/usr/local/cuda-13.0/bin:$PATH
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
mkdir -p /work/main/target/release && cp .device/parvlc /work/main/target/release/parvlc
D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > $D/sys.tar
X=.device/parvlc; O=.device/parvlc-old
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$X compress -f gzip - -o - < $D/sys.tar 2>/dev/null > $D/new.gz
$O compress -f gzip - -o - < $D/sys.tar 2>/dev/null > $D/old.gz
$X compress -f native - -o - < $D/sys.tar 2>/dev/null > $D/new.pvlc
ls -l $D/new.gz $D/old.gz $D/new.pvlc | awk '{print $5, $9}'
gzip -dc $D/new.gz | cmp - $D/sys.tar && echo "gzip -dc new.gz: gives the input"
for be in cpu wgpu cuda; do $X decompress --backend $be $D/new.gz -o - 2>/dev/null | cmp - $D/sys.tar && echo "gzip, $be: gives the input"; done
for be in wgpu cuda; do $X decompress --backend $be $D/new.pvlc -o - 2>/dev/null | cmp - $D/sys.tar && echo "native, $be: gives the input"; done
for r in 1 2; do
  t "old: compress -f gzip stdin" "$O compress -f gzip - -o - < $D/sys.tar"
  t "new: compress -f gzip stdin" "$X compress -f gzip - -o - < $D/sys.tar"
done
for r in 1 2 3; do
  t "old: decompress old.gz --backend cpu" "$O decompress --backend cpu $D/old.gz -o -"
  for be in cpu wgpu cuda; do t "new: decompress new.gz --backend $be" "$X decompress --backend $be $D/new.gz -o -"; done
  t "old: decompress new.pvlc --backend cuda" "$O decompress --backend cuda $D/new.pvlc -o -"
  for be in cuda wgpu cpu; do t "new: decompress new.pvlc --backend $be" "$X decompress --backend $be $D/new.pvlc -o -"; done
done
RUST_LOG=parvlc=debug $X decompress --backend cuda $D/new.pvlc -o - 2> $OUT/debug-cuda.log > /dev/null
grep "vld run" $OUT/debug-cuda.log | sed 's/.*frames, \([0-9]*\) bytes: codes checked \([0-9.]*\) ms, GPU round trip \([0-9.]*\) ms, CRCs \([0-9.]*\) ms/\1 \2 \3 \4/' | awk '{n++; b+=$1; c+=$2; g+=$3; r+=$4} END {if (n) printf "cuda runs %d, mean bytes %.0f, codes %.2f ms, round trip %.2f ms, CRCs %.2f ms\n", n, b/n, c/n, g/n, r/n}'
PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=wgpu,cuda ./.device/stages vld 2>&1 | grep -E "^test |test result"
PARVLC_REQUIRE_CUDA=1 ./.device/gpu_decode cuda_decode 2>&1 | grep -E "^test |test result"
PARVLC_REQUIRE_CUDA=1 ./.device/gzip_gpu_decode 2>&1 | grep -E "^test |test result|panicked" -A3
