#!/usr/bin/env bash
# Issue 13, the forty-sixth pass: ratio on the same bytes, in one call: ours (gzip,
# native, the CLI's default backend; each decoded to its input first), zlib's
# Z_HUFFMAN_ONLY (decoded first) and nvCOMP's GDeflate entropy-only and ANS (decoded by
# nvCOMP first, scripts/nvcomp_bench.py), on a GiB of the machine's system files and five
# kinds of real file of 256 MiB (h200-stream.sh's inputs).
# Carried in .device: parvlc (gzipped), nvCOMP (../shared/device/stage --nvcomp).
# There, from the project root: bash scripts/h200-ratio46.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-ratio46}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-ratio46
sys_1g "$D"
echo "== 4. ratio on the same bytes: ours, zlib Z_HUFFMAN_ONLY, nvCOMP"
real_kinds "$D" ""
files=()
for f in sys1g text source binaries logs columns; do
  [ -s "$D/$f" ] || { echo "$f: no bytes here"; continue; }
  files+=("$D/$f")
  "$P" compress -f gzip "$D/$f" -o "$D/$f.gz" --force 2>/dev/null
  "$P" compress -f native "$D/$f" -o "$D/$f.pvlc" --force 2>/dev/null
  gzip -dc "$D/$f.gz" | cmp - "$D/$f" && "$P" decompress "$D/$f.pvlc" -o - 2>/dev/null | cmp - "$D/$f" &&
    echo "ours $f: $(stat -c %s "$D/$f") bytes, gzip $(stat -c %s "$D/$f.gz"), native $(stat -c %s "$D/$f.pvlc") (both decoded to the input)"
  rm -f "$D/$f.gz" "$D/$f.pvlc"
done
python3 - "${files[@]}" <<'PY'
import sys, zlib
for f in sys.argv[1:]:
    d = open(f, 'rb').read()
    co = zlib.compressobj(6, zlib.DEFLATED, 31, 9, zlib.Z_HUFFMAN_ONLY)
    z = co.compress(d) + co.flush()
    assert zlib.decompress(z, 31) == d
    print(f"zlib Z_HUFFMAN_ONLY {f}: {len(d)} -> {len(z)}")
PY
timeout 300 python3 scripts/nvcomp_bench.py --runs 1 --codecs ANS,GDeflate "${files[@]}" |
  python3 /dev/fd/3 3<<'PY'
import sys, json
for l in sys.stdin:
    r = json.loads(l)
    print(f"nvCOMP {r['codec']} {r['file']}: {r['bytes']} -> {r['compressed']} (ratio {r['ratio']:.4f}, decoded by nvCOMP first)")
PY
rm -rf "$D"
date -u
