#!/usr/bin/env bash
# Campaign figures per configuration (issue 9 §1): a simulated campaign of
# two configurations repeated 3 and 2 times (the step time differs per
# repeat, as run-to-run noise would). Figures 1, 6 and 7 must show one
# category per configuration at the mean of its run folders, whiskers ±
# sample sd. Expected values: python's statistics.mean/stdev over the
# per-run numbers the same report writes into summary.json (runs.N.*).
. "$(dirname "$0")/lib.bash"
"$PY" - "$SRC/fixtures/configs/small-1024-256.json" "$tmp/cfg" <<'PYEOF'
import json, os, sys
c = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
c["workload"]["num_prompts"] = 48
for C, steps in ((16, (0.015, 0.017, 0.020)), (32, (0.015, 0.018))):
    for r, f in enumerate(steps, 1):
        c["workload"]["max_concurrency"] = C
        c["gpu"]["fixed_s"] = f
        c["name"] = "c%d-r%d" % (C, r)
        json.dump(c, open(os.path.join(sys.argv[2], c["name"] + ".json"), "w"))
PYEOF
for f in "$tmp"/cfg/*.json; do
  n=$(basename "$f" .json)
  "$BIN" simulate "$f" -o "$tmp/camp/$n" > /dev/null || bad "simulate $n"
done
check "campaign report exits 0" "$BIN" "$tmp/camp" -o "$tmp/out"
check "two configurations, 3 and 2 repeats" [ "$(jget "$tmp/out/summary.json" campaign.n_configurations),$(jget "$tmp/out/summary.json" configurations.0.n_repeats),$(jget "$tmp/out/summary.json" configurations.1.n_repeats)" = "2,3,2" ]
# verify FIG CSV: every numeric cell of the per-configuration CSV against
# statistics over the runs' summary.json values (columns: name -> runs path)
verify() {
  "$PY" - "$tmp/out/summary.json" "$tmp/out/figures/$1.csv" "$2" <<'PYEOF'
import csv, json, statistics, sys
s = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
cols = json.loads(sys.argv[3])
def get(r, path):
    for k in path.split("."):
        r = r.get(k) if isinstance(r, dict) else None
    return r
bad = 0
for row in rows:
    runs = [r for r in s["runs"] if r["run"]["name"].rsplit("-r", 1)[0] == row["configuration"]]
    assert len(runs) == int(row["n_repeats"]), (row, len(runs))
    for col, path in cols.items():
        x = [get(r, path) for r in runs]
        want = statistics.mean(x) if col.endswith("_mean") or not col.endswith("_sd") else statistics.stdev(x)
        got = float(row[col])
        if abs(got - want) > 1e-9 * max(1.0, abs(want)):
            print("  %s %s: %r, expected %r" % (row["configuration"], col, got, want)); bad += 1
sys.exit(1 if bad or not rows else 0)
PYEOF
}
check "fig7 per configuration: mean ± sd of queue, prefill, frontend, client TTFT" verify fig7-ttft-split \
  '{"queue_s_mean":"ttft_split.queue_s","queue_s_sd":"ttft_split.queue_s","prefill_s_mean":"ttft_split.prefill_s","prefill_s_sd":"ttft_split.prefill_s","frontend_s_mean":"ttft_split.frontend_s","client_ttft_mean_s_mean":"ttft_split.client_ttft_mean_s","client_ttft_mean_s_sd":"ttft_split.client_ttft_mean_s"}'
check "fig1 per configuration: C, peak running mean ± sd, KV demand / pool" verify fig1-kv-demand \
  '{"requested_concurrency_requests":"bench.max_concurrency","peak_running_requests_mean":"residency.running_peak","peak_running_requests_sd":"residency.running_peak","kv_demand_over_pool_x_mean":"capacity.oversubscription"}'
check "fig6 per configuration: output throughput mean ± sd" verify fig6-configs \
  '{"output_throughput_tok_per_s_mean":"bench.output_throughput_tps","output_throughput_tok_per_s_sd":"bench.output_throughput_tps"}'
check "fig7 caption in the PDF says how repeats are drawn" bash -c \
  'pdftotext "$0" - | tr -s " \n" "  " | grep -q "Mean time to first token per configuration (a repeated one: the mean over its run folders, whiskers ± sample sd, n in the label)"' "$tmp/out/report.pdf"
# A server argument printed as 128.0 in one log and 128 in the others (0.90
# and 0.9) is one setting, as compare reads it: c16-r1..r3 stay one
# configuration of 3 repeats (c16-n24 differs in num_prompts); 0.95 splits it.
for v in "128.0:0.90:2,1,3" "128:0.95:3,1,2"; do
  IFS=: read -r seqs util want <<< "$v"
  rm -rf "$tmp/rp" "$tmp/rp-out"; cp -r "$SRC/fixtures/truth/campaign-repeats" "$tmp/rp"
  sed -i "2s/'max_num_seqs': 128, 'gpu_memory_utilization': 0.9}/'max_num_seqs': $seqs, 'gpu_memory_utilization': $util}/" "$tmp/rp/c16-r2/server.log"
  "$BIN" "$tmp/rp" -o "$tmp/rp-out" -q 2>/dev/null || bad "campaign report with max_num_seqs $seqs, utilisation $util"
  got="$(jget "$tmp/rp-out/summary.json" campaign.n_configurations),$(jget "$tmp/rp-out/summary.json" configurations.0.n_repeats),$(jget "$tmp/rp-out/summary.json" configurations.1.n_repeats)"
  check "max_num_seqs $seqs, gpu_memory_utilization $util in c16-r2: configurations,repeats $want (got $got)" [ "$got" = "$want" ]
done
finish
