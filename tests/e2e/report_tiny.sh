#!/usr/bin/env bash
# The report command on the hand-made tiny run: every output is written,
# numbers in summary.json match the fixture (values from make_tiny.py's
# construction: 12 requests, 11,533 input and 575 output tokens, pool 5,120
# tokens, one preemption), and the PDF has pages, bookmarks and text.
. "$(dirname "$0")/lib.bash"
cp -r "$SRC/fixtures/runs/tiny" "$tmp/tiny"
rm -rf "$tmp/tiny/report"
"$BIN" "$tmp/tiny" > "$tmp/stdout" 2> "$tmp/stderr"; rc=$?
check "exit code 0 (got $rc)" [ "$rc" -eq 0 ]
out="$tmp/tiny/report"
for f in report.pdf summary.json tables/latency.csv tables/ledger.csv tables/inputs.csv \
         figures/figL-latency-cdf.png figures/figL-latency-cdf.svg figures/figL-latency-cdf.csv \
         figures/fig2-waveform.png figures/fig2-waveform.svg figures/fig2-waveform.csv; do
  check "writes $f" [ -s "$out/$f" ]
done
s="$out/summary.json"
check "schema_version 1" [ "$(jget "$s" schema_version)" = 1 ]
# figure paths relative to the report folder (an archive can move), each a file there
check "summary figures: paths relative to the report folder, files present" "$PY" -c "
import json, os, sys; d = os.path.dirname(sys.argv[1]); f = json.load(open(sys.argv[1]))['figures']
ok = len(f) >= 2 and all(x[k].startswith('figures/') and os.path.isfile(os.path.join(d, x[k])) for x in f for k in ('png', 'svg', 'csv'))
sys.exit(0 if ok else 1)" "$s"
check "completed 12" [ "$(jget "$s" bench.completed)" = 12 ]
check "total input tokens 11533" [ "$(jget "$s" bench.total_input_tokens)" = 11533 ]
check "KV pool 5120 tokens from the log" [ "$(jget "$s" capacity.kv_pool_tokens)" = 5120 ]
# demand = C*(in+out) = 4*(11533+575)/12 = 4036.0 tokens; oversubscription 4036/5120 = 0.78828125
check "demand 4036 tokens" near "$(jget "$s" capacity.demand_tokens)" 4036 1e-9
check "oversubscription 0.788" near "$(jget "$s" capacity.oversubscription)" 0.78828125 1e-9
check "ledger: no disagreement" [ "$(jget "$s" ledger.n_disagree)" = 0 ]
check "ledger: >= 4 rows agree" [ "$(jget "$s" ledger.n_agree)" -ge 4 ]
check "residency: 1 preemption" [ "$(jget "$s" residency.preemptions)" = 1 ]
check "latency recomputed from arrays" [ "$(jget "$s" latency.from_arrays)" = True ]
check "no latency mismatch" [ "$(jget "$s" latency.n_mismatches)" = 0 ]
check "one ITL stall (the 0.9 s gap)" [ "$(jget "$s" latency.itl_stalls)" = 1 ]
# the hand-made series has 4 running + 2 waiting in one sample under C = 4:
# more than the client can have in flight (C + 1 of slack), a caveat says so
check "residency: in_system_peak 6 (4 + 2 at t = 1793275200)" [ "$(jget "$s" residency.in_system_peak)" = 6.0 ]
check "stdout names the PDF" grep -q "report.pdf" "$tmp/stdout"
pages=$(pdfinfo "$out/report.pdf" 2>/dev/null | awk '/^Pages:/{print $2}')
check "PDF has >= 4 pages (got $pages)" [ "${pages:-0}" -ge 4 ]
pdftotext "$out/report.pdf" "$tmp/report.txt"
check "caveat: the server held more than the test sent" bash -c "tr '\\n' ' ' < '$tmp/report.txt' | grep -q 'up to 6 at once (running + waiting in one sample), while the client kept at most 4 requests in flight'"
check "PDF text holds the KV pool" grep -q "5,120" "$tmp/report.txt"
check "PDF text has page numbers" grep -q "page 1 of" "$tmp/report.txt"
check "PDF has bookmarks" grep -q -a "/Outlines" "$out/report.pdf"
# re-running replaces the previous report, leaves no temporaries
"$BIN" "$tmp/tiny" -q; rc=$?
check "second run exit 0" [ "$rc" -eq 0 ]
check "no temporary folders left" [ -z "$(ls "$tmp/tiny" | grep -E 'tmp|old')" ]
# a capture that missed the run's start (rows before 1793275201 cut: its first
# sample shows 4 running + 2 waiting) or its end (rows after 1793275204 cut:
# 3 running): said, with the count and the UTC time of that sample
for cut in "start:1793275201:1793275999:already shows 6 requests running or waiting: the capture began after the load had started" \
           "end:0:1793275204:still shows 3 requests running or waiting: the capture ended before the load did"; do
  IFS=: read -r which lo hi want <<< "$cut"
  rm -rf "$tmp/cut"; cp -r "$SRC/fixtures/runs/tiny" "$tmp/cut"; rm -rf "$tmp/cut/report"
  awk -F, -v lo="$lo" -v hi="$hi" 'NR == 1 || ($1 + 0 >= lo && $1 + 0 <= hi)' "$SRC/fixtures/runs/tiny/metrics.csv" > "$tmp/cut/metrics.csv"
  "$BIN" "$tmp/cut" > /dev/null 2> "$tmp/cut.err"
  check "metrics cut at the $which: said ($want)" grep -qF "$want" "$tmp/cut.err"
done
check "the whole capture: no such note" bash -c "! grep -q 'the capture began\|the capture ended' '$tmp/stderr'"
# a series that appeared after the sampler wrote the header (vLLM creates a
# labelled child at its first increment) lives in metrics.new-series.csv:
# tiny's "length" completions moved there from t = 1793275201 on (values
# minus the 5 before the run), the header keeping a "stop" column of 0. The
# ledger sums both: 12 successes = the client's 12 (without the side file:
# 0, a false disagreement)
rm -rf "$tmp/side"; cp -r "$SRC/fixtures/runs/tiny" "$tmp/side"; rm -rf "$tmp/side/report"
awk -F, -v OFS=, 'NR == 1 { sub(/finished_reason=""length""/, "finished_reason=\"\"stop\"\"") }
  NR > 1 { if ($8 - 5 > 0) side[++n] = $1 ",\"vllm:request_success_total{finished_reason=\"\"length\"\"}\"," ($8 - 5); $8 = 0 }
  { print }
  END { print "timestamp,series,value" > SIDE; for (i = 1; i <= n; i++) print side[i] > SIDE }' \
  SIDE="$tmp/side/metrics.new-series.csv" "$SRC/fixtures/runs/tiny/metrics.csv" > "$tmp/side/metrics.csv"
"$BIN" "$tmp/side" -o "$tmp/side-report" > /dev/null 2> "$tmp/side.err"; rc=$?
check "new-series side file: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "new-series side file: successes 12 = client's 12" [ "$(jget "$tmp/side-report/summary.json" ledger.n_disagree)" = 0 ]
check "new-series side file: a note names it" grep -qF "metrics.new-series.csv: 1 series that appeared after the header joined" "$tmp/side.err"
check "new-series side file: listed among the inputs" grep -qF "metrics.new-series.csv" "$tmp/side-report/summary.json"
mv "$tmp/side/metrics.new-series.csv" "$tmp/side.csv"
"$BIN" "$tmp/side" -o "$tmp/side-report2" -q > /dev/null 2>&1
check "without it: the ledger disagrees (what the side file fixes)" [ "$(jget "$tmp/side-report2/summary.json" ledger.n_disagree)" = 1 ]
printf 'timestamp,series,value\n1793275201.000,x_total,abc\n' > "$tmp/side/metrics.new-series.csv"
"$BIN" "$tmp/side" -o "$tmp/side-report3" > /dev/null 2> "$tmp/side3.err"; rc=$?
check "a bad side file: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "a bad side file: file:line:col named" grep -qF "metrics.new-series.csv:2:24: expected a number" "$tmp/side3.err"
# ITLs of 0 ms on the log axis of Figure L (twelfth breaker): the curve starts
# at their share, which the caption gives (numpy: the share of gaps <= 0)
mkdir -p "$tmp/zeros"
"$PY" - "$SRC/fixtures/runs/tiny/stress.json" "$tmp/zeros/stress.json" > "$tmp/zeros.share" <<'PYEOF'
import json, sys
import numpy as np
d = json.load(open(sys.argv[1]))
for gs in d["itls"]:
    for j in range(0, len(gs), 2):
        gs[j] = 0.0
for k in [k for k in d if k.endswith("_itl_ms") or k.endswith("_tpot_ms")]:
    del d[k]
json.dump(d, open(sys.argv[2], "w"))
a = np.array([g for gs in d["itls"] for g in gs])
print("%.1f" % (100 * (a <= 0).mean()))
PYEOF
"$BIN" "$tmp/zeros" -o "$tmp/zeros-rep" -q > /dev/null 2>&1
check "zero ITLs: Figure L's caption gives their share off the log axis ($(cat "$tmp/zeros.share")%)" bash -c \
  "pdftotext '$tmp/zeros-rep/report.pdf' - | tr -s ' \n' '  ' | grep -qF 'no place on a log axis (ITL $(cat "$tmp/zeros.share")% of the samples)'"
# a TTFT of 0 ms is a missing measurement, said with its count (twelfth breaker)
"$PY" - "$SRC/fixtures/runs/tiny/stress.json" "$tmp/zeros/stress.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for j in range(0, len(d["ttfts"]), 4):
    d["ttfts"][j] = 0.0
json.dump(d, open(sys.argv[2], "w"))
PYEOF
rm -rf "$tmp/zeros-rep2"
"$BIN" "$tmp/zeros" -o "$tmp/zeros-rep2" -q > /dev/null 2>&1
check "TTFT of 0: counted and called a missing measurement" bash -c \
  "[ \"\$(\"$PY\" -c \"import json,sys; print(json.load(open(sys.argv[1]))['latency']['n_ttft_zero_requests'])\" '$tmp/zeros-rep2/summary.json')\" = 3 ] && pdftotext '$tmp/zeros-rep2/report.pdf' - | tr -s ' \n' '  ' | grep -qF 'Successful requests with a TTFT of 0 ms or less: 3 of 12'"
# closed-loop caveats that match what the client did (thirteenth breaker: "keeps 64
# requests outstanding" with one prompt; "TTFT p50 (n/a) is the median of this batch"
# when every request failed; "Decode time stolen 0.0 s (-0.0%) more" for one request)
mkdir -p "$tmp/one" "$tmp/burst" "$tmp/allfail"
"$PY" - "$SRC/fixtures/runs/tiny/stress.json" "$tmp" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); out = sys.argv[2]
lists = [k for k, v in d.items() if isinstance(v, list)]
one = dict(d, completed=1, num_prompts=1)
for k in lists:
    one[k] = d[k][:1]
one["total_input_tokens"], one["total_output_tokens"] = sum(one["input_lens"]), sum(one["output_lens"])
json.dump(one, open(out + "/one/stress.json", "w"))
json.dump(dict(d, max_concurrency=64), open(out + "/burst/stress.json", "w"))
n = len(d["ttfts"])
fail = dict(d, completed=0, failed=n, errors=["Connection refused"] * n)
json.dump(fail, open(out + "/allfail/stress.json", "w"))
PYEOF
for c in one burst allfail; do
  "$BIN" "$tmp/$c" -o "$tmp/$c-rep" -q > /dev/null 2>&1
  pdftotext "$tmp/$c-rep/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/$c.txt"
done
check "one prompt: a lone request, not 'keeps 4 outstanding'" bash -c "grep -qF 'One prompt (num_prompts = 1, max_concurrency = 4 never came into play)' '$tmp/one.txt' && ! grep -qF 'keeps that many requests outstanding' '$tmp/one.txt'"
# the budget needs a metrics series: a simulated one-prompt run (its gaps all one step long)
"$PY" -c "import json,sys; c=json.load(open(sys.argv[1])); c['workload']['num_prompts']=1; json.dump(c,open(sys.argv[2],'w'))" \
  "$SRC/fixtures/configs/small-1024-256.json" "$tmp/one.json"
"$BIN" simulate "$tmp/one.json" -o "$tmp/one-sim" > /dev/null 2>&1
"$BIN" "$tmp/one-sim" -o "$tmp/one-sim-rep" -q > /dev/null 2>&1
pdftotext "$tmp/one-sim-rep/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/one-sim.txt"
stolen=$(jget "$tmp/one-sim-rep/summary.json" budget.decode_stolen_frac)
check "one simulated prompt: decode time stolen within 0.5% ($stolen)" "$PY" -c "import sys; sys.exit(0 if abs(float(sys.argv[1])) < 0.005 else 1)" "$stolen"
check "one simulated prompt: said as none, not '0.0 s more'" bash -c "grep -qF 'Decode time stolen: none.' '$tmp/one-sim.txt' && ! grep -qF 'more, time taken by the prefill' '$tmp/one-sim.txt'"
check "12 prompts under max_concurrency 64: a burst" grep -qF "Burst, not a sustained closed loop: 12 prompts, fewer than max_concurrency = 64" "$tmp/burst.txt"
check "every request failed: no TTFT of the batch, no 'TTFT p50 (n/a)'" bash -c "grep -qF 'no request succeeded, so there is no TTFT of this batch to read' '$tmp/allfail.txt' && ! grep -qF 'TTFT p50 (n/a)' '$tmp/allfail.txt'"
check "tiny (12 prompts, C = 4): the closed-loop caveat as before" bash -c "pdftotext '$tmp/zeros-rep2/report.pdf' - | tr -s ' \n' '  ' | grep -qF 'the client keeps that many requests outstanding and sends the next only when one ends, so TTFT p50'"
finish
