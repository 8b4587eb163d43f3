#!/usr/bin/env bash
# What the queue waited for, said only as far as the data show it
# (src/analysis/findings.c queue_holder, open_loop_overloaded): three
# simulated runs whose queue is held by something other than the KV cache.
. "$(dirname "$0")/lib.bash"
C=$SRC/fixtures/configs
# report NAME CONFIG: simulate, report, keep the PDF's text on one line
report() {
  "$BIN" simulate "$2" -o "$tmp/$1" > /dev/null || bad "simulate $2"
  "$BIN" "$tmp/$1" -o "$tmp/$1-report" -q 2> /dev/null || bad "report $1"
  pdftotext "$tmp/$1-report/report.pdf" - | tr -s ' \n\t' '   ' > "$tmp/$1.txt"
}
ids() { python3 -c 'import json,sys; print(" ".join(f["id"] for f in json.load(open(sys.argv[1]))["findings"]))' "$tmp/$1-report/summary.json"; }

# max_num_seqs 8 with a 200,000-token pool: KV usage peaks near 5%
report seqs "$C/seq-bound-open-loop.json"
check "cap-bound run: the cap, not the KV cache, holds the queue ($(ids seqs))" bash -c "
  grep -q 'Bound by the cap on running requests, not by compute or the KV cache' '$tmp/seqs.txt' &&
  grep -q 'the pool had room for more' '$tmp/seqs.txt' && ! grep -q 'requests wait for KV cache' '$tmp/seqs.txt'"
# the rate the client really sent, from its start times (twenty-first
# breaker: the nominal 8.00 was quoted): (n - 1) / (last - first start),
# and the completed share of it, computed here from stress.json
sent=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); st=sorted(d["start_times"]); r=(len(st)-1)/(st[-1]-st[0]); print("%.2f %.0f%%" % (r, 100*d["request_throughput"]/r))' "$tmp/seqs/stress.json")
check "cap-bound run, open loop at 8 req/s: did not keep up, at the cap, sent at ${sent% *} req/s (${sent#* } of it)" bash -c "
  grep -qF 'The server did not keep up with the offered load: requests were sent at ${sent% *} req/s (open loop)' '$tmp/seqs.txt' &&
  grep -qF '(${sent#* } of it, below 90%)' '$tmp/seqs.txt' &&
  grep -q \"the server's cap of 8 running requests\" '$tmp/seqs.txt'"
# round 1 with --max-num-seqs 10: running sits at the cap and KV usage reaches 94%
report cap10 "$C/round1-max-num-seqs-10.json"
check "max_num_seqs 10 below the pool's 10.6: both limits named ($(ids cap10))" bash -c "
  grep -q 'both limits were reached' '$tmp/cap10.txt' && grep -q 'KV pool and the server.s cap of 10 running requests' '$tmp/cap10.txt'"
check "max_num_seqs 10: the red line is not explained as 'slightly above 1' at 0.93x" bash -c "
  ! grep -q 'slightly above 1' '$tmp/cap10.txt' && grep -q 'The cap shares the credit' '$tmp/cap10.txt' &&
  ! grep -q 'Concurrency collapsed to what the KV pool holds' '$tmp/cap10.txt'"
# llama.cpp, 4 slots, open loop at 1 req/s: not "found no problem"
report lcpp "$C/engines/llamacpp-open-loop.json"
sent=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); st=sorted(d["start_times"]); print("%.2f" % ((len(st)-1)/(st[-1]-st[0])))' "$tmp/lcpp/stress.json")
check "llama.cpp open loop past its slots: said, sent at $sent req/s ($(ids lcpp))" bash -c "
  grep -q 'The server did not keep up with the offered load: requests were sent at $sent req/s' '$tmp/lcpp.txt' &&
  grep -q \"all 4 of llama-server's slots at the peak\" '$tmp/lcpp.txt' && ! grep -qE 'found no problem|None of the checks of this report' '$tmp/lcpp.txt'"
# the reference round 1 keeps its sentence
report r1 "$C/round1.json"
check "round 1: requests wait for KV cache ($(ids r1))" bash -c "
  grep -q 'requests wait for KV cache, not for the GPU' '$tmp/r1.txt' && grep -q 'slightly above 1' '$tmp/r1.txt'"
# round 1's server at 8 req/s, open loop, 200 prompts of 512-2048 in and ~256
# out: uneven steps and preemptions. Not "the GPU's step time, not the KV
# cache, sets the pace" (twentieth breaker): the finding names prefill and
# recompute. Truth from numpy on the files: decode 20%+ beyond
# (out - 1) x ITL p50, and the preemption counter rose in the series.
"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); w=c["workload"]; w.pop("max_concurrency",None); w["request_rate"]=8; w["num_prompts"]=200; w["input_len"]={"dist":"uniform","min":512,"max":2048}; w["output_len"]={"dist":"normal","mean":256,"std":64,"min":16,"max":512}; c["seed"]=42; json.dump(c,open(sys.argv[2],"w"))' \
  "$C/round1.json" "$tmp/rate8.json"
report rate8 "$tmp/rate8.json"
"$PY" - "$tmp/rate8/stress.json" "$tmp/rate8/metrics.csv" > "$tmp/rate8.truth" <<'PYEOF'
import json, sys, csv
import numpy as np
d = json.load(open(sys.argv[1]))
ok = [i for i, e in enumerate(d["errors"]) if not e]
itl = np.concatenate([np.array(d["itls"][i]) for i in ok])
dec = np.mean([d["latencies"][i] - d["ttfts"][i] for i in ok])
out = np.mean([d["output_lens"][i] for i in ok])
rows = list(csv.DictReader(open(sys.argv[2])))
pre = [float(r["vllm:num_preemptions_total"]) for r in rows if r["vllm:num_preemptions_total"] != ""]
print("%d %d" % (dec / ((out - 1) * np.median(itl)) - 1 >= 0.2, max(pre) - min(pre) > 0))
PYEOF
check "rate 8: numpy says decode 20%+ beyond its median steps and preemptions ($(cat "$tmp/rate8.truth"))" [ "$(cat "$tmp/rate8.truth")" = "1 1" ]
check "rate 8: prefill and recompute share the decode steps, not 'not the KV cache' ($(ids rate8))" bash -c "
  grep -q 'Decode shares its steps with prefill and recompute' '$tmp/rate8.txt' && ! grep -q 'not the KV cache, sets the pace' '$tmp/rate8.txt'"
# round 1 at C = 4, 32 prompts: 6,144-token prompts take three 2,048-token
# chunks, and the steps carrying them are the gaps above the stall threshold,
# many of them, no preemption: a rhythm of chunked prefill, not "a pause of
# the server" (twentieth breaker). Truth: numpy counts the gaps above the
# threshold the summary states, and the series' preemption counter stays 0.
"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); c["workload"]["max_concurrency"]=4; c["workload"]["num_prompts"]=32; json.dump(c,open(sys.argv[2],"w"))' "$C/round1.json" "$tmp/c4.json"
report c4 "$tmp/c4.json"
"$PY" - "$tmp/c4/stress.json" "$tmp/c4-report/summary.json" "$tmp/c4/metrics.csv" > "$tmp/c4.truth" <<'PYEOF'
import json, sys, csv
import numpy as np
d = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
thr = s["latency"]["itl_stall_threshold_ms"]
gaps = np.concatenate([np.array(g) * 1000 for g, e in zip(d["itls"], d["errors"]) if not e])
pre = [float(r["vllm:num_preemptions_total"]) for r in csv.DictReader(open(sys.argv[3]))]
print("%d %d %d" % ((gaps > thr).sum(), s["latency"]["itl_stalls"], max(pre) - min(pre)))
PYEOF
read -r n_np n_sum n_pre < "$tmp/c4.truth"
check "C = 4: numpy's $n_np gaps above the threshold = the summary's $n_sum, >= 10, no preemption ($n_pre)" [ "$n_np" = "$n_sum" -a "$n_np" -ge 10 -a "$n_pre" = 0 ]
check "C = 4: the stalls are chunked prefill's rhythm, not an engine pause ($(ids c4))" bash -c "
  grep -q 'a rhythm, not an event' '$tmp/c4.txt' && ! grep -q 'a pause of the server' '$tmp/c4.txt'"
finish
