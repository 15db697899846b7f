# What the H200 scripts share; each sources it from the project root.

# h200_start NAME: everything the script prints from here on also goes to $OUT/NAME.txt;
# the GPU machine's environment (.device/env.sh, the Vulkan loader) set up; the machine's
# facts first.
h200_start() {
  OUT=${OUT:-out}
  mkdir -p "$OUT"
  exec > >(tee -a "$OUT/$1.txt") 2>&1
  # shellcheck disable=SC1091
  source .device/env.sh
  date -u; nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader; nproc
}

# wall LABEL COMMAND: one run of COMMAND (a shell string), its output dropped: wall clock,
# CPU times and peak resident memory by GNU time, on one line after LABEL.
wall() {
  /usr/bin/time -f "$1	wall %e s	user %U s	sys %S s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1
}

# wall_fresh LABEL COMMAND: `wall` of COMMAND writing `-o $D/x.264`, the previous run's
# output removed first, outside the timing (replacing a 1.46 GB file on tmpfs costs the
# rename about 0.16 s).
wall_fresh() {
  rm -f "$D/x.264"
  wall "$1" "$2 -o $D/x.264"
}

# same_streams ARGS...: .device/parvlc-old's and .device/parvlc's streams of 960 frames of
# the pan ($D/p960.y4m) at QP 27 with ARGS, compared; their size after the verdict.
same_streams() {
  .device/parvlc-old h264 "$D/p960.y4m" --qp 27 "$@" -o "$D/old.264" 2>/dev/null
  .device/parvlc h264 "$D/p960.y4m" --qp 27 "$@" -o "$D/new.264" 2>/dev/null
  cmp "$D/old.264" "$D/new.264" && echo "960 frames $*: the same stream, $(stat -c %s "$D/new.264") bytes"
  rm -f "$D/old.264" "$D/new.264"
}

# debug_run NAME ARGS...: one debug-logged `parvlc h264` of $D/p1920.y4m at QP 27 with
# ARGS: its start and end lines, its batches summed up, the log kept as $OUT/NAME.log.gz.
debug_run() {
  local name=$1
  shift
  rm -f "$D/x.264"
  RUST_LOG=parvlc=debug .device/parvlc h264 "$D/p1920.y4m" --qp 27 "$@" -o "$D/x.264" 2> "$D/log"
  grep -E "Wgpu opened|h264: |done after|staging|GPU closing" "$D/log"
  python3 scripts/h264_timeline.py "$D/log" | tail -8
  gzip -c "$D/log" > "$OUT/$name.log.gz"
}

# pan_y4m FILE [FRAMES]: the 1080p pan of scripts/h264_rd.py (240 frames by default), in
# the page cache.
pan_y4m() {
  python3 -c 'import sys; sys.path.insert(0, "scripts"); from h264_rd import write_pan
write_pan(1920, 1080, int(sys.argv[2]), sys.argv[1])' "$1" "${2:-240}"
  cat "$1" > /dev/null
}

# pan_ppm BASE DIR N: the synthetic 4K RGB 8-bit picture BASE and N frames of a pan over
# it, DIR/f000.ppm... (scripts/ppm.py).
pan_ppm() {
  mkdir -p "$2"
  python3 scripts/ppm.py make "$1" 3840 2160
  python3 scripts/ppm.py pan "$1" "$2" "$3"
}

# pan_frames DIR N: N frames of a vertical pan over the synthetic 4K RGB 8-bit picture
# DIR/base.ppm (frame k: its rows rotated by 8k, so frames differ) as DIR/in/f000.ppm...
pan_frames() {
  mkdir -p "$1/in"
  python3 scripts/ppm.py make "$1/base.ppm" 3840 2160
  python3 - "$1" "$2" <<'PY'
import sys
d, n = sys.argv[1], int(sys.argv[2])
data = open(f"{d}/base.ppm", "rb").read()
head = data[: data.index(b"255\n") + 4]
body = data[len(head):]
row = 3 * 3840
for k in range(n):
    s = (8 * k % 2160) * row
    open(f"{d}/in/f{k:03d}.ppm", "wb").write(head + body[s:] + body[:s])
PY
}

# sys_files DIR: 4 GiB of the machine's own system files (`tar` of /usr, /opt and /etc,
# repeated) as DIR/sys.tar and its first GiB as DIR/sys1g, both in the page cache.
sys_files() {
  mkdir -p "$1"
  for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$1/sys.tar"
  head -c 1073741824 "$1/sys.tar" > "$1/sys1g"
  cat "$1/sys.tar" "$1/sys1g" > /dev/null
}

# h264_pan LABEL ARGS...: one `$B h264 $D/pan.y4m --qp 27 --force ARGS...` (B the
# binary, D the scratch folder), the command's report and its times after LABEL.
h264_pan() {
  /usr/bin/time -f "$1	wall %e s	user %U s	sys %S s	peak %M KiB" \
    "$B" h264 "$D/pan.y4m" --qp 27 --force "${@:2}" 2>&1 | tail -2
}

# chunk_phases: a `RUST_LOG=parvlc=debug` compress's log on stdin, summarized: the lines
# that open the GPU and report the run, then per phase of a chunk (read, upload, GPU
# histograms, plan, record and submit, readback, headers and CRC32s, write) its count,
# median, 90th percentile and sum over the chunks.
chunk_phases() {
  python3 -c '
import re, sys, statistics as st
ph = {}
for line in sys.stdin:
    m = re.search(r"upload ([0-9.]+) ms, histograms ([0-9.]+) ms, plan ([0-9.]+) ms, encode \(record, submit\) ([0-9.]+) ms, readback ([0-9.]+) ms, headers\+crc ([0-9.]+) ms", line)
    if m:
        for n, v in zip(["upload", "histograms", "plan", "submit", "readback", "headers+crc"], m.groups()):
            ph.setdefault(n, []).append(float(v))
    m = re.search(r"chunk \d+ read in ([0-9.]+) ms", line)
    if m: ph.setdefault("read", []).append(float(m.group(1)))
    m = re.search(r"bytes written in ([0-9.]+) ms", line)
    if m: ph.setdefault("write", []).append(float(m.group(1)))
    if re.search(r"GPU opened|opened in|GB/s", line): print("  " + line.strip()[:200])
for n, v in ph.items():
    print(f"  {n}: {len(v)} chunks, median {st.median(v):.2f} ms, p90 {sorted(v)[int(len(v)*0.9)]:.2f} ms, sum {sum(v):.0f} ms")
'
}

# plan_parts: a `RUST_LOG=parvlc=debug` compress's log on stdin, the host's parts of a
# chunk between its scan and its encode (the GPU plan's read, the frames' layout, the
# encode's plan and tables) and the submit call, each as count, median and 90th
# percentile over the chunks.
plan_parts() {
  python3 -c '
import re, sys, statistics as st
parts = {}
for line in sys.stdin:
    for k, v in re.findall(r"(submit call|plan read|layout|plan and tables) ([0-9.]+) ms", line):
        parts.setdefault(k, []).append(float(v))
for k, v in parts.items():
    print(f"  {k}: {len(v)} chunks, median {st.median(v):.2f} ms, p90 {sorted(v)[int(len(v)*0.9)]:.2f} ms")
'
}

# phases_of SB DIR FORMAT [NAME]: two debug-logged runs of the stream_bench .device/SB on
# DIR/sys1g in FORMAT, each chunk's phases and its plan's parts summed up (chunk_phases,
# plan_parts); with NAME the log kept as $OUT/NAME-FORMAT-debug.log.gz.
phases_of() {
  echo "== phases: $1, $3, two runs, debug-logged"
  FORMAT=$3 RUNS=2 RUST_LOG=parvlc=debug ".device/$1" "$2/sys1g" 2> "$2/$1-$3.log" | tail -n +2
  chunk_phases < "$2/$1-$3.log"
  plan_parts < "$2/$1-$3.log"
  if [ -n "${4:-}" ]; then gzip -c "$2/$1-$3.log" > "$OUT/$4-$3-debug.log.gz"; fi
}

# scan_passes SB DIR: one gzip run of the stream_bench SB on DIR/sys1g, trace-logged, and
# five of its chunks' lines: each pass of the scan and the encode on the GPU's clock.
scan_passes() {
  echo "== the scan's passes on the GPU's clock, $1, gzip (trace-logged, chunks' lines)"
  FORMAT=gzip RUNS=1 RUST_LOG=parvlc=trace "$1" "$2/sys1g" 2> "$2/t.log" | tail -n +2
  grep "on the GPU's clock" "$2/t.log" | sed -n '100,104p' | cut -c1-400
}

# pan_y4m_times SRC DST K: DST holds SRC's frames K times over (SRC's header once), in the
# page cache (960 frames of the pan without computing them four times).
pan_y4m_times() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
head = data[: data.index(b"\n") + 1]
open(sys.argv[2], "wb").write(head + data[len(head):] * int(sys.argv[3]))
PY
  cat "$2" > /dev/null
}

# h264_ab N ROUNDS: the CLI at its defaults (QP 27) on $D/pN.y4m, .device/parvlc-old
# against .device/parvlc, ROUNDS rounds alternating; the builds' streams compared first,
# then every run's with the old build's.
h264_ab() {
  .device/parvlc-old h264 "$D/p$1.y4m" --qp 27 --force -o "$D/old$1.264" 2>/dev/null
  .device/parvlc h264 "$D/p$1.y4m" --qp 27 --force -o "$D/new$1.264" 2>/dev/null
  cmp "$D/old$1.264" "$D/new$1.264" && echo "$1 frames: both builds write the same stream ($(stat -c %s "$D/new$1.264") bytes)"
  for r in $(seq "$2"); do
    for b in parvlc-old parvlc; do
      wall "$1 frames defaults, $b, run $r" ".device/$b h264 $D/p$1.y4m --qp 27 --force -o $D/x.264"
      cmp -s "$D/x.264" "$D/old$1.264" || echo "OTHER BYTES"
    done
  done
}

# rows_ab ROUNDS: a slice per macroblock row on $D/p1920.y4m, .device/parvlc-old against
# .device/parvlc, ROUNDS rounds alternating, every run's stream compared with the old
# build's.
rows_ab() {
  .device/parvlc-old h264 "$D/p1920.y4m" --qp 27 --force --slice-rows 1 -o "$D/rows.264" 2>/dev/null
  for r in $(seq "$1"); do
    for b in parvlc-old parvlc; do
      wall "1920 frames, a slice per row, $b, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --force --slice-rows 1 -o $D/x.264"
      cmp -s "$D/x.264" "$D/rows.264" || echo "OTHER BYTES"
    done
  done
}

# intra_bench_ab ROUNDS LUMAS BATCHES: the H.264 front end's GPU time at 1080p,
# .device/h264_intra_bench-old against .device/h264_intra_bench, ROUNDS rounds
# alternating, for each --luma in LUMAS (a space-separated list) and the comma list of
# batch sizes BATCHES.
intra_bench_ab() {
  for r in $(seq "$1"); do
    for b in h264_intra_bench-old h264_intra_bench; do
      echo "-- $b round $r"
      for luma in $2; do
        LUMA=$luma BATCHES=$3 .device/$b 1920 1080 2>&1 | grep intra
      done
    done
  done
}

# pan_lengths DIR: the pan (pan_y4m) as DIR/p240.y4m, and it four and eight times as
# DIR/p960.y4m and DIR/p1920.y4m, all in the page cache.
pan_lengths() {
  pan_y4m "$1/p240.y4m"
  pan_y4m_times "$1/p240.y4m" "$1/p960.y4m" 4
  pan_y4m_times "$1/p240.y4m" "$1/p1920.y4m" 8
}

# shape_runs N DEPTH CODERS [ARGS...]: two runs of `.device/parvlc h264 $D/pN.y4m --qp 27
# --depth DEPTH ARGS...` with CODERS batches in flight (PARVLC_H264_CODERS); without ARGS
# each stream compared with $D/refN.264.
shape_runs() {
  local n=$1 depth=$2 coders=$3
  shift 3
  for r in 1 2; do
    wall "$n frames, depth $depth, $coders in flight $*, run $r" \
      "PARVLC_H264_CODERS=$coders .device/parvlc h264 $D/p$n.y4m --qp 27 --force --depth $depth $* -o $D/x.264"
    [ $# -gt 0 ] || cmp -s "$D/x.264" "$D/ref$n.264" || echo "OTHER BYTES"
  done
}

# batch_phases LOG: a debug-logged `parvlc h264` run summarized: how long its coders
# waited for pictures, and each phase of its batches (count, median, 90th percentile,
# most, sum).
batch_phases() {
  python3 scripts/h264_timeline.py --phases "$1"
}

# gpu_batch_times LOG: a trace-logged `parvlc h264` run's GPU time of each batch's front
# end and CAVLC (timestamps), summarized.
gpu_batch_times() {
  python3 - "$1" <<'PY'
import re, statistics, sys
front, cavlc = [], []
for line in open(sys.argv[1]):
    m = re.search(r"GPU front end ([\d.]+) ms, CAVLC ([\d.]+) ms", line)
    if m:
        front.append(float(m.group(1)))
        cavlc.append(float(m.group(2)))
for label, v in (("front end", front), ("CAVLC", cavlc)):
    print(f"GPU {label}: {len(v)} batches, median {statistics.median(v):.2f} ms, min {min(v):.2f}, max {max(v):.2f}, sum {sum(v):.0f} ms")
PY
}

# cli_compress_check DIR: .device/parvlc-old's and .device/parvlc's compress of DIR/sys.tar
# from standard input, gzip and native, each output decoded (gzip -dc, our decompress)
# and compared with the input; its size after the verdict.
cli_compress_check() {
  local b
  for b in parvlc-old parvlc; do
    .device/$b compress -f gzip - -o - < "$1/sys.tar" 2>/dev/null > "$1/$b.gz"
    gzip -dc "$1/$b.gz" | cmp - "$1/sys.tar" && echo "$b gzip: gzip -dc gives the input, $(stat -c %s "$1/$b.gz") bytes"
    .device/$b compress -f native - -o - < "$1/sys.tar" 2>/dev/null > "$1/$b.pvlc"
    .device/$b decompress "$1/$b.pvlc" -o - 2>/dev/null | cmp - "$1/sys.tar" && echo "$b native: decompress gives the input, $(stat -c %s "$1/$b.pvlc") bytes"
    rm -f "$1/$b.gz" "$1/$b.pvlc"
  done
}

# cli_compress_ab DIR ROUNDS: the same compresses timed (`wall`) to /dev/null, ROUNDS
# rounds alternating the builds, gzip then native in each.
cli_compress_ab() {
  local r b
  for r in $(seq 1 "$2"); do
    for b in parvlc-old parvlc; do
      wall "$b gzip stdin run $r" ".device/$b compress -f gzip - -o - < $1/sys.tar"
      wall "$b native stdin run $r" ".device/$b compress -f native - -o - < $1/sys.tar"
    done
  done
}

# library_ab FILE ROUNDS: examples/stream_bench (.device/stream_bench-old against
# .device/stream_bench) on FILE, native then gzip, RUNS=3, ROUNDS rounds alternating.
library_ab() {
  local r b
  for r in $(seq 1 "$2"); do
    for b in stream_bench-old stream_bench; do
      echo "== $b round $r"
      RUNS=3 .device/$b "$1" | tail -n +2
      FORMAT=gzip RUNS=3 .device/$b "$1" | tail -n +2
    done
  done
}

# perf_tools: perf from .device/perf.tgz (the development machine's perf and the
# libraries it links, but libc: the GPU machine's own) as the function `perf`, and
# sampling allowed.
perf_tools() {
  tar xzf .device/perf.tgz -C .device
  perf() { LD_LIBRARY_PATH=.device/perf/lib .device/perf/perf "$@"; }
  echo -1 > /proc/sys/kernel/perf_event_paranoid 2>/dev/null
}

# unpack_device: the binaries carried in .device (gzipped to fit the call) unpacked and
# executable.
unpack_device() {
  for f in .device/*.gz; do gunzip -f "$f"; done
  chmod +x .device/*
}

# sys_1g DIR: the first GiB of sys_files' bytes (two tars hold it) as DIR/sys1g.
sys_1g() {
  mkdir -p "$1"
  for _ in 1 2; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 1073741824 > "$1/sys1g"
}

# plan_ab DIR: this build's frame plan and library compress (.device/fpb-new, sb-new)
# against the build before (fpb-base, sb-old) on DIR/sys1g, alternating: the plan's passes
# twice each (frame_plan_bench checks every chunk against the CPU twin first), the
# library three rounds (stream_bench decodes its output before timing), native and gzip;
# then a trace-logged timeline of this build.
plan_ab() {
  for v in base new base new; do
    for f in native gzip; do echo -n "fpb-$v: "; FORMAT=$f .device/fpb-$v "$1/sys1g"; done
  done
  for round in 1 2 3; do
    for f in native gzip; do
      for v in old new; do echo -n "round $round, $f, sb-$v: "; FORMAT=$f .device/sb-$v "$1/sys1g" | tail -2; done
    done
  done
  timeline_of .device/sb-new "$1"
}

# timeline_of SB DIR: the stream_bench SB on DIR/sys1g, trace-logged, two runs, native
# and gzip, each run's GPU timeline summarized (scripts/gpu_timeline.py).
timeline_of() {
  for f in native gzip; do
    echo "== timeline, this build, $f"
    RUST_LOG=parvlc=trace FORMAT=$f RUNS=2 "$1" "$2/sys1g" 2>"$2/t.log" | tail -2
    python3 scripts/gpu_timeline.py "$2/t.log" | tail -6
  done
}

# sb_rounds DIR ROUNDS BUILD...: the library's GiB (DIR/sys1g) through each
# .device/BUILD (a stream_bench, which decodes its output before timing it) in turn,
# native then gzip, ROUNDS rounds of RUNS (6) runs at the shape the environment gives
# (CHUNKS_MIB, DEPTHS; each build's default without), each result (and each run's time)
# after "== round R, FORMAT, BUILD".
sb_rounds() {
  local dir=$1 rounds=$2 round f v
  shift 2
  for round in $(seq 1 "$rounds"); do
    for f in native gzip; do
      for v in "$@"; do
        echo "== round $round, $f, $v"
        FORMAT=$f RUNS=${RUNS:-6} ".device/$v" "$dir/sys1g" | tail -n +2
      done
    done
  done
}

# h264_pass_end NAME: a pass's end as -final27 and -confirm27 ran it, in $D (made here):
# the pan's lengths; .device/parvlc-old's and .device/parvlc's streams compared (960
# frames: one slice, a slice per row, --luma 16x16); three rounds alternating the builds,
# each run's previous output removed outside the timing: 1920 frames one slice, a slice
# per row and --luma 16x16, 960 frames one slice; a debug-logged run kept as
# $OUT/NAME-debug.log.gz; $D removed.
h264_pass_end() {
  mkdir -p "$D"
  pan_lengths "$D"
  same_streams
  same_streams --slice-rows 1
  same_streams --luma 16x16
  pass_end_rounds
  debug_run "$1-debug"
  rm -rf "$D"
}

# ab_rounds SPEC...: three rounds alternating .device/parvlc-old and .device/parvlc in
# $D at QP 27, each run's previous output removed outside the timing; each SPEC,
# "LABEL|FILE|ARGS", one run a build a round: `parvlc h264 $D/FILE --qp 27 ARGS`, shown as
# "BUILD, LABEL, run R".
ab_rounds() {
  local r b spec label file args
  for r in 1 2 3; do
    for b in parvlc-old parvlc; do
      for spec in "$@"; do
        IFS='|' read -r label file args <<< "$spec"
        wall_fresh "$b, $label, run $r" ".device/$b h264 $D/$file --qp 27${args:+ $args}"
      done
    done
  done
}

# pass_end_rounds: h264_pass_end's rounds (ab_rounds): 1920 frames one slice, a slice per
# row and --luma 16x16, 960 frames one slice.
pass_end_rounds() {
  ab_rounds "1920 frames|p1920.y4m|" "1920 frames, a slice per row|p1920.y4m|--slice-rows 1" \
    "1920 frames, --luma 16x16|p1920.y4m|--luma 16x16" "960 frames|p960.y4m|"
}

# recon_same: .device/parvlc-old's and .device/parvlc's streams and reconstructions
# (--recon) of 960 frames of the pan ($D/p960.y4m) at QP 27, compared.
recon_same() {
  local b
  for b in parvlc-old parvlc; do
    .device/$b h264 "$D/p960.y4m" --qp 27 -o "$D/$b.264" --recon "$D/$b.yuv" 2>/dev/null
  done
  cmp "$D/parvlc-old.264" "$D/parvlc.264" && cmp "$D/parvlc-old.yuv" "$D/parvlc.yuv" \
    && echo "960 frames --recon: the same stream and reconstruction, $(stat -c %s "$D/parvlc.yuv") bytes"
  rm -f "$D"/parvlc*.264 "$D"/parvlc*.yuv
}

# gpu_medians LABEL: one trace-logged `.device/parvlc h264` of $D/p1920.y4m at QP 27 (each
# pass timed, read in a submission of its own): the medians over its batches of the
# front end's and CAVLC's GPU time.
gpu_medians() {
  rm -f "$D/x.264"
  RUST_LOG=parvlc=trace .device/parvlc h264 "$D/p1920.y4m" --qp 27 -o "$D/x.264" 2> "$D/trace"
  python3 - "$1" "$D/trace" <<'PY'
import re, statistics, sys
fe, cv = [], []
for line in open(sys.argv[2]):
    m = re.search(r"GPU front end ([0-9.]+) ms, CAVLC ([0-9.]+) ms", line)
    if m:
        fe.append(float(m.group(1))); cv.append(float(m.group(2)))
print(f"{sys.argv[1]}: {len(fe)} batches, GPU front end median {statistics.median(fe):.2f} ms, CAVLC median {statistics.median(cv):.2f} ms")
PY
}

# h264_start28 NAME [trace]: the twenty-eighth pass's A/B in $D (made here): the pan's
# lengths; .device/parvlc-old's and .device/parvlc's streams compared (960 frames: one
# slice, a slice per row, and with --recon); three rounds alternating the builds, each
# run's previous output removed outside the timing: 1920 frames one slice and a slice per
# row, 960 frames one slice; a debug-logged run of each build ($OUT/NAME-old-debug.log.gz,
# $OUT/NAME-debug.log.gz); with `trace`, each build's GPU medians (gpu_medians); $D
# removed.
h264_start28() {
  mkdir -p "$D"
  pan_lengths "$D"
  same_streams
  same_streams --slice-rows 1
  recon_same
  ab_rounds "1920 frames|p1920.y4m|" "1920 frames, a slice per row|p1920.y4m|--slice-rows 1" \
    "960 frames|p960.y4m|"
  cp .device/parvlc .device/parvlc-new
  cp .device/parvlc-old .device/parvlc && debug_run "$1-old-debug"
  cp .device/parvlc-new .device/parvlc && debug_run "$1-debug"
  if [ "${2:-}" = trace ]; then
    cp .device/parvlc-old .device/parvlc && gpu_medians old-bin
    cp .device/parvlc-new .device/parvlc && gpu_medians parvlc-new
  fi
  rm -rf "$D"
}

# sys_compressed DIR [BIN]: sys_files' 4 GiB as DIR/sys.tar, compressed by BIN
# (.device/parvlc by default) as DIR/sys.pvl and DIR/sys.gz, each made unless there
# from an earlier call on the same machine; all three then in the page cache.
sys_compressed() {
  local bin=${2:-.device/parvlc}
  [ -f "$1/sys.tar" ] || sys_files "$1"
  [ -f "$1/sys.pvl" ] || $bin compress -f native "$1/sys.tar" -o "$1/sys.pvl" 2>&1 | tail -1
  [ -f "$1/sys.gz" ] || $bin compress -f gzip "$1/sys.tar" -o "$1/sys.gz" 2>&1 | tail -1
  cat "$1/sys.tar" "$1/sys.pvl" "$1/sys.gz" > /dev/null
}

# decompress_rounds N CPU BUILD...: N rounds alternating, each decompressing $D/sys.pvl
# then $D/sys.gz to /dev/null with every .device/BUILD on --backend wgpu (GNU time's wall
# and peak), and with the last BUILD on --backend cpu too when CPU is 1.
decompress_rounds() {
  local n=$1 cpu=$2 round f b
  shift 2
  for round in $(seq "$n"); do
    for f in pvl gz; do
      for b in "$@"; do
        wall "round $round, $f, $b --backend wgpu" ".device/$b decompress --backend wgpu $D/sys.$f -o - > /dev/null"
      done
      [ "$cpu" = 1 ] && wall "round $round, $f, --backend cpu" ".device/${*: -1} decompress --backend cpu $D/sys.$f -o - > /dev/null"
    done
  done
}

# opening_log BUILD: for $D/sys.pvl and $D/sys.gz, .device/BUILD's wgpu decompress
# compared with the input, then one debug-logged run: batches decoded on the CPU cores
# while the GPU opened, GPU runs, the GPU's opening and the whole run.
opening_log() {
  local f
  for f in pvl gz; do
    .device/$1 decompress --backend wgpu "$D/sys.$f" -o - | cmp - "$D/sys.tar" && echo "$f, $1, wgpu: equals the input"
    RUST_LOG=parvlc=debug .device/$1 decompress --backend wgpu "$D/sys.$f" -o - 2> "$D/log" > /dev/null
    echo "$f: $(grep -c 'CPU cores: the GPU is opening' "$D/log") batches on the CPU, $(grep -c 'run of' "$D/log") GPU runs; $(grep -E 'opened in|done after' "$D/log" | sed 's/.*DEBUG parvlc] //' | tr '\n' ' ')"
  done
}

# no_adapter_rounds N BIN FILE...: N rounds alternating, each decompressing every FILE to
# /dev/null with BIN on --backend wgpu where no adapter matches (WGPU_ADAPTER_NAME: the
# warning, then the CPU cores) and on --backend cpu (GNU time's wall and peak).
no_adapter_rounds() {
  local n=$1 bin=$2 round f
  shift 2
  for round in $(seq "$n"); do
    for f in "$@"; do
      wall "round $round, $(basename "$f"), wgpu without an adapter" "WGPU_ADAPTER_NAME=nomatch $bin decompress --backend wgpu $f -o - 2>/dev/null > /dev/null"
      wall "round $round, $(basename "$f"), cpu" "$bin decompress --backend cpu $f -o - > /dev/null"
    done
  done
}

# vld_ab NEW BASE: the Huffman bench's vld rows of .device/NEW against .device/BASE (both
# `--features cuda`), 1 GiB at 4.5 bits, high state (--backend cuda,wgpu), 16 KiB and 4 KiB
# blocks, two rounds alternating; then the CLI's `decompress --backend wgpu` of 4 GiB of
# system files (native, 4 KiB blocks, a Vulkan-only process), outputs compared first,
# three rounds alternating.
vld_ab() {
  local b="--sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
  local round v
  for round in 1 2; do
    for v in "$1" "$2"; do
      echo "== round $round, $v, 16 KiB blocks $(date +%T)"
      .device/$v bench --backend cuda,wgpu $b 2>&1 | grep -i "vld\|error\|panic"
      echo "== round $round, $v, 4 KiB blocks (--workgroup-size 64) $(date +%T)"
      .device/$v bench --backend cuda,wgpu --workgroup-size 64 $b 2>&1 | grep -i "vld\|error\|panic"
    done
  done
  D=/dev/shm/dec33; mkdir -p "$D"
  sys_files "$D"
  .device/$2 compress -f native "$D/sys.tar" -o "$D/sys.pvl" 2>&1 | tail -1
  for v in "$1" "$2"; do
    .device/$v decompress --backend wgpu "$D/sys.pvl" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$v: equals the input"
  done
  for round in 1 2 3; do
    for v in "$1" "$2"; do
      wall "round $round, native, $v --backend wgpu" ".device/$v decompress --backend wgpu $D/sys.pvl -o - 2>/dev/null > /dev/null"
    done
  done
}

# The thirty-fourth pass's A/B calls (HTJ2K): .device/parvlc ("new") against
# .device/parvlc-base ("base") on the synthetic 4K RGB picture DIR/pic.ppm, alternating.
# PART1=1 adds Part 1 (no --ht) where marked.
ht_bin() {
  if [ "$1" = base ]; then echo .device/parvlc-base; else echo .device/parvlc; fi
}

# ht_ab_same DIR: the picture made; both builds' --ht codestreams (and with PART1=1, Part
# 1's, the new one decoded by opj_decompress) compared; the new --ht one decoded by
# ojph_expand and opj_decompress to the source.
ht_ab_same() {
  local D=$1 b
  mkdir -p "$D/base" "$D/new"
  python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
  for b in base new; do
    $(ht_bin $b) j2k "$D/pic.ppm" -o "$D/$b.j2k" --force --ht 2>&1 | tail -1
  done
  cmp "$D/base.j2k" "$D/new.j2k" && echo "4K --ht: both builds write the same codestream ($(stat -c %s "$D/new.j2k") bytes)"
  if [ "${PART1:-0}" = 1 ]; then
    .device/parvlc-base j2k "$D/pic.ppm" -o "$D/base-p1.j2k" --force 2>/dev/null
    .device/parvlc j2k "$D/pic.ppm" -o "$D/new-p1.j2k" --force 2>/dev/null
    cmp "$D/base-p1.j2k" "$D/new-p1.j2k" && echo "4K Part 1: both builds write the same codestream ($(stat -c %s "$D/new-p1.j2k") bytes)"
    opj_decompress -i "$D/new-p1.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/pic.ppm" && echo "opj_decompress gives the source (Part 1)"
  fi
  ojph_expand -i "$D/new.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/pic.ppm" && echo "ojph_expand gives the source"
  opj_decompress -i "$D/new.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/pic.ppm" && echo "opj_decompress gives the source"
}

# ht_ab_bench ROWS: `bench j2k --sizes 4K` (every GPU result checked first) of each
# build, two rounds, the rows matching the regex ROWS.
ht_ab_bench() {
  local r b
  for r in 1 2; do
    for b in base new; do
      echo "== bench j2k 4K, $b, round $r"
      $(ht_bin $b) bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "$1"
    done
  done
}

# ht_ab_cli DIR: the picture --ht through each build (PART1=1: and Part 1), files in and
# out, with ojph_compress -reversible true and opj_compress -M 1 -threads 16 beside,
# three rounds.
ht_ab_cli() {
  local D=$1 r
  for r in 1 2 3; do
    wall "4K --ht, base, run $r" ".device/parvlc-base j2k $D/pic.ppm -o $D/x.j2k --force --ht"
    wall "4K --ht, new, run $r" ".device/parvlc j2k $D/pic.ppm -o $D/x.j2k --force --ht"
    if [ "${PART1:-0}" = 1 ]; then
      wall "4K Part 1, base, run $r" ".device/parvlc-base j2k $D/pic.ppm -o $D/x.j2k --force"
      wall "4K Part 1, new, run $r" ".device/parvlc j2k $D/pic.ppm -o $D/x.j2k --force"
    fi
    wall "4K ojph_compress -reversible true, run $r" "ojph_compress -i $D/pic.ppm -o $D/o.j2c -reversible true -num_decomps 5 -block_size {64,64}"
    wall "4K opj_compress -M 1 -threads 16, run $r" "opj_compress -i $D/pic.ppm -o $D/o.j2k -M 1 -threads 16"
  done
}

# ht_ab_frames DIR: thirty 4K frames --ht at depth 8 through each build, two rounds,
# their codestreams compared.
ht_ab_frames() {
  local D=$1 r b bad f
  pan_frames "$D" 30
  for r in 1 2; do
    for b in base new; do
      wall "30 frames --ht depth 8, $b, run $r" "$(ht_bin $b) j2k $D/in/*.ppm -o $D/$b --force --depth 8 --ht"
    done
  done
  bad=0; for f in "$D"/base/*.j2k; do cmp -s "$f" "$D/new/$(basename "$f")" || bad=1; done
  [ $bad = 0 ] && echo "30 frames: both builds write the same codestreams" || echo "30 frames: OTHER BYTES"
}

# ht_ab_debug DIR: the picture --ht debug-logged through each build, two rounds: where a
# run's time goes.
ht_ab_debug() {
  local D=$1 r b
  for r in 1 2; do
    for b in base new; do
      echo "== debug log, $b, run $r"
      RUST_LOG=parvlc=debug $(ht_bin $b) j2k "$D/pic.ppm" -o "$D/x.j2k" --force --ht 2>&1 | grep -E "read in|opened in|HT|tier-2|front end|readback of|staging|encoded in|done after" | sed -E 's/^\[[^ ]+ //'
    done
  done
}

# copy_ab DIR ROUNDS BUILD...: the 4K picture --ht through each .device/BUILD in turn,
# debug-logged (the gathered readback's copy, tier-2), ROUNDS rounds, each codestream
# compared with the first build's; then `bench j2k --sizes 4K`'s HT rows, two rounds.
copy_ab() {
  local D=$1 rounds=$2 r b
  shift 2
  mkdir -p "$D"
  python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
  ".device/$1" j2k "$D/pic.ppm" -o "$D/ref.j2k" --force --ht 2>/dev/null
  for r in $(seq "$rounds"); do
    for b in "$@"; do
      echo "== $b, run $r"
      RUST_LOG=parvlc=debug ".device/$b" j2k "$D/pic.ppm" -o "$D/x.j2k" --force --ht 2>&1 | grep -E "readback of 8|gathered|tier-2|encoded in" | sed -E 's/^\[[^ ]+ //'
      cmp -s "$D/x.j2k" "$D/ref.j2k" || echo "$b: OTHER BYTES"
    done
  done
  for r in 1 2; do
    for b in "$@"; do
      echo "== bench j2k 4K, $b, round $r"
      ".device/$b" bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "ht"
    done
  done
}

# pic_and_cpu DIR BIN: the synthetic 4K RGB picture DIR/pic.ppm and the codestreams BIN's
# CPU writes of it (DIR/cpu.j2k, and DIR/cpu-ht.j2k with --ht), which every GPU run's
# is compared with.
pic_and_cpu() {
  mkdir -p "$1"
  python3 scripts/ppm.py make "$1/pic.ppm" 3840 2160
  "$2" j2k --backend cpu "$1/pic.ppm" -o "$1/cpu.j2k" --force 2>/dev/null
  "$2" j2k --backend cpu "$1/pic.ppm" -o "$1/cpu-ht.j2k" --force --ht 2>/dev/null
}

# first_runs DIR NEW BASE FLAG NAME PATTERN: six first runs each (no parvlc pipeline cache
# in DIR/cache, no driver shader cache) of .device/NEW and .device/BASE on DIR/pic.ppm
# (pic_and_cpu) with FLAG (--ht, or "" for Part 1), alternating, the order swapped every
# round; a line each: wall, the encode's time, and how long the pipeline whose debug
# line matches PATTERN took to compile (printed as NAME). Each codestream is compared
# with the CPU's.
first_runs() {
  local D=$1 new=$2 base=$3 flag=$4 name=$5 pattern=$6 round order v enc ms
  local cpu=$D/cpu.j2k
  [ -n "$flag" ] && cpu=$D/cpu-ht.j2k
  export PARVLC_CACHE_DIR=$D/cache
  for round in 1 2 3 4 5 6; do
    order="$new $base"
    [ $((round % 2)) = 0 ] && order="$base $new"
    for v in $order; do
      rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
      # shellcheck disable=SC2086
      RUST_LOG=parvlc=debug /usr/bin/time -f "%e" .device/$v j2k "$D/pic.ppm" -o "$D/x.j2k" --force $flag 2> "$D/log"
      cmp -s "$D/x.j2k" "$cpu" || echo "cold $v: NOT the CPU's codestream"
      enc=$(grep -o "encoded in [0-9.]* ms" "$D/log" | grep -o "[0-9.]*")
      ms=$(grep -E "$pattern" "$D/log" | grep -o "built in [0-9.]* ms" | grep -o "[0-9.]*")
      echo "round $round	$v	wall $(tail -1 "$D/log") s	encode $enc ms	$name compiled in $ms ms"
    done
  done
}

# warm_j2k_ab DIR NEW BASE FLAG ROWS: two rounds of .device/NEW then .device/BASE warm:
# `bench j2k --sizes 4K --warm-up 1` (its rows matching ROWS), then three CLI runs on
# DIR/pic.ppm with FLAG, the last codestream compared with the CPU's.
warm_j2k_ab() {
  local D=$1 new=$2 base=$3 flag=$4 rows=$5 round v r
  local cpu=$D/cpu.j2k
  [ -n "$flag" ] && cpu=$D/cpu-ht.j2k
  for round in 1 2; do
    for v in $new $base; do
      echo "== bench j2k, $v, round $round"
      .device/$v bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 --warm-up 1 2>&1 | grep -E "$rows|error|panic"
      for r in 1 2 3; do
        wall "warm ${flag:-Part 1} $v, round $round.$r" ".device/$v j2k $D/pic.ppm -o $D/x.j2k --force $flag"
      done
      cmp -s "$D/x.j2k" "$cpu" || echo "warm $v: NOT the CPU's codestream"
    done
  done
}

# cuda_stream_inputs DIR: sys_files' 4 GiB (and its first GiB, DIR/sys1g) and the small
# inputs the CUDA stream coder's byte checks take: empty, one byte, 5,000 random bytes,
# 64 MiB of random bytes and of zeros, the first 100,000,007 bytes of the system files.
cuda_stream_inputs() {
  sys_files "$1"
  : > "$1/empty"
  printf 'a' > "$1/one"
  head -c 5000 /dev/urandom > "$1/r5000"
  head -c 67108864 /dev/urandom > "$1/random64m"
  head -c 67108864 /dev/zero > "$1/zero64m"
  head -c 100000007 "$1/sys.tar" > "$1/sys100m"
}

# stream_bytes BACKEND DIR BIN FILE...: for each DIR/FILE and format, BIN's output on
# BACKEND against its CPU backend's, byte for byte, and decoded (gzip -dc, BIN
# decompress); then standard input to standard output: 100 MB against the CPU's bytes,
# and the 4 GiB decoded back in both formats.
stream_bytes() {
  local B=$1 D=$2 P=$3 f fmt same back
  shift 3
  for f in "$@"; do
    for fmt in gzip native; do
      "$P" compress --backend "$B" -f $fmt "$D/$f" -o "$D/c.gpu" --force 2>&1 | tail -1
      "$P" compress --backend cpu -f $fmt "$D/$f" -o "$D/c.cpu" --force 2>/dev/null
      if cmp -s "$D/c.gpu" "$D/c.cpu"; then same="the CPU's bytes"; else same="DIFFERENT FROM THE CPU'S"; fi
      if [ $fmt = gzip ]; then back=$(gzip -dc "$D/c.gpu" | cmp - "$D/$f" && echo "gzip -dc ok"); else back=$("$P" decompress "$D/c.gpu" -o - 2>/dev/null | cmp - "$D/$f" && echo "decompress ok"); fi
      echo "$B $f $fmt: $(stat -c %s "$D/c.gpu") bytes, $same, $back"
    done
  done
  "$P" compress --backend "$B" -f gzip - -o - < "$D/sys100m" 2>/dev/null > "$D/c.gpu"
  "$P" compress --backend cpu -f gzip - -o - < "$D/sys100m" 2>/dev/null > "$D/c.cpu"
  cmp "$D/c.gpu" "$D/c.cpu" && echo "$B stdin to stdout, gzip: the CPU's bytes"
  "$P" compress --backend "$B" -f gzip - -o - < "$D/sys.tar" 2>/dev/null > "$D/c.gpu"
  gzip -dc "$D/c.gpu" | cmp - "$D/sys.tar" && echo "$B 4 GiB stdin to stdout, gzip: gzip -dc gives the input, $(stat -c %s "$D/c.gpu") bytes"
  "$P" compress --backend "$B" -f native - -o - < "$D/sys.tar" 2>/dev/null > "$D/c.gpu"
  "$P" decompress "$D/c.gpu" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$B 4 GiB stdin to stdout, native: decompress gives the input, $(stat -c %s "$D/c.gpu") bytes"
  rm -f "$D/c.gpu" "$D/c.cpu"
}

# cuda_stream_bytes DIR BIN FILE...: stream_bytes on the CUDA backend.
cuda_stream_bytes() {
  stream_bytes cuda "$@"
}

# cuda_chunk_phases LABEL: the CUDA stream coder's debug log on stdin (src/huffman/
# chunk_cuda.rs), each phase of a chunk as count, median and 90th percentile after LABEL.
cuda_chunk_phases() {
  python3 -c '
import re, sys, statistics as st
ph = {}
for line in sys.stdin:
    if "on CUDA" not in line:
        continue
    for k, v in re.findall(r"(upload|histograms and plan|histograms|codes and tables|plan and tables|encode and readback|encode|readback and headers|headers\+crc) ([0-9.]+) ms", line):
        ph.setdefault(k, []).append(float(v))
for k, v in ph.items():
    print(f"  {sys.argv[1]} {k}: {len(v)} chunks, median {st.median(v):.2f} ms, p90 {sorted(v)[int(len(v)*0.9)]:.2f} ms")
' "$1"
}

# library_round R FILE BACKEND BUILD...: examples/stream_bench's line (best and median of
# five timed runs, after a checked one) for each .device/BUILD on BACKEND, native then
# gzip, FILE host to host, labelled round R.
library_round() {
  local r=$1 f=$2 backend=$3 b fmt
  shift 3
  for b in "$@"; do
    for fmt in native gzip; do
      echo "$b $backend $fmt round $r: $(BACKEND=$backend FORMAT=$fmt RUNS=5 ".device/$b" "$f" | sed -n 2p)"
    done
  done
}

# cuda_phase_runs FILE BUILD...: for each .device/BUILD (examples/stream_bench), two
# debug-logged gzip runs on the CUDA engine over FILE: its line, each chunk's phases
# (cuda_chunk_phases) and the first chunk's log line.
cuda_phase_runs() {
  local f=$1 b log
  shift
  log=$(mktemp)
  for b in "$@"; do
    BACKEND=cuda FORMAT=gzip RUNS=2 RUST_LOG=parvlc=debug ".device/$b" "$f" 2> "$log" | sed -n 2p
    cuda_chunk_phases "$b" < "$log"
    grep -m1 "on CUDA" "$log" | cut -c1-300
  done
  rm -f "$log"
}

# real_kinds DIR SUFFIX: five kinds of real file of at most 256 MiB from the machine's own
# (DIR/text, source, binaries, logs, each with SUFFIX) and a columnar table of 40 MiB
# (DIR/columns SUFFIX): the ratio inputs of h200-stream.sh and h200-ratio46.sh.
real_kinds() {
  local dir=$1 suffix=$2
  kind() { head -c $((256 << 20)) > "$dir/$1$suffix"; }
  find /usr -type f \( -name '*.txt' -o -name '*.md' -o -name '*.html' -o -name '*.rst' -o -name '*.xml' \) -print0 2>/dev/null | xargs -0 cat 2>/dev/null | kind text
  find /usr -type f \( -name '*.h' -o -name '*.c' -o -name '*.cc' -o -name '*.cpp' -o -name '*.py' -o -name '*.cu' \) -print0 2>/dev/null | xargs -0 cat 2>/dev/null | kind source
  find /usr/bin /usr/lib -type f -name '*.so*' -print0 2>/dev/null | xargs -0 cat 2>/dev/null | kind binaries
  find /var/log /tmp -maxdepth 3 -type f \( -name '*.log' -o -name 'syslog*' -o -name '*.journal' \) -print0 2>/dev/null | xargs -0 cat 2>/dev/null | kind logs
  python3 - "$dir/columns$suffix" <<'PY'
import struct, random, sys
r = random.Random(7); out = bytearray(); price = 10000; t = 1700000000
for i in range(4 << 20):
    t += r.randint(0, 3); price += r.randint(-20, 20)
    out += struct.pack('<IiH', t, price, r.randint(1, 500))
open(sys.argv[1], 'wb').write(out)
PY
}
