#!/usr/bin/env bash
# llama-server /slots (issue 13): `benchreport sample` polls /slots beside
# /metrics when the server is llama.cpp's, and the run reader uses the
# snapshots. Expected values:
# - simulate writes slots.jsonl at every metrics sample of a llama.cpp run;
#   its busy slots equal llamacpp:requests_processing row by row (python
#   over both files, independent of the reader);
# - without metrics.csv the snapshots are the series: running peak 4 (the
#   four slots), running mean equal to the run read with its metrics, the
#   queue unknown, no ledger; beside vLLM metrics they are set aside;
# - a bare /slots array (no time) fails the run naming line 2, writing nothing;
# - sample against the fake server replaying that run: one slots line per
#   answered tick, each the slots array of a row of the replayed file; a
#   server without /slots (HTTP 501) is polled once, said so, and leaves no
#   empty file (a run folder's reader refuses one); vLLM pages never trigger
#   the poll.
. "$(dirname "$0")/lib.bash"
FAKE="$SRC/scripts/fake_metrics_server.py"
"$BIN" simulate "$SRC/fixtures/configs/engines/llamacpp-slots4.json" -o "$tmp/lc" > /dev/null 2>&1
check "simulate llama.cpp: slots.jsonl written" [ -s "$tmp/lc/slots.jsonl" ]
check "simulated /slots: busy slots = requests_processing at every sample" "$PY" - "$tmp/lc" <<'PYEOF'
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/metrics.csv")))
snaps = [json.loads(l) for l in open(d + "/slots.jsonl")]
assert len(rows) == len(snaps), (len(rows), len(snaps))
for r, s in zip(rows, snaps):
    assert abs(float(r["timestamp"]) - s["t_unix_s"]) < 1e-3
    busy = sum(1 for x in s["slots"] if x["is_processing"])
    assert busy == float(r["llamacpp:requests_processing"]), (r["timestamp"], busy)
    assert len(s["slots"]) == 4
PYEOF

"$BIN" "$tmp/lc" > /dev/null 2>&1
full="$tmp/lc/report/summary.json"
mkdir -p "$tmp/only"
cp "$tmp/lc/stress.json" "$tmp/lc/server.log" "$tmp/lc/slots.jsonl" "$tmp/lc/run.json" "$tmp/only/"
"$BIN" "$tmp/only" > /dev/null 2> "$tmp/only.err"; rc=$?
check "slots only: exit 0 (got $rc)" [ "$rc" -eq 0 ]
o="$tmp/only/report/summary.json"
check "slots only: metrics kind" [ "$(jget "$o" run.metrics_kind)" = "llama-server /slots snapshots" ]
check "slots only: running role from busy slots" [ "$(jget "$o" engine.roles.running)" = llamacpp_slots:busy ]
check "slots only: running peak 4 (the slots)" [ "$(jget "$o" residency.running_peak)" = 4.0 ]
check "slots only: running mean = the metrics run's ($(jget "$full" residency.running_mean))" \
	[ "$(jget "$o" residency.running_mean)" = "$(jget "$full" residency.running_mean)" ]
check "slots only: queue unknown, not 0" [ "$(jget "$o" residency.waiting_peak)" = null ]
check "slots only: no counter ledger" [ "$(jget "$o" ledger.available)" = False ]
check "slots only: the note says where running comes from" grep -q "busy slots come from the .* /slots snapshots" "$tmp/only.err"
check "slots only: slot-bound finding without a measured queue" grep -q '"slots_bound_no_queue"' "$o"
check "slots only: the snapshots are an input file" grep -q "llama-server /slots snapshots" "$o"

mkdir -p "$tmp/mism"
"$BIN" simulate "$SRC/fixtures/configs/round1.json" -o "$tmp/v" > /dev/null 2>&1
cp "$tmp/v/stress.json" "$tmp/v/metrics.csv" "$tmp/lc/slots.jsonl" "$tmp/mism/"
"$BIN" "$tmp/mism" > /dev/null 2> "$tmp/mism.err"; rc=$?
check "vLLM metrics + slots.jsonl: exit 0, set aside (got $rc)" \
	bash -c "[ $rc -eq 0 ] && grep -q \"slots.jsonl (the /slots snapshots) is not used: they are llama-server's, while the metrics are vLLM's\" '$tmp/mism.err'"

# a stray slots.jsonl beside an SGLang run without metrics: set aside; the SGLang log's series stands
"$BIN" simulate "$SRC/fixtures/configs/engines/sglang-round1.json" -o "$tmp/sg" > /dev/null 2>&1
mkdir -p "$tmp/sgs"
cp "$tmp/sg/stress.json" "$tmp/sg/server.log" "$tmp/lc/slots.jsonl" "$tmp/sgs/"
"$BIN" "$tmp/sgs" > /dev/null 2> "$tmp/sgs.err"
check "SGLang log + stray slots.jsonl: set aside, the log's batch lines used" \
	bash -c "grep -q \"while the server log is SGLang's\" '$tmp/sgs.err' && [ \"\$(\"$PY\" -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"run\"][\"metrics_kind\"])' '$tmp/sgs/report/summary.json')\" = 'server log batch lines' ]"

# snapshots of another day (every t_unix_s 100,000 s earlier): their times miss the bench run
mkdir -p "$tmp/day"
cp "$tmp/lc/stress.json" "$tmp/lc/server.log" "$tmp/day/"
"$PY" -c "
import json, sys
with open(sys.argv[2], 'w') as o:
    for l in open(sys.argv[1]):
        d = json.loads(l); d['t_unix_s'] -= 100000; o.write(json.dumps(d) + '\n')" "$tmp/lc/slots.jsonl" "$tmp/day/slots.jsonl"
"$BIN" "$tmp/day" > /dev/null 2> "$tmp/day.err"
check "slots of another day: set aside (times do not overlap)" grep -q "they do not overlap, so it describes another run" "$tmp/day.err"
check "slots of another day: no residency from them" [ "$(jget "$tmp/day/report/summary.json" residency.available)" = False ]

# eight slots against the log's n_slots = 4: another server's snapshots
mkdir -p "$tmp/eight"
cp "$tmp/lc/stress.json" "$tmp/lc/server.log" "$tmp/eight/"
"$PY" -c "
import json, sys
with open(sys.argv[2], 'w') as o:
    for l in open(sys.argv[1]):
        d = json.loads(l); d['slots'] = d['slots'] + d['slots']; o.write(json.dumps(d) + '\n')" "$tmp/lc/slots.jsonl" "$tmp/eight/slots.jsonl"
"$BIN" "$tmp/eight" > /dev/null 2> "$tmp/eight.err"
check "8 slots against n_slots = 4: set aside" grep -q "they list 8 slots, while the log's llama-server has n_slots = 4" "$tmp/eight.err"
# the same when the log prints no n_slots or slot line, only llama_context's n_seq_max = 4
grep -v "initializing slots, n_slots\|new slot n_ctx_slot" "$tmp/lc/server.log" > "$tmp/eight/server.log"
rm -rf "$tmp/eight/report"
"$BIN" "$tmp/eight" > /dev/null 2> "$tmp/eight2.err"
check "8 slots against n_seq_max = 4 (no n_slots line): set aside" \
	grep -q "they list 8 slots, while the log's llama-server has n_slots = 4" "$tmp/eight2.err"

# no server log: the slots /slots lists bound the resident estimate (4, not the 28.44 the
# 32,768-token pool alone gives: 32768 / (1024 + 256/2) = 28.444, run.json's pool)
mkdir -p "$tmp/nolog"
cp "$tmp/lc/stress.json" "$tmp/lc/slots.jsonl" "$tmp/lc/run.json" "$tmp/nolog/"
"$BIN" "$tmp/nolog" > /dev/null 2>&1; rc=$?
n="$tmp/nolog/report/summary.json"
check "no log: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "no log: 4 slots listed" [ "$(jget "$n" capacity.n_slots_listed)" = 4 ]
check "no log: resident estimate 4, bound by the listed slots" \
	[ "$(jget "$n" capacity.resident_estimate)/$(jget "$n" capacity.resident_cap_from_slots)/$(jget "$n" capacity.resident_kv_bound)" = "4.0/True/28.4444444444" ]
pdftotext "$tmp/nolog/report/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/nolog.txt"
check "no log: the PDF says the slots bound the running requests" \
	grep -qF "llama-server runs at most 4 requests at once (the slots its /slots snapshots list" "$tmp/nolog.txt"
check "no log: never 'all requests can be resident'" bash -c "! grep -qF 'all requests can be resident' '$tmp/nolog.txt'"
check "no log: slot-bound from the listed slots (no queue in /slots)" grep -q '"slots_bound_listed_no_queue"' "$n"
check "no log: the conclusion names where the 4 slots come from" \
	grep -qF "llama-server's /slots lists 4 slots (no server log states n_slots) and the client kept 16 requests in flight" "$tmp/nolog.txt"
# no log and no pool anywhere (slots.jsonl beside the bench alone): the slot bound still fires
mkdir -p "$tmp/nopool"
cp "$tmp/lc/stress.json" "$tmp/lc/slots.jsonl" "$tmp/nopool/"
"$BIN" "$tmp/nopool" > /dev/null 2>&1
check "no log, no pool: slot-bound from the listed slots" \
	grep -q '"slots_bound_listed_no_queue"' "$tmp/nopool/report/summary.json"
# 32 busy slots while the bench kept 16 in flight: other load, set aside
mkdir -p "$tmp/other"
cp "$tmp/lc/stress.json" "$tmp/other/"
"$PY" -c "
import json, sys
with open(sys.argv[2], 'w') as o:
    for l in open(sys.argv[1]):
        d = json.loads(l); d['slots'] = [dict(d['slots'][0], id=k, is_processing=True) for k in range(32)]
        o.write(json.dumps(d) + '\n')" "$tmp/lc/slots.jsonl" "$tmp/other/slots.jsonl"
"$BIN" "$tmp/other" > /dev/null 2> "$tmp/other.err"
check "32 busy slots against C = 16: set aside" \
	grep -q "shows 32 busy slots, more than the bench's 16 concurrent requests could occupy" "$tmp/other.err"
check "32 busy slots: no residency from them" [ "$(jget "$tmp/other/report/summary.json" residency.available)" = False ]
# with metrics.csv beside it (requests_deferred measured): the queued variant
mkdir -p "$tmp/nolog2"
cp "$tmp/lc/stress.json" "$tmp/lc/slots.jsonl" "$tmp/lc/run.json" "$tmp/lc/metrics.csv" "$tmp/nolog2/"
"$BIN" "$tmp/nolog2" > /dev/null 2>&1
check "no log + metrics: slot-bound with the measured queue" grep -q '"slots_bound_listed"' "$tmp/nolog2/report/summary.json"

# busy slots that disagree with requests_processing beside /metrics: set aside
mkdir -p "$tmp/dis"
cp "$tmp/lc/stress.json" "$tmp/lc/server.log" "$tmp/lc/metrics.csv" "$tmp/dis/"
"$PY" -c "
import json, sys
with open(sys.argv[2], 'w') as o:
    for l in open(sys.argv[1]):
        d = json.loads(l)
        for x in d['slots']: x['is_processing'] = False
        o.write(json.dumps(d) + '\n')" "$tmp/lc/slots.jsonl" "$tmp/dis/slots.jsonl"
"$BIN" "$tmp/dis" > /dev/null 2> "$tmp/dis.err"
check "busy slots against requests_processing: set aside" grep -q "their busy slots differ from llamacpp:requests_processing" "$tmp/dis.err"

# a FIFO named slots.jsonl: refused at once (exit 3), never read
mkdir -p "$tmp/fifo"
cp "$tmp/lc/stress.json" "$tmp/fifo/"
mkfifo "$tmp/fifo/slots.jsonl"
timeout 20 "$BIN" "$tmp/fifo" > /dev/null 2> "$tmp/fifo.err"; rc=$?
check "FIFO slots.jsonl: exit 3 at once (got $rc)" bash -c "[ $rc -eq 3 ] && grep -q 'not a regular file' '$tmp/fifo.err'"

# an empty slots.jsonl (a capture stopped before its first tick): said, ignored, the run goes on
mkdir -p "$tmp/empty"
cp "$tmp/lc/stress.json" "$tmp/lc/server.log" "$tmp/empty/"
: > "$tmp/empty/slots.jsonl"
"$BIN" "$tmp/empty" > /dev/null 2> "$tmp/empty.err"; rc=$?
check "empty slots.jsonl: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "empty slots.jsonl: said and ignored" grep -q "slots.jsonl: empty: no /slots snapshot to read; ignored" "$tmp/empty.err"

mkdir -p "$tmp/bad"
cp "$tmp/lc/stress.json" "$tmp/bad/"
{ head -1 "$tmp/lc/slots.jsonl"; echo '[{"id": 0, "is_processing": true}]'; } > "$tmp/bad/slots.jsonl"
"$BIN" "$tmp/bad" > /dev/null 2> "$tmp/bad.err"; rc=$?
check "bare /slots array: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "bare /slots array: line 2 named" grep -q "slots.jsonl:2:1: expected an object" "$tmp/bad.err"
check "bare /slots array: no report written" [ ! -e "$tmp/bad/report" ]

# sample against the fake llama-server
start_fake() {   # start_fake CSV [--slots FILE]: sets FAKE_PID and PORT
	rm -f "$tmp/port"
	"$PY" "$FAKE" "$@" --row-s 0.1 --port 0 --port-file "$tmp/port" &
	FAKE_PID=$!
	for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
	PORT=$(cat "$tmp/port")
}
stop_fake() { kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null; }
trap 'stop_fake; rm -rf "$tmp"' EXIT
start_fake "$tmp/lc/metrics.csv" --slots "$tmp/lc/slots.jsonl"
mkdir -p "$tmp/cap"
"$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/cap/metrics.csv" --interval 100ms --duration 2s \
	--no-gpu 2> "$tmp/cap.err"; rc=$?
stop_fake
check "sample llama-server: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "sample llama-server: says it polls /slots" grep -q "polling /slots at the same ticks into $tmp/cap/slots.jsonl" "$tmp/cap.err"
check "sample llama-server: one snapshot per answered tick, each a row of the replayed file" \
	"$PY" - "$tmp/cap" "$tmp/lc/slots.jsonl" <<'PYEOF'
import csv, json, sys
rows = [r for r in csv.DictReader(open(sys.argv[1] + "/metrics.csv")) if r["benchreport:scrape_ok"] == "1"]
got = [json.loads(l) for l in open(sys.argv[1] + "/slots.jsonl")]
src = [json.loads(l)["slots"] for l in open(sys.argv[2])]
assert len(got) == len(rows) >= 15, (len(got), len(rows))
for g in got:
    assert g["slots"] in src
    assert 1.7e9 < g["t_unix_s"] < 4.1e9
assert all(a["t_unix_s"] < b["t_unix_s"] for a, b in zip(got, got[1:]))
PYEOF
check "sample llama-server: the summary counts the snapshots" grep -q "/slots snapshots in $tmp/cap/slots.jsonl (0 failed polls)" "$tmp/cap.err"

start_fake "$tmp/lc/metrics.csv"
"$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/no.csv" --interval 100ms --duration 1s --no-gpu 2> "$tmp/no.err"
stop_fake
check "--no-slots server (HTTP 501): polled once, said so" \
	bash -c "[ \$(grep -c '/slots poll failed: HTTP 501' '$tmp/no.err') -eq 1 ] && grep -q '0 /slots snapshots in no file (1 failed poll)' '$tmp/no.err'"
check "--no-slots server: no empty snapshot file left behind" [ ! -e "$tmp/no.slots.jsonl" ]

start_fake "$SRC/fixtures/runs/tiny/metrics.csv"
"$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/vllm.csv" --interval 100ms --duration 1s --no-gpu 2> "$tmp/v.err"
# --force over the llama-server capture: the CSV is replaced, so its snapshots go too
"$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/cap/metrics.csv" --force --interval 100ms --duration 1s \
	--no-gpu 2> "$tmp/v2.err"
stop_fake
check "vLLM server: /slots not polled" bash -c "[ ! -e '$tmp/vllm.slots.jsonl' ] && ! grep -q '/slots' '$tmp/v.err'"
check "--force: the replaced capture's slots.jsonl is removed with it" [ ! -e "$tmp/cap/slots.jsonl" ]
"$BIN" sample "http://127.0.0.1:1/metrics" -o "$tmp/x.csv" --slots --no-slots 2> "$tmp/both.err"; rc=$?
check "--slots with --no-slots: usage error (exit 2, got $rc)" bash -c "[ $rc -eq 2 ] && grep -q 'contradict' '$tmp/both.err'"
# snapshots that start 50 s late (the README's loop started after the bench):
# the first one already shows busy slots, said; the whole capture is not
mkdir -p "$tmp/late"
cp "$tmp/lc/stress.json" "$tmp/lc/run.json" "$tmp/late/"
"$PY" -c "
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
t0 = rows[0]['t_unix_s']
with open(sys.argv[2], 'w') as o:
    for d in rows:
        if d['t_unix_s'] >= t0 + 50: o.write(json.dumps(d) + '\n')" "$tmp/lc/slots.jsonl" "$tmp/late/slots.jsonl"
"$BIN" "$tmp/late" > /dev/null 2> "$tmp/late.err"
check "slots from 50 s late: the first snapshot's busy slots are said" \
	grep -qE "slots.jsonl: its first sample \([0-9-]+ [0-9:]+ UTC\) already shows [1-9][0-9]* busy slots: the capture began after the load had started" "$tmp/late.err"
"$BIN" "$tmp/nolog" -o "$tmp/nolog-again" > /dev/null 2> "$tmp/nolog.err"
check "slots covering the run: no such note" bash -c "! grep -q 'the capture began\|the capture ended' '$tmp/nolog.err'"
finish
