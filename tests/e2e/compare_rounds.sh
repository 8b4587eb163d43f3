#!/usr/bin/env bash
# benchreport compare (issue 5): simulate the reference rounds
# (fixtures/configs/round1.json, round2.json), compare them and check the
# changes against the two runs' own reports, the controlled-A/B verdict
# against a diff of the two configs, and the elasticity sentence in the PDF
# text; compare two simulated campaigns (matching by name, unmatched lists,
# a modified pool); bad input, A == B, OUT_DIR rules.
. "$(dirname "$0")/lib.bash"
command -v pdftotext > /dev/null || { echo "pdftotext missing: skip"; exit 77; }
"$BIN" simulate "$SRC/fixtures/configs/round1.json" -o "$tmp/r1" > /dev/null 2>&1 || bad "simulate round1"
"$BIN" simulate "$SRC/fixtures/configs/round2.json" -o "$tmp/r2" > /dev/null 2>&1 || bad "simulate round2"
"$BIN" "$tmp/r1" -o "$tmp/rep1" --quiet 2> /dev/null || bad "report round1"
"$BIN" "$tmp/r2" -o "$tmp/rep2" --quiet 2> /dev/null || bad "report round2"

(cd "$tmp" && "$BIN" compare r1 r2 > "$tmp/out" 2> "$tmp/err"); rc=$?
check "compare exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "default OUT_DIR ./compare-report" [ -s "$tmp/compare-report/report.pdf" ]
s="$tmp/compare-report/summary.json"
check "summary command compare" [ "$(jget "$s" command)" = compare ]
check "kind runs" [ "$(jget "$s" kind)" = runs ]
check "not the same path" [ "$(jget "$s" same_path)" = False ]
check "nothing written inside A or B" [ ! -e "$tmp/r1/compare-report" ] && [ ! -e "$tmp/r2/compare-report" ]

# Every change against the two runs' own summary.json (the single-run
# report) and, independently, against stress.json with numpy.
"$PY" - "$s" "$tmp/rep1/summary.json" "$tmp/rep2/summary.json" "$tmp/r1/stress.json" "$tmp/r2/stress.json" > "$tmp/chk" <<'PYEOF'
import json, sys, numpy as np
c, a, b = (json.load(open(p)) for p in sys.argv[1:4])
sa, sb = (json.load(open(p)) for p in sys.argv[4:6])
rows = c["focus"]["rows"]
def own(s, key):
    return {
        "kv_pool_tokens": s["capacity"]["kv_pool_tokens"],
        "predicted_max_concurrency": s["capacity"]["predicted_max_concurrency"],
        "oversubscription": s["capacity"]["oversubscription"],
        "running_mean": s["residency"]["running_mean"],
        "waiting_mean": s["residency"]["waiting_mean"],
        "output_throughput_tps": s["bench"]["output_throughput_tps"],
        "duration_s": s["bench"]["duration_s"],
        "ttft_p50_s": s["latency"]["ttft"]["median_ms"] / 1000,
        "e2el_p50_s": s["latency"]["e2el"]["median_ms"] / 1000,
        "preemptions": s["preemptions"]["n_preemptions"],
    }[key]
bad = 0
for k in ["kv_pool_tokens", "predicted_max_concurrency", "running_mean", "oversubscription",
          "output_throughput_tps", "duration_s", "ttft_p50_s", "e2el_p50_s", "preemptions", "waiting_mean"]:
    va, vb = own(a, k), own(b, k)
    r = rows[k]
    rel = (vb - va) / abs(va)
    if abs(r["a"] - va) > 1e-9 * abs(va) or abs(r["b"] - vb) > 1e-9 * abs(vb) \
       or abs(r["abs_change"] - (vb - va)) > 1e-9 * max(abs(va), abs(vb)) or abs(r["rel_change"] - rel) > 1e-9:
        print(f"mismatch {k}: {r} vs {va} {vb} {rel}"); bad += 1
# independent: numpy medians of the per-request arrays, the file's throughput
for k, f in [("ttft_p50_s", lambda d: np.median(d["ttfts"])),
             ("output_throughput_tps", lambda d: d["output_throughput"]),
             ("duration_s", lambda d: d["duration"])]:
    rel = (f(sb) - f(sa)) / f(sa)
    if abs(rows[k]["rel_change"] - rel) > 1e-9:
        print(f"numpy mismatch {k}: {rows[k]['rel_change']} vs {rel}"); bad += 1
e = c["focus"]["elasticity"]
for k, key in [("pool_rel_change", "kv_pool_tokens"), ("resident_rel_change", "running_mean"),
               ("throughput_rel_change", "output_throughput_tps")]:
    if abs(e[k] - rows[key]["rel_change"]) > 1e-12:
        print(f"elasticity {k}"); bad += 1
# pool 86,864 -> 120,064 tokens, as the configs say
if rows["kv_pool_tokens"]["a"] != 86864 or rows["kv_pool_tokens"]["b"] != 120064:
    print("pool"); bad += 1
def pc(x):
    return ("+" if x > 0 else "\u2212") + f"{abs(100 * x):.1f}%"
print(f"SENTENCE pool {pc(e['pool_rel_change'])} → resident {pc(e['resident_rel_change'])} → output throughput {pc(e['throughput_rel_change'])}")
print(f"BAD {bad}")
PYEOF
cat "$tmp/chk" | grep -v SENTENCE | grep -v "^BAD" || true
check "changes match the runs' own summaries and numpy" grep -qx "BAD 0" "$tmp/chk"

# The configs: which settings differ (names and comments aside)?
"$PY" - "$SRC/fixtures/configs/round1.json" "$SRC/fixtures/configs/round2.json" > "$tmp/cfgdiff" <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
diff = []
for sec in sorted(set(a) | set(b)):
    if sec in ("_comment", "name", "seed"):
        continue
    x, y = a.get(sec), b.get(sec)
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            if x.get(k) != y.get(k):
                diff.append(f"{sec}.{k}")
    elif x != y:
        diff.append(sec)
print(" ".join(diff))
PYEOF
if [ "$(cat "$tmp/cfgdiff")" = "gpu.kv_pool_tokens" ]; then
	# the pool is an outcome, not a setting (issue 9 §2): it moved while no argument that
	# sets it changed, so the pair is two observations, as the round-2 reference says
	check "only the pool differs in the configs → not controlled, the pool moved by itself" \
		[ "$(jget "$s" focus.verdict)" = not_controlled ]
	check "pool_moved_alone" [ "$(jget "$s" focus.pool_moved_alone)" = True ]
	check "no setting differs" [ "$(jget "$s" focus.n_differences)" = 0 ]
else
	check "configs differ in more than the pool ($(cat "$tmp/cfgdiff")) → not controlled" \
		[ "$(jget "$s" focus.verdict)" = not_controlled ]
fi
pdftotext -layout "$tmp/compare-report/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/pdf.txt"
# P/M is a number of requests: its cells carry no "×" (oversubscription, a ratio, does)
pm_a=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['focus']['rows']['predicted_max_concurrency']['a_text'])" "$s")
check "P/M (requests) printed without × ('$pm_a')" [ -n "$pm_a" ] && ! echo "$pm_a" | grep -q "×"
check "PDF: P/M row has no ×" bash -c "! grep -oE 'P/M \(requests\) [^a-z]*' '$tmp/pdf.txt' | grep -q '×'"
# large counts in sentences are grouped: "KV pool (tokens) 86,864 → 120,064"
check "PDF groups thousands in the verdict sentence" grep -qF "86,864 → 120,064" "$tmp/pdf.txt"
sentence=$(grep SENTENCE "$tmp/chk" | sed 's/^SENTENCE //')
check "PDF holds the elasticity sentence '$sentence'" grep -qF "$sentence" "$tmp/pdf.txt"
# round 1 vs round 2: the preemption count barely moved while the pool grew
# 38%; the sentence's numbers are the two runs' own (their summary.json)
pre_sentence=$("$PY" - "$tmp/rep1/summary.json" "$tmp/rep2/summary.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(p))["preemptions"] for p in sys.argv[1:3])
def pct(x): return ("\u2212" if x < 0 else "+") + "%.1f%%" % abs(100 * x)
print("Preemptions %d → %d (%s) although the KV pool changed by +38.2%%" % (a["n_preemptions"], b["n_preemptions"],
      pct((b["n_preemptions"] - a["n_preemptions"]) / a["n_preemptions"])) +
      ": both pools stayed oversubscribed, and at any pool size a preemption fires when the pool is nearly full (KV usage %.2f%% and %.2f%% just before, on average). At each, KV usage fell by about %s → %s tokens in the 1 Hz reading"
      % (100 * a["trigger_kv_frac"], 100 * b["trigger_kv_frac"], format(round(a["mean_released_tokens_per_preemption"]), ","),
         format(round(b["mean_released_tokens_per_preemption"]), ",")))
PYEOF
)
# the chain read as round 2's reference reads it: resident follows the pool,
# throughput follows resident less while ITL p50 rises (numbers from the table)
chain=$("$PY" - "$s" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1]))["focus"]
e, r = c["elasticity"], c["rows"]
print("resident requests followed the pool almost one for one (%.2f%% per 1%%); output throughput followed them less (%.2f%% per 1%% more resident)" % (e["resident_per_pool"], e["throughput_per_resident"]))
PYEOF
)
check "PDF: the chain's reading ('${chain:0:40}...')" grep -qF "$chain" "$tmp/pdf.txt"
check "PDF: preemptions beside the pool, numbers from the runs ('${pre_sentence:0:40}...')" grep -qF "$pre_sentence" "$tmp/pdf.txt"
check "PDF says the pool moved by itself" grep -qF "Not a controlled A/B: the KV pool differs (86,864 → 120,064 tokens) although no argument that sets it changed" "$tmp/pdf.txt"
check "figures written (waveform, CDFs, TTFT split)" [ -s "$tmp/compare-report/figures/figC1-compare-waveform.png" ] && \
	[ -s "$tmp/compare-report/figures/figC2-compare-latency-cdf.csv" ] && [ -s "$tmp/compare-report/figures/figC3-compare-ttft-split.svg" ]

# Not controlled: round 1 against the same config with concurrency 32 as well as the pool.
"$PY" - "$SRC/fixtures/configs/round2.json" "$tmp/r3.json" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1])); c["workload"]["max_concurrency"] = 32; c["name"] = "round2-c32"
json.dump(c, open(sys.argv[2], "w"))
PYEOF
"$BIN" simulate "$tmp/r3.json" -o "$tmp/r3" > /dev/null 2>&1 || bad "simulate r3"
"$BIN" compare "$tmp/r1" "$tmp/r3" -o "$tmp/c13" --quiet 2> /dev/null; rc=$?
check "pool + concurrency: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "pool + concurrency: not controlled" [ "$(jget "$tmp/c13/summary.json" focus.verdict)" = not_controlled ]
check "pool + concurrency: the setting named, the pool apart" [ "$(jget "$tmp/c13/summary.json" focus.differences_text)" = \
	"max_concurrency 64 → 32" ]
pdftotext "$tmp/c13/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/pdf13.txt"
check "PDF says not a controlled A/B (the pool moved too)" grep -qF "Not a controlled A/B: the KV pool differs" "$tmp/pdf13.txt"
check "PDF names max_concurrency" grep -qF "concurrency (max_concurrency): 64 → 32" "$tmp/pdf13.txt"

# Campaigns: round 1 twice, the second with one pool changed, one run
# dropped and one added; runs are matched by name.
cp -r "$SRC/fixtures/configs/campaign-round1" "$tmp/cfg2"
rm "$tmp/cfg2/cal-512-128.json"
"$PY" - "$tmp/cfg2" <<'PYEOF'
import json, sys
d = sys.argv[1]
c = json.load(open(f"{d}/c64-6144-2048.json")); c["gpu"]["kv_pool_tokens"] = 120064
json.dump(c, open(f"{d}/c64-6144-2048.json", "w"))
c = json.load(open(f"{d}/c64-1024-256.json")); c["name"] = "c64-1024-256-new"
json.dump(c, open(f"{d}/c64-1024-256-new.json", "w"))
# a run new in B: another seed (the same seed would give a byte-identical
# bench result, a copy of c64-1024-256, skipped)
c = json.load(open(f"{d}/c64-1024-256-new.json")); c["seed"] = c.get("seed", 1) + 100
json.dump(c, open(f"{d}/c64-1024-256-new.json", "w"))
PYEOF
bash "$SRC/scripts/simulate_campaign.sh" "$SRC/fixtures/configs/campaign-round1" "$tmp/campA" "$BIN" > /dev/null 2>&1 || bad "simulate campaign A"
bash "$SRC/scripts/simulate_campaign.sh" "$tmp/cfg2" "$tmp/campB" "$BIN" > /dev/null 2>&1 || bad "simulate campaign B"
"$BIN" compare "$tmp/campA" "$tmp/campB" -o "$tmp/cc" > "$tmp/cc.out" 2> "$tmp/cc.err"; rc=$?
check "campaigns: exit 0 (got $rc)" [ "$rc" -eq 0 ]
cs="$tmp/cc/summary.json"
check "campaigns: kind" [ "$(jget "$cs" kind)" = campaigns ]
check "campaigns: 8 pairs matched by name" [ "$(jget "$cs" n_pairs)" = 8 ]
check "campaigns: only in A = cal-512-128" [ "$(jget "$cs" unmatched_a_text)" = cal-512-128 ]
check "campaigns: only in B = c64-1024-256-new" [ "$(jget "$cs" unmatched_b_text)" = c64-1024-256-new ]
"$PY" - "$cs" > "$tmp/ccchk" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
bad = 0
for p in s["pairs"]:
    if p["name_a"] != p["name_b"]:
        print("unequal names", p["name_a"], p["name_b"]); bad += 1
    want = "not_controlled" if p["name_a"] == "c64-6144-2048" else "same_settings"
    if p["verdict"] != want:
        print("verdict", p["name_a"], p["verdict"]); bad += 1
    if p["name_a"] != "c64-6144-2048" and p["rows"]["output_throughput_tps"]["rel_change"] != 0:
        print("same config, same seed: expected no change", p["name_a"]); bad += 1
p = [p for p in s["pairs"] if p["name_a"] == "c64-6144-2048"][0]
if p["differences_text"] != "" or not p["pool_moved_alone"]:
    print("diff text", p["differences_text"], p["pool_moved_alone"]); bad += 1
# the focus pair is A's focus run (most preemptions): c64-6144-2048
if s["focus"]["name_a"] != "c64-6144-2048":
    print("focus", s["focus"]["name_a"]); bad += 1
print(f"BAD {bad}")
PYEOF
grep -v "^BAD" "$tmp/ccchk" || true
check "campaigns: pairs, verdicts and focus" grep -qx "BAD 0" "$tmp/ccchk"
pdftotext "$tmp/cc/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/pdfcc.txt"
check "campaign PDF lists the unmatched runs" grep -qF "Only in A (1): cal-512-128." "$tmp/pdfcc.txt"
check "campaign PDF lists only-in-B" grep -qF "Only in B (1): c64-1024-256-new." "$tmp/pdfcc.txt"
# the front card's verdict is the focus pair's and says so; the pairs card counts the controlled pairs
check "campaign pair with no change: no n/a% elasticity" bash -c "! grep -q 'n/a% more output' '$tmp/pdfcc.txt'"
check "campaign card names the focus pair" grep -qF "Controlled A/B? (run c64-6144-2048)" "$tmp/pdfcc.txt"
check "campaign card counts controlled pairs (none: 7 repeats, 1 pool moved alone)" \
	grep -qF "8 pairs, 0 controlled · 1 only in A · 1 only in B" "$tmp/pdfcc.txt"

# Round B's repeats numbered on (A: X-r1, B: X-r2): no run name in both, so
# the runs pair by configuration name (the name without its repeat suffix),
# and the report says so instead of refusing (third breaker)
mkdir -p "$tmp/stA" "$tmp/stB"
for r in c64-1024-256 c16-2048-512; do
	cp -r "$tmp/campA/$r" "$tmp/stA/$r-r1"; rm -rf "$tmp/stA/$r-r1/report"
done
cp -r "$tmp/campB/c64-1024-256-new" "$tmp/stB/c64-1024-256-r2"; cp -r "$tmp/campB/c16-2048-512" "$tmp/stB/c16-2048-512-r2"
rm -rf "$tmp"/stB/*/report
"$PY" - "$tmp" <<'PYEOF'
import json, os, sys
for side in ("stA", "stB"):
    for r in os.listdir(os.path.join(sys.argv[1], side)):
        p = os.path.join(sys.argv[1], side, r, "run.json")
        d = json.load(open(p)); d["name"] = r; json.dump(d, open(p, "w"))
PYEOF
"$BIN" compare "$tmp/stA" "$tmp/stB" -o "$tmp/st" > "$tmp/st.out" 2> "$tmp/st.err"; rc=$?
check "campaigns by configuration name: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "campaigns by configuration name: said in summary.json" [ "$(jget "$tmp/st/summary.json" pairs_matched_by)" = "configuration name" ]
check "campaigns by configuration name: 2 pairs, X-r1 with X-r2" "$PY" -c "
import json, sys; s = json.load(open(sys.argv[1]))
got = sorted((p['name_a'], p['name_b']) for p in s['pairs'])
sys.exit(0 if got == [('c16-2048-512-r1', 'c16-2048-512-r2'), ('c64-1024-256-r1', 'c64-1024-256-r2')] else 1)" "$tmp/st/summary.json"
check "campaigns by configuration name: stdout says how" grep -qF "2 pairs matched by configuration name" "$tmp/st.out"
pdftotext "$tmp/st/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/pdfst.txt"
check "campaigns by configuration name: PDF says how, and that one pair is arbitrary" \
	bash -c "grep -qF 'runs are matched by configuration name' '$tmp/pdfst.txt' && grep -qF 'the pairing is arbitrary' '$tmp/pdfst.txt'"
check "campaigns by name: summary.json says 'name'" [ "$(jget "$cs" pairs_matched_by)" = name ]
check "campaigns by configuration name: every run paired, said without 'same name'" bash -c "grep -qF 'has a partner with the same configuration name in B' '$tmp/pdfst.txt' && ! grep -qF 'partner of the same name' '$tmp/pdfst.txt'"
# the detailed pair: A's focus run's (c16-2048-512-r1, by name order) is a repeat, c64's pair a
# controlled A/B (max_num_seqs 128 → 64 in B's log): the controlled one is shown (fifth breaker)
sed -i "0,/'max_num_seqs': 128/s//'max_num_seqs': 64/" "$tmp/stB/c64-1024-256-r2/server.log"
"$BIN" compare "$tmp/stA" "$tmp/stB" -o "$tmp/st2" > /dev/null 2>&1
check "campaigns: the detailed pair is the controlled one" \
	[ "$(jget "$tmp/st2/summary.json" focus.name_a)/$(jget "$tmp/st2/summary.json" focus.verdict)" = "c64-1024-256-r1/controlled" ]
pdftotext "$tmp/st2/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/st2.txt"
check "campaigns: the report says why that pair" grep -qF "the first controlled A/B among the pairs" "$tmp/st2.txt"

# Bad input and the rules of OUT_DIR.
"$BIN" compare "$tmp/nope" "$tmp/r2" -o "$tmp/x" > /dev/null 2> "$tmp/e1"; rc=$?
check "A missing: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "A missing: named" grep -qF "$tmp/nope" "$tmp/e1"
check "A missing: nothing written" [ ! -e "$tmp/x" ]
"$BIN" compare "$tmp/r1" "$tmp/campB" -o "$tmp/x" > /dev/null 2> "$tmp/e2"; rc=$?
check "run vs campaign: bad usage, exit 2 (got $rc), nothing written" [ "$rc" -eq 2 ] && [ ! -e "$tmp/x" ]
check "run vs campaign: names the campaign's run subfolder as the way" grep -qF "CAMPAIGN/RUN_NAME" "$tmp/e2"
"$BIN" compare "$tmp/r1" "$tmp/r2" -o "$tmp/r1/cmp" > /dev/null 2> "$tmp/e3"; rc=$?
check "OUT_DIR inside A: exit 2 (got $rc)" [ "$rc" -eq 2 ] && [ ! -e "$tmp/r1/cmp" ]
mkdir -p "$tmp/foreign" && echo keep > "$tmp/foreign/file.txt"
"$BIN" compare "$tmp/r1" "$tmp/r2" -o "$tmp/foreign" > /dev/null 2> "$tmp/e4"; rc=$?
check "foreign OUT_DIR refused (exit $rc)" [ "$rc" -ne 0 ] && [ "$(cat "$tmp/foreign/file.txt")" = keep ]
"$BIN" compare "$tmp/r1" "$tmp/r2" -o "$tmp/compare-report" --quiet > /dev/null 2>&1; rc=$?
check "previous compare report replaced (exit $rc)" [ "$rc" -eq 0 ] && [ -s "$tmp/compare-report/summary.json" ]
check "no staging folder left" [ -z "$(ls -d "$tmp"/compare-report.* 2> /dev/null)" ]

# A setting one side does not state is unknown, never "the one difference" (third break-it
# review): burstiness missing from A's bench file, a driver only B's run.json states.
for what in burstiness driver; do
	rm -rf "$tmp/u_a" "$tmp/u_b"; cp -r "$tmp/r1" "$tmp/u_a"; cp -r "$tmp/r1" "$tmp/u_b"; rm -rf "$tmp/u_a/report" "$tmp/u_b/report"
	if [ "$what" = burstiness ]; then
		# at a finite rate (burstiness is no setting at request_rate inf: below)
		for s_ in u_a u_b; do
			"$PY" -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['request_rate']=4.0; json.dump(d, open(p,'w'))" "$tmp/$s_/stress.json"
		done
		"$PY" -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d.pop('burstiness'); json.dump(d, open(p,'w'))" "$tmp/u_a/stress.json"
		want=no_difference_found
	else
		"$PY" -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['driver']='550.54'; json.dump(d, open(p,'w'))" "$tmp/u_b/run.json"
		want=same_settings
	fi
	"$BIN" compare "$tmp/u_a" "$tmp/u_b" -o "$tmp/u_c" > /dev/null 2>&1
	check "$what stated by one side only: unknown, verdict $want" \
		[ "$(jget "$tmp/u_c/summary.json" "focus.other_settings.$what.state")/$(jget "$tmp/u_c/summary.json" focus.verdict)" = "unknown/$want" ]
	rm -rf "$tmp/u_c"
done
# at request_rate inf every request is sent at once: burstiness 1 → 0.5 is no setting, the pair a repeat
# (fifth breaker: the +5.4% TTFT noise of a repeat was credited to it)
rm -rf "$tmp/u_a" "$tmp/u_b" "$tmp/u_c"; cp -r "$tmp/r1" "$tmp/u_a"; cp -r "$tmp/r1" "$tmp/u_b"; rm -rf "$tmp/u_a/report" "$tmp/u_b/report"
"$PY" -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['burstiness']=0.5; json.dump(d, open(p,'w'))" "$tmp/u_b/stress.json"
"$BIN" compare "$tmp/u_a" "$tmp/u_b" -o "$tmp/u_c" > /dev/null 2>&1
check "burstiness at request_rate inf: not a setting, not the one difference" \
	[ "$(jget "$tmp/u_c/summary.json" focus.other_settings.burstiness)/$(jget "$tmp/u_c/summary.json" focus.n_differences)" = "null/0" ]
pdftotext "$tmp/u_c/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/u_c.txt"
check "a copy (r1 saved again): no elasticity, 'one run saved twice'" bash -c "grep -qF 'A and B are one run saved twice: every change is zero' '$tmp/u_c.txt' && ! grep -q 'each 1% more resident' '$tmp/u_c.txt'"
# a true repeat (round 1 again with another seed): its changes are noise, no elasticity ratio from them
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d['seed']=7; json.dump(d, open(sys.argv[2],'w'))" "$SRC/fixtures/configs/round1.json" "$tmp/r1seed.json"
"$BIN" simulate "$tmp/r1seed.json" -o "$tmp/r1s" > /dev/null 2>&1
"$BIN" compare "$tmp/r1" "$tmp/r1s" -o "$tmp/u_r" > /dev/null 2>&1
pdftotext "$tmp/u_r/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/u_r.txt"
check "a repeat: verdict same settings" [ "$(jget "$tmp/u_r/summary.json" focus.verdict)" = same_settings ]
check "a repeat: no elasticity ratio from two noises" bash -c "grep -qF 'A and B are one configuration run twice' '$tmp/u_r.txt' && ! grep -q 'each 1% more resident' '$tmp/u_r.txt'"
# the engine-config line: tensor_parallel_size=2 in B's "with config:" line while neither args
# line lists it is the one difference; listed in B's args line too, it is counted once (as the arg)
rm -rf "$tmp/u_a" "$tmp/u_b" "$tmp/u_c"; cp -r "$tmp/r1" "$tmp/u_a"; cp -r "$tmp/r1" "$tmp/u_b"; rm -rf "$tmp/u_a/report" "$tmp/u_b/report"
sed -i 's/tensor_parallel_size=1/tensor_parallel_size=2/' "$tmp/u_b/server.log"
"$BIN" compare "$tmp/u_a" "$tmp/u_b" -o "$tmp/u_c" > /dev/null 2>&1
check "engine config TP 1 -> 2: the one difference" \
	[ "$(jget "$tmp/u_c/summary.json" focus.differences_text)" = "config tensor_parallel_size 1 → 2" ]
sed -i "s/'enable_mfu_metrics': True}/'enable_mfu_metrics': True, 'tensor_parallel_size': 2}/" "$tmp/u_b/server.log"
rm -rf "$tmp/u_c"; "$BIN" compare "$tmp/u_a" "$tmp/u_b" -o "$tmp/u_c" > /dev/null 2>&1
check "TP in the args line and the config line: counted once" \
	[ "$(jget "$tmp/u_c/summary.json" focus.n_differences)/$(jget "$tmp/u_c/summary.json" focus.differences_text)" = "1/arg tensor_parallel_size default → 2" ]
rm -rf "$tmp/u_c"
# max_num_seqs beyond 2^53 on both sides (…123 vs …124): no double holds them, so unknown, never
# "same settings" and never a printed number neither log holds
rm -rf "$tmp/u_a" "$tmp/u_b" "$tmp/u_c"; cp -r "$tmp/r1" "$tmp/u_a"; cp -r "$tmp/r1" "$tmp/u_b"; rm -rf "$tmp/u_a/report" "$tmp/u_b/report"
sed -i "s/'max_num_seqs': 128/'max_num_seqs': 12345678901234567890123/" "$tmp/u_a/server.log"
sed -i "s/'max_num_seqs': 128/'max_num_seqs': 12345678901234567890124/" "$tmp/u_b/server.log"
"$BIN" compare "$tmp/u_a" "$tmp/u_b" -o "$tmp/u_c" > /dev/null 2>&1
check "max_num_seqs beyond 2^53: unknown, not the same" \
	[ "$(jget "$tmp/u_c/summary.json" focus.settings.max_num_seqs.state)/$(jget "$tmp/u_c/summary.json" focus.controlled)" = "unknown/False" ]
check "max_num_seqs beyond 2^53: no made-up digits" bash -c "! grep -q '567,741,440\|5677414' '$tmp/u_c/summary.json'"
# a GPU label differing only in case and padding is the same GPU
rm -rf "$tmp/u_a" "$tmp/u_b"; cp -r "$tmp/r1" "$tmp/u_a"; cp -r "$tmp/r1" "$tmp/u_b"; rm -rf "$tmp/u_a/report" "$tmp/u_b/report"
"$PY" -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['gpu']=d['gpu'].lower()+' '; json.dump(d, open(p,'w'))" "$tmp/u_b/run.json"
"$BIN" compare "$tmp/u_a" "$tmp/u_b" -o "$tmp/u_c" > /dev/null 2>&1
check "GPU label in other case + a space: the same GPU" [ "$(jget "$tmp/u_c/summary.json" focus.settings.gpu.state)" = same ]
# a TTFT change below the seconds' two decimals reads in ms: every TTFT of B
# 0.5 ms later moves p50 by +0.5 ms, "+0.50 ms", not "+0.000500 s"
# (twenty-fourth breaker: "0.13 s -> 0.13 s, -0.000878 s")
rm -rf "$tmp/ms_b"; cp -r "$tmp/r1" "$tmp/ms_b"; rm -rf "$tmp/ms_b/report"
"$PY" -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['ttfts']=[t+0.0005 for t in d['ttfts']]; d['latencies']=[t+0.0005 for t in d['latencies']]; json.dump(d, open(p,'w'))" "$tmp/ms_b/stress.json"
"$BIN" compare "$tmp/u_a" "$tmp/ms_b" -o "$tmp/ms_c" > /dev/null 2>&1
check "TTFT p50 +0.5 ms: '+0.50 ms' ($(jget "$tmp/ms_c/summary.json" focus.rows.ttft_p50_s.abs_change_text))" \
  [ "$(jget "$tmp/ms_c/summary.json" focus.rows.ttft_p50_s.abs_change_text)" = "+0.50 ms" ]

# A == B: allowed, says so, every change zero.
"$BIN" compare "$tmp/r1" "$tmp/r1/" -o "$tmp/self" > "$tmp/e5.out" 2> "$tmp/e5"; rc=$?
check "A == B: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "A == B: same_path" [ "$(jget "$tmp/self/summary.json" same_path)" = True ]
check "A == B: zero change" [ "$(jget "$tmp/self/summary.json" focus.rows.output_throughput_tps.rel_change)" = 0.0 ]
pdftotext "$tmp/self/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/pdfself.txt"
check "A == B: PDF says it compares a run with itself" grep -qF "compares a run with itself" "$tmp/pdfself.txt"
check "A == B: terminal says a run with itself" grep -qF "comparing a run with itself" "$tmp/e5.out"
# thirteenth breaker: the elasticity paragraph called it "one configuration run twice ... run-to-run variation"
check "A == B: the elasticity paragraph says same folder, not a repeat" bash -c "grep -qF 'A and B are the same folder: every change is zero by construction' '$tmp/pdfself.txt' && ! grep -qF 'run-to-run variation, so' '$tmp/pdfself.txt'"

# A == B for campaigns: "a campaign with itself", not "a run"
"$BIN" compare "$tmp/campA" "$tmp/campA" -o "$tmp/selfc" > "$tmp/selfc.out" 2> /dev/null; rc=$?
check "campaign A == B: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "campaign A == B: terminal says a campaign with itself" grep -qF "comparing a campaign with itself" "$tmp/selfc.out"
# twenty-fourth breaker: its pair line and every table row said "same settings (a repeat)"
check "campaign A == B: the pair is the same folder twice, not a repeat" bash -c "
  grep -qF ': the same folder twice' '$tmp/selfc.out' && ! grep -qF 'a repeat' '$tmp/selfc.out'"
np=$(jget "$tmp/selfc/summary.json" n_pairs)
check "campaign A == B: every matched-runs row ($np) says the same run twice" bash -c "
  [ \$(pdftotext -layout '$tmp/selfc/report.pdf' - | grep -c 'the same run twice') -eq $np ] &&
  ! pdftotext '$tmp/selfc/report.pdf' - | grep -qF 'same settings'"
pdftotext "$tmp/selfc/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/pdfselfc.txt"
check "campaign A == B: PDF says a campaign with itself" grep -qF "compares a campaign with itself" "$tmp/pdfselfc.txt"
check "campaign A == B: PDF never says a run with itself" bash -c "! grep -qF 'a run with itself' '$tmp/pdfselfc.txt'"
check "campaign A == B: 9 pairs, none unmatched" grep -qF "9 pairs, 0 controlled · 0 only in A · 0 only in B" "$tmp/pdfselfc.txt"

# Two campaigns without a common run name: exit 3, both sides' names, nothing written
mkdir -p "$tmp/campR"
for d in "$tmp"/campB/*/; do n=$(basename "$d"); cp -r "$d" "$tmp/campR/renamed-$n"; done
for f in "$tmp"/campB/*; do [ -f "$f" ] && cp "$f" "$tmp/campR/"; done
"$PY" - "$tmp/campR" <<'PYEOF'
import json, os, sys
for d in os.listdir(sys.argv[1]):
    p = os.path.join(sys.argv[1], d, "run.json")
    if os.path.isfile(p):
        j = json.load(open(p))
        if "name" in j:
            j["name"] = d
            json.dump(j, open(p, "w"))
PYEOF
"$BIN" compare "$tmp/campA" "$tmp/campR" -o "$tmp/nopairs" > /dev/null 2> "$tmp/e6"; rc=$?
check "no common run name: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "no common run name: nothing written" [ ! -e "$tmp/nopairs" ]
check "no common run name: says so" grep -qF "no run name is in both campaigns" "$tmp/e6"
check "no common run name: names A's runs" grep -qF "c64-6144-2048" "$tmp/e6"
check "no common run name: names B's runs" grep -qF "renamed-" "$tmp/e6"
# the terminal prints a controlled verdict with what it could not check, as
# the PDF does (simulated runs state no driver or CUDA)
"$BIN" simulate "$SRC/fixtures/configs/round1-max-num-seqs-10.json" -o "$tmp/r1s10" > /dev/null 2>&1 || bad "simulate round1-max-num-seqs-10"
"$BIN" compare "$tmp/r1" "$tmp/r1s10" -o "$tmp/c-s10" > "$tmp/c-s10.out" 2>&1
check "stdout: controlled A/B — max_num_seqs 128 → 10 (driver, CUDA not stated)" \
  grep -qF "controlled A/B — max_num_seqs 128 → 10 (driver, CUDA not stated)" "$tmp/c-s10.out"
# a copied folder is the same bench result, not a repeat, whatever its
# run.json says (the breaker renamed the copy and called it a rerun)
cp -r "$tmp/r1s10" "$tmp/r1s10-copy"
"$PY" -c "
import json, sys; p = sys.argv[1]; d = json.load(open(p)); d['name'] = d.get('name', 'r') + '-rerun'; d['notes'] = 'second run'
json.dump(d, open(p, 'w'))" "$tmp/r1s10-copy/run.json"
"$BIN" compare "$tmp/r1s10" "$tmp/r1s10-copy" -o "$tmp/c-copy" > "$tmp/c-copy.out" 2>&1
check "a copy: stdout says the same bench result, not a repeat" grep -qF "the same bench result twice (a copy, not a repeat)" "$tmp/c-copy.out"
check "a copy: never 'same settings (a repeat)'" bash -c "! grep -qF 'same settings (a repeat)' '$tmp/c-copy.out'"
# the same bench result beside another server log (fifteenth breaker: a simulated
# async_scheduling=false run, whose stress.json is byte-identical, was "one run saved twice"
# while its TTFT split moved): compared, with the client side called equal by construction
cp -r "$tmp/r1s10" "$tmp/r1s10-log"
echo "(APIServer pid=1) INFO 01-15 08:59:59 [loggers.py:1] a line only B's log has" >> "$tmp/r1s10-log/server.log"
"$BIN" compare "$tmp/r1s10" "$tmp/r1s10-log" -o "$tmp/c-log" > "$tmp/c-log.out" 2>&1
check "one bench result, two server logs: not a copy" bash -c "! grep -qF 'the same bench result twice' '$tmp/c-log.out' && grep -qF 'A and B hold one bench result' '$tmp/c-log.out'"
check "one bench result, two server logs: summary same_bench_only" [ "$(jget "$tmp/c-log/summary.json" same_bench_only)" = True ]
check "a copy: summary same_files" [ "$(jget "$tmp/c-copy/summary.json" same_files)" = True ]
check "a copy: the PDF says so" bash -c "pdftotext '$tmp/c-copy/report.pdf' - | tr -s ' \n' '  ' | grep -qF 'compares a run with a copy of itself, so every change is zero; it is not a repeat'"
# runs named alike within a campaign ("NAME [folder]"): paired with NAME in
# the other campaign, in folder order, not "no run name is in both"
mkdir -p "$tmp/dupA" "$tmp/dupB"
cp -r "$tmp/campA/c32-1024-256" "$tmp/dupA/only"
cp -r "$tmp/campA/c32-1024-256" "$tmp/dupB/r0"
cp -r "$tmp/campA/c64-1024-256" "$tmp/dupB/r1"
"$PY" -c "
import json, sys; p = sys.argv[1]; d = json.load(open(p)); d['name'] = 'c32-1024-256'; json.dump(d, open(p, 'w'))" "$tmp/dupB/r1/run.json"
"$BIN" compare "$tmp/dupA" "$tmp/dupB" -o "$tmp/dupcmp" > "$tmp/dupcmp.out" 2> "$tmp/dupcmp.err"; rc=$?
check "repeats named alike: compare exit 0 (got $rc: $(head -c 200 "$tmp/dupcmp.err"))" [ "$rc" -eq 0 ]
check "repeats named alike: c32-1024-256 paired with c32-1024-256 [r0], [r1] only in B" "$PY" -c "
import json, sys; s = json.load(open(sys.argv[1]))
p = s['pairs']; ok = len(p) == 1 and p[0]['name_a'] == 'c32-1024-256' and p[0]['name_b'] == 'c32-1024-256 [r0]'
sys.exit(0 if ok and s['unmatched_b'] == ['c32-1024-256 [r1]'] else 1)" "$tmp/dupcmp/summary.json"
# a copied campaign: every pair a copy, and the whole a copy
cp -r "$tmp/campA" "$tmp/campA-copy"
"$BIN" compare "$tmp/campA" "$tmp/campA-copy" -o "$tmp/cc-copy" > "$tmp/cc-copy.out" 2>&1
check "a copied campaign: stdout says so" grep -qF "comparing a campaign with a copy of itself, not a repeat" "$tmp/cc-copy.out"
check "a copied campaign: the focus pair is a copy" grep -qF ": the same bench result twice (a copy, not a repeat)" "$tmp/cc-copy.out"
check "a copied campaign: never 'same settings (a repeat)'" bash -c "! grep -qF 'same settings (a repeat)' '$tmp/cc-copy.out'"
check "a copied campaign: summary same_files, each pair too" "$PY" -c "
import json, sys; s = json.load(open(sys.argv[1]))
sys.exit(0 if s['same_files'] and all(p['same_files'] for p in s['pairs']) else 1)" "$tmp/cc-copy/summary.json"
check "a copied campaign: the pairs table says 'a copy'" bash -c "pdftotext '$tmp/cc-copy/report.pdf' - | grep -c 'a copy (same' | grep -qx 9"
# a campaign holding a copy of one of its runs (renamed): skipped with a
# note, never a repeat with ± 0.0
cp -r "$tmp/campA" "$tmp/campA-dup"
cp -r "$tmp/campA/c32-1024-256" "$tmp/campA-dup/zz-rerun"
"$PY" -c "
import json, sys; p = sys.argv[1]; d = json.load(open(p)); d['name'] = 'c32-1024-256-rerun'; json.dump(d, open(p, 'w'))" "$tmp/campA-dup/zz-rerun/run.json"
"$BIN" "$tmp/campA-dup" -o "$tmp/campA-dup-rep" > /dev/null 2> "$tmp/campA-dup.err"; rc=$?
check "a campaign with a copied run: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "a campaign with a copied run: the note names both" grep -qF "zz-rerun (run c32-1024-256-rerun): its bench result is byte-identical to that of c32-1024-256" "$tmp/campA-dup.err"
check "a campaign with a copied run: as many runs as campA" "$PY" -c "
import json, sys; sys.exit(0 if len(json.load(open(sys.argv[1]))['runs']) == int(sys.argv[2]) else 1)" "$tmp/campA-dup-rep/summary.json" "$(ls -d "$tmp/campA"/*/ | wc -l)"
# Open loop below saturation (brk18 H2): A at 1 req/s, B with
# max_num_batched_tokens 4096 and another seed (another arrival draw). Both
# keep up, so throughput is the arrivals': the verdict says so and no
# throughput ratio is drawn. With A's seed the draws are equal: not said.
# The truth from numpy: the sent rates from start_times, achieved from
# completed / duration.
mk_ol() {   # mk_ol OUT SEED MNBT
	"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); c["workload"]["num_prompts"]=60; c["seed"]=int(sys.argv[3]); c["scheduler"]["max_num_batched_tokens"]=int(sys.argv[4]); c["name"]=sys.argv[5]; json.dump(c,open(sys.argv[2],"w"))' \
		"$SRC/fixtures/configs/sweep/rate-1.json" "$tmp/$1.json" "$2" "$3" "$1"
	"$BIN" simulate "$tmp/$1.json" -o "$tmp/ol/$1" > /dev/null 2>&1 || bad "simulate $1"
}
mk_ol A 7 2048; mk_ol B 8 4096; mk_ol B7 7 4096
ol_truth() {   # the numpy verdict: both kept up and the sent rates differ by >= 2%
	"$PY" - "$tmp/ol/$1/stress.json" "$tmp/ol/$2/stress.json" <<'PYEOF'
import json, sys, numpy as np
r = []
for f in sys.argv[1:]:
    d = json.load(open(f)); st = np.array(d["start_times"])
    r.append(((len(st) - 1) / (st.max() - st.min()), d["completed"] / d["duration"]))
kept = all(a >= 0.95 * s for s, a in r)
print("True" if kept and abs(r[1][0] / r[0][0] - 1) >= 0.02 else "False", "%.3f" % r[0][0], "%.3f" % r[1][0])
PYEOF
}
read -r want sa sb < <(ol_truth A B)
"$BIN" compare "$tmp/ol/A" "$tmp/ol/B" -o "$tmp/olAB" -q; rc=$?
o="$tmp/olAB/summary.json"
check "open loop A/B: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "open loop A/B: numpy says the arrivals differ ($want: $sa vs $sb req/s)" [ "$want" = True ]
check "open loop A/B: arrivals_set_throughput = numpy's $want" [ "$(jget "$o" pairs.0.arrivals_set_throughput)" = "$want" ]
check "open loop A/B: sent rate A $sa req/s" near "$(jget "$o" pairs.0.sent_rps_a)" "$sa" 0.001
check "open loop A/B: sent rate B $sb req/s" near "$(jget "$o" pairs.0.sent_rps_b)" "$sb" 0.001
pdftotext "$tmp/olAB/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/olAB.txt"
check "open loop A/B: the verdict says throughput is the arrivals'" grep -qF "so their throughput is their arrivals: A's client sent $sa req/s, B's $sb req/s" "$tmp/olAB.txt"
check "open loop A/B: no throughput ratio" grep -qF "No throughput ratio is drawn" "$tmp/olAB.txt"
read -r want7 _ _ < <(ol_truth A B7)
"$BIN" compare "$tmp/ol/A" "$tmp/ol/B7" -o "$tmp/olAB7" -q
check "open loop, same seed: numpy says the same arrivals ($want7)" [ "$want7" = False ]
check "open loop, same seed: arrivals_set_throughput false" [ "$(jget "$tmp/olAB7/summary.json" pairs.0.arrivals_set_throughput)" = False ]
# The simulator draws lengths and arrivals from separate streams (brk20 M8):
# a burstiness change leaves every request's lengths as they were (numpy on
# both files), and compare calls the pair a controlled A/B on burstiness
for b in 1 0.5; do
	"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); w=c["workload"]; w["num_prompts"]=60; w["output_len"]=32; w["burstiness"]=float(sys.argv[3]); c["seed"]=3; c["name"]="burst-"+sys.argv[3]; json.dump(c,open(sys.argv[2],"w"))' \
		"$SRC/fixtures/configs/example-commented.json" "$tmp/burst$b.json" "$b"
	"$BIN" simulate "$tmp/burst$b.json" -o "$tmp/burst/b$b" > /dev/null 2>&1 || bad "simulate burstiness $b"
done
check "burstiness 1 vs 0.5: the same lengths for every request (numpy)" "$PY" -c "
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
sys.exit(0 if a['input_lens'] == b['input_lens'] and a['output_lens'] == b['output_lens'] and a['start_times'] != b['start_times'] else 1)" \
	"$tmp/burst/b1/stress.json" "$tmp/burst/b0.5/stress.json"
"$BIN" compare "$tmp/burst/b1" "$tmp/burst/b0.5" -o "$tmp/burstAB" -q
check "burstiness 1 vs 0.5: a controlled A/B on burstiness" [ "$(jget "$tmp/burstAB/summary.json" pairs.0.controlled)" = True ]
finish
