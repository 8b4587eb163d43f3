#!/usr/bin/env bash
# Figures enter the PDF as vector graphics and PDF text (issue 14:
# src/report/pdf_vector.c replays each figure's display list onto the page):
# the report holds no raster image, pdftotext finds the axis titles and
# legend entries of every figure (rotated y-axis titles included), no
# content stream holds a NaN, the PDF passes qpdf --check, and the PNG/SVG
# files are still written beside it.
. "$(dirname "$0")/lib.bash"
"$BIN" simulate "$SRC/fixtures/configs/small-1024-256.json" -o "$tmp/run" > /dev/null 2>&1 || bad "simulate"
"$BIN" "$tmp/run" -o "$tmp/out" --quiet > /dev/null 2>&1; rc=$?
check "report exit 0 (got $rc)" [ "$rc" -eq 0 ]
pdf="$tmp/out/report.pdf"
pdfimages -list "$pdf" 2> "$tmp/pdfimages.err" | tail -n +3 | wc -l > "$tmp/nimg"
check "no raster image in the PDF ($(cat "$tmp/nimg"))" [ "$(cat "$tmp/nimg")" -eq 0 ]
check "pdfimages prints no warning" [ ! -s "$tmp/pdfimages.err" ]
pdftotext -enc UTF-8 "$pdf" "$tmp/t.txt" 2> "$tmp/pdftotext.err"
check "pdftotext prints no warning" [ ! -s "$tmp/pdftotext.err" ]
# figure texts from templates/report.en.json (figtext.*): an x-axis title, a
# rotated y-axis title and a legend entry of the waveform, the CDF panel
# titles and axis of figure L
for want in "time since first metrics sample (s)" "KV cache usage (%)" "running (requests, left)" \
    "time to first token (" "inter-token latency (ms)" "fraction of samples"; do
	check "figure text in the PDF: $want" grep -qF "$want" "$tmp/t.txt"
done
for f in "$tmp"/out/figures/*.png; do
	stem="${f%.png}"
	check "$(basename "$stem") has its PNG, SVG and CSV" [ -s "$f" -a -s "$stem.svg" -a -s "$stem.csv" ]
done
qpdf --check "$pdf" > "$tmp/q" 2>&1
check "qpdf --check clean" grep -q "No syntax or stream encoding errors" "$tmp/q"
qpdf --qdf --object-streams=disable "$pdf" "$tmp/plain.pdf" > /dev/null 2>&1
check "uncompressed copy written" [ -s "$tmp/plain.pdf" ]
grep -a -c -i -E "(^| )-?(nan|inf)( |$)" "$tmp/plain.pdf" > "$tmp/nnan"
check "no NaN or Inf operand in any content stream ($(cat "$tmp/nnan"))" [ "$(cat "$tmp/nnan")" -eq 0 ]
finish
