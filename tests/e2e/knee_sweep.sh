#!/usr/bin/env bash
# benchreport knee (issue 5): simulate the open-loop sweep of
# fixtures/configs/sweep/rate-{1,2,4,8,16,inf}.json, run `knee` with an SLO
# and check the knee against the simulator's own stress.json files (computed
# here independently with numpy), exit codes 0 / 1 / 2 / 3, and the real
# closed-loop `vllm bench sweep` output (labelled a concurrency sweep).
. "$(dirname "$0")/lib.bash"
for r in 1 2 4 8 16 inf; do
	"$BIN" simulate "$SRC/fixtures/configs/sweep/rate-$r.json" -o "$tmp/sweep/r$r" > /dev/null 2>&1 \
		|| bad "simulate rate-$r"
done
SLO='ttft_p99<=500ms,e2el_p99<=20s'
"$BIN" knee "$tmp/sweep" --slo "$SLO" -o "$tmp/k" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "knee exit 0 (got $rc)" [ "$rc" -eq 0 ]
s="$tmp/k/summary.json"
check "report.pdf written" [ -s "$tmp/k/report.pdf" ]
check "one curve" [ "$(jget "$s" n_groups)" = 1 ]
check "curve is a rate sweep" [ "$(jget "$s" groups.0.kind)" = rate ]
check "6 points" [ "$(jget "$s" groups.0.n_points)" = 6 ]
# a shell glob over the sweep folder also names the report just written
# inside it: skipped with a note, the same 6 points
"$BIN" knee "$tmp/sweep" --slo "$SLO" -o "$tmp/sweep/knee-report" > /dev/null 2>&1
"$BIN" knee "$tmp"/sweep/* --slo "$SLO" -o "$tmp/kg" > /dev/null 2> "$tmp/errg"; rc=$?
check "glob with the report folder: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "glob: the report folder skipped with a note" grep -q "knee-report is a report benchreport wrote, not a run; skipped" "$tmp/errg"
check "glob: 6 points" [ "$(jget "$tmp/kg/summary.json" groups.0.n_points)" = 6 ]
"$BIN" knee "$tmp/sweep/knee-report" "$tmp/sweep/knee-report" --slo "$SLO" -o "$tmp/kr" > /dev/null 2>&1; rc=$?
check "only report folders: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "inf point labelled inf" [ "$(jget "$s" groups.0.points.5.x_label)" = inf ]
# Runs of one workload from different server setups are different curves
# (brk18 H1): the r4 run again, its server restarted with max_num_seqs 8
# (the log's args line edited), and the r16 bench file alone (no log, no
# GPU: it states no setup, and with two setups in the folder it cannot
# join either: a third, "not stated", curve). A lone bench file beside one
# setup joins it (the real spec-decode pair below).
mkdir -p "$tmp/mix"
for r in 1 2 8; do cp -r "$tmp/sweep/r$r" "$tmp/mix/r$r"; done
cp -r "$tmp/sweep/r4" "$tmp/mix/r4-seqs8"
sed -i "s/'max_num_seqs': [0-9]*/'max_num_seqs': 8/" "$tmp/mix/r4-seqs8/server.log"
mkdir -p "$tmp/mix/r16-bare"; cp "$tmp/sweep/r16/stress.json" "$tmp/mix/r16-bare/"
"$BIN" knee "$tmp/mix" --slo "$SLO" -o "$tmp/kmix" -q; rc=$?
m="$tmp/kmix/summary.json"
check "mixed servers: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "mixed servers: 3 curves (got $(jget "$m" n_groups))" [ "$(jget "$m" n_groups)" = 3 ]
check "mixed servers: server 1 holds r1 r2 r8" [ "$(jget "$m" groups.0.n_points)" = 3 ]
check "mixed servers: server 2 holds the r4 run alone" [ "$(jget "$m" groups.1.n_points)" = 1 ] 
check "mixed servers: labels say server 2" grep -q "· server 2$" <(jget "$m" groups.1.label)
check "mixed servers: the note names only what differs" grep -qF '"server 2 (1 run): max_num_seqs=8."' "$m"
check "mixed servers: the bare run is 'not stated'" grep -qF '"server 3 (1 run): not stated' "$m"
# A failure between passes (brk18 H3): r1 and r2 meet ttft_p99<=500ms; a
# copy of r1 stated as 1.5 req/s, three of its requests' TTFT (and
# latency) raised by 1.8 s, fails it. The knee stays at 1 (below the first
# failure) and the report says the curve is not monotone, naming both
# rates. The truth: numpy p99 of each run's TTFT.
mkdir -p "$tmp/nm"
for r in 1 2; do cp -r "$tmp/sweep/r$r" "$tmp/nm/r$r"; done
mkdir -p "$tmp/nm/r1.5"; cp "$tmp/sweep/r1/stress.json" "$tmp/nm/r1.5/"
nm_truth=$("$PY" - "$tmp/nm" <<'PYEOF'
import json, sys, numpy as np
p = sys.argv[1] + "/r1.5/stress.json"; d = json.load(open(p))
d["request_rate"] = 1.5
for i in (3, 10, 20):
    d["ttfts"][i] += 1.8; d["latencies"][i] += 1.8
json.dump(d, open(p, "w"))
print(" ".join("%d" % (np.percentile(np.array(json.load(open(f"{sys.argv[1]}/r{r}/stress.json"))["ttfts"]) * 1000, 99) <= 500)
               for r in ("1", "1.5", "2")))
PYEOF
)
check "non-monotone truth: 1 meets, 1.5 fails, 2 meets (numpy: $nm_truth)" [ "$nm_truth" = "1 0 1" ]
"$BIN" knee "$tmp/nm" --slo 'ttft_p99<=500ms' -o "$tmp/knm" > "$tmp/nm.out"; rc=$?
check "non-monotone: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "non-monotone: knee 1, first failing 1.5" [ "$(jget "$tmp/knm/summary.json" groups.0.knee.x_label)/$(jget "$tmp/knm/summary.json" groups.0.first_failing.x_label)" = 1/1.5 ]
check "non-monotone: pass_after_fail 2" [ "$(jget "$tmp/knm/summary.json" groups.0.pass_after_fail.x_label)" = 2 ]
check "non-monotone: said in the PDF" grep -qF "The SLO holds again at 2 req/s above that first failure: the curve is not monotone, so the failure at 1.5 req/s" <(pdftotext "$tmp/knm/report.pdf" - | tr -s ' \n' '  ')
check "non-monotone: said on stdout" grep -qF "not monotone: the SLO holds again at 2 above" "$tmp/nm.out"
check "monotone sweep: no pass_after_fail" [ "$(jget "$s" groups.0.pass_after_fail)" = null ]
# A run too short for its rate (brk18 M2): 12 prompts at 16 req/s. Its
# arrivals last 0.75 s, under 5 mean E2ELs, and it completes under 95% of
# the rate its client sent: no drain tail can be read from so few arrivals,
# so keeping up is unknown (not "keeps up"). Truth from numpy on its file.
for r in 1 16; do
	"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); c["workload"]["num_prompts"]=12; c["name"]+="-short"; json.dump(c,open(sys.argv[2],"w"))' \
		"$SRC/fixtures/configs/sweep/rate-$r.json" "$tmp/short-$r.json"
	"$BIN" simulate "$tmp/short-$r.json" -o "$tmp/short/r$r" > /dev/null 2>&1 || bad "simulate short rate-$r"
done
short_truth=$("$PY" - "$tmp/short/r16/stress.json" <<'PYEOF'
import json, sys, numpy as np
d = json.load(open(sys.argv[1]))
st = np.array(d["start_times"]); w = np.mean(d["latencies"])
sent = (len(st) - 1) / (st.max() - st.min()); ach = d["completed"] / d["duration"]
print("%d %d" % (12 / 16 < 5 * w, ach < 0.95 * sent))
PYEOF
)
check "short run truth: too short, achieved < 95% of sent (numpy: $short_truth)" [ "$short_truth" = "1 1" ]
"$BIN" knee "$tmp/short" --slo 'ttft_p99<=5s' -o "$tmp/kshort" -q; rc=$?
ks="$tmp/kshort/summary.json"
check "short run: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "short run: 16 req/s keep-up unknown, for its length" [ "$(jget "$ks" groups.0.points.1.keep_up_unknown)/$(jget "$ks" groups.0.points.1.keep_up_short)/$(jget "$ks" groups.0.points.1.drain_tail)" = True/True/False ]
check "short run: not 'keeps up at every finite rate'" bash -c "! pdftotext '$tmp/kshort/report.pdf' - | tr -s ' \n' '  ' | grep -q 'keeps up at every finite rate'"
check "short run: said too short for its rate" grep -qF "and the run is too short for its rate" <(pdftotext "$tmp/kshort/report.pdf" - | tr -s ' \n' '  ')
# Little's law with a 1 s frontend (brk18 M4): the client's W holds 1 s per
# request outside the server's running + waiting, so (L − measured) / λ is
# about the simulator's frontend_delay_s (1.0 s, its config: the expected
# value, ±15% for the sampled series), and the report says what the gap is
for r in 1 2; do
	"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); c["workload"]["frontend_delay_s"]=1.0; c["workload"]["num_prompts"]=100; json.dump(c,open(sys.argv[2],"w"))' \
		"$SRC/fixtures/configs/sweep/rate-$r.json" "$tmp/fe-$r.json"
	"$BIN" simulate "$tmp/fe-$r.json" -o "$tmp/fe/r$r" > /dev/null 2>&1 || bad "simulate fe rate-$r"
done
"$BIN" knee "$tmp/fe" --slo 'ttft_p99<=5s' -o "$tmp/kfe" -q; rc=$?
kf="$tmp/kfe/summary.json"
check "frontend 1 s: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "frontend 1 s: outside-server time min in [0.85, 1.15] s (got $(jget "$kf" littles_law.outside_server_min_s))" near "$(jget "$kf" littles_law.outside_server_min_s)" 1.0 0.15
check "frontend 1 s: outside-server time max in [0.85, 1.15] s (got $(jget "$kf" littles_law.outside_server_max_s))" near "$(jget "$kf" littles_law.outside_server_max_s)" 1.0 0.15
check "frontend 1 s: the gap is said to be the frontend" grep -qF "L exceeds the server's count at every measured rate" <(pdftotext "$tmp/kfe/report.pdf" - | tr -s ' \n' '  ')
check "5 ms frontend: no such sentence" bash -c "! pdftotext '$tmp/k/report.pdf' - | tr -s ' \n' '  ' | grep -q \"L exceeds the server's count\""
# Truth from the simulated stress.json files: p99 (numpy linear) of TTFT and
# E2EL over successful requests; goodput = requests with ttft<=500 ms and
# latency<=20 s / duration; knee = last rate (ascending, inf last) meeting
# both while goodput rises; first failing = first rate missing.
"$PY" - "$tmp/sweep" > "$tmp/truth" <<'PYEOF'
import json, sys, numpy as np
rows = []
for r in ["1", "2", "4", "8", "16", "inf"]:
    d = json.load(open(f"{sys.argv[1]}/r{r}/stress.json"))
    ok = [e == "" for e in d["errors"]] if "errors" in d else [True] * len(d["ttfts"])
    t = np.array(d["ttfts"])[ok] * 1000; l = np.array(d["latencies"])[ok] * 1000
    meets = np.percentile(t, 99) <= 500 and np.percentile(l, 99) <= 20000
    good = np.sum((t <= 500) & (l <= 20000)) / d["duration"]
    rows.append((r, meets, good, d["completed"] / d["duration"]))
knee, prev, ff = "none", -1, "none"
for r, m, g, a in rows:
    if not m: break
    if g <= prev: break
    knee, prev = r, g
for r, m, g, a in rows:
    if not m: ff = r; break
print(knee, ff, rows[1][2], rows[2][3])
PYEOF
read -r tknee tff tgood2 tach4 < "$tmp/truth"
check "knee = $tknee (truth)" [ "$(jget "$s" groups.0.knee.x_label)" = "$tknee" ]
check "knee is 2 req/s for this config" [ "$tknee" = 2 ]
check "first failing = $tff (truth)" [ "$(jget "$s" groups.0.first_failing.x_label)" = "$tff" ]
check "goodput at 2 req/s = truth $tgood2" near "$(jget "$s" groups.0.points.1.goodput_rps)" "$tgood2" 1e-9
check "achieved at 4 req/s = truth $tach4" near "$(jget "$s" groups.0.points.2.achieved_rps)" "$tach4" 1e-9
check "cannot keep up from 4 req/s" [ "$(jget "$s" groups.0.first_cannot_keep_up.x_label)" = 4 ]
check "goodput exact (arrays)" [ "$(jget "$s" groups.0.points.0.goodput_exact)" = True ]
check "queue signal present" [ "$(jget "$s" groups.0.points.5.waiting_share_frac)" != null ]
check "figures written" [ -s "$tmp/k/figures/figK1-rate-throughput.png" ] && [ -s "$tmp/k/figures/figK2-rate-latency.csv" ]
# Little's law (issue: knee as the tutorial teaches it), truth from the
# stress.json files with numpy: L = completed/duration × mean latency; μ =
# median achieved rate of the top run of rates that cannot keep up (achieved <
# 0.95 × offered, or inf) within 5% of its largest; knee_rate = μ.
"$PY" - "$tmp/sweep" > "$tmp/ltruth" <<'PYEOF'
import json, sys, numpy as np
ach, sat, L = [], [], []
for r in ["1", "2", "4", "8", "16", "inf"]:
    d = json.load(open(f"{sys.argv[1]}/r{r}/stress.json"))
    ok = [e == "" for e in d["errors"]] if "errors" in d else [True] * len(d["latencies"])
    a = d["completed"] / d["duration"]
    ach.append(a); sat.append(r == "inf" or a < 0.95 * float(r))
    L.append(a * np.mean(np.array(d["latencies"])[ok]))
top = len(ach)
while top > 0 and sat[top - 1]: top -= 1
mx = max(ach[top:]); lo = len(ach)
while lo > top and ach[lo - 1] >= 0.95 * mx: lo -= 1
print(np.median(ach[lo:]), len(ach) - lo, L[0], L[2], ach[1] / np.median(ach[lo:]))
PYEOF
read -r tmu tnpl tl1 tl4 tk2 < "$tmp/ltruth"
check "littles_law: mu = truth $tmu" near "$(jget "$s" groups.0.littles_law.mu_rps)" "$tmu" 1e-9
check "littles_law: plateau of $tnpl rates" [ "$(jget "$s" groups.0.littles_law.mu_plateau_levels)" = "$tnpl" ]
check "littles_law: knee_rate_rps = mu" near "$(jget "$s" groups.0.littles_law.knee_rate_rps)" "$tmu" 1e-9
check "littles_law: L at 1 req/s = truth $tl1" near "$(jget "$s" groups.0.littles_law.points.0.L_requests)" "$tl1" 1e-9
check "littles_law: L at 4 req/s = truth $tl4" near "$(jget "$s" groups.0.littles_law.points.2.L_requests)" "$tl4" 1e-9
check "littles_law: SLO knee 2 below mu, first failing 4 above" [ "$(jget "$s" groups.0.littles_law.relation)" = between ]
# λ/μ at the SLO knee: λ is the rate it completed (the section's definition), not the 2 req/s offered
check "littles_law: lambda/mu at the knee = achieved(2) / mu = $tk2" near "$(jget "$s" groups.0.littles_law.slo_knee_over_mu_frac)" "$tk2" 1e-9
check "littles_law at the root" [ "$(jget "$s" littles_law.mu_rps)" != null ]
check "littles_law: measured L for every run" [ "$(jget "$s" groups.0.littles_law.n_measured)" = 6 ]
check "next rates: geometric points 2.38 2.83 3.36" [ "$(jget "$s" groups.0.next_rates.rates_text)" = "2.38, 2.83, 3.36" ]
check "next rates: command line" grep -qF -- "--request-rate 2.83" "$s"
check "queue signal: empty up to 2, on from 4" [ "$(jget "$s" groups.0.queue_signal.last_empty.x_label) $(jget "$s" groups.0.queue_signal.first_queue.x_label)" = "2 4" ]
check "steady state: 8 and 16 req/s too short, misses stand" [ "$(jget "$s" groups.0.littles_law.short_miss_x_labels)" = "8, 16" ]
pdftotext "$tmp/k/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/kpdf.txt"
check "pdf: Little's-law section" grep -qF "Little's law at the knee" "$tmp/kpdf.txt"
check "pdf: the Little's-law line in the caption" grep -qF "crosses achieved = offered" "$tmp/kpdf.txt"
check "pdf: queue axis in the caption" grep -qF "Right axis (grey crosses on a dotted line): the queue signal" "$tmp/kpdf.txt"
check "figure csv: mu column" grep -q "mu_rps" "$tmp/k/figures/figK1-rate-throughput.csv"
# a short run that meets the SLO gets no verdict: 20 prompts at 2 req/s (10 s of arrivals < 5 × ~2.7 s)
"$PY" - "$SRC/fixtures/configs/sweep/rate-2.json" > "$tmp/short2.json" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1])); c["workload"]["num_prompts"] = 20; c["name"] = "sweep-rate-2-short"
print(json.dumps(c))
PYEOF
mkdir -p "$tmp/sweeps"
for r in 1 4; do cp -r "$tmp/sweep/r$r" "$tmp/sweeps/"; done
"$BIN" simulate "$tmp/short2.json" -o "$tmp/sweeps/r2" > /dev/null 2>&1 || bad "simulate short rate 2"
"$BIN" knee "$tmp/sweeps" --slo "$SLO" -o "$tmp/ks" -q 2> /dev/null
check "short pass: withheld" [ "$(jget "$tmp/ks/summary.json" groups.0.points.1.slo_verdict)" = "no steady state" ]
check "short pass: left out, knee at 1" [ "$(jget "$tmp/ks/summary.json" groups.0.knee.x_label)" = 1 ]
pdftotext "$tmp/ks/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/kspdf.txt"
check "short pass: the report says it" grep -qF "Too short for a steady state: the runs at 2 req/s" "$tmp/kspdf.txt"
# The same sweep given twice (and one run folder again) counts each run once, with a note
"$BIN" knee "$tmp/sweep" "$tmp/sweep" "$tmp/sweep/r2" --slo "$SLO" -o "$tmp/kd" > "$tmp/outd" 2> "$tmp/errd"; rc=$?
check "duplicates: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "duplicates: 6 runs, not 13" [ "$(jget "$tmp/kd/summary.json" n_runs)" = 6 ]
check "duplicates: 6 points" [ "$(jget "$tmp/kd/summary.json" groups.0.n_points)" = 6 ]
check "duplicates: no repeats invented" [ "$(jget "$tmp/kd/summary.json" groups.0.has_repeats)" = False ]
check "duplicates: note in summary" grep -qF "given more than once" "$tmp/kd/summary.json"
check "duplicates: note on stderr" grep -qF "counted once" "$tmp/errd"
check "duplicates: same knee" [ "$(jget "$tmp/kd/summary.json" groups.0.knee.x_label)" = "$tknee" ]
# Figures: captions say what is drawn (SLO dotted, knees dashed) and carry the
# figure title, so no heading can be left alone at the foot of a page
pdftotext "$tmp/k/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/kpdf.txt"
check "caption: horizontal dotted line is the SLO" grep -qF "the horizontal dotted line is the SLO limit" "$tmp/kpdf.txt"
check "caption: vertical dashed lines mark the knee" grep -qF "vertical dashed lines in the curve's colour" "$tmp/kpdf.txt"
check "caption never says dashed SLO / dotted knee" bash -c "! grep -qE 'horizontal dashed line is the SLO|dotted line each curve|dotted lines mark' '$tmp/kpdf.txt'"
check "title opens the caption" grep -qF "SLO percentiles vs offered request rate. One panel per SLO term" "$tmp/kpdf.txt"
# impossible SLO → exit 1, report still written
"$BIN" knee "$tmp/sweep" --slo 'ttft_p99<=1ms' -o "$tmp/k1" -q 2> "$tmp/err1"; rc=$?
check "impossible SLO exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "impossible SLO: no knee" [ "$(jget "$tmp/k1/summary.json" groups.0.knee)" = null ]
# bad SLO → exit 2 naming the term
"$BIN" knee "$tmp/sweep" --slo 'ttft_p99<=500ms,ttft_p42<=1s' -o "$tmp/k2" 2> "$tmp/err2"; rc=$?
check "bad SLO exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "bad SLO names the term" grep -q "ttft_p42<=1s" "$tmp/err2"
# bad input → exit 3 with file:line:col
"$BIN" knee "$SRC/fixtures/bad/truncated.json" --slo "$SLO" -o "$tmp/k3" 2> "$tmp/err3"; rc=$?
check "bad input exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "bad input names file:line:col" grep -qE "truncated.json:[0-9]+:[0-9]+" "$tmp/err3"
# a JSONL of the simulated results (no metrics): same knee
for r in 1 2 4 8 16 inf; do "$PY" -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))" "$tmp/sweep/r$r/stress.json"; done > "$tmp/sweep.jsonl"
"$BIN" knee "$tmp/sweep.jsonl" --slo "$SLO" -o "$tmp/kj" -q; rc=$?
check "JSONL exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "JSONL knee = $tknee" [ "$(jget "$tmp/kj/summary.json" groups.0.knee.x_label)" = "$tknee" ]
if [ -d "$REAL/bench/sweep-v0.25.1" ]; then
	"$BIN" knee "$REAL/bench/sweep-v0.25.1" --slo 'ttft_p99<=1000ms' -o "$tmp/kr" -q; rc=$?
	r="$tmp/kr/summary.json"
	check "real sweep exit 0 (got $rc)" [ "$rc" -eq 0 ]
	check "real sweep is a concurrency sweep" [ "$(jget "$r" groups.0.kind)" = concurrency ]
	check "real sweep: no rate curve" [ "$(jget "$r" n_groups)" = 1 ]
	check "real sweep keeps max_num_seqs in the label" grep -q 'max_num_seqs=4' "$r"
	# p99 TTFT 762.49 and 57.58 ms (the file's own) both <= 1000 → knee at C = 2
	check "real sweep knee at C=2" [ "$(jget "$r" groups.0.knee.x_label)" = 2 ]
	check "real sweep: goodput approximate" [ "$(jget "$r" groups.0.goodput_approx)" = True ]
	# summary.json and run=N.json beside it hold the same results: counted once
	"$BIN" knee "$REAL/bench/sweep-v0.25.1" "$REAL"/bench/sweep-v0.25.1/*/run=0.json --slo 'ttft_p99<=1000ms' -o "$tmp/krd" -q 2> /dev/null
	check "real sweep + its run=0.json: 2 runs" [ "$(jget "$tmp/krd/summary.json" n_runs)" = 2 ]
	# Two C = 4 runs differing only in measured spec-decode rates: one curve,
	# labelled without any measured value
	"$BIN" knee "$REAL/bench/glm52-c4-detailed.json" "$REAL/runs/glm52-mtp3-c4-r2" --slo 'ttft_p99<=5s' -o "$tmp/ksd" -q; rc=$?
	check "spec decode: exit 0 (got $rc)" [ "$rc" -eq 0 ]
	check "spec decode: one curve" [ "$(jget "$tmp/ksd/summary.json" n_groups)" = 1 ]
	check "spec decode: 2 points" [ "$(jget "$tmp/ksd/summary.json" groups.0.n_points)" = 2 ]
	check "spec decode: concurrency curve" [ "$(jget "$tmp/ksd/summary.json" groups.0.kind)" = concurrency ]
	check "spec decode: no measured key in the label" bash -c "! grep -q spec_decode '$tmp/ksd/summary.json'"
	# batch 1 (C = 1, N = 1, rate inf) is a closed-loop point x = 1, not "rate inf"
	"$BIN" knee "$REAL/bench/glm52-batch1-detailed.json" --slo 'ttft_p99<=5s' -o "$tmp/kb1" > "$tmp/kb1.out"; rc=$?
	check "batch 1: exit 0 (got $rc)" [ "$rc" -eq 0 ]
	check "batch 1: concurrency curve" [ "$(jget "$tmp/kb1/summary.json" groups.0.kind)" = concurrency ]
	check "batch 1: knee at C = 1" [ "$(jget "$tmp/kb1/summary.json" groups.0.knee.x_label)" = 1 ]
	# one point that meets the SLO: the knee lies at or beyond it, not reached
	# (twenty-fourth breaker: "while goodput still rises" of a single point)
	check "batch 1: terminal says max_concurrency >= 1, not reached" grep -qF "knee: max_concurrency >= 1 (not reached)" "$tmp/kb1.out"
	check "batch 1: summary knee_reached false" [ "$(jget "$tmp/kb1/summary.json" groups.0.knee_reached)" = False ]
	check "batch 1: PDF says the knee was not reached, not 'while goodput still rises'" bash -c "
	  pdftotext '$tmp/kb1/report.pdf' - | tr -s ' \n' '  ' | grep -q 'Knee not reached: the largest concurrency swept, max_concurrency 1' &&
	  ! pdftotext '$tmp/kb1/report.pdf' - | tr -s ' \n' '  ' | grep -q 'the last concurrency that meets'"
	# 500 ms: run 0 misses (762.49 ms) → no knee, exit 1
	"$BIN" knee "$REAL/bench/sweep-v0.25.1" --slo 'ttft_p99<=500ms' -o "$tmp/kr2" -q 2>/dev/null; rc=$?
	check "real sweep 500 ms exit 1 (got $rc)" [ "$rc" -eq 1 ]
	# JSONL built by concatenating real results: two models → separate curves
	for f in "$REAL"/bench/sweep-v0.25.1/*/run=*.json "$REAL/bench/opt125m-v0.25.1.json" "$REAL/bench/glm52-c4-detailed.json"; do
		"$PY" -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))" "$f"
	done > "$tmp/real.jsonl"
	"$BIN" knee "$tmp/real.jsonl" --slo 'ttft_p99<=2s' -o "$tmp/krj" -q 2>/dev/null; rc=$?
	check "real JSONL exit 0 or 1 (got $rc)" [ "$rc" -le 1 ]
	check "real JSONL: several curves" [ "$(jget "$tmp/krj/summary.json" n_groups)" -ge 2 ]
	check "real JSONL: report.pdf" [ -s "$tmp/krj/report.pdf" ]
fi
# SGLang's 70B and 405B sweeps name no model and meet at the same rates:
# each file is its own curve, not repeats of one (twenty-fourth breaker:
# "knee: none; first failing: 1 req/s" for the 70B, from the 405B's 218.8 ms).
# Truth: the 70B random sweep's median TTFT per rate, read from the file.
sg=$REAL/engines/sglang
if [ -f "$sg/llama_3_3_70b_online_output.jsonl" ] && [ -f "$sg/llama_405b_online_output.jsonl" ]; then
	"$BIN" knee "$sg/llama_3_3_70b_online_output.jsonl" "$sg/llama_405b_online_output.jsonl" --slo 'ttft_p50<=200ms' \
	  -o "$tmp/ksg" -q 2> /dev/null
	truth=$("$PY" - "$sg/llama_3_3_70b_online_output.jsonl" <<'PYEOF'
import json, sys
pts = sorted((d["request_rate"], d["median_ttft_ms"]) for d in map(json.loads, open(sys.argv[1])) if d["dataset_name"] == "random")
ff = next(r for r, t in pts if t > 200)
print("%g %g" % (max(r for r, t in pts if r < ff), ff))
PYEOF
)
	check "SGLang 70B + 405B: 4 curves (two files x two datasets)" [ "$(jget "$tmp/ksg/summary.json" n_groups)" = 4 ]
	check "SGLang 70B random: knee ${truth% *}, first failing ${truth#* } req/s (the file's medians)" "$PY" - "$tmp/ksg/summary.json" "$truth" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
knee, ff = map(float, sys.argv[2].split())
g = [g for g in s["groups"] if "llama_3_3_70b" in g["label"] and "dataset_name=random" in g["label"]]
sys.exit(0 if len(g) == 1 and float(g[0]["knee"]["x"]) == knee and float(g[0]["first_failing"]["x"]) == ff else 1)
PYEOF
	check "SGLang 70B + 405B: the note says why the files are apart" bash -c "
	  pdftotext '$tmp/ksg/report.pdf' - | tr -s ' \n' '  ' | grep -q 'bench files state no model and hold runs at the same settings'"
fi
# Without per-request arrays (the same files stripped to their statistics)
# goodput is not known: each point's range from the file's own percentiles
# must hold the exact goodput the arrays give (rate 2 under e2el_p99<=3s:
# 1.57 req/s, once printed as 0.00), and the knee text says it is a range.
for slo in 'e2el_p99<=3s' 'e2el_p50<=3s' 'ttft_p99<=500ms,e2el_p99<=20s'; do
  rm -rf "$tmp/strip" "$tmp/ks" "$tmp/kf"; mkdir -p "$tmp/strip"
  for r in 1 2 4 8; do cp -r "$tmp/sweep/r$r" "$tmp/strip/"; done
  "$PY" - "$tmp/strip" <<'PYEOF'
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*/stress.json"):
    d = json.load(open(p))
    for k in ("ttfts", "itls", "latencies", "input_lens", "output_lens", "start_times", "errors", "generated_texts"):
        d.pop(k, None)
    json.dump(d, open(p, "w"))
PYEOF
  "$BIN" knee "$tmp/strip" --slo "$slo" -o "$tmp/ks" > /dev/null 2>&1
  rm -rf "$tmp/full"; mkdir -p "$tmp/full"; for r in 1 2 4 8; do cp -r "$tmp/sweep/r$r" "$tmp/full/"; done
  "$BIN" knee "$tmp/full" --slo "$slo" -o "$tmp/kf" > /dev/null 2>&1
  check "no arrays, $slo: every point's goodput range holds the exact goodput" "$PY" - "$tmp/ks/summary.json" "$tmp/kf/summary.json" <<'PYEOF'
import json, sys
ks, kf = (json.load(open(a))["groups"][0]["points"] for a in sys.argv[1:3])
bad = 0
for a, b in zip(ks, kf):
    assert a["x"] == b["x"] and a["goodput_rps"] is None and b["goodput_exact"]
    if not (a["goodput_lo_rps"] - 1e-9 <= b["goodput_rps"] <= a["goodput_hi_rps"] + 1e-9):
        print("  x=%s: %.4f not in [%.4f, %.4f]" % (a["x"], b["goodput_rps"], a["goodput_lo_rps"], a["goodput_hi_rps"])); bad += 1
sys.exit(1 if bad else 0)
PYEOF
done
check "no arrays: the knee sentence gives the range" bash -c \
  "pdftotext '$tmp/ks/report.pdf' - | tr -s ' \n' '  ' | grep -q \"goodput between [0-9.]* and [0-9.]* req/s, the range the file's own percentiles allow\""
# A percentile the stripped files do not state (p90: they state the median
# and p99) is settled by a neighbour: p90 <= p99 within the limit meets the
# term, p90 >= p50 above it misses it. Every point so decided must agree
# with the arrays' own p90 verdict, and some point must be decided so.
for slo in 'ttft_p90<=2s' 'e2el_p90<=20s' 'ttft_p90<=100ms'; do
  rm -rf "$tmp/ks" "$tmp/kf"
  "$BIN" knee "$tmp/strip" --slo "$slo" -o "$tmp/ks" > /dev/null 2>&1
  "$BIN" knee "$tmp/full" --slo "$slo" -o "$tmp/kf" > /dev/null 2>&1
  check "no arrays, $slo: a p90 settled by a stated neighbour agrees with the arrays" "$PY" - "$tmp/ks/summary.json" "$tmp/kf/summary.json" <<'PYEOF'
import json, sys
ks, kf = (json.load(open(a))["groups"][0]["points"] for a in sys.argv[1:3])
decided = 0
for a, b in zip(ks, kf):
    ta, tb = a["slo_terms"][0], b["slo_terms"][0]
    if ta["ok"] is None:
        continue
    assert "decided_by_pct" in ta and ta["value_ms"] is None, ta
    decided += 1
    if ta["ok"] != tb["ok"]:
        print("  x=%s: %s by p%s = %s, arrays say %s (p90 %s)" % (a["x"], ta["ok"], ta["decided_by_pct"], ta["decided_by_ms"], tb["ok"], tb["value_ms"])); sys.exit(1)
sys.exit(0 if decided else 1)
PYEOF
done
"$BIN" knee "$tmp/strip" --slo 'ttft_p90<=2s' -o "$tmp/ks2" > /dev/null 2>&1
check "no arrays, p90 from a p99: the PDF says which percentile decided" bash -c \
  "pdftotext '$tmp/ks2/report.pdf' - | tr -s ' \n' '  ' | grep -q 'ttft_p90 is not stated in these files: where a run shows met \\*, its stated p99 is within 2000 ms'"
# Every request one output token long (output_len 1): the runs have
# per-request arrays but no TPOT or ITL sample, so a TPOT term cannot be
# judged, and the report says why (not "no per-request arrays").
"$PY" - "$SRC/fixtures/configs/small-1024-256.json" "$tmp/one-token.json" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["workload"]["output_len"] = 1
c["workload"]["num_prompts"] = 16
c["workload"]["max_concurrency"] = 4
json.dump(c, open(sys.argv[2], "w"))
PYEOF
"$BIN" simulate "$tmp/one-token.json" -o "$tmp/one-token" > /dev/null 2>&1
"$BIN" knee "$tmp/one-token" --slo 'ttft_p99<=10s,tpot_p99<=50ms' -o "$tmp/k1" > /dev/null 2> "$tmp/k1.err"
check "one-token outputs: not evaluable, said why on stderr" grep -qF "every request produced a single output token" "$tmp/k1.err"
check "one-token outputs: the PDF says why" bash -c \
  "pdftotext '$tmp/k1/report.pdf' - | tr -s ' \n' '  ' | grep -qF 'every request produced a single output token, so the runs have per-request arrays but no TPOT or ITL sample'"
check "one-token outputs: not the no-arrays reason" bash -c "! grep -qF 'no per-request arrays' '$tmp/k1.err'"
# the run report of the same one-token run (twelfth breaker): the file states 16
# statistics, 8 of them placeholder 0s; no ITL means no decode estimate and no
# advice to add ITL percentiles
"$BIN" "$tmp/one-token" -o "$tmp/one-rep" -q > /dev/null 2>&1
pdftotext "$tmp/one-rep/report.pdf" - | tr -s ' \n' '  ' > "$tmp/one.txt"
check "one-token report: 8 statistics with samples, 8 placeholders" \
	grep -qF "All 8 statistics the bench file states for metrics with samples were recomputed from its per-request arrays and agree within 1e-9; its other 8 are 0s" "$tmp/one.txt"
check "one-token report: the budget says why it has no decode" grep -qF "every request produced a single output token, so there is no ITL" "$tmp/one.txt"
check "one-token report: no advice to add ITL percentiles" bash -c "! grep -q 'metric-percentiles' '$tmp/one.txt'"
# The r4 run from a server with a 4x KV pool (its log states 65,536 tokens;
# same model, GPU and arguments) among the 16,384-token sweep: another
# server, its own curve (thirty-second breaker: one curve, knee moved to 4)
mkdir -p "$tmp/pool"
for r in 1 2 8 16; do cp -r "$tmp/sweep/r$r" "$tmp/pool/r$r"; done
"$PY" - "$SRC/fixtures/configs/sweep/rate-4.json" "$tmp/r4big.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["gpu"]["kv_pool_tokens"] = 65536; d["gpu"]["per_decode_token_s"] = 5e-05
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$BIN" simulate "$tmp/r4big.json" -o "$tmp/pool/r4big" > /dev/null 2>&1 || bad "simulate r4big"
check "r4big's log states 65,536 tokens, the others 16,384" bash -c "grep -q 'GPU KV cache size: 65,536 tokens' '$tmp/pool/r4big/server.log' &&
  grep -q 'GPU KV cache size: 16,384 tokens' '$tmp/pool/r8/server.log'"
"$BIN" knee "$tmp/pool" --slo "$SLO" -o "$tmp/kpool" > /dev/null 2>&1; rc=$?
check "pool: exit 0 (got $rc), two curves, the 4x-pool run alone, named by its pool" "$PY" - "$tmp/kpool/summary.json" "$tmp/kpool/report.pdf" <<'PYEOF'
import json, subprocess, sys
s = json.load(open(sys.argv[1]))
n = sorted(g["n_points"] for g in s["groups"])
t = " ".join(subprocess.run(["pdftotext", sys.argv[2], "-"], capture_output=True, text=True).stdout.split())
sys.exit(0 if s["n_groups"] == 2 and n == [1, 4] and "kv_pool=65536 tokens" in t and "kv_pool=16384 tokens" in t else 1)
PYEOF
# One open-loop run that meets the SLO's latencies but fell behind its
# arrivals (seq-bound-open-loop: 2.70 of 8 req/s achieved): no knee, and no
# "in every repeat" (thirty-fourth breaker: there are no repeats)
"$BIN" simulate "$SRC/fixtures/configs/seq-bound-open-loop.json" -o "$tmp/sbo" > /dev/null 2>&1 || bad "simulate sbo"
"$BIN" knee "$tmp/sbo" --slo 'ttft_p50<=30s,e2el_p99<=60s' -o "$tmp/ksbo" > /dev/null 2> "$tmp/ksbo.err"; rc=$?
check "fell behind: exit 1 (got $rc), 'while keeping up', not 'in every repeat'" bash -c "[ $rc -eq 1 ] &&
  grep -q 'while keeping up with its offered rate (1 run meets it but fell behind)' '$tmp/ksbo.err' &&
  pdftotext '$tmp/ksbo/report.pdf' - | tr -s ' \n' '  ' | grep -q 'both meets the SLO .* and keeps up with its offered rate' &&
  ! pdftotext '$tmp/ksbo/report.pdf' - | tr -s ' \n' '  ' | grep -q 'in every one of its repeats'"
finish
