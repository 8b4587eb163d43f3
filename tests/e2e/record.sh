#!/usr/bin/env bash
# `benchreport sample` and `benchreport record` against the fake /metrics
# server (scripts/fake_metrics_server.py replaying fixtures/runs/tiny's
# metrics.csv on a free loopback port):
# - sample: one row per tick at start + k·interval (no drift, failed ticks
#   stay as empty rows), HTTP 500 / dropped connection / stall past the
#   timeout / restart with counters reset each marked, a clean stop on
#   SIGINT leaves valid CSV, a URL that never answers exits 3 writing nothing;
# - the sampled CSV (labels engine/model_name, status columns) is read by the
#   report's loader;
# - record: a fake load client that waits and writes a bench result; the
#   folder gets metrics.csv, the log's start-up block and run lines (not the
#   lines of an earlier run), run.json with the command, exit code and a GPU
#   from a fake nvidia-smi, the client's stderr, and a report; a failing
#   client's exit code is record's.
. "$(dirname "$0")/lib.bash"
FAKE="$SRC/scripts/fake_metrics_server.py"
start_fake() {   # start_fake ROW_S [PORT [MORE OPTIONS]]: sets FAKE_PID and PORT
  rm -f "$tmp/port"
  "$PY" "$FAKE" "$SRC/fixtures/runs/tiny/metrics.csv" --row-s "$1" --port "${2:-0}" --port-file "$tmp/port" "${@:3}" &
  FAKE_PID=$!
  for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
  PORT=$(cat "$tmp/port")
}
stop_fake() { kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null; }
ctl() { "$PY" -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=2).read()" "http://127.0.0.1:$PORT/control/$1"; }

start_fake 0.2
trap 'stop_fake; rm -rf "$tmp"' EXIT
# faults at known times: 500 twice at ~1.1 s, a drop at ~1.9 s, a 1 s stall (> the 160 ms timeout) at ~2.5 s, restart at ~3.1 s
( sleep 1.1; ctl 'fail?n=2'; sleep 0.8; ctl 'drop?n=2'; sleep 0.6; ctl 'stall?s=1'; sleep 0.6; ctl restart ) &
FAULTS=$!
"$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/s.csv" --interval 200ms --duration 5s 2> "$tmp/s.err"; rc=$?
wait "$FAULTS"
check "sample: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "sample: 25 rows, ticks 200 ms apart, each fault marked" "$PY" - "$tmp/s.csv" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h, rows = rows[0], rows[1:]
assert h[0] == "timestamp" and h[-2:] == ["benchreport:scrape_ok", "benchreport:server_restart"], h[-2:]
assert any(c.startswith('vllm:num_requests_running{engine="0",model_name=') for c in h), h[:3]
assert len(rows) == 25, len(rows)
assert all(len(r) == len(h) for r in rows)
t = [float(r[0]) for r in rows]
# row k at t0 + k * 0.2 s: answered rows carry the response time, failed ones the request time
dev = [abs(t[k] - t[0] - 0.2 * k) for k in range(len(t))]
assert max(dev) < 0.18, max(dev)
ok = [r[-2] for r in rows]
assert ok.count("0") >= 4, ok          # two 500s, a drop (curl retries a dropped reused connection once, so 2 are dropped), a timeout
for r in rows:
    if r[-2] == "0":
        assert all(c == "" for c in r[1:-2]), r
assert [r[-1] for r in rows].count("1") == 1, [r[-1] for r in rows]
PYEOF
check "sample: notes name the faults" bash -c "grep -q 'HTTP 500' '$tmp/s.err' && grep -q 'server restarted' '$tmp/s.err' && grep -qi 'timeout' '$tmp/s.err'"
check "sample: summary line" grep -q "25 rows in" "$tmp/s.err"

"$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/s.csv" --duration 1s 2> "$tmp/exists.err"; rc=$?
check "sample: refuses to overwrite (exit 2 naming --force, got $rc)" bash -c "[ $rc -eq 2 ] && grep -q -- '--force' '$tmp/exists.err'"

# SIGINT: clean stop, last row complete
"$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/int.csv" --interval 100ms 2> /dev/null & SP=$!
sleep 1.05; kill -INT "$SP"; wait "$SP"; rc=$?
check "sample: SIGINT stops cleanly (exit 0, got $rc)" [ "$rc" -eq 0 ]
check "sample: after SIGINT every row is whole" "$PY" -c "
import csv, sys
rows = list(csv.reader(open('$tmp/int.csv', newline='')))
assert len(rows) >= 8 and all(len(r) == len(rows[0]) for r in rows), len(rows)
assert open('$tmp/int.csv').read().endswith('\n')"

# never answered: exit 3, nothing written
"$BIN" sample "http://127.0.0.1:1/metrics" -o "$tmp/none.csv" --interval 100ms --duration 500ms 2> "$tmp/none.err"; rc=$?
check "sample: never answered: exit 3 (got $rc), nothing written" bash -c "[ $rc -eq 3 ] && [ ! -e '$tmp/none.csv' ] && grep -q 'never answered' '$tmp/none.err'"
# answered, but never with Prometheus text: exit 3, and not called silent
ctl 'garbage?n=1000'
"$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/garb.csv" --interval 100ms --duration 500ms 2> "$tmp/garb.err"; rc=$?
ctl 'garbage?n=0'
check "sample: only HTML pages: exit 3 (got $rc), nothing written" bash -c "[ $rc -eq 3 ] && [ ! -e '$tmp/garb.csv' ]"
check "sample: only HTML pages: 'never gave a usable page', not 'never answered'" \
	bash -c "grep -q 'never gave a usable page: 5 attempts over .* 5 answered with an HTTP error or a page that is not Prometheus text' '$tmp/garb.err' && ! grep -q 'never answered' '$tmp/garb.err'"
"$BIN" sample "ftp://x" 2>/dev/null; rc=$?
check "sample: bad URL exit 2 (got $rc)" [ "$rc" -eq 2 ]
stop_fake

# a restart seen only in the token counters (process_start_time_seconds kept,
# preemption and request counters still rising): the ledgers cannot fall
# while one process lives, so the row is marked a restart (second breaker);
# a series the server writes as NaN is written "NaN", not an empty cell
# (empty means "not sampled")
start_fake 0.2 0 --nan-series
( sleep 1.1; ctl reset-tokens ) &
FAULTS=$!
"$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/st.csv" --interval 200ms --duration 2s 2> "$tmp/st.err"; rc=$?
wait "$FAULTS"
check "sample: token counters fell alone: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "sample: token counters fell alone: one restart row" "$PY" -c "
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))[1:]
sys.exit(0 if [r[-1] for r in rows].count('1') == 1 else 1)" "$tmp/st.csv"
check "sample: a scraped NaN is written NaN in every answered row" "$PY" -c "
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
c = [i for i, h in enumerate(rows[0]) if h.startswith('fake:nan_gauge{')]
assert len(c) == 1, rows[0]
cells = [r[c[0]] for r in rows[1:] if r[-2] == '1']
sys.exit(0 if cells and all(x == 'NaN' for x in cells) else 1)" "$tmp/st.csv"
# ... and says what else it may be: the start time stayed (twenty-ninth breaker)
check "sample: token counters fell alone: the note names the counter, hedged" grep -qE "a restart before [0-9.]+\? vllm:(prompt|generation)_tokens_total\{[^}]*\} fell from [0-9.]+ to [0-9.]+.* while process_start_time_seconds stayed the same: marked a restart" "$tmp/st.err"
stop_fake

# one counter that is not a ledger (tiny's preemption counter) falls while the rest rise: not a restart, said on
# stderr (fourth breaker: "0 server restarts" and not a word)
start_fake 0.2
( sleep 2.0; ctl 'reset-series?name=vllm:num_preemptions_total' ) &   # 1 from tiny's row 7 (1.4 s) on
FAULTS=$!
"$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/lone.csv" --interval 200ms --duration 3s 2> "$tmp/lone.err"; rc=$?
wait "$FAULTS"
check "sample: a lone counter fell: exit 0 (got $rc), no restart row" bash -c "[ $rc -eq 0 ] && \"$PY\" -c \"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))[1:]
sys.exit(0 if rows and [r[-1] for r in rows].count('1') == 0 else 1)\" '$tmp/lone.csv'"
check "sample: a lone counter fell: said, not marked" grep -qE "vllm:num_preemptions_total\{[^}]*\} fell from [0-9.]+ to [0-9.]+ before [0-9.]+ while the other counters rose: not marked a restart" "$tmp/lone.err"
stop_fake

# ---- record ----
# one replayed row per second: the busy rows span the bench's 5.1 s as a real
# capture would (an accelerated replay squeezes them into 2 s, which the
# report rightly sets aside as a shorter load than the run)
start_fake 1.0
cat > "$tmp/client.py" <<'PYEOF'
import json, sys, time
src, out, log, wait_s, code = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
time.sleep(wait_s / 2)
with open(log, "a") as f:
    f.write("(APIServer pid=41) INFO 12-02 00:00:00 [loggers.py:127] line written during the run\n")
time.sleep(wait_s / 2)
d = json.load(open(src))
d["date"] = time.strftime("%Y%m%d-%H%M%S")
json.dump(d, open(out + "/stress.json", "w"))
print("client: wrote the result", flush=True)
print("client: a warning on stderr", file=sys.stderr, flush=True)
sys.exit(code)
PYEOF
cp "$SRC/fixtures/runs/tiny/server.log" "$tmp/live.log"
echo "(APIServer pid=41) INFO 10-29 11:59:00 [loggers.py:127] line of an earlier run" >> "$tmp/live.log"
mkdir -p "$tmp/bin"
cat > "$tmp/bin/nvidia-smi" <<'SHEOF'
#!/bin/sh
case "$*" in
  *-lms*) i=0; while :; do
            echo "0, $((1980 - i)), 2619, 350.5, 98, 40000, 65"; echo "1, 1755, 2619, 699.0, [N/A], 41000, 70"
            i=$((i + 1)); sleep 0.1; done ;;
  *query-gpu*) echo "NVIDIA H100 80GB HBM3, 550.54.15"; echo "NVIDIA H100 80GB HBM3, 550.54.15" ;;
  *) echo "| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4 |" ;;
esac
SHEOF
chmod +x "$tmp/bin/nvidia-smi"
PATH="$tmp/bin:$PATH" "$BIN" record -o "$tmp/run1" --metrics-url "http://127.0.0.1:$PORT/metrics" \
  --server-log "$tmp/live.log" --interval 250ms --tail 5s --quiet -- \
  "$PY" "$tmp/client.py" "$SRC/fixtures/runs/tiny/stress.json" "$tmp/run1" "$tmp/live.log" 5.4 0 \
  > "$tmp/rec.out" 2> "$tmp/rec.err"; rc=$?
check "record: exit 0 (got $rc)" [ "$rc" -eq 0 ]
for f in stress.json metrics.csv server.log run.json client-stdout.txt client-stderr.txt report/report.pdf report/summary.json; do
  check "record: writes $f" [ -s "$tmp/run1/$f" ]
done
check "record: client stdout passed through and kept" bash -c "grep -q 'wrote the result' '$tmp/rec.out' && grep -q 'wrote the result' '$tmp/run1/client-stdout.txt'"
check "record: client stderr kept" grep -q "a warning on stderr" "$tmp/run1/client-stderr.txt"
check "record: log keeps start-up and run lines, not the earlier run's" bash -c "
  grep -q 'GPU KV cache size: 5,120 tokens' '$tmp/run1/server.log' &&
  grep -q 'line written during the run' '$tmp/run1/server.log' &&
  ! grep -q 'line of an earlier run' '$tmp/run1/server.log'"
r="$tmp/run1/run.json"
check "run.json: GPU from nvidia-smi" [ "$(jget "$r" gpu)" = "2 × NVIDIA H100 80GB HBM3" ]
check "run.json: driver and CUDA" bash -c "[ '$(jget "$r" driver)' = 550.54.15 ] && [ '$(jget "$r" cuda)' = 12.4 ]"
check "run.json: command and exit code" bash -c "jq_cmd='$(jget "$r" record.command)'; case \"\$jq_cmd\" in *client.py*) exit 0;; esac; exit 1"
check "run.json: exit code 0" [ "$(jget "$r" record.exit_code)" = 0 ]
check "run.json: metrics rows answered" [ "$(jget "$r" record.metrics.answered)" -ge 8 ]
check "record: sampling went on while the client ran (the server idle in between)" "$PY" - "$tmp/run1/metrics.csv" "$r" <<'PYEOF'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))[1:]
end = json.load(open(sys.argv[2]))["record"]["client_end_unix_s"]
assert float(rows[-1][0]) >= end, (rows[-1][0], end)
PYEOF
s="$tmp/run1/report/summary.json"
check "report: no duration warning when the bench fits the recorded client span" "$PY" -c "
import json, sys
w = json.load(open('$s'))['warnings']
sys.exit(1 if any('benchreport record ran lasted' in x for x in w) else 0)"
check "report: the sampled metrics are used (a 1 Hz-style series, not set aside)" [ "$(jget "$s" run.metrics_kind)" = "csv series" ]
check "report: KV pool from the copied log" [ "$(jget "$s" capacity.kv_pool_tokens)" = 5120 ]
check "report: GPU label from run.json" [ "$(jget "$s" run.gpu)" = "2 × NVIDIA H100 80GB HBM3" ]
check "GPU telemetry columns at the metrics ticks ([N/A] left empty)" "$PY" - "$tmp/run1/metrics.csv" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
ok = [r for r in rows if r["benchreport:scrape_ok"] == "1"]
assert ok and all(r['gpu:power_w{gpu="1"}'] == "699" for r in ok), ok[0]
assert all(float(r['gpu:sm_clock_mhz{gpu="0"}']) <= 1980 for r in ok)
assert all(r['gpu:utilization_pct{gpu="1"}'] == "" for r in ok) if 'gpu:utilization_pct{gpu="1"}' in rows[0] else True
PYEOF
check "report: GPU telemetry figure drawn and placed" bash -c "[ -s '$tmp/run1/report/figures/figG-gpu.png' ] && pdftotext '$tmp/run1/report/report.pdf' - | grep -q 'GPU telemetry sampled by nvidia-smi'"

# a failing client: its exit code is record's, the folder is still written
"$BIN" record -o "$tmp/run2" --metrics-url "http://127.0.0.1:$PORT/metrics" --interval 250ms --tail 2s --quiet -- \
  "$PY" "$tmp/client.py" "$SRC/fixtures/runs/tiny/stress.json" "$tmp/run2" "$tmp/live.log" 1 7 > /dev/null 2> "$tmp/rec2.err"; rc=$?
check "record: failing client exit code 7 passed on (got $rc)" [ "$rc" -eq 7 ]
check "record: failing client still leaves run.json and metrics" bash -c "[ -s '$tmp/run2/run.json' ] && [ -s '$tmp/run2/metrics.csv' ]"
check "record: says the client failed" grep -q "load client exited 7" "$tmp/rec2.err"
check "report: a bench result longer than the recorded client is flagged" "$PY" -c "
import json, sys
w = json.load(open('$tmp/run2/report/summary.json'))['warnings']
sys.exit(0 if any('benchreport record ran lasted' in x for x in w) else 1)"
check "report: no GPU figure without nvidia-smi" bash -c "[ -s '$tmp/run2/report/report.pdf' ] && [ ! -e '$tmp/run2/report/figures/figG-gpu.png' ]"
# a log with an earlier start-up, a run, then a restart: the later start-up is the one kept
{ cat "$SRC/fixtures/runs/tiny/server.log"
  sed -e 's/0\.27\.1/0.28.0/g' -e 's/5,120 tokens/9,984 tokens/' "$SRC/fixtures/runs/tiny/server.log" | head -6; } > "$tmp/restarted.log"
"$BIN" record -o "$tmp/run3" --server-log "$tmp/restarted.log" --no-report -- true 2>/dev/null
check "record: a restart after an earlier run: the later start-up block is kept" bash -c "
  grep -q 'vLLM API server version 0.28.0' '$tmp/run3/server.log' && ! grep -q '0.27.1' '$tmp/run3/server.log' &&
  grep -q '9,984 tokens' '$tmp/run3/server.log'"
# a log rotated (truncated) during the run: the start-up block taken at the start survives
cp "$SRC/fixtures/runs/tiny/server.log" "$tmp/rot.log"
"$BIN" record -o "$tmp/run4" --server-log "$tmp/rot.log" --no-report -- \
  bash -c "sleep 0.2; echo 'after the rotation' > '$tmp/rot.log'" 2> "$tmp/rot.err"
check "record: rotation: start-up kept, new lines kept, said" bash -c "
  grep -q 'GPU KV cache size: 5,120 tokens' '$tmp/run4/server.log' && grep -q 'after the rotation' '$tmp/run4/server.log' &&
  grep -q 'shrank during the run' '$tmp/rot.err'"
"$BIN" record -o "$tmp/run5" --metrics-url "http://127.0.0.1:1/metrics" --interval 100ms --tail 1s --no-report -- true 2> "$tmp/dead.err"; rc=$?
check "record: a metrics URL that never answered: exit 3 (got $rc)" bash -c "[ $rc -eq 3 ] && grep -q 'never answered' '$tmp/dead.err'"
# ... and no --tail wait after the client for a server that never answered
t0=$(date +%s.%N)
"$BIN" record -o "$tmp/run5b" --metrics-url "http://127.0.0.1:1/metrics" --interval 100ms --tail 30s --no-report -- sleep 0.3 2> "$tmp/dead2.err"
t1=$(date +%s.%N)
check "record: never answered: no 30 s tail ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)" bash -c "
  awk -v a='$t0' -v b='$t1' 'BEGIN { exit !(b - a < 10) }' && grep -q 'sampling stops now instead of waiting' '$tmp/dead2.err'"
# a client that ignores SIGTERM (and its grandchild holds the pipes): SIGTERM
# is passed on, sent again after 5 s, then SIGKILL after 10 s; record ends
# with 137 (128 + 9) and still writes run.json
"$BIN" record -o "$tmp/run5c" --no-report -- bash -c 'trap "" TERM INT HUP; sleep 30 & wait; sleep 30' 2> "$tmp/deaf.err" &
RP=$!
sleep 1; t0=$(date +%s.%N); kill -TERM "$RP"; wait "$RP"; rc=$?; t1=$(date +%s.%N)
pkill -f "^sleep 30$" 2>/dev/null
check "record: a client deaf to SIGTERM: SIGKILL after 10 s, exit 137 (got $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)" bash -c "
  [ $rc -eq 137 ] && awk -v a='$t0' -v b='$t1' 'BEGIN { exit !(b - a >= 9.5 && b - a < 20) }' &&
  grep -q 'SIGKILL' '$tmp/deaf.err' && [ -s '$tmp/run5c/run.json' ]"
"$BIN" record -o "$tmp/run1" -- true 2>/dev/null; rc=$?
check "record: refuses a non-empty folder (exit 2, got $rc)" [ "$rc" -eq 2 ]
# a client that cannot start: no waiting out the 60 s tail for a load that
# never ran, and no pointer to a stderr file it never wrote
t0=$(date +%s)
"$BIN" record -o "$tmp/run6" --metrics-url "http://127.0.0.1:1/metrics" --no-report -- "$tmp/no-such-client" 2> "$tmp/nostart.err"; rc=$?
t1=$(date +%s)
check "record: a client that cannot start: said, done in under 20 s ($((t1 - t0)) s)" \
  bash -c "grep -q \"cannot run '$tmp/no-such-client'\" '$tmp/nostart.err' && grep -q 'never started' '$tmp/nostart.err' && [ $((t1 - t0)) -lt 20 ]"
check "record: a client that cannot start: non-zero exit (got $rc)" [ "$rc" -ne 0 ]
# libcurl is loaded at run time by sample/record only: the binary does not
# link it (the reports start without its 26 libraries), and a machine where
# it cannot be loaded is told so before the load runs or RUN_DIR is made
check "the binary does not link libcurl (it is dlopen'ed)" bash -c "! ldd '$BIN' | grep -q libcurl"
BR_LIBCURL="$tmp/no-libcurl.so" "$BIN" record -o "$tmp/run7" --metrics-url "http://127.0.0.1:$PORT/metrics" --no-report -- \
  touch "$tmp/run7-ran" 2> "$tmp/nocurl.err"; rc=$?
check "record without libcurl: exit 2 (got $rc), library named, nothing run or made" bash -c "
  [ $rc -eq 2 ] && grep -q 'cannot load $tmp/no-libcurl.so' '$tmp/nocurl.err' && grep -q 'libcurl4' '$tmp/nocurl.err' &&
  [ ! -e '$tmp/run7' ] && [ ! -e '$tmp/run7-ran' ]"
# twenty-second breaker: the load client and signals.
# a stop during the first tick (before the client starts): it never starts,
# the samples taken are removed, exit 130
"$BIN" record -o "$tmp/run8" --metrics-url "http://127.0.0.1:$PORT/metrics" --interval 5s --no-report -- \
  touch "$tmp/run8-ran" 2> "$tmp/run8.err" &
RP=$!; sleep 1.5; kill -INT "$RP"; wait "$RP"; rc=$?
check "record: stopped before the client started: not run, exit 130 (got $rc), folder removed" bash -c "
  [ $rc -eq 130 ] && [ ! -e '$tmp/run8-ran' ] && [ ! -e '$tmp/run8' ] && grep -q 'before the load client started' '$tmp/run8.err'"
# SIGTERM to record reaches the load generator a wrapper shell started (the
# client's process group), not only the shell
"$BIN" record -o "$tmp/run9" --no-report -- bash -c "'$PY' -c 'import time; time.sleep(41.5)'; echo after" 2> /dev/null &
RP=$!; sleep 1.5; kill -TERM "$RP"; wait "$RP"; rc=$?; sleep 0.3
check "record: SIGTERM stops the wrapper's load generator too (exit $rc)" bash -c "
  [ $rc -eq 143 ] && ! pgrep -f 'time.sleep\\(41.5\\)' > /dev/null"
pkill -f 'time.sleep\(41.5\)' 2> /dev/null
# a client that exits leaving a background process holding its output: the
# run ends at the client's exit, not when that process closes the pipes
t0=$(date +%s.%N)
"$BIN" record -o "$tmp/run10" --no-report -- sh -c 'sleep 42.5 & sleep 0.5; exit 0' 2> "$tmp/run10.err"; rc=$?
t1=$(date +%s.%N)
pkill -f '^sleep 42.5$' 2> /dev/null
check "record: a background helper does not hold the run open (exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)" bash -c "
  [ $rc -eq 0 ] && awk -v a='$t0' -v b='$t1' 'BEGIN { exit !(b - a < 5) }' && grep -q 'left in the background' '$tmp/run10.err'"
check "run.json: the client's end is its exit (0.5 s after its start, not the helper's 42.5 s)" "$PY" -c "
import json, sys; r = json.load(open('$tmp/run10/run.json'))['record']
sys.exit(0 if 0.4 < r['client_end_unix_s'] - r['client_start_unix_s'] < 3 else 1)"
# report options are checked before the load runs
"$BIN" record -o "$tmp/run11" --fail-on 'ttft_p99<=bogus' -- touch "$tmp/run11-ran" 2> "$tmp/run11.err"; rc=$?
check "record: a bad --fail-on is refused before the client runs (exit $rc)" bash -c "
  [ $rc -eq 2 ] && [ ! -e '$tmp/run11-ran' ] && [ ! -e '$tmp/run11' ] && grep -q 'nothing was run' '$tmp/run11.err'"
# the labels of a run.json the client wrote are kept, record's block added
"$BIN" record -o "$tmp/run12" --no-report -- sh -c "echo '{\"gpu\": \"H100 (mine)\", \"notes\": \"precious\"}' > '$tmp/run12/run.json'" 2> "$tmp/run12.err"
check "record: the client's run.json labels kept (gpu, notes)" \
  [ "$(jget "$tmp/run12/run.json" gpu)/$(jget "$tmp/run12/run.json" notes)" = "H100 (mine)/precious" ]
check "record: ... beside record's block, and said" \
  [ "$(jget "$tmp/run12/run.json" record.exit_code)" = 0 ] && grep -q 'kept what the client' "$tmp/run12.err"
# a step of the system clock during a capture: stamps keep the monotonic
# pace (a 3 s step back made record's own metrics.csv "time goes backwards")
# (not under the sanitizer build: ASan must come first among the preloaded libraries)
if command -v cc > /dev/null && ! ldd "$BIN" 2> /dev/null | grep -q libasan; then
  cat > "$tmp/step.c" <<'CEOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>
/* CLOCK_REALTIME 3 s back once 1 s of CLOCK_MONOTONIC has passed since the first call */
int clock_gettime(clockid_t id, struct timespec *ts) {
  static int (*real)(clockid_t, struct timespec *);
  static double first = -1;
  if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  int r = real(id, ts);
  struct timespec m; real(CLOCK_MONOTONIC, &m);
  double now = m.tv_sec + m.tv_nsec * 1e-9;
  if (first < 0) first = now;
  if (r == 0 && id == CLOCK_REALTIME && now - first >= 1.0) ts->tv_sec -= 3;
  return r;
}
CEOF
  cc -shared -fPIC -o "$tmp/step.so" "$tmp/step.c" -ldl
  LD_PRELOAD="$tmp/step.so" "$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/step.csv" --interval 200ms --duration 3s 2> /dev/null
  check "sample: a 3 s clock step back: stamps still 200 ms apart, never backwards" "$PY" - "$tmp/step.csv" <<'PYEOF'
import csv, sys
t = [float(r[0]) for r in list(csv.reader(open(sys.argv[1], newline="")))[1:]]
d = [b - a for a, b in zip(t, t[1:])]
assert len(t) >= 14 and min(d) > 0.05 and max(d) < 0.5, d
PYEOF
else
  echo "note: no C compiler, or the sanitizer build: the clock-step case was skipped"
fi
# a URL answered with a 307 (vLLM's /metrics -> /metrics/ when it mounted the
# Prometheus app): followed, said once (twenty-second breaker: exit 3)
"$BIN" sample "http://127.0.0.1:$PORT/old-metrics" -o "$tmp/redir.csv" --interval 200ms --duration 1s 2> "$tmp/redir.err"; rc=$?
check "sample: a 307 to /metrics is followed (exit $rc), said once" bash -c "
  [ $rc -eq 0 ] && [ \$(grep -c 'redirects to http://127.0.0.1:$PORT/metrics: followed' '$tmp/redir.err') -eq 1 ] &&
  [ \$(tail -n +2 '$tmp/redir.csv' | grep -c ',1,[01]\$') -ge 4 ]"
# label churn (a family of 200 label sets appearing mid-capture): the sampler
# names the first 10 new series and counts the rest, the report joins none of
# that family (it printed 300,000 lines and took 8 min: twenty-second breaker)
mkdir -p "$tmp/churn"
( sleep 0.6; ctl 'churn?n=200' ) &
CHURN=$!
"$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/churn/metrics.csv" --interval 200ms --duration 2s 2> "$tmp/churn.err"
wait "$CHURN"
check "sample: 10 new series named, then one note for the rest" bash -c "
  [ \$(grep -c 'new series fake:lora_info' '$tmp/churn.err') -eq 10 ] && [ \$(grep -c 'without a note each' '$tmp/churn.err') -eq 1 ]"
check "sample: all 200 kept in the side file" [ "$("$PY" -c "import csv,sys; print(len({r[1] for r in list(csv.reader(open(sys.argv[1])))[1:]}))" "$tmp/churn/metrics.new-series.csv")" = 200 ]
cp "$SRC/fixtures/runs/tiny/stress.json" "$tmp/churn/" 2> /dev/null
"$BIN" "$tmp/churn" -o "$tmp/churn-out" -q 2> /dev/null
check "report: the 200-label-set family not joined, said" grep -q "200 series of metric families with 64 or more label sets each" "$tmp/churn-out/summary.json"
# a stop while sampling after the client ended (the --tail wait): said, the
# capture ends, run.json says so, the client was not interrupted
# (twenty-second breaker: swallowed). A new replay, 1 s a row: busy from 3 s to 9 s.
stop_fake; start_fake 1
"$BIN" record -o "$tmp/run13" --metrics-url "http://127.0.0.1:$PORT/metrics" --interval 200ms --tail 30s --no-report -- \
  sleep 4 2> "$tmp/run13.err" &
RP=$!; sleep 6.5; kill -INT "$RP"; wait "$RP"; rc=$?
check "record: a stop in the tail wait ends the capture, said, in run.json (exit $rc)" bash -c "
  [ $rc -eq 0 ] && grep -q 'stopped while sampling after the client ended' '$tmp/run13.err' &&
  grep -q '\"capture_stopped\": true' '$tmp/run13/run.json' && grep -q '\"interrupted\": false' '$tmp/run13/run.json'"
BR_LIBCURL="$tmp/no-libcurl.so" "$BIN" sample "http://127.0.0.1:$PORT/metrics" -o "$tmp/nocurl.csv" --duration 1s 2> "$tmp/nocurl2.err"; rc=$?
check "sample without libcurl: non-zero exit (got $rc), library named, no CSV" bash -c "
  [ $rc -ne 0 ] && grep -q 'cannot load' '$tmp/nocurl2.err' && [ ! -e '$tmp/nocurl.csv' ]"
finish
