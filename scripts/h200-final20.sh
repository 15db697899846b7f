#!/usr/bin/env bash
# block_crc's run shifts made once on the host (this build: sb-new, parvlc) against
# built by every workgroup (the commit before: sb-old), alternating: the library's 1 GiB
# of system files at its default shape, native and gzip, three rounds of six runs
# (stream_bench decodes its output before timing); a trace-logged timeline of this
# build; then this build's CLI compress of 4 GiB from standard input to /dev/null
# (its outputs decoded by our decompress and compared first).
# There, from the project root, .device carried: bash scripts/h200-final20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final20
unpack_device
D=/tmp/parvlc-final20
sys_files "$D"
sb_rounds "$D" 3 sb-old sb-new
timeline_of .device/sb-new "$D"
for f in gzip native; do
  .device/parvlc compress -f $f - -o - < "$D/sys.tar" > "$D/out" 2>/dev/null
  .device/parvlc decompress "$D/out" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "parvlc: its $f decodes to the input"
done
rm -f "$D/out"
for round in 1 2; do
  for f in gzip native; do
    wall "parvlc compress $f stdin run $round" ".device/parvlc compress -f $f - -o - < $D/sys.tar"
  done
done
date -u
