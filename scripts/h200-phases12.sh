#!/usr/bin/env bash
# Where a compress's coders spend a chunk at the new defaults (a thread of their own,
# depth 10, chunks of 4 MiB): one debug-logged `compress -f gzip` of 4 GiB of system
# files from stdin to /dev/null, per-chunk medians and sums of each phase, and the
# timed run beside it.
# There, from the project root, .device carried: bash scripts/h200-phases12.sh
# (2026-11-28: not run; the session's device time was spent. The thirteenth session ran its
# successor, scripts/h200-phases13.sh.)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start phases12
D=/tmp/parvlc-phases12
sys_files "$D"
B=.device/parvlc
for r in 1 2; do wall "gzip stdin, run $r" "$B compress -f gzip - -o - < $D/sys.tar"; done
RUST_LOG=parvlc=debug "$B" compress -f gzip - -o - < "$D/sys.tar" 2>&1 >/dev/null \
| chunk_phases
rm -rf "$D"
date -u
