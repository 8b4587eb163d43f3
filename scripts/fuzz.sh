#!/usr/bin/env bash
# Fuzzes the parsers with libFuzzer (clang; ASan + UBSan + LeakSanitizer):
# builds build-fuzz/ (-DBR_FUZZ=ON), builds the seed corpora, runs every
# target in tests/fuzz/ one after another (nice -n 19) and prints a summary.
#
#   scripts/fuzz.sh [--smoke]          15 s per target (BR_FUZZ_SECONDS), for CI; the default
#   scripts/fuzz.sh --seconds N        N s per target (long run; with --smoke: a shorter smoke)
#   scripts/fuzz.sh --runs N           N executions per target (long run)
#   scripts/fuzz.sh --hours H          H hours in all, split evenly over the targets (long run)
#   ... [--target NAME]...             only these targets (bench_json, prom, metrics_csv,
#                                      server_log, slots, sim_config, template)
#   ... [--no-build]                   use the binaries already in build-fuzz/
#
# Exit status: 0 when no target crashed, 1 on any crash, sanitizer report,
# leak, timeout (-timeout=10) or OOM (-rss_limit_mb=2048); the reproducer's path
# is printed. Smoke runs start from the seeds (fixtures/, templates/,
# tests/fuzz/corpus/, fixtures/bad/fuzz/, and the small files of
# ../shared/real or $BR_REAL_DIR when present) in a scratch corpus. Long runs
# (--runs, --hours, --seconds) keep their corpus in build-fuzz/corpus-<target>/, so
# the next run continues from it, and copy each reproducer to
# fixtures/bad/fuzz/<target>-<sha1>.<ext>, a regression seed from then on.
#
# Extra libFuzzer flags: BR_FUZZ_FLAGS (e.g. "-use_value_profile=1"); seconds per target
# in smoke mode: BR_FUZZ_SECONDS (15); build parallelism: BR_FUZZ_BUILD_JOBS (1).
# Reproduce one input:  build-fuzz/fuzz_<target> FILE   (BR_FUZZ_VERBOSE=1 prints the
# parser's message).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=$src/build-fuzz
all_targets=(bench_json prom metrics_csv server_log slots sim_config template)

mode=""
seconds=${BR_FUZZ_SECONDS:-15}
runs=""
hours=""
do_build=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) mode=smoke ;;
    --seconds) seconds=$2; [ -n "$mode" ] || mode=long; shift ;;
    --runs) mode=long; runs=$2; shift ;;
    --hours) mode=long; hours=$2; shift ;;
    --target) targets+=("$2"); shift ;;
    --no-build) do_build=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$mode" ] || mode=smoke
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [ -f "tests/fuzz/fuzz_$t.c" ] || { echo "fuzz.sh: no target '$t' (tests/fuzz/fuzz_$t.c)" >&2; exit 2; }
done
if [ -n "$hours" ]; then
  seconds=$(awk -v h="$hours" -v n=${#targets[@]} 'BEGIN { s = int(h * 3600 / n); print s < 1 ? 1 : s }')
fi

# ---- build ----
t_start=$(date +%s)
if [ $do_build = 1 ]; then
  command -v clang >/dev/null || { echo "fuzz.sh: clang not found (bash scripts/deps.sh installs clang and libclang-rt-14-dev)" >&2; exit 1; }
  if [ ! -f "$build/CMakeCache.txt" ] || ! grep -q '^BR_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
    CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DBR_FUZZ=ON \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
  nice -n 19 cmake --build "$build" --target fuzz -j"${BR_FUZZ_BUILD_JOBS:-1}" >"$build/build.log" 2>&1 ||
    { tail -40 "$build/build.log"; echo "fuzz.sh: build failed (full log: $build/build.log)" >&2; exit 1; }
fi
t_built=$(date +%s)

# ---- seed corpora ----
real=${BR_REAL_DIR:-$src/../shared/real}
seeds=$build/seeds

# add_seeds DIR FILE...: copy the existing regular files of at most 256 KB into DIR,
# named by content (so the same file twice is one seed).
add_seeds() {
  local dir=$1; shift
  local f
  for f in "$@"; do
    [ -f "$f" ] || continue
    [ "$(stat -c %s "$f")" -le 262144 ] || continue
    cp "$f" "$dir/$(sha1sum <"$f" | cut -c1-40)"
  done
}

# scaled_configs OUT FILE...: simulator configs shrunk under the harness caps
# (tests/fuzz/fuzz_sim_config.c): the fixtures ask for up to 5,000 prompts of
# thousands of tokens, which the harness refuses.
scaled_configs() {
  local out=$1; shift
  command -v python3 >/dev/null || return 0
  python3 - "$out" "$@" <<'PY'
import hashlib, json, math, sys
out = sys.argv[1]
def shrink(v, f):
    return max(1, int(math.ceil(v / f)))
for path in sys.argv[2:]:
    try:
        c = json.load(open(path))
        w, s, g = c["workload"], c["scheduler"], c["gpu"]
    except Exception:
        continue
    f = 16.0
    def lens(x):
        if isinstance(x, (int, float)):
            return min(256, shrink(x, f))
        if isinstance(x, dict):
            return {k: (min(256, shrink(v, f)) if k in ("min", "max", "mean") else
                        min(64, v / f) if k == "std" else v) for k, v in x.items()}
        return x
    w["input_len"], w["output_len"] = lens(w.get("input_len")), lens(w.get("output_len"))
    w["num_prompts"] = min(12, w.get("num_prompts", 12))
    if isinstance(w.get("max_concurrency"), int):
        w["max_concurrency"] = min(8, w["max_concurrency"])
    if isinstance(w.get("request_rate"), (int, float)):
        w["request_rate"] = max(0.5, w["request_rate"])
    bs = s.get("block_size", 16)
    s["max_model_len"] = max(2, shrink(s.get("max_model_len", 8192), f))
    if "max_num_batched_tokens" in s:
        s["max_num_batched_tokens"] = shrink(s["max_num_batched_tokens"], f)
    if "kv_pool_tokens" in g:
        g["kv_pool_tokens"] = max(bs, int(g["kv_pool_tokens"] / f) // bs * bs)
    if "kv_pool_gib" in g:
        g["kv_pool_gib"] = g["kv_pool_gib"] / f
    text = json.dumps(c, indent=1).encode()
    open(f"{out}/{hashlib.sha1(text).hexdigest()}", "wb").write(text)
PY
}

build_corpus() {
  local t=$1 d=$seeds/$1
  rm -rf "$d"; mkdir -p "$d"
  shopt -s nullglob globstar
  add_seeds "$d" tests/fuzz/corpus/"$t"/* fixtures/bad/fuzz/"$t"-*
  case $t in
    bench_json)
      add_seeds "$d" fixtures/bench/* fixtures/bad/*.json fixtures/bad/*.jsonl fixtures/runs/**/stress.json
      [ -d "$real" ] && add_seeds "$d" "$real"/bench/**/*.json "$real"/runs/**/*.json "$real"/engines/sglang/*.jsonl ;;
    prom)
      add_seeds "$d" fixtures/metrics/*.prom fixtures/bad/*.prom
      [ -d "$real" ] && add_seeds "$d" "$real"/metrics/*.prom "$real"/runs/**/*.prom "$real"/engines/prometheus/live-*.txt \
        "$real"/engines/llamacpp/metrics-dumps.txt "$real"/engines/vllm/metrics-pitfalls.txt ;;
    metrics_csv)
      add_seeds "$d" fixtures/metrics/*.csv fixtures/bad/*.csv fixtures/runs/**/metrics.csv ;;
    server_log)
      add_seeds "$d" fixtures/logs/* fixtures/bad/*.log fixtures/runs/**/server.log fixtures/engines/*.log
      [ -d "$real" ] && add_seeds "$d" "$real"/logs/* "$real"/runs/**/*.log "$real"/engines/sglang/server-log-excerpts.txt ;;
    slots)
      add_seeds "$d" fixtures/engines/slots-*.jsonl ;;
    sim_config)
      add_seeds "$d" fixtures/configs/**/*.json
      scaled_configs "$d" fixtures/configs/**/*.json ;;
    template)
      add_seeds "$d" templates/*.json ;;
  esac
  shopt -u nullglob globstar
}

max_len_of() { case $1 in bench_json) echo 262144 ;; *) echo 65536 ;; esac; }
ext_of() { case $1 in prom) echo prom ;; metrics_csv) echo csv ;; server_log) echo log ;; slots) echo jsonl ;; *) echo json ;; esac; }

# ---- run ----
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:handle_abort=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ]; then
  for s in llvm-symbolizer llvm-symbolizer-14 /usr/lib/llvm-14/bin/llvm-symbolizer; do
    if command -v "$s" >/dev/null; then export ASAN_SYMBOLIZER_PATH=$(command -v "$s"); break; fi
  done
fi
scratch=$build/scratch
mkdir -p "$scratch" fixtures/bad/fuzz
declare -A r_execs r_rate r_corp r_result
failed=0
for t in "${targets[@]}"; do
  build_corpus "$t"
  bin=$build/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz.sh: $bin missing (run without --no-build)" >&2; exit 1; }
  art=$scratch/artifacts-$t
  log=$scratch/$t.log
  rm -rf "$art"; mkdir -p "$art"
  if [ $mode = smoke ]; then
    corpus=$scratch/smoke-corpus-$t
    rm -rf "$corpus"; mkdir -p "$corpus"
  else
    corpus=$build/corpus-$t
    mkdir -p "$corpus"
  fi
  limit=(-max_total_time="$seconds")
  [ -n "$runs" ] && limit=(-runs="$runs")
  echo "== fuzz_$t: ${runs:+$runs runs}${runs:-$seconds s}, seeds $(ls "$seeds/$t" | wc -l), corpus $corpus"
  rc=0
  nice -n 19 "$bin" "${limit[@]}" -max_len="$(max_len_of "$t")" -timeout=10 -rss_limit_mb=2048 \
    -dict="tests/fuzz/fuzz_$t.dict" -artifact_prefix="$art/" -print_final_stats=1 \
    ${BR_FUZZ_FLAGS:-} "$corpus" "$seeds/$t" >"$log" 2>&1 || rc=$?
  r_execs[$t]=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  r_rate[$t]=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  r_corp[$t]=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  repro=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
  if [ $rc -eq 0 ] && [ -z "$repro" ]; then
    r_result[$t]=ok
    continue
  fi
  failed=1
  kind=$(grep -o -m1 -E 'ERROR: libFuzzer: [a-z-]+|ERROR: (Address|Leak)Sanitizer: [a-z-]+|runtime error|^fuzz_[a-z_]+: .*' "$log" || true)
  r_result[$t]="crash"
  case "$kind" in *timeout*) r_result[$t]=timeout ;; *out-of-memory*|*rss*) r_result[$t]=oom ;; *[Ll]eak*) r_result[$t]=leak ;; esac
  echo "-- fuzz_$t: ${r_result[$t]} (exit $rc): ${kind:-see the log}"
  grep -E '^(==[0-9]+==ERROR|SUMMARY:|.*runtime error:|fuzz_[a-z_]+: |    #[0-9]+ )' "$log" | head -30 || true
  if [ -n "$repro" ] && [ -f "$repro" ]; then
    if [ $mode = long ]; then
      keep=fixtures/bad/fuzz/$t-$(sha1sum <"$repro" | cut -c1-40).$(ext_of "$t")
      cp "$repro" "$keep"
      echo "   reproducer: $keep (regression seed; also $repro)"
      repro=$keep
    else
      echo "   reproducer: $repro"
    fi
    echo "   reproduce:  $bin $repro"
  else
    echo "   no reproducer written; full log: $log"
  fi
  echo "   full log: $log"
done
t_end=$(date +%s)

echo
printf '%-12s %12s %9s %7s  %s\n' target executions exec/s corpus result
for t in "${targets[@]}"; do
  printf '%-12s %12s %9s %7s  %s\n' "$t" "${r_execs[$t]:-?}" "${r_rate[$t]:-?}" "${r_corp[$t]:-?}" "${r_result[$t]}"
done
echo "fuzz: $mode mode, build $((t_built - t_start)) s, runs $((t_end - t_built)) s, total $((t_end - t_start)) s"
if [ $failed -ne 0 ]; then
  echo "fuzz: FAILED (see the reproducers above)"
  exit 1
fi
echo "fuzz: no crash, leak, timeout or OOM"
