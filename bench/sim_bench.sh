#!/usr/bin/env bash
# Build benchreport (Release) and time `benchreport simulate` on the reference
# round 1 and on a 5,000-request × 1,000-output-token run: wall time and peak
# memory from GNU time (/usr/bin/time -v) when present, else bash's `time`.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$src/build-sim-bench}"
out="$(mktemp -d /tmp/br_sim_bench.XXXXXX)"
trap 'rm -rf "$out"' EXIT
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target benchreport -j"$(nproc)" >/dev/null
bin="$build/benchreport"
for cfg in round1 big-5000x1000; do
	echo "== simulate $cfg"
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v "$bin" simulate "$src/fixtures/configs/$cfg.json" -o "$out/$cfg" 2>"$out/$cfg.time"
		grep -E "Elapsed \(wall clock\)|Maximum resident set size" "$out/$cfg.time" | sed 's/^\s*/  /'
	else
		time "$bin" simulate "$src/fixtures/configs/$cfg.json" -o "$out/$cfg"
	fi
	ls -l "$out/$cfg" | awk 'NR > 1 { printf "  %-12s %12d bytes\n", $9, $5 }'
done
