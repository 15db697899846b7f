source .device/env.sh
date -u
D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$D/sys.tar"
X=.device/parvlc
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$X compress -f native $D/sys.tar -o $D/o.pvlc --force 2>/dev/null; ls -l $D/o.pvlc | awk '{print "native file", $5, "bytes"}'
$X info $D/o.pvlc 2>&1 | head -5
$X compress -f gzip - -o - < $D/sys.tar 2>/dev/null > $D/o.gz; ls -l $D/o.gz | awk '{print "gzip file", $5, "bytes"}'
gzip -dc $D/o.gz | cmp - $D/sys.tar && echo "gzip -dc gives the input"
for be in wgpu cpu; do $X decompress --backend $be $D/o.pvlc -o - 2>/dev/null | cmp - $D/sys.tar && echo "$be decoder gives the input"; done
for r in 1 2 3; do
  t "compress -f gzip" "$X compress -f gzip - -o - < $D/sys.tar"
  t "compress -f native" "$X compress -f native - -o - < $D/sys.tar"
  t "decompress --backend wgpu" "$X decompress --backend wgpu $D/o.pvlc -o -"
  t "decompress --backend cpu" "$X decompress --backend cpu $D/o.pvlc -o -"
  t "decompress our gzip" "$X decompress $D/o.gz -o -"
done
