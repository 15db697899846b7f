#!/usr/bin/env bash
# The CLI's peak memory from standard input, which two of eight native runs this session
# took past 512 MiB (h200-upload20, h200-final20): six runs each of compress native and
# gzip of 4 GiB of system files to /dev/null at the default depth (10) and at 8; wall,
# CPU and peak by GNU time. The outputs of this build were decoded and compared in
# h200-final20.
# There, from the project root, .device carried: bash scripts/h200-peak20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start peak20
unpack_device
D=/tmp/parvlc-peak20
sys_files "$D"
for run in 1 2 3 4 5 6; do
  for f in native gzip; do
    wall "compress $f stdin run $run" ".device/parvlc compress -f $f - -o - < $D/sys.tar"
    wall "compress $f stdin depth 8 run $run" ".device/parvlc compress -f $f --depth 8 - -o - < $D/sys.tar"
  done
done
date -u
