#!/usr/bin/env bash
# Thirty-fourth pass (2026-11-30), fifth call: the readback of many small parts (a 4K
# picture's 5,907 HT code-blocks, gathered) copied out of mapped memory as one span and
# split in host memory (.device/parvlc-copy) against part by part (.device/parvlc, the
# build of the fourth call), alternating: the 4K picture --ht debug-logged, four runs each
# (the readback's copy time), same codestream; then `bench j2k --sizes 4K`, two rounds.
# There, from the project root, .device carried:  bash scripts/h200-htcopy34.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start htcopy34
unpack_device
D=/tmp/parvlc-htcopy34
copy_ab "$D" 4 parvlc parvlc-copy
rm -rf "$D"
date -u
