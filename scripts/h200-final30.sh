#!/usr/bin/env bash
# Issue 13: this pass's build (gzip frames' headers on the GPU: .device/parvlc, sb-new)
# against the build before (parvlc-old, sb-old, ba16155). The CLI on 4 GiB of system
# files from standard input (outputs checked first: gzip -dc, our decoder, and the two
# builds' gzip outputs compared), three rounds alternating; the library on 1 GiB, four
# rounds alternating; the scan's passes of a gzip chunk on the GPU's clock.
# There, from the project root, .device carried: bash scripts/h200-final30.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final30
unpack_device
D=/dev/shm/parvlc-final30
sys_files "$D"
cli_compress_check "$D"
.device/parvlc-old compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null > "$D/old.gz"
.device/parvlc compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null > "$D/new.gz"
cmp "$D/old.gz" "$D/new.gz" && echo "both builds write the same gzip bytes ($(stat -c %s "$D/new.gz"))"
rm -f "$D/old.gz" "$D/new.gz"
cli_compress_ab "$D" 3
rm -f "$D/sys.tar"
RUNS=8 sb_rounds "$D" 4 sb-old sb-new
scan_passes .device/sb-new "$D"
rm -rf "$D"
date -u
