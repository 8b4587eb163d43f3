#!/usr/bin/env bash
# The run report's chapters against what their inputs prove (twenty-eighth
# audit): speculative decoding's chunks are not tokens in the time budget;
# requests the client saw fail are in the server's histograms and counters
# but not in the client's means and totals; a closed loop of N < C prompts
# has at most N in flight; one request at a time has no other request's
# prefill to share a step with. Each case edits a simulated round 1; the
# truth is computed here with numpy from the files.
. "$(dirname "$0")/lib.bash"
C=$SRC/fixtures/configs
pdftext() { pdftotext "$1/report.pdf" - | tr -s ' \n\t' '   '; }
# restat.py PATH (tests/e2e/restat.py): the bench file's own statistics
# recomputed from its arrays, so that an edited file agrees with itself
restat() { "$PY" "$SRC/tests/e2e/restat.py" "$1"; }
"$BIN" simulate "$C/round1.json" -o "$tmp/r1" > /dev/null || bad "simulate round1"

# ---- speculative decoding: every 3 gaps of round 1 streamed as one chunk ----
cp -r "$tmp/r1" "$tmp/spec"
"$PY" - "$tmp/spec/stress.json" > "$tmp/spec.truth" <<'PYEOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["itls"] = [[sum(l[i:i + 3]) for i in range(0, len(l), 3)] for l in d["itls"]]
n = sum(len(l) for l in d["itls"])
acc = d["total_output_tokens"] - d["completed"] - n
d.update({"spec_decode_acceptance_rate": 100 * acc / (2 * n), "spec_decode_acceptance_length": 1 + acc / n,
          "spec_decode_num_drafts": n, "spec_decode_draft_tokens": 2 * n, "spec_decode_accepted_tokens": acc})
json.dump(d, open(p, "w"))
print(n)
PYEOF
restat "$tmp/spec/stress.json"
"$BIN" "$tmp/spec" -o "$tmp/spec-out" -q 2> /dev/null || bad "report spec"
pdftext "$tmp/spec-out" > "$tmp/spec.txt"
gaps=$(cat "$tmp/spec.truth")
check "spec: decode counted in the $gaps ITL gaps (numpy), below the run's length" "$PY" - "$tmp/spec-out/summary.json" "$gaps" <<'PYEOF'
import json, sys
b = json.load(open(sys.argv[1]))["budget"]
ok = b["decode_in_gaps"] and b["decode_steps"] == int(sys.argv[2]) and 0 < b["decode_frac"] < 1
sys.exit(0 if ok else 1)
PYEOF
check "spec: no 'decode estimate alone exceeds the run', the gaps are said" bash -c "
  ! grep -q 'The decode estimate alone' '$tmp/spec.txt' && grep -q 'Speculative decoding delivers several tokens per ITL gap' '$tmp/spec.txt'"
check "spec: the budget's formula counts ITL gaps, not Σ(out − 1); no finding puts the long gaps on prefill" bash -c "
  grep -q 'decode = Σ ITL gaps (speculative decoding' '$tmp/spec.txt' && ! grep -q 'decode = Σ(out − 1)' '$tmp/spec.txt' &&
  ! grep -qE 'Decode shares its steps with prefill|Some decode steps carry prefill' '$tmp/spec.txt'"

# compare without and with the merged chunks: the ITL rows compare steps, not
# tokens, and the note gives tokens per gap from the arrays (numpy) and TPOT
# (thirty-fifth audit: ITL p50 +102% read as a slowdown where TPOT fell)
"$BIN" compare "$tmp/r1" "$tmp/spec" -o "$tmp/spec-cmp" -q > /dev/null 2>&1 || bad "compare spec"
check "compare r1 → spec: tokens per ITL gap (numpy) named, ITL rows read as steps" "$PY" - \
  "$tmp/r1/stress.json" "$tmp/spec/stress.json" "$tmp/spec-cmp/report.pdf" <<'PYEOF'
import json, subprocess, sys
def tpg(p):
    d = json.load(open(p)); ok = [i for i, e in enumerate(d["errors"]) if not e]
    return (sum(d["output_lens"][i] for i in ok) - len(ok)) / sum(len(d["itls"][i]) for i in ok)
a, b = tpg(sys.argv[1]), tpg(sys.argv[2])
t = " ".join(subprocess.run(["pdftotext", sys.argv[3], "-"], capture_output=True, text=True).stdout.split())
want = "An ITL gap carries %.2f output tokens on average in A and %.2f in B" % (a, b)
print(want, file=sys.stderr)
sys.exit(0 if want in t and "the ITL rows compare decoding steps, not tokens" in t else 1)
PYEOF
# ---- two requests the client saw fail, which the server ran to the end ----
cp -r "$tmp/r1" "$tmp/fail"
"$PY" -c '
import json, sys
p = sys.argv[1]; d = json.load(open(p))
for i in (100, 101):
    d["errors"][i] = "aiohttp.client_exceptions.ClientPayloadError: Response payload is not completed"
    d["output_lens"][i] = 0; d["ttfts"][i] = 0.0; d["itls"][i] = []; d["latencies"][i] = 0.0; d["generated_texts"][i] = ""
json.dump(d, open(p, "w"))' "$tmp/fail/stress.json"
restat "$tmp/fail/stress.json"
"$BIN" "$tmp/fail" -o "$tmp/fail-out" -q 2> /dev/null || bad "report fail"
pdftext "$tmp/fail-out" > "$tmp/fail.txt"
hist=$("$PY" -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); c=[float(x["vllm:request_queue_time_seconds_count"]) for x in r]; print("%d" % (max(c)-min(c)))' "$tmp/fail/metrics.csv")
check "fail: the server's histograms timed $hist requests, the client completed 126 (numpy)" [ "$hist" = 128 ]
check "fail: no TTFT split over two populations, said why" bash -c "
  [ \"\$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"ttft_split\"][\"available\"])' '$tmp/fail-out/summary.json')\" = False ] &&
  grep -q 'timed requests the client saw fail' '$tmp/fail.txt'"
check "fail: the ledger reads the server's extra counts as '≥', no DISAGREES" bash -c "
  ! grep -q 'DISAGREES' '$tmp/fail.txt' && grep -q 'The client counted 2 requests as failed' '$tmp/fail.txt' &&
  [ \"\$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"ledger\"][\"n_disagree\"])' '$tmp/fail-out/summary.json')\" = 0 ]"

# Little's law over the requests the server ran: λ = 128 / duration, not the
# client's 126 (thirty-fourth breaker: "the capture missed part of the load"
# when the capture was whole, and W from a λ that left the two out)
check "fail: λ = the server's 128 / duration (numpy count), measured times kept, no 'capture missed'" "$PY" - \
  "$tmp/fail-out/summary.json" "$tmp/fail/stress.json" "$hist" "$tmp/fail.txt" <<'PYEOF'
import json, sys
l = json.load(open(sys.argv[1]))["littles_law"]; d = json.load(open(sys.argv[2])); n = float(sys.argv[3])
lam = n / d["duration"]
ok = l["lambda_from_server"] and abs(l["lambda_rps"] - lam) <= 1e-9 * lam and l["measured_resident_s"] is not None
ok = ok and "because the capture missed part of the load" not in open(sys.argv[4]).read()
sys.exit(0 if ok else 1)
PYEOF
# ---- the metrics capture ends 20 s before the load: one of 32 requests not timed ----
# (thirty-fourth breaker: a tolerance of max(1, 2%) let 31 against 32 through, and the
# frontend residual of the TTFT split came out 3.7x too large)
"$PY" - "$SRC/fixtures/configs/small-1024-256.json" "$tmp/tiny32.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["gpu"]["kv_pool_tokens"] = 2048; d["scheduler"]["max_model_len"] = 2048
d["workload"].update(num_prompts=32, input_len=1024, output_len=512, max_concurrency=8)
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$BIN" simulate "$tmp/tiny32.json" -o "$tmp/t32" > /dev/null || bad "simulate t32"
cut=$("$PY" - "$tmp/t32" <<'PYEOF'
import csv, json, sys
d = sys.argv[1]; rows = list(csv.reader(open(d + "/metrics.csv")))
end = json.load(open(d + "/run.json"))["simulator"]["run_end_epoch_s"]
keep = [rows[0]] + [r for r in rows[1:] if float(r[0]) <= end - 20]
csv.writer(open(d + "/metrics.csv", "w", newline=""), lineterminator="\n").writerows(keep)
c = [float(r[rows[0].index("vllm:request_queue_time_seconds_count")]) for r in keep[1:]]
print("%d" % (max(c) - min(c)))
PYEOF
)
"$BIN" "$tmp/t32" -o "$tmp/t32-out" -q > /dev/null 2>&1 || bad "report t32"
check "tail cut: no 'idle sample on each side' (the series ends while requests were in)" bash -c "
  t=\$(pdftotext '$tmp/t32-out/report.pdf' - | tr -s ' \n' '  ')
  ! grep -q 'the idle sample on each side' <<< \"\$t\" && grep -q 'so the window is the part it saw, not the whole run' <<< \"\$t\""
check "tail cut: the histograms timed $cut of 32 (numpy), so no TTFT split" "$PY" -c "
import json, sys; t = json.load(open(sys.argv[1]))['ttft_split']
sys.exit(0 if int(sys.argv[2]) == 31 and not t['available'] and t['population_differs'] else 1)" "$tmp/t32-out/summary.json" "$cut"
# ---- a closed loop of 40 prompts at C = 64, no waiting column ----
"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); c["workload"]["num_prompts"]=40; json.dump(c,open(sys.argv[2],"w"))' "$C/round1.json" "$tmp/n40.json"
"$BIN" simulate "$tmp/n40.json" -o "$tmp/n40" > /dev/null || bad "simulate n40"
"$PY" - "$tmp/n40/metrics.csv" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [i for i, h in enumerate(rows[0]) if "num_requests_waiting" not in h]
csv.writer(open(sys.argv[1], "w", newline=""), lineterminator="\n").writerows([[r[i] for i in keep] for r in rows])
PYEOF
"$BIN" "$tmp/n40" -o "$tmp/n40-out" -q 2> /dev/null || bad "report n40"
check "N = 40 < C = 64: queue length = min(C, N) − mean running (from the summary's own mean running)" "$PY" - "$tmp/n40-out/summary.json" <<'PYEOF'
import json, sys
l = json.load(open(sys.argv[1]))["littles_law"]
ok = l["queue_length_source"].startswith("min(C, N) − mean running, at most") and abs(l["queue_length"] - (40 - l["running_mean"])) < 1e-6
sys.exit(0 if ok else 1)
PYEOF

# ---- one request at a time, five 0.1 s stalls in each stream ----
"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); c["workload"]["max_concurrency"]=1; c["workload"]["num_prompts"]=8; json.dump(c,open(sys.argv[2],"w"))' "$C/round1.json" "$tmp/c1.json"
"$BIN" simulate "$tmp/c1.json" -o "$tmp/c1" > /dev/null || bad "simulate c1"
"$PY" -c '
import json, sys
p = sys.argv[1]; d = json.load(open(p)); shift = 0.0
for i in range(len(d["itls"])):
    d["start_times"][i] += shift; l = d["itls"][i]; add = 0.0
    for j in range(100, len(l), 200):
        l[j] += 0.1; add += 0.1
    d["latencies"][i] += add; shift += add
d["duration"] += shift
json.dump(d, open(p, "w"))' "$tmp/c1/stress.json"
restat "$tmp/c1/stress.json"
"$BIN" "$tmp/c1" -o "$tmp/c1-out" -q 2> /dev/null || bad "report c1"
pdftext "$tmp/c1-out" > "$tmp/c1.txt"
check "C = 1: the excess decode is the stream's own gaps, not 'the prefill chunks of other requests'" bash -c "
  grep -q 'With one request at a time no other request shared its steps' '$tmp/c1.txt' &&
  ! grep -q 'time taken by the prefill chunks of other requests' '$tmp/c1.txt'"

# ---- the spacing of preemptions is between sampled events ----
"$BIN" "$tmp/r1" -o "$tmp/r1-out" -q 2> /dev/null || bad "report r1"
check "round 1: 'the sampled events ... s apart', not preemptions" bash -c "
  pdftotext '$tmp/r1-out/report.pdf' - | tr -s ' \n' '  ' | grep -q 'the sampled events [0-9.]* s apart on average from the first to the last'"
# ---- a label set that changes mid-capture (every series gains engine="0"
# 200 s in: `benchreport sample` writes the new series to
# metrics.new-series.csv): the running series is the same, so residency is
# the unsplit run's (twenty-ninth breaker: the whole series set aside) ----
cp -r "$tmp/r1" "$tmp/rl-base"; rm -rf "$tmp/rl-base/report"
"$PY" - "$tmp/rl-base/metrics.csv" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
rows[0].append("benchreport:scrape_ok")
for r in rows[1:]:
    r.append("1")
csv.writer(open(sys.argv[1], "w", newline=""), lineterminator="\n").writerows(rows)
PYEOF
cp -r "$tmp/rl-base" "$tmp/rl"
"$PY" - "$tmp/rl/metrics.csv" "$tmp/rl/metrics.new-series.csv" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]
cut = float(rows[1][0]) + 200
side = [["timestamp", "series", "value"]]
for c in ("vllm:num_requests_running", "vllm:num_requests_waiting"):
    j = h.index(c)
    for r in rows[1:]:
        if float(r[0]) >= cut and r[j] != "":
            side.append([r[0], c + '{engine="0"}', r[j]])
            r[j] = ""
csv.writer(open(sys.argv[1], "w", newline=""), lineterminator="\n").writerows(rows)
csv.writer(open(sys.argv[2], "w", newline=""), lineterminator="\n").writerows(side)
PYEOF
"$BIN" "$tmp/rl-base" -o "$tmp/rl-base-out" -q 2> /dev/null || bad "report rl-base"
"$BIN" "$tmp/rl" -o "$tmp/rl-out" -q 2> /dev/null || bad "report rl"
check "relabelled mid-capture: residency equals the unsplit run's ($(jget "$tmp/rl-base-out/summary.json" residency.running_mean))" bash -c "
  [ '$(jget "$tmp/rl-out/summary.json" residency.running_mean)' = '$(jget "$tmp/rl-base-out/summary.json" residency.running_mean)' ] &&
  [ '$(jget "$tmp/rl-out/summary.json" residency.waiting_mean)' = '$(jget "$tmp/rl-base-out/summary.json" residency.waiting_mean)' ] &&
  [ '$(jget "$tmp/rl-out/summary.json" residency.available)' = True ]"
# ---- the server's /metrics stops answering 300 s into the run and never
# answers again, while the sampler goes on (scrape_ok 0, empty cells): not
# "the capture ended before the load did" (twenty-ninth breaker) ----
cp -r "$tmp/rl-base" "$tmp/dead"
"$PY" - "$tmp/dead/metrics.csv" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
ok = rows[0].index("benchreport:scrape_ok")
cut = float(rows[1][0]) + 300
for r in rows[1:]:
    if float(r[0]) >= cut:
        r[1:] = [""] * (len(r) - 1)
        r[ok] = "0"
csv.writer(open(sys.argv[1], "w", newline=""), lineterminator="\n").writerows(rows)
PYEOF
"$BIN" "$tmp/dead" -o "$tmp/dead-out" -q 2> /dev/null || bad "report dead"
pdftext "$tmp/dead-out" > "$tmp/dead.txt"
check "metrics silent from 300 s: said so, not 'the capture ended before the load did'" bash -c "
  grep -q 'stopped answering after its last busy sample and did not answer again' '$tmp/dead.txt' &&
  ! grep -q 'ended before the load did' '$tmp/dead.txt' && ! grep -q 'is from this run' '$tmp/dead.txt'"
# ---- a recorded run whose load command exited 7 after writing its result:
# said among the report's notes (twenty-ninth breaker: it read as a clean run) ----
cp -r "$SRC/fixtures/runs/tiny" "$tmp/exit7"; rm -rf "$tmp/exit7/report"
"$PY" -c 'import json,os,sys; p=sys.argv[1]; d=json.load(open(p)) if os.path.exists(p) else {}; d["record"]={"command":"vllm bench serve ...","exit_code":7,"interrupted":False}; json.dump(d,open(p,"w"))' "$tmp/exit7/run.json"
"$BIN" "$tmp/exit7" -o "$tmp/exit7-out" -q 2> /dev/null || bad "report exit7"
check "load command exit 7: said in the PDF and summary.json" bash -c "
  pdftotext '$tmp/exit7-out/report.pdf' - | tr -s ' \n' '  ' | grep -q 'the load command benchreport record ran exited with status 7' &&
  grep -q 'exited with status 7' '$tmp/exit7-out/summary.json'"
# --metric-percentiles advice: given for round 1's ITL gaps (10,000 or more,
# numpy count), withheld under 10,000, where p99.9 and p99.99 are among the
# few largest gaps (thirty-fifth audit: both the maximum of 255 gaps; the
# 563-gap tiny run is the truth case max-num-seqs-contradicted)
"$BIN" "$tmp/r1" -o "$tmp/r1-out" -q > /dev/null 2>&1 || bad "report r1"
gaps=$("$PY" -c "import json, sys; print(sum(len(x) for x in json.load(open(sys.argv[1]))['itls']))" "$tmp/r1/stress.json")
check "round 1 ($gaps gaps, numpy): the --metric-percentiles advice is given" bash -c "
  [ $gaps -ge 10000 ] && pdftotext '$tmp/r1-out/report.pdf' - | tr -s ' \n' '  ' | grep -q -- '--metric-percentiles'"
# ---- a server log from a later run: its server started 2 days after the bench ended ----
# (thirty-fifth audit: a log starting 16 h after the bench's end read as this run's)
for shift in 2d 10h; do
  cp -r "$tmp/r1" "$tmp/late-$shift"; rm -rf "$tmp/late-$shift/report" "$tmp/late-$shift/metrics.csv" "$tmp/late-$shift/run.json"
  "$PY" - "$tmp/late-$shift/stress.json" "$shift" <<'PYEOF'
import datetime, re, sys
p, shift = sys.argv[1], sys.argv[2]; t = open(p).read()
m = re.search(r'"date": "(\d{8}-\d{6})"', t)
d = datetime.datetime.strptime(m.group(1), "%Y%m%d-%H%M%S") - (datetime.timedelta(days=2) if shift == "2d" else datetime.timedelta(hours=10))
open(p, "w").write(t[:m.start(1)] + d.strftime("%Y%m%d-%H%M%S") + t[m.end(1):])
PYEOF
  "$BIN" "$tmp/late-$shift" -o "$tmp/late-$shift-out" -q > /dev/null 2>&1 || bad "report late-$shift"
done
check "bench ended 2 days before the log's server started: the log set aside, no KV pool from it" "$PY" -c "
import json, sys; s = json.load(open(sys.argv[1]))
w = [x for x in s['warnings'] if 'h after the bench run ended' in x and 'later server' in x]
sys.exit(0 if w and not s['capacity']['available'] else 1)" "$tmp/late-2d-out/summary.json"
check "10 h earlier (a time-zone gap): the log still read" "$PY" -c "
import json, sys; s = json.load(open(sys.argv[1]))
sys.exit(0 if s['capacity']['available'] and not any('later server' in x for x in s['warnings']) else 1)" "$tmp/late-10h-out/summary.json"
finish
