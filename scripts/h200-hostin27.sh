#!/usr/bin/env bash
# (An experiment build, not kept: benches/results/h200-2026-11-30-hostin27-exp.patch.)
# Twenty-seventh pass: each chunk's input read where the host wrote it (a mapped staging
# buffer the kernels bind, `CuvleConfig::host_input`, the stream's default now) against
# its copy into device memory by the queue (`HOST_INPUT=0`), in one build. The library
# (`stream_bench`, 1 GiB of the machine's own system files, native and gzip, six runs a
# shape, each shape's output decoded before it is timed), three rounds alternating; then
# the CLI's compress of 4 GiB from standard input, .device/parvlc-old (1ac43ce, the copy)
# against this build, outputs decoded and compared first, two rounds alternating.
# There, from the project root, .device carried: bash scripts/h200-hostin27.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start hostin27
unpack_device
S=/tmp/parvlc-hostin27
sys_files "$S"
for r in 1 2 3; do
  for on in 0 1; do
    echo "== host input $on, round $r"
    HOST_INPUT=$on RUNS=6 .device/stream_bench "$S/sys1g" | tail -n +2
    HOST_INPUT=$on FORMAT=gzip RUNS=6 .device/stream_bench "$S/sys1g" | tail -n +2
  done
done
cli_compress_check "$S"
cli_compress_ab "$S" 2
rm -rf "$S"
date -u
