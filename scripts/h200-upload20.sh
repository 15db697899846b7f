#!/usr/bin/env bash
# Inputs written into mappable storage that the kernels read in place (this build:
# sb-new, parvlc) against through the queue's staging (the commit before: sb-old,
# parvlc-old), alternating: the library's 1 GiB of system files at its default shape
# (stream_bench decodes its output before timing), then the CLI's compress of 4 GiB from
# standard input to /dev/null (the output checked by gzip -dc and by our decompress), and
# a trace-logged timeline of this build. The in-place build was not committed: it
# measured no faster (native 12.10-12.64 against 12.00-12.21 GB/s, gzip 10.08-10.60
# against 10.78-10.83, the histogram pass 15.6 -> 18 us reading the mapped buffer).
# There, from the project root, .device carried: bash scripts/h200-upload20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start upload20
unpack_device
D=/tmp/parvlc-upload20
sys_files "$D"
for round in 1 2 3; do
  for f in native gzip; do
    for v in old new; do echo -n "round $round, $f, sb-$v: "; FORMAT=$f .device/sb-$v "$D/sys1g" | tail -1; done
  done
done
for v in parvlc-old parvlc; do
  .device/$v compress -f gzip - -o - < "$D/sys.tar" > "$D/out.gz" 2>/dev/null
  gzip -dc "$D/out.gz" | cmp - "$D/sys.tar" && echo "$v: gzip -dc decodes its gzip to the input"
  .device/$v compress -f native - -o - < "$D/sys.tar" > "$D/out.pvlc" 2>/dev/null
  .device/$v decompress "$D/out.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$v: its native decodes to the input"
done
rm -f "$D/out.gz" "$D/out.pvlc"
for round in 1 2; do
  for f in gzip native; do
    for v in parvlc-old parvlc; do
      wall "$v compress $f stdin run $round" ".device/$v compress -f $f - -o - < $D/sys.tar"
    done
  done
done
timeline_of .device/sb-new "$D"
date -u
