#!/usr/bin/env bash
# Sentences that must not read an unknown as the answer that suits them
# (twenty-fifth audit): a missing preemption counter is neither "no
# preemption in the run" nor "recompute"; a missing KV series with the cap
# unknown is not "requests wait for KV cache"; a pause of the server is not
# a prefill step; a counter that rose by 2 across a scrape gap is not "no
# sample saw more than one preemption"; two runs held alike at max_num_seqs
# are not a concurrency collapse through the pool. Each case edits a
# simulated run the way a capture loses a column or a line, and the truth
# (what really happened) is computed here from the unedited files.
. "$(dirname "$0")/lib.bash"
C=$SRC/fixtures/configs
# pdftext DIR: the report's text on one line
pdftext() { pdftotext "$1/report.pdf" - | tr -s ' \n\t' '   '; }
# dropcol CSV NAME...: remove columns whose header contains NAME (in place)
dropcol() { "$PY" - "$@" <<'PYEOF'
import csv, sys
p, names = sys.argv[1], sys.argv[2:]
rows = list(csv.reader(open(p)))
keep = [i for i, h in enumerate(rows[0]) if not any(n in h for n in names)]
w = csv.writer(open(p, "w", newline=""), lineterminator="\n")
for r in rows:
    w.writerow([r[i] for i in keep])
PYEOF
}
# noargs LOG: the server log without its non-default arguments line
noargs() { sed -i '/non-default args/d' "$1"; }
# counter DIR COLUMN: the rise of a counter column of DIR/metrics.csv (numpy)
counter() { "$PY" - "$1/metrics.csv" "$2" <<'PYEOF'
import csv, sys
import numpy as np
rows = list(csv.DictReader(open(sys.argv[1])))
v = np.array([float(r[sys.argv[2]]) for r in rows if r[sys.argv[2]] != ""])
print("%g" % (v.max() - v.min()))
PYEOF
}

# ---- round 1 without its preemption counter (the run preempted) ----
"$BIN" simulate "$C/round1.json" -o "$tmp/r1" > /dev/null || bad "simulate round1"
pre=$(counter "$tmp/r1" vllm:num_preemptions_total)
check "round 1 preempted (numpy: counter rose by $pre)" "$PY" -c "import sys; sys.exit(0 if float('$pre') > 0 else 1)"
cp -r "$tmp/r1" "$tmp/nopre"
dropcol "$tmp/nopre/metrics.csv" num_preemptions_total
"$BIN" "$tmp/nopre" -o "$tmp/nopre-report" -q 2> /dev/null || bad "report nopre"
pdftext "$tmp/nopre-report" > "$tmp/nopre.txt"
check "no counter: never 'no preemption in the run'" bash -c "! grep -q 'no preemption in the run' '$tmp/nopre.txt'"
check "no counter: never 'the GPU's step time, not the KV cache, sets the pace'" bash -c "! grep -q 'not the KV cache, sets the pace' '$tmp/nopre.txt'"
check "no counter: the decode paragraphs say the count is unknown" bash -c "
  grep -q 'these inputs do not count preemptions' '$tmp/nopre.txt' && ! grep -q 'time taken by the prefill chunks of other requests in the same steps\.' '$tmp/nopre.txt'"
# the pool at the model's maximum length is P / max_model_len: 86,864 / 8,192 = 10.60
check "oversubscribed: 10.60 at the model's maximum length of 8,192 tokens, not 'at full length'" bash -c "
  grep -qF \"10.60 at the model's maximum length of 8,192 tokens, P / max_model_len\" '$tmp/nopre.txt' &&
  ! grep -q 'at full length, P / M' '$tmp/nopre.txt'"

# ---- round 1 with five scrapes lost where the counter rose by 2 or more ----
cp -r "$tmp/r1" "$tmp/gap"
gap=$("$PY" - "$tmp/gap/metrics.csv" <<'PYEOF'
import csv, sys
p = sys.argv[1]
rows = list(csv.reader(open(p)))
col = rows[0].index("vllm:num_preemptions_total")
v = [float(r[col]) for r in rows[1:]]
# the first six-sample span over which the counter rose by 2+: its inner
# five rows are dropped, so two samples read a rise of 2+ across a gap
i = next(i for i in range(len(v) - 6) if v[i + 6] - v[i] >= 2)
out = rows[:i + 2] + rows[i + 7:]
csv.writer(open(p, "w", newline=""), lineterminator="\n").writerows(out)
print("%g" % (v[i + 6] - v[i]))
PYEOF
)
check "gap: the counter rises by $gap across the dropped rows (>= 2)" "$PY" -c "import sys; sys.exit(0 if float('$gap') >= 2 else 1)"
"$BIN" "$tmp/gap" -o "$tmp/gap-report" -q 2> /dev/null || bad "report gap"
pdftext "$tmp/gap-report" > "$tmp/gap.txt"
check "gap: not 'no metrics sample saw more than one preemption'" bash -c "! grep -q 'no metrics sample saw more than one preemption' '$tmp/gap.txt'"
check "gap: the card gives the interval between sampled events, not 'every'" bash -c "
  grep -qE '[0-9]+ events [0-9.]+ s apart at KV' '$tmp/gap.txt' && ! grep -qE 'Preemptions [0-9,]+ · every' '$tmp/gap.txt'"

# ---- max_num_seqs 8, no KV series, no args line: the queue's holder is unknown ----
"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); c["scheduler"]["max_num_seqs"]=8; c["workload"]["num_prompts"]=48; json.dump(c,open(sys.argv[2],"w"))' \
  "$C/round1.json" "$tmp/seqs8.json"
"$BIN" simulate "$tmp/seqs8.json" -o "$tmp/nokv" > /dev/null || bad "simulate seqs8"
truth=$("$PY" - "$tmp/nokv/metrics.csv" <<'PYEOF'
import csv, sys
import numpy as np
rows = list(csv.DictReader(open(sys.argv[1])))
run = np.array([float(r["vllm:num_requests_running"]) for r in rows])
pre = np.array([float(r["vllm:num_preemptions_total"]) for r in rows])
kv = np.array([float(r["vllm:kv_cache_usage_perc"]) for r in rows])
print("%d %d %.2f" % (run.max(), pre.max() - pre.min(), kv.max()))
PYEOF
)
check "seqs 8: numpy: running peaks at 8, 0 preemptions, KV below 90% ($truth)" \
  "$PY" -c "import sys; r, p, kv = map(float, '$truth'.split()); sys.exit(0 if r == 8 and p == 0 and kv < 0.9 else 1)"
dropcol "$tmp/nokv/metrics.csv" kv_cache_usage_perc
noargs "$tmp/nokv/server.log"
"$BIN" "$tmp/nokv" -o "$tmp/nokv-report" -q 2> /dev/null || bad "report nokv"
pdftext "$tmp/nokv-report" > "$tmp/nokv.txt"
check "seqs 8, no KV series: never 'requests wait for KV cache'" bash -c "
  ! grep -q 'requests wait for KV cache' '$tmp/nokv.txt' && ! grep -q 'Concurrency collapsed to what the KV pool holds' '$tmp/nokv.txt'"
check "seqs 8, no KV series: the queue's holder is left open" grep -q "whether the KV cache or the cap on running requests held them, the inputs do not show" "$tmp/nokv.txt"

# ---- a 5 s pause of the server, 30 s into a run without preemptions ----
"$BIN" simulate "$C/campaign-round1/c64-1024-256.json" -o "$tmp/light" > /dev/null || bad "simulate light"
"$PY" - "$tmp/light/stress.json" 30 5 <<'PYEOF' > "$tmp/pause.truth"
# every token and start after T is shifted by P; the file's statistics are
# then recomputed from the arrays (tests/e2e/restat.py)
import json, sys
import numpy as np
p, T, P = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
d = json.load(open(p))
before = max(g for l in d["itls"] for g in l)
T += min(d["start_times"])
for i in range(len(d["itls"])):
    s = d["start_times"][i]
    toks = [s + d["ttfts"][i]]
    for g in d["itls"][i]:
        toks.append(toks[-1] + g)
    s2 = s + P if s > T else s
    toks = [t + P if t > T else t for t in toks]
    d["start_times"][i] = s2
    d["ttfts"][i] = toks[0] - s2
    d["itls"][i] = [b - a for a, b in zip(toks, toks[1:])]
    d["latencies"][i] = toks[-1] - s2
d["duration"] += P
json.dump(d, open(p, "w"))
print("%.3f %.3f" % (before, max(g for l in d["itls"] for g in l)))
PYEOF
"$PY" "$SRC/tests/e2e/restat.py" "$tmp/light/stress.json"
check "pause: numpy: the longest gap was $(cut -d' ' -f1 "$tmp/pause.truth") s, now $(cut -d' ' -f2 "$tmp/pause.truth") s" \
  "$PY" -c "import sys; a, b = map(float, open('$tmp/pause.truth').read().split()); sys.exit(0 if a < 0.5 and b > 4.5 else 1)"
check "pause: the run has no preemption (numpy)" [ "$(counter "$tmp/light" vllm:num_preemptions_total)" = 0 ]
"$BIN" "$tmp/light" -o "$tmp/light-report" -q 2> /dev/null || bad "report pause"
pdftext "$tmp/light-report" > "$tmp/pause.txt"
check "pause: an engine step stalled, not 'was a prefill step ... not a fault'" bash -c "
  grep -q 'One engine step stalled' '$tmp/pause.txt' && ! grep -q 'was a prefill step' '$tmp/pause.txt'"

# ---- a campaign of two runs held alike at max_num_seqs 8 (64 prompts each: at C = 64
# both had 64 requests in flight, as the same-C contrast needs) ----
mkdir -p "$tmp/cfg8"
for n in c64-1024-256 c64-6144-2048; do
  "$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); c["scheduler"]["max_num_seqs"]=8; c["workload"]["num_prompts"]=64; json.dump(c,open(sys.argv[2],"w"))' \
    "$C/campaign-round1/$n.json" "$tmp/cfg8/$n.json"
done
bash "$SRC/scripts/simulate_campaign.sh" "$tmp/cfg8" "$tmp/camp8" "$BIN" > /dev/null || bad "simulate camp8"
check "camp8: numpy: the focus run never preempted" [ "$(counter "$tmp/camp8/c64-6144-2048" vllm:num_preemptions_total)" = 0 ]
"$BIN" "$tmp/camp8" -o "$tmp/camp8-report" -q --focus c64-6144-2048 2> /dev/null || bad "report camp8"
pdftext "$tmp/camp8-report" > "$tmp/camp8.txt"
check "camp8: no 'Recompute is the wound' and no pool experiment beside 0 preemptions at the cap" bash -c "
  grep -qE 'Same C = 64, (only )?the request length changed' '$tmp/camp8.txt' &&
  ! grep -q 'Recompute is the wound' '$tmp/camp8.txt' && ! grep -q 'a designed experiment' '$tmp/camp8.txt'"
check "camp8: p99 ITL spike 'does not hold' for want of preemptions, not 'preemption gaps sit at p99.99'" bash -c "
  grep -q 'the scheduler preempted no request during the run, so no recompute could make p99 ITL spike' '$tmp/camp8.txt' &&
  ! grep -q 'preemption gaps sit at p99.99' '$tmp/camp8.txt'"
# the same campaign without any args line: the settings are not known alike
cp -r "$tmp/camp8" "$tmp/camp8-noargs"
for d in "$tmp"/camp8-noargs/*/; do noargs "$d/server.log"; done
"$BIN" "$tmp/camp8-noargs" -o "$tmp/camp8-noargs-report" -q --focus c64-6144-2048 2> /dev/null || bad "report camp8-noargs"
pdftext "$tmp/camp8-noargs-report" > "$tmp/noargs.txt"
check "no args lines: unknown settings are named as unknown, not as 'n/a → n/a' differences" bash -c "
  grep -q 'in more than the lengths these inputs cannot show (max_num_seqs' '$tmp/noargs.txt' && ! grep -q 'n/a → n/a' '$tmp/noargs.txt'"
# the light run without its running and KV series: no contrast cites n/a
cp -r "$tmp/camp8" "$tmp/camp8-nores"
dropcol "$tmp/camp8-nores/c64-1024-256/metrics.csv" num_requests_running kv_cache_usage_perc
"$BIN" "$tmp/camp8-nores" -o "$tmp/camp8-nores-report" -q --focus c64-6144-2048 2> /dev/null || bad "report camp8-nores"
pdftext "$tmp/camp8-nores-report" > "$tmp/nores.txt"
check "light run without residency: no contrast sentence citing n/a" bash -c "
  ! grep -qE 'Same C = 64, (only )?the request length changed' '$tmp/nores.txt' && ! grep -qE 'KV peak n/a|n/a of 64 resident|instead of n/a' '$tmp/nores.txt'"
finish
