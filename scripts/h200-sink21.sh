#!/usr/bin/env bash
# What placing the output costs the library compress: stream_bench's timed runs into a
# sink (SINK=1: compress_stream to std::io::sink, no copy of the coded chunks into a
# vector) against into the vector (compress_to_vec, the default), alternating, three
# rounds of six runs, native and gzip, 1 GiB of system files (each shape's vector output
# decoded and compared first).
# There, from the project root, .device carried: bash scripts/h200-sink21.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start sink21
unpack_device
D=/tmp/parvlc-sink21
sys_1g "$D"
for round in 1 2 3; do
  for f in native gzip; do
    echo -n "round $round, $f, into the vector: "; FORMAT=$f RUNS=6 .device/sb-new "$D/sys1g" | tail -1
    echo -n "round $round, $f, into a sink: "; SINK=1 FORMAT=$f RUNS=6 .device/sb-new "$D/sys1g" | tail -1
  done
done
date -u
