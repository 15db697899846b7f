#!/usr/bin/env bash
# Ran on an intermediate, uncommitted build of the eighteenth pass (docs/results.md,
# "Eighteenth pass", says which); PARVLC_EXP_* knobs are not in the committed code.
# Pipeline shapes with the frame_plan stage (frames of at most 256 KiB): the CLI's
# compress of 4 GiB of system files from standard input to /dev/null by chunk size and
# depth, gzip and native, wall and peak memory, against the build before the stage at its
# default shape (.device/parvlc-old, aba1ea8, 4 MiB x 10); outputs checked first (gzip
# -dc, our decompress); then the library's host-to-host compress of 1 GiB
# (examples/stream_bench, output decoded before timing) at chunks of 8 MiB by depth.
# There, from the project root, .device carried: bash scripts/h200-shape18.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start shape18
# The binaries travel gzipped (the call's 64 MiB limit).
for f in .device/*.gz; do gunzip -f "$f"; done
D=/tmp/parvlc-shape18
sys_files "$D"
for shape in "4M 10" "8M 5" "8M 6"; do
  set -- $shape
  .device/parvlc compress -f gzip --chunk-size $1 --depth $2 - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "gzip $1 x $2: gzip -dc gives the input"
  .device/parvlc compress -f native --chunk-size $1 --depth $2 - -o - < "$D/sys.tar" 2>/dev/null > "$D/n.pvlc"
  .device/parvlc decompress "$D/n.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "native $1 x $2: decompress gives the input"
  rm -f "$D/n.pvlc"
done
for r in 1 2; do
  for f in gzip native; do
    wall "old $f 4M x 10 run $r" ".device/parvlc-old compress -f $f - -o - < $D/sys.tar"
    for shape in "4M 10" "8M 5" "8M 6" "8M 8"; do
      set -- $shape
      wall "new $f $1 x $2 run $r" ".device/parvlc compress -f $f --chunk-size $1 --depth $2 - -o - < $D/sys.tar"
    done
  done
done
for f in native gzip; do
  FORMAT=$f CHUNKS_MIB=8 DEPTHS=5,6,8,10,12 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
done
rm -rf "$D"
date -u
