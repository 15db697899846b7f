#!/usr/bin/env bash
# The CUDA twin of block_crcs: the CUDA tests (PARVLC_REQUIRE_CUDA=1), then CUDA decode
# with frame CRC32s on the GPU (this build, .device/parvlc) against the CPU cores'
# (08b22f3, .device/parvlc-prev), alternating, on 4 GiB of system files, outputs checked.
set -uo pipefail
source .device/env.sh
export PATH=/usr/local/cuda-13.0/bin:$PATH
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /work/main/target/release && cp .device/parvlc /work/main/target/release/parvlc
PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=wgpu,cuda ./.device/stages vld 2>&1 | grep -E "^test |test result|panicked" -A3
PARVLC_REQUIRE_CUDA=1 ./.device/gpu_decode 2>&1 | grep -E "^test |test result|panicked" -A3
PARVLC_REQUIRE_CUDA=1 ./.device/gzip_gpu_decode 2>&1 | grep -E "^test |test result|panicked" -A3
D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > $D/sys.tar
X=.device/parvlc; P=.device/parvlc-prev
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$X compress -f gzip - -o - < $D/sys.tar 2>/dev/null > $D/s.gz
$X compress -f native - -o - < $D/sys.tar 2>/dev/null > $D/s.pvlc
for f in s.gz s.pvlc; do $X decompress --backend cuda $D/$f -o - 2>/dev/null | cmp - $D/sys.tar && echo "$f, cuda: gives the input"; done
for r in 1 2 3; do
  for f in s.pvlc s.gz; do
    t "cpu crc (prev): decompress $f --backend cuda" "$P decompress --backend cuda $D/$f -o -"
    t "gpu crc (new):  decompress $f --backend cuda" "$X decompress --backend cuda $D/$f -o -"
  done
  for be in wgpu cpu; do t "new: decompress s.pvlc --backend $be" "$X decompress --backend $be $D/s.pvlc -o -"; done
done
