#!/usr/bin/env bash
# Ran on an intermediate, uncommitted build of the eighteenth pass (docs/results.md,
# "Eighteenth pass", says which): frames of 256 KiB for both formats.
# The committed frame_plan stage (gzip's frames planned on the GPU, native's on the host
# by default; frames of at most 256 KiB) against the build before it
# (.device/*-old, aba1ea8): both passes' GPU time (examples/frame_plan_bench, each
# chunk's GPU plan checked against the CPU twin first); the library's host-to-host
# compress of 1 GiB of system files (examples/stream_bench, output decoded before
# timing) at the default shape and at 8 MiB x 12, alternating; the CLI's compress of
# 4 GiB from standard input to /dev/null, outputs checked first (gzip -dc, our
# decompress), three rounds alternating, with CPU times and peak memory.
# There, from the project root, .device carried: bash scripts/h200-final18.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final18
# The binaries travel gzipped (the call's 64 MiB limit).
for f in .device/*.gz; do gunzip -f "$f"; done
D=/tmp/parvlc-final18
sys_files "$D"
head -c 67108864 "$D/sys1g" > "$D/sys64m"
for f in native gzip; do
  FORMAT=$f ROUNDS=10 .device/frame_plan_bench "$D/sys64m"
done
library_ab "$D/sys1g" 3
echo "== 8 MiB x 12"
for b in stream_bench-old stream_bench; do
  CHUNKS_MIB=8 DEPTHS=12 RUNS=3 .device/$b "$D/sys1g" | tail -n +2
  FORMAT=gzip CHUNKS_MIB=8 DEPTHS=12 RUNS=3 .device/$b "$D/sys1g" | tail -n +2
done
cli_compress_check "$D"
cli_compress_ab "$D" 3
rm -rf "$D"
date -u
