#!/usr/bin/env bash
# `benchreport index`: an archive with a run report, a campaign report, a
# knee report and a stray summary.json becomes one row per run (1 + the
# campaign's runs); the CSV and JSONL cells equal the summaries' values;
# a broken summary.json or another schema_version stops the index with
# file:line:column and writes nothing, unless --skip-bad.
. "$(dirname "$0")/lib.bash"
arch="$tmp/archive"
mkdir -p "$arch/nightly" "$arch/other"
cp -r "$SRC/fixtures/runs/tiny" "$tmp/tiny"
rm -rf "$tmp/tiny/report"
"$BIN" "$tmp/tiny" -o "$arch/nightly/tiny-report" --quiet || bad "tiny report"
cp -r "$SRC/fixtures/truth/campaign-repeats" "$tmp/camp"
"$BIN" "$tmp/camp" -o "$arch/nightly/camp-report" --quiet 2>/dev/null || bad "campaign report"
"$BIN" knee "$SRC/fixtures/truth/knee-repeats" --slo 'ttft_p99<=500ms' -o "$arch/knee" >/dev/null 2>&1
echo '{"date": "x", "results": []}' > "$arch/other/summary.json"   # another tool's object
mkdir -p "$arch/sweep"; echo '[{"date": "x"}]' > "$arch/sweep/summary.json"   # a vllm bench sweep summary (a list)
n_camp=$(jget "$arch/nightly/camp-report/summary.json" campaign.n_runs)

"$BIN" index "$arch" -o "$tmp/runs.csv" 2> "$tmp/stderr"; rc=$?
check "index: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "index: says how many rows" grep -q "$((1 + n_camp)) runs written to" "$tmp/stderr"
check "index: notes what it left out (knee, another tool's object, a sweep's list)" grep -q "left out 3 summary.json files" "$tmp/stderr"
check "CSV: one row per run, values equal the summaries" "$PY" - "$tmp/runs.csv" "$arch/nightly" "$n_camp" <<'PYEOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
n_camp = int(sys.argv[3])
assert len(rows) == 1 + n_camp, len(rows)
tiny = json.load(open(sys.argv[2] + "/tiny-report/summary.json"))
camp = json.load(open(sys.argv[2] + "/camp-report/summary.json"))
# rows are in path order: camp-report/ sorts before tiny-report/
kinds = [r["report_kind"] for r in rows]
assert kinds == ["campaign"] * n_camp + ["run"], kinds
t = rows[-1]
assert t["run_name"] == "tiny" and t["campaign_name"] == "", t
assert abs(float(t["ttft_p99_ms"]) - tiny["latency"]["ttft"]["p99_ms"]) < 1e-9 * tiny["latency"]["ttft"]["p99_ms"]
assert t["preemptions"] == "1" and t["kv_pool_tokens"] == "5120" and t["request_rate_rps"] == "inf", t
assert t["latency_from_arrays"] == "true" and t["gate_passed"] == "", t
assert t["findings"] == ";".join(f["id"] for f in tiny["findings"])
for r, s in zip(rows[:n_camp], camp["runs"]):
    assert r["campaign_name"] == camp["campaign"]["name"] and r["run_name"] == s["run"]["name"], (r, s["run"])
    assert float(r["completed"]) == s["bench"]["completed"]
assert all(r["schema_version"] == "1" for r in rows)
PYEOF
# run_dir names the folder for a reader anywhere (fourteenth breaker: a campaign reported
# from another working directory gave "work/camp1/c16-2048-512", relative to nothing recorded)
(cd "$tmp" && "$BIN" camp -o "$tmp/camp-rel-report" --quiet 2>/dev/null)
(cd / && "$BIN" index "$tmp/camp-rel-report" -o "$tmp/rel.csv" 2>/dev/null)
check "run_dir: absolute, each a run folder of the campaign" "$PY" - "$tmp/rel.csv" "$tmp/camp" <<'PYEOF'
import csv, os, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows and all(r["run_dir"].startswith(os.path.realpath(sys.argv[2]) + "/") for r in rows), [r["run_dir"] for r in rows]
assert all(os.path.isdir(r["run_dir"]) for r in rows)
PYEOF

"$BIN" index "$arch/nightly" --jsonl -o "$tmp/runs.jsonl" 2>/dev/null; rc=$?
check "JSONL: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "JSONL: same columns as the CSV, null for unknown" "$PY" - "$tmp/runs.jsonl" "$tmp/runs.csv" <<'PYEOF'
import csv, json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
header = next(csv.reader(open(sys.argv[2], newline="")))
assert all(list(l.keys()) == header for l in lines)
t = lines[-1]
assert t["run_name"] == "tiny" and t["preemptions"] == 1 and t["campaign_name"] is None and t["driver"] is None
PYEOF

# bad inputs: nothing written, file:line:column named
printf '{"schema_version": 1,\n "bench": {' > "$arch/other/summary.json"
rm -f "$tmp/bad.csv"
"$BIN" index "$arch" -o "$tmp/bad.csv" 2> "$tmp/stderr2"; rc=$?
check "broken summary.json: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "broken summary.json: names file:line:column" grep -q "other/summary.json:2:[0-9]*:" "$tmp/stderr2"
printf '{\n' > "$arch/other/summary.json"
"$BIN" index "$arch" -o "$tmp/bad.csv" 2> "$tmp/stderr2b"
check "broken summary.json ending after a newline: column 1, not jansson's 0" grep -q "other/summary.json:2:1: " "$tmp/stderr2b"
printf '{"schema_version": 1,\n "bench": {' > "$arch/other/summary.json"
check "broken summary.json: nothing written" [ ! -e "$tmp/bad.csv" ]
"$BIN" index "$arch" -o "$tmp/skip.csv" --skip-bad 2> "$tmp/stderr3"; rc=$?
check "--skip-bad: exit 0 (got $rc) and a note" bash -c "[ $rc -eq 0 ] && grep -q 'skipped .*other/summary.json:2' '$tmp/stderr3'"
sed 's/"schema_version": 1/"schema_version": 2/' "$arch/nightly/tiny-report/summary.json" > "$arch/other/summary.json"
"$BIN" index "$arch" -o "$tmp/bad.csv" 2> "$tmp/stderr4"; rc=$?
check "schema_version 2: exit 3 (got $rc), named" bash -c "[ $rc -eq 3 ] && grep -qE 'other/summary.json:[0-9]+:[0-9]+: schema_version 2, this benchreport reads schema_version 1' '$tmp/stderr4'"
# a benchreport run summary with a block damaged (null "bench"): named, not
# passed over as another tool's (third breaker)
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d['bench']=None; json.dump(d,open(sys.argv[2],'w'),indent=1)" \
  "$arch/nightly/tiny-report/summary.json" "$arch/other/summary.json"
"$BIN" index "$arch" -o "$tmp/bad.csv" 2> "$tmp/stderr7"; rc=$?
check "damaged run summary: exit 3 (got $rc), file:line:col and the key named" bash -c "[ $rc -eq 3 ] && grep -qE 'other/summary.json:[0-9]+:[0-9]+: a benchreport run summary damaged: expected an object at \"bench\", found null' '$tmp/stderr7'"
rm -f "$arch/other/summary.json"
cp "$SRC/fixtures/runs/tiny/stress.json" "$tmp/keep.json"; sum_before=$(sha256sum "$tmp/keep.json")
"$BIN" index "$arch/nightly" -o "$tmp/keep.json" 2> "$tmp/stderr5"; rc=$?
check "-o onto a file that is not an index: exit 2 (got $rc), unchanged" bash -c "[ $rc -eq 2 ] && [ \"\$(sha256sum '$tmp/keep.json')\" = '$sum_before' ]"
"$BIN" index "$arch/nightly" -o "$tmp/runs.csv" 2>/dev/null; rc=$?
check "-o replaces its own earlier index (exit $rc)" [ "$rc" -eq 0 ]
if [ -c /dev/full ]; then
  "$BIN" index "$arch/nightly" > /dev/full 2> "$tmp/stderr6"; rc=$?
  check "index to a full stdout: exit 1 (got $rc)" [ "$rc" -eq 1 ]
  "$BIN" "$tmp/tiny" --json -o "$tmp/tiny-json" > /dev/full 2>/dev/null; rc=$?
  check "--json to a full stdout: exit 1 (got $rc)" [ "$rc" -eq 1 ]
  "$BIN" index "$arch/nightly" -o /dev/full 2>/dev/null; rc=$?
  check "-o /dev/full: refused (exit 2, got $rc), the device left alone" bash -c "[ $rc -eq 2 ] && [ -c /dev/full ]"
fi
# one archive named three ways (relative, with ./, through a link): each file indexed once, said
ln -s "$arch/nightly" "$tmp/nightly-link"
(cd "$arch" && "$BIN" index nightly ./nightly "$tmp/nightly-link" -o "$tmp/spell.csv" 2> "$tmp/spell.err"); rc=$?
check "index, one archive named three ways: exit 0 (got $rc), $((1 + n_camp)) rows" bash -c "[ $rc -eq 0 ] && [ \$(( \$(wc -l < '$tmp/spell.csv') - 1 )) -eq $((1 + n_camp)) ]"
check "index, one archive named three ways: the extra spellings noted" grep -q "4 summary.json files reached again under another path" "$tmp/spell.err"   # 2 reports × 2 extra spellings
"$BIN" index 2>/dev/null; rc=$?
check "no folder: exit 2 (got $rc)" [ "$rc" -eq 2 ]
mkdir -p "$tmp/empty"
"$BIN" index "$tmp/empty" > "$tmp/empty.csv" 2> "$tmp/empty.err"; rc=$?
check "empty folder: exit 0 (got $rc), the header only" bash -c "[ $rc -eq 0 ] && [ \$(wc -l < '$tmp/empty.csv') -eq 1 ]"
check "empty folder: says it found no summary.json" grep -q "no summary.json of a benchreport report under" "$tmp/empty.err"
# a run without metrics: its ledger and preemption count were never computed,
# so the index leaves them empty (unknown), never 0 / false (tenth breaker)
mkdir -p "$tmp/nom" "$tmp/nomarch"
cp "$SRC/fixtures/runs/tiny/stress.json" "$SRC/fixtures/runs/tiny/server.log" "$tmp/nom/"
"$BIN" "$tmp/nom" -o "$tmp/nomarch/r" --quiet > /dev/null 2>&1
"$BIN" index "$tmp/nomarch" -o "$tmp/nom.csv" > /dev/null 2>&1
check "no metrics: ledger and lower-bound columns empty, not 0/false" "$PY" - "$tmp/nom.csv" <<'PYEOF'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1], newline="")))[0]
bad = {k: r[k] for k in ("ledger_n_agree", "ledger_n_disagree", "preemptions_is_lower_bound", "running_mean") if r[k] != ""}
sys.exit(1 if bad else 0)
PYEOF
# an index benchreport wrote is replaced in the other form too (README: "replaced
# only when it is an index benchreport wrote"; tenth breaker)
"$BIN" index "$tmp/nomarch" -o "$tmp/nom.csv" --jsonl > /dev/null 2>&1; rc=$?
check "a CSV index replaced by a JSONL one: exit 0 (got $rc)" bash -c "[ $rc -eq 0 ] && head -c 16 '$tmp/nom.csv' | grep -q '{\"summary_path\"'"
# ... but not once edited: a column added by hand, a note line appended
# (thirty-second breaker: both were overwritten without a word)
"$BIN" index "$tmp/nomarch" -o "$tmp/ed.csv" > /dev/null 2>&1
"$BIN" index "$tmp/nomarch" -o "$tmp/ed.csv" > /dev/null 2>&1; rc=$?
check "its own unedited CSV index is replaced (exit $rc)" [ "$rc" -eq 0 ]
"$PY" -c "
import csv, sys; r = list(csv.reader(open(sys.argv[1]))); r[0].append('my_comment'); [x.append('checked by hand') for x in r[1:]]
csv.writer(open(sys.argv[1], 'w'), lineterminator='\n').writerows(r)" "$tmp/ed.csv"
cp "$tmp/ed.csv" "$tmp/ed.before"
"$BIN" index "$tmp/nomarch" -o "$tmp/ed.csv" > /dev/null 2> "$tmp/ed.err"; rc=$?
check "a column added by hand: exit 2 (got $rc), file unchanged, line 1 named" bash -c "[ $rc -eq 2 ] && cmp -s '$tmp/ed.csv' '$tmp/ed.before' &&
  grep -q 'ed.csv:1: an index benchreport wrote, but edited since (a header column benchreport does not write)' '$tmp/ed.err'"
"$BIN" index "$tmp/nomarch" -o "$tmp/ed.jsonl" --jsonl > /dev/null 2>&1
echo "# reviewed" >> "$tmp/ed.jsonl"; cp "$tmp/ed.jsonl" "$tmp/ed.jsonl.before"
"$BIN" index "$tmp/nomarch" -o "$tmp/ed.jsonl" --jsonl > /dev/null 2> "$tmp/ed2.err"; rc=$?
n=$(wc -l < "$tmp/ed.jsonl")
check "a note appended to a JSONL index: exit 2 (got $rc), unchanged, its line ($n) named" bash -c "[ $rc -eq 2 ] &&
  cmp -s '$tmp/ed.jsonl' '$tmp/ed.jsonl.before' && grep -q 'ed.jsonl:$n: an index benchreport wrote, but edited since' '$tmp/ed2.err'"
# One row per run (brk18 M3): the tiny run reported again in Chinese and
# with a gate, in two more folders of the archive: still one row for it,
# the newest report's, and a note naming the two left out. A second run
# folder (a copy of tiny elsewhere) is another run: its own row.
d3="$tmp/dedupe"; mkdir -p "$d3"
cp -r "$SRC/fixtures/runs/tiny" "$tmp/tiny3"; rm -rf "$tmp/tiny3/report"
"$BIN" "$tmp/tiny3" -o "$d3/en" --quiet || bad "tiny3 en"
sleep 0.05; "$BIN" "$tmp/tiny3" -o "$d3/zh" --lang zh --quiet || bad "tiny3 zh"
sleep 0.05; "$BIN" "$tmp/tiny3" -o "$d3/gate" --fail-on 'ttft_p99<=60s' --quiet || bad "tiny3 gate"
cp -r "$SRC/fixtures/runs/tiny" "$tmp/tiny4"; rm -rf "$tmp/tiny4/report"
"$BIN" "$tmp/tiny4" -o "$d3/other-run" --quiet || bad "tiny4"
"$BIN" index "$d3" -o "$tmp/d3.csv" 2> "$tmp/d3.err"; rc=$?
check "one row per run: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "one row per run: 2 rows (tiny3 once, tiny4)" [ "$("$PY" -c 'import csv,sys; print(len(list(csv.DictReader(open(sys.argv[1])))))' "$tmp/d3.csv")" = 2 ]
check "one row per run: tiny3's row is the newest report (gate)" grep -q "^$d3/gate/summary.json," "$tmp/d3.csv"
check "one row per run: the note names the 2 left out" grep -q "2 older reports of a run folder already indexed" "$tmp/d3.err"
check "one row per run: says 2 runs written" grep -q "2 runs written to" "$tmp/d3.err"
# a run cut short: 4 of its prompts neither completed nor failed, so its
# "failed" is unknown, not the file's 0 (twenty-fourth breaker: a DuckDB
# "failed = 0" filter read it as clean); the gap is its own column
cp -r "$SRC/fixtures/runs/tiny" "$tmp/cut"
rm -rf "$tmp/cut/report"
"$PY" -c 'import json,sys; p=sys.argv[1]; d=json.load(open(p)); assert d["failed"] == 0; d["num_prompts"] = d["completed"] + 4; json.dump(d, open(p, "w"))' "$tmp/cut/stress.json"
"$BIN" "$tmp/cut" -o "$tmp/cut-report" --quiet 2>/dev/null || bad "cut report"
"$BIN" index "$tmp/cut-report" --jsonl -o "$tmp/cut.jsonl" 2>/dev/null
check "cut run: failed null, unaccounted_prompts 4, completed kept" "$PY" -c '
import json, sys
r = json.loads(open(sys.argv[1]).readline())
sys.exit(0 if r["failed"] is None and r["unaccounted_prompts"] == 4 and r["completed"] == r["num_prompts"] - 4 else 1)' "$tmp/cut.jsonl"
check "whole run: failed 0, unaccounted_prompts 0" "$PY" -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][-1]
sys.exit(0 if r["run_name"] == "tiny" and r["failed"] == 0 and r["unaccounted_prompts"] == 0 else 1)' "$tmp/runs.jsonl"
# a campaign gated with a run folder whose client died (no bench result): a
# row for it, gate_passed false, the rest unknown (twenty-ninth breaker: left
# out, so "gate_passed = false" undercounted the failed gates)
mkdir -p "$tmp/c3"; cp -r "$SRC/fixtures/runs/tiny" "$tmp/c3/tiny"; cp -r "$SRC/fixtures/runs/tiny" "$tmp/c3/crashed"
rm -rf "$tmp"/c3/*/report "$tmp/c3/crashed/stress.json"
"$BIN" "$tmp/c3" -o "$tmp/c3-out" --quiet --fail-on 'failed==0' > /dev/null 2>&1
"$BIN" index "$tmp/c3-out" --jsonl -o "$tmp/c3.jsonl" 2>/dev/null
check "gated campaign: the dead run folder has a row, gate_passed false, unknowns null" "$PY" -c '
import json, sys
rows = {r["run_name"]: r for r in map(json.loads, open(sys.argv[1]))}
c = rows.get("crashed")
sys.exit(0 if len(rows) == 2 and c and c["gate_passed"] is False and c["completed"] is None and c["run_dir"].endswith("/c3/crashed") and rows["tiny"]["gate_passed"] is True else 1)' "$tmp/c3.jsonl"
finish
