#!/usr/bin/env bash
# simulate → report on the reference round 1 (issue 3's done-when): the
# report reads the simulated folder without warnings, and its numbers equal
# the simulator's own truth (run.json "simulator") exactly for counts.
. "$(dirname "$0")/lib.bash"
"$BIN" simulate "$SRC/fixtures/configs/round1.json" -o "$tmp/r1" > "$tmp/sim.out" 2>&1; rc=$?
check "simulate exit 0 (got $rc)" [ "$rc" -eq 0 ]
"$BIN" "$tmp/r1" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "report exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "report prints no warning" [ ! -s "$tmp/err" ]
[ -s "$tmp/err" ] && cat "$tmp/err"
s="$tmp/r1/report/summary.json"
# the bench result (5.7 MB: hashed on its own thread, started before the
# parse) carries the SHA-256 sha256sum gives
sum_bench=$(sha256sum "$tmp/r1/stress.json" | cut -d' ' -f1)
check "bench result's SHA-256 (hashed beside the parse) is the file's" "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if [i for i in d['inputs'] if i['role']=='bench result'][0]['sha256']==sys.argv[2] else 1)" "$s" "$sum_bench"
truth() { "$PY" - "$tmp/r1/run.json" "$1" <<'PYEOF'
import json, sys
v = json.load(open(sys.argv[1]))["simulator"]
for k in sys.argv[2].split('.'):
    v = v[k]
print(len(v) if isinstance(v, list) else v)
PYEOF
}
check "128 completed" [ "$(jget "$s" bench.completed)" = 128 ]
check "0 failed" [ "$(jget "$s" bench.failed)" = 0 ]
check "KV pool 86864 tokens from the simulated log" [ "$(jget "$s" capacity.kv_pool_tokens)" = 86864 ]
# oversubscription = 64 * 8192 / 86864 = 6.0357 (DESIGN.md §6 "6.0x")
check "oversubscription 6.04" near "$(jget "$s" capacity.oversubscription)" 6.035734020998342 1e-9
check "preemptions in the series = simulator truth" [ "$(jget "$s" residency.preemptions)" = "$(truth preemptions)" ]
check "ledger: all agree" [ "$(jget "$s" ledger.n_disagree)" = 0 ]
check "mean running within 15% of 11.17" near "$(jget "$s" residency.running_mean)" 11.17 0.15
check "no latency mismatch against the file" [ "$(jget "$s" latency.n_mismatches)" = 0 ]
finish
