#!/usr/bin/env bash
# Every file in ../shared/real is either read into a report or rejected with
# a clear message; the failed start-up log beside a bench that completed
# requests is set aside (another server served them).
. "$(dirname "$0")/lib.bash"
[ -d "$REAL" ] || { echo "skip: $REAL not found"; exit 77; }
one() { # NAME BENCH [extra args]: a run folder holding BENCH
  local name=$1 bench=$2; shift 2
  local d="$tmp/$name"; mkdir -p "$d"; cp "$bench" "$d/"
  "$BIN" "$d" -q "$@" 2> "$tmp/err"; local rc=$?
  check "$name: exit 0 (got $rc)" [ "$rc" -eq 0 ]
  [ "$rc" -eq 0 ] || cat "$tmp/err"
  check "$name: PDF written" [ -s "$d/report/report.pdf" ]
}
one c4-detailed "$REAL/bench/glm52-c4-detailed.json"
one batch1-detailed "$REAL/bench/glm52-batch1-detailed.json"
one opt125m-sorted "$REAL/bench/opt125m-v0.25.1.json"
sw="$(ls -d "$REAL"/bench/sweep-v0.25.1/*/ | head -1)"
one sweep-run0 "$sw/run=0.json"
one sweep-summary "$sw/summary.json"
check "sweep summary: 2 runs noted" [ "$(jget "$tmp/sweep-summary/report/summary.json" run.n_bench_results)" = 2 ]
# a loaded server's /metrics as the only snapshot
d="$tmp/loaded"; mkdir -p "$d"; cp "$REAL/bench/opt125m-v0.25.1.json" "$d/"; cp "$REAL/metrics/vllm-0.25.1-loaded.prom" "$d/"
"$BIN" "$d" -q 2> "$tmp/err"; rc=$?
check "loaded.prom snapshot: exit 0 (got $rc)" [ "$rc" -eq 0 ]
# the failed start-up log
d="$tmp/failed-start"; mkdir -p "$d"; cp "$REAL/bench/opt125m-v0.25.1.json" "$d/"
cp "$REAL/logs/vllm-0.25.1-max-model-len-rejected.log" "$d/server.log"
"$BIN" "$d" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "failed start: exit 0 with a report (got $rc)" [ "$rc" -eq 0 ]
# the bench completed requests, so this log's server cannot have served them: set aside
check "failed start: stderr says the log was not used" grep -q "server.log (the server log) is not used: it is the log of a server that failed at start-up" "$tmp/err"
pdftotext "$d/report/report.pdf" - 2>/dev/null | tr -s ' \n' '  ' > "$tmp/fs.txt"
check "failed start: PDF says another server served the requests" grep -q "failed at start-up (line 58: pydantic_core._pydantic_core.ValidationError.*another server served them" "$tmp/fs.txt"
check "failed start: PDF does not claim the run's server did not start" bash -c '! grep -q "The server did not start" "$0"' "$tmp/fs.txt"
check "failed start: no KV pool invented" [ "$(jget "$d/report/summary.json" capacity.kv_pool_tokens)" = null ]
# the stderr log of the GLM run alone
d="$tmp/errlog"; mkdir -p "$d"; cp "$REAL/runs/glm52-mtp3-c4-r2/stress.json" "$d/"
cp "$REAL/runs/glm52-mtp3-c4-r2/server.err.log" "$d/"
"$BIN" "$d" -q 2> "$tmp/err"; rc=$?
check "server.err.log alone: exit 0 or 3 with a message (got $rc)" [ "$rc" -eq 0 -o \( "$rc" -eq 3 -a -s "$tmp/err" \) ]
finish
