#!/usr/bin/env bash
# BR_CJK_FONT naming a file libharu cannot use: a text file, a truncated
# sfnt header (libharu 2.3's loader crashed on both: exit 139), a face
# without Chinese glyphs (every CJK character was a missing-glyph box), a
# missing file. Each time: exit 0, a note naming the file and why, and the
# Chinese report set in the next CJK font (text extracts as written).
. "$(dirname "$0")/lib.bash"
run="$SRC/fixtures/runs/tiny"
echo hello > "$tmp/text.ttf"
printf '\x00\x01\x00\x00\x00\x05' > "$tmp/short.ttf"
i=0
for font in "$tmp/text.ttf" "$tmp/short.ttf" /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf "$tmp/missing.ttf"; do
	i=$((i + 1))
	BR_CJK_FONT="$font" "$BIN" "$run" -o "$tmp/out$i" --lang zh --quiet > /dev/null 2> "$tmp/err$i"; rc=$?
	check "BR_CJK_FONT=$(basename "$font"): exit 0 (got $rc)" [ "$rc" -eq 0 ]
	check "BR_CJK_FONT=$(basename "$font"): the note names the file and says why" \
		grep -qF "BR_CJK_FONT=$font" "$tmp/err$i"
	pdftotext -enc UTF-8 "$tmp/out$i/report.pdf" "$tmp/t$i.txt" 2> /dev/null
	check "BR_CJK_FONT=$(basename "$font"): Chinese text extracts (压测 in the PDF)" grep -q "压测" "$tmp/t$i.txt"
	pdffonts "$tmp/out$i/report.pdf" > "$tmp/f$i" 2>&1
	check "BR_CJK_FONT=$(basename "$font"): a CJK face is embedded" grep -qiE "WenQuanYi|UMing" "$tmp/f$i"
done
grep -h "why\|font" "$tmp"/err* | head -4
finish
