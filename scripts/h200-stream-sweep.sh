#!/usr/bin/env bash
# The chunk/depth sweep behind the stream defaults (docs/results.md). Here: ../shared/device/stage; there: bash scripts/h200-stream-sweep.sh
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
source .device/env.sh
P=.device/parvlc; D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > $D/sys.tar
cat $D/sys.tar > /dev/null
t() { local label=$1; shift; /usr/bin/time -o /tmp/t.txt -f "$label	%e	%U	%S	%P	%M" "$@"; cat /tmp/t.txt | tee -a $OUT/times.tsv; }
echo "== cold (no parvlc cache, no driver cache) then warm"
rm -rf ~/.cache/parvlc ~/.cache/nvidia ~/.nv
t "cold stdin d6" env __GL_SHADER_DISK_CACHE=0 $P compress -f gzip --depth 6 - -o - < $D/sys.tar > /dev/null
t "warm stdin d6" env __GL_SHADER_DISK_CACHE=0 $P compress -f gzip --depth 6 - -o - < $D/sys.tar > /dev/null
echo "== sweep"
for r in 1 2; do for c in 8M 12M; do for d in 3 6 8 12; do
  t "gzip stdin chunk $c depth $d" $P compress -f gzip --chunk-size $c --depth $d - -o - < $D/sys.tar > /dev/null
done; done; done
for r in 1 2; do t "gzip file d8 (fsync)" $P compress -f gzip --depth 8 $D/sys.tar -o $D/o.gz --force; done
gzip -dc $D/o.gz | cmp - $D/sys.tar && echo "gzip -dc OK"
t "native stdin d8" $P compress --depth 8 - -o - < $D/sys.tar > $D/o.pvlc
RUST_LOG=parvlc=debug $P compress -f gzip --depth 8 - -o - < $D/sys.tar 2> $OUT/log-d8.txt > /dev/null
echo done
