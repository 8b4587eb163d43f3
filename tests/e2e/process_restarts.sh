#!/usr/bin/env bash
# A server restart that no counter shows by falling (thirty-second breaker):
# process_start_time_seconds changes, but the new process counted past the
# old one's values, so after − before undercounts and a preemption gate
# passed on it. The restart is read from the start time: counts become
# lower bounds ("at least"), deltas count the new process from 0.
#  - a before/after snapshot pair across a restart: before says 5
#    preemptions, after (new process) 8: at least 8, not 8 − 5 = 3;
#  - a metrics series whose restart hides behind missed scrapes (rows
#    blank, then the counters from 0 again, above their old values): the
#    count is the old process's rise plus the new one's (numpy below).
. "$(dirname "$0")/lib.bash"
"$BIN" simulate "$SRC/fixtures/configs/many-preemptions.json" -o "$tmp/mp" > /dev/null || bad "simulate"

# ---- the series: rows 0-7 one process, 8-20 missed scrapes, 21- a new process ----
cp -r "$tmp/mp" "$tmp/hid"; rm -rf "$tmp/hid/report"
"$PY" - "$tmp/hid/metrics.csv" > "$tmp/hid.truth" <<'PYEOF'
import csv, sys
import numpy as np
p = sys.argv[1]
rows = list(csv.reader(open(p)))
h, body = rows[0], rows[1:]
C = [i for i, n in enumerate(h) if n.split("{")[0].endswith(("_total", "_sum", "_count", "_bucket"))]
pre = h.index("vllm:num_preemptions_total")
orig = np.array([float(r[pre]) for r in body])
base = {i: float(body[7][i]) for i in C}
h.append("process_start_time_seconds")
for j, r in enumerate(body):
    if j < 8:
        r.append("1768467000.0")
    elif j <= 20:
        for i in range(1, len(r)):
            r[i] = ""
        r.append("")
    else:
        for i in C:
            r[i] = repr(float(r[i]) - base[i])
        r.append("1768467605.0")
post = np.array([float(r[pre]) for r in body[21:]])
# no counter falls across the gap: the new process is past the old values
assert post[0] >= orig[7], (post[0], orig[7])
csv.writer(open(p, "w", newline=""), lineterminator="\n").writerows([h] + body)
# the old process's rise to its last sample, plus the new process's count
# naive: after − first sample, as a series without the start time reads it
print("%g %g" % (orig[7] - orig[0] + post[-1], post[-1] - orig[0]))
PYEOF
read truth naive < "$tmp/hid.truth"
"$BIN" "$tmp/hid" -o "$tmp/hid-out" -q --fail-on "preemptions<=$naive" > /dev/null 2> "$tmp/hid.err"; rc=$?
check "hidden restart: the gate at the naive delta ($naive) fails (exit $rc)" [ "$rc" -eq 1 ]
check "hidden restart: at least $truth preemptions (numpy), a lower bound, 1 restart" "$PY" -c "
import json, sys; p = json.load(open(sys.argv[1]))['preemptions']
sys.exit(0 if p['n_preemptions'] == float(sys.argv[2]) and p['count_is_lower_bound'] and p['server_restarts'] == 1 else 1)" \
  "$tmp/hid-out/summary.json" "$truth"
check "hidden restart: stderr gives 'at least $truth'" grep -q "measured at least $truth " "$tmp/hid.err"
check "hidden restart: the note names the start time's change, 21 s in" grep -q "process_start_time_seconds changes 1 time (first 21 s after the first sample)" \
  <<< "$(pdftotext "$tmp/hid-out/report.pdf" - | tr -s ' \n' '  ')"

# ---- a before/after pair across a restart ----
mkdir -p "$tmp/pair"; cp "$tmp/mp/stress.json" "$tmp/mp/server.log" "$tmp/pair/"
"$PY" - "$tmp/mp/metrics.csv" "$tmp/pair" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h, first, last = rows[0], rows[1], rows[-1]
def prom(path, row, start, scale, pre):
    with open(path, "w") as f:
        f.write("process_start_time_seconds %s\n" % start)
        for n, v in zip(h[1:], row[1:]):
            if n.split("{")[0].endswith("_total") or n.endswith("_sum"):
                v = pre if n == "vllm:num_preemptions_total" else repr(float(v) * scale)
                f.write("%s %s\n" % (n, v))
# before: a warm server that had preempted 5 times; after: a new process, 8 so far
prom(sys.argv[2] + "/metrics-before.prom", first, "1768467000.0", 1.0, "5")
prom(sys.argv[2] + "/metrics-after.prom", last, "1768467600.0", 1.0, "8")
PYEOF
"$BIN" "$tmp/pair" -o "$tmp/pair-out" -q --fail-on 'preemptions<=5' > /dev/null 2> "$tmp/pair.err"; rc=$?
check "pair across a restart: preemptions<=5 fails (exit $rc), at least 8, not 8 − 5 = 3" bash -c "
  [ $rc -eq 1 ] && grep -q 'measured at least 8 (before/after snapshots)' '$tmp/pair.err'"
check "pair across a restart: the note says the restart fell between the snapshots" grep -q \
  "process_start_time_seconds changes 1 time (first between the before and after snapshots)" \
  <<< "$(pdftotext "$tmp/pair-out/report.pdf" - | tr -s ' \n' '  ')"
# the same pair from one process: after − before, exact
sed -i 's/^process_start_time_seconds .*/process_start_time_seconds 1768467000.0/' "$tmp/pair/metrics-after.prom"
"$BIN" "$tmp/pair" -o "$tmp/pair-out2" -q --fail-on 'preemptions<=3' > /dev/null 2>&1; rc=$?
check "one process: 8 − 5 = 3 preemptions, exact, the gate passes (exit $rc)" bash -c "[ $rc -eq 0 ] && \"\$1\" -c \"
import json, sys; p = json.load(open(sys.argv[1]))['preemptions']
sys.exit(0 if p['n_preemptions'] == 3 and not p['count_is_lower_bound'] and p['server_restarts'] == 0 else 1)\" '$tmp/pair-out2/summary.json'" _ "$PY"
finish
