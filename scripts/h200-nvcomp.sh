#!/usr/bin/env bash
# parvlc against nvCOMP, side by side, in one run on the GPU machine: the synthetic inputs
# dumped once, `parvlc bench` on those bytes (wgpu, and CUDA where the CLI and a driver
# have it), scripts/nvcomp_bench.py on the same files, and the README table derived from
# that run's rows (scripts/results_table.py --side-by-side). Both sides time the same
# scope, "compress (nvCOMP scope)", the same way (wall clock from the input resident on
# the GPU to the compressed output complete there, 1 warm-up run, best of $RUNS); every
# output is checked before it is timed.
#
# Here: ../shared/device/stage --nvcomp (fills .device/: Vulkan loader, env.sh, the CLI,
# nvCOMP's wheels) and, for the CUDA rows, scripts/stage-cuda.sh (.device-cuda/). There,
# from the project root, with .device (and .device-cuda) carried:
#   bash scripts/h200-nvcomp.sh
# Writes under $OUT (default ./out): meta.txt (date, GPU, driver, versions, commands),
# parvlc.jsonl + parvlc.txt (our rows and tables), nvcomp.jsonl + nvcomp.txt (nvCOMP's rows
# and its log), table.md (the side-by-side table), run.log (everything printed).
# Environment knobs: SIZES (1073741824), ENTROPIES (0.5,2,4.5,7,8), RUNS (5), STRATEGIES
# (decoupled), PARVLC (the CLI: .device-cuda/bin/parvlc if there, else .device/parvlc),
# BACKENDS (wgpu,cuda when the CLI opens CUDA, else wgpu), DATA (where the inputs go:
# a fresh folder under /tmp by default, removed at the end).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1

SIZES=${SIZES:-1073741824}
ENTROPIES=${ENTROPIES:-0.5,2,4.5,7,8}
RUNS=${RUNS:-5}
STRATEGIES=${STRATEGIES:-decoupled}
status=0
step() { echo "== $*"; }
failed() { echo "== FAILED: $*"; status=1; }

if [ -f .device/env.sh ]; then
  # shellcheck disable=SC1091
  source .device/env.sh
elif [ -f .device-cuda/env.sh ]; then
  # shellcheck disable=SC1091
  source .device-cuda/env.sh
else
  echo "no .device/env.sh: stage with ../shared/device/stage --nvcomp and carry .device"
  exit 2
fi
if [ -z "${PARVLC:-}" ]; then
  if [ -x .device-cuda/bin/parvlc ]; then PARVLC=.device-cuda/bin/parvlc; else PARVLC=.device/parvlc; fi
fi
[ -x "$PARVLC" ] || { echo "no CLI at $PARVLC"; exit 2; }

if [ -z "${BACKENDS:-}" ]; then
  step "probe: does $PARVLC open CUDA?"
  if timeout 60 "$PARVLC" bench --backend cuda --sizes 65536 --entropies 4.5 \
      --strategies decoupled --no-baselines --cpu-max 0 --runs 1 >/dev/null 2>"$OUT/probe-cuda.txt"; then
    BACKENDS=wgpu,cuda
  else
    BACKENDS=wgpu
    echo "no CUDA rows: $(tail -1 "$OUT/probe-cuda.txt")"
    [ "${PARVLC_REQUIRE_CUDA:-}" = 1 ] && failed "PARVLC_REQUIRE_CUDA=1 but the CLI does not open CUDA"
  fi
fi

DATA=${DATA:-}
if [ -z "$DATA" ]; then
  DATA=$(mktemp -d /tmp/parvlc-side-by-side.XXXXXX)
  trap 'rm -rf "$DATA"' EXIT
fi
mkdir -p "$DATA"
BENCH=("$PARVLC" bench --backend "$BACKENDS" --sizes "$SIZES" --entropies "$ENTROPIES"
  --strategies "$STRATEGIES" --no-baselines --cpu-max 0 --runs "$RUNS" --json "$OUT/parvlc.jsonl")

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
  echo "cli: $PARVLC ($("$PARVLC" --version 2>/dev/null || echo "no --version")), backends $BACKENDS"
  python3 -c 'from nvidia import nvcomp; print("nvcomp:", nvcomp.__version__)' 2>&1 || true
  python3 -c 'import cupy; print("cupy:", cupy.__version__)' 2>&1 || true
  echo "cpu cores: $(nproc)"
  echo "inputs: $PARVLC bench --dump $DATA --sizes $SIZES --entropies $ENTROPIES"
  echo "ours: ${BENCH[*]} (the dumped bytes, regenerated from the same seeds; joined by CRC-32)"
  echo "nvCOMP: python3 scripts/nvcomp_bench.py --decode --runs $RUNS $DATA/*.bin"
} | tee "$OUT/meta.txt"

step "dump the inputs"
timeout 120 "$PARVLC" bench --dump "$DATA" --sizes "$SIZES" --entropies "$ENTROPIES" || failed "dump"

step "parvlc bench"
timeout 300 "${BENCH[@]}" 2>&1 | tee "$OUT/parvlc.txt"
[ "${PIPESTATUS[0]}" = 0 ] || failed "parvlc bench (exit ${PIPESTATUS[0]})"

step "nvCOMP on the same files"
files=("$DATA"/*.bin)
timeout 200 python3 scripts/nvcomp_bench.py --decode --runs "$RUNS" "${files[@]}" \
  >"$OUT/nvcomp.jsonl" 2> >(tee "$OUT/nvcomp.txt" >&2)
rc=$?
[ "$rc" = 0 ] || failed "nvcomp_bench.py (exit $rc)"
cat "$OUT/nvcomp.jsonl"

step "the table"
if [ -s "$OUT/parvlc.jsonl" ] && [ -s "$OUT/nvcomp.jsonl" ]; then
  python3 scripts/results_table.py --side-by-side "$OUT/parvlc.jsonl" "$OUT/nvcomp.jsonl" \
    | tee "$OUT/table.md" || failed "results_table.py"
else
  failed "no table: rows missing"
fi
step "done (status $status); files in $OUT"
exit $status
