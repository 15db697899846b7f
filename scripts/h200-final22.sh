#!/usr/bin/env bash
# The session's end (2191dae: sb-new, parvlc) against its start (9a60ed7: sb-old,
# parvlc-old), alternating in one call: the library's 1 GiB of system files at each
# build's default shape (the new one: output in place, 12 coders), three rounds of six
# runs, native and gzip (stream_bench decodes its output before timing); the CLI's
# compress of 4 GiB from standard input to /dev/null, both builds' outputs decoded and
# compared first, two rounds, with peaks; the kernel rows (cuvle encode, 1 GiB at 4.5
# bits, GPU time; the bench checks each output first), both builds.
# There, from the project root, .device carried: bash scripts/h200-final22.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final22
unpack_device
D=/tmp/parvlc-final22
sys_files "$D"
sb_rounds "$D" 3 sb-old sb-new
cli_compress_check "$D"
cli_compress_ab "$D" 2
for b in parvlc-old parvlc; do
  echo "== $b kernel rows"
  timeout 200 .device/$b bench --sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3 2>&1 | grep -E "cuvle" | head -6
done
date -u
