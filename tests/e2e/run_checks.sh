#!/usr/bin/env bash
# Cross-checks between the files of a run (fresh-user findings): metrics
# that do not overlap the bench run, gaps in the series, duration 0, and a
# multi-result file reports its last (newest) result.
. "$(dirname "$0")/lib.bash"
fresh() { rm -rf "$tmp/r"; cp -r "$SRC/fixtures/runs/tiny" "$tmp/r"; rm -rf "$tmp/r/report"; }
# 1. metrics shifted by one year: a warning, still a report
fresh
"$PY" - "$tmp/r/metrics.csv" <<'PYEOF'
import sys
p = sys.argv[1]; lines = open(p).read().splitlines()
out = [lines[0]] + ["%.3f,%s" % (float(l.split(",", 1)[0]) + 365 * 86400, l.split(",", 1)[1]) for l in lines[1:]]
open(p, "w").write("\n".join(out) + "\n")
PYEOF
"$BIN" "$tmp/r" > /dev/null 2> "$tmp/err"; rc=$?
check "shifted metrics: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "shifted metrics: says they do not overlap" grep -q "do not overlap" "$tmp/err"
# 2. a gap of 6 samples in the series
fresh
"$PY" - "$tmp/r/metrics.csv" <<'PYEOF'
import sys
p = sys.argv[1]; lines = open(p).read().splitlines()
open(p, "w").write("\n".join(lines[:5] + lines[11:]) + "\n")
PYEOF
"$BIN" "$tmp/r" > /dev/null 2> "$tmp/err"; rc=$?
check "gap: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "gap: warned with its length (7 s)" grep -q "longest gap 7 s" "$tmp/err"
# 3. duration 0 is bad input
fresh
sed -i 's/"duration": [0-9.e+-]*/"duration": 0/' "$tmp/r/stress.json"
"$BIN" "$tmp/r" > /dev/null 2> "$tmp/err"; rc=$?
check "duration 0: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "duration 0: names the key with line:col" grep -qE 'stress\.json:1:[0-9]+: "duration": 0: expected' "$tmp/err"
# 4. JSONL of three results: the last one is reported, with a note
d="$tmp/jsonl"; mkdir -p "$d"
for n in 12 20 30; do sed "s/\"num_prompts\": 12/\"num_prompts\": $n/" "$SRC/fixtures/runs/tiny/stress.json"; echo; done > "$d/results.jsonl"
"$BIN" "$d" -q 2> "$tmp/err"; rc=$?
check "jsonl: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "jsonl: the last result (num_prompts 30) is reported" [ "$(jget "$d/report/summary.json" bench.num_prompts)" = 30 ]
# 5. stress.json that is a folder, a symlink loop, a dangling symlink: said so, exit 3
d="$tmp/links"; mkdir -p "$d/dir/stress.json" "$d/loop" "$d/dangling"
ln -s stress.json "$d/loop/stress.json"; ln -s nowhere.json "$d/dangling/stress.json"
"$BIN" "$d/dir" -q 2> "$tmp/err"; rc=$?
check "stress.json folder: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "stress.json folder: says it is a directory" grep -q "stress.json: not a regular file (a directory)" "$tmp/err"
"$BIN" "$d/loop" -q 2> "$tmp/err"; rc=$?
check "symlink loop: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "symlink loop: says so" grep -q "stress.json: a symbolic link loop" "$tmp/err"
"$BIN" "$d/dangling" -q 2> "$tmp/err"; rc=$?
check "dangling symlink: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "dangling symlink: names the target" grep -q "a symbolic link to nowhere.json, which does not exist" "$tmp/err"
# 8. the series' clock against the bench's date (client local time, no zone):
# shifted by a whole zone (−5 h 30 min, +1 h) it is silent; by 37 min no
# zone explains it and the warning states the residue, computed here from
# the files: last busy row + shift − the date read as UTC, less the nearest
# multiple of 900 s
for shift in -19800 3600 2220 -500; do
	fresh
	want=$("$PY" - "$tmp/r/metrics.csv" "$tmp/r/stress.json" "$shift" <<'PYEOF'
import sys, json, calendar, time
p, b, sh = sys.argv[1], sys.argv[2], float(sys.argv[3])
lines = open(p).read().splitlines()
rows = [l.split(",") for l in lines[1:]]
open(p, "w").write(lines[0] + "\n" + "\n".join(
    ["%.3f,%s" % (float(r[0]) + sh, ",".join(r[1:])) for r in rows]) + "\n")
last = max(float(r[0]) for r in rows if float(r[1]) + float(r[2]) > 0) + sh
end = calendar.timegm(time.strptime(json.load(open(b))["date"], "%Y%m%d-%H%M%S"))
res = abs(round((last - end) - 900 * round((last - end) / 900)))
print("-" if res <= 122 else "%d min %02d s" % (res // 60, res % 60))
PYEOF
)
	"$BIN" "$tmp/r" -q > /dev/null 2> "$tmp/err"; rc=$?
	got=$("$PY" -c 'import json,sys,re; w=[x for x in json.load(open(sys.argv[1])).get("warnings",[]) if "no whole time zone" in x]; m=re.search(r"nearest is (\d+ min \d\d s)", w[0]) if w else None; print(m.group(1) if m else "-")' "$tmp/r/report/summary.json")
	check "clock shift $shift s: exit 0 (got $rc)" [ "$rc" -eq 0 ]
	check "clock shift $shift s: residue '$want' (got '$got')" [ -n "$want" -a "$got" = "$want" ]
done
# 9. a date in another format than vllm bench serve's is shown as stated,
# not as the run's end in client local time (brk18 L5: "run ended garbage")
fresh
sed -i 's/"date": "[^"]*"/"date": "garbage"/' "$tmp/r/stress.json"
"$BIN" "$tmp/r" -q > /dev/null 2>&1; rc=$?
pdftotext "$tmp/r/report/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/db.txt"
check "date 'garbage': exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "date 'garbage': shown as the file states it" grep -qF 'date "garbage" as the bench file states it' "$tmp/db.txt"
check "date 'garbage': not 'run ended garbage'" bash -c "! grep -q 'run ended garbage' '$tmp/db.txt'"
# 10. "--" ends the options: a run folder named "-rate 1" (brk18 L9)
d="$tmp/dash"; mkdir -p "$d"; cp -r "$SRC/fixtures/runs/tiny" "$d/-rate 1"; rm -rf "$d/-rate 1/report"
(cd "$d" && "$BIN" -q -- "-rate 1"); rc=$?
check "-- then '-rate 1': report exit 0 (got $rc)" [ "$rc" -eq 0 -a -s "$d/-rate 1/report/report.pdf" ]
(cd "$d" && "$BIN" knee -q --slo 'ttft_p99<=60s' -o "$d/k" -- "-rate 1"); rc=$?
check "knee -- '-rate 1': exit 0 (got $rc)" [ "$rc" -eq 0 ]
(cd "$d" && "$BIN" compare -q -o "$d/c" -- "-rate 1" "-rate 1"); rc=$?
check "compare -- '-rate 1' '-rate 1': exit 0 (got $rc)" [ "$rc" -eq 0 ]
(cd "$d" && "$BIN" -q "-rate 1" 2> "$d/err"); rc=$?
check "without --, '-rate 1' is an unknown option (exit 2, got $rc)" [ "$rc" -eq 2 ]
# 11. light load (brk20 H3): 60 prompts of 16 output tokens at 0.25 req/s:
# most requests start and finish between two 1 Hz scrapes, unseen by the
# running gauge; the counters still count every one, and the ledger agrees
# (before: the window began 13 s late, "4 counters disagree"). Truth: the
# client's totals from its own file, numpy
"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); w=c["workload"]; w["num_prompts"]=60; w["output_len"]=16; w["request_rate"]=0.25; c["seed"]=1; json.dump(c,open(sys.argv[2],"w"))' \
	"$SRC/fixtures/configs/example-commented.json" "$tmp/light.json"
"$BIN" simulate "$tmp/light.json" -o "$tmp/light" > /dev/null 2>&1 || bad "simulate light load"
"$BIN" "$tmp/light" -q > /dev/null 2>&1; rc=$?
ls="$tmp/light/report/summary.json"
want=$("$PY" -c 'import json,sys,numpy as np; d=json.load(open(sys.argv[1])); print(int(np.sum(d["input_lens"])), d["completed"])' "$tmp/light/stress.json")
check "light load: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "light load: every counter agrees (disagree $(jget "$ls" ledger.n_disagree))" [ "$(jget "$ls" ledger.n_disagree)" = 0 -a "$(jget "$ls" ledger.n_agree)" = 4 ]
check "light load: prompt tokens and requests as the client's ($want)" [ "$(jget "$ls" ledger.rows.0.server_delta) $(jget "$ls" ledger.rows.2.server_delta)" = "$(echo $want | awk '{printf "%.1f %.1f", $1, $2}')" ]
check "simulated server.log: its stamps never go back (brk20 L16)" "$PY" -c "
import re, sys
ts = re.findall(r'INFO (\d\d-\d\d \d\d:\d\d:\d\d)', open(sys.argv[1]).read())
sys.exit(0 if len(ts) > 3 and ts == sorted(ts) else 1)" "$tmp/light/server.log"
# 6. knee DIR finds an --append-result *.jsonl inside the folder
d="$tmp/kneejsonl"; mkdir -p "$d"; cp "$SRC/fixtures/bench/append3.jsonl" "$d/"
"$BIN" knee "$d" --slo 'ttft_p99<=500ms' -o "$tmp/kneeout" > /dev/null 2> "$tmp/err"; rc=$?
check "knee on a folder with a .jsonl: exit 0 or 1 (got $rc)" [ "$rc" -le 1 ]
check "knee on a folder with a .jsonl: 3 runs read" [ "$(jget "$tmp/kneeout/summary.json" n_runs)" = 3 ]
# a successful request whose TTFT is null: said, and the count is one short
d="$tmp/nullttft"; cp -r "$SRC/fixtures/runs/tiny" "$d"; rm -rf "$d/report"
"$PY" -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['ttfts'][2]=None; json.dump(d,open(p,'w'))" "$d/stress.json"
"$BIN" "$d" 2> "$tmp/err" > /dev/null; rc=$?
check "null TTFT of a successful request: exit 0 (got $rc), said" bash -c "[ $rc -eq 0 ] && grep -q 'successful requests have no TTFT (\"ttfts\" holds null, first at index 2)' '$tmp/err'"
# latencies of a day and more: the latency table is in s, whole numbers
# (in ms they were cut mid-digit, "1,176,094,18 / 6")
d="$tmp/days"; cp -r "$SRC/fixtures/runs/tiny" "$d"; rm -rf "$d/report" "$d/metrics.csv"
"$PY" - "$d/stress.json" <<'PYEOF'
import json, sys
p = sys.argv[1]; d = json.load(open(p)); k = 1e6
for key in ("ttfts", "latencies", "start_times"):
    if d.get(key): d[key] = [x * k if x is not None else None for x in d[key]]
d["itls"] = [[x * k for x in r] for r in d["itls"]]
d["duration"] *= k
for key in list(d):
    if key.endswith("_ms") and isinstance(d[key], (int, float)): d[key] *= k
json.dump(d, open(p, "w"))
PYEOF
"$BIN" "$d" -q > /dev/null 2>&1; rc=$?
pdftotext -layout "$d/report/report.pdf" - 2> /dev/null > "$tmp/days.txt"
check "latencies of days: exit 0 (got $rc), the table in s" bash -c "[ $rc -eq 0 ] && grep -q 'All latencies in seconds' '$tmp/days.txt'"
# sub-microsecond latencies: the table gives them three significant digits, not "0.000"
mkdir -p "$tmp/us"
"$PY" - "$tmp/us/stress.json" <<'PYEOF'
import json, sys
n = 10; ttft = [1e-7 * (i + 1) for i in range(n)]; itl = [[1e-8] * 4 for _ in range(n)]
lat = [t + sum(g) for t, g in zip(ttft, itl)]
json.dump({"date": "20260115-090000", "backend": "vllm", "model_id": "m", "num_prompts": n, "request_rate": "inf",
  "max_concurrency": 10, "duration": 1.0, "completed": n, "failed": 0, "total_input_tokens": 100 * n,
  "total_output_tokens": 5 * n, "input_lens": [100] * n, "output_lens": [5] * n, "ttfts": ttft, "itls": itl,
  "latencies": lat, "errors": [""] * n}, open(sys.argv[1], "w"))
PYEOF
"$BIN" "$tmp/us" -o "$tmp/us-out" -q; rc=$?
# TTFT median (numpy) = (5e-7 + 6e-7) / 2 s = 0.00055 ms: 6 decimals; ITL 1e-5 ms: 7 decimals
check "sub-microsecond latencies: exit 0 (got $rc), TTFT and ITL rows in 3 significant digits" bash -c "
  pdftotext -layout '$tmp/us-out/report.pdf' - | grep -E '^ *TTFT +10 +0\.000550 +0\.000550 ' > /dev/null &&
  pdftotext -layout '$tmp/us-out/report.pdf' - | grep -E '^ *ITL +40 +0\.0000100 ' > /dev/null"
# a server restart marked by `benchreport sample` inside the run: the count is
# a lower bound (tiny counts 1 preemption), the gate cannot pass ==1, and the
# report says the server restarted
fresh
"$PY" - "$tmp/r/metrics.csv" <<'PYEOF'
import sys
p = sys.argv[1]; lines = open(p).read().splitlines(); mid = len(lines) // 2
out = [lines[0] + ",benchreport:scrape_ok,benchreport:server_restart"]
out += [l + ",1," + ("1" if i == mid else "0") for i, l in enumerate(lines[1:], 1)]
open(p, "w").write("\n".join(out) + "\n")
PYEOF
"$BIN" "$tmp/r" -o "$tmp/restart" -q --fail-on 'preemptions==1' 2> "$tmp/restart.err"; rc=$?
check "restart: preemptions==1 unknown, exit 1 (got $rc)" bash -c "[ $rc -eq 1 ] && grep -q 'the server restarted during the run (1 time)' '$tmp/restart.err'"
check "restart: said in the report, count a lower bound" bash -c "
  pdftotext '$tmp/restart/report.pdf' - | tr -s ' \n' '  ' | grep -qF 'The server restarted during the run (1 time' &&
  grep -q '\"count_is_lower_bound\": true' '$tmp/restart/summary.json'"
check "restart: the front card names the restart, not the capture" bash -c "
  pdftotext '$tmp/restart/report.pdf' - | tr -s ' \n' '  ' | grep -qF '(the server restarted during the run: a lower bound)' &&
  ! pdftotext '$tmp/restart/report.pdf' - | grep -qF 'the capture missed part'"
"$BIN" "$tmp/r" -o "$tmp/restart2" -q --fail-on 'preemptions>=1' 2> /dev/null; rc=$?
check "restart: preemptions>=1 still settled by the lower bound (exit $rc)" [ "$rc" -eq 0 ]
# max_concurrency above the number of prompts: figure 3's line is at min(C, N), said so
# (fourth breaker: C = 1024 with 48 prompts squashed the data into the bottom 4%)
fresh
"$PY" -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['max_concurrency']=1000; json.dump(d,open(p,'w'))" "$tmp/r/stress.json"
n_pr=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['num_prompts'])" "$tmp/r/stress.json")
"$BIN" "$tmp/r" -q > /dev/null 2>&1
pdftotext "$tmp/r/report/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/f3.txt"
check "fig3: the line at the $n_pr prompts, max_concurrency 1000 named" \
	grep -qF "the $n_pr prompts of the run, as max_concurrency (1000) exceeds them" "$tmp/f3.txt"
check "fig3: its label N = $n_pr" grep -qF "N = $n_pr prompts (max_concurrency 1000)" "$tmp/f3.txt"
finish
