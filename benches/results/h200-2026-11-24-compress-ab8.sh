#!/usr/bin/env bash
# Compress as users run it, the build before this session (parvlc-old, 281f340) against
# this one: 4 GiB of system files from standard input to /dev/null, three runs each,
# alternating; then cold runs (no parvlc pipeline cache, no driver shader cache) of this one.
set -uo pipefail
source .device/env.sh
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
D=/tmp/d; mkdir -p $D
[ -f $D/sys.tar ] || for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > $D/sys.tar
echo "== outputs checked"
for b in parvlc parvlc-old; do for f in gzip native; do
  .device/$b compress -f $f - -o - < $D/sys.tar > $D/out.$f
  if [ $f = gzip ]; then cmp <(gzip -dc $D/out.$f) $D/sys.tar && echo "$b $f: gzip -dc equal"; fi
  cmp <(.device/parvlc decompress $D/out.$f -o -) $D/sys.tar && echo "$b $f: decompress equal, $(stat -c %s $D/out.$f) bytes"
done; done
rm -f $D/out.*
echo "== times"
for r in 1 2 3; do for b in parvlc-old parvlc; do for f in gzip native; do
  /usr/bin/time -f "$b compress -f $f wall %e s peak %M KiB" .device/$b compress -f $f - -o - < $D/sys.tar > /dev/null
done; done; done
echo "== cold runs"
for r in 1 2; do for f in gzip native; do
  export PARVLC_CACHE_DIR=/tmp/cold-cache-$r-$f; rm -rf $PARVLC_CACHE_DIR $HOME/.cache/nvidia $HOME/.nv
  /usr/bin/time -f "cold parvlc compress -f $f wall %e s peak %M KiB" .device/parvlc compress -f $f - -o - < $D/sys.tar > /dev/null
  /usr/bin/time -f "then warm parvlc compress -f $f wall %e s peak %M KiB" .device/parvlc compress -f $f - -o - < $D/sys.tar > /dev/null
done; done
echo "== decompress, this build, its own native file (4 KiB blocks, the default now)"
.device/parvlc compress -f native $D/sys.tar -o $D/new.pvlc --force 2>&1 | tail -1
cmp <(.device/parvlc decompress --backend wgpu $D/new.pvlc -o -) $D/sys.tar && echo "wgpu equal"
for r in 1 2 3; do for be in wgpu cpu; do
  /usr/bin/time -f "parvlc decompress --backend $be wall %e s peak %M KiB" .device/parvlc decompress --backend $be $D/new.pvlc -o - > /dev/null
done; done
