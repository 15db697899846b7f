#!/usr/bin/env bash
# The twenty-eighth pass: CAVLC a group of pictures at a time (.device/parvlc) against
# c613176 (.device/parvlc-old), with each build's GPU times a batch.
# scripts/h200-lib.sh `h264_start28` runs the series (streams compared, three rounds
# alternating, debug-logged runs).
# There, from the project root, .device carried: bash scripts/h200-start28d.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start start28d
unpack_device
D=/dev/shm/parvlc-start28d
h264_start28 start28d trace
date -u
