#!/usr/bin/env bash
set -uo pipefail
# Probe (not a benchmark of the shipped build): cold compress under a cap on concurrent
# pipeline compiles, read from PARVLC_COMPILES by a temporary probe build (.device/parvlc-cap)
# that is not in the tree; kept as the record of h200-2026-11-24-compile-cap-probe.txt.
source .device/env.sh
D=/tmp/cap; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$D/sys.tar"
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
export PARVLC_CACHE_DIR="$D/cc"
for r in 1 2 3; do
  for cap in 0 1 2 3; do
    rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
    t "cap $cap gzip cold $r" "PARVLC_COMPILES=$cap .device/parvlc-cap compress -f gzip - -o - < $D/sys.tar"
  done
  rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
  t "depth 4 gzip cold $r" ".device/parvlc-cap compress -f gzip --depth 4 - -o - < $D/sys.tar"
done
for cap in 0 1 2; do
  t "cap $cap gzip warm" "PARVLC_COMPILES=$cap .device/parvlc-cap compress -f gzip - -o - < $D/sys.tar"
done
RUST_LOG=parvlc=debug PARVLC_CACHE_DIR=$D/cc2 .device/parvlc-cap compress -f gzip - -o - < $D/sys.tar 2>&1 >/dev/null | grep -E "pipeline .* built" | sed 's/^\[[^]]*\] //' | head -20
