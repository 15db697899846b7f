#!/usr/bin/env bash
# PARVLC_WINDOW is read only by the temporary probe build (.device/parvlc-cap), not by the tree.
# Probe: compress's reorder window (chunks a reader may run ahead of the oldest unwritten
# one; PARVLC_WINDOW in the probe build) against cold and warm peak memory and wall, 4 GiB
# of system files, stdin to /dev/null, on the GPU machine.
set -uo pipefail
source .device/env.sh
P=${P:-.device/parvlc-cap}
D=/tmp/win; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$D/sys.tar"
$P compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "gzip -dc gives the input"
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
export PARVLC_CACHE_DIR="$D/cc"
for r in 1 2 3; do
  for w in 6 7 8 10 12; do
    rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
    t "window $w gzip cold $r" "PARVLC_WINDOW=$w $P compress -f gzip - -o - < $D/sys.tar"
  done
done
for r in 1 2; do
  for w in 6 7 8 10 12; do
    t "window $w gzip warm $r" "PARVLC_WINDOW=$w $P compress -f gzip - -o - < $D/sys.tar"
    t "window $w native warm $r" "PARVLC_WINDOW=$w $P compress -f native - -o - < $D/sys.tar"
  done
done
