#!/usr/bin/env bash
# The twenty-eighth pass's start (.device/parvlc) against c613176 (.device/parvlc-old):
# each coder's first two batches submit their front end before recording CAVLC, the
# pipelines built beside the first batch's buffers and upload, the reconstruction
# written only for --recon.
# scripts/h200-lib.sh `h264_start28` runs the series (streams compared, three rounds
# alternating, debug-logged runs).
# There, from the project root, .device carried: bash scripts/h200-start28.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start start28
unpack_device
D=/dev/shm/parvlc-start28
h264_start28 start28
date -u
