#!/usr/bin/env bash
# gzip decode from a regular file (commit after 8e85000, with its debug lines): batch
# sizes (--chunk-size) 8, 16 and 32 MiB on each backend, alternating, and where a GPU
# batch's time goes (RUST_LOG=parvlc=debug); native decode beside it. 4 GiB of system
# files in the page cache, output to /dev/null, checked first.
set -uo pipefail
source .device/env.sh
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > $D/sys.tar
X=.device/parvlc
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$X compress -f gzip - -o - < $D/sys.tar 2>/dev/null > $D/new.gz
$X compress -f native - -o - < $D/sys.tar 2>/dev/null > $D/new.pvlc
for be in cpu wgpu cuda; do $X decompress --backend $be $D/new.gz -o - 2>/dev/null | cmp - $D/sys.tar && echo "gzip, $be: gives the input"; done
for r in 1 2; do
  for be in cpu wgpu cuda; do for c in 8M 16M 32M; do
    t "decompress new.gz --backend $be --chunk-size $c" "$X decompress --backend $be --chunk-size $c $D/new.gz -o -"
  done; done
  for be in wgpu cpu; do t "decompress new.pvlc --backend $be" "$X decompress --backend $be $D/new.pvlc -o -"; done
done
for be in wgpu cuda; do
  RUST_LOG=parvlc=debug $X decompress --backend $be $D/new.gz -o - 2> $OUT/debug-$be.log > /dev/null
  grep "gzip run" $OUT/debug-$be.log | sed 's/.*frames, \([0-9]*\) bytes: codes read \([0-9.]*\) ms, GPU round trip \([0-9.]*\) ms, output and CRCs \([0-9.]*\) ms/\1 \2 \3 \4/' | awk -v be=$be '{n++; b+=$1; c+=$2; g+=$3; r+=$4} END {if (n) printf "%s: gzip runs %d, mean bytes %.0f, codes read %.2f ms, round trip %.2f ms, output+CRCs %.2f ms\n", be, n, b/n, c/n, g/n, r/n}'
  grep "read at its offsets" $OUT/debug-$be.log | sed 's/.* in \([0-9.]*\) ms/\1/' | awk -v be=$be '{n++; s+=$1} END {if (n) printf "%s: batches read %d, mean %.2f ms\n", be, n, s/n}'
done
RUST_LOG=parvlc=debug $X decompress --backend wgpu $D/new.pvlc -o - 2> $OUT/debug-native.log > /dev/null
grep "vld run" $OUT/debug-native.log | sed 's/.*frames, \([0-9]*\) bytes: codes checked \([0-9.]*\) ms, GPU round trip \([0-9.]*\) ms, CRCs \([0-9.]*\) ms/\1 \2 \3 \4/' | awk '{n++; b+=$1; c+=$2; g+=$3; r+=$4} END {if (n) printf "native wgpu: runs %d, mean bytes %.0f, codes %.2f ms, round trip %.2f ms, CRCs %.2f ms\n", n, b/n, c/n, g/n, r/n}'
