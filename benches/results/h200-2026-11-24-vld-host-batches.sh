source .device/env.sh
D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$D/sys.tar"
X=./.device/parvlc
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$X compress -f native - -o - < $D/sys.tar 2>/dev/null > $D/o.pvlc
EXP_DECODERS=8 EXP_BATCH_MIB=8 $X decompress --backend wgpu $D/o.pvlc -o - 2>/dev/null | cmp - $D/sys.tar && echo "GPU decoder (8 x 8 MiB) gives the input"
RUST_LOG=parvlc=debug $X decompress --backend wgpu $D/o.pvlc -o - 2> $OUT/debug.log > /dev/null
grep -c "vld run" $OUT/debug.log
grep "vld run" $OUT/debug.log | sed 's/.*frames, \([0-9]*\) bytes: codes checked \([0-9.]*\) ms, GPU round trip \([0-9.]*\) ms, CRCs \([0-9.]*\) ms/\1 \2 \3 \4/' | awk '{n++; b+=$1; c+=$2; g+=$3; r+=$4} END {printf "runs %d, mean bytes %.0f, codes %.2f ms, round trip %.2f ms, CRCs %.2f ms\n", n, b/n, c/n, g/n, r/n}'
grep "vld upload" $OUT/debug.log | sed 's/.*plan and tables \([0-9.]*\) ms, payload \([0-9.]*\) ms, tables and blocks \([0-9.]*\) ms/\1 \2 \3/' | awk '{n++; a+=$1; b+=$2; c+=$3} END {printf "uploads %d: plan %.2f ms, payload %.2f ms, tables+blocks %.2f ms\n", n, a/n, b/n, c/n}'
grep -v "vld run\|vld upload" $OUT/debug.log | head -20
for r in 1 2; do
  t "cpu" "$X decompress $D/o.pvlc -o -"
  for cfg in 3:16 6:16 8:8 6:8 12:4 4:32; do
    t "wgpu decoders ${cfg%:*} batch ${cfg#*:} MiB" "EXP_DECODERS=${cfg%:*} EXP_BATCH_MIB=${cfg#*:} $X decompress --backend wgpu $D/o.pvlc -o -"
  done
done
