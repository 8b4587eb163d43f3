#!/usr/bin/env bash
# The CI gate (--fail-on, --junit) on the tiny run and a small campaign:
# exit 1 with the failing terms on stderr, the "gate" object in
# summary.json, JUnit XML that parses with its counts, exit 0 when every
# term holds, exit 2 and nothing written for a bad spec. Measured values
# (ttft p99 590.506 ms, 1 preemption) are numpy's / the fixture's, as in
# tests/unit/test_analysis_gate.c.
. "$(dirname "$0")/lib.bash"
cp -r "$SRC/fixtures/runs/tiny" "$tmp/tiny"
rm -rf "$tmp/tiny/report"
out="$tmp/tiny/report"

"$BIN" "$tmp/tiny" --quiet --fail-on 'ttft_p99<=2s,itl_p99<=100ms,failed==0,preemptions==0' \
  --junit "$tmp/gate.xml" > "$tmp/stdout" 2> "$tmp/stderr"; rc=$?
check "failing gate: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "the report is still written" [ -s "$out/report.pdf" ]
check "stderr names the failing term" grep -q "gate: FAIL preemptions==0: measured 1, limit == 0" "$tmp/stderr"
check "stderr gives the verdict" grep -q "gate: FAILED: 3 of 4 terms pass" "$tmp/stderr"
check "passing terms are not printed" bash -c "! grep -q 'ttft_p99' '$tmp/stderr'"
s="$out/summary.json"
check "summary gate.passed false" [ "$(jget "$s" gate.passed)" = False ]
check "summary gate.n_fail 1" [ "$(jget "$s" gate.n_fail)" = 1 ]
check "summary ttft term value_ms 590.506" near "$(jget "$s" gate.terms.term=ttft_p99\<=2s.value_ms)" 590.5062612730858 1e-9
check "summary preemption term fails" [ "$(jget "$s" gate.terms.term=preemptions==0.status)" = fail ]
check "JUnit XML: 4 tests, 1 failure, the failing case named" "$PY" - "$tmp/gate.xml" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.tag == "testsuites" and r.get("tests") == "4" and r.get("failures") == "1", r.attrib
cases = r.findall("./testsuite/testcase")
assert [c.get("name") for c in cases] == ["ttft_p99<=2s", "itl_p99<=100ms", "failed==0", "preemptions==0"]
failed = [c.get("name") for c in cases if c.find("failure") is not None]
assert failed == ["preemptions==0"], failed
PYEOF

rm -rf "$out"
"$BIN" "$tmp/tiny" --quiet --fail-on 'ttft_p99<=2s,failed==0,preemptions<=1' > /dev/null 2> "$tmp/stderr2"; rc=$?
check "passing gate: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "passing gate: verdict line" grep -q "gate: passed: 3 of 3 terms pass" "$tmp/stderr2"
check "PDF says the run passes the gate" bash -c "pdftotext '$out/report.pdf' - | grep -q 'passes the CI gate'"

rm -rf "$out"
"$BIN" "$tmp/tiny" --fail-on 'ttft_p99<=2min' > /dev/null 2> "$tmp/stderr3"; rc=$?
check "bad spec: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "bad spec: message names the term" grep -q "term 1 'ttft_p99<=2min': expected a unit us, ms or s" "$tmp/stderr3"
check "bad spec: nothing written" [ ! -e "$out" ]
"$BIN" "$tmp/tiny" --junit "$tmp/x.xml" > /dev/null 2>&1; rc=$?
check "--junit without --fail-on: exit 2 (got $rc)" [ "$rc" -eq 2 ]

# --junit into a folder that does not exist: refused before the report is
# written (it wrote the report, then failed with exit 1)
rm -rf "$tmp/tiny/report"
"$BIN" "$tmp/tiny" --quiet --fail-on 'failed==0' --junit "$tmp/no-such-dir/gate.xml" > /dev/null 2> "$tmp/j0"; rc=$?
check "--junit into a missing folder: exit 2 (got $rc), said, no report written" bash -c "[ $rc -eq 2 ] && grep -q 'no-such-dir does not exist' '$tmp/j0' && [ ! -e '$tmp/tiny/report' ]"
# --junit never replaces a file benchreport did not write, nor writes inside the report folder
sum_before=$(sha256sum "$tmp/tiny/stress.json")
"$BIN" "$tmp/tiny" --quiet --fail-on 'failed==0' --junit "$tmp/tiny/stress.json" > /dev/null 2> "$tmp/j1"; rc=$?
check "--junit onto the bench result: exit 2 (got $rc), file unchanged" bash -c "[ $rc -eq 2 ] && [ \"\$(sha256sum '$tmp/tiny/stress.json')\" = '$sum_before' ] && grep -q 'not written by benchreport' '$tmp/j1'"
"$BIN" "$tmp/tiny" --quiet --fail-on 'failed==0' > /dev/null 2>&1
"$BIN" "$tmp/tiny" --quiet --fail-on 'failed==0' --junit "$out/gate.xml" > /dev/null 2> "$tmp/j2"; rc=$?
check "--junit inside the report folder: exit 2 (got $rc)" bash -c "[ $rc -eq 2 ] && grep -q 'inside a report folder' '$tmp/j2'"
# ... nor inside another report's folder (twenty-ninth breaker: the file then
# kept that report from ever being written again)
"$BIN" "$tmp/tiny" --quiet --fail-on 'failed==0' -o "$tmp/other-out" --junit "$out/gate.xml" > /dev/null 2> "$tmp/j2b"; rc=$?
check "--junit inside another report's folder: exit 2 (got $rc), nothing written" bash -c "
  [ $rc -eq 2 ] && grep -q 'inside a report folder' '$tmp/j2b' && [ ! -e '$out/gate.xml' ] && [ ! -e '$tmp/other-out' ]"
# a run name with characters XML 1.0 does not allow (U+FFFE, a control): the file still parses
cp -r "$tmp/tiny" "$tmp/weird"; rm -rf "$tmp/weird/report"
"$PY" -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)) if __import__('os').path.exists(p) else {}; d['name']='w\ufffe\x01x'; json.dump(d, open(p,'w'))" "$tmp/weird/run.json"
"$BIN" "$tmp/weird" --quiet --fail-on 'failed==0' --junit "$tmp/weird.xml" > /dev/null 2>&1
check "--junit with U+FFFE and a control in the run name: well-formed XML" "$PY" -c "import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])" "$tmp/weird.xml"
# a JUnit file benchreport wrote is replaced; once edited it is not (fourteenth breaker:
# an appended note and an added attribute were silently overwritten)
"$BIN" "$tmp/tiny" --quiet --fail-on 'failed==0' --junit "$tmp/sealed.xml" > /dev/null 2>&1
"$BIN" "$tmp/tiny" --quiet --fail-on 'failed==0' --junit "$tmp/sealed.xml" > /dev/null 2> "$tmp/j3"; rc=$?
check "--junit over its own unedited file: replaced (exit $rc)" [ "$rc" -eq 0 ]
check "--junit: the file still parses as XML with its seal comment" "$PY" -c "import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])" "$tmp/sealed.xml"
echo '<!-- my notes -->' >> "$tmp/sealed.xml"
sum_edit=$(sha256sum "$tmp/sealed.xml")
"$BIN" "$tmp/tiny" --quiet --fail-on 'failed==0' --junit "$tmp/sealed.xml" > /dev/null 2> "$tmp/j4"; rc=$?
check "--junit over an edited file: exit 2 (got $rc), said, file unchanged" bash -c "[ $rc -eq 2 ] && grep -q 'edited since' '$tmp/j4' && [ \"\$(sha256sum '$tmp/sealed.xml')\" = '$sum_edit' ]"
"$BIN" "$tmp/tiny" --quiet --fail-on 'failed==0' --junit "$tmp/gate.xml" > /dev/null 2>&1; rc=$?
check "--junit replaces its own earlier file (exit $rc)" [ "$rc" -eq 0 ]

# several results in one bench file: every result is gated, by its position in the file
mkdir -p "$tmp/multi"
"$PY" - "$tmp/tiny/stress.json" "$tmp/multi/results.jsonl" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
slow = dict(d, date="20261029-110000", ttfts=[x * 2 for x in d["ttfts"]])   # older line: TTFT doubled
fast = dict(d, date="20261029-120005")
with open(sys.argv[2], "w") as f:
    f.write(json.dumps(slow) + "\n" + json.dumps(fast) + "\n")
PYEOF
"$BIN" "$tmp/multi" -o "$tmp/multi-out" --quiet --fail-on 'ttft_p99<=1s' --junit "$tmp/multi.xml" 2> "$tmp/m.err"; rc=$?
check "several results: the older, slower one fails the gate (exit 1, got $rc)" [ "$rc" -eq 1 ]
check "several results: the failing result is named by its line" grep -q "gate: multi#1: FAIL ttft_p99<=1s: measured 1.18101 s" "$tmp/m.err"
check "several results: the reported (newest) one passes" [ "$(jget "$tmp/multi-out/summary.json" gate.reported_result_passed)" = True ]
# the run's verdict is every result's, as its exit status (twentieth breaker: the PDF,
# summary.json and the index said "passes" beside exit 1)
check "several results: gate.passed false, as the exit status" [ "$(jget "$tmp/multi-out/summary.json" gate.passed)" = False ]
pdftotext "$tmp/multi-out/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/multi.txt"
check "several results: the PDF says the run fails and names multi#1" bash -c "grep -q 'The run fails the CI gate' '$tmp/multi.txt' && grep -q 'multi#1: ttft_p99<=1s — FAIL' '$tmp/multi.txt' && ! grep -q 'The run passes the CI gate' '$tmp/multi.txt'"
"$BIN" index "$tmp/multi-out/summary.json" > "$tmp/multi-idx.csv" 2> /dev/null
check "several results: the index's gate_passed is false" "$PY" -c "
import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); sys.exit(0 if r and r[0]['gate_passed'] in ('false','False') else 1)" "$tmp/multi-idx.csv"
check "several results: summary lists the other result" [ "$(jget "$tmp/multi-out/summary.json" gate.other_results.0.result)" = "multi#1" ]
check "several results: one JUnit suite per result" "$PY" -c "
import xml.etree.ElementTree as ET
assert len(ET.parse('$tmp/multi.xml').getroot().findall('testsuite')) == 2"

# a campaign folder holding a run folder without its bench result (the load
# client died: server.log and metrics only): the gate cannot pass over it
# (twentieth breaker: "passes ... in each of its 2 runs", exit 0)
mkdir -p "$tmp/camp3"; cp -r "$SRC/fixtures/runs/tiny" "$tmp/camp3/tiny"; rm -rf "$tmp/camp3/tiny/report"
cp -r "$SRC/fixtures/runs/tiny" "$tmp/camp3/crashed"; rm -rf "$tmp/camp3/crashed/report" "$tmp/camp3/crashed/stress.json"
"$BIN" "$tmp/camp3" -o "$tmp/camp3-out" --quiet --fail-on 'failed==0' --junit "$tmp/c3.xml" 2> "$tmp/c3.err"; rc=$?
check "campaign with a run folder without its bench result: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "... named on stderr as unknown" grep -q "gate: crashed: UNKNOWN failed==0" "$tmp/c3.err"
check "... summary: 2 runs, 1 failed, crashed listed" [ "$(jget "$tmp/camp3-out/summary.json" campaign.gate.n_runs)/$(jget "$tmp/camp3-out/summary.json" campaign.gate.n_runs_failed)/$(jget "$tmp/camp3-out/summary.json" campaign.gate.runs_without_bench_result.0)" = 2/1/crashed ]
check "... a JUnit suite for it" "$PY" -c "
import xml.etree.ElementTree as ET
assert len(ET.parse('$tmp/c3.xml').getroot().findall('testsuite')) == 2"
# a single run folder without its bench result (the client died): exit 3, and
# the JUnit file still says every term failed as unknown (twenty-ninth breaker:
# no file at all, so CI saw nothing)
"$BIN" "$tmp/camp3/crashed/" --quiet --fail-on 'ttft_p99<=2s,failed==0' --junit "$tmp/crashed.xml" > /dev/null 2>&1; rc=$?
check "run without its bench result: exit 3 (got $rc), JUnit with 2 unknown failures" "$PY" -c "
import sys, xml.etree.ElementTree as ET
r = ET.parse('$tmp/crashed.xml').getroot()
s = r.findall('testsuite')
sys.exit(0 if $rc == 3 and len(s) == 1 and s[0].get('name') == 'crashed' and r.get('failures') == '2' and
         all('no bench result found' in f.get('message') for f in r.iter('failure')) else 1)"
# twenty-ninth breaker: "holds 1 run" beside "fails in 1 of its 2 runs" on one page
check "... the PDF counts the folder apart from the campaign's run" bash -c "
  pdftotext '$tmp/camp3-out/report.pdf' - | tr -s ' \n' '  ' |
  grep -q 'fails in 1 of the 2 run folders gated, which are the campaign.s 1 run and 1 folder with no usable bench result'"
# beside it, a folder holding only that file's newest result (the same
# date and timings): not a copy of the two-result folder, whose failing
# older result stays gated (twentieth breaker: skipped as a copy, exit 0)
mkdir -p "$tmp/camp4/newest"; cp -r "$tmp/multi" "$tmp/camp4/multi"; rm -rf "$tmp/camp4/multi/report"
tail -n 1 "$tmp/multi/results.jsonl" > "$tmp/camp4/newest/stress.json"
"$BIN" "$tmp/camp4" -o "$tmp/camp4-out" --quiet --fail-on 'ttft_p99<=1s' 2> "$tmp/c4.err"; rc=$?
check "a two-result folder beside its newest result alone: exit 1 (got $rc), multi#1 gated" bash -c "[ $rc -eq 1 ] && grep -q 'gate: multi#1: FAIL' '$tmp/c4.err'"
# the same file inside a campaign: its older result is gated too
mkdir -p "$tmp/camp2"; cp -r "$tmp/multi" "$tmp/camp2/multi"; rm -rf "$tmp/camp2/multi/report" 2>/dev/null
cp -r "$SRC/fixtures/runs/tiny" "$tmp/camp2/tiny"; rm -rf "$tmp/camp2/tiny/report"
"$BIN" "$tmp/camp2" -o "$tmp/camp2-out" --quiet --fail-on 'ttft_p99<=1s' 2> "$tmp/c2.err"; rc=$?
check "campaign with a several-result run: exit 1 (got $rc), the older result named" bash -c "[ $rc -eq 1 ] && grep -q 'gate: multi#1: FAIL' '$tmp/c2.err'"
check "campaign: 1 of 2 runs fails" [ "$(jget "$tmp/camp2-out/summary.json" campaign.gate.n_runs_failed)" = 1 ]
# the campaign PDF states the gate on its first page, one row per failed term, the older result by name
pdftotext -l 1 "$tmp/camp2-out/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/c2p1.txt"
check "campaign PDF page 1: the gate failed (tiny equals multi's newest result only: not a copy of the two-result file, two runs)" \
	grep -qF "The campaign fails the CI gate given with --fail-on (ttft_p99<=1s): a term fails in 1 of its 2 runs" "$tmp/c2p1.txt"
check "campaign PDF page 1: the failing older result's row" grep -qE "multi#1 ttft_p99<=1s [0-9.]+ s FAIL" "$tmp/c2p1.txt"

# no per-request arrays: the file's statistics; p50 is its median_ttft_ms (346.594 ms, the file's value)
mkdir -p "$tmp/noarr"
"$PY" - "$tmp/tiny/stress.json" "$tmp/noarr/stress.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump({k: v for k, v in d.items() if not isinstance(v, list)}, open(sys.argv[2], "w"))
PYEOF
"$BIN" "$tmp/noarr" -o "$tmp/noarr-out" --quiet --fail-on 'ttft_p50<=1s,ttft_median<=1s,itl_max<=1s' 2> /dev/null; rc=$?
check "no arrays: exit 1 (itl_max unknown), got $rc" [ "$rc" -eq 1 ]
check "no arrays: ttft_p50 is the file's median" near "$(jget "$tmp/noarr-out/summary.json" gate.terms.0.value_ms)" 346.59414507060575 1e-9
check "no arrays: ttft_p50 from the file's statistics" [ "$(jget "$tmp/noarr-out/summary.json" gate.terms.0.source)" = "the file's statistics" ]
check "no arrays: itl_max unknown" [ "$(jget "$tmp/noarr-out/summary.json" gate.terms.2.status)" = unknown ]
# a percentile the file does not state, settled by one it does: the PDF table says "at most",
# as stderr and summary.json value_is do (fifth breaker: a bare value read as a measurement)
"$BIN" "$tmp/noarr" -o "$tmp/noarr-b" --quiet --fail-on 'ttft_p90<=1s' 2> /dev/null
check "no arrays: ttft_p90 settled by the stated p99, an upper bound" [ "$(jget "$tmp/noarr-b/summary.json" gate.terms.0.value_is)" = "upper bound" ]
pdftotext -l 1 "$tmp/noarr-b/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/noarr-b.txt"
check "no arrays: the gate table says at most" grep -qE "at most [0-9.]+ m?s pass" "$tmp/noarr-b.txt"
# percentiles that fall as p rises (thirteenth breaker: p99_ttft_ms set to 1.0 under a
# median of 346.6 ms let ttft_p90<=5ms pass on the "upper bound" p99): no percentile of
# the file can be trusted, so the term is unknown; the values below are the edited file's
mkdir -p "$tmp/disorder"
"$PY" - "$tmp/noarr/stress.json" "$tmp/disorder/stress.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["p99_ttft_ms"] = 1.0
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$BIN" "$tmp/disorder" -o "$tmp/disorder-out" --fail-on 'ttft_p90<=5ms' > "$tmp/disorder.stdout" 2> "$tmp/disorder.err"; rc=$?
ds="$tmp/disorder-out/summary.json"
check "disordered percentiles: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "disordered percentiles: the term unknown, not passed" [ "$(jget "$ds" gate.terms.0.status)" = unknown ]
check "disordered percentiles: stderr says why" grep -qF "the file's TTFT percentiles contradict each other: p50 346.6 ms > p99 1 ms" "$tmp/disorder.err"
check "disordered percentiles: summary names p50 as the lower percentile" [ "$(jget "$ds" latency.file_percentiles_disordered.ttft.lower_pct)" = 50.0 ]
check "disordered percentiles: summary names p99 = 1 ms as the higher" [ "$(jget "$ds" latency.file_percentiles_disordered.ttft.higher_pct)/$(jget "$ds" latency.file_percentiles_disordered.ttft.higher_ms)" = 99.0/1.0 ]
check "disordered percentiles: ITL's are in order" [ "$(jget "$ds" latency.file_percentiles_disordered.itl)" = null ]
check "disordered percentiles: summary lower_ms is the file's median" near "$(jget "$ds" latency.file_percentiles_disordered.ttft.lower_ms)" 346.59414507060575 1e-9
pdftotext "$tmp/disorder-out/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/disorder.txt"
check "disordered percentiles: the latency chapter says so" grep -qF "TTFT: the file's own percentiles contradict each other: p50 is 346.6 ms but p99 only 1.00 ms" "$tmp/disorder.txt"
check "disordered percentiles: the TTFT card says so" grep -qF "(file inconsistent)" "$tmp/disorder.txt"
check "disordered percentiles: the text summary says so" grep -qF "the file contradicts itself" "$tmp/disorder.stdout"
check "ordered percentiles: no disorder claimed" [ "$(jget "$tmp/noarr-b/summary.json" latency.file_percentiles_disordered.ttft)" = null ]

# a campaign: every run is gated; the campaign fails when one run fails
cp -r "$SRC/fixtures/truth/campaign-repeats" "$tmp/camp"
"$BIN" "$tmp/camp" -o "$tmp/camp-out" --quiet --fail-on 'completed>=1' --junit "$tmp/camp.xml" \
  > /dev/null 2> "$tmp/stderr4"; rc=$?
n_runs=$(jget "$tmp/camp-out/summary.json" campaign.n_runs)
check "campaign: the gate's run count is the campaign's ($n_runs)" \
  [ "$(jget "$tmp/camp-out/summary.json" campaign.gate.n_runs)" = "$n_runs" ]
check "campaign: JUnit holds one suite per run" "$PY" -c "
import sys, xml.etree.ElementTree as ET
r = ET.parse('$tmp/camp.xml').getroot()
assert len(r.findall('testsuite')) == $n_runs"
check "campaign: exit code follows the runs' verdicts" "$PY" -c "
import json, sys
s = json.load(open('$tmp/camp-out/summary.json'))
bad = [r['run']['name'] if 'run' in r else '' for r in s['runs'] if not r['gate']['passed']]
sys.exit(0 if (len(bad) > 0) == ($rc == 1) and $rc in (0, 1) else 1)"
# a vLLM V0 log without metrics (fixtures/truth/v0-log-preemptions): its
# warnings at totals 51 and 101 inside the run prove at least 51
# preemptions, so "<=50" fails on that bound and "<=60" stays unknown
v0="$SRC/fixtures/truth/v0-log-preemptions"
"$BIN" "$v0" -o "$tmp/v0a" --quiet --fail-on 'preemptions<=50' > /dev/null 2> "$tmp/v0err"; rc=$?
check "V0 log: preemptions<=50 fails (exit $rc)" [ "$rc" -eq 1 ]
check "V0 log: measured at least 51" grep -q "gate: FAIL preemptions<=50: measured at least 51 (server log (V0 preemption warnings))" "$tmp/v0err"
"$BIN" "$v0" -o "$tmp/v0b" --quiet --fail-on 'preemptions<=60' > /dev/null 2> "$tmp/v0err"; rc=$?
check "V0 log: preemptions<=60 unknown (exit $rc)" [ "$rc" -eq 1 ]
check "V0 log: unknown, said why" grep -q "gate: UNKNOWN preemptions<=60: value unknown, so the term fails: the server log's V0 warnings (one per 50 preemptions) prove at least 51" "$tmp/v0err"
finish
