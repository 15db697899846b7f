#!/usr/bin/env bash
# CAVLC's outputs sized by a room, twice the stream quota a picture (.device/parvlc),
# against the build before, CAVLC a group at a time with outputs for every macroblock's
# longest code (8e19982, .device/parvlc-old), with each build's GPU times a batch.
# scripts/h200-lib.sh `h264_start28` runs the series (streams compared, three rounds
# alternating, debug-logged runs).
# There, from the project root, .device carried: bash scripts/h200-room28.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start room28
unpack_device
D=/dev/shm/parvlc-room28
h264_start28 room28 trace
date -u
