#!/usr/bin/env bash
# The session's end (this build: sb-new, parvlc) against its start (fe76195: sb-old,
# parvlc-old), alternating in one call: the library's 1 GiB of system files at its
# default shape, three rounds of six runs, native and gzip (stream_bench decodes its
# output before timing); then the CLI's compress of 4 GiB from standard input to
# /dev/null, both builds' outputs decoded and compared first, two rounds, with peaks.
# There, from the project root, .device carried: bash scripts/h200-final21.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final21
unpack_device
D=/tmp/parvlc-final21
sys_files "$D"
sb_rounds "$D" 3 sb-old sb-new
cli_compress_check "$D"
cli_compress_ab "$D" 2
date -u
