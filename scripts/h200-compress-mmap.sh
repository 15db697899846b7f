#!/usr/bin/env bash
# (2026-11-28, twelfth pass: the knobs were an uncommitted experiment build; neither was kept:
# both were slower, and the mapped file's pages counted in the peak.)
# The compressor's input taken from a mapping of the file (PARVLC_INPUT_MMAP, an
# experiment knob) against the two reader threads' positional reads into buffers, and
# four reader threads (PARVLC_FILE_READERS=4): 4 GiB of system files, stdin redirected
# from the file to /dev/null, and file to file; every variant's output compared with the
# default's first; the per-chunk phases of one debug-logged run of each.
# There, from the project root, .device carried: bash scripts/h200-compress-mmap.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start compress-mmap
D=/tmp/parvlc-mmap
sys_files "$D"
B=.device/parvlc
"$B" compress -f gzip - -o "$D/ref.gz" --force < "$D/sys.tar" 2>&1 | tail -1
gzip -dc "$D/ref.gz" | cmp - "$D/sys.tar" && echo "gzip -dc gives the input"
for k in "PARVLC_INPUT_MMAP=1" "PARVLC_INPUT_MMAP=1 PARVLC_INPUT_MMAP_SEQ=1" "PARVLC_FILE_READERS=4"; do
  env $k "$B" compress -f gzip - -o "$D/k.gz" --force < "$D/sys.tar" 2>/dev/null
  cmp "$D/ref.gz" "$D/k.gz" && echo "[$k] equals the default's output"
done
rm -f "$D/ref.gz" "$D/k.gz"
for r in 1 2 3; do
  for k in "X=1" "PARVLC_INPUT_MMAP=1" "PARVLC_INPUT_MMAP=1 PARVLC_INPUT_MMAP_SEQ=1" "PARVLC_FILE_READERS=4"; do
    wall "gzip stdin [$k] $r" "env $k $B compress -f gzip - -o - < $D/sys.tar"
  done
done
for r in 1 2; do
  for k in "X=1" "PARVLC_INPUT_MMAP=1"; do
    wall "native stdin [$k] $r" "env $k $B compress -f native - -o - < $D/sys.tar"
    wall "gzip file to file [$k] $r" "env $k $B compress -f gzip $D/sys.tar -o $D/out.gz --force"
  done
done
rm -f "$D/out.gz"
# Per-chunk phases (medians over the run's chunks) from the debug log.
for k in "X=1" "PARVLC_INPUT_MMAP=1"; do
  echo "== phases [$k]"
  env $k RUST_LOG=parvlc=debug "$B" compress -f gzip - -o - < "$D/sys.tar" 2>&1 >/dev/null \
    | chunk_phases
done
rm -rf "$D"
date -u
