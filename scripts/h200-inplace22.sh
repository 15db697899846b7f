#!/usr/bin/env bash
# The encode writing its output in place (host-visible storage, block end words placed by
# the host; sb-new, parvlc) against the output in device memory copied back (9a60ed7:
# sb-old, parvlc-old), alternating in one call: the library's 1 GiB of system files at
# its default shape, three rounds of six runs, native and gzip (stream_bench decodes its
# output before timing); each build's GPU timeline (trace-logged, slower); then the
# CLI's compress of 4 GiB from standard input to /dev/null, both builds' outputs decoded
# and compared first, two rounds, with peaks.
# There, from the project root, .device carried: bash scripts/h200-inplace22.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start inplace22
unpack_device
D=/tmp/parvlc-inplace22
sys_files "$D"
sb_rounds "$D" 3 sb-old sb-new
for v in sb-old sb-new; do
  echo "== $v"
  timeline_of ".device/$v" "$D"
done
cli_compress_check "$D"
cli_compress_ab "$D" 2
date -u
