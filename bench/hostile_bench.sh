#!/usr/bin/env bash
# Hostile inputs that used to be quadratic or unbounded (issue 8): wall time
# and peak RSS of `benchreport RUN --log/--metrics FILE` on each. Figures the
# issue measured before the fix: a 100k-column CSV header 25 s (1M ≈ 40 min),
# a 24 MB crafted hard-wrapped log 28 s (1.4 s for a plain one), a 1 GB
# garbage log 40 s. Targets: all linear; the 1 GB log rejected in seconds.
# usage: bench/hostile_bench.sh   (BUILD_DIR defaults to build-bench, Release)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$src/build-bench}"
out="$(mktemp -d /tmp/br_hostile_bench.XXXXXX)"
trap 'rm -rf "$out"' EXIT
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target benchreport -j"$(nproc)" >/dev/null
bin="$build/benchreport"
run="$out/run"; cp -r "$src/fixtures/runs/tiny" "$run"; rm -rf "$run/report"
python3 - "$out" <<'PY'
import sys
o = sys.argv[1]
def wrapped(name, head, piece_len, total=24_000_000, pieces=600):
    with open(f"{o}/{name}", "w") as f:
        f.write("INFO 08-01 03:54:33 [api_server.py:1] vLLM API server version 0.10.0\n")
        n = 0
        while n < total:
            f.write(head + "\n"); n += len(head) + 1
            for i in range(pieces):
                p = ("'k%06d': " % i) + "v" * (piece_len - 11)
                f.write(p + "\n"); n += len(p) + 1
wrapped("wrap-args.log", "INFO 08-01 03:54:34 [utils.py:2] non-default args: {'model': 'x', ", 100)
wrapped("wrap-args-unprefixed.log", "something non-default args: {'model': 'x', ", 10000)
wrapped("wrap-stats.log", "INFO 08-01 03:54:34 [loggers.py:2] Engine 000: Avg prompt throughput: 1.0 tokens/s, Running: 3", 10000)
wrapped("wrap-init.log", "INFO 08-01 03:54:34 [core.py:2] Initializing a V1 LLM engine (v0.10.0", 100)
with open(f"{o}/plain.log", "w") as f:
    n = 0
    while n < 24_000_000:
        s = "INFO 08-01 03:54:34 [loggers.py:2] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%, Prefix cache hit rate: 0.0%\n"
        f.write(s); n += len(s)
for n_cols, name in ((100_000, "wide-100k.csv"), (1_000_000, "wide-1m.csv")):
    h = "timestamp," + ",".join("vllm:c%d" % i for i in range(n_cols))
    row = ",".join("1" for _ in range(n_cols))
    with open(f"{o}/{name}", "w") as f:
        f.write(h + "\n" + "1785556000.0," + row + "\n" + "1785556001.0," + row + "\n")
PY
(yes 'GET /index.html HTTP/1.1 200 garbage that is not a vLLM log line at all' || true) | head -c 1G > "$out/garbage-1g.log"
measure() { # LABEL CMD...: wall time, peak RSS and exit code
	local label=$1; shift
	local rc=0
	/usr/bin/time -f "%e %M" -o "$out/t" "$@" > /dev/null 2> "$out/err" || rc=$?
	read -r wall rss < <(tail -1 "$out/t")
	printf "  %-40s %7.2f s  %8.1f MiB  exit %d\n" "$label" "$wall" "$(awk -v r="$rss" 'BEGIN{print r/1024}')" "$rc"
}
echo "benchreport on hostile inputs (whole report, tiny run + the file; $(nproc) cores)"
for f in plain wrap-args wrap-args-unprefixed wrap-stats wrap-init; do
	measure "--log $f.log (24 MB)" "$bin" "$run" --log "$out/$f.log" -o "$out/o-$f" -q
done
measure "--log garbage-1g.log (1 GiB)" "$bin" "$run" --log "$out/garbage-1g.log" -o "$out/o-g" -q
measure "--metrics wide-100k.csv" "$bin" "$run" --metrics "$out/wide-100k.csv" -o "$out/o-w1" -q
measure "--metrics wide-1m.csv" "$bin" "$run" --metrics "$out/wide-1m.csv" -o "$out/o-w2" -q
