#!/usr/bin/env bash
# SGLang and llama.cpp (issue 13): simulated runs of both engines in their own
# formats read back through the engine-neutral model, and the real SGLang
# files. Expected values:
# - SGLang: the same config and seed as round1.json, so the same simulated
#   schedule: running mean, preemptions (retractions) and TTFT p50 equal the
#   vLLM run's exactly; only names and counting points differ.
# - llama.cpp: 4 slots under C = 16 (fixtures/configs/engines/llamacpp-slots4.json):
#   at most 4 running, 16 − 4 = 12 deferred at the peak, no preemption role.
. "$(dirname "$0")/lib.bash"
for e in vllm sglang llamacpp; do
	case $e in
	vllm) cfg="$SRC/fixtures/configs/round1.json" ;;
	sglang) cfg="$SRC/fixtures/configs/engines/sglang-round1.json" ;;
	llamacpp) cfg="$SRC/fixtures/configs/engines/llamacpp-slots4.json" ;;
	esac
	"$BIN" simulate "$cfg" -o "$tmp/$e" > /dev/null 2>&1
	"$BIN" "$tmp/$e" > "$tmp/$e.out" 2> "$tmp/$e.err"; rc=$?
	check "$e: simulate + report exit 0 (got $rc)" [ "$rc" -eq 0 ]
	check "$e: report prints no warning" [ ! -s "$tmp/$e.err" ]
	check "$e: qpdf --check clean" qpdf --check "$tmp/$e/report/report.pdf" > /dev/null
done
v="$tmp/vllm/report/summary.json"; s="$tmp/sglang/report/summary.json"; l="$tmp/llamacpp/report/summary.json"

check "sglang: engine detected" [ "$(jget "$s" engine.key)" = sglang ]
check "sglang: metrics are SGLang's" grep -q '^timestamp,sglang:num_running_reqs,' "$tmp/sglang/metrics.csv"
check "sglang: running role from sglang:num_running_reqs" [ "$(jget "$s" engine.roles.running)" = sglang:num_running_reqs ]
check "sglang: retractions as the preemption role" \
	[ "$(jget "$s" engine.roles.preemptions)" = sglang:num_retracted_requests_total ]
for k in residency.running_mean preemptions.n_preemptions latency.ttft.median_ms capacity.kv_pool_tokens \
    capacity.max_model_len_tokens; do
	check "sglang: $k equals the vLLM run's ($(jget "$v" $k))" [ "$(jget "$s" $k)" = "$(jget "$v" $k)" ]
done
check "sglang: ledger agrees (finish-time counters over the whole window)" [ "$(jget "$s" ledger.n_disagree)" = 0 ]
check "sglang: no prefill histogram, said so" [ "$(jget "$s" engine.absent.prefill_hist)" != null ]
check "sglang: no --enable-mfu-metrics advice" bash -c "! grep -q rec_enable_mfu_metrics '$s'"
pdftotext "$tmp/sglang/report/report.pdf" - 2>/dev/null | tr '\n' ' ' > "$tmp/s.txt"
check "sglang PDF: capacity from max_total_num_tokens" grep -qF "KV pool P (max_total_num_tokens)" "$tmp/s.txt"
check "sglang PDF: retraction counter named" grep -qF "sglang:num_retracted_requests_total" "$tmp/s.txt"
check "sglang PDF: no vLLM log line claimed" bash -c "! grep -qF 'GPU KV cache size' '$tmp/s.txt'"
# SGLang's preemption is a retraction: the figures' axes, legends and leads say so, as the captions do
# SGLang's word for it (thirty-second audit: "Preemptions during the run",
# "The scheduler preempted 37 times", "Paged KV with preemption" in an SGLang report)
check "sglang: card, heading, events table and conclusions say retractions" bash -c "
  t=\$(pdftotext '$tmp/sglang/report/report.pdf' - | tr -s ' \n' '  ')
  for w in 'Retractions during the run' \"Retractions (SGLang's preemptions): the scheduler's control loop\" 'Retraction events' \\
    'the scheduler retracted requests 37 times'; do grep -qF \"\$w\" <<< \"\$t\" || exit 1; done
  ! grep -qE 'The scheduler preempted|Paged KV with preemption|Preemptions are invisible' <<< \"\$t\""
check "sglang: staircase titled in retractions" \
	[ "$(jget "$s" figures.id=fig5-preemption-staircase.title)" = "Retraction staircase: cumulative retractions against a constant rate" ]
check "sglang PDF: staircase axis in retractions" grep -qF "retractions since window start (count)" "$tmp/s.txt"
check "sglang PDF: no 'preemptions since' axis" bash -c "! grep -qF 'preemptions since' '$tmp/s.txt'"
check "sglang PDF: figure 5 lead in retractions" grep -qF "Figure 5 counts the retractions over time" "$tmp/s.txt"

check "llamacpp: engine detected" [ "$(jget "$l" engine.key)" = llamacpp ]
check "llamacpp: slots from the log (n_slots = 4)" [ "$(jget "$l" server_log.max_num_seqs)" = 4 ]
check "llamacpp: context per slot 32768 / 4 = 8192" [ "$(jget "$l" server_log.ctx_per_slot_tokens)" = 8192 ]
check "llamacpp: 64 requests timed in the log" [ "$(jget "$l" server_log.n_timed_requests)" = 64 ]
check "llamacpp: running peak 4 (the slots)" near "$(jget "$l" residency.running_peak)" 4 0
check "llamacpp: deferred peak 12 (C 16 − 4 slots)" near "$(jget "$l" residency.waiting_peak)" 12 0
# llama.cpp never preempts: the gate's preemptions==0 passes, the index says 0
"$BIN" "$tmp/llamacpp" -o "$tmp/lc-gate" --fail-on 'preemptions==0' -q 2> "$tmp/lc-gate.err"; rc=$?
check "llamacpp: --fail-on preemptions==0 passes (exit $rc)" [ "$rc" -eq 0 ]
check "llamacpp: the gate's source says why" [ "$(jget "$tmp/lc-gate/summary.json" gate.terms.0.source)" = "llama.cpp does not preempt" ]
"$BIN" index "$tmp/lc-gate" -o "$tmp/lc-index.csv" 2> /dev/null
check "llamacpp: index preemptions 0, source named" "$PY" -c "
import csv, sys; r = list(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if len(r) == 1 and r[0]['preemptions'] == '0' and r[0]['preemptions_source'] == 'llama.cpp does not preempt' else 1)" "$tmp/lc-index.csv"
# figure 2 names only what it draws: no KV usage or preemption series on a llama-server
check "llamacpp: waveform title names only the requests" \
	[ "$(jget "$l" figures.id=fig2-waveform.title)" = "Whole-run waveform: requests running and waiting" ]
check "llamacpp: budget title names only what is drawn (decode alone)" \
	[ "$(jget "$l" figures.id=fig9-budget.title)" = "Wall-clock budget: the parts that could be estimated" ]
check "vllm: waveform title names all three" \
	[ "$(jget "$v" figures.id=fig2-waveform.title)" = "Whole-run waveform: requests running and waiting, KV-cache usage, preemptions" ]
check "llamacpp: the PDF's figure 2 caption names no KV or preemption axis" bash -c "
pdftotext '$tmp/llamacpp/report/report.pdf' - | tr -s ' \n' '  ' | grep -o 'Figure 2\. The whole run[^.]*\.[^.]*\.[^.]*\.' | grep -qv 'KV\|preemption'"
check "llamacpp: no preemption role, reason given" grep -q "does not preempt" <<< "$(jget "$l" engine.absent.preemptions)"
# llama.cpp never preempts: no "if the scheduler preempted" hedge in its
# budget, no "n/a" preemption row (thirty-second audit)
check "llamacpp: the budget and residency state it does not preempt, not 'if the scheduler preempted'" bash -c "
  t=\$(pdftotext '$tmp/llamacpp/report/report.pdf' - | tr -s ' \n' '  ')
  ! grep -q 'if the scheduler preempted' <<< \"\$t\" && grep -q 'preemptions in the window none (llama.cpp does not preempt)' <<< \"\$t\""
check "llamacpp: prompt tokens compared as <=" \
	[ "$(jget "$l" ledger.rows.series=llamacpp:prompt_tokens_total.relation)" = "<=" ]
check "llamacpp: the log's timing lines summarised (64 requests of 1024 prompt tokens)" \
	[ "$(jget "$l" log_timings.n_requests)/$(jget "$l" log_timings.prompt_tokens_mean)" = 64/1024.0 ]
check "vllm: no log_timings block" [ "$(jget "$v" log_timings)" = null ]
check "llamacpp: terminal says it does not preempt" grep -q "none (llama.cpp does not preempt)" "$tmp/llamacpp.out"

# compare across engines: never a controlled A/B; same workload, same schedule → no diagnosis
"$BIN" compare "$tmp/vllm" "$tmp/sglang" -o "$tmp/cmp" > /dev/null 2>&1; rc=$?
check "compare vLLM vs SGLang exit 0 (got $rc)" [ "$rc" -eq 0 ]
c="$tmp/cmp/summary.json"
check "compare: verdict different_engines" [ "$(jget "$c" pairs.0.verdict)" = different_engines ]
check "compare: not controlled" [ "$(jget "$c" pairs.0.controlled)" = False ]
check "compare: same workload" [ "$(jget "$c" pairs.0.same_workload)" = True ]
only_a=$(jget "$c" pairs.0.only_a_series_text)
check "compare: vLLM's FLOPs counter listed as only A's" grep -q 'vllm:estimated_flops_per_gpu_total' <<< "$only_a"
check "compare: SGLang has nothing vLLM lacks" [ "$(jget "$c" pairs.0.only_b_series_text)" = null ]
check "compare across engines: no elasticity ratio (tenth breaker)" bash -c \
	"pdftotext '$tmp/cmp/report.pdf' - | tr -s ' \n' '  ' | grep -q 'A and B ran on different engines: resident .* so no elasticity is computed' && ! pdftotext '$tmp/cmp/report.pdf' - | tr -s ' \n' '  ' | grep -q 'each 1% more'"

# SGLang's queue histogram stands alone in the comparison (thirty-second
# audit: "A has no TTFT split", queue n/a, while the run's own report gave
# 176.6 s): the queue row holds Δsum/Δcount of sglang:queue_time_seconds
# (numpy, first to last sample), prefill stays n/a
check "compare: SGLang's queue mean (numpy) in B's row, prefill n/a, Figure C3 says so" "$PY" - \
  "$tmp/sglang/metrics.csv" "$c" "$tmp/cmp/report.pdf" <<'PYEOF'
import csv, json, subprocess, sys
rows = list(csv.DictReader(open(sys.argv[1])))
col = lambda n: [float(r[n]) for r in rows if r[n] != ""]
s, n = col("sglang:queue_time_seconds_sum"), col("sglang:queue_time_seconds_count")
q = (s[-1] - s[0]) / (n[-1] - n[0])
p = json.load(open(sys.argv[2]))["pairs"][0]["rows"]
t = " ".join(subprocess.run(["pdftotext", sys.argv[3], "-"], capture_output=True, text=True).stdout.split())
ok = abs(p["ttft_queue_s"]["b"] - q) <= 1e-6 * q and p["ttft_prefill_s"]["b"] is None
ok = ok and "B has the server's queue mean only" in t and "B has no TTFT split" not in t
print(q, p["ttft_queue_s"], file=sys.stderr)
sys.exit(0 if ok else 1)
PYEOF

# Little's law on SGLang: the resident time set against L/λ is the
# end-to-end mean less the queue mean (numpy; thirty-second audit: "the
# metrics hold no request-time histograms" beside both)
check "sglang: Little's resident time = e2e − queue means (numpy)" "$PY" - "$tmp/sglang/metrics.csv" "$s" <<'PYEOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
col = lambda n: [float(r[n]) for r in rows if r[n] != ""]
mean = lambda h: (col(h + "_sum")[-1] - col(h + "_sum")[0]) / (col(h + "_count")[-1] - col(h + "_count")[0])
want = mean("sglang:e2e_request_latency_seconds") - mean("sglang:queue_time_seconds")
l = json.load(open(sys.argv[2]))["littles_law"]
print(want, l["measured_resident_s"], file=sys.stderr)
sys.exit(0 if abs(l["measured_resident_s"] - want) <= 1e-6 * want and "end-to-end" in l["measured_resident_source"] else 1)
PYEOF
# SGLang without its metrics (the log without batch lines): the sections left out name what would help
# for SGLang, never vLLM's prefill/decode histograms (thirty-second audit)
cp -r "$tmp/sglang" "$tmp/sg-nom"; rm -rf "$tmp/sg-nom/report" "$tmp/sg-nom/metrics.csv"
sed -i "/ batch[.,] #/d" "$tmp/sg-nom/server.log"   # no batch lines: no series from the log either
"$BIN" "$tmp/sg-nom" -q > /dev/null 2>&1 || bad "report sg-nom"
t=$(pdftotext "$tmp/sg-nom/report/report.pdf" - | tr -s ' \n' '  ')
check "sglang without metrics: the TTFT split's reason is the missing prefill histogram, not 'needs counter deltas'" bash -c "
  grep -q 'Where TTFT goes: queue, prefill, frontend — benchreport reads no prefill-time histogram from SGLang' <<< \"\$1\" &&
  ! grep -q 'prefill/decode/queue times' <<< \"\$1\" && grep -q \"SGLang's end-to-end and queue-time histograms\" <<< \"\$1\"" _ "$t"
check "sglang without metrics: the removed section is named as in its heading, in retractions" \
  grep -qF "Retractions (SGLang's preemptions): the scheduler's control loop — needs" <<< "$t"
# two SGLang runs compared through their ServerArgs lines: B doubles the chunked
# prefill (2048 -> 4096) and draws another seed; random_seed (drawn at each start)
# is not a setting; an argument only B's line prints (another SGLang version) is
# "not printed" on A's side, unknown, never "default"
"$PY" - "$SRC/fixtures/configs/engines/sglang-round1.json" "$tmp/sgB.json" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1])); c["scheduler"]["max_num_batched_tokens"] = 4096; c["seed"] = 2
json.dump(c, open(sys.argv[2], "w"))
PYEOF
"$BIN" simulate "$tmp/sgB.json" -o "$tmp/sgB" > /dev/null 2>&1
"$BIN" compare "$tmp/sglang" "$tmp/sgB" -o "$tmp/cmpsg" > /dev/null 2>&1; rc=$?
check "compare SGLang vs SGLang exit 0 (got $rc)" [ "$rc" -eq 0 ]
c="$tmp/cmpsg/summary.json"
check "SGLang args: the one difference is chunked_prefill_size 2048 → 4096" \
	[ "$(jget "$c" pairs.0.differences_text)" = "arg chunked_prefill_size 2048 → 4096" ]
check "SGLang args: schedule_policy compared, the same" [ "$(jget "$c" "pairs.0.other_settings.arg schedule_policy.state")" = same ]
check "SGLang args: random_seed not a setting" [ "$(jget "$c" "pairs.0.other_settings.arg random_seed")" = null ]
check "SGLang args: the ServerArgs count in summary.json (22)" [ "$(jget "$tmp/sglang/report/summary.json" server_log.n_server_args)" = 22 ]
sed -i '1s/disable_radix_cache=False)/disable_radix_cache=False, enable_new_thing=True)/' "$tmp/sgB/server.log"
"$BIN" compare "$tmp/sglang" "$tmp/sgB" -o "$tmp/cmpsg2" > /dev/null 2>&1
check "SGLang args: an argument A's version does not print is unknown" \
	[ "$(jget "$tmp/cmpsg2/summary.json" "pairs.0.other_settings.arg enable_new_thing.a")/$(jget "$tmp/cmpsg2/summary.json" "pairs.0.other_settings.arg enable_new_thing.state")" = "not printed/unknown" ]

# the whole value decides, the display is clipped: a 300-character value that differs
# only at its end differs; 1.0 and 1 are the same number; a line cut off compares what
# it shows and leaves the rest unknown; an api_key is never printed
"$PY" - "$tmp/sglang/server.log" "$tmp/sgB/server.log" <<'PYEOF'
import sys
a, b = sys.argv[1], sys.argv[2]
def edit(path, fn):
    lines = open(path).read().split("\n")
    lines[0] = fn(lines[0])
    open(path, "w").write("\n".join(lines))
long_a = "'" + "a" * 300 + "x'"
long_b = "'" + "a" * 300 + "y'"
# big_id: integers beyond 2^53 that one double holds alike; dup_key: written twice on B's line
# (a Python dict keeps the last: 7, equal to A's)
edit(a, lambda l: l.replace("enable_metrics=True", "enable_metrics=True, hf_overrides=%s, api_key='sk-AAAA', "
     "big_id=9007199254740993, dup_size=7, model_loader_extra_config={'hf_token': 'hf_SECRETaaa'}, "
     "otlp_headers={'Authorization': 'Bearer sk-live-AAA'}" % long_a))
edit(b, lambda l: l.replace("enable_metrics=True", "enable_metrics=True, hf_overrides=%s, api_key='sk-BBBB', "
     "big_id=9007199254740992, dup_size=3, dup_size=7, model_loader_extra_config={'hf_token': 'hf_SECRETbbb'}, "
     "otlp_headers={'Authorization': 'Bearer sk-live-AAA'}" % long_b)
     .replace("schedule_conservativeness=1.0", "schedule_conservativeness=1"))
PYEOF
"$BIN" compare "$tmp/sglang" "$tmp/sgB" -o "$tmp/cmpsg3" > /dev/null 2>&1
c3="$tmp/cmpsg3/summary.json"
check "SGLang args: a difference after character 300 is found" [ "$(jget "$c3" "pairs.0.other_settings.arg hf_overrides.state")" = differs ]
# the two 302-character values print alike up to the 200-byte clip: each side is shown from
# 20 bytes before the first difference (byte 302 = the 'x'/'y' after the quote and 300 a's)
check "SGLang args: clipped values that differ are shown where they differ" \
	[ "$(jget "$c3" "pairs.0.other_settings.arg hf_overrides.a")|$(jget "$c3" "pairs.0.other_settings.arg hf_overrides.b")" = \
	  "… from byte 282: aaaaaaaaaaaaaaaaaaaax'|… from byte 282: aaaaaaaaaaaaaaaaaaaay'" ]
check "SGLang args: two redacted values that differ are shown apart, without a digest" bash -c "
	a=\$(\"$PY\" -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"pairs\"][0][\"other_settings\"][\"arg model_loader_extra_config\"][\"a\"])' '$c3')
	b=\$(\"$PY\" -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"pairs\"][0][\"other_settings\"][\"arg model_loader_extra_config\"][\"b\"])' '$c3')
	[ \"\$a\" = \"(redacted; not B's value)\" ] && [ \"\$b\" = \"(redacted; not A's value)\" ]"
check "SGLang args: a credential nested in a dict is compared, never printed" bash -c "
	[ \"\$(\"$PY\" -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"pairs\"][0][\"other_settings\"][\"arg model_loader_extra_config\"][\"state\"])' '$c3')\" = differs ] &&
	! grep -rq 'SECRETaaa\|sk-live' '$tmp/cmpsg3' && ! grep -q 'SECRETaaa\|sk-live' '$tmp/sglang/report/summary.json' 2>/dev/null"
check "SGLang args: integers beyond 2^53 compared by their digits" [ "$(jget "$c3" "pairs.0.other_settings.arg big_id.state")" = differs ]
check "SGLang args: a key written twice keeps its last value (7 = A's)" \
	[ "$(jget "$c3" "pairs.0.other_settings.arg dup_size.b")/$(jget "$c3" "pairs.0.other_settings.arg dup_size.state")" = "7/same" ]
check "SGLang args: 1.0 and 1 are the same setting" [ "$(jget "$c3" "pairs.0.other_settings.arg schedule_conservativeness.state")" = same ]
# a credential says who may call, not how the server runs: no setting (fifth breaker: a different
# api_key was "the one difference" the changes were credited to); never printed either
check "SGLang args: api_key is no setting, never printed" bash -c "\"$PY\" -c 'import json,sys; sys.exit(1 if \"arg api_key\" in json.load(open(sys.argv[1]))[\"pairs\"][0][\"other_settings\"] else 0)' '$c3' && ! grep -rq 'sk-AAAA' '$tmp/cmpsg3' && ! grep -q 'sk-AAAA' '$tmp/sglang/report/summary.json' 2>/dev/null"
"$PY" - "$tmp/sgB/server.log" <<'PYEOF'
import sys
p = sys.argv[1]
lines = open(p).read().split("\n")
i = lines[0].index("schedule_policy")
lines[0] = lines[0][:i].replace("tokenizer_mode='auto'", "tokenizer_mode='slow'")   # cut after it
open(p, "w").write("\n".join(lines))
PYEOF
"$BIN" compare "$tmp/sglang" "$tmp/sgB" -o "$tmp/cmpsg4" > /dev/null 2>&1
c4="$tmp/cmpsg4/summary.json"
check "SGLang args: a cut line still shows its difference (tokenizer_mode)" \
	[ "$(jget "$c4" "pairs.0.other_settings.arg tokenizer_mode.state")" = differs ]
check "SGLang args: what the cut line does not show is unknown" \
	[ "$(jget "$c4" "pairs.0.other_settings.arg page_size.b")/$(jget "$c4" "pairs.0.other_settings.arg page_size.state")" = "not read (line cut off)/unknown" ]
check "SGLang args: a cut line is never a controlled A/B" [ "$(jget "$c4" pairs.0.controlled)" = False ]

# another model_path or tokenizer_path behind the same served name is a difference, and a
# password in a URL value is never printed (second break-it review)
for what in model_path tokenizer_path; do
	rm -rf "$tmp/sg_$what"; cp -r "$tmp/sgB" "$tmp/sg_$what"; rm -rf "$tmp/sg_$what/report"
	"$PY" - "$tmp/sg_$what/server.log" "$what" <<'PYEOF'
import sys
p, what = sys.argv[1], sys.argv[2]
lines = open(p).read().split("\n")
lines[0] = lines[0].replace(what + "='Qwen/Qwen2.5-7B-Instruct'", what + "='meta-llama/Llama-3-8B'")
lines[0] = lines[0].replace("lora_paths=None", "lora_paths='https://bob:SECRETPW@example.com/lora'")
open(p, "w").write("\n".join(lines))
PYEOF
	"$BIN" compare "$tmp/sglang" "$tmp/sg_$what" -o "$tmp/cmp_$what" > /dev/null 2>&1
	check "SGLang args: another $what differs" [ "$(jget "$tmp/cmp_$what/summary.json" "pairs.0.other_settings.arg $what.state")" = differs ]
	check "SGLang args: a URL password is not printed ($what)" \
		bash -c "! grep -rq SECRETPW '$tmp/cmp_$what' && pdftotext '$tmp/cmp_$what/report.pdf' - | grep -vq SECRETPW"
done

# no /metrics: the SGLang log's Decode batch lines stand in as a coarse series
mkdir -p "$tmp/sglog"
cp "$tmp/sglang/stress.json" "$tmp/sglang/server.log" "$tmp/sglog/"
"$BIN" "$tmp/sglog" > /dev/null 2> "$tmp/sglog.err"; rc=$?
check "SGLang log series: exit 0 (got $rc)" [ "$rc" -eq 0 ]
g="$tmp/sglog/report/summary.json"
check "SGLang log series: residency from the batch lines" [ "$(jget "$g" residency.available)" = True ]
# the peak of '#running-req: N' over the log's lines, by awk (independent of the parser)
peak=$(grep -o '#running-req: [0-9]*' "$tmp/sglog/server.log" | awk '{ if ($2 > m) m = $2 } END { print m }')
check "SGLang log series: running peak = the log's largest #running-req ($peak)" \
	near "$(jget "$g" residency.running_peak)" "$peak" 0
check "SGLang log series: the note says where the series comes from" grep -q "SGLang log's .* batch lines instead" "$tmp/sglog.err"
check "SGLang log series: no counter ledger claimed" [ "$(jget "$g" ledger.available)" = False ]

# a log of another engine than the metrics' is set aside (llama.cpp series, SGLang log)
mkdir -p "$tmp/mism"
cp "$tmp/llamacpp/stress.json" "$tmp/llamacpp/metrics.csv" "$tmp/mism/"
cp "$tmp/sglang/server.log" "$tmp/mism/"
"$BIN" "$tmp/mism" > /dev/null 2> "$tmp/mism.err"; rc=$?
check "engine mismatch: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "engine mismatch: the SGLang log is set aside" grep -q "written by SGLang while the metrics are llama.cpp's" "$tmp/mism.err"
check "engine mismatch: no KV pool from the other server" [ "$(jget "$tmp/mism/report/summary.json" capacity.available)" = False ]

# the real 2026 slot lines (4 slots of 1,024 tokens) beside 1,024 + 256-token requests at C 16:
# the requests do not fit a slot (1,280 > 1,024) and 12 of 16 wait for a slot
mkdir -p "$tmp/b9"
cp "$tmp/llamacpp/stress.json" "$tmp/b9/"
cp "$SRC/fixtures/engines/llamacpp-b9265-slots.log" "$tmp/b9/server.log"
"$BIN" "$tmp/b9" > /dev/null 2>&1
b9="$tmp/b9/report/summary.json"
check "b9265 slots: 'requests do not fit a slot' (1280 > 1024)" grep -q '"slot_context_short"' "$b9"
check "b9265 slots: slot-bound without a series" grep -q '"slots_bound_no_series"' "$b9"
check "b9265 slots: 1280 tokens per request" [ "$(jget "$b9" derived.request_tokens_mean)" = 1280.0 ]

# a campaign mixing the three engines: an engine column, llama.cpp's preemptions "none"
mkdir -p "$tmp/mix"
for e in vllm sglang llamacpp; do cp "$tmp/$e/stress.json" "$tmp/$e/metrics.csv" "$tmp/$e/server.log" \
	"$tmp/$e/run.json" -t "$(mkdir -p "$tmp/mix/$e" && echo "$tmp/mix/$e")"; done
"$BIN" "$tmp/mix" -o "$tmp/mixrep" > /dev/null 2>&1; rc=$?
check "mixed campaign: exit 0 (got $rc)" [ "$rc" -eq 0 ]
pdftotext -layout "$tmp/mixrep/report.pdf" - 2>/dev/null > "$tmp/mix.txt"
check "mixed campaign: engine column" grep -qE '^run +engine ' "$tmp/mix.txt"
check "mixed campaign: llama.cpp row names its engine, no preemption" \
	grep -qE '^llamacpp-slots4-c16 +llama\.cpp .* none *$' "$tmp/mix.txt"
check "mixed campaign: no same-C length contrast across engines" \
	bash -c "! grep -q 'only the request length changed' '$tmp/mix.txt'"

# an SGLang campaign at C = 64, two request lengths (the round-1 configs served by SGLang; the
# version from run.json, as SGLang's log prints none): the same-C length contrast holds, in
# SGLang's terms (1,024/256 → 6,144/2,048, 384 vs 128 prompts: the "_n" variant)
mkdir -p "$tmp/sgc"
for n in c64-1024-256 c64-6144-2048; do
	"$PY" - "$SRC/fixtures/configs/campaign-round1/$n.json" "$tmp/sgc-$n.json" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1])); c["engine"] = "sglang"
json.dump(c, open(sys.argv[2], "w"))
PYEOF
	"$BIN" simulate "$tmp/sgc-$n.json" -o "$tmp/sgc/$n" > /dev/null 2>&1
done
"$BIN" "$tmp/sgc" -o "$tmp/sgcrep" > /dev/null 2>&1; rc=$?
check "SGLang campaign: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "SGLang campaign: run.json states the SGLang version" [ "$(jget "$tmp/sgc/c64-1024-256/run.json" server_version)" = 0.5.4 ]
check "SGLang campaign: the same-C length contrast" grep -q '"length_contrast_n"' "$tmp/sgcrep/summary.json"
pdftotext "$tmp/sgcrep/report.pdf" - 2>/dev/null | tr '\n' ' ' > "$tmp/sgc.txt"
check "SGLang campaign: 'Same model, GPU, SGLang version', not vLLM's" \
	bash -c "grep -q 'Same model, GPU, SGLang version' '$tmp/sgc.txt' && ! grep -q 'GPU, vLLM version' '$tmp/sgc.txt'"
check "SGLang campaign: no vLLM --enable-mfu-metrics advice" bash -c "! grep -q 'enable-mfu-metrics' '$tmp/sgc.txt'"
check "SGLang campaign: no vLLM V0 log-line expectation (thirty-second audit), the other four checked" "$PY" -c "
import json, sys; c = [x['check'] for x in json.load(open(sys.argv[1]))['story']['checks']]
sys.exit(0 if 'log_lines' not in c and len(c) == 4 else 1)" "$tmp/sgcrep/summary.json"
check "SGLang campaign: no 'is preempted by' row" bash -c "! grep -q 'is preempted by' '$tmp/sgc.txt'"

# a llama.cpp log whose KV line holds "1/1 seqs" (one sequence) and no slot
# line: a one-slot server, which could not have served C = 16 with 4 resident
# (thirty-second audit: read as 7.11 resident requests, 2.5x oversubscribed)
rm -rf "$tmp/hex"; cp -r "$tmp/llamacpp" "$tmp/hex"; rm -rf "$tmp/hex/report" "$tmp/hex/metrics.csv" "$tmp/hex/run.json"
cp "$SRC/fixtures/engines/llamacpp-2025-hexagon.log" "$tmp/hex/server.log"
"$BIN" "$tmp/hex" -q > /dev/null 2>&1
check "1/1 seqs: a one-slot server, its log set aside for this 4-slot run" \
	grep -q "is of a llama-server with 1 slot, but the bench's successful requests" "$tmp/hex/report/summary.json"

# run.json's server_version against the log's build line ("build: 5489 (00000000)"): a label
# naming it ("b5489", "5489") is no contradiction; another build is said, and the log's is used
for label in b5489 5489 b9999; do
	rm -rf "$tmp/ver"; cp -r "$tmp/llamacpp" "$tmp/ver"; rm -rf "$tmp/ver/report"
	"$PY" -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['server_version']=sys.argv[2]; json.dump(d, open(p,'w'))" \
		"$tmp/ver/run.json" "$label"
	"$BIN" "$tmp/ver" > /dev/null 2> "$tmp/ver.err"
	if [ "$label" = b9999 ]; then
		check "server_version b9999 against the log's b5489: said" \
			grep -qF 'run.json says server_version "b9999", but the server log states b5489 (00000000) (line 1)' "$tmp/ver.err"
		check "server_version b9999: the log's version is used" \
			[ "$(jget "$tmp/ver/report/summary.json" engine.server_version)" = "b5489 (00000000)" ]
	else
		check "server_version $label names the log's b5489: nothing said" bash -c "! grep -q 'server_version' '$tmp/ver.err'"
	fi
done

# two llama.cpp runs: -c (n_ctx) is a compared setting; a cache that moves while n_ctx stays is
# said in llama.cpp's words (no gpu_memory_utilization, no memory profiling). Without run.json's
# kv_pool_tokens the pool is the log's cell count.
rm -rf "$tmp/lA" "$tmp/lB" "$tmp/lB2"
cp -r "$tmp/llamacpp" "$tmp/lA"; rm -rf "$tmp/lA/report"
"$PY" -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d.pop('kv_pool_tokens',None); json.dump(d, open(p,'w'))" "$tmp/lA/run.json"
cp -r "$tmp/lA" "$tmp/lB"; cp -r "$tmp/lA" "$tmp/lB2"
rerun "$tmp/lB/stress.json"; rerun "$tmp/lB2/stress.json"   # other runs, not copies of lA
sed -i 's/n_ctx         = 32768/n_ctx         = 65536/; s/n_ctx_per_seq = 8192/n_ctx_per_seq = 16384/; s/( 32768 cells/( 65536 cells/; s/n_ctx_slot = 8192/n_ctx_slot = 16384/' "$tmp/lB/server.log"
"$BIN" compare "$tmp/lA" "$tmp/lB" -o "$tmp/lC" > /dev/null 2>&1
check "llama.cpp: -c 32768 -> 65536 is the one known difference (arguments unprinted: not proven)" \
	[ "$(jget "$tmp/lC/summary.json" focus.differences_text)/$(jget "$tmp/lC/summary.json" focus.verdict)" = "n_ctx 32,768 → 65,536/one_difference_unchecked" ]
sed -i 's/( 32768 cells/( 30000 cells/' "$tmp/lB2/server.log"
"$BIN" compare "$tmp/lA" "$tmp/lB2" -o "$tmp/lC2" > /dev/null 2>&1
pdftotext "$tmp/lC2/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/lC2.txt"
# this build prints no kv_unified line: the cache did not provably move by
# itself, and no sentence says kv_unified was the same (audit)
check "llama.cpp, kv_unified not printed: cannot tell, not 'moved alone'" bash -c "
  [ \"\$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"focus\"][\"verdict\"])' '$tmp/lC2/summary.json')\" = no_difference_found ] &&
  ! grep -qF 'kv_unified, which size it, are the same' '$tmp/lC2.txt'"
# with kv_unified printed on both sides, the cache moved alone
rm -rf "$tmp/lA4" "$tmp/lB4" "$tmp/lC4"; cp -r "$tmp/lA" "$tmp/lA4"; cp -r "$tmp/lB2" "$tmp/lB4"
sed -i 's/^\(llama_context: n_ctx_per_seq.*\)$/\1\nllama_context: kv_unified    = false/' "$tmp/lA4/server.log" "$tmp/lB4/server.log"
"$BIN" compare "$tmp/lA4" "$tmp/lB4" -o "$tmp/lC4" > /dev/null 2>&1
pdftotext "$tmp/lC4/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/lC4.txt"
check "llama.cpp: the cache moved alone, in llama.cpp's words" \
	grep -qF "the KV cache differs (32,768 → 30,000 tokens) although n_ctx (-c) and kv_unified, which size it, are the same" "$tmp/lC4.txt"
rm -rf "$tmp/lB3" "$tmp/lC3"; cp -r "$tmp/lA" "$tmp/lB3"
sed -i 's/^build: 5489 (00000000)/build: 5600 (00000000)/' "$tmp/lB3/server.log"
"$BIN" compare "$tmp/lA" "$tmp/lB3" -o "$tmp/lC3" > "$tmp/lC3.out" 2>&1
check "llama.cpp build difference named as the build in summary.json, not vllm_version" \
	[ "$(jget "$tmp/lC3/summary.json" focus.differences_text)" = "llamacpp_build b5489 (00000000) → b5600 (00000000)" ]
check "llama.cpp build difference: terminal names no vllm_version" bash -c "! grep -q vllm_version '$tmp/lC3.out'"
check "llama.cpp: no vLLM memory-profiling reason" bash -c "! grep -q 'memory profiling\|gpu_memory_utilization' '$tmp/lC2.txt'"

# the real SGLang files: bench_serving JSONL with the capacity lines of a real SGLang log
mkdir -p "$tmp/sgreal"
if [ -f "$REAL/engines/sglang/llama_405b_online_output.jsonl" ]; then
	cp "$REAL/engines/sglang/llama_405b_online_output.jsonl" "$tmp/sgreal/"
	cp "$SRC/fixtures/engines/sglang-tp4.log" "$tmp/sgreal/server.log"
	"$BIN" "$tmp/sgreal" > /dev/null 2>&1; rc=$?
	check "real SGLang JSONL + log: exit 0 (got $rc)" [ "$rc" -eq 0 ]
	r="$tmp/sgreal/report/summary.json"
	check "real SGLang log: KV pool 46611 (max_total_num_tokens)" [ "$(jget "$r" capacity.kv_pool_tokens)" = 46611 ]
	check "real SGLang log: TP 4 from the rank tags" [ "$(jget "$r" server_log.tensor_parallel_size)" = 4 ]
	check "real SGLang JSONL: 2400 completed (its last result)" [ "$(jget "$r" bench.completed)" = 2400 ]
	# tenth breaker: the JSONL states no date and the log's batch lines span
	# 2025-03-08 to 2025-09-03: they are not this run's series
	"$BIN" "$tmp/sgreal" -o "$tmp/sgreal-rep2" > /dev/null 2> "$tmp/sgreal.err"
	check "undated SGLang bench, log lines of other days: not used as the series" \
		grep -qF "the bench result states no date to pick this run's lines by" "$tmp/sgreal.err"
	check "undated SGLang bench, log lines of other days: no residency" \
		[ "$(jget "$tmp/sgreal-rep2/summary.json" residency.available)" = False ]
	# knee on the real SGLang sweep (fourth breaker): its lines state no num_prompts, so the
	# next runs' floor is the knee run's 600 requests (completed + failed), the commands are
	# SGLang's bench_serving and the queue gauge is sglang:num_queue_reqs
	sgk="$REAL/engines/sglang/llama_3_3_70b_online_output.jsonl"
	if [ -f "$sgk" ]; then
		"$BIN" knee "$sgk" --slo 'ttft_p50<=100ms' -o "$tmp/sgknee" -q > /dev/null 2>&1
		k="$tmp/sgknee/summary.json"
		check "real SGLang knee: next runs never fewer prompts than the knee run's 600" "$PY" -c "
import json, sys; n = json.load(open(sys.argv[1]))['groups'][0]['next_rates']
sys.exit(0 if n and min(n['num_prompts']) >= 600 else 1)" "$k"
		check "real SGLang knee: commands are SGLang's bench_serving" "$PY" -c "
import json, sys; n = json.load(open(sys.argv[1]))['groups'][0]['next_rates']
sys.exit(0 if all(c.startswith('python3 -m sglang.bench_serving') for c in n['commands']) else 1)" "$k"
		check "real SGLang knee: the queue gauge is SGLang's" [ "$(jget "$k" groups.0.queue_signal.metric)" = "sglang:num_queue_reqs" ]
	fi
else
	echo "note: $REAL/engines not found; real SGLang files skipped"
fi

# tenth breaker: a real one-at-a-time bench (4,096 in / 256 out, C = 1) beside a
# llama-server log of another workload (4 prompt tokens, 128 generated): the
# timing lines are not this run's, and with one request at a time nothing waits
if [ -f "$REAL/bench/glm52-batch1-detailed.json" ]; then
	mkdir -p "$tmp/llreal"
	cp "$REAL/bench/glm52-batch1-detailed.json" "$tmp/llreal/stress.json"
	cp "$SRC/fixtures/engines/llama-server-b5489.log" "$tmp/llreal/server.log"
	"$BIN" "$tmp/llreal" -o "$tmp/llreal-rep" -q > /dev/null 2>&1
	r="$tmp/llreal-rep/summary.json"
	pdftotext "$tmp/llreal-rep/report.pdf" - | tr -s ' \n' '  ' > "$tmp/llreal.txt"
	check "log timing lines of another workload: tokens_disagree" [ "$(jget "$r" log_timings.tokens_disagree)" = True ]
	check "log timing lines of another workload: said, not set against TPOT" \
		grep -qF "they are not this run's requests" "$tmp/llreal.txt"
	check "log timing lines of another workload: no negative client overhead" bash -c "! grep -q 'a difference of -' '$tmp/llreal.txt'"
	check "one request at a time: it does not fit, nothing waits" grep -qF "One request at a time needs 4,352 tokens" "$tmp/llreal.txt"
	check "one request at a time: no 'shortage became waiting'" bash -c "! grep -q 'became waiting\|expect queueing' '$tmp/llreal.txt'"
fi
# an SGLang bench result alone (sixteenth breaker: its "could not compute" list asked for
# vllm:estimated_flops_per_gpu_total and vLLM's "GPU KV cache size" line): a real
# sglang.bench_serving file, so the engine is known from the file itself
sgf="$REAL/engines/sglang/llama_3_3_70b_online_output.jsonl"
if [ -f "$sgf" ]; then
	mkdir -p "$tmp/sg-alone"; cp "$sgf" "$tmp/sg-alone/"
	"$BIN" "$tmp/sg-alone" -o "$tmp/sg-alone-out" > /dev/null 2>&1
	check "SGLang bench alone: no FLOPs counter, said for SGLang" [ "$(jget "$tmp/sg-alone-out/summary.json" flops.missing)" = "SGLang has no FLOPs counter" ]
	check "SGLang bench alone: the capacity needs SGLang's own log line" \
		[ "$(jget "$tmp/sg-alone-out/summary.json" capacity.missing)" = "needs the SGLang server log (its max_total_num_tokens line)" ]
fi
# two llama.cpp runs: preemptions 0 -> 0, as the run report, the gate and index say (sixteenth
# breaker: "n/a -> n/a")
"$BIN" simulate "$SRC/fixtures/configs/engines/llamacpp-open-loop.json" -o "$tmp/ll-open" > /dev/null 2>&1
"$BIN" compare "$tmp/llamacpp" "$tmp/ll-open" -o "$tmp/cmp-ll" > "$tmp/cmp-ll.out" 2>&1
check "compare two llama.cpp runs: preemptions 0 on both sides" \
	[ "$(jget "$tmp/cmp-ll/summary.json" focus.rows.preemptions.a)/$(jget "$tmp/cmp-ll/summary.json" focus.rows.preemptions.b)" = "0.0/0.0" ]
finish
