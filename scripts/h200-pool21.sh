#!/usr/bin/env bash
# A GPU coder's pool of two threads, its upload written into wgpu's staging by both and
# readbacks of 1 MiB and more copied out by both (this build: sb-new, parvlc; the pool's
# size from the uncommitted knob PARVLC_EXP_CODER_THREADS, 1, 2 or 3) against one thread
# and serial copies (the commit before: sb-old, parvlc-old): the library's 1 GiB of
# system files at its default shape, three rounds of six runs alternating (stream_bench
# decodes its output before timing), native and gzip; a debug-logged run of each build's
# library compress, its chunks' phases summarized; then the CLI's compress of 4 GiB from
# standard input to /dev/null, both builds, outputs decoded and compared first, three
# rounds alternating, with peak memory.
# (A record: the build tried is benches/results/h200-2026-11-29-pool21-exp.patch, slower
# in every variant, dropped.)
# There, from the project root, .device carried: bash scripts/h200-pool21.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start pool21
unpack_device
D=/tmp/parvlc-pool21
sys_files "$D"
for round in 1 2 3; do
  for f in native gzip; do
    echo -n "round $round, $f, sb-old: "
    FORMAT=$f RUNS=6 .device/sb-old "$D/sys1g" | tail -1
    for t in 1 2 3; do
      echo -n "round $round, $f, sb-new, coder threads $t: "
      PARVLC_EXP_CODER_THREADS=$t FORMAT=$f RUNS=6 .device/sb-new "$D/sys1g" | tail -1
    done
  done
done
for v in old new; do
  echo "== phases, sb-$v, native"
  RUST_LOG=parvlc=debug RUNS=2 .device/sb-$v "$D/sys1g" 2>"$D/p.log" | tail -1
  chunk_phases < "$D/p.log"
done
cli_compress_check "$D"
cli_compress_ab "$D" 3
date -u
