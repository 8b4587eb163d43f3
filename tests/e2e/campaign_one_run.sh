#!/usr/bin/env bash
# A campaign folder with a single run (breaker review, issue 14 session):
# the report is written, exit 0, and it says there is nothing to compare —
# on stderr, in summary.json's campaign warnings and in the PDF.
. "$(dirname "$0")/lib.bash"
mkdir -p "$tmp/camp"
cp -r "$SRC/fixtures/runs/tiny" "$tmp/camp/only"
"$BIN" "$tmp/camp" -o "$tmp/out" > "$tmp/stdout" 2> "$tmp/stderr"; rc=$?
check "exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "stdout says 1 run, not '1 runs'" grep -q "campaign camp, 1 run, focus" "$tmp/stdout"
check "stderr notes the single run" grep -q "the campaign holds one run" "$tmp/stderr"
check "summary.json carries the warning" grep -q "the campaign holds one run" "$tmp/out/summary.json"
pdftotext "$tmp/out/report.pdf" - | tr -s ' \n' '  ' > "$tmp/t"
check "the PDF says there is nothing to compare" grep -q "there is nothing to compare" "$tmp/t"
finish
