#!/usr/bin/env bash
# Speed and memory of the report (issue 4 targets): for a simulated round-1
# run and a 5,000-request × 1,000-token detailed run, wall time and peak RSS
# of `benchreport RUN`, and of the least a Python peer must do on the same
# file: json.load + numpy percentiles of TTFT and ITL.
# Targets: round-1 report < 1.5 s; on the large file, the whole report
# faster than Python's load + percentiles alone.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$src/build-bench}"
out="$(mktemp -d /tmp/br_report_bench.XXXXXX)"
trap 'rm -rf "$out"' EXIT
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target benchreport -j"$(nproc)" >/dev/null
bin="$build/benchreport"
py=/usr/bin/python3
cat > "$out/peer.py" <<'PY'
import json, sys
import numpy as np
d = json.load(open(sys.argv[1]))
ttft = np.array([t for t, e in zip(d["ttfts"], d["errors"]) if not e]) * 1000
itl = np.array([g for gs, e in zip(d["itls"], d["errors"]) if not e for g in gs]) * 1000
print("ttft p50/p99 %.2f/%.2f ms, itl p50/p99 %.2f/%.2f ms" % (
    np.percentile(ttft, 50), np.percentile(ttft, 99), np.percentile(itl, 50), np.percentile(itl, 99)))
PY
measure() { # LABEL CMD...: prints wall time and peak RSS (GNU time)
	local label=$1; shift
	/usr/bin/time -f "%e %M" -o "$out/t" "$@" > /dev/null 2> "$out/err" || { cat "$out/err"; return 1; }
	read -r wall rss < "$out/t"
	printf "  %-44s %7.2f s  %8.1f MiB\n" "$label" "$wall" "$(awk -v r="$rss" 'BEGIN{print r/1024}')"
}
for cfg in round1 big-5000x1000; do
	"$bin" simulate "$src/fixtures/configs/$cfg.json" -o "$out/$cfg" > /dev/null
	size=$(stat -c %s "$out/$cfg/stress.json")
	echo "== $cfg (stress.json $(( size / 1048576 )) MiB)"
	measure "benchreport (whole report: PDF, figures, json)" "$bin" "$out/$cfg" -q
	measure "python json.load + numpy percentiles" "$py" "$out/peer.py" "$out/$cfg/stress.json"
done
