#!/usr/bin/env bash
# gzip decode from a regular file after 8e85000 (batches across members; the reader walks
# member headers with positional reads and the decoders read the frames at their offsets)
# against 116eae4 (.device/parvlc-prev: one member a batch, frames read by the reader),
# alternating; 4 GiB of system files in the page cache, output to /dev/null, checked first.
set -uo pipefail
source .device/env.sh
export PATH=/usr/local/cuda-13.0/bin:$PATH
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /work/main/target/release && cp .device/parvlc /work/main/target/release/parvlc
D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > $D/sys.tar
X=.device/parvlc; P=.device/parvlc-prev
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$X compress -f gzip - -o - < $D/sys.tar 2>/dev/null > $D/new.gz
$X compress -f native - -o - < $D/sys.tar 2>/dev/null > $D/new.pvlc
for be in cpu wgpu cuda; do $X decompress --backend $be $D/new.gz -o - 2>/dev/null | cmp - $D/sys.tar && echo "gzip, $be: gives the input"; done
cat $D/new.gz | $X decompress --backend wgpu - -o - 2>/dev/null | cmp - $D/sys.tar && echo "gzip from a pipe, wgpu: gives the input"
for r in 1 2 3; do
  for be in cpu wgpu cuda; do
    t "prev: decompress new.gz --backend $be" "$P decompress --backend $be $D/new.gz -o -"
    t "new:  decompress new.gz --backend $be" "$X decompress --backend $be $D/new.gz -o -"
  done
  t "new:  decompress new.gz --backend wgpu, stdin pipe" "cat $D/new.gz | $X decompress --backend wgpu - -o -"
  for be in wgpu cpu; do t "new:  decompress new.pvlc --backend $be" "$X decompress --backend $be $D/new.pvlc -o -"; done
done
PARVLC_REQUIRE_CUDA=1 ./.device/gzip_gpu_decode 2>&1 | grep -E "^test |test result|panicked" -A3
