#!/usr/bin/env bash
# That build with each batch's CAVLC outputs and readback made ahead at the stream's
# start (dropped: benches/results/h200-2026-11-30-start28c-exp.patch has the readbacks'
# form), against c613176 (.device/parvlc-old).
# scripts/h200-lib.sh `h264_start28` runs the series (streams compared, three rounds
# alternating, debug-logged runs).
# There, from the project root, .device carried: bash scripts/h200-start28b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start start28b
unpack_device
D=/dev/shm/parvlc-start28b
h264_start28 start28b
date -u
