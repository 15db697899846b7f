#!/usr/bin/env bash
# Submissions combined across the coders (Gpu::submit: a thread that finds another one
# submitting leaves its command buffers to it; this build, sb-new) against a submit each
# (the commit before, sb-old): the library's 1 GiB of system files at its default shape,
# three rounds of six runs alternating (stream_bench decodes its output before timing),
# native and gzip; then how many queue submits this build's submissions went in.
# (A record: the combining build is benches/results/h200-2026-11-29-combine21-exp.patch;
# 9% of submissions combined, no faster, dropped.)
# There, from the project root, .device carried: bash scripts/h200-combine21.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start combine21
unpack_device
D=/tmp/parvlc-combine21
sys_1g "$D"
sb_rounds "$D" 3 sb-old sb-new
for f in native gzip; do
  echo -n "$f: "
  RUST_LOG=parvlc=debug FORMAT=$f RUNS=6 .device/sb-new "$D/sys1g" 2>&1 | grep -o '[0-9]* submissions went in [0-9]* queue submits'
done
timeline_of .device/sb-new "$D"
date -u
