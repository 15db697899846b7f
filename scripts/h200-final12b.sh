#!/usr/bin/env bash
# The end of the twelfth pass against its start (.device/parvlc-before, a6a0826),
# alternating in one call: compress (coders on threads of their own, depth 10, chunks of
# 4 MiB) and the GPU decoder of native files (six decoders of 16 MiB, two threads each);
# 4 GiB of system files to /dev/null, outputs checked first.
# There, from the project root, .device carried: bash scripts/h200-final12b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final12b
D=/tmp/parvlc-final12b
sys_files "$D"
.device/parvlc compress -f native - -o "$D/f.pvlc" --force < "$D/sys.tar" 2>&1 | tail -1
.device/parvlc compress -f gzip - -o "$D/f.gz" --force < "$D/sys.tar" 2>&1 | tail -1
gzip -dc "$D/f.gz" | cmp - "$D/sys.tar" && echo "gzip -dc gives the input"
for b in before ""; do
  ".device/parvlc${b:+-$b}" decompress --backend wgpu "$D/f.pvlc" -o - | cmp - "$D/sys.tar" && echo "${b:-after}: the GPU decoder gives the input"
done
rm -f "$D/f.gz"
for r in 1 2 3; do
  for b in before ""; do
    n=${b:-after}
    wall "gzip stdin, $n, run $r" ".device/parvlc${b:+-$b} compress -f gzip - -o - < $D/sys.tar"
    wall "native stdin, $n, run $r" ".device/parvlc${b:+-$b} compress -f native - -o - < $D/sys.tar"
    wall "decompress wgpu, $n, run $r" ".device/parvlc${b:+-$b} decompress --backend wgpu $D/f.pvlc -o -"
  done
done
rm -rf "$D"
date -u
