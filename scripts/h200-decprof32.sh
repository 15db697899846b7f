#!/usr/bin/env bash
# Where the CLI's 4 GiB decompress spends its 0.9 s (issue 14's 5 GB/s, GPU path):
# a debug-logged `decompress --backend wgpu` of the native file (its timeline: the GPU's
# opening, each batch's GPU run), then perf over the whole process (by thread and by
# symbol) for --backend wgpu and cpu, native and our gzip. Files of scripts/h200-dec32.sh
# (made again if the machine is fresh). There: bash scripts/h200-decprof32.sh
source scripts/h200-lib.sh
h200_start decprof32
unpack_device
perf_tools
D=/dev/shm/dec32; mkdir -p "$D"
P=./.device/parvlc
sys_compressed "$D" "$P"
for f in pvl gz; do
  echo "== debug log, $f, wgpu: start $(date +%T.%N)"
  RUST_LOG=parvlc=debug $P decompress --backend wgpu "$D/sys.$f" -o - 2> "$D/log" > /dev/null
  echo "   end $(date +%T.%N)"
  grep -E "GPU opened|Wgpu|opened in" "$D/log" | head -3
  head -2 "$D/log"; tail -3 "$D/log"
  python3 - "$D/log" <<'PY'
import re, sys, statistics as st
t = []; rt = []; ck = []; cr = []; first = last = None
for line in open(sys.argv[1]):
    m = re.match(r"\[(\S+)Z", line)
    if m:
        ts = m.group(1)
        h, mi, s = ts.split("T")[1].split(":")
        sec = int(h) * 3600 + int(mi) * 60 + float(s)
        first = first if first is not None else sec
        last = sec
    m = re.search(r"codes checked ([0-9.]+) ms, GPU round trip ([0-9.]+) ms, CRCs ([0-9.]+) ms", line)
    if m:
        ck.append(float(m.group(1))); rt.append(float(m.group(2))); cr.append(float(m.group(3))); t.append(sec - first)
if rt:
    print(f"  {len(rt)} runs: first ends {t[0]*1e3:.0f} ms, last {t[-1]*1e3:.0f} ms after the first log line; log spans {(last-first)*1e3:.0f} ms")
    for n, v in (("codes checked", ck), ("GPU round trip", rt), ("CRCs", cr)):
        print(f"  {n}: median {st.median(v):.1f} ms, p90 {sorted(v)[int(len(v)*0.9)]:.1f}, sum {sum(v):.0f}")
PY
  gzip -c "$D/log" > "$OUT/decprof32-$f.log.gz"  # kept as benches/results/h200-2026-11-30-decprof32-$f.log.gz
done
for f in pvl gz; do
  for be in wgpu cpu; do
    echo "== perf, $f, --backend $be"
    perf record -F 1999 -g -o "$D/p.data" -- $P decompress --backend $be "$D/sys.$f" -o - 2>/dev/null > /dev/null
    perf report -i "$D/p.data" --no-children --stdio --sort comm --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | grep "%" | head -12
    perf report -i "$D/p.data" --no-children --stdio --sort dso,sym --percent-limit 1 -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -30
  done
done
date -u
