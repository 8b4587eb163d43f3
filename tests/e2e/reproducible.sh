#!/usr/bin/env bash
# With SOURCE_DATE_EPOCH set, two reports of the same run are byte-identical
# file for file (report.pdf, summary.json, every figure's PNG, SVG and CSV),
# whichever figure worker drew what first; only the folder marker's random id
# differs (README). Round 1 (6 figures, both workers busy) and its SVGs'
# surface ids (cairo numbers surfaces process-wide; renumbered from 1).
. "$(dirname "$0")/lib.bash"
"$BIN" simulate "$SRC/fixtures/configs/round1.json" -o "$tmp/r1" > /dev/null 2>&1
for k in 1 2 3; do
	SOURCE_DATE_EPOCH=1700000000 "$BIN" "$tmp/r1" -o "$tmp/rep$k" -q; rc=$?
	check "report $k exit 0 (got $rc)" [ "$rc" -eq 0 ]
done
n=$(cd "$tmp/rep1" && find . -type f | wc -l)
check "report 1 holds the PDF, summary.json and 18 figure files ($n files)" [ "$n" -ge 20 ]
for k in 2 3; do
	differ=""
	for f in $(cd "$tmp/rep1" && find . -type f ! -name .benchreport-output | sort); do
		cmp -s "$tmp/rep1/$f" "$tmp/rep$k/$f" || differ="$differ $f"
	done
	check "report $k is byte-identical to report 1 (differ:${differ:- none})" [ -z "$differ" ]
	check "report $k's marker differs from report 1's in its id line only" \
		[ "$(diff "$tmp/rep1/.benchreport-output" "$tmp/rep$k/.benchreport-output" | grep -c '^[<>]')" -eq 2 ]
done
check "each SVG names its surface surface1" [ "$(cat "$tmp"/rep1/figures/*.svg | grep -o 'id="surface[0-9]*"' | sort -u)" = 'id="surface1"' ]
finish
