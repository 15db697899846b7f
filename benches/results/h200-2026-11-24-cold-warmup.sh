#!/usr/bin/env bash
# Cold compress (no parvlc pipeline cache, no driver shader cache): peak memory and wall by
# how the stream's pipeline variants are built ahead (experiment switch XWARM: parallel,
# the default; seq, one after another; off, none ahead), and at depth 4; then warm.
set -uo pipefail
source .device/env.sh
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=/tmp/c; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > $D/sys.tar
cold() { export PARVLC_CACHE_DIR=$D/cache-$RANDOM; rm -rf $HOME/.cache/nvidia $HOME/.nv; }
for r in 1 2; do
  for mode in par seq off; do for f in gzip native; do
    cold
    XWARM=$mode /usr/bin/time -f "cold XWARM=$mode -f $f: %e s, peak %M KiB" .device/parvlc compress -f $f - -o - < $D/sys.tar 2>&1 > /dev/null | grep -v "^<stdin>"
    XWARM=$mode /usr/bin/time -f "  then warm XWARM=$mode -f $f: %e s, peak %M KiB" .device/parvlc compress -f $f - -o - < $D/sys.tar 2>&1 > /dev/null | grep -v "^<stdin>"
  done; done
  cold
  /usr/bin/time -f "cold depth 4 -f gzip: %e s, peak %M KiB" .device/parvlc compress --depth 4 -f gzip - -o - < $D/sys.tar 2>&1 > /dev/null | grep -v "^<stdin>"
  /usr/bin/time -f "  then warm depth 4 -f gzip: %e s, peak %M KiB" .device/parvlc compress --depth 4 -f gzip - -o - < $D/sys.tar 2>&1 > /dev/null | grep -v "^<stdin>"
done
cold; RUST_LOG=parvlc=info .device/parvlc compress -f gzip - -o - < $D/sys.tar 2>&1 >/dev/null | grep -i "warm_framed\|GPU:"
