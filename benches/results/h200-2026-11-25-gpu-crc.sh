#!/usr/bin/env bash
# Frame CRC32s on the GPU (08b22f3: each block's CRC32 in a pass after the decode, folded
# on the host) against the CPU cores' (5112253, .device/parvlc-prev), alternating: the
# CLI's wgpu decode of 4 GiB of system files, native and gzip, outputs checked first;
# then the bench's vld rows (1 GiB, 4.5 bits and the system files, 4 KiB blocks).
set -uo pipefail
source .device/env.sh
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > $D/sys.tar
X=.device/parvlc; P=.device/parvlc-prev
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$X compress -f gzip - -o - < $D/sys.tar 2>/dev/null > $D/s.gz
$X compress -f native - -o - < $D/sys.tar 2>/dev/null > $D/s.pvlc
for f in s.gz s.pvlc; do for be in wgpu cuda cpu; do $X decompress --backend $be $D/$f -o - 2>/dev/null | cmp - $D/sys.tar && echo "$f, $be: gives the input"; done; done
for r in 1 2 3; do
  for f in s.pvlc s.gz; do
    t "cpu crc (prev): decompress $f --backend wgpu" "$P decompress --backend wgpu $D/$f -o -"
    t "gpu crc (new):  decompress $f --backend wgpu" "$X decompress --backend wgpu $D/$f -o -"
  done
done
for f in s.pvlc s.gz; do for be in cuda cpu; do t "new: decompress $f --backend $be" "$X decompress --backend $be $D/$f -o -"; done; done
head -c 1073741824 $D/sys.tar > $D/sys1g.bin
B="--sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3 --workgroup-size 64"
$X bench $B --json $OUT/bench.jsonl $D/sys1g.bin 2>&1 | grep -i "vld\|error\|panic"
