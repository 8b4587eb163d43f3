#!/usr/bin/env bash
# Capture figures of `benchreport sample` (issue 11 targets), printed, not asserted:
#   tick jitter p99 < 20 ms at 1 Hz; CPU < 1% of one core for a 400-series page;
#   0 lost rows in a 10-minute capture with the server killed (SIGKILL) and
#   restarted twice in the middle.
# The server is scripts/fake_metrics_server.py replaying fixtures/runs/tiny's
# metrics with 400 extra series, on a fixed loopback port so a restarted
# server is the same URL. Usage: bench/capture_bench.sh [--minutes 10]
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$src/build-bench}"
minutes=10
[ "${1:-}" = "--minutes" ] && minutes="$2"
out="$(mktemp -d /tmp/br_capture_bench.XXXXXX)"
trap 'kill $fake 2>/dev/null || true; rm -rf "$out"' EXIT
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target benchreport -j"$(nproc)" >/dev/null
bin="$build/benchreport"
py=/usr/bin/python3
port=$("$py" -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
start_fake() {
  "$py" "$src/scripts/fake_metrics_server.py" "$src/fixtures/runs/tiny/metrics.csv" --port "$port" \
    --pad-series 400 --row-s 30 > /dev/null 2>&1 &
  fake=$!
  for _ in $(seq 100); do "$py" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/metrics', timeout=1)" 2>/dev/null && return; sleep 0.05; done
}
start_fake
secs=$((minutes * 60))
"$bin" sample "http://127.0.0.1:$port/metrics" -o "$out/m.csv" --interval 1s --duration "${secs}s" 2> "$out/sample.err" &
sp=$!
for frac in 3 6; do   # kill at 1/3 and 2/3 of the capture, 5 s down each time
  sleep $((secs / 9 * 3 - 5)) || true
  kill -9 "$fake"; wait "$fake" 2>/dev/null || true
  sleep 5
  start_fake
done
wait "$sp"
"$py" - "$out/m.csv" "$out/sample.err" "$secs" <<'PY'
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h, rows = rows[0], rows[1:]
err = open(sys.argv[2]).read()
secs = int(sys.argv[3])
t = [float(r[0]) for r in rows]
dev = sorted(abs(t[k] - t[0] - k) * 1e3 for k in range(len(t)))
p99 = dev[min(len(dev) - 1, int(0.99 * (len(dev) - 1) + 0.5))]
ok = sum(r[-2] == "1" for r in rows)
m = re.search(r"tick jitter p50 ([\d.]+) ms, p99 ([\d.]+) ms; CPU ([\d.]+) s over ([\d.]+) s", err)
print("capture: %d s at 1 Hz, page of %d series" % (secs, len(h) - 3))
print("  rows written          %d of %d expected ticks -> %d lost" % (len(rows), secs, secs - len(rows)))
print("  answered / failed     %d / %d (two 5 s outages)" % (ok, len(rows) - ok))
print("  restarts marked       %d (2 expected)" % sum(r[-1] == "1" for r in rows))
if m:
    print("  tick jitter           p50 %s ms, p99 %s ms (request start - tick; target p99 < 20 ms)" % (m.group(1), m.group(2)))
    print("  CPU                   %s s over %s s = %.3f%% of one core (target < 1%%)" % (
        m.group(3), m.group(4), 100 * float(m.group(3)) / float(m.group(4))))
print("  row time - tick       p99 %.1f ms (response time stamp vs start + k s)" % p99)
PY
