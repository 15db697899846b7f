#!/usr/bin/env bash
# Probe: compress's peak memory under glibc malloc settings (GLIBC_TUNABLES), 4 GiB of
# system files, stdin to /dev/null, cold and warm, on the GPU machine.
set -uo pipefail
source .device/env.sh
P=${P:-.device/parvlc}
D=/tmp/mal; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$D/sys.tar"
$P compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "gzip -dc gives the input"
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$P compress -f native - -o "$D/o.pvlc" < "$D/sys.tar" 2>/dev/null
$P decompress --backend wgpu "$D/o.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "the GPU decoder gives the input"
export PARVLC_CACHE_DIR="$D/cc"
SETTINGS="default glibc.malloc.mmap_threshold=1048576 glibc.malloc.arena_max=2 glibc.malloc.mmap_threshold=1048576:glibc.malloc.trim_threshold=1048576"
for r in 1 2; do
  for s in $SETTINGS; do
    tun=""; [ "$s" != default ] && tun="GLIBC_TUNABLES=$s"
    rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
    t "$s gzip cold $r" "$tun $P compress -f gzip - -o - < $D/sys.tar"
  done
done
for r in 1 2 3; do
  for s in $SETTINGS; do
    tun=""; [ "$s" != default ] && tun="GLIBC_TUNABLES=$s"
    t "$s gzip warm $r" "$tun $P compress -f gzip - -o - < $D/sys.tar"
    t "$s native warm $r" "$tun $P compress -f native - -o - < $D/sys.tar"
    t "$s decompress wgpu $r" "$tun $P decompress --backend wgpu $D/o.pvlc -o -"
  done
done
