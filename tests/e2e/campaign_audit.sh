#!/usr/bin/env bash
# Campaign sentences and labels that claimed more than the inputs show
# (thirty-first audit). Each case edits the simulated reference campaign
# (fixtures/configs/campaign-round1) the way a real one differs, and states
# what is true of the edited files:
#  - a focus run with 0 preemptions: Figure 8's caption does not read its
#    distance from the cost line as recompute;
#  - a calibration-only run that preempted: the shaded band is not labelled
#    "no preemptions";
#  - a calibration run that names no GPU while the focus run does: the
#    table says the same GPU was assumed, summary.json flags it;
#  - a "light" run of 40 prompts at C = 64 never had 64 requests in flight:
#    no "Same C = 64" contrast;
#  - a configuration of 3 repeats whose one repeat has no metrics: its
#    preemption bar stands on 2 repeats and is labelled "n=2 of 3";
#  - the focus run without its per-request ITL arrays: the expectations table
#    does not place the preemption gaps at p99.99.
. "$(dirname "$0")/lib.bash"
CFG=$SRC/fixtures/configs/campaign-round1
pdftext() { pdftotext "$1/report.pdf" - | tr -s ' \n\t' '   '; }
bash "$SRC/scripts/simulate_campaign.sh" "$CFG" "$tmp/camp" "$BIN" > /dev/null || bad "simulate campaign"
# fresh copy of the campaign without reports
copy() { cp -r "$tmp/camp" "$tmp/$1"; rm -rf "$tmp/$1"/*/report; }
# preemptions DIR: the rise of vllm:num_preemptions_total in DIR/metrics.csv (numpy)
preemptions() { "$PY" - "$1/metrics.csv" <<'PYEOF'
import csv, sys
import numpy as np
rows = list(csv.DictReader(open(sys.argv[1])))
v = np.array([float(r["vllm:num_preemptions_total"]) for r in rows if r["vllm:num_preemptions_total"] != ""])
print("%g" % (v.max() - v.min()))
PYEOF
}

# ---- the focus moved to a run without preemptions ----
check "c64-1024-256 preempted no request (its counter)" [ "$(preemptions "$tmp/camp/c64-1024-256")" = 0 ]
copy a
"$BIN" "$tmp/a" -q --focus c64-1024-256 > /dev/null 2>&1; rc=$?
check "focus without preemptions: exit 0 (got $rc)" [ "$rc" -eq 0 ]
t=$(pdftext "$tmp/a/report")
check "Figure 8: the distance is the line's scatter, not recompute" grep -q "counted no preemptions, so how far it sits from the line is the line's scatter, not recompute" <<< "$t"
check "Figure 8: no 'the FLOPs it spent recomputing'" bash -c "! grep -q 'by the FLOPs it spent recomputing' <<< \"\$1\"" _ "$t"

# ---- a calibration-only run that preempted (C = 48, 6144/2048: 4.5x the pool) ----
copy b
"$PY" - "$CFG/c64-6144-2048.json" "$tmp/calx.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = "cal-c48-6144-2048"; d["role"] = "calibration"; d["workload"]["max_concurrency"] = 48
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$BIN" simulate "$tmp/calx.json" -o "$tmp/b/cal-c48-6144-2048" > /dev/null || bad "simulate cal-c48"
pb=$(preemptions "$tmp/b/cal-c48-6144-2048")
check "cal-c48-6144-2048 preempted ($pb)" [ "${pb%.*}" -gt 0 ]
"$BIN" "$tmp/b" -q > /dev/null 2>&1; rc=$?
check "preempting calibration run: exit 0 (got $rc)" [ "$rc" -eq 0 ]
t=$(pdftext "$tmp/b/report")
# Figures 1, 6 and 7 shade the band (1 and 7 name it in their legends); Figure 8's
# legend names its fitted runs, which have none
check "the band's legend reads 'calibration runs' in figures 1 and 7 (figure 6 has no legend)" "$PY" -c "
import re, sys; sys.exit(0 if len(re.findall(r'calibration runs(?! \(no)', sys.argv[1])) == 2 else 1)" "$t"
check "'no preemptions)' only in Figure 8's legend" [ "$(grep -o 'no preemptions)' <<< "$t" | wc -l)" -eq 1 ]
s="$tmp/b/report/summary.json"
check "cal-c48-6144-2048 left out of the fit: has preemptions" "$PY" -c "
import json, sys; s = json.load(open(sys.argv[1]))
p = [p for p in s['calibration']['points'] if p['run'] == 'cal-c48-6144-2048'][0]
sys.exit(0 if not p['used'] and p['why_skipped'] == 'has preemptions' else 1)" "$s"

# ---- a calibration run that names no GPU ----
copy c
"$PY" -c "import json, sys; p = sys.argv[1]; d = json.load(open(p)); del d['gpu']; json.dump(d, open(p, 'w'))" \
  "$tmp/c/cal-512-128/run.json"
"$BIN" "$tmp/c" -q > /dev/null 2>&1; rc=$?
check "calibration run without GPU: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "the calibration table says the GPU was assumed" grep -q "yes (names no GPU: assumed NVIDIA GeForce RTX 4090)" <<< "$(pdftext "$tmp/c/report")"
check "summary: gpu_assumed for cal-512-128 only, still used" "$PY" -c "
import json, sys; s = json.load(open(sys.argv[1]))
a = sorted(p['run'] for p in s['calibration']['points'] if p['gpu_assumed'])
u = [p['used'] for p in s['calibration']['points'] if p['run'] == 'cal-512-128']
sys.exit(0 if a == ['cal-512-128'] and u == [True] and s['calibration']['n_used'] == 5 else 1)" "$tmp/c/report/summary.json"

# ---- the light run with 40 prompts at C = 64 ----
copy d
"$PY" - "$CFG/c64-1024-256.json" "$tmp/light40.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["workload"]["num_prompts"] = 40
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$BIN" simulate "$tmp/light40.json" -o "$tmp/d/c64-1024-256" --force > /dev/null || bad "simulate light40"
"$BIN" "$tmp/d" -q > /dev/null 2>&1; rc=$?
check "light run of 40 prompts: exit 0 (got $rc)" [ "$rc" -eq 0 ]
t=$(pdftext "$tmp/d/report")
check "no 'Same C = 64' contrast" bash -c "! grep -q 'Same C = 64' <<< \"\$1\"" _ "$t"
check "the near run is named with its 40 requests in flight against 64" grep -q "requests in flight at most (min of C and prompts) 40 → 64" <<< "$t"
check "the unedited campaign has the contrast" bash -c "\"\$1\" \"\$2\" -q -o \"\$3\" > /dev/null 2>&1; pdftotext \"\$3/report.pdf\" - | tr -s ' \n' '  ' | grep -q 'Same C = 64'" _ "$BIN" "$tmp/camp" "$tmp/camp-report"

# ---- three repeats of c16-2048-512, one without its metrics ----
copy e
for k in 2 3; do
  cp -r "$tmp/e/c16-2048-512" "$tmp/e/c16-2048-512-r$k"
  for j in $(seq 2 $k); do rerun "$tmp/e/c16-2048-512-r$k/stress.json"; done
done
mv "$tmp/e/c16-2048-512" "$tmp/e/c16-2048-512-r1"
rm "$tmp/e/c16-2048-512-r3/metrics.csv"
"$BIN" "$tmp/e" -q > /dev/null 2>&1; rc=$?
check "repeats with one lacking metrics: exit 0 (got $rc)" [ "$rc" -eq 0 ]
t=$(pdftext "$tmp/e/report")
check "Figure 6: the preemption bar of c16-2048-512 reads n=2 of 3" grep -q "c16-2048-512 (n=2 of 3)" <<< "$t"
check "Figure 6: throughput stands on all 3 (every panel labels \"n=J of K\" so the panels line up)" grep -q "c16-2048-512 (n=3 of 3)" <<< "$t"
check "fig6 CSV: 3 repeats, preemption mean 0 (two runs of 0)" "$PY" -c "
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r['configuration'] == 'c16-2048-512'][0]
sys.exit(0 if r['n_repeats'] == '3' and float(r['preemptions_count_mean']) == 0 else 1)" "$tmp/e/report/figures/fig6-configs.csv"

# ---- the focus run without its per-request ITL arrays ----
copy f
"$PY" - "$tmp/f/c64-6144-2048/stress.json" <<'PYEOF'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d.pop("itls")   # the file's own p99_itl_ms stays: the ratio to the light run is known
json.dump(d, open(p, "w"))
PYEOF
"$BIN" "$tmp/f" -q > /dev/null 2>&1; rc=$?
check "focus without ITL arrays: exit 0 (got $rc)" [ "$rc" -eq 0 ]
t=$(pdftext "$tmp/f/report")
check "expectations: the gaps past p99 cannot be counted" grep -q "without the per-request ITL arrays the gaps past p99 cannot be counted" <<< "$t"
check "expectations: no 'preemption gaps sit at p99.99'" bash -c "! grep -q 'preemption gaps sit at p99.99' <<< \"\$1\"" _ "$t"
check "the unedited campaign places them at p99.99" grep -q "preemption gaps sit at p99.99" <<< "$(pdftext "$tmp/camp-report")"
finish
