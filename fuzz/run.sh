#!/usr/bin/env bash
# Build the fuzz targets and run each for a bounded time; fails on the first crash.
#   fuzz/run.sh [SECONDS [TARGET...]]    (default: 60 seconds, every target)
# New corpus entries go to a scratch directory, never into the committed seeds
# (fuzz/corpus/<target>/); a crash leaves its input in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
shift || true
command -v cargo-fuzz >/dev/null 2>&1 || cargo install --locked cargo-fuzz
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list)
# cargo-fuzz passes -Z flags (the sanitizer, coverage instrumentation); the toolchain
# that builds the crate accepts them with RUSTC_BOOTSTRAP, so no nightly is needed.
export RUSTC_BOOTSTRAP=1
# Release code with debug assertions and overflow checks, under AddressSanitizer.
cargo fuzz build --debug-assertions

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for t in "${targets[@]}"; do
  mkdir -p "$scratch/$t"
  echo "fuzz: $t for ${seconds}s"
  # Inputs: the seeds and every input that once crashed (fuzz/regressions/<target>/),
  # all run at the start; a format's tokens where it has a dictionary (fuzz/dict/).
  dirs=("$scratch/$t" "corpus/$t")
  [ -d "regressions/$t" ] && dirs+=("regressions/$t")
  opts=()
  [ -f "dict/$t.dict" ] && opts+=("-dict=dict/$t.dict")
  log="$scratch/$t.log"
  # -malloc_limit_mb: one allocation above it is a finding (inputs are a few kilobytes,
  # and deflate, the most any of these formats expands, stays near 1000:1);
  # -timeout: one input taking longer is a finding.
  if ! cargo fuzz run --debug-assertions "$t" "${dirs[@]}" -- "${opts[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=64 \
    -print_final_stats=1 >"$log" 2>&1; then
    # What went wrong (a panic's message, the sanitizer's or libFuzzer's error), then
    # libFuzzer's summary with the failing input.
    # A sanitizer's report keeps its stack (where a leak was allocated).
    # (`|| true`: under pipefail a grep that finds nothing would end the script here.)
    grep -A2 -E 'panicked at' "$log" | head -n 20 || true
    grep -A40 -E 'ERROR: ' "$log" | head -n 60 || true
    grep -v -E '^#[0-9]|^ +#?[0-9]+:? ' "$log" | tail -n 30 || true
    echo "fuzz: $t failed; its input is in fuzz/artifacts/$t/" >&2
    exit 1
  fi
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log"
done
