#!/usr/bin/env bash
# simulate → report on the reference round 1 (issue 3's done-when): the
# report reads the simulated folder without warnings, and its numbers equal
# the simulator's own truth (run.json "simulator") exactly for counts.
. "$(dirname "$0")/lib.bash"
"$BIN" simulate "$SRC/fixtures/configs/round1.json" -o "$tmp/r1" > "$tmp/sim.out" 2>&1; rc=$?
check "simulate exit 0 (got $rc)" [ "$rc" -eq 0 ]
"$BIN" "$tmp/r1" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "report exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "report prints no warning" [ ! -s "$tmp/err" ]
[ -s "$tmp/err" ] && cat "$tmp/err"
s="$tmp/r1/report/summary.json"
# the bench result (5.7 MB: hashed on its own thread, started before the
# parse) carries the SHA-256 sha256sum gives
sum_bench=$(sha256sum "$tmp/r1/stress.json" | cut -d' ' -f1)
check "bench result's SHA-256 (hashed beside the parse) is the file's" "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if [i for i in d['inputs'] if i['role']=='bench result'][0]['sha256']==sys.argv[2] else 1)" "$s" "$sum_bench"
truth() { "$PY" - "$tmp/r1/run.json" "$1" <<'PYEOF'
import json, sys
v = json.load(open(sys.argv[1]))["simulator"]
for k in sys.argv[2].split('.'):
    v = v[k]
print(len(v) if isinstance(v, list) else v)
PYEOF
}
check "128 completed" [ "$(jget "$s" bench.completed)" = 128 ]
check "0 failed" [ "$(jget "$s" bench.failed)" = 0 ]
check "KV pool 86864 tokens from the simulated log" [ "$(jget "$s" capacity.kv_pool_tokens)" = 86864 ]
# oversubscription = 64 * 8192 / 86864 = 6.0357 (DESIGN.md §6 "6.0x")
check "oversubscription 6.04" near "$(jget "$s" capacity.oversubscription)" 6.035734020998342 1e-9
check "preemptions in the series = simulator truth" [ "$(jget "$s" residency.preemptions)" = "$(truth preemptions)" ]
# a single run has no FLOPs calibration: the budget names both missing parts
# once, with their one reason (was "prefill (needs the FLOPs ledger
# (calibration and FLOPs counter)), recompute (needs ...)": nineteenth breaker)
check "budget: both parts missing for one reason" [ "$(jget "$s" budget.prefill_missing)" = "$(jget "$s" budget.recompute_missing)" ]
pdftotext "$tmp/r1/report/report.pdf" - | tr -s ' \n' '  ' > "$tmp/r1.txt"
check "PDF: 'Not computed: prefill and recompute; each needs the FLOPs ledger (calibration and FLOPs counter).'" \
	grep -qF "Not computed: prefill and recompute; each needs the FLOPs ledger (calibration and FLOPs counter)." "$tmp/r1.txt"
check "ledger: all agree" [ "$(jget "$s" ledger.n_disagree)" = 0 ]
check "mean running within 15% of 11.17" near "$(jget "$s" residency.running_mean)" 11.17 0.15
check "no latency mismatch against the file" [ "$(jget "$s" latency.n_mismatches)" = 0 ]
# a capture that began 15 s after the load had started (thirteenth breaker:
# queue share 110.9% of TTFT, frontend -11.5%, three counters "DISAGREE" and
# "another client" offered as a cause): the queue histogram then counted other
# requests than the client's 128, so TTFT is not split and Little's law sets no
# measured time against L/λ; counters short of the client's totals are "not
# comparable". Expected counts are read from the cut CSV itself (last row − first).
cp -r "$tmp/r1" "$tmp/late"
rm -rf "$tmp/late/report"
"$PY" - "$tmp/late/metrics.csv" > "$tmp/late.expect" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h, body = rows[0], rows[1:]
run, wait = h.index("vllm:num_requests_running"), h.index("vllm:num_requests_waiting")
first = next(i for i, r in enumerate(body) if float(r[run]) + float(r[wait]) > 0)
t0 = float(body[first][0])
body = [r for r in body if float(r[0]) >= t0 + 15]
with open(sys.argv[1], "w", newline="") as f:
    csv.writer(f).writerows([h] + body)
q = h.index("vllm:request_queue_time_seconds_count")
print(float(body[-1][q]) - float(body[0][q]))
PYEOF
"$BIN" "$tmp/late" -o "$tmp/late-out" > /dev/null 2> "$tmp/late.err"; rc=$?
ls_="$tmp/late-out/summary.json"
check "late capture: report exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "late capture: said on stderr" grep -q "the capture began after the load had started" "$tmp/late.err"
check "late capture: TTFT not split" [ "$(jget "$ls_" ttft_split.available)/$(jget "$ls_" ttft_split.population_differs)/$(jget "$ls_" ttft_split.queue_share)" = False/True/null ]
check "late capture: Little's law counts the histogram's requests (from the CSV)" near "$(jget "$ls_" littles_law.measured_requests)" "$(cat "$tmp/late.expect")" 1e-12
check "late capture: fewer than the client's 128" "$PY" -c "import sys; sys.exit(0 if float(sys.argv[1]) < 126 else 1)" "$(cat "$tmp/late.expect")"
check "late capture: no measured queue time set against L/λ" [ "$(jget "$ls_" littles_law.measured_queue_s)/$(jget "$ls_" littles_law.measured_population_differs)" = null/True ]
check "late capture: prompt tokens not comparable, not a disagreement" [ "$(jget "$ls_" ledger.rows.series=vllm:prompt_tokens_total.capture_short)/$(jget "$ls_" ledger.rows.series=vllm:prompt_tokens_total.agrees)" = True/null ]
check "late capture: no counter disagrees" [ "$(jget "$ls_" ledger.n_disagree)" = 0 ]
pdftotext "$tmp/late-out/report.pdf" - | tr -s ' \n' '  ' > "$tmp/late.txt"
check "late capture: no queue share in the PDF" bash -c "! grep -qi 'queue share\|another client' '$tmp/late.txt'"
check "late capture: the ledger says why" grep -qF "Not comparable: the metrics capture began after the load had started" "$tmp/late.txt"
check "late capture: Little's law names both counts" grep -qF "they counted $(printf '%.0f' "$(cat "$tmp/late.expect")") requests over the capture, not the 128 the client completed" "$tmp/late.txt"
check "full capture: TTFT split, same population" [ "$(jget "$s" ttft_split.available)/$(jget "$s" ttft_split.population_differs)" = True/False ]
# two data-parallel engines (fourteenth breaker: one engine's 86,864 tokens taken as the
# server's pool, oversubscription 6.04x): each EngineCore_DPn line of the simulated log
# is repeated for DP1, so the server holds 2 x 86,864 = 173,728 tokens and the demand
# 64 x (6,144 + 2,048) = 524,288 tokens is 3.0179x of it (by hand)
cp -r "$tmp/r1" "$tmp/dp2"; rm -rf "$tmp/dp2/report"
"$PY" - "$tmp/dp2/server.log" <<'PYEOF'
import sys
out = []
for l in open(sys.argv[1]):
    out.append(l)
    if l.startswith("(EngineCore_DP0") and any(k in l for k in ("GPU KV cache size", "Available KV cache memory", "Maximum concurrency")):
        out.append(l.replace("(EngineCore_DP0 pid=", "(EngineCore_DP1 pid=1"))
open(sys.argv[1], "w").writelines(out)
PYEOF
"$BIN" "$tmp/dp2" -o "$tmp/dp2-out" > /dev/null 2> "$tmp/dp2.err"
ds="$tmp/dp2-out/summary.json"
check "DP 2: the pool is both engines' (173,728 tokens)" near "$(jget "$ds" capacity.kv_pool_tokens)" 173728 0
check "DP 2: oversubscription 3.0179x" near "$(jget "$ds" capacity.oversubscription)" 3.0179 1e-4
check "DP 2: data_parallel_size 2 from the log" [ "$(jget "$ds" server_log.data_parallel_size)" = 2 ]
check "DP 2: the log's maximum concurrency is the sum (2 x 10.60)" near "$(jget "$ds" capacity.log_max_concurrency_x)" 21.2 1e-9
pdftotext "$tmp/dp2-out/report.pdf" - | tr -s ' \n' '  ' > "$tmp/dp2.txt"
check "DP 2: no per-engine --max-num-seqs advice, no 'per GPU' pool" bash -c "! grep -qF 'Consider --max-num-seqs' '$tmp/dp2.txt' && ! grep -qF 'GiB of KV cache memory per GPU' '$tmp/dp2.txt' && grep -qF 'over 2 data-parallel engines' '$tmp/dp2.txt'"
check "one engine: the pool as before (86,864 tokens)" near "$(jget "$s" capacity.kv_pool_tokens)" 86864 0
# a vLLM V0 server log beside the series (fourteenth breaker: the PDF said "vLLM's V1
# engine prints no log line per preemption" and "the log holds no non-default args line"
# while its args: Namespace(...) line lists every argument and two V0 warnings fall in the run)
cp -r "$tmp/r1" "$tmp/v0"; rm -rf "$tmp/v0/report"
cat > "$tmp/v0/server.log" <<'LOGEOF'
INFO 01-15 08:58:50 api_server.py:495] vLLM API server version 0.6.3.post1
INFO 01-15 08:58:50 api_server.py:496] args: Namespace(host=None, port=8000, model='Qwen/Qwen2.5-7B-Instruct', max_model_len=8192, max_num_seqs=128, enable_prefix_caching=False, block_size=16, gpu_memory_utilization=0.9)
INFO 01-15 08:58:55 llm_engine.py:237] Initializing an LLM engine (v0.6.3.post1) with config: model='Qwen/Qwen2.5-7B-Instruct', max_seq_len=8192, tensor_parallel_size=1, enable_prefix_caching=False
INFO 01-15 08:59:30 gpu_executor.py:122] # GPU blocks: 5429, # CPU blocks: 4681
INFO 01-15 08:59:30 gpu_executor.py:126] Maximum concurrency for 8192 tokens per request: 10.60x
WARNING 01-15 09:00:20 scheduler.py:1439] Sequence group 12 is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption=1
WARNING 01-15 09:08:20 scheduler.py:1439] Sequence group 99 is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption=51
LOGEOF
"$BIN" "$tmp/v0" -o "$tmp/v0-out" > /dev/null 2> "$tmp/v0.err"
vs="$tmp/v0-out/summary.json"
check "V0 log: every argument of the Namespace line (8), max_num_seqs 128" [ "$(jget "$vs" server_log.n_server_args)/$(jget "$vs" server_log.max_num_seqs)" = 8/128 ]
check "V0 log: the pool 5,429 blocks x 16 = 86,864 tokens" near "$(jget "$vs" capacity.kv_pool_tokens)" 86864 0
pdftotext "$tmp/v0-out/report.pdf" - | tr -s ' \n' '  ' > "$tmp/v0.txt"
check "V0 log: no V1 claims, the warnings said" bash -c "! grep -qF \"V1 engine prints no log line\" '$tmp/v0.txt' && ! grep -qF 'no non-default args line' '$tmp/v0.txt' && grep -qF \"vLLM's V0 engine warns in its log only at every 50th preemption\" '$tmp/v0.txt' && grep -qF '2 such lines fall inside this run' '$tmp/v0.txt' && grep -qF 'lists all 8 arguments the server started with' '$tmp/v0.txt'"
finish
