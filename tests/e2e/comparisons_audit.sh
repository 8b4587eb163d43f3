#!/usr/bin/env bash
# Knee and compare sentences against what their inputs prove (twenty-seventh
# audit). Each case is a simulated sweep or pair from fixtures/configs/sweep
# with a seed or a file edited; the truth is computed here from the files.
. "$(dirname "$0")/lib.bash"
S=$SRC/fixtures/configs/sweep
# sim NAME RATE SEED PROMPTS [POOL]: fixtures/configs/sweep/rate-2.json at another rate, seed, size
sim() {
  "$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); c["name"]=sys.argv[2]; c["workload"]["request_rate"]=float(sys.argv[3]); c["seed"]=int(sys.argv[4]); c["workload"]["num_prompts"]=int(sys.argv[5])
if len(sys.argv) > 6: c["gpu"]["kv_pool_tokens"]=int(sys.argv[6])
json.dump(c, open(sys.argv[7] if len(sys.argv) > 7 else "/dev/stdout", "w"))' "$S/rate-2.json" "$@" > "$tmp/$1.json"
  "$BIN" simulate "$tmp/$1.json" -o "$tmp/$1" > /dev/null || bad "simulate $1"
}
pdftext() { pdftotext "$1/report.pdf" - | tr -s ' \n\t' '   '; }
# rates PATH: "sent achieved offered" of a run (sent from its start times)
rates() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); st=sorted(d["start_times"]); print("%.4f %.4f %g" % ((len(st)-1)/(st[-1]-st[0]), d["completed"]/d["duration"], d["request_rate"]))' "$1/stress.json"; }
# strip PATH KEY...: a bench result without its per-request arrays and the named statistics
strip() { "$PY" -c 'import json,sys; p=sys.argv[1]; d=json.load(open(p)); [d.pop(k, None) for k in ["ttfts","itls","latencies","start_times","input_lens","output_lens","errors","generated_texts"] + sys.argv[2:]]; json.dump(d, open(p,"w"))' "$@"; }

# ---- a swept rate the SLO cannot judge (its arrays and p99 TTFT gone) and
# the server could not keep up with: no "knee not reached, sweep higher" ----
mkdir -p "$tmp/k1"
for r in 1 2 8; do "$BIN" simulate "$S/rate-$r.json" -o "$tmp/k1/rate-$r" > /dev/null; done
strip "$tmp/k1/rate-8/stress.json" p99_ttft_ms
read -r sent ach off <<< "$(rates "$tmp/k1/rate-2")"
"$BIN" knee "$tmp/k1" --slo 'ttft_p99<=60s' -o "$tmp/k1-out" -q 2> /dev/null
pdftext "$tmp/k1-out" > "$tmp/k1.txt"
check "unjudged 8 req/s: not 'Knee not reached ... sweep higher rates'" bash -c "
  ! grep -q 'Knee not reached' '$tmp/k1.txt' && grep -q 'No setting the SLO could judge fails it, but some settings could not be judged' '$tmp/k1.txt'"
check "unjudged 8 req/s: summary knee_reached is not false" [ "$(jget "$tmp/k1-out/summary.json" groups.0.knee_reached)" = True ]

# ---- a run whose client sent less than offered (a finite random draw): it
# kept up with what was sent, not "within 5% of the offered rate" ----
mkdir -p "$tmp/k2"
"$BIN" simulate "$S/rate-1.json" -o "$tmp/k2/rate-1" > /dev/null
sim k2r2 2 6 60 && mv "$tmp/k2r2" "$tmp/k2/rate-2"
read -r sent ach off <<< "$(rates "$tmp/k2/rate-2")"
check "seed 6 at 2 req/s: achieved $ach below 95% of offered $off, within 5% of sent $sent (numpy)" \
  "$PY" -c "import sys; sys.exit(0 if $ach < 0.95 * $off and $ach >= 0.95 * $sent else 1)"
"$BIN" knee "$tmp/k2" --slo 'ttft_p99<=2s' -o "$tmp/k2-out" -q 2> /dev/null
pdftext "$tmp/k2-out" > "$tmp/k2.txt"
check "kept up with what was sent, not 'within 5% of the offered rate'" bash -c "
  grep -q 'within 5% of the rate each client really sent' '$tmp/k2.txt' && ! grep -q 'within 5% of the offered rate' '$tmp/k2.txt'"

# ---- the server cannot keep up at 3.7 req/s but does at 3.8: said ----
mkdir -p "$tmp/kgap"
for r in 1 2; do "$BIN" simulate "$S/rate-$r.json" -o "$tmp/kgap/rate-$r" > /dev/null; done
sim g37 3.7 7 200 && mv "$tmp/g37" "$tmp/kgap/rate-3.7"
sim g38 3.8 6 200 && mv "$tmp/g38" "$tmp/kgap/rate-3.8"
read -r s7 a7 o7 <<< "$(rates "$tmp/kgap/rate-3.7")"; read -r s8 a8 o8 <<< "$(rates "$tmp/kgap/rate-3.8")"
check "3.7: achieved $a7 < 95% of sent $s7; 3.8: achieved $a8 >= 95% of sent $s8 (numpy)" \
  "$PY" -c "import sys; sys.exit(0 if $a7 < 0.95 * $s7 and $a8 >= 0.95 * $s8 else 1)"
"$BIN" knee "$tmp/kgap" --slo 'ttft_p99<=5s' -o "$tmp/kgap-out" -q 2> /dev/null
pdftext "$tmp/kgap-out" > "$tmp/kgap.txt"
check "cannot keep up from 3.7, and the higher rate that kept up is named" grep -q "At a higher rate swept, 3.8 req/s offered, the server kept up again" "$tmp/kgap.txt"

# ---- the SLO knee above μ by less than the plateau's 5%: not "below μ" ----
mkdir -p "$tmp/k7"
for r in 1 2 4 8 16 inf; do "$BIN" simulate "$S/rate-$r.json" -o "$tmp/k7/rate-$r" > /dev/null; done
cp -r "$tmp/kgap/rate-3.8" "$tmp/k7/rate-3.8"
"$BIN" knee "$tmp/k7" --slo 'ttft_p99<=3s' -o "$tmp/k7-out" -q 2> /dev/null
pdftext "$tmp/k7-out" > "$tmp/k7.txt"
mu=$(jget "$tmp/k7-out/summary.json" groups.0.littles_law.mu_rps); kn=$(jget "$tmp/k7-out/summary.json" groups.0.littles_law.slo_knee_rps)
check "knee $kn in (mu, 1.05 mu], mu = $mu: 'lies at μ', not 'below μ'" bash -c "
  $PY -c 'import sys; sys.exit(0 if $mu < $kn <= 1.05 * $mu else 1)' && grep -q 'lies at μ, above it by no more than the 5%' '$tmp/k7.txt' &&
  ! grep -q 'lies below μ' '$tmp/k7.txt'"

# ---- a knee setting repeated without arrays: the goodput range is the
# repeats' mean, never above the mean achieved rate ----
mkdir -p "$tmp/k5"
for r in 1 2 4; do "$BIN" simulate "$S/rate-$r.json" -o "$tmp/k5/rate-$r" > /dev/null; done
sim k5b 2 3 200 && mv "$tmp/k5b" "$tmp/k5/rate-2b"
for d in "$tmp"/k5/*/; do strip "$d/stress.json"; done
"$BIN" knee "$tmp/k5" --slo 'ttft_p99<=2s,e2el_p50<=3s' -o "$tmp/k5-out" -q 2> /dev/null
check "repeated knee setting: goodput range = the repeats' mean range, hi <= mean achieved" "$PY" - "$tmp/k5-out/summary.json" <<'PYEOF'
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
k = g["knee"]
pts = [p for p in g["points"] if p["x"] == k["x"]]
lo = sum(p["goodput_lo_rps"] for p in pts) / len(pts)
hi = sum(p["goodput_hi_rps"] for p in pts) / len(pts)
ok = len(pts) == 2 and abs(k["goodput_lo_rps"] - lo) < 1e-9 and abs(k["goodput_hi_rps"] - hi) < 1e-9 and hi <= k["achieved_rps"]
sys.exit(0 if ok else 1)
PYEOF

# ---- compare: a pool that moved while B's server arguments are unknown ----
sim pa 2 7 100 16384; sim pb 2 7 100 20480
sed -i 's/\(non-default args: {\)/\1'"'"'gpu_memory_utilization'"'"': 0.8, /' "$tmp/pa/server.log"
sed -i '/non-default args/d' "$tmp/pb/server.log"
check "A's args line names gpu_memory_utilization, B has none" bash -c "grep -q gpu_memory_utilization '$tmp/pa/server.log' && ! grep -q 'non-default args' '$tmp/pb/server.log'"
"$BIN" compare "$tmp/pa" "$tmp/pb" -o "$tmp/pool-out" > /dev/null 2>&1
pdftext "$tmp/pool-out" > "$tmp/pool.txt"
check "pool moved, B's arguments unknown: not 'the pool moved by itself'" bash -c "
  [ \"\$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"focus\"][\"pool_moved_alone\"])' '$tmp/pool-out/summary.json')\" = False ] &&
  ! grep -q 'moved by itself' '$tmp/pool.txt'"

# ---- compare: two rates are not "another draw of the random arrivals" ----
"$BIN" simulate "$S/rate-1.json" -o "$tmp/c1a" > /dev/null; "$BIN" simulate "$S/rate-2.json" -o "$tmp/c1b" > /dev/null
"$BIN" compare "$tmp/c1a" "$tmp/c1b" -o "$tmp/c1-out" > /dev/null 2>&1
pdftext "$tmp/c1-out" > "$tmp/c1.txt"
check "rate 1 vs 2: the rate setting changed, not another draw" bash -c "
  grep -q 'the request rate setting changed' '$tmp/c1.txt' && ! grep -q 'another draw of the random arrivals' '$tmp/c1.txt'"

# ---- compare: a serve parameter both bench results state, differing ----
if [ -d "$REAL/bench/sweep-v0.25.1" ]; then
  d=$(ls -d "$REAL"/bench/sweep-v0.25.1/*/ | head -1)
  mkdir -p "$tmp/cx/A" "$tmp/cx/B"
  for s in A:0:2048 B:1:8192; do
    IFS=: read -r side run v <<< "$s"
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["max_num_batched_tokens"]=int(sys.argv[3]); json.dump(d, open(sys.argv[2],"w"))' \
      "$d/run=$run.json" "$tmp/cx/$side/stress.json" "$v"
  done
  "$BIN" compare "$tmp/cx/A" "$tmp/cx/B" -o "$tmp/cx-out" > /dev/null 2>&1
  check "bench max_num_batched_tokens 2048 → 8192 is a difference" \
    [ "$(jget "$tmp/cx-out/summary.json" focus.differences_text)" = "bench max_num_batched_tokens 2048 → 8192" ]
fi

# ---- compare: repeats that differ only by seed; 3 rates x 4 repeats, 7
# metrics each: unadjusted, one of them reads p < 0.05 (noise: rate2 ITL p99,
# p = 0.014 of 23 testable); Holm's
# adjustment, recomputed here from the raw p-values (summary.json keeps
# 12 digits), keeps it within ----
for side in A B; do
  mkdir -p "$tmp/noise/$side"
  for r in 1 2 3; do for k in 1 2 3 4; do
    base=100; [ "$side" = B ] && base=200
    seed=$(( base + r * 10 + k ))
    "$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); c["name"]=sys.argv[2]; c["seed"]=int(sys.argv[3]); c["workload"]["request_rate"]=float(sys.argv[4]); c["workload"]["num_prompts"]=100; json.dump(c, open(sys.argv[5],"w"))' \
      "$S/rate-2.json" "rate$r-r$k" "$seed" "$r" "$tmp/noise/c.json"
    "$BIN" simulate "$tmp/noise/c.json" -o "$tmp/noise/$side/rate$r-r$k" > /dev/null
  done; done
done
"$BIN" compare "$tmp/noise/A" "$tmp/noise/B" -o "$tmp/noise-out" > /dev/null 2>&1
pdftext "$tmp/noise-out" > "$tmp/noise.txt"
check "seed-only repeats: some raw p < 0.05, Holm's p_holm recomputed, none 'larger than run-to-run variation'" "$PY" - "$tmp/noise-out/summary.json" "$tmp/noise.txt" <<'PYEOF'
import json, sys
t = [x for x in json.load(open(sys.argv[1]))["repeat_tests"] if not x["no_spread"] and x["p_two_sided"] is not None]
m = len(t)
order = sorted(range(m), key=lambda i: t[i]["p_two_sided"])
run, holm = 0.0, {}
for k, i in enumerate(order):
    run = max(run, min(1.0, (m - k) * t[i]["p_two_sided"]))
    holm[i] = run
ok = any(x["p_two_sided"] < 0.05 for x in t) and all(abs(holm[i] - t[i]["p_holm"]) <= 1e-9 * holm[i] and t[i]["n_tests"] == m for i in range(m))
ok = ok and not any(x["exceeds_noise"] for x in t) and "larger than run-to-run variation" not in open(sys.argv[2]).read()
sys.exit(0 if ok else 1)
PYEOF
# ---- fixed 1,024-token prompts against prompts uniform on 24-2,024 (mean 1,024): not a repeat ----
# (thirty-second breaker: the mean lengths alone made them "same settings (a repeat)")
for spec in fixed:1024 uniform:'{"dist": "uniform", "min": 24, "max": 2024}'; do
  "$PY" - "$SRC/fixtures/configs/small-1024-256.json" "$tmp/len-${spec%%:*}.json" "${spec#*:}" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["workload"]["input_len"] = json.loads(sys.argv[3]); d["seed"] = 5
json.dump(d, open(sys.argv[2], "w"))
PYEOF
  "$BIN" simulate "$tmp/len-${spec%%:*}.json" -o "$tmp/len-${spec%%:*}" > /dev/null || bad "simulate ${spec%%:*}"
done
"$BIN" compare "$tmp/len-fixed" "$tmp/len-uniform" -o "$tmp/len-cmp" -q > /dev/null 2>&1 || bad "compare lengths"
check "length spread: the input sds (numpy) differ, the means within 1%: the one difference, not 'a repeat'" "$PY" - \
  "$tmp/len-fixed/stress.json" "$tmp/len-uniform/stress.json" "$tmp/len-cmp/summary.json" <<'PYEOF'
import json, sys
import numpy as np
a, b = (np.array(json.load(open(p))["input_lens"], float) for p in sys.argv[1:3])
p = json.load(open(sys.argv[3]))["pairs"][0]
row = p["other_settings"].get("input length sd (tokens)")
ok = abs(a.mean() - b.mean()) <= 0.01 * max(a.mean(), b.mean()) and a.std(ddof=1) == 0 and b.std(ddof=1) > 400
ok = ok and row is not None and row["state"] == "differs" and row["b"] == "%.0f" % b.std(ddof=1)
ok = ok and p["verdict"] == "controlled" and p["differences"] == [{"a": "0", "b": row["b"], "setting": "input length sd (tokens)"}]
sys.exit(0 if ok else 1)
PYEOF
# ---- B's log without vLLM's engine-config line: its settings are unknown, not dropped ----
# (thirty-second breaker: A's tensor_parallel_size and kv_cache_dtype vanished from the
# table and max_num_seqs 128 → 64 read as a controlled A/B)
"$PY" - "$SRC/fixtures/configs/small-1024-256.json" "$tmp/cfgB.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["scheduler"]["max_num_seqs"] = 64; d["seed"] = 2
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$BIN" simulate "$SRC/fixtures/configs/small-1024-256.json" -o "$tmp/cfgA" > /dev/null || bad "simulate cfgA"
"$BIN" simulate "$tmp/cfgB.json" -o "$tmp/cfgB" > /dev/null || bad "simulate cfgB"
check "A's log prints the engine-config line, B's is cut" bash -c "grep -q 'Initializing a V1 LLM engine' '$tmp/cfgA/server.log' &&
  sed -i '/Initializing a V1 LLM engine/d' '$tmp/cfgB/server.log'"
"$BIN" compare "$tmp/cfgA" "$tmp/cfgB" -o "$tmp/cfg-cmp" -q > /dev/null 2>&1 || bad "compare cfg"
check "config line on one side: its settings unknown, not a controlled A/B" "$PY" -c "
import json, sys; p = json.load(open(sys.argv[1]))['pairs'][0]
o = p['other_settings'].get('config tensor_parallel_size')
sys.exit(0 if o and o['state'] == 'unknown' and o['b'] == 'not printed' and not p['controlled'] else 1)" "$tmp/cfg-cmp/summary.json"
finish
