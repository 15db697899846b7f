#!/usr/bin/env bash
# Thirty-seventh pass (2026-12-01): the HT kernel with one call site each of code_quad,
# quad_v and stage_quad (a pair's quads in a loop; .device/parvlc-quads) against two
# (.device/parvlc-head, the pass's build before it): its first-run compile (no parvlc
# pipeline cache, no driver shader cache), six rounds alternating; then the kernel warmed
# (`bench j2k --warm-up 1`) and the CLI warm, both builds. Every codestream compared
# with the CPU's. There: bash scripts/h200-quads37.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-quads37}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
pic_and_cpu "$D" .device/parvlc-head
first_runs "$D" parvlc-quads parvlc-head --ht ht_cleanup "ht_cleanup.main.*built in"
warm_j2k_ab "$D" parvlc-quads parvlc-head --ht "ht_cleanup"
rm -rf "$D"
date -u
