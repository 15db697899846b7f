source .device/env.sh
date -u
D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$D/sys.tar"
X=.device/parvlc
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
for wg in 256 64 128; do
  $X compress -f native --workgroup-size $wg - -o - < $D/sys.tar 2>/dev/null > $D/o$wg.pvlc
  ls -l $D/o$wg.pvlc | awk -v wg=$wg '{print "workgroup size " wg ": native file " $5 " bytes"}'
  $X decompress --backend wgpu $D/o$wg.pvlc -o - 2>/dev/null | cmp - $D/sys.tar && echo "wg $wg: the GPU decoder gives the input"
done
for r in 1 2; do for wg in 256 64 128; do
  t "compress -f native --workgroup-size $wg" "$X compress -f native --workgroup-size $wg - -o - < $D/sys.tar"
  t "decompress --backend wgpu (blocks of wg $wg)" "$X decompress --backend wgpu $D/o$wg.pvlc -o -"
  t "decompress --backend cpu (blocks of wg $wg)" "$X decompress --backend cpu $D/o$wg.pvlc -o -"
done; done
