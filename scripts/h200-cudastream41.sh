#!/usr/bin/env bash
# Issue 13: `parvlc compress --backend cuda` through the streaming pipeline (chunks coded
# by the CUDA kernel's framed pass) where it had read the whole file and coded it with
# one table (the thirty-ninth pass's build: 4 GiB in 13-16 s, 11.7 GB peak).
# 1. Its bytes: for each input and format, the CUDA output equals the CPU backend's byte
#    for byte, and gzip -dc / parvlc decompress give the input back; stdin to stdout too.
# 2. Its speed and memory beside the wgpu path: 4 GiB of system files from standard
#    input, three runs each, GNU time.
# There, from the project root, .device carried: bash scripts/h200-cudastream41.sh
# (NAME names the output file, FILES picks the inputs of part 1; the second call of this
# pass: NAME=cudastream41b FILES="r5000 sys100m sys1g".)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-cudastream41}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-cudastream41
sys_files "$D"
: > "$D/empty"
printf 'a' > "$D/one"
head -c 5000 /dev/urandom > "$D/r5000"
head -c 67108864 /dev/urandom > "$D/random64m"
head -c 67108864 /dev/zero > "$D/zero64m"
head -c 100000007 "$D/sys.tar" > "$D/sys100m"
echo "== 1. the CUDA stream's bytes against the CPU backend's"
for f in ${FILES:-empty one r5000 random64m zero64m sys100m sys1g}; do
  for fmt in gzip native; do
    "$P" compress --backend cuda -f $fmt "$D/$f" -o "$D/c.cuda" --force 2>&1 | tail -1
    "$P" compress --backend cpu -f $fmt "$D/$f" -o "$D/c.cpu" --force 2>/dev/null
    if cmp -s "$D/c.cuda" "$D/c.cpu"; then same="the CPU's bytes"; else same="DIFFERENT FROM THE CPU'S"; fi
    if [ $fmt = gzip ]; then back=$(gzip -dc "$D/c.cuda" | cmp - "$D/$f" && echo "gzip -dc ok"); else back=$("$P" decompress "$D/c.cuda" -o - 2>/dev/null | cmp - "$D/$f" && echo "decompress ok"); fi
    echo "$f $fmt: $(stat -c %s "$D/c.cuda") bytes, $same, $back"
  done
done
"$P" compress --backend cuda -f gzip - -o - < "$D/sys100m" 2>/dev/null > "$D/c.cuda"
"$P" compress --backend cpu -f gzip - -o - < "$D/sys100m" 2>/dev/null > "$D/c.cpu"
cmp "$D/c.cuda" "$D/c.cpu" && echo "stdin to stdout, gzip: the CPU's bytes"
"$P" compress --backend cuda -f gzip - -o - < "$D/sys.tar" 2>/dev/null > "$D/c.cuda"
gzip -dc "$D/c.cuda" | cmp - "$D/sys.tar" && echo "4 GiB stdin to stdout, gzip: gzip -dc gives the input, $(stat -c %s "$D/c.cuda") bytes"
"$P" compress --backend cuda -f native - -o - < "$D/sys.tar" 2>/dev/null > "$D/c.cuda"
"$P" decompress "$D/c.cuda" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "4 GiB stdin to stdout, native: decompress gives the input, $(stat -c %s "$D/c.cuda") bytes"
rm -f "$D/c.cuda" "$D/c.cpu"
echo "== 2. 4 GiB of system files from standard input"
for r in 1 2 3; do
  for b in cuda wgpu; do
    wall "$b gzip run $r" "$P compress --backend $b -f gzip - -o - < $D/sys.tar"
    wall "$b native run $r" "$P compress --backend $b -f native - -o - < $D/sys.tar"
  done
done
rm -rf "$D"
date -u
