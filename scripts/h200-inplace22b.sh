#!/usr/bin/env bash
# One build (sb-new), the encode's output in place (HOST_OUTPUT=1) against in device
# memory copied back (HOST_OUTPUT=0), at 10 and 14 coders, alternating in one call: the
# library's 1 GiB of system files, three rounds of six runs, native and gzip
# (stream_bench decodes its output before timing). Does a queue freed of the readback's
# copy let more coders help?
# There, from the project root, .device carried: bash scripts/h200-inplace22b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start inplace22b
unpack_device
D=/tmp/parvlc-inplace22b
sys_1g "$D"
for round in 1 2 3; do
  for f in native gzip; do
    for depth in 10 14; do
      for h in 0 1; do
        echo -n "round $round, $f, depth $depth, host output $h: "
        HOST_OUTPUT=$h DEPTHS=$depth FORMAT=$f RUNS=6 .device/sb-new "$D/sys1g" | tail -1
      done
    done
  done
done
date -u
