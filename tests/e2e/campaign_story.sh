#!/usr/bin/env bash
# The campaign story (issue 10) on the two simulated reference campaigns.
# Round 1: every story number against numpy on the simulated files (the
# light run c64-1024-256 and the focus run c64-6144-2048). Round 2: the
# reference report's numbers (DESIGN.md §6 and the round-2 report in
# ../shared/seeds) within the simulator's tolerances.
. "$(dirname "$0")/lib.bash"
for r in 1 2; do
  bash "$SRC/scripts/simulate_campaign.sh" "$SRC/fixtures/configs/campaign-round$r" "$tmp/c$r" "$BIN" > /dev/null; rc=$?
  check "round $r: simulate exit 0 (got $rc)" [ "$rc" -eq 0 ]
  "$BIN" "$tmp/c$r" > /dev/null 2> "$tmp/err$r"; rc=$?
  check "round $r: report exit 0 (got $rc)" [ "$rc" -eq 0 ]
  [ "$rc" -eq 0 ] || cat "$tmp/err$r"
done
s1="$tmp/c1/report/summary.json"
s2="$tmp/c2/report/summary.json"

# ---- round 1: story numbers = numpy on the simulated stress.json files ----
"$PY" - "$s1" "$tmp/c1" > "$tmp/r1chk" <<'PYEOF'
import json, sys
import numpy as np
s = json.load(open(sys.argv[1]))
st = s["story"]
bad = 0
def stress(name):
    return json.load(open(f"{sys.argv[2]}/{name}/stress.json"))
L, F = stress("c64-1024-256"), stress("c64-6144-2048")
def slow(d):
    a = np.concatenate([np.array(x) for x in d["itls"] if x]) * 1000
    return float((a > 3 * np.median(a)).sum()) / a.size
def itl(d, q):
    return float(np.percentile(np.concatenate([np.array(x) for x in d["itls"] if x]), q)) * 1000
want = {
    "light_output_tps": L["output_throughput"],
    "focus_output_tps": F["output_throughput"],
    "output_tps_change_frac": F["output_throughput"] / L["output_throughput"] - 1,
    "output_tps_kept_frac": F["output_throughput"] / L["output_throughput"],
    "light_ttft_p50_ms": float(np.median(L["ttfts"])) * 1000,
    "focus_ttft_p50_ms": float(np.median(F["ttfts"])) * 1000,
    "ttft_p50_ratio": float(np.median(F["ttfts"])) / float(np.median(L["ttfts"])),
    "light_itl_p90_ms": itl(L, 90), "focus_itl_p90_ms": itl(F, 90),
    "light_itl_p99_ms": itl(L, 99), "focus_itl_p99_ms": itl(F, 99),
    "itl_p99_ratio": itl(F, 99) / itl(L, 99),
    "light_slow_gap_frac": slow(L), "focus_slow_gap_frac": slow(F),
    "light_input_tokens": 1024, "light_output_tokens": 256,
    "focus_input_tokens": 6144, "focus_output_tokens": 2048,
    "light_num_prompts": 384, "focus_num_prompts": 128, "concurrency": 64,
}
for k, v in want.items():
    got = st.get(k)
    if got is None or abs(got - v) > 1e-9 * max(1, abs(v)):
        print("story", k, got, "expected", v); bad += 1
if st["light_name"] != "c64-1024-256" or st["focus_name"] != "c64-6144-2048":
    print("names", st["light_name"], st["focus_name"]); bad += 1
fi = s["campaign"]["focus_index"]
fr = s["runs"][fi]
if abs(st["recompute_share_frac"] - fr["flops"]["recompute_share_frac"]) > 1e-12:
    print("recompute share", st["recompute_share_frac"]); bad += 1
if abs(st["resident_share"] - fr["residency"]["resident_share"]) > 1e-12:
    print("resident share", st["resident_share"]); bad += 1
# the TTFT split of the light and focus runs, as their own reports state it
names = [r["run"]["name"] for r in s["runs"]]
li = names.index(st["light_name"])
for who, idx in (("light", li), ("focus", fi)):
    for part in ("queue", "prefill"):
        if st[who + "_" + part + "_s"] != s["runs"][idx]["ttft_split"][part + "_s"]:
            print("story", who, part, st[who + "_" + part + "_s"]); bad += 1
if abs(st["queue_ratio"] / (st["focus_queue_s"] / st["light_queue_s"]) - 1) > 1e-9:   # summary.json keeps 12 digits
    print("queue ratio", st["queue_ratio"]); bad += 1
ids = st["findings"]
for want_id in ["length_contrast_n", "wound_vs_cliff", "itl_p90_better", "rec_kv_pool_experiment"]:
    if want_id not in ids:
        print("missing story finding", want_id, ids); bad += 1
# the reference's tally: three hold, one partly (the recompute gaps exist but
# sit at p99.99, where p99 cannot see them), one does not (V1 logs no line)
exp = {"kv_full": "holds", "preemptions": "holds", "log_lines": "does_not_hold",
       "itl_p99_spike": "partly", "ttft_explodes": "holds"}
if st["expectations"] != exp:
    print("expectations", st["expectations"]); bad += 1
# the reference's numbers, round 1: 1,405 -> 439 tok/s (-69%), TTFT x281
# (the light run's frontend spread, frontend_cv 1.5, de-synchronises its
# closed-loop waves: x258 here; x185 at cv 0.5)
if not (-0.75 < st["output_tps_change_frac"] < -0.63):
    print("throughput change", st["output_tps_change_frac"]); bad += 1
if not (0.85 * 281 < st["ttft_p50_ratio"] < 1.15 * 281):
    print("TTFT ratio (x281)", st["ttft_p50_ratio"]); bad += 1
for fid in ["one_victim_per_preemption", "capacity_red_line", "soft_degradation", "rec_mfu_from_flops_counter"]:
    if fid not in [f["id"] for f in fr["findings"]]:
        print("missing focus finding", fid); bad += 1
# where a request's time went (reference: 76% of a request's life queued):
# the server's mean queue time over numpy's mean E2EL of the arrays
# (ttft + sum of ITLs per request; 232.76 s, 75.8% here)
e2el = float(np.mean(np.array(F["ttfts"]) + np.array([sum(x) for x in F["itls"]])))
if "request_life_queue" not in [f["id"] for f in fr["findings"]]:
    print("missing focus finding request_life_queue"); bad += 1
elif abs(fr["derived"]["e2el_mean_s"] / e2el - 1) > 1e-9 or \
        abs(fr["derived"]["queue_over_e2el_frac"] - fr["ttft_split"]["queue_s"] / e2el) > 1e-9 or \
        abs(fr["derived"]["decode_mean_s"] - (e2el - float(np.mean(F["ttfts"])))) > 1e-6 or \
        not 0.70 < fr["derived"]["queue_over_e2el_frac"] < 0.82:
    print("request life", fr["derived"]["e2el_mean_s"], e2el, fr["derived"]["queue_over_e2el_frac"]); bad += 1
# preemption as part of the steady state (reference Figure 5: the 1st at 9 s,
# the 37th at 580 s, "almost perfectly even"): the KS distance of the event
# times to a constant rate from first to last, recomputed here with numpy
ev = fr["preemptions"]["events"]
t = np.array([e["t_since_start_s"] for e in ev]); c = np.cumsum([e["count"] for e in ev]); n = c[-1]
u = (t - t[0]) / (t[-1] - t[0])
D = max(np.abs(c / n - u).max(), np.abs(np.concatenate([[0], c[:-1]]) / n - u).max())
crit = 1.358 / (np.sqrt(n) + 0.12 + 0.11 / np.sqrt(n))
pp = fr["preemptions"]
if abs(pp["steady_ks_d"] - D) > 1e-12 or abs(pp["steady_ks_crit"] - crit) > 1e-12 or not D < crit or \
        "preemption_steady_state" not in [f["id"] for f in fr["findings"]]:
    print("steady pace", pp["steady_ks_d"], D, crit); bad += 1
# the red line: mean running / the log's 10.60x (reference 11.17 / 10.60 = 1.05)
d = fr["derived"]
if abs(d["running_mean_over_log_max_concurrency"] - fr["residency"]["running_mean"] / 10.60) > 1e-9:
    print("red line", d["running_mean_over_log_max_concurrency"]); bad += 1
# only the five runs marked "role": "calibration" calibrate
if s["calibration"]["n_used"] != 5:
    print("calibration n_used", s["calibration"]["n_used"]); bad += 1
print(f"BAD {bad}")
PYEOF
grep -v "^BAD" "$tmp/r1chk" || true
check "round 1: story numbers = numpy on the simulated files" grep -qx "BAD 0" "$tmp/r1chk"

# ---- round 2: the reference's numbers ----
"$PY" - "$s2" > "$tmp/r2chk" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
st, cal = s["story"], s["calibration"]
fr = s["runs"][s["campaign"]["focus_index"]]
bad = 0
def within(name, got, ref, rel):
    global bad
    if got is None or abs(got - ref) > rel * abs(ref):
        print(name, got, "reference", ref, "tolerance", rel); bad += 1
within("calibration a (13.53 GFLOP/token)", cal["a_gflop_per_token"], 13.53, 0.005)
within("calibration b (0.000173)", cal["b_gflop_per_token_per_context_token"], 0.000173, 0.05)
within("calibration R² (0.90)", cal["r2"], 0.90, 0.02)
within("preemptions (38)", fr["preemptions"]["n_preemptions"], 38, 0.20)
# the server's FLOPs formula is round 1's (the same model); round 2's own
# calibration is flatter (R² 0.90), as the reference's was: 29.2% excess
within("FLOPs excess (29.2%)", fr["flops"]["excess_frac"], 0.292, 0.05)
within("FLOPs measured (1.9884e16)", fr["flops"]["measured_flops"], 1.9884e16, 0.05)
within("recomputed tokens, FLOPs estimate (304k)", fr["flops"]["recomputed_tokens"], 304000, 0.05)
within("running mean (15.65)", fr["residency"]["running_mean"], 15.65, 0.05)
within("waiting mean (36.4)", fr["residency"]["waiting_mean"], 36.4, 0.05)
within("KV median (95.85%)", fr["residency"]["kv_usage_median_frac"], 0.9585, 0.01)
within("output tok/s (532.4)", fr["bench"]["output_throughput_tps"], 532.4, 0.05)
within("TTFT p50 (169 s)", fr["latency"]["ttft"]["median_ms"], 169000, 0.05)
within("ITL p50 (23.39 ms)", fr["latency"]["itl"]["median_ms"], 23.39, 0.05)
within("frontend (0.42 s)", fr["ttft_split"]["frontend_s"], 0.42, 0.10)
within("light run output tok/s (1,388)", st["light_output_tps"], 1388, 0.05)
within("light run KV peak (67.5%)", st["light_kv_peak_frac"], 0.675, 0.02)
within("throughput change (-62%)", st["output_tps_change_frac"], -0.62, 0.05)
within("TTFT ratio (x215)", st["ttft_p50_ratio"], 215, 0.25)
within("recompute share (6.2%)", st["recompute_share_frac"], 0.062, 0.05)
print(f"BAD {bad}")
PYEOF
grep -v "^BAD" "$tmp/r2chk" || true
check "round 2: the reference's numbers" grep -qx "BAD 0" "$tmp/r2chk"

# ---- the experiment plan: campaign.json "expect", and run.json "expect" ----
cp -r "$tmp/c1" "$tmp/c1plan"
rm -rf "$tmp/c1plan/report"
cat > "$tmp/c1plan/campaign.json" <<'JSONEOF'
{"expect": [{"check": "log_lines", "plan": "server log lines 'Sequence group X is preempted by Y'"},
            {"check": "itl_p99_spike", "plan": "P99 ITL shows huge spikes"}, "kv_full"]}
JSONEOF
"$BIN" "$tmp/c1plan" > /dev/null 2>&1; rc=$?
check "plan: campaign report exit 0 (got $rc)" [ "$rc" -eq 0 ]
sp="$tmp/c1plan/report/summary.json"
check "plan: source campaign.json" [ "$(jget "$sp" story.plan_source)" = campaign.json ]
check "plan: 3 checks in the plan's order" [ "$(jget "$sp" story.checks.0.check),$(jget "$sp" story.checks.1.check),$(jget "$sp" story.checks.2.check)" = "log_lines,itl_p99_spike,kv_full" ]
check "plan: verdicts from the data" [ "$(jget "$sp" story.checks.0.verdict),$(jget "$sp" story.checks.1.verdict),$(jget "$sp" story.checks.2.verdict)" = "does_not_hold,partly,holds" ]
pdftotext "$tmp/c1plan/report/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/pplan.txt"
check "plan: the plan's words in the PDF" grep -qF "P99 ITL shows huge spikes" "$tmp/pplan.txt"
check "plan: beside the check they were held to" grep -qF "P99 ITL shows huge spikes (checked as: p99 ITL spikes because preempted requests recompute)" "$tmp/pplan.txt"
echo '{"expect": ["kv_full", "p99_spikes"]}' > "$tmp/c1plan/campaign.json"
rm -rf "$tmp/c1plan/report"
"$BIN" "$tmp/c1plan" > /dev/null 2> "$tmp/perr"; rc=$?
check "plan: an unknown check exits 3 (got $rc)" [ "$rc" -eq 3 ]
check "plan: the message names file:line:col, the item and the checks allowed" grep -qF "campaign.json:1:24: \"expect\" item 2: \"p99_spikes\" is not a check the report can decide; expected one of kv_full" "$tmp/perr"
check "plan: nothing written on bad input" [ ! -e "$tmp/c1plan/report" ]
# no preemption anywhere: the recompute spike the plan expects cannot have happened
mkdir -p "$tmp/c0plan"
cp -r "$tmp/c1/c16-2048-512" "$tmp/c1/c32-1024-256" "$tmp/c0plan/"
echo '{"expect": ["itl_p99_spike"]}' > "$tmp/c0plan/campaign.json"
"$BIN" "$tmp/c0plan" -o "$tmp/c0plan-out" -q 2> /dev/null
v=$(jget "$tmp/c0plan-out/summary.json" story.checks.0.verdict)
check "plan, no preemption: the ITL spike does not hold (got $v), said why" bash -c "
  [ '$v' = does_not_hold ] &&
  pdftotext '$tmp/c0plan-out/report.pdf' - | tr -s ' \n' '  ' | grep -qF 'the scheduler preempted no request during the run, so no recompute could make p99 ITL spike'"
printf '{"expect": ["kv_full"],\n  "bogus": 1}\n' > "$tmp/c1plan/campaign.json"
"$BIN" "$tmp/c1plan" > /dev/null 2> "$tmp/perr2"; rc=$?
check "plan: an unknown campaign.json key exits 3 (got $rc), at its line and column" bash -c "
  [ $rc -eq 3 ] && grep -qF 'campaign.json:2:3: unknown key \"bogus\"' '$tmp/perr2'"
# run.json: a key it does not hold (a typo) is said with its place, not ignored silently
"$PY" - "$tmp/c1/c64-6144-2048/run.json" "$tmp/typo.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["kv_pool_token"] = 5
json.dump(d, open(sys.argv[2], "w"), indent=1)
PYEOF
"$BIN" "$tmp/c1/c64-6144-2048" --meta "$tmp/typo.json" -o "$tmp/typo" > /dev/null 2> "$tmp/typo.err"; rc=$?
check "run.json typo: exit 0 (got $rc), the key named with file:line:col" bash -c "
  [ $rc -eq 0 ] && grep -qE 'typo.json:[0-9]+:2: unknown key \"kv_pool_token\" ignored' '$tmp/typo.err'"
# one run with run.json "expect": the ITL p99 spike is unknown without a light run
"$PY" - "$tmp/c1/c64-6144-2048/run.json" "$tmp/r.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["expect"] = ["itl_p99_spike", "preemptions"]
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$BIN" "$tmp/c1/c64-6144-2048" --meta "$tmp/r.json" -o "$tmp/onerun" > /dev/null 2>&1; rc=$?
check "plan: single run exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "plan: single run verdicts (spike unknown, preemptions hold)" [ "$(jget "$tmp/onerun/summary.json" plan.checks.0.verdict),$(jget "$tmp/onerun/summary.json" plan.checks.1.verdict)" = "unknown,holds" ]

for r in 1 2; do
  pdftotext "$tmp/c$r/report/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/p$r.txt"
  check "round $r PDF: the length contrast" grep -qF "Same C = 64, the request length changed" "$tmp/p$r.txt"
  # the front page's callout card, its numbers those of summary.json's story
  # (checked against numpy above): reference "1,405 -> 439 tok/s, -69%; TTFT x281"
  card=$("$PY" -c 'import json, sys
st = json.load(open(sys.argv[1]))["story"]
a, b, ch, x = st["light_output_tps"], st["focus_output_tps"], st["output_tps_change_frac"], st["ttft_p50_ratio"]
print(f"{a:,.0f} → {b:,.0f} output tok/s ({ch * 100:.0f}%) · TTFT p50 ×{x:,.0f}")' "$tmp/c$r/report/summary.json")
  check "round $r PDF: the contrast card ($card)" grep -qF "$card" "$tmp/p$r.txt"
  check "round $r PDF: recompute is the wound" grep -qF "Recompute is the wound, the concurrency collapse is the cliff" "$tmp/p$r.txt"
  check "round $r PDF: the expectations table" grep -qF "The usual expectations of an overload test" "$tmp/p$r.txt"
  check "round $r PDF: the kv-cache-memory experiment" grep -qF -- "--kv-cache-memory-bytes at three sizes" "$tmp/p$r.txt"
  check "round $r PDF: figures numbered" grep -qF "Figure 2. The whole run, sampled from the server's /metrics" "$tmp/p$r.txt"
done
# the light run differs from the focus in a server argument too (enforce_eager): no length contrast,
# and the report says which setting keeps it out instead of dropping the comparison silently
# (fifth breaker)
mkdir -p "$tmp/cx"
for r in c16-2048-512 c64-1024-256 c64-6144-2048; do cp -r "$tmp/c1/$r" "$tmp/cx/"; rm -rf "$tmp/cx/$r/report"; done
sed -i "0,/'max_num_seqs': 128/s//'max_num_seqs': 128, 'enforce_eager': True/" "$tmp/cx/c64-1024-256/server.log"
"$BIN" "$tmp/cx" -q > /dev/null 2>&1
sx="$tmp/cx/report/summary.json"
check "light run with another server argument: no contrast, the near run named" \
	[ "$(jget "$sx" story.has_contrast)/$(jget "$sx" story.near_name)" = "False/c64-1024-256" ]
check "light run with another server argument: the setting named" bash -c "\"$PY\" -c 'import json,sys; d=json.load(open(sys.argv[1]))[\"story\"]; sys.exit(0 if \"enforce_eager\" in d[\"near_differs\"] and \"no_contrast_settings\" in d[\"findings\"] else 1)' '$sx'"
# decode_excess RUN WANT NOT P90_MAX BUDGET: numpy on RUN's stress.json: the decode time
# beyond (out - 1) x ITL p50 is >= 20%, ITL p90/p50 < P90_MAX, finding WANT is among the run's
# findings and NOT (or "-") is not; BUDGET 1: the summary's budget.decode_stolen_frac equals it
decode_excess() {
	"$PY" - "$s1" "$tmp/c1/$1/stress.json" "$1" "$2" "$3" "$4" "$5" <<'PYEOF'
import json, sys
import numpy as np
s = json.load(open(sys.argv[1]))
name, want, avoid, p90_max, budget = sys.argv[3], sys.argv[4], sys.argv[5], float(sys.argv[6]), sys.argv[7] == "1"
run = [r for r in s["runs"] if r["run"]["name"] == name][0]
d = json.load(open(sys.argv[2]))
ok = [i for i, e in enumerate(d["errors"]) if not e]
itl = np.concatenate([np.array(d["itls"][i]) for i in ok])
dec = np.mean([d["latencies"][i] - d["ttfts"][i] for i in ok])
out = np.mean([d["output_lens"][i] for i in ok])
stolen = dec / ((out - 1) * np.median(itl)) - 1
p90 = np.percentile(itl, 90) / np.median(itl)
ids = [f["id"] for f in run["findings"]]
print("stolen %.4f p90/p50 %.3f" % (stolen, p90))
assert stolen >= 0.2 and p90 < p90_max, (stolen, p90)
assert not budget or abs(run["budget"]["decode_stolen_frac"] - stolen) < 1e-6, (stolen, run["budget"]["decode_stolen_frac"])
assert want in ids and avoid not in ids, ids
PYEOF
}
# the light run's uneven ITL is prefill sharing its steps, not a slow decode (fifteenth
# breaker: "decoding itself is slow" for a 21.5 ms median and 116 ms p90)
decode_excess c64-1024-256 decode_shares_prefill decode_bound inf 1 > "$tmp/light.chk"
rc=$?
check "light run: prefill sharing the decode steps, not a slow decode ($(cat "$tmp/light.chk"))" [ "$rc" -eq 0 ]
# the pool in bytes to the 3 digits the log's 4.64 GiB carries (fifteenth breaker:
# 4,982,162,063 bytes claimed 10 digits from a number printed with 3)
check "round 1: the designed experiment's pool is 4.98e9 bytes, not 4,982,162,063" "$PY" -c "
import json, sys
s = json.load(open(sys.argv[1]))
gib = [r for r in s['runs'] if r['run']['name'] == s['story']['focus_name']][0]['capacity']['kv_pool_gib']
want = float('%.3g' % (gib * 2**30))
sys.exit(0 if gib == 4.64 and s['story']['kv_pool_bytes'] == want == 4.98e9 else 1)" "$s1"
# a steady p90 yet decode 20%+ beyond (out - 1) x ITL p50 (seventeenth breaker: "no rule
# fired" beside a 37.5% excess): said as steps carrying prefill
decode_excess c32-1024-256 decode_tail_prefill - 1.5 0 > "$tmp/c32.chk"
rc=$?
check "c32-1024-256: decode time in the prefill steps said ($(cat "$tmp/c32.chk"))" [ "$rc" -eq 0 ]
# KV bytes per token from the log's 4.64 GiB / 86,864 tokens = 57,355.9 B = 56.01 KiB: both to 3 digits
check "round 1: KV bytes per token ≈57,400 bytes (≈56.0 KiB), KiB from the value" bash -c "pdftotext -layout '$tmp/c1/report/report.pdf' - | grep -q 'KV bytes per token .* ≈57,400 bytes (≈56.0 KiB)'"
finish
