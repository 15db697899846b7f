#!/usr/bin/env bash
# Thirty-sixth pass (2026-12-01): is the resident HT path's front end slower on a noisy
# picture? The CLI's 4K --ht, trace-logged (the GPU passes), on the smooth synthetic
# picture at 3840x2160 and 4096x2160, on a picture of uniform random bytes, and on the
# smooth one with noise of +-8 added; each codestream decoded by ojph_expand to its
# source first.
# There, from the project root, .device carried:  bash scripts/h200-content36.sh [NAME]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-content36}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
mkdir -p "$D"
python3 scripts/ppm.py make "$D/smooth.ppm" 3840 2160
python3 scripts/ppm.py make "$D/smooth4096.ppm" 4096 2160
python3 - "$D" <<'PY'
import os, random, sys
d = sys.argv[1]
head = b"P6\n3840 2160\n255\n"
n = 3840 * 2160 * 3
open(f"{d}/random.ppm", "wb").write(head + os.urandom(n))
base = open(f"{d}/smooth.ppm", "rb").read()[len(head):]
rng = random.Random(7)
noise = bytes(rng.randrange(256) for _ in range(1 << 16))
out = bytearray(base)
for i in range(n):
    v = base[i] + (noise[i & 0xFFFF] % 17) - 8
    out[i] = 0 if v < 0 else 255 if v > 255 else v
open(f"{d}/noisy.ppm", "wb").write(head + bytes(out))
PY
for pic in smooth smooth4096 random noisy; do
  .device/parvlc j2k "$D/$pic.ppm" -o "$D/$pic.j2k" --force --ht 2>/dev/null
  ojph_expand -i "$D/$pic.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/$pic.ppm"
  for r in 1 2; do
    echo "== $pic --ht, traced, run $r ($(stat -c %s "$D/$pic.j2k") bytes)"
    RUST_LOG=parvlc::j2k=trace,parvlc=debug .device/parvlc j2k "$D/$pic.ppm" -o "$D/x.j2k" --force --ht 2> "$D/log"
    python3 scripts/log_deltas.py "$D/log" "GPU passes|done after"
  done
  wall "$pic --ht" ".device/parvlc j2k $D/$pic.ppm -o $D/x.j2k --force --ht"
  wall "$pic ojph_compress" "ojph_compress -i $D/$pic.ppm -o $D/o.j2c -reversible true -num_decomps 5 -block_size {64,64}"
done
rm -rf "$D"
date -u
