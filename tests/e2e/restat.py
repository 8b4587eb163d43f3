#!/usr/bin/env python3
"""restat.py STRESS_JSON: a bench result's own statistics and totals recomputed
from its per-request arrays (successful requests; numpy's linear percentiles,
as vllm bench serve computes them), written back in place, so that a file
edited by a test (requests failed, gaps merged, a pause injected) agrees with
itself. Used by the e2e tests that edit simulated results."""
import json, sys
import numpy as np

p = sys.argv[1]
d = json.load(open(p))
ok = [i for i, e in enumerate(d["errors"]) if not e]
arr = {"ttft": np.array([d["ttfts"][i] for i in ok]) * 1e3, "e2el": np.array([d["latencies"][i] for i in ok]) * 1e3,
       "itl": np.array([g for i in ok for g in d["itls"][i]]) * 1e3,
       "tpot": np.array([(d["latencies"][i] - d["ttfts"][i]) / (d["output_lens"][i] - 1)
                         for i in ok if d["output_lens"][i] > 1]) * 1e3}
for name, a in arr.items():
    for k in list(d):
        if k.endswith("_" + name + "_ms"):
            st = k.split("_")[0]
            d[k] = float(a.mean() if st == "mean" else np.median(a) if st == "median" else a.std() if st == "std"
                         else np.percentile(a, float(st[1:])))
d["completed"] = len(ok)
d["failed"] = len(d["errors"]) - len(ok)
d["total_input_tokens"] = int(sum(d["input_lens"][i] for i in ok))
d["total_output_tokens"] = int(sum(d["output_lens"][i] for i in ok))
for k, tot in (("request_throughput", d["completed"]), ("output_throughput", d["total_output_tokens"]),
               ("total_token_throughput", d["total_input_tokens"] + d["total_output_tokens"])):
    d[k] = tot / d["duration"]
json.dump(d, open(p, "w"))
