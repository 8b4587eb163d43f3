#!/usr/bin/env bash
# Whether a metrics capture is this run's whole record, and what the CI gate
# may conclude from it (third break-it review). The simulated round 1 counts
# 37 preemptions (run.json's truth, and the series' counter over its 595
# samples); every case edits its metrics.csv:
#   - 3 missed scrapes (empty cells) mid-run: bridged, still 37;
#   - the first 10 samples only (7 s busy of a 594 s run): set aside, the gate's
#     preemptions term unknown (fails), no "counted no preemption";
#   - the last 20 samples cut (busy at its last sample, 96% covered): kept, the
#     count a lower bound: "preemptions<=100" unknown, "preemptions>=1" passes;
#   - a 594 s busy period beside a 23.9 s bench (another run's metrics 3 h
#     earlier): set aside;
#   - a bench whose every request failed beside a busy series: set aside;
#   - a before/after pair whose "after" still shows requests: set aside.
. "$(dirname "$0")/lib.bash"
"$BIN" simulate "$SRC/fixtures/configs/round1.json" -o "$tmp/r1" > /dev/null || bad "simulate round 1"
check "round 1 truth: 37 preemptions" [ "$(jget "$tmp/r1/run.json" simulator.preemptions)" = 37 ]
# edit NAME PYTHON: a copy of round 1 whose metrics.csv rows (header kept) pass through the code
edit() {
  rm -rf "$tmp/$1"; cp -r "$tmp/r1" "$tmp/$1"
  "$PY" - "$tmp/$1/metrics.csv" "$2" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head, body = rows[0], rows[1:]
exec(sys.argv[2])
csv.writer(open(sys.argv[1], "w", newline="")).writerows([head] + body)
PYEOF
}
edit gaps 'body = [[r[0]] + [""] * (len(r) - 1) if 200 <= i < 203 else r for i, r in enumerate(body)]'
"$BIN" "$tmp/gaps" --fail-on 'preemptions<=30' > /dev/null 2> "$tmp/gaps.err"; rc=$?
check "3 missed scrapes: the gate fails (got $rc)" [ "$rc" -eq 1 ]
check "3 missed scrapes: measured 37, one busy period" grep -q "FAIL preemptions<=30: measured 37" "$tmp/gaps.err"
check "3 missed scrapes: no period cut" bash -c "! grep -q 'busy periods' '$tmp/gaps.err'"

edit head 'body = body[:10]'
"$BIN" "$tmp/head" --fail-on 'preemptions==0' > /dev/null 2> "$tmp/head.err"; rc=$?
check "10 s of 594: the gate fails (got $rc)" [ "$rc" -eq 1 ]
check "10 s of 594: set aside, said why" grep -q "metrics.csv (the server metrics) is not used: its busy samples span [0-9]* s of the bench's 593.9 s run: the capture ended before the load did" "$tmp/head.err"
check "10 s of 594: preemptions unknown" grep -q "UNKNOWN preemptions==0: .*set aside" "$tmp/head.err"
pdftotext "$tmp/head/report/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/head.txt"
check "10 s of 594: never 'counted no preemption'" bash -c "! grep -q 'counted no preemption' '$tmp/head.txt'"
check "10 s of 594: removed sections say the metrics were set aside" grep -q "Residency and KV cache — the server metrics were set aside as not this run's whole record" "$tmp/head.txt"
check "10 s of 594: no advice to start a capture the folder has" bash -c "! grep -q -e 'Start the server with --enable-mfu-metrics' -e 'once a second during the test' '$tmp/head.txt'"
check "10 s of 594: advice to capture the whole run" grep -q "Sample /metrics from before the load starts until after the bench ends" "$tmp/head.txt"
# a campaign of round 1 and the cut copy: the copy's note is in the PDF
mkdir -p "$tmp/camp"; cp -r "$tmp/r1" "$tmp/camp/a"; cp -r "$tmp/head" "$tmp/camp/b"; rm -rf "$tmp/camp/b/report"
rerun "$tmp/camp/b/stress.json"   # not a copy of a
"$BIN" "$tmp/camp" -q > /dev/null 2>&1 || bad "campaign of round 1 and its cut copy"
pdftotext "$tmp/camp/report/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/camp.txt"
check "campaign: the cut run's note is printed" grep -q "Notes on the campaign .*\[b\]: metrics.csv (the server metrics) is not used: its busy samples span" "$tmp/camp.txt"

edit tail 'body = body[:-20]'
"$BIN" "$tmp/tail" --fail-on 'preemptions<=100' > /dev/null 2> "$tmp/tail.err"; rc=$?
check "last 20 s cut: a lower bound does not pass <= 100 (got $rc)" [ "$rc" -eq 1 ]
check "last 20 s cut: unknown, and why" grep -q "UNKNOWN preemptions<=100: .*ended before the load did: [0-9]* counted while it sampled" "$tmp/tail.err"
check "last 20 s cut: the note says counts are lower bounds" grep -q "its last sample (.* UTC) still shows [0-9]* requests running or waiting: the capture ended before the load did, so counts from it (such as preemptions) are lower bounds" "$tmp/tail.err"
check "last 20 s cut: summary flags the lower bound" [ "$(jget "$tmp/tail/report/summary.json" preemptions.count_is_lower_bound)" = True ]
check "last 20 s cut: the front card says 'at least'" bash -c "pdftotext '$tmp/tail/report/report.pdf' - | tr -s ' \n' '  ' | grep -q 'at least [0-9]* (the capture missed part of the run)'"
pdftotext "$tmp/tail/report/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/tail.txt"
check "last 20 s cut: the loop finding says 'at least 37 times'" grep -q "preempted at least 37 times" "$tmp/tail.txt"
check "last 20 s cut: no sentence states 37 as the count" bash -c "! grep -q 'preempted 37 times' '$tmp/tail.txt'"
check "last 20 s cut: the residency table reads '≥ 37'" grep -q "preemptions in the window ≥ 37" "$tmp/tail.txt"
check "last 20 s cut: no 'invisible at p99' share from a lower bound" bash -c "! grep -q 'invisible at p99' '$tmp/tail.txt'"
check "whole capture: 'invisible at p99' still fires" bash -c "pdftotext '$tmp/gaps/report/report.pdf' - | tr -s ' \n' '  ' | grep -q 'Preemptions are invisible at p99: 37 preemptions'"
rm -rf "$tmp/tail/report"
"$BIN" "$tmp/tail" --fail-on 'preemptions>=1' > /dev/null 2>&1
check "last 20 s cut: a lower bound settles >= 1" [ $? -eq 0 ]
check "whole capture: not a lower bound" [ "$(jget "$tmp/gaps/report/summary.json" preemptions.count_is_lower_bound)" = False ]

# running above the bench's concurrency (fourteenth breaker: one sample of 90 running at
# C = 64 became the headline's "peak 90"): one sample is left out with a note; ten
# samples are other load, and the series is set aside
edit run90 'k = head.index("vllm:num_requests_running"); body[150][k] = "90"'
"$BIN" "$tmp/run90" > /dev/null 2> "$tmp/run90.err"
check "one sample of 90 running at C = 64: said" grep -q "the metrics series: 1 of its [0-9]* samples (the first at .* UTC) show up to 90 requests running, more than the bench's 64 concurrent requests" "$tmp/run90.err"
check "one sample of 90 running: the peak is the truth's, not 90" [ "$(jget "$tmp/run90/report/summary.json" residency.running_peak)" = "$(jget "$tmp/r1/run.json" simulator.peak_running)" ]
edit run90x10 'k = head.index("vllm:num_requests_running")
for i in range(150, 160): body[i][k] = "90"'
"$BIN" "$tmp/run90x10" > /dev/null 2> "$tmp/run90x10.err"
check "ten samples of 90 running: the series is set aside as other load" grep -q "10 of its [0-9]* samples (the first at .* UTC) show up to 90 requests running" "$tmp/run90x10.err"

# a failed scrape right after the load (sixteenth breaker: the window ended on it and read
# every counter a second early: "0 agree, 3 disagree"): the window passes over it
edit tailgap 'run = head.index("vllm:num_requests_running"); wt = head.index("vllm:num_requests_waiting")
last = max(i for i, r in enumerate(body) if float(r[run] or 0) + float(r[wt] or 0) > 0)
body[last + 1] = [body[last + 1][0]] + [""] * (len(head) - 1)
open(sys.argv[1] + ".gap", "w").write(body[last + 2][0])'
"$BIN" "$tmp/tailgap" > /dev/null 2>&1
check "failed scrape after the load: no counter disagrees" [ "$(jget "$tmp/tailgap/report/summary.json" ledger.n_disagree)" = 0 ]
check "failed scrape after the load: the window ends on the next answered sample" near "$(jget "$tmp/tailgap/report/summary.json" ledger.window_end_unix_s)" "$(cat "$tmp/tailgap/metrics.csv.gap")" 0
# one counter dipping to 0 for two samples and coming back (sixteenth breaker: a restart "of
# most counters", the delta 17 + 40 = 57, the series set aside as another client's): the dip is
# left out, no restart, and the ledger agrees
edit dip 'k = head.index("vllm:request_success_total")
body[300][k] = body[301][k] = "0"'
"$BIN" "$tmp/dip" > /dev/null 2> "$tmp/dip.err"
check "a dip of one counter: not a restart, said as a dip" bash -c "! grep -q 'shows [0-9]* server restart' '$tmp/dip.err' && grep -q 'vllm:request_success_total dips once .* the samples of the dip are left out' '$tmp/dip.err'"
check "a dip of one counter: the ledger agrees (128 successful requests)" [ "$(jget "$tmp/dip/report/summary.json" ledger.rows.series=vllm:request_success_total.agrees)/$(jget "$tmp/dip/report/summary.json" ledger.n_disagree)" = True/0 ]

# a restart at 300 s that lost 40 s of counts (every counter from row 300 on
# less its value at row 340): the counters disagree with the client, and the
# finding names the restart first (twenty-second breaker: page 1 offered only
# a wrong window or another client)
edit lost 'cnt = [i for i, n in enumerate(head) if n.endswith(("_total", "_count", "_sum"))]
base = {i: float(body[340][i]) for i in cnt if body[340][i]}
for k in range(300, len(body)):
    for i in cnt:
        if body[k][i] and i in base: body[k][i] = repr(max(0.0, float(body[k][i]) - base[i]))'
"$BIN" "$tmp/lost" > /dev/null 2>&1
check "a restart that lost counts: 1 restart, the ledger disagrees, the finding names the restart" bash -c "
  [ \"\$(python3 -c \"import json; d=json.load(open('$tmp/lost/report/summary.json')); print(d['preemptions']['server_restarts'], d['ledger']['n_disagree'] > 0, [f['id'] for f in d['findings']].count('ledger_disagrees_restart'))\")\" = '1 True 1' ] &&
  pdftotext '$tmp/lost/report/report.pdf' - | tr '\n' ' ' | grep -q 'The server restarted 1 time(s) inside the window'"
# the same dip of the preemption counter (20 -> 0 -> 20 at 300 s; twenty-second
# breaker: the count was left out as "suspect"): left out as a dip, and the
# count stays round 1's 37
edit pdip 'k = head.index("vllm:num_preemptions_total")
body[300][k] = "0"'
"$BIN" "$tmp/pdip" > /dev/null 2> "$tmp/pdip.err"
check "a dip of the preemption counter: said as a dip, the count kept (37)" bash -c "
  grep -q 'vllm:num_preemptions_total dips once' '$tmp/pdip.err' && [ \"\$(python3 -c \"import json; print(json.load(open('$tmp/pdip/report/summary.json'))['preemptions']['n_preemptions'])\")\" = 37 ]"

"$BIN" simulate "$SRC/fixtures/configs/small-1024-256.json" -o "$tmp/s" > /dev/null || bad "simulate small"
mkdir -p "$tmp/mix"; cp "$tmp/s/stress.json" "$tmp/mix/"
"$PY" - "$tmp/r1/metrics.csv" "$tmp/mix/metrics.csv" <<'PYEOF'
import sys
L = open(sys.argv[1]).read().split("\n")
open(sys.argv[2], "w").write("\n".join([L[0]] + ["%.3f,%s" % (float(l.split(",", 1)[0]) - 3 * 3600, l.split(",", 1)[1]) for l in L[1:] if l]) + "\n")
PYEOF
"$BIN" "$tmp/mix" --fail-on 'preemptions==0' > /dev/null 2> "$tmp/mix.err"
check "another run's 594 s busy period beside a 23.9 s bench: set aside" \
  grep -q "its busy period lasts 59[0-9] s (.*), the bench run 23.9 s: it holds more load than this run" "$tmp/mix.err"
check "another run's metrics: preemptions unknown, not 37" grep -q "UNKNOWN preemptions==0" "$tmp/mix.err"

# a KV usage column that switches from percent to fraction mid-run (thirteenth
# breaker: read as percent by its median, the fraction rows became 0.78% with 60
# requests running and the KV median printed 35.64% against a true 78.86%): rows
# below one 16-token block per running request are counted here from the CSV and
# the column is withheld
cp -r "$tmp/s" "$tmp/unit"; rm -rf "$tmp/unit/report"
"$PY" - "$tmp/unit/metrics.csv" "$tmp/unit/run.json" > "$tmp/unit.expect" <<'PYEOF'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
h, body = rows[0], rows[1:]
kv, run = h.index("vllm:kv_cache_usage_perc"), h.index("vllm:num_requests_running")
busy = [i for i, r in enumerate(body) if float(r[kv]) > 0]
switch = busy[len(busy) * 3 // 5]        # percent before, fraction from here on
for i in busy:
    if i < switch:
        body[i][kv] = repr(float(body[i][kv]) * 100)
csv.writer(open(sys.argv[1], "w", newline="")).writerows([h] + body)
pool = json.load(open(sys.argv[2]))["kv_pool_tokens"]
# the column reads as percent (median of positive cells > 1), so a fraction cell f is f/100 of the pool
low = [i for i in busy if i >= switch and float(body[i][run]) >= 1 and float(body[i][kv]) / 100 < float(body[i][run]) * 16 / pool]
print(len(low))
PYEOF
"$BIN" "$tmp/unit" -o "$tmp/unit-out" > /dev/null 2> "$tmp/unit.err"
check "percent then fraction: at least 2 rows below the running requests' blocks" [ "$(cat "$tmp/unit.expect")" -ge 2 ]
check "percent then fraction: the column is withheld, with the count of rows" \
  grep -q "metrics column 'vllm:kv_cache_usage_perc': at $(cat "$tmp/unit.expect") samples .* the column most likely mixes percent and fraction values" "$tmp/unit.err"
check "percent then fraction: KV median unknown, not a number" [ "$(jget "$tmp/unit-out/summary.json" residency.kv_usage_median_frac)" = null ]
"$BIN" "$tmp/s" -o "$tmp/s-out" > /dev/null 2> "$tmp/s.err"
check "unedited small run: KV median known, nothing withheld" bash -c "[ \"\$(grep -c 'mixes percent' '$tmp/s.err')\" = 0 ] && grep -q '\"kv_usage_median_frac\": 0\\.[0-9]' '$tmp/s-out/summary.json'"

mkdir -p "$tmp/fail"; cp "$tmp/s/stress.json" "$tmp/s/metrics.csv" "$tmp/fail/"
"$PY" - "$tmp/fail/stress.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); n = len(d["ttfts"])
d["errors"] = ["Connection refused"] * n; d["completed"] = 0; d["failed"] = n
json.dump(d, open(sys.argv[1], "w"))
PYEOF
"$BIN" "$tmp/fail" > /dev/null 2> "$tmp/fail.err"
check "every request failed beside a busy series: set aside" \
  grep -q "the bench completed no request, yet the series shows up to [0-9]* requests running or waiting" "$tmp/fail.err"
check "every request failed: no residency from another client's load" [ "$(jget "$tmp/fail/report/summary.json" residency.available)" = False ]

run="$REAL/runs/glm52-mtp3-c4-r2"
if [ -d "$run" ]; then
  cp -r "$run" "$tmp/pair"; rm -rf "$tmp/pair/report"
  sed -i 's/^vllm:num_requests_running{engine="0",model_name="glm52-w4a16-tiered"} 0.0/vllm:num_requests_running{engine="0",model_name="glm52-w4a16-tiered"} 2.0/' "$tmp/pair/metrics-after.prom"
  "$BIN" "$tmp/pair" -o "$tmp/pair-out" > /dev/null 2> "$tmp/pair.err"
  check "a pair whose after still shows 2 running: both files set aside" \
    grep -q 'metrics-before.prom and metrics-after.prom (the server metrics) are not used: the "after" snapshot still shows 2 requests running or waiting' "$tmp/pair.err"
  "$BIN" "$tmp/pair" -o "$tmp/pair-zh" --lang zh > /dev/null 2>&1
  pdftotext "$tmp/pair-zh/report.pdf" - | tr -d '\n' > "$tmp/pair-zh.txt"
  check "zh: the two files joined by 和, no English 'and' left" \
    sh -c "grep -qF 'metrics-before.prom 和 metrics-after.prom' '$tmp/pair-zh.txt' && ! grep -qF '.prom and ' '$tmp/pair-zh.txt'"
  # a pair whose "after" is a copy of its "before" (a helper's report: every
  # delta 0 while the client completed 16 requests gave "0 preemptions during
  # the run" and passed preemptions==0)
  mkdir -p "$tmp/still"; cp "$run/stress.json" "$run/server.log" "$run/metrics-before.prom" "$tmp/still/"
  cp "$run/metrics-before.prom" "$tmp/still/metrics-after.prom"
  "$BIN" "$tmp/still" -o "$tmp/still-out" --fail-on 'preemptions==0' > /dev/null 2> "$tmp/still.err"; rc=$?
  check "a pair whose counters stand still: set aside, said (rc $rc)" \
    grep -q "its counters did not move between the two snapshots (vllm:request_success_total, vllm:generation_tokens_total: +0) while the bench completed 16 requests" "$tmp/still.err"
  check "a pair whose counters stand still: preemptions unknown, the gate fails" [ "$rc" -eq 1 ]
  # a pair whose "after" preemption counter is NaN (eighteenth breaker: the
  # count vanished under "a pair gives the count only"): said, count null
  mkdir -p "$tmp/pnan"; cp "$run/stress.json" "$run/server.log" "$run/metrics-before.prom" "$run/metrics-after.prom" "$tmp/pnan/"
  sed -i 's/^\(vllm:num_preemptions_total{[^}]*}\) .*/\1 NaN/' "$tmp/pnan/metrics-after.prom"
  "$BIN" "$tmp/pnan" -o "$tmp/pnan-out" -q 2> /dev/null
  check "a pair with a NaN preemption counter: the count is null" [ "$(jget "$tmp/pnan-out/summary.json" preemptions.n_preemptions)" = null ]
  check "a pair with a NaN preemption counter: said why" grep -qF "not even the preemption count is known" "$tmp/pnan-out/summary.json"
  # a metrics/ folder: two timestamped snapshots and one whose name holds no
  # time (it was read as a sample 0 s from the others: "no activity")
  mkdir -p "$tmp/snaps/metrics"; cp "$run/stress.json" "$run/server.log" "$tmp/snaps/"
  cp "$run/metrics-before.prom" "$tmp/snaps/metrics/1793275200.prom"
  cp "$run/metrics-after.prom" "$tmp/snaps/metrics/1793275260.prom"
  cp "$run/metrics-after.prom" "$tmp/snaps/metrics/notatime.prom"
  "$BIN" "$tmp/snaps" -o "$tmp/snaps-out" > /dev/null 2> "$tmp/snaps.err"
  check "metrics/ folder: a snapshot without a time in its name is left out, said" \
    grep -qF "notatime.prom: its name holds no epoch time (expected e.g. 1793275200.prom)" "$tmp/snaps.err"
  check "metrics/ folder: the input list holds the two timestamped snapshots only" \
    sh -c "pdftotext '$tmp/snaps-out/report.pdf' - | grep -c 'metrics snapshot' | grep -qx 2"
  # snapshots named in milliseconds (date +%s%3N; fourteenth breaker: read as seconds,
  # the year 58010, and set aside as another run's): named 30 s before and 5 s after the
  # bench's end (its "date" 20260801-035708 read as UTC: 1785556628 s), in s and in ms,
  # the two folders give the same counter window
  for u in s ms; do
    mkdir -p "$tmp/t$u/metrics"; cp "$run/stress.json" "$run/server.log" "$tmp/t$u/"
    k=1; [ "$u" = ms ] && k=1000
    cp "$run/metrics-before.prom" "$tmp/t$u/metrics/$(( (1785556628 - 30) * k )).prom"
    cp "$run/metrics-after.prom" "$tmp/t$u/metrics/$(( (1785556628 + 5) * k )).prom"
    "$BIN" "$tmp/t$u" -o "$tmp/t$u-out" > /dev/null 2> "$tmp/t$u.err"
  done
  check "metrics/ folder named in s: used" bash -c "! grep -q 'not used' '$tmp/ts.err'"
  check "metrics/ folder named in ms: used" bash -c "! grep -q 'not used' '$tmp/tms.err'"
  check "metrics/ folder named in ms: the counter window starts at 1785556598 s, as named in s" \
    [ "$(jget "$tmp/tms-out/summary.json" ledger.window_start_unix_s)" = "$(jget "$tmp/ts-out/summary.json" ledger.window_start_unix_s)" ]
  check "metrics/ folder named in s: the window start is the first name" near "$(jget "$tmp/ts-out/summary.json" ledger.window_start_unix_s)" 1785556598 0
  "$BIN" "$run" -o "$tmp/pair-real" --fail-on 'preemptions==0' > /dev/null 2>&1
  check "the real pair (both idle) is kept: gate passes on its count" [ $? -eq 0 ]
fi
# a preemption counter that is not a count: 1e300, or half preemptions (it
# once printed a 301-digit integer, or rounded 0.5 to 0)
for v in 1e300 0.5 -3; do
  # 1e300 from sample 300 on; 0.5 added to every sample from 300 on (still
  # rising); -3 in the first sample alone, so it rises from there (a helper's report: it read as an event
  # of 3 preemptions releasing -10,304 tokens, and 0 preemptions in all)
  edit "bad$v" "c = head.index('vllm:num_preemptions_total'); body = [r[:c] + [('$v' if '$v' == '1e300' else repr(float(r[c]) + 0.5) if '$v' == '0.5' else '$v') if (i >= 300 if '$v' != '-3' else i == 0) and r[c] != '' else r[c]] + r[c + 1:] for i, r in enumerate(body)]"
  "$BIN" "$tmp/bad$v" --fail-on 'preemptions<=1000' > /dev/null 2> "$tmp/bad$v.err"; rc=$?
  check "preemption counter at $v: the count is left out, said (rc $rc)" \
    grep -q "vllm:num_preemptions_total holds .*: \(not a whole number of preemptions\|beyond any count a server reaches\|a counter never goes below 0\)" "$tmp/bad$v.err"
  check "preemption counter at $v: the gate's term unknown" grep -q "UNKNOWN preemptions<=1000" "$tmp/bad$v.err"
  check "preemption counter at $v: summary count null" [ "$(jget "$tmp/bad$v/report/summary.json" preemptions.n_preemptions)" = null ]
done
# (second review) the 1 req/s sweep point idles between its own requests: its
# busy periods all fit in the bench's 199 s and are kept whole (the ledger
# agrees, 4 of 4), and 3 preemptions added 20 s in fail preemptions==0
"$BIN" simulate "$SRC/fixtures/configs/sweep/rate-1.json" -o "$tmp/sr1" > /dev/null || bad "simulate rate-1"
"$BIN" "$tmp/sr1" > /dev/null 2> "$tmp/sr1.err"
check "rate 1: no busy period cut" bash -c "! grep -q 'busy periods' '$tmp/sr1.err'"
check "rate 1: ledger 4 agree, 0 disagree" [ "$(jget "$tmp/sr1/report/summary.json" ledger.n_agree),$(jget "$tmp/sr1/report/summary.json" ledger.n_disagree)" = "4,0" ]
rm -rf "$tmp/sr1p"; cp -r "$tmp/sr1" "$tmp/sr1p"; rm -rf "$tmp/sr1p/report"
"$PY" - "$tmp/sr1p/metrics.csv" <<'PYEOF'
import csv, sys
R = list(csv.reader(open(sys.argv[1]))); i = R[0].index("vllm:num_preemptions_total"); t0 = float(R[1][0])
for r in R[1:]:
    if float(r[0]) >= t0 + 20 and r[i] != "": r[i] = repr(float(r[i]) + 3)
csv.writer(open(sys.argv[1], "w", newline="")).writerows(R)
PYEOF
"$BIN" "$tmp/sr1p" --fail-on 'preemptions==0' > /dev/null 2> "$tmp/sr1p.err"
check "rate 1 + 3 preemptions: the gate fails, measured 3" grep -q "FAIL preemptions==0: measured 3" "$tmp/sr1p.err"
# the rate-4 point's metrics (58 s busy, idle at both ends) beside the rate-2 bench (100.7 s)
"$BIN" simulate "$SRC/fixtures/configs/sweep/rate-2.json" -o "$tmp/sr2" > /dev/null || bad "simulate rate-2"
"$BIN" simulate "$SRC/fixtures/configs/sweep/rate-4.json" -o "$tmp/sr4" > /dev/null || bad "simulate rate-4"
mkdir -p "$tmp/nb"; cp "$tmp/sr2/stress.json" "$tmp/sr2/server.log" "$tmp/nb/"
"$PY" - "$tmp/sr4/metrics.csv" "$tmp/nb/metrics.csv" <<'PYEOF'
import csv, sys
R = list(csv.reader(open(sys.argv[1])))
for r in R[1:]: r[0] = "%.3f" % (float(r[0]) + 130)
csv.writer(open(sys.argv[2], "w", newline="")).writerows(R)
PYEOF
"$BIN" "$tmp/nb" --fail-on 'preemptions==0' > /dev/null 2> "$tmp/nb.err"
check "a neighbouring sweep point's metrics: set aside as a shorter load" grep -q "idle before and after, but the bench ran 100.7 s: it records a shorter load than this run" "$tmp/nb.err"
check "a neighbouring sweep point's metrics: no preemptions credited" bash -c "! grep -q 'measured' '$tmp/nb.err'"
# a series frozen at its idle first row beside a bench of 128 requests
mkdir -p "$tmp/frozen"; cp "$tmp/s/stress.json" "$tmp/s/server.log" "$tmp/frozen/"
"$PY" - "$tmp/s/metrics.csv" "$tmp/frozen/metrics.csv" <<'PYEOF'
import csv, sys
R = list(csv.reader(open(sys.argv[1])))
csv.writer(open(sys.argv[2], "w", newline="")).writerows([R[0]] + [[r[0]] + R[1][1:] for r in R[1:]])
PYEOF
"$BIN" "$tmp/frozen" --fail-on 'preemptions==0' > /dev/null 2> "$tmp/frozen.err"; rc=$?
check "a frozen idle series beside 128 completed requests: set aside" grep -q "running + waiting is 0 at every one of its [0-9]* samples, yet the bench completed 128 requests" "$tmp/frozen.err"
check "a frozen idle series: the gate does not pass (rc $rc)" [ "$rc" -eq 1 ]
# scrapes that failed from just before the load's start (twenty-second
# breaker: a 14 s outage left one idle sample before it, read as "idle
# before", and the series was called another run's): rows 2-81 (80 s) blank,
# the first busy row of round 1 being row 3. The busy span left, 512 s, is
# under 90% of 593.9 s: set aside as a capture that lost the load's start
# (its last known sample, row 1, 81 s before the first busy one), not as a
# shorter load. With rows 2-21 blank (20 s) the series covers 96% and stays.
edit lost80 'body = [[r[0]] + [""] * (len(r) - 1) if 2 <= i <= 81 else r for i, r in enumerate(body)]'
"$BIN" "$tmp/lost80" -o "$tmp/lost80-out" -q 2> /dev/null
check "80 s of failed scrapes at the load's start: set aside as a capture that lost the start" \
	grep -qF "no scrape answered in the 81 s before its first busy sample, so the capture lost the load's start" "$tmp/lost80-out/summary.json"
check "... not called another run's shorter load" bash -c "! grep -q 'shorter load' '$tmp/lost80-out/summary.json'"
edit lost20 'body = [[r[0]] + [""] * (len(r) - 1) if 2 <= i <= 21 else r for i, r in enumerate(body)]'
"$BIN" "$tmp/lost20" -o "$tmp/lost20-out" -q 2> /dev/null
check "20 s of failed scrapes at the start: the series is kept (KV pool, residency read)" bash -c "
  ! grep -q 'is not used' '$tmp/lost20-out/summary.json' && [ \"\$(python3 -c \"import json; print(json.load(open('$tmp/lost20-out/summary.json'))['residency']['available'])\")\" = True ]"
# a metrics.csv cut off while being written (a full disk under record): its
# last line holds 32 of 192 cells and no newline; the rows before it stand
# (twenty-second breaker: the whole series was refused, exit 3). A short row
# inside the file is still an error naming its line.
mkdir -p "$tmp/cut"; cp "$tmp/r1/stress.json" "$tmp/r1/server.log" "$tmp/cut/"
"$PY" - "$tmp/r1/metrics.csv" "$tmp/cut/metrics.csv" <<'PYEOF'
import sys
d = open(sys.argv[1], "rb").read().rstrip(b"\n")
i = d.rfind(b"\n")
last = d[i + 1:]
open(sys.argv[2], "wb").write(d[:i + 1] + b",".join(last.split(b",")[:32]))
PYEOF
"$BIN" "$tmp/cut" -o "$tmp/cut-out" -q 2> "$tmp/cut.err"; rc=$?
check "a cut-off last line: exit 0 (got $rc), the line named and skipped" bash -c "
  [ $rc -eq 0 ] && grep -qF 'metrics.csv: its last line (line 608) holds 32 of the header' '$tmp/cut-out/summary.json'"
check "a cut-off last line: the series is used (preemptions 37, as the whole file)" [ "$(jget "$tmp/cut-out/summary.json" residency.preemptions)" = 37 ]
"$PY" - "$tmp/cut/metrics.csv" <<'PYEOF'
import sys
p = sys.argv[1]; L = open(p).read().split("\n")
L[100] = ",".join(L[100].split(",")[:32])
open(p, "w").write("\n".join(L) + "\n")
PYEOF
"$BIN" "$tmp/cut" -o "$tmp/cut-out2" -q 2> "$tmp/cut2.err"; rc=$?
check "a short row inside the file: bad input naming line 101 (exit $rc)" bash -c "[ $rc -eq 3 ] && grep -q 'metrics.csv:101:' '$tmp/cut2.err'"
# round 2's metrics.csv and server.log beside round 1's closed-loop bench
# (twenty-first breaker: no warning, round 2's pool of 120,064 tokens and its
# 36 preemptions reported as round 1's). Round 2's series is busy for 479 s
# (1 Hz samples, idle at both ends) and its log's lines for 470 s, against a
# closed loop of C = 64 that kept requests in the server for 593.9 s: both
# set aside. Genuine closed loops span 95.5-115% of their duration.
"$BIN" simulate "$SRC/fixtures/configs/round2.json" -o "$tmp/r2" > /dev/null || bad "simulate round 2"
mkdir -p "$tmp/mix"; cp "$tmp/r1/stress.json" "$tmp/mix/"; cp "$tmp/r2/metrics.csv" "$tmp/r2/server.log" "$tmp/mix/"
"$BIN" "$tmp/mix" -o "$tmp/mix-out" -q 2> "$tmp/mix.err"; rc=$?
check "round 2's files beside round 1's bench: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "mix: the metrics set aside as a shorter load than the closed loop" \
	grep -qF "metrics.csv (the server metrics) is not used: its busy samples span 479 s" "$tmp/mix-out/summary.json"
check "mix: the log set aside, its longest busy stretch 470 s" \
	grep -qF "server.log (the server log) is not used: its periodic lines (about every 10 s) show the server busy for at most 470 s" "$tmp/mix-out/summary.json"
check "mix: no KV pool reported (was round 2's 120,064)" [ "$(jget "$tmp/mix-out/summary.json" capacity.kv_pool_tokens)" = null ]
"$BIN" "$tmp/r1" -o "$tmp/r1-out" -q 2> /dev/null
check "round 1's own files: metrics and log used (KV pool 86,864)" [ "$(jget "$tmp/r1-out/summary.json" capacity.kv_pool_tokens)" = 86864 ] && \
	! grep -q "is not used" "$tmp/r1-out/summary.json"
finish
