#!/usr/bin/env bash
# vld's two entry points: `main` (a workgroup per frame's run of blocks, its table in
# workgroup memory; .device/parvlc) and `main_global` (a workgroup per 64 consecutive
# blocks of any frames, tables read from storage; .device/parvlc-global, the same commit
# with DEFAULT_TABLES = Global). The CLI's GPU decode of 4 GiB of system files (native and
# gzip, 4 KiB blocks), alternating, outputs checked first; then the bench's vld rows
# (both entry points) on 1 GiB at 4.5 bits and on 1 GiB of the system files.
set -uo pipefail
source .device/env.sh
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > $D/sys.tar
X=.device/parvlc; G=.device/parvlc-global
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$X compress -f gzip - -o - < $D/sys.tar 2>/dev/null > $D/s.gz
$X compress -f native - -o - < $D/sys.tar 2>/dev/null > $D/s.pvlc
for f in s.gz s.pvlc; do $G decompress --backend wgpu $D/$f -o - 2>/dev/null | cmp - $D/sys.tar && echo "global, $f: gives the input"; done
for r in 1 2 3; do
  for f in s.pvlc s.gz; do
    t "main:        decompress $f --backend wgpu" "$X decompress --backend wgpu $D/$f -o -"
    t "main_global: decompress $f --backend wgpu" "$G decompress --backend wgpu $D/$f -o -"
  done
  t "cpu:         decompress s.pvlc" "$X decompress --backend cpu $D/s.pvlc -o -"
done
RUST_LOG=parvlc=debug $G decompress --backend wgpu $D/s.pvlc -o - 2> $OUT/debug-global.log > /dev/null
grep "vld run" $OUT/debug-global.log | sed 's/.*frames, \([0-9]*\) bytes: codes checked \([0-9.]*\) ms, GPU round trip \([0-9.]*\) ms, CRCs \([0-9.]*\) ms/\1 \2 \3 \4/' | awk '{n++; b+=$1; c+=$2; g+=$3; r+=$4} END {if (n) printf "global native: runs %d, mean bytes %.0f, codes %.2f ms, round trip %.2f ms, CRCs %.2f ms\n", n, b/n, c/n, g/n, r/n}'
head -c 1073741824 $D/sys.tar > $D/sys1g.bin
B="--sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3 --workgroup-size 64"
$X bench $B --json $OUT/bench.jsonl $D/sys1g.bin 2>&1 | grep -i "vld\|error\|panic"
