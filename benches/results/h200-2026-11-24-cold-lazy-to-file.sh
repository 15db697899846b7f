#!/usr/bin/env bash
# Cold compress at the commit that builds pipelines as chunks need them: no parvlc
# pipeline cache and no driver shader cache before each cold run; 4 GiB, stdin to /dev/null.
set -uo pipefail
source .device/env.sh
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=/tmp/c; mkdir -p $D
[ -f $D/sys.tar ] || for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > $D/sys.tar
cold() { export PARVLC_CACHE_DIR=$D/cache-$RANDOM; rm -rf $HOME/.cache/nvidia $HOME/.nv; }
for r in 1 2 3; do for f in gzip native; do
  cold
  /usr/bin/time -f "cold -f $f: %e s, peak %M KiB" .device/parvlc compress -f $f - -o - < $D/sys.tar 2>&1 > $D/out.$f | grep -v "^<stdin>"
  /usr/bin/time -f "  then warm -f $f: %e s, peak %M KiB" .device/parvlc compress -f $f - -o - < $D/sys.tar 2>&1 > /dev/null | grep -v "^<stdin>"
done; done
cmp <(gzip -dc $D/out.gzip) $D/sys.tar && echo "gzip output: gzip -dc equal"
cmp <(.device/parvlc decompress $D/out.native -o -) $D/sys.tar && echo "native output: decompress equal"
