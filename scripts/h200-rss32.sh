#!/usr/bin/env bash
# Where the GPU-opening build's extra peak memory comes from: the resident set of the
# CLI's wgpu decompress of 4 GiB of system files (native), sampled every 5 ms from
# /proc, for 4b34819 (.device/parvlc) and this build (.device/parvlc-new), with the
# debug log's moments (GPU opened, first and last GPU run). BUILDS: the binaries in .device
# (default "parvlc parvlc-new"). There: bash scripts/h200-rss32.sh
source scripts/h200-lib.sh
h200_start rss32
unpack_device
D=/dev/shm/dec32; mkdir -p "$D"
sys_compressed "$D"
for round in 1 2; do
for b in ${BUILDS:-parvlc parvlc-new}; do
  echo "== $b round $round"
  RUST_LOG=parvlc=debug .device/$b decompress --backend wgpu "$D/sys.pvl" -o - 2> "$D/log" > /dev/null &
  pid=$!
  t0=$(date +%s.%N)
  : > "$D/rss"
  while kill -0 $pid 2>/dev/null; do
    r=$(awk '/VmRSS/{print $2}' /proc/$pid/status 2>/dev/null)
    echo "$(date +%s.%N) $r" >> "$D/rss"
    sleep 0.005
  done
  wait $pid
  python3 - "$D/rss" "$D/log" "$t0" <<'PY'
import sys, re, datetime
rss = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 2]
t0 = float(sys.argv[3])
pts = [(float(t) - t0, int(r) // 1024) for t, r in rss]
ev = []
for line in open(sys.argv[2]):
    m = re.match(r"\[(\S+)Z", line)
    if not m: continue
    ts = datetime.datetime.fromisoformat(m.group(1)).replace(tzinfo=datetime.timezone.utc).timestamp() - t0
    if "opened in" in line: ev.append((ts, "GPU opened"))
    if "CPU cores: the GPU" in line: ev.append((ts, "CPU batch"))
    if "run of" in line: ev.append((ts, "GPU run"))
firsts = {}
for t, e in ev:
    firsts.setdefault(e, t)
lasts = {e: t for t, e in ev}
print("  events:", ", ".join(f"{e} first {firsts[e]*1e3:.0f} ms last {lasts[e]*1e3:.0f} ms" for e in firsts))
peak = max(pts, key=lambda p: p[1])
print(f"  peak {peak[1]} MiB at {peak[0]*1e3:.0f} ms")
step = 0.025
t = 0.0
line = []
while t < pts[-1][0]:
    w = [r for (x, r) in pts if t <= x < t + step]
    if w: line.append(f"{t*1e3:.0f}:{max(w)}")
    t += step
print("  MiB by 25 ms:", " ".join(line))
PY
done
done
date -u
# Wall and peak, three rounds alternating.
for round in 1 2 3; do
  for b in ${BUILDS:-parvlc parvlc-new}; do
    wall "round $round, $b --backend wgpu" ".device/$b decompress --backend wgpu $D/sys.pvl -o - > /dev/null"
  done
done
