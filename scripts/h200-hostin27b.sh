#!/usr/bin/env bash
# (An experiment build, not kept: benches/results/h200-2026-11-30-hostin27-exp.patch.)
# Twenty-seventh pass, the input in place again (-hostin27's CLI rows came from a binary
# rebuilt with a test's mutation left in: its check caught the wrong bytes). The library
# (`stream_bench`, 1 GiB of system files, six runs a shape, outputs decoded before they
# are timed) with each chunk's input copied (`HOST_INPUT=0`) and in place, at 12 and 14
# coders, three rounds alternating; then the CLI's compress of 4 GiB from standard input,
# .device/parvlc-old (1ac43ce) against this build, outputs decoded and compared first, two
# rounds alternating.
# There, from the project root, .device carried: bash scripts/h200-hostin27b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start hostin27b
unpack_device
S=/tmp/parvlc-hostin27b
sys_files "$S"
cli_compress_check "$S"
for r in 1 2 3; do
  for on in 0 1; do
    echo "== host input $on, round $r"
    HOST_INPUT=$on DEPTHS=12,14 RUNS=6 .device/stream_bench "$S/sys1g" | tail -n +2
    HOST_INPUT=$on DEPTHS=12,14 FORMAT=gzip RUNS=6 .device/stream_bench "$S/sys1g" | tail -n +2
  done
done
cli_compress_ab "$S" 2
rm -rf "$S"
date -u
