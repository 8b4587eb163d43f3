#!/usr/bin/env bash
# Long tables go to an appendix (issue 14): a run with more preemption
# events than fit on a page (fixtures/configs/many-preemptions.json: a
# 24,000-token pool under 64 x 1,280 tokens of demand) lists them after the
# chapters, under "Appendix: all preemption events", and the preemption
# chapter says where; a run with few events (round 1, 37) keeps them in the
# chapter.
. "$(dirname "$0")/lib.bash"
"$BIN" simulate "$SRC/fixtures/configs/many-preemptions.json" -o "$tmp/many" > /dev/null 2>&1 || bad "simulate many-preemptions"
"$BIN" "$tmp/many" -o "$tmp/out" --quiet > /dev/null 2>&1; rc=$?
check "report exit 0 (got $rc)" [ "$rc" -eq 0 ]
n=$(jget "$tmp/out/summary.json" preemptions.n_events)
check "more than 40 preemption events ($n)" [ "$n" -gt 40 ]
pdftotext "$tmp/out/report.pdf" - | tr -s ' \n' '  ' > "$tmp/t"
"$PY" - "$tmp/t" "$n" > "$tmp/order" <<'PYEOF'
import sys
t = open(sys.argv[1]).read(); n = sys.argv[2]
say = t.find("The %s preemption events are listed in the appendix" % format(int(n), ","))
app = t.rfind("Appendix: all preemption events")   # the heading: after the chapter's mention
lat = t.rfind("Latency", 0, app)
defs = t.rfind("Metric definitions")
head = "KV before KV after"                           # the table's header row
col = t.find(head, app)
body_table = t.find(head, 0, app) if app > 0 else -1
print(say, lat, app, col, defs, body_table)
print("OK" if 0 <= say < app and lat < app < col < defs and body_table < 0 else "BAD")
PYEOF
cat "$tmp/order"
check "chapter points to the appendix, the table comes after the chapters and before the definitions" grep -qx OK "$tmp/order"
"$BIN" simulate "$SRC/fixtures/configs/round1.json" -o "$tmp/r1" > /dev/null 2>&1 || bad "simulate round1"
"$BIN" "$tmp/r1" -o "$tmp/r1out" --quiet > /dev/null 2>&1
pdftotext "$tmp/r1out/report.pdf" - > "$tmp/r1.txt"
check "round 1 (37 events): no events appendix" bash -c "! grep -q 'Appendix: all preemption events' '$tmp/r1.txt'"
check "round 1: the events table in the chapter" grep -q "Preemption events" "$tmp/r1.txt"
finish
